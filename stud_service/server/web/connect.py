"""Connect and gRPC-Web for our services, with the ``connectrpc`` package: the web port's RPC transport.

Each endpoint calls the same servicer method the native gRPC port calls (server.grpc.handlers), with a
:class:`WebCall` for the call; a :class:`~stud_service.server.api.errors.Refused` becomes a ``ConnectError``
carrying the same ``google.rpc`` details (the ErrorInfo reason, a RetryInfo). A request that does not
decode is refused INVALID_ARGUMENT / MALFORMED_REQUEST, as on the gRPC port, not with the library's
plain message; a JSON one names the field at fault (web.json_body).
"""

from __future__ import annotations

import logging
from collections.abc import AsyncIterator, Awaitable, Callable, Mapping
from typing import Any

import grpc
from connectrpc.code import Code
from connectrpc.errors import ConnectError, ErrorDetail
from connectrpc.method import IdempotencyLevel, MethodInfo, StreamType
from connectrpc.request import RequestContext
from connectrpc.server import ConnectASGIApplication, Endpoint
from google.protobuf import json_format, message_factory
from google.protobuf.descriptor import MethodDescriptor, ServiceDescriptor
from google.protobuf.message import Message
from google.rpc import status_pb2
from protobuf.wkt import Any as WireAny

from stud_service.observability.logging import RateLimitedLog
from stud_service.server.api.errors import Refused, RequestError, malformed, refusal_for, rich_refusal
from stud_service.server.grpc.handlers import UNPARSED_LOG_INTERVAL_SECONDS
from stud_service.server.web.call import WebCall
from stud_service.server.web.json_body import parse_json_body
from stud_service.server.web.limits import request_too_large

_log = logging.getLogger(__name__)
_undecoded_log = RateLimitedLog(_log, UNPARSED_LOG_INTERVAL_SECONDS)

# Connect's codes are gRPC's, by name (google.rpc.Status holds the number).
_CODES = {code.value[0]: Code[code.name] for code in grpc.StatusCode if code.name in Code.__members__}


def connect_error(status: status_pb2.Status) -> ConnectError:
    """A refusal's status as the ConnectError the library writes (Connect error JSON; gRPC-Web trailers)."""
    details = [ErrorDetail(WireAny(type_url=d.type_url, value=d.value)) for d in status.details]
    return ConnectError(_CODES.get(status.code, Code.INTERNAL), status.message, details)


def malformed_error(message_type: str, refusal: RequestError | None = None) -> ConnectError:
    _undecoded_log.warning("refused a request that does not parse", extra={"method": message_type})
    if refusal is None:
        refusal = malformed(f"the request is not a valid {message_type} message")
    return connect_error(refusal_for(refusal))


class _BinaryCodec:
    def name(self) -> str:
        return "proto"

    def encode(self, message: Message) -> bytes:
        return message.SerializeToString()

    def decode(self, data: bytes | bytearray, message_class: type[Message]) -> Message:
        try:
            return message_class.FromString(bytes(data))
        except Exception:  # DecodeError, invalid UTF-8, nesting too deep: the caller's fault
            raise malformed_error(message_class.DESCRIPTOR.full_name) from None


class _JsonCodec:
    """The protobuf JSON mapping, unknown fields ignored as in binary (web.json_body)."""

    def name(self) -> str:
        return "json"

    def encode(self, message: Message) -> bytes:
        return json_format.MessageToJson(message, indent=None).encode()

    def decode(self, data: bytes | bytearray, message_class: type[Message]) -> Message:
        message = message_class()
        try:
            parse_json_body(bytes(data), message)
        except RequestError as refusal:
            raise malformed_error(message_class.DESCRIPTOR.full_name, refusal) from None
        return message


CODECS = (_BinaryCodec(), _JsonCodec())


def web_call(ctx: RequestContext, heartbeat_seconds: float | None) -> WebCall:
    timeout_ms = ctx.timeout_ms
    client = ctx.client_address
    host, _, port = (client or "").rpartition(":")
    return WebCall(
        ctx.request_headers.allitems(),
        None if timeout_ms is None else timeout_ms / 1000,
        (host.strip("[]"), int(port)) if host and port.isdigit() else None,
        heartbeat_seconds,
    )


Behavior = Callable[..., Any]


def _unary(behavior: Behavior, heartbeat: float | None) -> Callable[[Any, RequestContext], Awaitable[Any]]:
    async def endpoint(request: Any, ctx: RequestContext) -> Any:
        try:
            return await behavior(request, web_call(ctx, heartbeat))
        except Refused as refused:
            raise connect_error(refused.status) from None

    return endpoint


