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


def canonical_json(value: Any) -> bytes:
    """The canonical UTF-8 JSON bytes of ``value`` (see the module docstring). Validates first."""
    check_canonical(value)
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False).encode("utf-8")


def chain_hash(prev_hash: bytes, canonical: bytes) -> bytes:
    """One link of the chain: SHA-256 over the previous hash followed by the event's canonical JSON."""
    return hashlib.sha256(prev_hash + canonical).digest()
