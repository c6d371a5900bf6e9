"""Structured logs: one JSON object per line, table and hand ids attached, secrets kept out.

Set up once at start (``serve`` does it from ``STUD_LOG_FORMAT`` and ``STUD_LOG_LEVEL``)::

    configure_logging()                            # json to stderr, INFO

Put the table and hand on every line about them, either for a block of code (it follows ``await``s
and stays inside the asyncio task that set it) ::

    with log_context(table=table_id, hand=hand_id):
        log.info("bring-in posted", extra={"seat": 3, "amount": 25})

or with an adapter kept alongside a table::

    log = table_logger("stud_service.server", table_id)
    log.info("seat taken", extra={"seat": 2})

A line looks like::

    {"ts": "2026-11-30T03:41:07.512Z", "level": "INFO", "logger": "stud_service.server",
     "msg": "bring-in posted", "table": "t-1", "hand": "t-1/h-7", "seat": 3, "amount": 25}

What never reaches a log line, whatever the caller passes (see :func:`redact` and :func:`mask_text`):

- values under keys that name a secret or hidden information -- ``token``, ``password``, ``secret``,
  ``seed``, ``down_cards``, ``hole_cards``, ``deck``, ``authorization``, ``api_key``, ``private_key`` and any
  key containing one of these (``server_seed``, ``refresh_token``); keys naming a public digest of one
  (``deck_commitment``, ``seed_hash``) are kept;
- the ``card``/``cards`` of anything dealt face down (a mapping or event with ``face_up`` false, such as
  the engine's ``CardDealt``), also when such an event is formatted into text;
- in any text (message, string values, exception text): passwords in ``scheme://user:password@host`` URLs
  and in libpq ``password=...`` strings, ``Bearer ...`` credentials, JWTs, and ``key=value`` / ``key: value``
  pairs whose key is one of the names above.

Cards must therefore travel in structured fields named for what they are, never be formatted into a message.
"""

from __future__ import annotations

import dataclasses
import json
import logging
import math
import os
import re
import sys
import time
from collections.abc import Callable, Iterator, Mapping, MutableMapping
from contextlib import contextmanager
from contextvars import ContextVar
from datetime import UTC, datetime
from typing import IO, Any

REDACTED = "[redacted]"

LOG_FORMATS = ("json", "text")
DEFAULT_LOG_FORMAT = "json"
DEFAULT_LOG_LEVEL = "INFO"

_table_id: ContextVar[str | None] = ContextVar("stud_log_table", default=None)
_hand_id: ContextVar[str | None] = ContextVar("stud_log_hand", default=None)

# -- what counts as secret ---------------------------------------------------------------------------------

_SENSITIVE_WORDS = (
    "token", "password", "passwd", "secret", "seed", "down_card", "hole_card", "deck",
    "authorization", "api_key", "apikey", "private_key", "credential",
)
_SENSITIVE_KEY = re.compile("|".join(_SENSITIVE_WORDS), re.IGNORECASE)
# A digest or commitment of a secret is public by design (the deck commitment is shown before the deal).
_PUBLIC_DIGEST_KEY = re.compile(r"commitment|hash|digest", re.IGNORECASE)

_TEXT_MASKS: tuple[tuple[re.Pattern[str], str], ...] = (
    # scheme://user:password@host -> scheme://user:[redacted]@host
    (re.compile(r"(?P<head>\b[a-zA-Z][a-zA-Z0-9+.-]*://[^\s:/@]*):[^\s@/]*@"), rf"\g<head>:{REDACTED}@"),
    # Authorization header values.
    (re.compile(r"\b(Bearer|Basic)\s+[A-Za-z0-9\-._~+/]+=*", re.IGNORECASE), rf"\1 {REDACTED}"),
    # Anything shaped like a JWT, wherever it appears.
    (re.compile(r"\beyJ[A-Za-z0-9_-]*\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]*"), REDACTED),
    # key=value, key: value, 'key': value and "key"=value where the key names a secret; the value may be
    # quoted, a bracketed list or tuple, or a bare word.
    (
        re.compile(
            r"""(?P<key>[A-Za-z0-9_]*(?:""" + "|".join(_SENSITIVE_WORDS) + r""")s?)(?P<q>['"]?)"""
            r"""(?P<sep>\s*[=:]\s*)"""
            r"""(?:"[^"]*"|'[^']*'|\[[^\]]*\]|\([^)]*\)|\{[^}]*\}|[^\s,;&)}\]]+)""",
            re.IGNORECASE,
        ),
        rf"\g<key>\g<q>\g<sep>{REDACTED}",
    ),
)


