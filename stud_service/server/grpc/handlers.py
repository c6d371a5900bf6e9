"""The native gRPC transport: method handlers for our services, built from their proto descriptors, and for
the standard ones (health checking, reflection), all with request parsing of our own. A method's
:class:`~stud_service.server.api.errors.Refused` ends the call with its status (the web port's transport is
:mod:`stud_service.server.web.connect`).

``grpc.aio`` parses a request before any servicer code runs. With the generated handlers, bytes that do
not parse as the request message end as UNKNOWN ("Unexpected error ... Wire format was corrupt") and an
ERROR traceback in the log, before the caller is even authenticated: anyone could flood the log. Here
the deserializer never raises; it hands the method an :class:`Unparsed` marker instead (for a stream of
requests, the stream yields it), which is refused as INVALID_ARGUMENT / MALFORMED_REQUEST, logging at most
one line a minute and counting each one (``stud_malformed_requests_total{method}``).
"""

from __future__ import annotations

import inspect
import logging
from collections.abc import AsyncIterator, Awaitable, Callable
from dataclasses import dataclass
from typing import Any

import grpc
from google.protobuf import descriptor_pool, message_factory
from google.protobuf.descriptor import Descriptor, ServiceDescriptor
from google.protobuf.message import Message

from stud_service.observability.logging import RateLimitedLog
from stud_service.server.api.errors import Refused, abort_with, rich_status

_log = logging.getLogger(__name__)

# At most one log line per this many seconds about requests that did not parse.
UNPARSED_LOG_INTERVAL_SECONDS = 60.0

Context = grpc.aio.ServicerContext
# Told the full method name ("/grpc.health.v1.Health/Check") of each request that does not parse.
MalformedCounter = Callable[[str], None]


@dataclass(frozen=True, slots=True)
class Unparsed:
    """What the deserializer hands on for bytes that are not a valid request message."""

    message_type: str


_unparsed_log = RateLimitedLog(_log, UNPARSED_LOG_INTERVAL_SECONDS)


def _parser(parse: Callable[[bytes], Any] | None, message_type: str) -> Callable[[bytes], Any]:
    def guarded(data: bytes) -> Any:
        if parse is None:
            return data
        try:
            return parse(data)
        except Exception:  # DecodeError, invalid UTF-8, nesting too deep: all the caller's fault
            return Unparsed(message_type)

    return guarded


def _serialize(message: Message) -> bytes:
    return message.SerializeToString()


class _Guard:
    """Refuses the requests of one method that did not parse."""

    def __init__(self, method: str, count: MalformedCounter | None) -> None:
        self.method = method
        self.count = count

    async def refuse(self, request: Unparsed, context: Context) -> None:
        if self.count is not None:
            self.count(self.method)
        _unparsed_log.warning("refused a request that does not parse", extra={"method": self.method})
        await abort_with(context, rich_status(
            grpc.StatusCode.INVALID_ARGUMENT, "MALFORMED_REQUEST",
            f"the request is not a valid {request.message_type} message",
        ))

    def unary_request(self, behavior: Callable[..., Any]) -> Callable[..., Any]:
        """``behavior(request, context)``, given only a request that parsed; a server-streaming one may be
        an async generator or write its replies with ``context.write`` (as grpcio's health servicer does)."""
        if inspect.isasyncgenfunction(behavior):

            async def stream(request: Any, context: Context) -> AsyncIterator[Any]:
                if isinstance(request, Unparsed):
                    await self.refuse(request, context)
                async for reply in behavior(request, context):
                    yield reply

            return stream

        async def handle(request: Any, context: Context) -> Any:
            if isinstance(request, Unparsed):
                await self.refuse(request, context)
            return await behavior(request, context)

        return handle

    async def _parsed(self, requests: AsyncIterator[Any], context: Context) -> AsyncIterator[Any]:
        async for request in requests:
            if isinstance(request, Unparsed):
                await self.refuse(request, context)
            yield request

    def request_stream(self, behavior: Callable[..., Any]) -> Callable[..., Any]:
        """``behavior(requests, context)``, whose requests end the call at the first that did not parse;
        like its behavior, an async generator or a coroutine (grpc.aio tells them apart by their kind)."""
        if inspect.isasyncgenfunction(behavior):

            async def stream(requests: AsyncIterator[Any], context: Context) -> AsyncIterator[Any]:
                async for reply in behavior(self._parsed(requests, context), context):
                    yield reply

            return stream

        async def handle(requests: AsyncIterator[Any], context: Context) -> Any:
            return await behavior(self._parsed(requests, context), context)

        return handle


def _request_type(method: str) -> str:
    """The request message's full name of ``/package.Service/Method``, from the default pool."""
    service, _, name = method.lstrip("/").partition("/")
    try:
        return descriptor_pool.Default().FindMethodByName(f"{service}.{name}").input_type.full_name
    except KeyError:
        return "request"


