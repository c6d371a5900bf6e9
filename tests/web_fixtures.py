"""Fixtures for the web port's tests: the whole service with its web port on a loopback port, over a real
PostgreSQL, and real HTTP clients of three kinds.

``web_world``        (module) ServiceHost on a database of its own, the web port on (``ALLOWED_ORIGIN`` may
                     call it), a table with finished hands in its log, a gRPC channel to the same service
``web_port_on(runtime)``  a web port on a test's own runtime (async context manager: its base URL)
``bearer(who, role)``  the ``authorization`` header a caller sends
``ConnectCaller``    connectrpc's ConnectClient: Connect or gRPC-Web, JSON or binary, HTTP/1.1 or HTTP/2
``RouteCaller``      the protos' ``google.api.http`` JSON routes, the request transcoded as the annotation
                     says (path variables, body, query string), with pyqwest
``raw_request``      one HTTP/1.1 exchange with ``http.client`` (in a thread: the server runs in this loop)
``error_info``       the ErrorInfo of a Connect error JSON document, decoded from "value" and checked
                     against "debug"
``envelopes``        the (flags, message) envelopes of a Connect or gRPC-Web stream body
``refusal_of``       (code, reason) of a refused call in any of its wire forms (Connect, gRPC-Web, JSON)

The callers share one shape (``unary``, ``stream``), so one scenario per method runs over each of them.
"""

from __future__ import annotations

import asyncio
import base64
import contextlib
import http.client
import json
import struct
import uuid
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol

import grpc
import pyqwest
import pytest_asyncio
from connectrpc.client import ConnectClient
from connectrpc.compat import google_protobuf_binary_codec, google_protobuf_json_codec
from connectrpc.protocol import ProtocolType
from google.api import annotations_pb2
from google.protobuf import json_format, message_factory
from google.protobuf.descriptor import MethodDescriptor, ServiceDescriptor
from google.protobuf.message import Message
from google.rpc import error_details_pb2, status_pb2
from grpc_fixtures import TOKEN_SECRET, table_spec

from stud_service.audit.simulate import simulate_table, store_table
from stud_service.auth import Role, mint_token
from stud_service.bots import StudClient
from stud_service.engine import Variant
from stud_service.server.api.audit_service import AuditService
from stud_service.server.api.cashier_service import CashierService
from stud_service.server.api.table_service import TableService
from stud_service.server.api.tournament_service import TournamentService
from stud_service.server.host import ServiceHost, ServiceOptions
from stud_service.server.tables.runtime import TableRuntime
from stud_service.server.web.app import WebApplication, WebSettings
from stud_service.server.web.connect import method_info
from stud_service.server.web.server import start_web_server
from stud_service.server.web.wire import PortLimits

ALLOWED_ORIGIN = "https://tables.example"
SERVICES: tuple[ServiceDescriptor, ...] = (TableService.DESCRIPTOR, AuditService.DESCRIPTOR,
                                           CashierService.DESCRIPTOR, TournamentService.DESCRIPTOR)
METHODS: tuple[MethodDescriptor, ...] = tuple(method for service in SERVICES for method in service.methods)
CALL_TIMEOUT = 15.0


def bearer(who: str | None, role: Role = Role.PLAYER) -> str:
    return f"Bearer {mint_token(TOKEN_SECRET, who, role)}"


def method_named(name: str) -> MethodDescriptor:
    return next(method for method in METHODS if method.name == name)


@dataclass
class WebWorld:
    host: ServiceHost
    channel: grpc.aio.Channel
    finished_table: str  # a table whose log holds finished hands
    hand: str  # tables/{finished_table}/hands/1

    @property
    def port(self) -> int:
        return self.host.web_port

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def grpc_client(self, who: str, role: Role = Role.PLAYER) -> StudClient:
        return StudClient(self.channel, mint_token(TOKEN_SECRET, who, role))

    async def new_table(self, **fields: Any) -> str:
        table_id = f"t-{uuid.uuid4().hex[:12]}"
        await self.grpc_client("house", Role.OPERATOR).create_table(table_id, table_spec(**fields))
        return table_id

    async def head(self, table_id: str) -> int:
        assert self.host.runtime is not None
        return await self.host.runtime.store.head(f"tables/{table_id}")


