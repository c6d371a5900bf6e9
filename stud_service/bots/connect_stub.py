"""The client's calls over the web port: stubs shaped as ``grpc.aio`` stubs, over Connect or gRPC-Web.

``WebChannel(base_url, protocol, codec).stub(service)`` has one attribute per method of ``service``, called
as the generated gRPC stub's are: ``await stub.Act(request, metadata=..., timeout=...)``, and
``stub.WatchTable(request, metadata=...)`` is a :class:`WebStreamCall` (async iterator, ``read()``,
``cancel()``). A failed call raises :class:`WebRpcError`, a ``grpc.aio.AioRpcError`` whose trailing metadata
holds ``grpc-status-details-bin`` rebuilt from the Connect error's details, so ``error_info``,
``rpc_status.from_call`` and ``except grpc.aio.AioRpcError`` read it exactly as a native gRPC failure.
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections.abc import AsyncIterator, Callable, Iterable
from typing import Any, Literal

import grpc
from connectrpc.client import ConnectClient
from connectrpc.code import Code
from connectrpc.compat import google_protobuf_binary_codec, google_protobuf_json_codec
from connectrpc.errors import ConnectError
from connectrpc.method import MethodInfo
from connectrpc.protocol import ProtocolType
from connectrpc.request import Headers
from google.protobuf import any_pb2
from google.protobuf.descriptor import ServiceDescriptor
from google.rpc import status_pb2

from stud_service.server.web.connect import method_info

Protocol = Literal["connect", "grpc-web"]
Codec = Literal["json", "proto"]

_PROTOCOLS = {"connect": ProtocolType.CONNECT, "grpc-web": ProtocolType.GRPC_WEB}
_STATUS_DETAILS_KEY = "grpc-status-details-bin"
# Connect spells one code differently (canceled); every other name is gRPC's.
_CODES = {code: grpc.StatusCode.CANCELLED if code is Code.CANCELED else grpc.StatusCode[code.name]
          for code in Code}


class WebRpcError(grpc.aio.AioRpcError):
    """A call over the web port that failed, as ``grpc.aio`` reports a failed call."""


def rpc_error(error: ConnectError) -> WebRpcError:
    code = _CODES[error.code]
    trailing = grpc.aio.Metadata()
    if error.details:
        status = status_pb2.Status(
            code=code.value[0],
            message=error.message,
            details=[any_pb2.Any(type_url=f"type.googleapis.com/{detail.type_name}",
                                 value=detail.message_bytes) for detail in error.details],
        )
        trailing.add(_STATUS_DETAILS_KEY, status.SerializeToString())
    debug = f"{error.code.value}: {error.message}"
    return WebRpcError(code, grpc.aio.Metadata(), trailing, error.message, debug)


def _headers(metadata: Iterable[tuple[str, str]] | None) -> Headers:
    headers = Headers()
    for key, value in metadata or ():
        headers.add(key, value)
    return headers


def _timeout_ms(timeout: float | None) -> int | None:
    return None if timeout is None else max(1, round(timeout * 1000))


class WebUnaryMethod:
    def __init__(self, client: ConnectClient, method: MethodInfo[Any, Any]) -> None:
        self._client = client
        self._method = method

    async def __call__(self, request: Any, *, metadata: Iterable[tuple[str, str]] | None = None,
                       timeout: float | None = None) -> Any:
        try:
            return await self._client.execute_unary(
                request=request, method=self._method, headers=_headers(metadata),
                timeout_ms=_timeout_ms(timeout),
            )
        except ConnectError as error:
            raise rpc_error(error) from None


_END = object()


async def _next(messages: AsyncIterator[Any]) -> Any:
    try:
        return await anext(messages)
    except StopAsyncIteration:
        return _END


class WebStreamCall(grpc.aio.UnaryStreamCall):
    """A server stream over the web port, read as a ``grpc.aio`` stream call is: ``async for``, ``read()``
    (``grpc.aio.EOF`` at the end), ``cancel()``, which closes the HTTP stream (the server sees its
    client go, as it sees a cancelled gRPC call); ``code()`` and ``details()`` once it has ended."""

    def __init__(self, messages: AsyncIterator[Any], timeout: float | None) -> None:
        self._messages = messages
        self._deadline = None if timeout is None else time.monotonic() + timeout
        self._reading: asyncio.Task[Any] | None = None
        self._closing: asyncio.Task[None] | None = None
        self._ended = asyncio.Event()
        self._status: tuple[grpc.StatusCode, str, grpc.aio.Metadata] | None = None
        self._callbacks: list[Callable[[Any], None]] = []

    def __aiter__(self) -> WebStreamCall:
        return self

    async def __anext__(self) -> Any:
        message = await self.read()
        if message is grpc.aio.EOF:
            raise StopAsyncIteration
        return message

    async def read(self) -> Any:
        if self._status is not None:
            if self.cancelled():
                raise asyncio.CancelledError
            return grpc.aio.EOF
        # Each read in a task of its own, so that cancel() (from any task) can interrupt a read that waits
        # and the library's generator closes its HTTP response on the way out.
        self._reading = asyncio.ensure_future(_next(self._messages))
        try:
            message = await self._reading
        except ConnectError as error:
            task = asyncio.current_task()
            if self.cancelled() or (task is not None and task.cancelling()):
                # The library reports its read cancelled as an error: this is our cancellation (or our
                # reader's), and the call is cancelled, as grpc.aio has it.
                self._end(grpc.StatusCode.CANCELLED, "Locally cancelled by application!")
                raise asyncio.CancelledError from None
            failed = rpc_error(error)
            self._end(failed.code(), failed.details() or "", failed.trailing_metadata())
            raise failed from None
        except asyncio.CancelledError:
            self.cancel()
            raise
        finally:
            self._reading = None
        if message is _END:
            self._end(grpc.StatusCode.OK, "")
            return grpc.aio.EOF
        return message

    def _end(self, code: grpc.StatusCode, details: str, trailing: grpc.aio.Metadata | None = None) -> None:
        if self._status is not None:
            return
        self._status = (code, details, trailing if trailing is not None else grpc.aio.Metadata())
        self._ended.set()
        for callback in self._callbacks:
            callback(self)

    def cancel(self) -> bool:
        if self._status is not None:
            return False
        reading = self._reading
        self._end(grpc.StatusCode.CANCELLED, "Locally cancelled by application!")
        if reading is not None:
            reading.cancel()
        else:
            self._closing = asyncio.ensure_future(self._messages.aclose())  # type: ignore[attr-defined]
        return True

    def cancelled(self) -> bool:
        return self._status is not None and self._status[0] is grpc.StatusCode.CANCELLED

    def done(self) -> bool:
        return self._status is not None

    def add_done_callback(self, callback: Callable[[Any], None]) -> None:
        if self._status is not None:
            callback(self)
        else:
            self._callbacks.append(callback)

    def time_remaining(self) -> float | None:
        return None if self._deadline is None else max(0.0, self._deadline - time.monotonic())

    async def initial_metadata(self) -> grpc.aio.Metadata:
        return grpc.aio.Metadata()  # the client reads nothing from the response headers

    async def trailing_metadata(self) -> grpc.aio.Metadata:
        await self._ended.wait()
        assert self._status is not None
        return self._status[2]

    async def code(self) -> grpc.StatusCode:
        await self._ended.wait()
        assert self._status is not None
        return self._status[0]

    async def details(self) -> str:
        await self._ended.wait()
        assert self._status is not None
        return self._status[1]

    async def wait_for_connection(self) -> None:
        return None


class WebStreamMethod:
    def __init__(self, client: ConnectClient, method: MethodInfo[Any, Any]) -> None:
        self._client = client
        self._method = method

    def __call__(self, request: Any, *, metadata: Iterable[tuple[str, str]] | None = None,
                 timeout: float | None = None) -> WebStreamCall:
        messages = self._client.execute_server_stream(
            request=request, method=self._method, headers=_headers(metadata), timeout_ms=_timeout_ms(timeout)
        )
        return WebStreamCall(messages, timeout)


class WebStub:
    """One service's methods over the web port, each an attribute named as in the proto."""

    def __init__(self, client: ConnectClient, service: ServiceDescriptor) -> None:
        for method in service.methods:
            info = method_info(method)
            call = WebStreamMethod(client, info) if method.server_streaming else WebUnaryMethod(client, info)
            setattr(self, method.name, call)


