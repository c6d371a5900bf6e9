"""The hostile-input suite's requests, generated from the service descriptors: every method of every service
the server registers gets the same families of cases, so a method added tomorrow is sprayed tomorrow.

For each method a *baseline* request is built first: names from the method's ``google.api.http`` path
template filled with the world's real tables, hands and players (``Names``), other fields from ``HINTS``
by field name (a field the hints do not know stays unset). Each case is the baseline with one thing made
hostile:

``bytes``       random bytes as the message (binary transports) or as the JSON body (JSON transports)
``wire``        one field (at any depth) sent with a wire type its type never has; JSON values of wrong types
``string``      every string field (at any depth), and every id inside a name, set to each of
                hostile_values.STRINGS (NUL, control characters, 65 characters, 100 KB, 1 MiB, odd unicode,
                ``../``, ``a/b``, ``%2F`` ...)
``integer``     every integer field at its type's extremes, -1, 0, 2^53 + 1
``enum``        every enum field at numbers no value has
``timestamp``   every Timestamp field out of range (nanos, years 0 and 10000, 2^62 seconds), binary and JSON
``duration``    every Duration field out of range or with mixed signs
``request-id``  malformed request ids; a request id reused for a different request; an exact retry
``caller``      the baseline from every role (player, operator, auditor), with a forged, an expired and a
                malformed token, and with none

``cases_for(method)`` lists them all (deterministic for a seed); ``sample`` picks ``per_method`` of them
for one transport, spread over the families. ``STUD_HOSTILE_CASES`` sets ``per_method`` (``make fuzz``
sets a large one).
"""

from __future__ import annotations

import json
import os
import random
import re
import struct
import zlib
from collections.abc import Callable, Iterator
from dataclasses import dataclass, replace
from typing import Any

from google.api import annotations_pb2, field_behavior_pb2
from google.protobuf import json_format, message_factory
from google.protobuf.descriptor import Descriptor, FieldDescriptor, MethodDescriptor
from google.protobuf.message import Message
from hostile_values import (
    DURATION_TEXTS,
    DURATIONS,
    MALFORMED_REQUEST_IDS,
    NEVER_AN_ID,
    RANDOM_JSON_TEXTS,
    STRINGS,
    TIMESTAMP_TEXTS,
    TIMESTAMPS,
    enum_numbers,
    integers,
    wrong_json,
)

SEED = int(os.environ.get("STUD_HOSTILE_SEED", "37"))
DEFAULT_PER_METHOD = 60
CASES_ENV = "STUD_HOSTILE_CASES"


def per_method() -> int:
    """Cases per method and transport: ``STUD_HOSTILE_CASES`` or the CI default."""
    return int(os.environ.get(CASES_ENV, DEFAULT_PER_METHOD))


# Callers, by the token they present (hostile_wire.authorization turns them into headers).
ROLE_CALLERS = ("player", "operator", "auditor")
BAD_CALLERS = ("forged", "expired", "garbage", "none")
TIMESTAMP, DURATION = "google.protobuf.Timestamp", "google.protobuf.Duration"
# Fields that hold ids or names: text that is no id (NUL, control characters, over 64 characters) in one must
# be refused. Free text (a suspension's reason, a table's display name) is not among them.
ID_FIELD = re.compile(r"(name|parent|account|page_token|.*_id|currency(_code)?|seed)")


@dataclass(frozen=True)
class Names:
    """The world's real resources, which baselines name so that cases get past the first checks."""

    tables: tuple[str, ...]  # table ids; a baseline takes one by the case's draw
    hand_table: str  # a table whose hand 1 is over
    player: str  # a player with an account in USD, seated at the tables
    standing_player: str  # a player the suspension methods may suspend and reinstate
    table_spec: Callable[[], Message]  # a valid Table for CreateTable
    tournament: str  # a tournament id, taking registrations
    tournament_spec: Callable[[], Message]  # a valid Tournament for CreateTournament
    control_table: str = ""  # the table an operator's controls pause and close (CONTROL_METHODS)


