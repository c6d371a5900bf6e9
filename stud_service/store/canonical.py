"""Canonical JSON and the event hash chain.

Canonical JSON of an event (what its hash covers)::

    json.dumps(event, sort_keys=True, separators=(",", ":"), ensure_ascii=False).encode("utf-8")

that is: keys sorted by code point, no whitespace between tokens, non-ASCII characters written as
themselves in UTF-8 (not ``\\uXXXX``), and only the JSON value types we allow: objects with string
keys, arrays, strings, integers, booleans and null. Floats are refused (chips are integers, and a
float's text is not stable across encoders), and so is the NUL character (PostgreSQL's jsonb cannot
store it). With these rules the bytes are reproducible from the stored jsonb, which ``verify`` relies on.

Chain: ``hash(v) = SHA-256(hash(v-1) || canonical_json(event v))``, with 32 zero bytes before version 1.
"""

from __future__ import annotations

import hashlib
import json
from typing import Any

try:
    import orjson
except ImportError:  # optional speed-up
    orjson = None

GENESIS_HASH = bytes(32)


class NonCanonicalValue(ValueError):
    """An event holds a value outside the canonical JSON subset (float, NaN, non-string key, NUL ...)."""


def check_canonical(value: Any, path: str = "$") -> None:
    """Raise :class:`NonCanonicalValue` naming the JSON path of the first value we cannot store exactly."""
    if value is None or isinstance(value, bool | int):
        return
    if isinstance(value, str):
        if "\x00" in value:
            raise NonCanonicalValue(f"{path}: strings may not contain NUL")
        return
    if isinstance(value, dict):
        for key, item in value.items():
            if not isinstance(key, str):
                raise NonCanonicalValue(f"{path}: object keys must be strings, got {type(key).__name__}")
            check_canonical(key, f"{path}.<key>")
            check_canonical(item, f"{path}.{key}")
        return
    if isinstance(value, list | tuple):
        for index, item in enumerate(value):
            check_canonical(item, f"{path}[{index}]")
        return
    raise NonCanonicalValue(f"{path}: {type(value).__name__} is not allowed in an event (use integers)")


def _plain(value: Any) -> bool:
    """True when ``value`` holds only exact dicts with str keys, lists, strs without NUL, ints,
    bools and None: the shapes the engine writes, checked without recursion or error paths.
    Anything else (subclasses, tuples, floats ...) goes the careful way."""
    stack = [value]
    pop, push = stack.pop, stack.extend
    while stack:
        item = pop()
        kind = type(item)
        if kind is str:
            if "\x00" in item:
                return False
        elif kind is dict:
            for key in item:
                if type(key) is not str or "\x00" in key:
                    return False
            push(item.values())
        elif kind is list:
            push(item)
        elif kind is not int and kind is not bool and item is not None:
            return False
    return True


def _canonical_std(value: Any) -> bytes:
    check_canonical(value)
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False).encode("utf-8")


def canonical_json(value: Any) -> bytes:
    """The canonical UTF-8 JSON bytes of ``value`` (see the module docstring). Validates first."""
    if orjson is not None and _plain(value):
        # orjson writes the same bytes for these shapes (UTF-8 order is code point order, same
        # escapes; tested over every code point). It refuses integers beyond 64 bits and lone
        # surrogates: those take the standard path, which gives them their usual outcome.
        try:
            return orjson.dumps(value, option=orjson.OPT_SORT_KEYS)
        except orjson.JSONEncodeError:
            pass
    return _canonical_std(value)


def chain_hash(prev_hash: bytes, canonical: bytes) -> bytes:
    """One link of the chain: SHA-256 over the previous hash followed by the event's canonical JSON."""
    return hashlib.sha256(prev_hash + canonical).digest()