def web_options(database_url: str, **options: Any) -> ServiceOptions:
    """The whole service on loopback ports, the web port among them."""
    return ServiceOptions(**{
        "token_secret": TOKEN_SECRET, "database_url": database_url, "listen": "127.0.0.1:0",
        "web_listen": "127.0.0.1:0", "web_origins": frozenset({ALLOWED_ORIGIN}), "metrics_listen": "off",
        "hand_pause_seconds": 0.05, "grace_seconds": 0.0, "pool_size": 8, **options,
    })


def channel_to(host: ServiceHost) -> grpc.aio.Channel:
    tls = host.options.tls
    if tls is None:
        return grpc.aio.insecure_channel(f"127.0.0.1:{host.port}")
    credentials = grpc.ssl_channel_credentials(root_certificates=Path(tls.cert_file).read_bytes())
    return grpc.aio.secure_channel(f"localhost:{host.port}", credentials)


@contextlib.asynccontextmanager
async def web_service(database_url: str, **options: Any) -> AsyncIterator[WebWorld]:
    async with ServiceHost(web_options(database_url, **options)) as host, channel_to(host) as channel:
        assert host.runtime is not None
        table = simulate_table(f"web-{uuid.uuid4().hex[:8]}", Variant.STUD, 2, seed=11)
        await store_table(host.runtime.store, table)
        yield WebWorld(host, channel, table.table_id, f"tables/{table.table_id}/hands/1")


@contextlib.asynccontextmanager
async def web_port_on(runtime: TableRuntime, limits: PortLimits | None = None) -> AsyncIterator[str]:
    """A web port on ``runtime`` (beside a gRPC server of a test's own on it): its base URL."""
    services = {TableService.DESCRIPTOR: TableService(runtime, TOKEN_SECRET),
                AuditService.DESCRIPTOR: AuditService(runtime, TOKEN_SECRET),
                CashierService.DESCRIPTOR: CashierService(runtime, TOKEN_SECRET),
                TournamentService.DESCRIPTOR: TournamentService(runtime, TOKEN_SECRET)}
    server = await start_web_server(WebApplication(services, WebSettings()), "127.0.0.1:0", None, 0.0,
                                    limits)
    try:
        yield f"http://127.0.0.1:{server.port}"
    finally:
        await server.shutdown(0.0)


@pytest_asyncio.fixture(scope="module", loop_scope="session")
async def web_world(make_database: Callable[..., Any]) -> AsyncIterator[WebWorld]:
    async with web_service(await make_database(migrated=True)) as world:
        yield world


# -- callers: one method call, whatever carries it -----------------------------------------------------


class Caller(Protocol):
    async def unary(self, method: MethodDescriptor, request: Message, token: str) -> Message: ...

    def stream(self, method: MethodDescriptor, request: Message, token: str) -> AsyncIterator[Message]: ...


def http_client(http2: bool | None = False, ca: bytes | None = None) -> pyqwest.Client:
    """HTTP/2 without TLS is prior knowledge (h2c), as a gRPC-Web proxy or a Connect client would speak it;
    ``http2=None`` leaves the version to TLS's ALPN."""
    version = None if http2 is None else pyqwest.HTTPVersion.HTTP2 if http2 else pyqwest.HTTPVersion.HTTP1
    return pyqwest.Client(pyqwest.HTTPTransport(http_version=version, tls_ca_cert=ca))


class ConnectCaller:
    def __init__(self, base_url: str, codec: str = "json", protocol: ProtocolType = ProtocolType.CONNECT,
                 http2: bool = False, ca: bytes | None = None) -> None:
        self.client = ConnectClient(
            base_url,
            codec=google_protobuf_json_codec() if codec == "json" else google_protobuf_binary_codec(),
            protocol=protocol,
            http_client=http_client(http2, ca),
        )

    async def unary(self, method: MethodDescriptor, request: Message, token: str) -> Message:
        return await self.client.execute_unary(
            request=request, method=method_info(method), headers={"authorization": token},
            timeout_ms=int(CALL_TIMEOUT * 1000),
        )

    def stream(self, method: MethodDescriptor, request: Message, token: str) -> AsyncIterator[Message]:
        return self.client.execute_server_stream(
            request=request, method=method_info(method), headers={"authorization": token}
        )


