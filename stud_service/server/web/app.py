"""The web port's ASGI application: Connect and gRPC-Web, the JSON routes, the web table, behind CORS."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Mapping
from dataclasses import dataclass
from typing import Any
from urllib.parse import parse_qs

import grpc
from google.protobuf import json_format
from google.protobuf.descriptor import ServiceDescriptor
from google.rpc import status_pb2

from stud_service.server.api.errors import RequestError, malformed, refusal_for
from stud_service.server.web import routes as json_routes
from stud_service.server.web.body import RequestBody
from stud_service.server.web.call import WebCall
from stud_service.server.web.connect import ConnectApplication, endpoints
from stud_service.server.web.cors import Cors
from stud_service.server.web.early import call_with_reasons, send_refusal
from stud_service.server.web.early import send_error as _send_error
from stud_service.server.web.early import send_json as _send_json
from stud_service.server.web.limits import MAX_REQUEST_BYTES, request_too_large
from stud_service.server.web.static import load_files, send_file

_log = logging.getLogger(__name__)

CONNECT_TIMEOUT_HEADER = b"connect-timeout-ms"


@dataclass(frozen=True)
class WebSettings:
    origins: frozenset[str] = frozenset()  # CORS: none by default
    heartbeat_seconds: float | None = 15.0  # a watch silent this long sends a heartbeat
    serve_page: bool = True  # the web table at /
    # A request body must be in full this long after its head, deadline or not: a client trickling a body
    # (or never finishing it) must not hold a call, and its memory, for ever.
    body_timeout_seconds: float = 30.0


class WebApplication:
    def __init__(self, services: Mapping[ServiceDescriptor, object], settings: WebSettings) -> None:
        self._settings = settings
        self._connect = ConnectApplication(endpoints(services, settings.heartbeat_seconds), MAX_REQUEST_BYTES)
        self._routes = json_routes.RouteTable(json_routes.routes(services))
        self._files = load_files() if settings.serve_page else {}
        self.asgi = Cors(self._dispatch, settings.origins)

    async def __call__(self, scope: dict[str, Any], receive: Any, send: Any) -> None:
        await self.asgi(scope, receive, send)

    async def _dispatch(self, scope: dict[str, Any], receive: Any, send: Any) -> None:
        if scope["type"] == "lifespan":
            await _lifespan(receive, send)
            return
        if scope["type"] != "http":
            return  # websockets: not served
        request_body = RequestBody(scope, receive, send, self._settings.body_timeout_seconds)
        receive, send = request_body.receive, request_body.send
        declared = _declared_length(scope)
        if declared is not None and declared > MAX_REQUEST_BYTES:  # refused before a byte of it is read
            await send_refusal(scope, send, request_too_large(
                f"the request body ({declared} bytes) is larger than {MAX_REQUEST_BYTES} bytes"))
            return
        path = scope["path"]
        if path in self._connect.paths:
            await call_with_reasons(self._connect, scope, receive, send)
            return
        if path.startswith("/v1/"):
            try:
                await self._route(scope, receive, send)
            except Exception:  # our bug: logged, and INTERNAL, as on the gRPC port
                _log.exception("a JSON route failed")
                await _send_error(send, refusal_for(RuntimeError()))
            return
        file = self._files.get(path)
        if file is not None and scope["method"] in ("GET", "HEAD"):
            await send_file(file, scope, send)
            return
        await _send_error(send, json_routes.unknown_route(path))

    async def _route(self, scope: dict[str, Any], receive: Any, send: Any) -> None:
        found = self._routes.match(scope["method"], scope["path"])
        if not found:
            await _send_error(send, json_routes.unknown_route(scope["path"]))
            return
        route, matched = found
        headers = scope.get("headers", ())
        try:
            call = web_call_of(scope, headers, self._settings.heartbeat_seconds)
        except ValueError:
            await _send_error(send, json_routes.status_of(_malformed_query()))
            return
        try:
            async with asyncio.timeout(call.time_remaining()):  # a body that never ends ends at the deadline
                body = await _read_body(receive, MAX_REQUEST_BYTES)
        except _Disconnected:  # no one to answer; a partial body is never taken for the request
            return
        except TimeoutError:
            await _send_error(send, status_pb2.Status(
                code=grpc.StatusCode.DEADLINE_EXCEEDED.value[0],
                message="the request body did not arrive in full before the call's deadline",
            ))
            return
        if body is None:
            await _send_error(send, request_too_large(
                f"the request body is larger than {MAX_REQUEST_BYTES} bytes"))
            return
        try:
            query = parse_qs(scope.get("query_string", b"").decode("utf-8"), keep_blank_values=True,
                             strict_parsing=False)
            request = json_routes.build_request(route, matched, body, query)
        except (RequestError, UnicodeDecodeError, ValueError) as error:
            await _send_error(send, json_routes.status_of(error if isinstance(error, RequestError) else
                                                          _malformed_query()))
            return
        if route.streaming:
            await _until_disconnected(_stream(route, request, call, send), receive)
            return
        try:
            reply = await route.behavior(request, call)
        except Exception as error:
            await _send_error(send, json_routes.status_of(error))
            return
        await _send_json(send, 200, json_format.MessageToJson(reply, indent=None).encode())


def _malformed_query() -> RequestError:
    return malformed("the query string or a header is not valid")


def web_call_of(scope: dict[str, Any], headers: Any, heartbeat: float | None) -> WebCall:
    decoded = [(key.decode("latin-1"), value.decode("latin-1")) for key, value in headers]
    timeout = dict(headers).get(CONNECT_TIMEOUT_HEADER)
    seconds = None
    if timeout is not None:
        if not timeout.isdigit() or len(timeout) > 10:
            raise ValueError("connect-timeout-ms must be a positive integer of at most 10 digits")
        seconds = int(timeout) / 1000
    client = scope.get("client")
    return WebCall(decoded, seconds, tuple(client) if client else None, heartbeat)


async def _until_disconnected(work: Awaitable[None], receive: Any) -> None:
    """``work`` (a stream, its body read already), cancelled if the client goes away: a watch on an idle
    table would otherwise hold its watcher until the next event or heartbeat failed to send (hypercorn
    drops what is sent on a closed connection without an error)."""
    streaming = asyncio.ensure_future(work)

    async def gone() -> None:
        while (await receive())["type"] != "http.disconnect":
            pass

    watching = asyncio.ensure_future(gone())
    try:
        await asyncio.wait((streaming, watching), return_when=asyncio.FIRST_COMPLETED)
    finally:
        watching.cancel()
        streaming.cancel()
        await asyncio.wait((streaming,))  # its finally blocks (the watcher's removal) have run
    if not streaming.cancelled():
        streaming.result()  # the stream's own failure, if any


async def _stream(route: json_routes.Route, request: Any, call: Any, send: Any) -> None:
    replies = route.behavior(request, call).__aiter__()
    try:
        first = await replies.__anext__()
    except StopAsyncIteration:
        first = None
    except Exception as error:
        await _send_error(send, json_routes.status_of(error))
        return
    await send({"type": "http.response.start", "status": 200, "headers": [
        (b"content-type", b"application/x-ndjson"),
        (b"cache-control", b"no-cache, no-transform"),
        (b"x-accel-buffering", b"no"),  # nginx: pass each line on as it comes
    ]})
    try:
        if first is not None:
            await send({"type": "http.response.body", "more_body": True,
                        "body": json_routes.to_json_line("result", json_format.MessageToDict(first))})
            async for reply in replies:
                await send({"type": "http.response.body", "more_body": True,
                            "body": json_routes.to_json_line("result", json_format.MessageToDict(reply))})
    except Exception as error:
        line = json_routes.to_json_line("error", json_routes.error_json(json_routes.status_of(error)))
        await send({"type": "http.response.body", "body": line, "more_body": False})
        return
    finally:
        await replies.aclose()
    await send({"type": "http.response.body", "body": b"", "more_body": False})


def _declared_length(scope: dict[str, Any]) -> int | None:
    value = dict(scope.get("headers", ())).get(b"content-length")
    return int(value) if value is not None and value.isdigit() else None


class _Disconnected(Exception):
    """The client went away (or stopped sending) before its request body was in."""


async def _read_body(receive: Any, limit: int) -> bytes | None:
    """The whole body; None when it is over ``limit``; _Disconnected when it never arrived in full."""
    chunks, size = [], 0
    while True:
        message = await receive()
        if message["type"] == "http.disconnect":
            raise _Disconnected
        chunk = message.get("body", b"")
        size += len(chunk)
        if size > limit:
            return None
        chunks.append(chunk)
        if not message.get("more_body", False):
            return b"".join(chunks)


async def _lifespan(receive: Any, send: Any) -> None:
    while True:
        message = await receive()
        if message["type"] == "lifespan.startup":
            await send({"type": "lifespan.startup.complete"})
        elif message["type"] == "lifespan.shutdown":
            await send({"type": "lifespan.shutdown.complete"})
            return
