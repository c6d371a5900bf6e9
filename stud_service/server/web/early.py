"""What the web port refuses on a Connect or gRPC-Web path before the ``connectrpc`` library reads the
request, written in the wire form the request's protocol reads, with an ErrorInfo reason:

- a deadline header that is not one (``connect-timeout-ms``, ``grpc-timeout``), a Connect protocol version
  other than 1, a header that is not UTF-8: the library's own refusal of them has no reason (of the last,
  it answers UNKNOWN);
- native gRPC without HTTP trailers (HTTP/1.1): the library cannot answer it and says UNKNOWN; gRPC is
  the gRPC port's;
- the library's bare 405 (a wrong HTTP method) and 415 (a content type it does not read), which a client
  reads as UNKNOWN (see :func:`call_with_reasons`).

Forms: gRPC and gRPC-Web, "trailers-only" (the status in the response headers); a Connect stream, HTTP 200
and an end-of-stream message holding the error; Connect unary, the error JSON with its HTTP status.
"""

from __future__ import annotations

import base64
import json
import re
import struct
from collections.abc import Awaitable, Callable
from typing import Any
from urllib.parse import quote

import grpc
from google.rpc import status_pb2

from stud_service.auth import AuthError
from stud_service.server.api.errors import malformed, refusal_for, rich_refusal
from stud_service.server.web import routes as json_routes

_CONNECT_TIMEOUT = re.compile(r"[0-9]{1,10}")  # connectrpc.com/docs/protocol: at most 10 digits
_GRPC_TIMEOUT = re.compile(r"[0-9]{1,8}[HMSmun]")  # gRPC over HTTP/2: TimeoutValue TimeoutUnit
_END_STREAM = 0x02


def _header(scope: dict[str, Any], name: bytes) -> str | None:
    value = dict(scope.get("headers", ())).get(name)
    return None if value is None else value.decode("latin-1")


def early_refusal(scope: dict[str, Any]) -> status_pb2.Status | None:
    """The refusal of a request the library must not be handed; None for one it may."""
    content_type = _header(scope, b"content-type") or ""
    grpc_native = content_type == "application/grpc" or content_type.startswith("application/grpc+")
    if grpc_native and "http.response.trailers" not in scope.get("extensions", {}):
        return rich_refusal(grpc.StatusCode.UNIMPLEMENTED, "UNKNOWN_ROUTE",
                            "native gRPC needs HTTP/2: call the gRPC port, or use gRPC-Web or Connect here",
                            {"path": scope["path"][:100]})
    for name, value in scope.get("headers", ()):
        try:
            value.decode("utf-8")
        except UnicodeDecodeError:
            header = name.decode("latin-1")[:40]
            if header == "authorization":
                return refusal_for(AuthError("TOKEN_INVALID", "the authorization header is not UTF-8"))
            return refusal_for(malformed(f"the {header} header is not UTF-8", header))
    version = _header(scope, b"connect-protocol-version")
    if version is not None and version != "1":
        return refusal_for(malformed("connect-protocol-version must be 1", "connect-protocol-version"))
    for name, form in ((b"connect-timeout-ms", _CONNECT_TIMEOUT), (b"grpc-timeout", _GRPC_TIMEOUT)):
        value = _header(scope, name)
        if value is not None and not form.fullmatch(value):
            header = name.decode()
            return refusal_for(malformed(f"the {header} header is not a timeout of that form", header))
    return None


async def send_refusal(scope: dict[str, Any], send: Any, status: status_pb2.Status,
                       http_status: int | None = None) -> None:
    """``status`` in the form the request's protocol reads (``http_status``: for the Connect unary form)."""
    content_type = _header(scope, b"content-type") or ""
    if content_type.startswith("application/grpc"):
        details = base64.b64encode(status.SerializeToString()).rstrip(b"=")
        await send({"type": "http.response.start", "status": 200, "headers": [
            (b"content-type", content_type.encode("latin-1")), (b"grpc-status", str(status.code).encode()),
            (b"grpc-message", quote(status.message).encode()), (b"grpc-status-details-bin", details),
            (b"content-length", b"0"),
        ]})
        await send({"type": "http.response.body", "body": b""})
        return
    if content_type.startswith("application/connect+"):
        end = json.dumps({"error": json_routes.error_json(status)}, separators=(",", ":")).encode()
        body = struct.pack(">BI", _END_STREAM, len(end)) + end
        await send({"type": "http.response.start", "status": 200, "headers": [
            (b"content-type", content_type.encode("latin-1")), (b"content-length", str(len(body)).encode()),
        ]})
        await send({"type": "http.response.body", "body": body})
        return
    await send_error(send, status, http_status)