# An operator's controls of a table (RULES.md §12): their baselines name ``Names.control_table``, so that a
# table they pause or close is not one the rest of the spray needs dealing.
CONTROL_METHODS = frozenset({"PauseTable", "ResumeTable", "CloseTable", "UpdateTableSettings"})


# A field's baseline value by its name; callables get a Random (fresh ids per case).
HINTS: dict[str, Any] = {
    "seat": 3, "buy_in": 5_000, "amount": 1_000, "currency_code": "USD", "currency": "USD",
    "page_size": 5, "reason": "hostile-input review", "seed": "ab" * 16,
    "request_id": lambda rng: f"hz-{rng.getrandbits(64):016x}",
    "payment_reference": lambda rng: f"psp-{rng.getrandbits(64):016x}",
    "table_id": lambda rng: f"hz-new-{rng.getrandbits(32):08x}",
    "tournament_id": lambda rng: f"hz-cup-{rng.getrandbits(32):08x}",
}


@dataclass(frozen=True)
class Case:
    """One request of the spray: the method's baseline with ``edits`` ((dotted field, value) pairs) made,
    built only when sent (a 1 MiB value is not copied into every case). Binary transports send the message
    unless ``binary`` overrides it; JSON transports its JSON mapping with ``json_edits`` made (values of any
    JSON type), unless ``json`` overrides it. ``never_ok``: the request holds text no id can be in an id
    field (or a malformed request id), so OK would be a defect. ``then``: requests sent right after this
    one (a request id reused), each checked by its ``relation`` to the first."""

    method: MethodDescriptor
    family: str
    label: str
    caller: str
    base: Message
    edits: tuple[tuple[str, Any], ...] = ()
    json_edits: tuple[tuple[str, Any], ...] = ()
    binary: bytes | None = None
    json: bytes | None = None
    binary_only: bool = False
    json_only: bool = False
    # The whole body of a gRPC-Web call or a Connect stream, envelopes and all (binary; JSON if json_only).
    framing: bytes | None = None
    never_ok: bool = False
    relation: str = ""  # for a follow-up: "retry" (changes nothing) or "reused" (refused if the first was OK)
    then: tuple[Case, ...] = ()

    @property
    def name(self) -> str:
        return f"{self.method.name}/{self.family}/{self.label}/{self.caller}"

    def message(self) -> Message:
        message = self.base
        for path, value in self.edits:
            message = with_value(message, path, value)
        return message

    def binary_body(self) -> bytes:
        return self.binary if self.binary is not None else self.message().SerializeToString()

    def json_document(self) -> Any:
        """The JSON document (a dict), or raw bytes."""
        if self.json is not None:
            return self.json
        document = json_format.MessageToDict(self.message())
        for path, value in self.json_edits:
            document = json_with(document, self.method.input_type, path, value)
        return document


# -- the baseline -------------------------------------------------------------------------------------------


def path_template(method: MethodDescriptor) -> dict[str, str]:
    """``{field: pattern}`` for the fields the method's HTTP route binds in its path (``tables/*`` ...)."""
    rule = method.GetOptions().Extensions[annotations_pb2.http]
    kind = rule.WhichOneof("pattern")
    if kind is None or kind == "custom":
        return {}
    return dict(re.findall(r"\{([a-z_.]+)=([^}]*)\}", getattr(rule, kind)))


def fill(pattern: str, names: Names, rng: random.Random) -> str:
    """A real name for ``pattern``: ``tables/*`` -> a world table, ``tables/*/hands/*`` -> its hand 1 ..."""
    if pattern == "tables/*/hands/*":
        return f"tables/{names.hand_table}/hands/1"
    if pattern == "players/*":
        return f"players/{names.standing_player}"
    ids = {"tables": rng.choice(names.tables), "players": names.player, "accounts": "USD",
           "tournaments": names.tournament}
    parts = pattern.split("/")
    filled = [ids.get(parts[index - 1], part) if part == "*" else part for index, part in enumerate(parts)]
    return "/".join(filled)


