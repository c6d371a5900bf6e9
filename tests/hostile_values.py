"""The hostile values the hostile-input suite puts into requests (tests/hostile_cases.py), by field type.

Each value has a label, so a failure names what was sent without quoting a megabyte of it.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

MIB = 1024 * 1024


@dataclass(frozen=True)
class Hostile:
    label: str
    value: Any


# Text no id of any kind can be (a table, a hand, a player, a currency, a request id): the service must
# refuse it wherever an id or a name is read, never answer OK with it.
NEVER_AN_ID = [
    Hostile("NUL", "a\x00b"),
    Hostile("only-NUL", "\x00"),
    Hostile("tab", "a\tb"),
    Hostile("newline", "a\nb"),
    Hostile("DEL", "a\x7f"),
    Hostile("65-chars", "a" * 65),
    Hostile("100-KB", "a" * 100_000),
    Hostile("1-MiB", "a" * MIB),
]
# Text that is odd but may be a valid id under some rule (a player id is any printable text): refused or
# answered, never an INTERNAL or a log line.
ODD_TEXT = [
    Hostile("empty", ""),
    Hostile("spaces", "   "),
    Hostile("dot-dot", "../../etc/passwd"),
    Hostile("dot-dot-slash", "../"),
    Hostile("slashes", "a/b"),
    Hostile("percent-2F", "a%2Fb"),
    Hostile("percent-00", "a%00b"),
    Hostile("dash", "-"),
    Hostile("RTL-override", "\u202eevil"),
    Hostile("BOM", "\ufeffa"),
    Hostile("zero-width", "a\u200bb"),
    Hostile("combining", "a" + "\u0301" * 200),
    Hostile("astral", "\U0001f0a1\U0001f0ae"),
    Hostile("max-code-point", "\U0010ffff" * 64),
    Hostile("upper", "ABC"),
    Hostile("sql", "' OR 1=1 --"),
    Hostile("format", "%s%n{0}"),
    Hostile("json", '{"a":1}'),
    Hostile("crlf-header", "a\r\nx-injected: 1"),
]
STRINGS = NEVER_AN_ID + ODD_TEXT

INT64_MIN, INT64_MAX = -(2**63), 2**63 - 1
INT_EDGES = {
    "int32": (-(2**31), 2**31 - 1),
    "int64": (INT64_MIN, INT64_MAX),
    "uint32": (0, 2**32 - 1),
    "uint64": (0, 2**64 - 1),
}


def integers(kind: str) -> list[Hostile]:
    """The extremes of an integer type, their neighbours, -1, 0, 1 and 2^53 + 1 (where JSON numbers fail)."""
    low, high = INT_EDGES[kind]
    values = {low, low + 1, high, high - 1, -1, 0, 1, 2**53 + 1, 10**12 + 1}
    return [Hostile(f"{kind}={value}", value) for value in sorted(values) if low <= value <= high]


def enum_numbers(known: list[int]) -> list[Hostile]:
    """Numbers no value of the enum has (proto3 enums are open: any int32 reaches the server)."""
    candidates = [-1, max(known) + 1, 999, 2**31 - 1, -(2**31)]
    return [Hostile(f"enum={number}", number) for number in candidates if number not in known]


# google.protobuf.Timestamp and Duration as (seconds, nanos) in binary, and JSON strings the mapping refuses.
TIMESTAMPS = [
    Hostile("nanos=-1", (0, -1)),
    Hostile("nanos=1e9", (0, 1_000_000_000)),
    Hostile("year-10000", (253_402_300_800, 0)),
    Hostile("year-0", (-62_135_596_801, 0)),
    Hostile("seconds=2^62", (2**62, 0)),
    Hostile("seconds=int64-min", (INT64_MIN, 0)),
    Hostile("seconds=int64-max", (INT64_MAX, 999_999_999)),
]
TIMESTAMP_TEXTS = [
    Hostile("json-year-10000", "10000-01-01T00:00:00Z"),
    Hostile("json-month-13", "2026-13-01T00:00:00Z"),
    Hostile("json-no-zone", "2026-01-01T00:00:00"),
    Hostile("json-nanos-10-digits", "2026-01-01T00:00:00.1234567890Z"),
    Hostile("json-number", 1_700_000_000),
    Hostile("json-empty", ""),
]
DURATIONS = [
    Hostile("nanos=-1", (0, -1)),
    Hostile("nanos=1e9", (0, 1_000_000_000)),
    Hostile("signs-differ", (1, -1)),
    Hostile("negative", (-5, 0)),
    Hostile("10001-years", (315_576_000_001, 0)),
    Hostile("seconds=int64-max", (INT64_MAX, 0)),
    Hostile("seconds=int64-min", (INT64_MIN, 0)),
]
DURATION_TEXTS = [
    Hostile("json-no-unit", "5"),
    Hostile("json-10001-years", "315576000001s"),
    Hostile("json-nanos-10-digits", "1.1234567890s"),
    Hostile("json-minutes", "5m"),
    Hostile("json-number", 5),
]

# Request ids the rule (1..64 printable ASCII) refuses.
MALFORMED_REQUEST_IDS = [
    Hostile("65-chars", "r" * 65),
    Hostile("space", "a b"),
    Hostile("NUL", "r\x00"),
    Hostile("non-ascii", "r\u00e9"),
    Hostile("1-MiB", "r" * MIB),
]


def wrong_json(kind: str) -> list[Hostile]:
    """JSON values of the wrong type for a field of ``kind`` ("string", "integer", "bool", "enum",
    "message", "repeated", "bytes", "float")."""
    common = [Hostile("json-object", {}), Hostile("json-array", [1]), Hostile("json-null-in-array", [None])]
    by_kind: dict[str, list[Hostile]] = {
        "string": [Hostile("json-number", 123), Hostile("json-true", True),
                   Hostile("json-lone-surrogate", "\ud800")],
        "integer": [Hostile("json-word", "abc"), Hostile("json-fraction", 1.5),
                    Hostile("json-1e400", "1e400"), Hostile("json-huge", "99999999999999999999999"),
                    Hostile("json-true", True)],
        "bool": [Hostile("json-word", "yes"), Hostile("json-number", 2)],
        "enum": [Hostile("json-unknown-name", "NOT_A_VALUE"), Hostile("json-fraction", 1.5)],
        "message": [Hostile("json-string", "x"), Hostile("json-number", 5)],
        "repeated": [Hostile("json-scalar", "x"), Hostile("json-object", {"a": 1})],
        "bytes": [Hostile("json-not-base64", "!!!"), Hostile("json-number", 5)],
        "float": [Hostile("json-word", "abc"), Hostile("json-object", {})],
    }
    return by_kind[kind] + ([] if kind in ("message", "repeated") else common)


RANDOM_JSON_TEXTS = [
    b"", b"{", b"[]", b"null", b"1", b'"x"', b'{"a":', b"{}}", b'{"\\ud800":1}', b'{"name":"\\udfff"}',
    b"\xff\xfe{}", b'{"a":1,"a":2}',
    json.dumps({"name": {"$gt": ""}}).encode(), b"{" * 200_000, b"[" * 10_000 + b"]" * 10_000,
]
