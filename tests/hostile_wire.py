"""Sending a hostile-input case over each transport, exactly as built, and reading what came back as one
``Outcome``: the gRPC port (raw bytes through a generic stub), and on the web port Connect (JSON and binary),
gRPC-Web, and the ``google.api.http`` JSON routes, over a small HTTP/1.1 client of its own (``Http1``) that
sends what it is given, byte for byte: no normalising of paths, no checks of headers, any body.
"""

from __future__ import annotations

import asyncio
import base64
import contextlib
import json
import struct
import time
import urllib.parse
from dataclasses import dataclass
from typing import Any

import grpc
import jwt
from google.api import annotations_pb2
from google.protobuf.descriptor import MethodDescriptor
from google.rpc import error_details_pb2, status_pb2
from grpc_fixtures import TOKEN_SECRET

from stud_service.auth import Role, mint_token
from stud_service.server.api.errors import error_info

CALL_SECONDS = 15.0
# A watch that got nothing this long is waiting for news (its deadline, which the client sets).
WATCH_SECONDS = 0.3
GRPC_TRANSPORT = "grpc"
# The web port's transports: (content type, JSON?) for Connect and gRPC-Web; "route" is the JSON routes.
WEB_TRANSPORTS = ("connect-json", "connect-proto", "grpc-web", "route")
TRANSPORTS = (GRPC_TRANSPORT, *WEB_TRANSPORTS)
JSON_TRANSPORTS = frozenset({"connect-json", "route"})
_CODE_NAMES = {code.value[0]: code.name for code in grpc.StatusCode}


@dataclass(frozen=True)
class Outcome:
    """How a call ended: ``code`` "OK" or a gRPC code name; the ErrorInfo reason of a refusal, if any."""

    code: str
    reason: str | None = None
    message: str = ""
    http_status: int | None = None
    waiting: bool = False  # a watch that sent nothing before its deadline: waiting for news, not refused

    @property
    def ok(self) -> bool:
        return self.code == "OK"

    def __str__(self) -> str:
        http = f"HTTP {self.http_status} " if self.http_status is not None else ""
        return f"{http}{self.code} {self.reason or '(no reason)'}: {self.message[:160]!r}"


def authorization(caller: str, player: str) -> str | None:
    """The authorization header of a caller named as in hostile_cases (ROLE_CALLERS, BAD_CALLERS)."""
    now = int(time.time())
    tokens = {
        "player": lambda: mint_token(TOKEN_SECRET, player),
        "operator": lambda: mint_token(TOKEN_SECRET, "house", Role.OPERATOR),
        "auditor": lambda: mint_token(TOKEN_SECRET, "reader", Role.AUDITOR),
        "forged": lambda: jwt.encode({"sub": "house", "role": "operator", "exp": now + 600},
                                     "forged-" + TOKEN_SECRET),
        "expired": lambda: mint_token(TOKEN_SECRET, "house", Role.OPERATOR, now=now - 7200, ttl_seconds=60),
        "garbage": lambda: "not.a.token",
        "century": lambda: mint_token(TOKEN_SECRET, "house", Role.OPERATOR, ttl_seconds=100 * 365 * 86_400),
    }
    if caller == "none":
        return None
    return f"Bearer {tokens[caller]()}"


# -- the gRPC port ------------------------------------------------------------------------------------------


async def over_grpc(channel: grpc.aio.Channel, method: MethodDescriptor, data: bytes,
                    token: str | None, watch_seconds: float = WATCH_SECONDS) -> Outcome:
    path = f"/{method.containing_service.full_name}/{method.name}"
    metadata = (("authorization", token),) if token is not None else ()
    try:
        if method.client_streaming:  # reflection: one request, the first reply
            call = channel.stream_stream(path)(iter([data]), metadata=metadata, timeout=CALL_SECONDS)
            async for _reply in call:
                break
            call.cancel()
        elif method.server_streaming:
            stream = channel.unary_stream(path)(data, metadata=metadata, timeout=watch_seconds)
            async for _reply in stream:
                break
            stream.cancel()
        else:
            await channel.unary_unary(path)(data, metadata=metadata, timeout=CALL_SECONDS)
    except grpc.aio.AioRpcError as error:
        info = error_info(error)
        code = error.code()
        waiting = bool(method.server_streaming) and code == grpc.StatusCode.DEADLINE_EXCEEDED and info is None
        return Outcome(code.name, info.reason if info else None, error.details() or "", waiting=waiting)
    return Outcome("OK")


# -- HTTP/1.1, by hand --------------------------------------------------------------------------------------


@dataclass
class HttpResponse:
    status: int
    headers: dict[str, str]  # lower-case names; a repeated header's values joined by ", "
    body: bytes
    complete: bool = True  # False: the body was cut off (a stream read only to its first message)


