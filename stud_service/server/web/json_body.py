"""A request message from a JSON body, for the web port's Connect JSON codec and the JSON routes' bodies.

The protobuf JSON mapping, with two differences from ``json_format.Parse`` as it stands:

- **Unknown fields are ignored**, as in the binary encoding, so a client built from newer protos (a field this
  server does not know yet) is still served. An unknown *enum name* is still refused: it is a value, and the
  server could not act on it.
- **A value of the wrong type is refused with the field it is in**: INVALID_ARGUMENT / MALFORMED_REQUEST with
  ErrorInfo metadata ``field`` (the proto field path, e.g. ``page_size`` or ``table.variant``) and a message
  that says what the field takes, rather than the parser's own text.
"""

from __future__ import annotations

import json
import re
from typing import Any

from google.protobuf import json_format, message_factory
from google.protobuf.descriptor import Descriptor, FieldDescriptor
from google.protobuf.message import Message

from stud_service.server.api.errors import QUOTED_CHARS, RequestError, malformed, quoted

_INT32 = frozenset({FieldDescriptor.TYPE_INT32, FieldDescriptor.TYPE_SINT32, FieldDescriptor.TYPE_SFIXED32})
_UINT32 = frozenset({FieldDescriptor.TYPE_UINT32, FieldDescriptor.TYPE_FIXED32})
_INT64 = frozenset({FieldDescriptor.TYPE_INT64, FieldDescriptor.TYPE_SINT64, FieldDescriptor.TYPE_SFIXED64})
_UINT64 = frozenset({FieldDescriptor.TYPE_UINT64, FieldDescriptor.TYPE_FIXED64})
_WELL_KNOWN_FORMS = {
    "google.protobuf.Timestamp": 'an RFC 3339 time such as "2025-01-31T20:00:00Z"',
    "google.protobuf.Duration": 'a duration in seconds such as "1.5s"',
}


class _DuplicateKey(ValueError):
    pass