def baseline(method: MethodDescriptor, names: Names, rng: random.Random) -> Message:
    message = message_factory.GetMessageClass(method.input_type)()
    for name, pattern in path_template(method).items():
        controlled = method.name in CONTROL_METHODS and pattern == "tables/*" and names.control_table
        setattr(message, name, f"tables/{names.control_table}" if controlled else fill(pattern, names, rng))
    for item in method.input_type.fields:
        if item.name in path_template(method):
            continue
        if item.message_type is not None and item.message_type.full_name == "stud.v1.Table":
            getattr(message, item.name).CopyFrom(names.table_spec())
        elif item.message_type is not None and item.message_type.full_name == "stud.v1.Tournament":
            getattr(message, item.name).CopyFrom(names.tournament_spec())
        elif item.name in HINTS:
            hint = HINTS[item.name]
            setattr(message, item.name, hint(rng) if callable(hint) else hint)
    return message


# -- walking fields -----------------------------------------------------------------------------------------


def scalar_fields(
    descriptor: Descriptor, prefix: str = "", depth: int = 0
) -> Iterator[tuple[str, FieldDescriptor]]:
    """Every field at every depth (a few levels), dotted by proto name; Timestamps and Durations are
    leaves."""
    for item in descriptor.fields:
        path = prefix + item.name
        yield path, item
        nested = item.message_type
        if nested is not None and nested.full_name not in (TIMESTAMP, DURATION) and depth < 3 \
                and not nested.GetOptions().map_entry:
            yield from scalar_fields(nested, path + ".", depth + 1)


def with_value(message: Message, path: str, value: Any) -> Message:
    """A copy of ``message`` with the field at dotted ``path`` set (a repeated field gets one element)."""
    copy = type(message)()
    copy.CopyFrom(message)
    *parents, last = path.split(".")
    target = copy
    for name in parents:
        item = target.DESCRIPTOR.fields_by_name[name]
        target = getattr(target, name).add() if _repeated(item) else getattr(target, name)
    item = target.DESCRIPTOR.fields_by_name[last]
    if item.message_type is not None and item.message_type.full_name in (TIMESTAMP, DURATION):
        stamp = getattr(target, last).add() if _repeated(item) else getattr(target, last)
        stamp.seconds, stamp.nanos = value
    elif _repeated(item):
        getattr(target, last).append(value)
    else:
        setattr(target, last, value)
    return copy


def _repeated(item: FieldDescriptor) -> bool:
    return bool(item.is_repeated)


def json_with(document: dict[str, Any], descriptor: Descriptor, path: str, value: Any) -> dict[str, Any]:
    """A JSON ``document`` of a ``descriptor`` message with the field at ``path`` (proto names, turned to JSON
    names) set to the JSON ``value``, whatever its type."""
    document = json.loads(json.dumps(document))
    target = document
    *parents, last = path.split(".")
    for name in parents:
        item = descriptor.fields_by_name[name]
        nested = target.setdefault(item.json_name, [{}] if _repeated(item) else {})
        target = nested[0] if isinstance(nested, list) else nested
        descriptor = item.message_type
    target[descriptor.fields_by_name[last].json_name] = value
    return document


# -- the families -------------------------------------------------------------------------------------------

_INT_KINDS = {
    FieldDescriptor.TYPE_INT32: "int32", FieldDescriptor.TYPE_SINT32: "int32",
    FieldDescriptor.TYPE_SFIXED32: "int32", FieldDescriptor.TYPE_INT64: "int64",
    FieldDescriptor.TYPE_SINT64: "int64", FieldDescriptor.TYPE_SFIXED64: "int64",
    FieldDescriptor.TYPE_UINT32: "uint32", FieldDescriptor.TYPE_FIXED32: "uint32",
    FieldDescriptor.TYPE_UINT64: "uint64", FieldDescriptor.TYPE_FIXED64: "uint64",
}
# The wire type each field type is sent with (protobuf encoding), and one it never is.
_WIRE = {FieldDescriptor.TYPE_DOUBLE: 1, FieldDescriptor.TYPE_FLOAT: 5, FieldDescriptor.TYPE_FIXED64: 1,
         FieldDescriptor.TYPE_SFIXED64: 1, FieldDescriptor.TYPE_FIXED32: 5, FieldDescriptor.TYPE_SFIXED32: 5,
         FieldDescriptor.TYPE_STRING: 2, FieldDescriptor.TYPE_BYTES: 2, FieldDescriptor.TYPE_MESSAGE: 2}