def guarded(
    method: str, handler: grpc.RpcMethodHandler, count: MalformedCounter | None
) -> grpc.RpcMethodHandler:
    """``handler`` (of the full method name ``method``) with a deserializer that never raises, and its
    behavior refusing what did not parse."""
    guard = _Guard(method, count)
    changes: dict[str, Any] = {
        "request_deserializer": _parser(handler.request_deserializer, _request_type(method))
    }
    for kind, wrap in (("unary_unary", guard.unary_request), ("unary_stream", guard.unary_request),
                       ("stream_unary", guard.request_stream), ("stream_stream", guard.request_stream)):
        behavior = getattr(handler, kind)
        if behavior is not None:
            changes[kind] = wrap(behavior)
    return handler._replace(**changes)  # type: ignore[attr-defined]  # grpc's RpcMethodHandler: a namedtuple


def register(server: grpc.aio.Server, service: str, handlers: dict[str, grpc.RpcMethodHandler],
             count: MalformedCounter | None = None) -> None:
    """Serve ``handlers`` (by method name) as ``service``, each :func:`guarded`."""
    safe = {name: guarded(f"/{service}/{name}", handler, count) for name, handler in handlers.items()}
    server.add_generic_rpc_handlers((grpc.method_handlers_generic_handler(service, safe),))
    server.add_registered_method_handlers(service, safe)


class _Registrations:
    """Stands in for the server while grpcio's generated ``add_*_to_server`` names its handlers."""

    def __init__(self) -> None:
        self.services: dict[str, dict[str, grpc.RpcMethodHandler]] = {}

    def add_generic_rpc_handlers(self, handlers: Any) -> None:
        pass  # the same handlers come to add_registered_method_handlers, by name

    def add_registered_method_handlers(
        self, service: str, handlers: dict[str, grpc.RpcMethodHandler]
    ) -> None:
        self.services[service] = dict(handlers)


def _implemented(handler: grpc.RpcMethodHandler) -> bool:
    """False for the generated base class's stub of a method the servicer lacks (it raises
    NotImplementedError, which grpcio logs as an error with every call)."""
    behavior = next(b for b in (handler.unary_unary, handler.unary_stream, handler.stream_unary,
                                handler.stream_stream) if b is not None)
    return not getattr(behavior, "__module__", "").endswith("_pb2_grpc")


def add_generated(server: grpc.aio.Server, add_to_server: Callable[[Any, Any], None], servicer: Any,
                  count: MalformedCounter | None = None) -> None:
    """Register ``servicer`` as its generated ``add_to_server`` would, with this module's parsing; a method
    it does not implement is left out, for gRPC to answer UNIMPLEMENTED as for any unknown method."""
    names = _Registrations()
    add_to_server(servicer, names)
    if not names.services:
        raise RuntimeError(f"{add_to_server.__name__} registered no handlers by name")
    for service, handlers in names.services.items():
        register(server, service, {name: h for name, h in handlers.items() if _implemented(h)}, count)


def _unary(behavior: Callable[..., Awaitable[Any]]) -> Callable[..., Awaitable[Any]]:
    async def handle(request: Any, context: Context) -> Any:
        try:
            return await behavior(request, context)
        except Refused as refused:
            await abort_with(context, refused.grpc_status())

    return handle


def _server_streaming(behavior: Callable[..., AsyncIterator[Any]]) -> Callable[..., AsyncIterator[Any]]:
    async def handle(request: Any, context: Context) -> AsyncIterator[Any]:
        try:
            async for reply in behavior(request, context):
                yield reply
        except Refused as refused:
            await abort_with(context, refused.grpc_status())

    return handle


def _message_class(descriptor: Descriptor) -> Callable[[bytes], Message]:
    return message_factory.GetMessageClass(descriptor).FromString


def add_service(server: grpc.aio.Server, servicer: Any, service: ServiceDescriptor,
                count: MalformedCounter | None = None) -> None:
    """Register every method of ``service`` (implemented by ``servicer``) on ``server``."""
    handlers: dict[str, grpc.RpcMethodHandler] = {}
    for method in service.methods:
        if method.client_streaming:
            raise NotImplementedError(f"{method.full_name}: client streaming is not supported")
        behavior = getattr(servicer, method.name)
        parse = _message_class(method.input_type)
        if method.server_streaming:
            handlers[method.name] = grpc.unary_stream_rpc_method_handler(
                _server_streaming(behavior), request_deserializer=parse, response_serializer=_serialize,
            )
        else:
            handlers[method.name] = grpc.unary_unary_rpc_method_handler(
                _unary(behavior), request_deserializer=parse, response_serializer=_serialize,
            )
    register(server, service.full_name, handlers, count)