class RouteError(Exception):
    def __init__(self, status: int, document: dict[str, Any]) -> None:
        super().__init__(f"HTTP {status}: {document}")
        self.status = status
        self.document = document


@dataclass(frozen=True)
class HttpCall:
    http_method: str
    path: str
    query: list[tuple[str, str]]
    body: bytes | None


def binding(method: MethodDescriptor) -> tuple[str, str, str]:
    """The method's google.api.http rule: (HTTP method, path template, body)."""
    rule = method.GetOptions().Extensions[annotations_pb2.http]
    kind = rule.WhichOneof("pattern")
    assert kind is not None and kind != "custom", f"{method.full_name} declares no route"
    return kind.upper(), getattr(rule, kind), rule.body


def transcode(method: MethodDescriptor, request: Message) -> HttpCall:
    """The HTTP request the route of ``method`` maps ``request`` to (the reverse of the server's mapping)."""
    http_method, template, body = binding(method)
    fields = json_format.MessageToDict(request, preserving_proto_field_name=True)
    path = template
    while "{" in path:
        start, end = path.index("{"), path.index("}")
        name = path[start + 1 : end].split("=")[0]
        path = path[:start] + str(fields.pop(name, "")) + path[end + 1 :]
    if body == "*":
        return HttpCall(http_method, path, [], json.dumps(fields).encode())
    payload = json.dumps(fields.pop(body, {})).encode() if body else None
    return HttpCall(http_method, path, _query(fields), payload)


def _query(fields: dict[str, Any], prefix: str = "") -> list[tuple[str, str]]:
    pairs: list[tuple[str, str]] = []
    for name, value in fields.items():
        if isinstance(value, dict):
            pairs += _query(value, f"{prefix}{name}.")
        else:
            for item in value if isinstance(value, list) else [value]:
                pairs.append((prefix + name, str(item).lower() if isinstance(item, bool) else str(item)))
    return pairs


class RouteCaller:
    def __init__(self, base_url: str, http2: bool = False) -> None:
        self.base_url = base_url
        self.http = http_client(http2)

    async def unary(self, method: MethodDescriptor, request: Message, token: str,
                    headers: dict[str, str] | None = None) -> Message:
        call = transcode(method, request)
        sent = {"authorization": token, **(headers or {})}
        response = await asyncio.wait_for(self.http.execute(
            call.http_method, self.base_url + call.path, sent, call.body, params=call.query,
        ), CALL_TIMEOUT)
        document = json.loads(response.content)
        if response.status != 200:
            raise RouteError(response.status, document)
        assert response.headers.get("content-type") == "application/json"
        return json_format.ParseDict(document, message_factory.GetMessageClass(method.output_type)())

    async def stream(self, method: MethodDescriptor, request: Message, token: str,
                     headers: dict[str, str] | None = None) -> AsyncIterator[Message]:
        call = transcode(method, request)
        sent = {"authorization": token, **(headers or {})}
        async with self.http.stream(call.http_method, self.base_url + call.path, sent,
                                    params=call.query) as response:
            if response.status != 200:
                body = b"".join([bytes(chunk) async for chunk in response.content])
                raise RouteError(response.status, json.loads(body))
            assert response.headers.get("content-type") == "application/x-ndjson"
            output = message_factory.GetMessageClass(method.output_type)
            pending = b""
            async for chunk in response.content:
                pending += bytes(chunk)
                while b"\n" in pending:
                    line, pending = pending.split(b"\n", 1)
                    document = json.loads(line)
                    if "error" in document:
                        raise RouteError(200, document["error"])
                    yield json_format.ParseDict(document["result"], output())


# -- raw HTTP ---------------------------------------------------------------------------------------------