def _varint(value: int) -> bytes:
    value &= (1 << 64) - 1
    out = bytearray()
    while True:
        byte = value & 0x7F
        value >>= 7
        out.append(byte | (0x80 if value else 0))
        if not value:
            return bytes(out)


def _field_bytes(number: int, wire: int) -> bytes:
    """Field ``number`` with wire type ``wire`` and a payload of that wire type."""
    payload = {0: _varint(1), 1: struct.pack("<q", -1), 2: _varint(3) + b"\xc3\x28\x00", 3: b"", 4: b"",
               5: struct.pack("<i", -1), 6: b"", 7: b""}[wire]
    return _varint(number << 3 | wire) + payload


def _wrapped(path_numbers: list[int], inner: bytes) -> bytes:
    """``inner`` nested inside the message fields ``path_numbers`` (outermost first)."""
    for number in reversed(path_numbers):
        inner = _varint(number << 3 | 2) + _varint(len(inner)) + inner
    return inner


def _numbers(descriptor: Descriptor, path: str) -> list[int]:
    numbers = []
    for name in path.split("."):
        item = descriptor.fields_by_name[name]
        numbers.append(item.number)
        descriptor = item.message_type
    return numbers


def _json_kind(item: FieldDescriptor) -> str:
    if _repeated(item):
        return "repeated"
    if item.type == FieldDescriptor.TYPE_STRING:
        return "string"
    if item.type in _INT_KINDS:
        return "integer"
    return {FieldDescriptor.TYPE_BOOL: "bool", FieldDescriptor.TYPE_ENUM: "enum",
            FieldDescriptor.TYPE_MESSAGE: "message",
            FieldDescriptor.TYPE_BYTES: "bytes"}.get(item.type, "float")


def byte_cases(method: MethodDescriptor, base: Message, caller: str, rng: random.Random) -> list[Case]:
    cases = []
    for size in (0, 1, 3, 17, 64, 300, 4096):
        data = rng.randbytes(size)
        cases.append(Case(method, "bytes", f"random-{size}", caller, base, binary=data, binary_only=True))
    cases.append(Case(method, "bytes", "truncated-varint", caller, base, binary=b"\xff\xff\xff\xff",
                      binary_only=True))
    cases.append(Case(method, "bytes", "field-cut-short", caller, base, binary=b"\x0a\x05ab",
                      binary_only=True))
    cases.append(Case(method, "bytes", "deep-nesting", caller, base, binary=_wrapped([1] * 200, b""),
                      binary_only=True))
    for index, text in enumerate(RANDOM_JSON_TEXTS):
        cases.append(Case(method, "bytes", f"json-text-{index}", caller, base, json=text, json_only=True))
    return cases


def framing_cases(method: MethodDescriptor, base: Message, caller: str) -> list[Case]:
    """Bodies whose envelopes (gRPC-Web; Connect streams) are wrong: the message itself is the baseline."""
    cases = []
    for json_codec in (False, True):
        data = json.dumps(json_format.MessageToDict(base)).encode() if json_codec \
            else base.SerializeToString()
        bodies = {
            "compressed-flag": struct.pack(">BI", 0x01, len(data)) + data,
            "trailer-flag": struct.pack(">BI", 0x80, len(data)) + data,
            "end-stream-flag": struct.pack(">BI", 0x02, len(data)) + data,
            "all-flags": struct.pack(">BI", 0xFF, len(data)) + data,
            "declares-more": struct.pack(">BI", 0, len(data) + 100) + data,
            "declares-4-GiB": struct.pack(">BI", 0, 2**32 - 1) + data,
            "trailing-garbage": struct.pack(">BI", 0, len(data)) + data + b"\x00\x00",
            "two-messages": (struct.pack(">BI", 0, len(data)) + data) * 2,
            "no-envelope": data,
            "empty": b"",
            "header-cut-short": b"\x00\x00\x00",
        }
        for label, body in bodies.items():
            cases.append(Case(method, "framing", f"{label}-{'json' if json_codec else 'proto'}", caller, base,
                              framing=body, binary_only=not json_codec, json_only=json_codec))
    return cases