# A face-down card (the engine's ``CardDealt`` with ``face_up`` false) hides under an innocent key.
_CARD_KEYS = frozenset({"card", "cards"})
_FACE_DOWN_TEXT = re.compile(r"""face_up['"]?\s*[=:]\s*(?:False|false|0)\b""")
_CARD_VALUE_TEXT = re.compile(
    r"""(?P<key>\bcards?)(?P<q>['"]?)(?P<sep>\s*[=:]\s*)(?:"[^"]*"|'[^']*'|\[[^\]]*\]|\([^)]*\)|[^\s,;)}\]]+)"""
)


def _is_face_down(mapping: Mapping[Any, Any]) -> bool:
    return mapping.get("face_up", True) in (False, 0) or bool(mapping.get("face_down", False))


def is_sensitive_key(key: str) -> bool:
    """True when a field named ``key`` may hold a secret or a hidden card."""
    return bool(_SENSITIVE_KEY.search(key)) and not _PUBLIC_DIGEST_KEY.search(key)


# Every mask above needs one of these in the text; most log lines have none and skip the masks entirely.
_MASK_TRIGGER = re.compile(
    "|".join(("://", "bearer", "basic", "eyj", "face_up", *_SENSITIVE_WORDS)), re.IGNORECASE
)


def mask_text(text: str) -> str:
    """``text`` with credentials and ``secret_key=value`` pairs replaced by ``[redacted]``."""
    if not _MASK_TRIGGER.search(text):
        return text
    for pattern, replacement in _TEXT_MASKS:
        text = pattern.sub(replacement, text)
    if _FACE_DOWN_TEXT.search(text):
        text = _CARD_VALUE_TEXT.sub(rf"\g<key>\g<q>\g<sep>{REDACTED}", text)
    return text


def redact(value: Any) -> Any:
    """A copy of ``value`` safe to log: sensitive keys' values replaced, all strings masked.

    Walks mappings, lists, tuples, sets and dataclass instances (events are dataclasses).
    """
    if isinstance(value, str):
        return mask_text(value)
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return redact({field.name: getattr(value, field.name) for field in dataclasses.fields(value)})
    if isinstance(value, Mapping):
        hidden = _is_face_down(value)
        return {
            str(key): REDACTED if is_sensitive_key(str(key)) or (hidden and key in _CARD_KEYS)
            else redact(item)
            for key, item in value.items()
        }
    if isinstance(value, list | tuple | set | frozenset):
        return [redact(item) for item in value]
    if isinstance(value, bytes | bytearray):
        return REDACTED  # raw bytes in a log line are most likely key material
    return value


# -- log records -------------------------------------------------------------------------------------------

# Attributes every LogRecord has; anything else on a record came from ``extra=``.
_RECORD_ATTRIBUTES = frozenset(
    logging.LogRecord("", 0, "", 0, "", None, None).__dict__
) | {"message", "asctime", "taskName", "table", "hand", "_stud_redacted"}


def record_extras(record: logging.LogRecord) -> dict[str, Any]:
    return {key: value for key, value in record.__dict__.items() if key not in _RECORD_ATTRIBUTES}


def redact_record(record: logging.LogRecord) -> None:
    """Rewrite ``record`` in place so that no formatter can print a secret from it. Idempotent."""
    if getattr(record, "_stud_redacted", False):
        return
    record.msg = mask_text(record.getMessage())
    record.args = None
    for key, item in record_extras(record).items():
        setattr(record, key, REDACTED if is_sensitive_key(key) else redact(item))
    for attribute in ("table", "hand"):
        if isinstance(getattr(record, attribute, None), str):
            setattr(record, attribute, mask_text(getattr(record, attribute)))
    if record.exc_info and not record.exc_text:
        record.exc_text = logging.Formatter().formatException(record.exc_info)
    if record.exc_text:
        record.exc_text = mask_text(record.exc_text)
    if record.stack_info:
        record.stack_info = mask_text(record.stack_info)
    record._stud_redacted = True


