"""The JSON routes the protos declare with ``google.api.http``, so that ``curl`` works without a gateway.

``GET /v1/tables``, ``POST /v1/tables/t1:act`` (body: the ActRequest as JSON) ... as the annotations say,
with the protobuf JSON mapping both ways (lowerCamelCase names; 64-bit integers as strings; a body's unknown
fields ignored, as in binary, see web.json_body). Path variables fill their fields, and nothing else may (the
query or the body giving one is refused); for routes without ``body: "*"`` the query string fills the rest
(``?page_size=10``,
names in snake_case or lowerCamelCase, nested fields dotted, a repeated field by repeating the name); a
route with ``body: "*"`` takes no query (a parameter there is refused, not dropped).
Refusals have the status a Connect unary call would have (400, 401, 403, 404, 409, 412, 429, 503 ...) and
the same Connect error JSON body. A server-streaming route (``GET /v1/tables/t1:watch``) answers
``application/x-ndjson``: one ``{"result": <message>}`` per line, and ``{"error": <error>}`` as the last
line if the stream fails after it started.
"""

from __future__ import annotations

import base64
import json
import re
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from typing import Any

import grpc
from google.api import annotations_pb2
from google.protobuf import json_format, message_factory
from google.protobuf.descriptor import FieldDescriptor, MethodDescriptor, ServiceDescriptor
from google.protobuf.message import Message
from google.rpc import error_details_pb2, status_pb2

from stud_service.server.api.errors import Refused, malformed, refusal_for, rich_refusal
from stud_service.server.web.json_body import parse_json_body

# A path variable: `{name}` or `{name=tables/*/hands/*}`.
_VARIABLE = re.compile(r"\{([A-Za-z_][A-Za-z0-9_.]*)(?:=([^}]*))?\}")


@dataclass(frozen=True)
class Route:
    http_method: str
    path: re.Pattern[str]
    variables: tuple[str, ...]  # the field path each group of ``path`` fills
    body: str  # "" (none), "*" (the whole request) or the field the body fills
    method: MethodDescriptor
    request_class: type[Message]
    behavior: Callable[..., Any]

    @property
    def streaming(self) -> bool:
        return bool(self.method.server_streaming)


def _compile(template: str) -> tuple[re.Pattern[str], tuple[str, ...]]:
    pattern, names, position = [], [], 0
    for variable in _VARIABLE.finditer(template):
        pattern.append(re.escape(template[position : variable.start()]))
        segments = (variable.group(2) or "*").split("/")
        # One `*` segment never holds "/" or ":" (a verb such as ":act" follows the last one).
        pattern.append("(" + "/".join(
            "[^/:]+" if segment == "*" else ".+" if segment == "**" else re.escape(segment)
            for segment in segments
        ) + ")")
        names.append(variable.group(1))
        position = variable.end()
    pattern.append(re.escape(template[position:]))
    return re.compile("".join(pattern)), tuple(names)


def routes(services: Mapping[ServiceDescriptor, object]) -> list[Route]:
    """Every ``google.api.http`` rule (and additional binding) of the services' methods."""
    found: list[Route] = []
    for service, servicer in services.items():
        for method in service.methods:
            rule = method.GetOptions().Extensions[annotations_pb2.http]
            for binding in (rule, *rule.additional_bindings):
                kind = binding.WhichOneof("pattern")
                if kind is None or kind == "custom":
                    continue
                path, variables = _compile(getattr(binding, kind))
                found.append(Route(
                    kind.upper(), path, variables, binding.body, method,
                    message_factory.GetMessageClass(method.input_type), getattr(servicer, method.name),
                ))
    return found


class RouteTable:
    def __init__(self, found: Iterable[Route]) -> None:
        self._routes = tuple(found)

    def match(self, http_method: str, path: str) -> tuple[Route, re.Match[str]] | None | bool:
        """The route and its match; None when no route has the path; False when some route has the path
        but not with this HTTP method."""
        path_known = False
        for route in self._routes:
            matched = route.path.fullmatch(path)
            if matched is None:
                continue
            if route.http_method == http_method:
                return route, matched
            path_known = True
        return False if path_known else None