def wire_cases(method: MethodDescriptor, base: Message, caller: str) -> list[Case]:
    cases = []
    for path, item in scalar_fields(method.input_type):
        usual = _WIRE.get(item.type, 0)
        numbers = _numbers(method.input_type, path)
        for wire in sorted({0, 2, 5, 3} - {usual}):
            data = base.SerializeToString() + _wrapped(numbers[:-1], _field_bytes(numbers[-1], wire))
            cases.append(Case(method, "wire", f"{path}:wire-{wire}", caller, base, binary=data,
                              binary_only=True))
        if item.type == FieldDescriptor.TYPE_STRING:  # length-delimited, but not UTF-8
            data = base.SerializeToString() + _wrapped(
                numbers[:-1], _varint(numbers[-1] << 3 | 2) + b"\x02\xc3\x28")
            cases.append(Case(method, "wire", f"{path}:not-utf8", caller, base, binary=data,
                              binary_only=True))
        for value in wrong_json(_json_kind(item)):
            cases.append(Case(method, "wire", f"{path}:{value.label}", caller, base,
                              json_edits=((path, value.value),), json_only=True))
    return cases


def _id_slots(value: str) -> list[tuple[str, Callable[[str], str]]]:
    """Ways to put hostile text into a name: as the whole value, and as each id in it."""
    slots: list[tuple[str, Callable[[str], str]]] = [("whole", lambda text: text)]
    parts = value.split("/")
    for index in range(1, len(parts), 2):
        def slot(text: str, index: int = index) -> str:
            return "/".join(text if at == index else part for at, part in enumerate(parts))
        slots.append((parts[index - 1], slot))
    return slots


def string_cases(method: MethodDescriptor, base: Message, caller: str) -> list[Case]:
    cases = []
    never = {hostile.label for hostile in NEVER_AN_ID}
    for path, item in scalar_fields(method.input_type):
        if item.type != FieldDescriptor.TYPE_STRING or _repeated(item):
            continue
        current = _get(base, path)
        # A resource's output-only fields (its name among them) are ignored in a request (AIP-203): any text
        # in them may be answered OK.
        ignored = _ignored_on_input(method.input_type, path)
        id_field = ID_FIELD.fullmatch(item.name) is not None and not ignored
        slots = _id_slots(current) if "/" in current else [("whole", lambda text: text)]
        family = "request-id" if item.name == "request_id" else "string"
        for slot_name, put in slots:
            for hostile in STRINGS:
                text = put(hostile.value)
                cases.append(Case(method, family, f"{path}[{slot_name}]={hostile.label}", caller, base,
                                  ((path, text),), never_ok=id_field and hostile.label in never))
        if item.name == "request_id":
            for hostile in MALFORMED_REQUEST_IDS:
                cases.append(Case(method, family, f"{path}={hostile.label}", caller, base,
                                  ((path, hostile.value),), never_ok=True))
    return cases


_IGNORED_ON_INPUT = frozenset({field_behavior_pb2.OUTPUT_ONLY, field_behavior_pb2.IDENTIFIER})


def _ignored_on_input(descriptor: Descriptor, path: str) -> bool:
    """Whether a field on dotted ``path`` (or one it is inside) is OUTPUT_ONLY or IDENTIFIER."""
    for name in path.split("."):
        item = descriptor.fields_by_name[name]
        if set(item.GetOptions().Extensions[field_behavior_pb2.field_behavior]) & _IGNORED_ON_INPUT:
            return True
        descriptor = item.message_type
    return False