def _no_duplicates(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    document: dict[str, Any] = {}
    for key, value in pairs:
        if key in document:
            raise _DuplicateKey(key)
        document[key] = value
    return document


def parse_json_body(data: bytes, message: Message, prefix: str = "") -> None:
    """Fill ``message`` from the JSON object in ``data`` (empty: ``{}``); RequestError (MALFORMED_REQUEST) if
    it is not one. ``prefix``: the path of ``message`` within the request (``"table."`` for a body that is
    CreateTableRequest.table), for the ``field`` a refusal names."""
    kind = message.DESCRIPTOR.full_name
    try:
        document = json.loads(data.decode("utf-8") if data else "{}", object_pairs_hook=_no_duplicates)
    except _DuplicateKey as duplicate:
        name = str(duplicate)[:100]
        raise malformed(f"the body gives {quoted(name)} more than once", prefix + name) from None
    except RecursionError:
        raise malformed("the body nests too deeply") from None
    except ValueError as error:  # not JSON, or not UTF-8
        problem = error.msg if isinstance(error, json.JSONDecodeError) else "it is not UTF-8"
        raise malformed(f"the body is not JSON: {problem}") from None
    if not isinstance(document, dict):
        raise malformed(f"the body is not a JSON object (a {kind})")
    if _SURROGATE_ESCAPE.search(data) and not _is_unicode(document):
        raise malformed("the body escapes half of a UTF-16 surrogate pair (\\ud800-\\udfff alone): not text")
    _drop_unknown(document, message.DESCRIPTOR)
    try:
        json_format.ParseDict(document, message)
    except (json_format.ParseError, ValueError, TypeError, RecursionError):
        raise _explained(document, message.DESCRIPTOR, prefix) from None


# JSON may escape one half of a UTF-16 pair alone; Python reads it into a str no UTF-8 can encode, which no
# field, lookup or refusal message (quoting it) could then take.
_SURROGATE_ESCAPE = re.compile(rb"\\u[dD][89abcdefABCDEF]")


def _is_unicode(document: Any) -> bool:
    try:
        json.dumps(document, ensure_ascii=False).encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def _field(descriptor: Descriptor, key: str) -> FieldDescriptor | None:
    return descriptor.fields_by_camelcase_name.get(key) or descriptor.fields_by_name.get(key)


def _is_well_known(descriptor: Descriptor) -> bool:
    """A google.protobuf type: its JSON form is its own (a string, any value ...), not an object of fields."""
    return descriptor.full_name.startswith("google.protobuf.")


def _message_values(field: FieldDescriptor, value: Any) -> list[tuple[Descriptor, Any]]:
    """The JSON objects in ``value`` that are messages of ``field``'s type, each with its descriptor."""
    target = field.message_type
    if target is None:
        return []
    if target.GetOptions().map_entry:
        entry_value = target.fields_by_name["value"].message_type
        if entry_value is None or not isinstance(value, dict):
            return []
        return [(entry_value, item) for item in value.values()]
    items = value if field.is_repeated and isinstance(value, list) else [value]
    return [(target, item) for item in items]


def _drop_unknown(document: dict[str, Any], descriptor: Descriptor) -> None:
    """Remove, in place and at every depth, the keys that name no field of ``descriptor``."""
    if _is_well_known(descriptor):
        return
    for key in list(document):
        field = _field(descriptor, key)
        if field is None:
            del document[key]
            continue
        for nested, item in _message_values(field, document[key]):
            if isinstance(item, dict):
                _drop_unknown(item, nested)


def _parses(descriptor: Descriptor, document: dict[str, Any]) -> bool:
    try:
        json_format.ParseDict(document, message_factory.GetMessageClass(descriptor)())
    except (json_format.ParseError, ValueError, TypeError, RecursionError):
        return False
    return True


def _explained(document: dict[str, Any], descriptor: Descriptor, prefix: str) -> RequestError:
    """The refusal naming the first field of ``document`` whose value ``descriptor`` does not take."""
    for key, value in document.items():
        field = _field(descriptor, key)
        if field is None or _parses(descriptor, {key: value}):
            continue
        path = prefix + field.name
        nested = field.message_type
        deeper = nested is not None and not field.is_repeated and not _is_well_known(nested)
        if deeper and isinstance(value, dict):
            return _explained(value, nested, path + ".")  # the fault is deeper: name the innermost field
        return malformed(f"{path} takes {_takes(field, value)}, not {_shown(value)}", path)
    return malformed(f"the body is not a valid {descriptor.full_name}")


def _takes(field: FieldDescriptor, value: Any) -> str:
    """What ``field`` takes, in words: for a list, what the list should hold."""
    if field.message_type is not None and field.message_type.GetOptions().map_entry:
        return "a JSON object"
    if field.is_repeated and not isinstance(value, list):
        return f"a JSON array of {_one_value(field)}"
    if field.is_repeated:
        return f"a JSON array of {_one_value(field)} only"
    return _one_value(field)


def _one_value(field: FieldDescriptor) -> str:
    kind = field.type
    if kind in _INT32:
        return "an integer from -2147483648 to 2147483647"
    if kind in _UINT32:
        return "an integer from 0 to 4294967295"
    if kind in _INT64:
        return "a 64-bit integer (a JSON number or a string of digits)"
    if kind in _UINT64:
        return "an unsigned 64-bit integer (a JSON number or a string of digits)"
    if kind in (FieldDescriptor.TYPE_FLOAT, FieldDescriptor.TYPE_DOUBLE):
        return "a number"
    if kind == FieldDescriptor.TYPE_BOOL:
        return "true or false"
    if kind == FieldDescriptor.TYPE_STRING:
        return "a string"
    if kind == FieldDescriptor.TYPE_BYTES:
        return "base64 text"
    if kind == FieldDescriptor.TYPE_ENUM:
        names = [value.name for value in field.enum_type.values if value.number != 0]
        listed = ", ".join(names[:8]) + (", ..." if len(names) > 8 else "")
        return f"a {field.enum_type.full_name} name ({listed})"
    message = field.message_type
    return _WELL_KNOWN_FORMS.get(message.full_name, f"a JSON object (a {message.full_name})")


def _shown(value: Any) -> str:
    """The value as the client sent it (JSON), cut short: a refusal never echoes a large input."""
    text = json.dumps(value, ensure_ascii=False)
    return text if len(text) <= QUOTED_CHARS else f"{text[:QUOTED_CHARS]}... ({len(text)} characters)"