def attach_context(record: logging.LogRecord) -> None:
    """Fill ``record.table`` / ``record.hand`` from :func:`log_context` unless the call set them."""
    if getattr(record, "table", None) is None:
        record.table = _table_id.get()
    if getattr(record, "hand", None) is None:
        record.hand = _hand_id.get()


class ContextFilter(logging.Filter):
    """Adds the table and hand ids of the current :func:`log_context` to every record."""

    def filter(self, record: logging.LogRecord) -> bool:
        attach_context(record)
        return True


class RedactionFilter(logging.Filter):
    """Strips secrets and hidden cards from every record (the record is still emitted)."""

    def filter(self, record: logging.LogRecord) -> bool:
        redact_record(record)
        return True


@contextmanager
def log_context(*, table: str | None = None, hand: str | None = None) -> Iterator[None]:
    """Within the block, every log line carries these ids (those left ``None`` keep their outer value)."""
    tokens = []
    if table is not None:
        tokens.append((_table_id, _table_id.set(str(table))))
    if hand is not None:
        tokens.append((_hand_id, _hand_id.set(str(hand))))
    try:
        yield
    finally:
        for var, token in reversed(tokens):
            var.reset(token)


class TableLogger(logging.LoggerAdapter):
    """A logger bound to one table (and optionally one hand); per-call ``extra`` is merged, not replaced."""

    def process(self, msg: Any, kwargs: MutableMapping[str, Any]) -> tuple[Any, MutableMapping[str, Any]]:
        kwargs["extra"] = {**(self.extra or {}), **(kwargs.get("extra") or {})}
        return msg, kwargs

    def for_hand(self, hand: str) -> TableLogger:
        return TableLogger(self.logger, {**(self.extra or {}), "hand": str(hand)})


def table_logger(logger: str | logging.Logger, table: str, hand: str | None = None) -> TableLogger:
    base = logging.getLogger(logger) if isinstance(logger, str) else logger
    extra: dict[str, Any] = {"table": str(table)}
    if hand is not None:
        extra["hand"] = str(hand)
    return TableLogger(base, extra)


# -- formatters --------------------------------------------------------------------------------------------


class _Throttle:
    """Lets one line through per ``interval`` seconds and counts the ones held back in between."""

    def __init__(self, interval: float, clock: Callable[[], float] = time.monotonic) -> None:
        self.interval = interval
        self.clock = clock
        self._next = -math.inf
        self._held = 0

    def admit(self) -> int | None:
        """None to hold this line back; else how many were held back since the last line let through."""
        now = self.clock()
        if now < self._next:
            self._held += 1
            return None
        held, self._held, self._next = self._held, 0, now + self.interval
        return held


_HELD_NOTE = " (and %d more since the last such line)"


class RateLimitedLog:
    """At most one warning per ``interval`` seconds on ``logger``; the next line that goes out counts
    the ones held back. For lines a caller can cause at will (bad requests, a database away), so that
    nobody can flood the log."""

    def __init__(self, logger: logging.Logger, interval: float) -> None:
        self.logger = logger
        self._throttle = _Throttle(interval)

    def warning(self, message: str, *args: object, extra: Mapping[str, Any] | None = None) -> None:
        held = self._throttle.admit()
        if held is None:
            return
        if held:
            message, args = message + _HELD_NOTE, (*args, held)
        self.logger.warning(message, *args, extra=extra)


# The connection pool warns once per failed connection attempt: while the database is away (a failover, a
# restart) it tries several times a second, and the same line would fill the log.
REPEATED_LINE_LOGGERS = ("psycopg.pool",)
REPEATED_LINE_INTERVAL_SECONDS = 10.0