class HttpClosed(Exception):
    """The server closed the connection without (a whole) answer."""


class Http1:
    """One HTTP/1.1 connection to ``port``, reopened when the server closes it."""

    def __init__(self, port: int) -> None:
        self.port = port
        self._reader: asyncio.StreamReader | None = None
        self._writer: asyncio.StreamWriter | None = None

    async def open(self) -> tuple[asyncio.StreamReader, asyncio.StreamWriter]:
        if self._reader is None or self._writer is None or self._writer.is_closing():
            self._reader, self._writer = await asyncio.open_connection("127.0.0.1", self.port, limit=2**24)
        return self._reader, self._writer

    async def close(self) -> None:
        writer, self._reader, self._writer = self._writer, None, None
        if writer is not None:
            writer.close()
            with contextlib.suppress(OSError, ConnectionError):
                await writer.wait_closed()

    async def send(self, data: bytes) -> None:
        _reader, writer = await self.open()
        writer.write(data)
        await writer.drain()

    async def request(self, method: str, target: str, headers: dict[str, str], body: bytes | None,
                      stream_until: Any = None, timeout: float = CALL_SECONDS) -> HttpResponse:
        """One exchange. ``stream_until(body_so_far) -> bool``: read the body only until it holds (a stream's
        first message), then drop the connection."""
        head = [f"{method} {target} HTTP/1.1", "host: 127.0.0.1"]
        head += [f"{name}: {value}" for name, value in headers.items()]
        if body is not None:
            head.append(f"content-length: {len(body)}")
        data = ("\r\n".join(head) + "\r\n\r\n").encode("utf-8", "surrogateescape") + (body or b"")
        try:
            async with asyncio.timeout(timeout):
                await self.send(data)
                response = await self.read_response(stream_until)
        except (HttpClosed, OSError, ConnectionError, TimeoutError):
            await self.close()
            raise
        if not response.complete or response.headers.get("connection", "").lower() == "close":
            await self.close()
        return response

    async def read_response(self, stream_until: Any = None) -> HttpResponse:
        reader, _writer = await self.open()
        return await read_response(reader, stream_until)


async def read_response(reader: asyncio.StreamReader, stream_until: Any = None) -> HttpResponse:
    """One HTTP/1.1 response from ``reader``; HttpClosed if the server closed the connection first."""
    line = await reader.readline()
    if not line:
        raise HttpClosed("the server closed the connection without an answer")
    status = int(line.split()[1])
    headers: dict[str, str] = {}
    while (line := await reader.readline()) not in (b"\r\n", b"\n", b""):
        name, _, value = line.decode("latin-1").partition(":")
        key = name.strip().lower()
        headers[key] = f"{headers[key]}, {value.strip()}" if key in headers else value.strip()
    body = bytearray()
    if headers.get("transfer-encoding", "").lower() == "chunked":
        while True:
            size = int((await reader.readline()).split(b";")[0].strip() or b"0", 16)
            if size == 0:
                await reader.readline()
                return HttpResponse(status, headers, bytes(body))
            body += await reader.readexactly(size)
            await reader.readline()
            if stream_until is not None and stream_until(bytes(body)):
                return HttpResponse(status, headers, bytes(body), complete=False)
    if "content-length" in headers:
        body += await reader.readexactly(int(headers["content-length"]))
        return HttpResponse(status, headers, bytes(body))
    body += await reader.read()  # until the server closes
    return HttpResponse(status, headers, bytes(body), complete=False)


def envelope(payload: bytes, flags: int = 0) -> bytes:
    return struct.pack(">BI", flags, len(payload)) + payload


def envelopes(body: bytes) -> list[tuple[int, bytes]]:
    found, at = [], 0
    while at + 5 <= len(body):
        flags, size = struct.unpack(">BI", body[at : at + 5])
        if at + 5 + size > len(body):
            break
        found.append((flags, body[at + 5 : at + 5 + size]))
        at += 5 + size
    return found


def reason_of_details(details: Any) -> str | None:
    """The ErrorInfo reason among Connect error JSON details (each with "type" and base64 "value")."""
    if not isinstance(details, list):
        return None
    for detail in details:
        if isinstance(detail, dict) and detail.get("type") == "google.rpc.ErrorInfo":
            value = str(detail.get("value", ""))
            info = error_details_pb2.ErrorInfo.FromString(base64.b64decode(value + "=" * (-len(value) % 4)))
            return info.reason or None
    return None


def _connect_error(document: Any, http_status: int) -> Outcome:
    if not isinstance(document, dict) or "code" not in document:
        return Outcome("UNKNOWN", None, f"not Connect error JSON: {str(document)[:120]}", http_status)
    code = str(document["code"]).upper().replace("CANCELED", "CANCELLED")
    return Outcome(code, reason_of_details(document.get("details")), str(document.get("message", "")),
                   http_status)