async def send_error(send: Any, status: status_pb2.Status, http_status: int | None = None) -> None:
    """``status`` as Connect error JSON (the JSON routes' form too), with its HTTP status unless given."""
    await send_json(send, http_status or json_routes.http_status(status), error_document(status))


def error_document(status: status_pb2.Status) -> bytes:
    """``status`` as the Connect error JSON document every refusal of the port carries."""
    return json.dumps(json_routes.error_json(status), separators=(",", ":")).encode()


async def send_json(send: Any, code: int, body: bytes) -> None:
    await send({"type": "http.response.start", "status": code, "headers": [
        (b"content-type", b"application/json"), (b"content-length", str(len(body)).encode()),
    ]})
    await send({"type": "http.response.body", "body": body})


def _unreadable(scope: dict[str, Any]) -> status_pb2.Status:
    content_type = _header(scope, b"content-type") or ""
    return refusal_for(malformed(f"the content type {content_type[:40]!r} is not one this method reads"))


_BARE_STATUSES: dict[int, Callable[[dict[str, Any]], status_pb2.Status]] = {
    405: lambda scope: json_routes.unknown_route(scope["path"]),
    415: _unreadable,
}


async def call_with_reasons(
    app: Callable[[dict[str, Any], Any, Any], Awaitable[None]], scope: dict[str, Any], receive: Any, send: Any
) -> None:
    """``app`` (the Connect application) for one request, refusing early what it must not be handed, and
    with its bare 405 and 415 answers replaced by refusals with a reason."""
    refusal = early_refusal(scope)
    if refusal is not None:
        await send_refusal(scope, send, refusal)
        return
    bare: list[int] = []
    send_debugged = _ErrorsWithDebug(send)

    async def answer(message: dict[str, Any]) -> None:
        if message["type"] == "http.response.start" and message["status"] in _BARE_STATUSES and not any(
            name == b"content-type" for name, _ in message.get("headers", ())
        ):
            bare.append(message["status"])
        if not bare:
            await send_debugged(message)

    await app(scope, receive, answer)
    if bare:
        await send_refusal(scope, send, _BARE_STATUSES[bare[0]](scope), bare[0])


class _ErrorsWithDebug:
    """``send``, but a Connect error the library wrote (a unary error's JSON body, or a stream's end message)
    gets the ``debug`` copy of its details that the port's own refusals have (routes.with_debug)."""

    def __init__(self, send: Any) -> None:
        self._send = send
        self._held: dict[str, Any] | None = None  # a unary error's start, until its body is rewritten
        self._stream = False

    async def __call__(self, message: dict[str, Any]) -> None:
        kind, last = message["type"], not message.get("more_body", False)
        if kind == "http.response.start":
            content_type = dict(message.get("headers", ())).get(b"content-type", b"")
            self._stream = content_type.startswith(b"application/connect+")
            if message["status"] != 200 and content_type == b"application/json":
                self._held = message
                return
        elif kind == "http.response.body" and self._held is not None:
            start, self._held = self._held, None
            if last:  # the whole error, as the library writes it: rewritten, its length with it
                message = {**message, "body": _debugged_json(message.get("body", b""))}
                start = _with_length(start, len(message["body"]))
            await self._send(start)
        elif kind == "http.response.body" and last and self._stream:
            message = {**message, "body": _debugged_end(message.get("body", b""))}
        await self._send(message)


def _with_length(start: dict[str, Any], length: int) -> dict[str, Any]:
    headers = [(name, value) for name, value in start.get("headers", ()) if name != b"content-length"]
    return {**start, "headers": [*headers, (b"content-length", str(length).encode())]}


def _debugged_json(body: bytes) -> bytes:
    try:
        document = json.loads(body)
    except ValueError:
        return body
    if not isinstance(document, dict):
        return body
    return json.dumps(json_routes.with_debug(document), separators=(",", ":"), ensure_ascii=False).encode()


def _debugged_end(body: bytes) -> bytes:
    """A Connect stream's last envelope, when it is the end message, uncompressed, holding an error."""
    if len(body) < 5:
        return body
    flags, length = struct.unpack(">BI", body[:5])
    if flags != _END_STREAM or length != len(body) - 5:
        return body
    try:
        end = json.loads(body[5:])
    except ValueError:
        return body
    if not isinstance(end, dict) or not isinstance(end.get("error"), dict):
        return body
    end["error"] = json_routes.with_debug(end["error"])
    data = json.dumps(end, separators=(",", ":"), ensure_ascii=False).encode()
    return struct.pack(">BI", _END_STREAM, len(data)) + data