def build_request(
    route: Route, matched: re.Match[str], body: bytes, query: Mapping[str, list[str]]
) -> Message:
    """The request message of a call to ``route``; RequestError (MALFORMED_REQUEST) if it is not one."""
    request = route.request_class()
    if route.body:
        target = request if route.body == "*" else getattr(request, route.body)
        parse_json_body(body, target, "" if route.body == "*" else f"{route.body}.")
    for name, value in zip(route.variables, matched.groups(), strict=True):
        if _given(request, name):
            raise malformed(f"{name!r} is bound by the path: the body must not give it", name)
        _set(request, name, [value])
    if route.body == "*" and query:  # nothing is read from the query: a field there must not be dropped
        name = next(iter(query))[:100]
        raise malformed(f"{name!r}: this route takes the whole request as its body, and no query", name)
    for name, values in query.items():
        # A field the path binds comes from the path alone, so rules written against paths (a proxy's, a
        # firewall's) mean what they say.
        if _proto_path(request, name) in route.variables:
            raise malformed(f"{name[:100]!r} is bound by the path: the query must not give it", name[:100])
        _set(request, name, values)
    return request


def _proto_path(message: Message, dotted: str) -> str | None:
    """``dotted`` (proto or JSON names) as the proto field path it names; None if it names none."""
    names: list[str] = []
    descriptor: Any = message.DESCRIPTOR
    for name in dotted.split("."):
        field = None if descriptor is None else (
            descriptor.fields_by_name.get(name) or descriptor.fields_by_camelcase_name.get(name))
        if field is None:
            return None
        names.append(field.name)
        descriptor = field.message_type
    return ".".join(names)


def _given(message: Message, dotted: str) -> bool:
    """Whether the field at the proto path ``dotted`` holds a value other than its default."""
    *parents, last = dotted.split(".")
    for name in parents:
        if not message.HasField(name):
            return False
        message = getattr(message, name)
    return any(field.name == last for field, _ in message.ListFields())


def parse_problem(error: Exception) -> str:
    """A JSON parse error's explanation, short (it may quote the input: see errors.QUOTED_CHARS)."""
    text = str(error).splitlines()[0] if str(error) else "malformed JSON"
    return text if len(text) <= 120 else text[:117] + "..."


def _set(message: Message, dotted: str, values: list[str]) -> None:
    """Set the field at ``dotted`` (proto or JSON names) from query-string or path text."""
    *parents, last = dotted.split(".")
    for name in parents:
        field = _field(message, name, dotted)
        if field.type != FieldDescriptor.TYPE_MESSAGE or _is_repeated(field):
            raise malformed(f"{dotted!r} does not name a field", dotted)
        message = getattr(message, field.name)
    field = _field(message, last, dotted)
    if _is_repeated(field):
        target = getattr(message, field.name)
        for value in values:
            if field.type == FieldDescriptor.TYPE_MESSAGE:
                json_format.ParseDict(value, target.add())
            else:
                target.append(_scalar(field, value, dotted))
        return
    if len(values) != 1:
        raise malformed(f"{dotted!r} is given more than once", dotted)
    if field.type == FieldDescriptor.TYPE_MESSAGE:  # a well-known type with a string form (Timestamp, ...)
        try:
            json_format.ParseDict(values[0], getattr(message, field.name))
        except json_format.ParseError as error:
            raise malformed(f"{dotted!r}: {parse_problem(error)}", dotted) from None
        return
    setattr(message, field.name, _scalar(field, values[0], dotted))


def _field(message: Message, name: str, dotted: str) -> FieldDescriptor:
    descriptor = message.DESCRIPTOR
    field = descriptor.fields_by_name.get(name) or descriptor.fields_by_camelcase_name.get(name)
    if field is None:
        raise malformed(f"{dotted[:100]!r} does not name a field of {descriptor.full_name}", dotted[:100])
    return field


def _is_repeated(field: FieldDescriptor) -> bool:
    return bool(field.is_repeated)


_INTEGERS = frozenset({
    FieldDescriptor.TYPE_INT32, FieldDescriptor.TYPE_INT64, FieldDescriptor.TYPE_UINT32,
    FieldDescriptor.TYPE_UINT64, FieldDescriptor.TYPE_SINT32, FieldDescriptor.TYPE_SINT64,
    FieldDescriptor.TYPE_FIXED32, FieldDescriptor.TYPE_FIXED64, FieldDescriptor.TYPE_SFIXED32,
    FieldDescriptor.TYPE_SFIXED64,
})