def _get(message: Message, path: str) -> Any:
    """The value at dotted ``path``; through a repeated message, its first element (an empty one if it has
    none: ``with_value`` adds one there)."""
    value: Any = message
    for name in path.split("."):
        item = value.DESCRIPTOR.fields_by_name[name]
        value = getattr(value, name)
        if _repeated(item) and item.message_type is not None:
            value = value[0] if len(value) else message_factory.GetMessageClass(item.message_type)()
    return value


def number_cases(method: MethodDescriptor, base: Message, caller: str) -> list[Case]:
    cases = []
    for path, item in scalar_fields(method.input_type):
        if _repeated(item):
            continue
        if item.type in _INT_KINDS:
            values = integers(_INT_KINDS[item.type])
            family = "integer"
        elif item.type == FieldDescriptor.TYPE_ENUM:
            values = enum_numbers([value.number for value in item.enum_type.values])
            family = "enum"
        else:
            continue
        for hostile in values:
            cases.append(Case(method, family, f"{path}={hostile.label}", caller, base,
                              ((path, hostile.value),)))
    return cases


def time_cases(method: MethodDescriptor, base: Message, caller: str) -> list[Case]:
    cases = []
    for path, item in scalar_fields(method.input_type):
        kind = item.message_type.full_name if item.message_type is not None else ""
        if kind not in (TIMESTAMP, DURATION) or _repeated(item):
            continue
        family = "timestamp" if kind == TIMESTAMP else "duration"
        pairs, texts = (TIMESTAMPS, TIMESTAMP_TEXTS) if kind == TIMESTAMP else (DURATIONS, DURATION_TEXTS)
        for hostile in pairs:
            cases.append(Case(method, family, f"{path}={hostile.label}", caller, base,
                              ((path, hostile.value),), binary_only=True))
        for hostile in texts:
            cases.append(Case(method, family, f"{path}={hostile.label}", caller, base,
                              json_edits=((path, hostile.value),), json_only=True))
    return cases


def reuse_cases(method: MethodDescriptor, base: Message, caller: str) -> list[Case]:
    """The same request id twice: the exact request again (a retry), and another request (refused)."""
    if "request_id" not in method.input_type.fields_by_name:
        return []
    retry = Case(method, "request-id", "retry", caller, base, relation="retry")
    cases = [Case(method, "request-id", "sent-twice", caller, base, then=(retry,))]
    for path, item in scalar_fields(method.input_type):
        if item.type in _INT_KINDS and not _repeated(item) and "." not in path:
            reused = Case(method, "request-id", f"reused-with-{path}+1", caller, base,
                          ((path, _get(base, path) + 1),), relation="reused")
            cases.append(Case(method, "request-id", f"reused-with-{path}+1", caller, base, then=(reused,)))
            break
    return cases


MIXED_CASES = 24
# Many fields of a MiB each would pass the gRPC port's message limit, whose refusal is gRPC's own.
_MIXED_STRINGS = [hostile for hostile in STRINGS if len(hostile.value) < 200_000]


def mixed_cases(method: MethodDescriptor, base: Message, caller: str, rng: random.Random) -> list[Case]:
    """Many fields hostile at once: each field of the request (at every depth) kept, or set to a value drawn
    from the other families' pools, the names' ids kept real half of the time."""
    cases = []
    fields = [(path, item) for path, item in scalar_fields(method.input_type) if not _repeated(item)]
    for number in range(MIXED_CASES):
        edits = []
        for path, item in fields:
            if rng.random() < 0.5:
                continue
            value = _random_value(item, _get(base, path), rng)
            if value is not None:
                edits.append((path, value))
        caller_now = rng.choice((caller, caller, caller, *ROLE_CALLERS, *BAD_CALLERS))
        times = any(isinstance(value, tuple) for _path, value in edits)  # JSON cannot say a bad one
        cases.append(Case(method, "mixed", f"mixed-{number}", caller_now, base, tuple(edits),
                          binary_only=times))
    return cases