def _server_stream(
    behavior: Behavior, heartbeat: float | None
) -> Callable[[Any, RequestContext], AsyncIterator[Any]]:
    async def endpoint(request: Any, ctx: RequestContext) -> AsyncIterator[Any]:
        try:
            async for reply in behavior(request, web_call(ctx, heartbeat)):
                yield reply
        except Refused as refused:
            raise connect_error(refused.status) from None

    return endpoint


def method_info(method: MethodDescriptor) -> MethodInfo[Any, Any]:
    safe = method.GetOptions().idempotency_level == method.GetOptions().NO_SIDE_EFFECTS
    return MethodInfo(
        name=method.name,
        service_name=method.containing_service.full_name,
        input=message_factory.GetMessageClass(method.input_type),
        output=message_factory.GetMessageClass(method.output_type),
        idempotency_level=IdempotencyLevel.NO_SIDE_EFFECTS if safe else IdempotencyLevel.UNKNOWN,
        stream_type=StreamType.SERVER_STREAM if method.server_streaming else StreamType.UNARY,
    )


def endpoints(
    services: Mapping[ServiceDescriptor, object], heartbeat_seconds: float | None
) -> dict[str, Endpoint[Any, Any]]:
    """``/{service}/{method}`` -> the endpoint calling ``servicer.Method``, for each method of each."""
    table: dict[str, Endpoint[Any, Any]] = {}
    for service, servicer in services.items():
        for method in service.methods:
            if method.client_streaming:
                raise NotImplementedError(f"{method.full_name}: client streaming is not supported")
            info = method_info(method)
            behavior = getattr(servicer, method.name)
            path = f"/{service.full_name}/{method.name}"
            if method.server_streaming:
                table[path] = Endpoint.server_stream(info, _server_stream(behavior, heartbeat_seconds))
            else:
                table[path] = Endpoint.unary(info, _unary(behavior, heartbeat_seconds))
    return table


_ERROR_INFO = "google.rpc.ErrorInfo"
_MESSAGE_CHARS = 200  # of the library's own message, which may quote a header


def reasoned(error: Exception, read_max_bytes: int) -> ConnectError | None:
    """What the library refuses on its own (a bad header, an unknown compression, a body it cannot read or
    too large) comes without an ErrorInfo: the same refusal with the reason the service's own would have.
    None when ``error`` needs nothing: it has its reason, the caller is gone or its deadline passed (as on
    the gRPC port, the deadline's own status: the client gave up already)."""
    if isinstance(error, ConnectError):
        if error.code in (Code.CANCELED, Code.DEADLINE_EXCEEDED):
            return None
        if any(detail.type_name == _ERROR_INFO for detail in error.details):
            return None
        message = error.message[:_MESSAGE_CHARS]
        if error.code == Code.RESOURCE_EXHAUSTED:
            return connect_error(request_too_large(message, read_max_bytes))
        # unimplemented: an unknown compression; a "protocol error" is the request's envelope (a message
        # flagged compressed with no compression named), which the library calls INTERNAL
        if error.code in (Code.INVALID_ARGUMENT, Code.UNIMPLEMENTED) or _client_protocol_error(error):
            return connect_error(rich_refusal(grpc.StatusCode.INVALID_ARGUMENT, "MALFORMED_REQUEST", message))
    _log.error("a web call failed", exc_info=error)  # our bug: INTERNAL, as on the gRPC port
    return connect_error(refusal_for(RuntimeError()))


def _client_protocol_error(error: ConnectError) -> bool:
    # The library's server raises INTERNAL with this prefix only for what it reads from the request.
    return error.code == Code.INTERNAL and error.message.startswith("protocol error:")


class _Reasons:
    """A connectrpc metadata interceptor: a call's error that lacks a reason gets one (``reasoned``)."""

    def __init__(self, read_max_bytes: int) -> None:
        self._read_max_bytes = read_max_bytes

    async def on_start(self, ctx: RequestContext) -> None:
        return None

    async def on_end(self, token: None, ctx: RequestContext, error: Exception | None) -> None:
        replacement = None if error is None else reasoned(error, self._read_max_bytes)
        if replacement is not None:
            raise replacement


class ConnectApplication(ConnectASGIApplication[Mapping[str, Endpoint[Any, Any]]]):
    """Connect (unary and server streaming, binary and JSON, GET for side-effect-free methods) and gRPC-Web
    for every method of the given services."""

    def __init__(self, table: Mapping[str, Endpoint[Any, Any]], read_max_bytes: int) -> None:
        super().__init__(
            service=table, endpoints=lambda given: given, read_max_bytes=read_max_bytes, codecs=CODECS,
            interceptors=[_Reasons(read_max_bytes)],
        )
        self.paths = frozenset(table)

    @property
    def path(self) -> str:
        return "/"