def _scalar(field: FieldDescriptor, text: str, dotted: str) -> Any:
    try:
        if field.type in _INTEGERS:
            value = int(text)
            if not -(2**63) <= value < 2**64:
                raise ValueError
            return value
        if field.type == FieldDescriptor.TYPE_BOOL:
            return {"true": True, "false": False, "1": True, "0": False}[text.lower()]
        if field.type == FieldDescriptor.TYPE_ENUM:
            enum = field.enum_type
            known = enum.values_by_name.get(text)
            if known is None and text.lstrip("-").isdigit():
                known = enum.values_by_number.get(int(text))
            if not known:
                raise ValueError
            return known.number
        if field.type in (FieldDescriptor.TYPE_FLOAT, FieldDescriptor.TYPE_DOUBLE):
            return float(text)
        if field.type == FieldDescriptor.TYPE_BYTES:
            return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))
        return text
    except (ValueError, KeyError):
        raise malformed(f"{dotted!r} cannot be {text[:40]!r}", dotted) from None


# Connect's HTTP status for each code (connectrpc.com/docs/protocol#error-codes).
HTTP_STATUS = {
    "CANCELLED": 499, "UNKNOWN": 500, "INVALID_ARGUMENT": 400, "DEADLINE_EXCEEDED": 504, "NOT_FOUND": 404,
    "ALREADY_EXISTS": 409, "PERMISSION_DENIED": 403, "RESOURCE_EXHAUSTED": 429, "FAILED_PRECONDITION": 400,
    "ABORTED": 409, "OUT_OF_RANGE": 400, "UNIMPLEMENTED": 501, "INTERNAL": 500, "UNAVAILABLE": 503,
    "DATA_LOSS": 500, "UNAUTHENTICATED": 401,
}
_CODE_NAMES = {code.value[0]: code.name for code in grpc.StatusCode}
_DETAIL_TYPES: dict[str, type[Message]] = {
    kind.DESCRIPTOR.full_name: kind for kind in (error_details_pb2.ErrorInfo, error_details_pb2.RetryInfo)
}


def error_json(status: status_pb2.Status) -> dict[str, Any]:
    """A refusal as Connect error JSON: code, message, and each detail's type, base64 value and debug JSON."""
    details = []
    for detail in status.details:
        entry: dict[str, Any] = {
            "type": detail.type_url.rpartition("/")[2],
            "value": base64.b64encode(detail.value).decode().rstrip("="),
        }
        add_debug(entry, detail.value)
        details.append(entry)
    code = _CODE_NAMES.get(status.code, "UNKNOWN").lower()
    document: dict[str, Any] = {"code": code, "message": status.message}
    if details:
        document["details"] = details
    return document


def add_debug(entry: dict[str, Any], value: bytes) -> None:
    """Give a Connect error detail (``type``, ``value``) of a type we send (ErrorInfo, RetryInfo) its readable
    ``debug`` copy, for people reading the JSON; clients decode ``value``."""
    known = _DETAIL_TYPES.get(entry.get("type", ""))
    if known is not None and "debug" not in entry:
        entry["debug"] = json_format.MessageToDict(known.FromString(value))


def with_debug(document: dict[str, Any]) -> dict[str, Any]:
    """Connect error JSON as another writer wrote it (the connectrpc library writes no ``debug``), with the
    ``debug`` copy of each detail error_json gives: every refusal of the web port has the same shape."""
    for entry in document.get("details", ()):
        if isinstance(entry, dict) and isinstance(entry.get("value"), str):
            value = entry["value"]
            add_debug(entry, base64.b64decode(value + "=" * (-len(value) % 4)))
    return document


def http_status(status: status_pb2.Status) -> int:
    return HTTP_STATUS.get(_CODE_NAMES.get(status.code, "UNKNOWN"), 500)


def status_of(error: Exception) -> status_pb2.Status:
    """The status a call ends with: a method's refusal as it stands, anything else as errors explains it."""
    if isinstance(error, Refused):
        return error.status
    return refusal_for(error)


def unknown_route(path: str) -> status_pb2.Status:
    return rich_refusal(grpc.StatusCode.UNIMPLEMENTED, "UNKNOWN_ROUTE", "no method or route has this path",
                   {"path": path[:100]})


def to_json_line(key: str, document: Any) -> bytes:
    return json.dumps({key: document}, separators=(",", ":")).encode() + b"\n"