def _json_or_none(body: bytes) -> Any:
    try:
        return json.loads(body)
    except ValueError:
        return None


def reason_of(response: HttpResponse) -> str | None:
    """The ErrorInfo reason of a response whose body is Connect error JSON, if it has one."""
    document = _json_or_none(response.body)
    return reason_of_details(document.get("details")) if isinstance(document, dict) else None


def _bare(response: HttpResponse) -> Outcome:
    """An answer the protocol does not explain (HTML, empty): UNKNOWN unless the body is an error JSON."""
    document = _json_or_none(response.body)
    if isinstance(document, dict) and "code" in document:
        return _connect_error(document, response.status)
    return Outcome("UNKNOWN", None, f"bare HTTP {response.status}: {response.body[:120]!r}", response.status)


def _trailers(block: bytes) -> dict[str, str]:
    found = {}
    for line in block.decode("latin-1").split("\r\n"):
        name, sep, value = line.partition(":")
        if sep:
            found[name.strip().lower()] = value.strip()
    return found


def _grpc_status(fields: dict[str, str], http_status: int) -> Outcome:
    code = _CODE_NAMES.get(int(fields.get("grpc-status", "2")), "UNKNOWN")
    message = urllib.parse.unquote(fields.get("grpc-message", ""))
    reason = None
    details = fields.get("grpc-status-details-bin")
    if details:
        status = status_pb2.Status.FromString(base64.b64decode(details + "=" * (-len(details) % 4)))
        for detail in status.details:
            if detail.Is(error_details_pb2.ErrorInfo.DESCRIPTOR):
                info = error_details_pb2.ErrorInfo()
                detail.Unpack(info)
                reason = info.reason or None
    return Outcome(code, reason, message, http_status)


@dataclass(frozen=True)
class WebRequest:
    """What one transport sends for a case: the target, the headers, the body."""

    http_method: str
    target: str
    headers: dict[str, str]
    body: bytes | None
    streaming: bool


def connect_request(method: MethodDescriptor, payload: bytes, json_codec: bool, token: str | None,
                    raw_body: bool = False) -> WebRequest:
    """Connect: unary bodies are the message itself; a server stream's is one envelope (``raw_body``: the
    payload is the whole body, envelope or not)."""
    streaming = bool(method.server_streaming)
    codec = "json" if json_codec else "proto"
    headers = {"content-type": f"application/{'connect+' if streaming else ''}{codec}",
               "connect-protocol-version": "1",
               "connect-timeout-ms": str(int((WATCH_SECONDS if streaming else CALL_SECONDS) * 1000))}
    if token is not None:
        headers["authorization"] = token
    body = envelope(payload) if streaming and not raw_body else payload
    path = f"/{method.containing_service.full_name}/{method.name}"
    return WebRequest("POST", path, headers, body, streaming)


def grpc_web_request(method: MethodDescriptor, payload: bytes, token: str | None,
                     raw_body: bool = False) -> WebRequest:
    streaming = bool(method.server_streaming)
    timeout = f"{int((WATCH_SECONDS if streaming else CALL_SECONDS) * 1000)}m"
    headers = {"content-type": "application/grpc-web+proto", "x-grpc-web": "1", "grpc-timeout": timeout}
    if token is not None:
        headers["authorization"] = token
    return WebRequest("POST", f"/{method.containing_service.full_name}/{method.name}", headers,
                      payload if raw_body else envelope(payload), streaming)


def route_request(method: MethodDescriptor, document: Any, token: str | None) -> WebRequest:
    """The ``google.api.http`` route of ``method`` with the case's JSON document (or raw JSON text) laid out
    as the rule says: path variables, then the body field or ``*``, the rest in the query string."""
    rule = method.GetOptions().Extensions[annotations_pb2.http]
    kind = rule.WhichOneof("pattern")
    assert kind is not None and kind != "custom", method.full_name
    template, body_field = getattr(rule, kind), rule.body
    fields = dict(document) if isinstance(document, dict) else {}
    json_names = {item.name: item.json_name for item in method.input_type.fields}
    path = template
    while "{" in path:
        start, end = path.index("{"), path.index("}")
        name = path[start + 1 : end].split("=")[0]
        value = fields.pop(json_names.get(name, name), "")
        text = value if isinstance(value, str) else json.dumps(value)
        path = path[:start] + urllib.parse.quote(_utf8(text), safe="/:@!$&'()*+,;=-._~") + path[end + 1 :]
    headers = {"content-type": "application/json"}
    if token is not None:
        headers["authorization"] = token
    if method.server_streaming:
        headers["connect-timeout-ms"] = str(int(WATCH_SECONDS * 1000))
    body: bytes | None = None
    query = ""
    if not isinstance(document, dict):  # raw JSON text: the body of a route with one, else the query
        raw = document if isinstance(document, bytes) else json.dumps(document).encode()
        if body_field:
            body = raw
        else:
            query = urllib.parse.quote_from_bytes(raw, safe="=&")
    elif body_field == "*":
        body = json.dumps(fields).encode()
    else:
        if body_field:
            body = json.dumps(fields.pop(json_names.get(body_field, body_field), {})).encode()
        query = urllib.parse.urlencode([(_utf8(name), _utf8(value)) for name, value in _query_pairs(fields)])
    target = path + (f"?{query}" if query else "")
    return WebRequest(kind.upper(), target, headers, body, bool(method.server_streaming))