class RepeatedLineFilter(logging.Filter):
    """On the loggers named (and their children): one line per message template per ``interval`` seconds;
    the next one let through counts those held back."""

    def __init__(self, loggers: tuple[str, ...] = REPEATED_LINE_LOGGERS,
                 interval: float = REPEATED_LINE_INTERVAL_SECONDS,
                 clock: Callable[[], float] = time.monotonic) -> None:
        super().__init__()
        self.loggers = loggers
        self.interval = interval
        self.clock = clock
        self._throttles: dict[tuple[str, str], _Throttle] = {}

    def filter(self, record: logging.LogRecord) -> bool:
        if not any(record.name == name or record.name.startswith(name + ".") for name in self.loggers):
            return True
        key = (record.name, str(record.msg))
        throttle = self._throttles.setdefault(key, _Throttle(self.interval, self.clock))
        held = throttle.admit()
        if held is None:
            return False
        if held and isinstance(record.args, tuple | None):
            record.msg = str(record.msg) + _HELD_NOTE
            record.args = (*(record.args or ()), held)
        return True


def _timestamp(record: logging.LogRecord) -> str:
    moment = datetime.fromtimestamp(record.created, UTC)
    return moment.isoformat(timespec="milliseconds").replace("+00:00", "Z")


def _json_fallback(value: Any) -> str:
    return mask_text(str(value))


class JsonFormatter(logging.Formatter):
    """One JSON object per line: ts, level, logger, msg, table, hand, then the call's extras."""

    def format(self, record: logging.LogRecord) -> str:
        attach_context(record)
        redact_record(record)
        line: dict[str, Any] = {
            "ts": _timestamp(record),
            "level": record.levelname,
            "logger": record.name,
            "msg": record.msg,
            "table": record.table,
            "hand": record.hand,
        }
        for key, item in record_extras(record).items():
            line.setdefault(key, item)
        if record.exc_text:
            line["exc"] = record.exc_text
        if record.stack_info:
            line["stack"] = record.stack_info
        return json.dumps(line, ensure_ascii=False, default=_json_fallback, separators=(",", ":"))


class TextFormatter(logging.Formatter):
    """Human-readable lines for a terminal, with the same context and the same redaction."""

    def format(self, record: logging.LogRecord) -> str:
        attach_context(record)
        redact_record(record)
        parts = [_timestamp(record), record.levelname, record.name]
        if record.table is not None:
            parts.append(f"table={record.table}")
        if record.hand is not None:
            parts.append(f"hand={record.hand}")
        parts.append(str(record.msg))
        parts.extend(f"{key}={item!r}" for key, item in record_extras(record).items())
        text = " ".join(parts)
        if record.exc_text:
            text += "\n" + record.exc_text
        if record.stack_info:
            text += "\n" + record.stack_info
        return text


def configure_logging(
    fmt: str | None = None, level: str | int | None = None, stream: IO[str] | None = None
) -> logging.Handler:
    """Route all logging (ours, grpc's, psycopg's) through one redacting handler on the root logger.

    ``fmt`` defaults to ``STUD_LOG_FORMAT`` (``json`` or ``text``, default json), ``level`` to
    ``STUD_LOG_LEVEL`` (default INFO). Calling it again replaces the handler it installed before.
    """
    fmt = (fmt or os.environ.get("STUD_LOG_FORMAT") or DEFAULT_LOG_FORMAT).lower()
    if fmt not in LOG_FORMATS:
        raise ValueError(f"log format must be one of {', '.join(LOG_FORMATS)}, got {fmt!r}")
    level = level or os.environ.get("STUD_LOG_LEVEL") or DEFAULT_LOG_LEVEL
    handler = logging.StreamHandler(stream if stream is not None else sys.stderr)
    handler.setFormatter(JsonFormatter() if fmt == "json" else TextFormatter())
    handler.addFilter(RepeatedLineFilter())
    handler.addFilter(ContextFilter())
    handler.addFilter(RedactionFilter())
    handler._stud_handler = True  # type: ignore[attr-defined]
    root = logging.getLogger()
    for previous in [h for h in root.handlers if getattr(h, "_stud_handler", False)]:
        root.removeHandler(previous)
        previous.close()
    root.addHandler(handler)
    root.setLevel(level.upper() if isinstance(level, str) else level)
    logging.captureWarnings(True)
    return handler
