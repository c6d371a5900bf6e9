"""The native gRPC transport: method handlers for our services, built from their proto descriptors, with
request parsing of our own. A method's :class:`~stud_service.server.errors.Refused` ends the call with its
status (the web port's transport is :mod:`stud_service.server.web.connect`).

``grpc.aio`` parses a request before any servicer code runs. With the generated handlers, bytes that do
not parse as the request message end as UNKNOWN ("Unexpected error ... Wire format was corrupt") and an
ERROR traceback in the log, before the caller is even authenticated: anyone could flood the log. Here
the deserializer never raises; it hands the method an :class:`Unparsed` marker instead, which the
wrapped method refuses as INVALID_ARGUMENT / MALFORMED_REQUEST, logging at most one line a minute.
"""

from __future__ import annotations

import logging
from collections.abc import AsyncIterator, Awaitable, Callable
from dataclasses import dataclass
from typing import Any

import grpc
from google.protobuf import message_factory
from google.protobuf.descriptor import Descriptor, ServiceDescriptor
from google.protobuf.message import Message

from stud_service.observability.logging import RateLimitedLog
from stud_service.server.errors import Refused, abort_with, rich_status

_log = logging.getLogger(__name__)

# At most one log line per this many seconds about requests that did not parse.
UNPARSED_LOG_INTERVAL_SECONDS = 60.0


@dataclass(frozen=True, slots=True)
class Unparsed:
    """What the deserializer hands on for bytes that are not a valid request message."""

    message_type: str


_unparsed_log = RateLimitedLog(_log, UNPARSED_LOG_INTERVAL_SECONDS)


def _parser(descriptor: Descriptor) -> Callable[[bytes], Message | Unparsed]:
    message_class = message_factory.GetMessageClass(descriptor)

    def parse(data: bytes) -> Message | Unparsed:
        try:
            return message_class.FromString(data)
        except Exception:  # DecodeError, invalid UTF-8, nesting too deep: all the caller's fault
            return Unparsed(descriptor.full_name)

    return parse


def _serialize(message: Message) -> bytes:
    return message.SerializeToString()


async def _refuse(method: str, request: Unparsed, context: grpc.aio.ServicerContext) -> None:
    _unparsed_log.warning("refused a request that does not parse", extra={"method": method})
    await abort_with(context, rich_status(
        grpc.StatusCode.INVALID_ARGUMENT, "MALFORMED_REQUEST",
        f"the request is not a valid {request.message_type} message",
    ))


def _unary(method: str, behavior: Callable[..., Awaitable[Any]]) -> Callable[..., Awaitable[Any]]:
    async def handle(request: Any, context: grpc.aio.ServicerContext) -> Any:
        if isinstance(request, Unparsed):
            await _refuse(method, request, context)
        try:
            return await behavior(request, context)
        except Refused as refused:
            await abort_with(context, refused.grpc_status())

    return handle


def _server_streaming(
    method: str, behavior: Callable[..., AsyncIterator[Any]]
) -> Callable[..., AsyncIterator[Any]]:
    async def handle(request: Any, context: grpc.aio.ServicerContext) -> AsyncIterator[Any]:
        if isinstance(request, Unparsed):
            await _refuse(method, request, context)
        try:
            async for reply in behavior(request, context):
                yield reply
        except Refused as refused:
            await abort_with(context, refused.grpc_status())

    return handle


def add_service(server: grpc.aio.Server, servicer: Any, service: ServiceDescriptor) -> None:
    """Register every method of ``service`` (implemented by ``servicer``) on ``server``."""
    handlers: dict[str, grpc.RpcMethodHandler] = {}
    for method in service.methods:
        if method.client_streaming:
            raise NotImplementedError(f"{method.full_name}: client streaming is not supported")
        behavior = getattr(servicer, method.name)
        parse = _parser(method.input_type)
        if method.server_streaming:
            handlers[method.name] = grpc.unary_stream_rpc_method_handler(
                _server_streaming(method.full_name, behavior),
                request_deserializer=parse, response_serializer=_serialize,
            )
        else:
            handlers[method.name] = grpc.unary_unary_rpc_method_handler(
                _unary(method.full_name, behavior),
                request_deserializer=parse, response_serializer=_serialize,
            )
    server.add_generic_rpc_handlers((grpc.method_handlers_generic_handler(service.full_name, handlers),))
    server.add_registered_method_handlers(service.full_name, handlers)