def _utf8(text: str) -> bytes:
    """UTF-8, lone surrogates too (as a careless client would encode them)."""
    return text.encode("utf-8", "surrogatepass")


def _query_pairs(fields: dict[str, Any], prefix: str = "") -> list[tuple[str, str]]:
    pairs: list[tuple[str, str]] = []
    for name, value in fields.items():
        if isinstance(value, dict) and value:
            pairs += _query_pairs(value, f"{prefix}{name}.")
            continue
        for item in value if isinstance(value, list) else [value]:
            text = json.dumps(item) if isinstance(item, dict | list | bool) or item is None else str(item)
            pairs.append((prefix + name, text))
    return pairs


def _first_envelope(body: bytes) -> bool:
    return bool(envelopes(body))


def _first_line(body: bytes) -> bool:
    return b"\n" in body


async def over_web(http: Http1, transport: str, request: WebRequest) -> Outcome:
    """Send ``request`` and read its outcome in the transport's own terms."""
    until = None
    if request.streaming:
        until = _first_line if transport == "route" else _first_envelope
    try:
        response = await http.request(request.http_method, request.target, request.headers, request.body,
                                      stream_until=until)
    except (HttpClosed, OSError, ConnectionError) as closed:
        return Outcome("UNKNOWN", None, f"connection closed without an answer: {closed!r}", None)
    except TimeoutError:
        return Outcome("UNKNOWN", None, f"no answer in {CALL_SECONDS} s", None)
    if transport == "route":
        return _route_outcome(response, request.streaming)
    if transport == "grpc-web":
        return _grpc_web_outcome(response)
    return _connect_outcome(response, request.streaming)


def _route_outcome(response: HttpResponse, streaming: bool) -> Outcome:
    if response.status != 200:
        return _bare(response)
    if not streaming:
        return Outcome("OK", http_status=200)
    line = response.body.split(b"\n", 1)[0]
    document = _json_or_none(line)
    if isinstance(document, dict) and "error" in document:
        outcome = _connect_error(document["error"], 200)
        return outcome if outcome.code != "DEADLINE_EXCEEDED" or outcome.reason else \
            Outcome(outcome.code, None, outcome.message, 200, waiting=True)
    if line == b"" and response.complete:  # ended without a message: the deadline passed, nothing came
        return Outcome("OK", http_status=200, waiting=True)
    return Outcome("OK", http_status=200)


def _connect_outcome(response: HttpResponse, streaming: bool) -> Outcome:
    content_type = response.headers.get("content-type", "")
    if not streaming:
        if response.status == 200 and content_type.startswith("application/"):
            return Outcome("OK", http_status=200)
        return _bare(response) if response.status != 200 else Outcome(
            "UNKNOWN", None, f"200 with content type {content_type!r}", 200)
    if response.status != 200 or not content_type.startswith("application/connect+"):
        return _bare(response)
    for flags, payload in envelopes(response.body):
        if flags & 0x02:
            end = _json_or_none(payload)
            error = end.get("error") if isinstance(end, dict) else None
            if error is None:
                return Outcome("OK", http_status=200)
            outcome = _connect_error(error, 200)
            if outcome.code == "DEADLINE_EXCEEDED" and not outcome.reason:
                return Outcome(outcome.code, None, outcome.message, 200, waiting=True)
            return outcome
        return Outcome("OK", http_status=200)
    return Outcome("UNKNOWN", None, f"a Connect stream without an end message: {response.body[:80]!r}", 200)


def _grpc_web_outcome(response: HttpResponse) -> Outcome:
    if "grpc-status" in response.headers:  # trailers-only
        outcome = _grpc_status(response.headers, response.status)
    elif response.status != 200:
        return _bare(response)
    else:
        outcome = Outcome("UNKNOWN", None, f"gRPC-Web without a status: {response.body[:80]!r}", 200)
        for flags, payload in envelopes(response.body):
            if flags & 0x80:
                outcome = _grpc_status(_trailers(payload), response.status)
                break
            outcome = Outcome("OK", http_status=200)
            break
    if outcome.code == "DEADLINE_EXCEEDED" and not outcome.reason:
        return Outcome(outcome.code, None, outcome.message, outcome.http_status, waiting=True)
    return outcome