def _random_value(item: FieldDescriptor, current: Any, rng: random.Random) -> Any:
    if item.type == FieldDescriptor.TYPE_STRING:
        if isinstance(current, str) and "/" in current and rng.random() < 0.5:
            return current  # a real name: the rest of the request gets a look
        return rng.choice(_MIXED_STRINGS).value
    if item.type in _INT_KINDS:
        return rng.choice(integers(_INT_KINDS[item.type])).value
    if item.type == FieldDescriptor.TYPE_ENUM:
        known = [value.number for value in item.enum_type.values]
        return rng.choice([*known, *(hostile.value for hostile in enum_numbers(known))])
    if item.type == FieldDescriptor.TYPE_BOOL:
        return rng.random() < 0.5
    if item.message_type is not None and item.message_type.full_name in (TIMESTAMP, DURATION):
        pool = TIMESTAMPS if item.message_type.full_name == TIMESTAMP else DURATIONS
        return rng.choice([*(hostile.value for hostile in pool), (rng.randrange(0, 2**33), 0)])
    return None


def caller_cases(method: MethodDescriptor, base: Message) -> list[Case]:
    return [Case(method, "caller", "baseline", caller, base) for caller in (*ROLE_CALLERS, *BAD_CALLERS)]


def cases_for(method: MethodDescriptor, names: Names, usual_caller: str, seed: int = SEED) -> list[Case]:
    """Every case of ``method``, in a fixed order for ``seed``; each has fresh request ids of its own."""
    rng = random.Random(f"{seed}:{method.full_name}")
    found: list[Case] = []
    found += caller_cases(method, baseline(method, names, rng))
    found += byte_cases(method, baseline(method, names, rng), usual_caller, rng)
    found += reuse_cases(method, baseline(method, names, rng), usual_caller)
    for family in (framing_cases, wire_cases, string_cases, number_cases, time_cases):
        base = baseline(method, names, rng)
        for case in family(method, base, usual_caller):
            found.append(_fresh_ids(case, method, names, rng))
    for case in mixed_cases(method, baseline(method, names, rng), usual_caller, rng):
        found.append(case if any(path == "request_id" for path, _ in case.edits)
                     else _fresh_ids(case, method, names, rng))
    return found


def _fresh_ids(case: Case, method: MethodDescriptor, names: Names, rng: random.Random) -> Case:
    """Each case its own request id (unless the case is about it), so cases are not retries of each other."""
    if "request_id" not in method.input_type.fields_by_name or case.family == "request-id" \
            or case.binary is not None:
        return case
    return replace(case, edits=(("request_id", HINTS["request_id"](rng)), *case.edits))


def speaks(case: Case, transport: str, json_transport: bool) -> bool:
    """Whether ``transport`` can carry ``case``: JSON or binary; envelopes where there are any (gRPC-Web,
    and a Connect stream)."""
    if case.framing is not None:
        streaming = bool(case.method.server_streaming)
        enveloped = transport == "grpc-web" or (transport.startswith("connect") and streaming)
        if not enveloped:
            return False
    return not (case.binary_only if json_transport else case.json_only)


@dataclass
class Sampler:
    """``per_method`` cases of each family in turn (the families in a seeded order), drawn at random from
    each family's cases, for one method and transport."""

    per_method: int
    seed: int = SEED

    def sample(self, cases: list[Case], transport: str, json_transport: bool) -> list[Case]:
        usable = [case for case in cases if speaks(case, transport, json_transport)]
        if not usable:
            return []
        rng = random.Random(zlib.crc32(f"{self.seed}:{usable[0].method.full_name}:{transport}".encode()))
        families: dict[str, list[Case]] = {}
        for case in usable:
            families.setdefault(case.family, []).append(case)
        for pool in families.values():
            rng.shuffle(pool)
        order = sorted(families)
        rng.shuffle(order)
        picked: list[Case] = []
        while len(picked) < self.per_method and any(families.values()):
            for family in order:
                if families[family] and len(picked) < self.per_method:
                    picked.append(families[family].pop())
        return picked