@dataclass
class RawResponse:
    status: int
    headers: dict[str, str]  # names in lower case
    body: bytes

    def json(self) -> dict[str, Any]:
        return json.loads(self.body)


async def raw_request(port: int, method: str, path: str, body: bytes | None = None,
                      headers: dict[str, str] | None = None, timeout: float = CALL_TIMEOUT) -> RawResponse:
    """One HTTP/1.1 request with http.client, exactly as given (no client-side checks)."""
    def exchange() -> RawResponse:
        connection = http.client.HTTPConnection("127.0.0.1", port, timeout=timeout)
        try:
            connection.request(method, path, body=body, headers=headers or {})
            response = connection.getresponse()
            return RawResponse(response.status, {k.lower(): v for k, v in response.getheaders()},
                               response.read())
        finally:
            connection.close()

    return await asyncio.to_thread(exchange)


def envelopes(body: bytes) -> list[tuple[int, bytes]]:
    """The (flags, message) envelopes of a Connect or gRPC-Web stream body."""
    found, at = [], 0
    while at + 5 <= len(body):
        flags, size = struct.unpack(">BI", body[at : at + 5])
        found.append((flags, body[at + 5 : at + 5 + size]))
        at += 5 + size
    return found


def error_info(document: dict[str, Any], debug: bool = True) -> error_details_pb2.ErrorInfo:
    """The ErrorInfo of a Connect error JSON document: its base64 "value" decoded, and equal to "debug", which
    every refusal the web port writes as Connect error JSON carries (``debug=False``: check it if present)."""
    found = [d for d in document.get("details", []) if d["type"] == "google.rpc.ErrorInfo"]
    assert len(found) == 1, document
    value = found[0]["value"]
    info = error_details_pb2.ErrorInfo.FromString(base64.b64decode(value + "=" * (-len(value) % 4)))
    if debug or "debug" in found[0]:
        assert json_format.MessageToDict(info) == found[0]["debug"], document
    assert info.domain == "stud-service"
    return info


def assert_refused(response: RawResponse, status: int, code: str, reason: str) -> error_details_pb2.ErrorInfo:
    """A refusal as the web port writes it: the HTTP status, Connect error JSON with the code and reason."""
    assert response.status == status, (response.status, response.body[:300])
    assert response.headers["content-type"].startswith("application/json"), response.headers
    document = response.json()
    assert document["code"] == code, document
    info = error_info(document)
    assert info.reason == reason, document
    return info


def refusal_of(response: RawResponse) -> tuple[str, str]:
    """(code, ErrorInfo reason) of a refused call, whatever its wire form: Connect unary error JSON, a Connect
    stream's end message, or gRPC-Web trailers."""
    kind = response.headers.get("content-type", "")
    if kind.startswith("application/grpc"):  # gRPC-Web, or gRPC refused in its own form
        trailers = dict(response.headers)
        for flags, data in envelopes(response.body):
            if flags & 0x80:
                for line in data.decode().split("\r\n"):
                    if line:
                        name, _, value = line.partition(":")
                        trailers[name.strip().lower()] = value.strip()
        status = status_pb2.Status.FromString(base64.b64decode(trailers["grpc-status-details-bin"] + "=="))
        assert status.code == int(trailers["grpc-status"])
        infos = [d for d in status.details if d.Is(error_details_pb2.ErrorInfo.DESCRIPTOR)]
        assert len(infos) == 1, status
        info = error_details_pb2.ErrorInfo()
        infos[0].Unpack(info)
        code = next(c for c in grpc.StatusCode if c.value[0] == status.code)
        return code.name.lower(), info.reason
    if kind.startswith("application/connect+"):
        end = [data for flags, data in envelopes(response.body) if flags & 0x02]
        assert len(end) == 1, response.body[:300]
        document = json.loads(end[0])["error"]
    else:
        assert kind.startswith("application/json"), (response.status, response.headers, response.body[:300])
        assert response.status != 200
        document = response.json()
    return document["code"], error_info(document).reason  # with its debug copy, whoever wrote it