class WebChannel:
    """The web port at ``base_url`` ("http://host:port"), in one protocol and codec, as a client's channel.

    ``http_client``: a ``pyqwest.Client`` (e.g. one trusting the port's TLS certificate); the shared
    default transport otherwise."""

    def __init__(self, base_url: str, protocol: Protocol = "connect", codec: Codec = "json",
                 http_client: Any = None) -> None:
        if protocol not in _PROTOCOLS:
            raise ValueError(f"protocol {protocol!r}: one of {', '.join(_PROTOCOLS)}")
        if codec not in ("json", "proto"):
            raise ValueError(f"codec {codec!r}: json or proto")
        self.base_url = base_url.rstrip("/")
        self.protocol, self.codec = protocol, codec
        self._client = ConnectClient(
            self.base_url,
            codec=google_protobuf_json_codec() if codec == "json" else google_protobuf_binary_codec(),
            protocol=_PROTOCOLS[protocol],
            send_compression=None,  # as browsers send: small requests gain nothing from gzip
            http_client=http_client,
        )

    def stub(self, service: ServiceDescriptor) -> WebStub:
        return WebStub(self._client, service)

    async def close(self) -> None:
        with contextlib.suppress(Exception):
            await self._client.close()

    async def __aenter__(self) -> WebChannel:
        return self

    async def __aexit__(self, *_: object) -> None:
        await self.close()
