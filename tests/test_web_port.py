"""The web port as a port: CORS, heartbeats, the ``off`` setting, TLS, hostile input, clients that go away,
graceful shutdown and the access log, against the whole service (ServiceHost, or ``stud-service serve``)
on a real PostgreSQL, with real HTTP clients (connectrpc, pyqwest, http.client, raw sockets).

Every refusal here must carry an ErrorInfo reason (never UNKNOWN or INTERNAL) and append nothing.
"""

from __future__ import annotations

import asyncio
import contextlib
import http.client
import json
import socket
import struct
from collections.abc import AsyncIterator, Callable
from pathlib import Path
from typing import Any

import pyqwest
import pytest
import pytest_asyncio
from grpc_fixtures import free_port
from web_calls import BUY_IN, seated
from web_fixtures import (
    ALLOWED_ORIGIN,
    ConnectCaller,
    RouteCaller,
    WebWorld,
    assert_refused,
    bearer,
    error_info,
    http_client,
    method_named,
    raw_request,
    refusal_of,
    web_options,
    web_service,
)

from stud_service.auth import Role
from stud_service.server.grpc.app import TlsFiles
from stud_service.server.host import ServiceHost
from stud_service.server.proto_gen import audit_service_pb2, table_service_pb2
from stud_service.server.web.app import MAX_REQUEST_BYTES

WEB_HEARTBEAT = 1.0  # this module's web port default: a silent watch sends a heartbeat each second


@pytest_asyncio.fixture(scope="module", loop_scope="session")
async def web_world(make_database: Callable[..., Any]) -> AsyncIterator[WebWorld]:
    async with web_service(await make_database(migrated=True), web_heartbeat_seconds=WEB_HEARTBEAT) as world:
        yield world


# -- CORS ---------------------------------------------------------------------------------------------------


def preflight_headers(origin: str) -> dict[str, str]:
    return {"origin": origin, "access-control-request-method": "POST",
            "access-control-request-headers": "authorization, content-type, connect-protocol-version"}


async def test_a_configured_origin_gets_cors_headers_and_its_preflight_answered(web_world: WebWorld) -> None:
    preflight = await raw_request(web_world.port, "OPTIONS", "/stud.v1.TableService/GetTableView",
                                  headers=preflight_headers(ALLOWED_ORIGIN))
    assert preflight.status == 204
    assert preflight.headers["access-control-allow-origin"] == ALLOWED_ORIGIN
    assert "Origin" in preflight.headers["vary"]
    allowed = {h.strip() for h in preflight.headers["access-control-allow-headers"].split(",")}
    assert {"authorization", "content-type", "connect-protocol-version", "connect-timeout-ms", "x-grpc-web",
            "x-user-agent", "x-stud-device-id"} <= allowed
    assert "POST" in preflight.headers["access-control-allow-methods"]
    table_id = await web_world.new_table()
    call = await raw_request(
        web_world.port, "POST", "/stud.v1.TableService/GetTableView",
        json.dumps({"name": f"tables/{table_id}"}).encode(),
        {"origin": ALLOWED_ORIGIN, "content-type": "application/json", "authorization": bearer("alice")},
    )
    assert call.status == 200
    assert call.headers["access-control-allow-origin"] == ALLOWED_ORIGIN
    assert "Origin" in call.headers["vary"]
    exposed = {h.strip() for h in call.headers["access-control-expose-headers"].split(",")}
    assert {"grpc-status", "grpc-message", "grpc-status-details-bin"} <= exposed
    # A refusal is readable by the page too: the same headers.
    refused = await raw_request(web_world.port, "GET", "/v1/tables/t-none",
                                headers={"origin": ALLOWED_ORIGIN})
    assert refused.status == 404 and refused.headers["access-control-allow-origin"] == ALLOWED_ORIGIN


async def test_another_origin_gets_no_cors_headers_and_a_403_preflight(web_world: WebWorld) -> None:
    for origin in ("https://evil.example", ALLOWED_ORIGIN + ".evil.example", "null"):
        preflight = await raw_request(web_world.port, "OPTIONS", "/v1/tables",
                                      headers=preflight_headers(origin))
        assert preflight.status == 403
        assert "access-control-allow-origin" not in preflight.headers
        call = await raw_request(web_world.port, "GET", "/v1/tables",
                                 headers={"origin": origin, "authorization": bearer("alice")})
        assert call.status == 200 and "access-control-allow-origin" not in call.headers
        assert call.headers["vary"] == "Origin"  # a cache must not hand this answer to an allowed origin
    no_origin = await raw_request(web_world.port, "GET", "/v1/tables", headers={"authorization": bearer("a")})
    assert no_origin.headers["vary"] == "Origin" and "access-control-allow-origin" not in no_origin.headers


# -- heartbeats ---------------------------------------------------------------------------------------------


async def first_two(replies: AsyncIterator[Any]) -> list[Any]:
    iterator = replies.__aiter__()
    try:
        async with asyncio.timeout(10):
            return [await iterator.__anext__(), await iterator.__anext__()]
    finally:
        await iterator.aclose()  # type: ignore[attr-defined]


@pytest.mark.parametrize("asked", [0, 1], ids=["the-port-default", "heartbeat_seconds=1"])
async def test_an_idle_watch_over_connect_gets_heartbeats_with_its_version(
    web_world: WebWorld, asked: int
) -> None:
    table_id = await seated(web_world, "alice")  # one player: nothing happens at this table
    head = await web_world.head(table_id)
    caller = ConnectCaller(web_world.base_url, "proto")
    request = table_service_pb2.WatchTableRequest(name=f"tables/{table_id}", heartbeat_seconds=asked)
    view, beat = await first_two(caller.stream(method_named("WatchTable"), request, bearer("alice")))
    assert view.view.version == head
    assert beat.heartbeat.version == head and not beat.HasField("event") and not beat.HasField("view")
    # Resuming: the heartbeat's version is where the stream stood.
    resumed = table_service_pb2.WatchTableRequest(name=f"tables/{table_id}", after_version=head - 1,
                                                  heartbeat_seconds=1)
    event, beat = await first_two(caller.stream(method_named("WatchTable"), resumed, bearer("alice")))
    assert event.event.version == head and beat.heartbeat.version == head


async def test_an_idle_ndjson_watch_gets_heartbeats(web_world: WebWorld) -> None:
    table_id = await seated(web_world, "alice")
    head = await web_world.head(table_id)
    caller = RouteCaller(web_world.base_url)
    request = table_service_pb2.WatchTableRequest(name=f"tables/{table_id}", heartbeat_seconds=1)
    view, beat = await first_two(caller.stream(method_named("WatchTable"), request, bearer("alice")))
    assert view.view.version == head and beat.heartbeat.version == head


async def test_the_grpc_port_sends_heartbeats_only_when_asked(web_world: WebWorld) -> None:
    table_id = await seated(web_world, "alice")
    head = await web_world.head(table_id)
    alice = web_world.grpc_client("alice")
    silent = alice.stub.WatchTable(table_service_pb2.WatchTableRequest(name=f"tables/{table_id}"),
                                   metadata=alice.metadata)
    try:
        assert (await silent.read()).view.version == head
        with pytest.raises(TimeoutError):
            await asyncio.wait_for(silent.read(), 2.5 * WEB_HEARTBEAT)
    finally:
        silent.cancel()
    asked = alice.stub.WatchTable(table_service_pb2.WatchTableRequest(name=f"tables/{table_id}",
                                                                      heartbeat_seconds=1),
                                  metadata=alice.metadata)
    try:
        await asked.read()
        beat = await asyncio.wait_for(asked.read(), 30)
        assert beat.heartbeat.version == head
    finally:
        asked.cancel()


# -- the setting: on, off, from the command line and the environment ---------------------------------------


def port_is_bound(port: int) -> bool:
    with socket.socket() as probe:
        return probe.connect_ex(("127.0.0.1", port)) == 0


async def test_serve_binds_the_web_port_from_the_environment_and_off_binds_none(
    make_database: Callable[..., Any], spawn_server, monkeypatch: pytest.MonkeyPatch
) -> None:
    database_url = await make_database(migrated=True)  # of its own: no other test's tables to deal
    port = free_port()
    monkeypatch.setenv("STUD_WEB_LISTEN", f"127.0.0.1:{port}")
    server = await spawn_server(database_url)
    listed = await raw_request(port, "GET", "/v1/tables", headers={"authorization": bearer("alice")})
    assert listed.status == 200 and listed.headers["content-type"] == "application/json"
    # No origin is allowed by default.
    preflight = await raw_request(port, "OPTIONS", "/v1/tables", headers=preflight_headers(ALLOWED_ORIGIN))
    assert preflight.status == 403 and "access-control-allow-origin" not in preflight.headers
    call = await raw_request(port, "GET", "/v1/tables", headers={"origin": ALLOWED_ORIGIN,
                                                                 "authorization": bearer("alice")})
    assert call.status == 200 and "access-control-allow-origin" not in call.headers
    server.kill()
    other = free_port()
    monkeypatch.setenv("STUD_WEB_LISTEN", f"127.0.0.1:{other}")
    await spawn_server(database_url, "--web-listen", "off")  # the flag wins over the environment
    assert not port_is_bound(other)


async def test_a_host_with_the_web_port_off_binds_none(make_database: Callable[..., Any]) -> None:
    async with ServiceHost(web_options(await make_database(migrated=True), web_listen="off")) as host:
        assert host.web is None
        with pytest.raises(AssertionError):
            _ = host.web_port


# -- TLS ----------------------------------------------------------------------------------------------------


async def test_tls_on_the_web_port_with_the_grpc_ports_certificate(
    make_database: Callable[..., Any], self_signed: TlsFiles
) -> None:
    async with web_service(await make_database(migrated=True), tls=self_signed) as world:
        ca = Path(self_signed.cert_file).read_bytes()
        table_id = await world.new_table()
        for http2 in (False, True):  # ALPN offers both
            caller = ConnectCaller(f"https://localhost:{world.port}", "json", http2=http2, ca=ca)
            view = await caller.unary(method_named("GetTableView"),
                                      table_service_pb2.GetTableViewRequest(name=f"tables/{table_id}"),
                                      bearer("alice"))
            assert view.table.name == f"tables/{table_id}"
        async with http_client(None, ca).stream("GET", f"https://localhost:{world.port}/v1/tables",
                                             {"authorization": bearer("alice")}) as listed:
            assert listed.status == 200 and listed.http_version == pyqwest.HTTPVersion.HTTP2  # negotiated
        with pytest.raises(Exception):  # noqa: B017 # plaintext is not served on a TLS port
            await raw_request(world.port, "GET", "/v1/tables", timeout=3)


@pytest.mark.parametrize("http2", [False, True], ids=["http1", "h2c"])
async def test_plaintext_http1_and_http2_are_both_served(web_world: WebWorld, http2: bool) -> None:
    """The Connect tests' HTTP/2 is real HTTP/2 (prior knowledge, no upgrade), not HTTP/1.1 in disguise."""
    url = f"{web_world.base_url}/v1/tables"
    async with http_client(http2).stream("GET", url, {"authorization": bearer("alice")}) as listed:
        assert listed.status == 200
        assert listed.http_version == (pyqwest.HTTPVersion.HTTP2 if http2 else pyqwest.HTTPVersion.HTTP1)


# -- hostile input ------------------------------------------------------------------------------------------


GARBAGE = b"\x00\x00\x00\x00\x07\xff\xfe garbage \x13\x37" * 7
CONTENT_TYPES = [
    "application/proto", "application/json", "application/connect+proto", "application/connect+json",
    "application/grpc-web", "application/grpc-web+proto", "application/grpc-web+json", "application/grpc",
    "application/grpc-web-text", "text/plain", "application/x-www-form-urlencoded",
]
PATHS = ["/stud.v1.TableService/SitDown", "/stud.v1.TableService/WatchTable"]


@pytest.mark.parametrize("path", PATHS, ids=["unary", "stream"])
@pytest.mark.parametrize("content_type", CONTENT_TYPES)
async def test_garbage_of_each_content_type_is_refused_with_a_reason(
    web_world: WebWorld, content_type: str, path: str
) -> None:
    table_id = await web_world.new_table()
    head = await web_world.head(table_id)
    response = await raw_request(web_world.port, "POST", path, GARBAGE, {
        "content-type": content_type, "authorization": bearer("alice"), "connect-protocol-version": "1"})
    code, reason = refusal_of(response)
    assert code not in ("unknown", "internal") and reason, (code, reason)
    assert response.status < 500, response.status
    assert await web_world.head(table_id) == head


async def test_garbage_to_a_json_route_is_refused_with_a_reason(web_world: WebWorld) -> None:
    table_id = await web_world.new_table()
    for kind in ("application/json", "application/proto", "text/plain"):
        response = await raw_request(web_world.port, "POST", f"/v1/tables/{table_id}:sitDown", GARBAGE,
                                     {"content-type": kind, "authorization": bearer("alice")})
        assert_refused(response, 400, "invalid_argument", "MALFORMED_REQUEST")
    assert await web_world.head(table_id) == 2


def connect_json(world: WebWorld, table_id: str, **headers: str) -> Callable[[], Any]:
    body = json.dumps({"name": f"tables/{table_id}", "seat": 1, "buyIn": str(BUY_IN)}).encode()
    return lambda: raw_request(world.port, "POST", "/stud.v1.TableService/SitDown", body, {
        "content-type": "application/json", "authorization": bearer("alice"), **headers})


async def test_a_long_but_valid_connect_timeout_is_served(web_world: WebWorld) -> None:
    table_id = await web_world.new_table()
    response = await connect_json(web_world, table_id, **{"connect-timeout-ms": "9999999999"})()  # 115 days
    assert response.status == 200, response.body
    assert await web_world.head(table_id) == 3


@pytest.mark.parametrize(("header", "value", "reason"), [
    ("connect-protocol-version", "2", "MALFORMED_REQUEST"),
    ("x-request-id", "caf\xe9", "MALFORMED_REQUEST"),  # latin-1 on the wire: not UTF-8
    ("authorization", "Bearer caf\xe9", "TOKEN_INVALID"),
])
async def test_a_header_the_library_cannot_read_is_refused_with_a_reason(
    web_world: WebWorld, header: str, value: str, reason: str
) -> None:
    table_id = await web_world.new_table()
    response = await connect_json(web_world, table_id, **{header: value})()
    assert refusal_of(response)[1] == reason, response.body
    assert await web_world.head(table_id) == 2


@pytest.mark.parametrize("timeout", ["99999999999999999999", "-5", "soon", "1.5"])
async def test_a_bad_connect_timeout_is_refused_with_a_reason(web_world: WebWorld, timeout: str) -> None:
    table_id = await web_world.new_table()
    response = await connect_json(web_world, table_id, **{"connect-timeout-ms": timeout})()
    code, reason = refusal_of(response)
    assert code == "invalid_argument" and reason == "MALFORMED_REQUEST", (code, reason)
    assert await web_world.head(table_id) == 2


async def test_a_bad_compression_is_refused_with_a_reason(web_world: WebWorld) -> None:
    table_id = await web_world.new_table()
    for encoding in ("snappy-9000", "gzip"):  # unknown; known, but the body is not gzip
        response = await connect_json(web_world, table_id, **{"content-encoding": encoding})()
        assert refusal_of(response) == ("invalid_argument", "MALFORMED_REQUEST"), encoding
    # A stream's messages name theirs in connect-content-encoding.
    body = json.dumps({"name": f"tables/{table_id}"}).encode()
    headers = {"content-type": "application/connect+json", "authorization": bearer("alice"),
               "connect-content-encoding": "snappy"}
    response = await raw_request(web_world.port, "POST", "/stud.v1.TableService/WatchTable",
                                 struct.pack(">BI", 1, len(body)) + body, headers)
    assert refusal_of(response) == ("invalid_argument", "MALFORMED_REQUEST")
    assert await web_world.head(table_id) == 2


async def test_a_connect_message_too_large_is_refused_with_a_reason(web_world: WebWorld) -> None:
    table_id = await web_world.new_table()
    body = json.dumps({"name": f"tables/{table_id}", "seat": 1, "buyIn": "5000",
                       "requestId": "x" * MAX_REQUEST_BYTES}).encode()
    response = await raw_request(web_world.port, "POST", "/stud.v1.TableService/SitDown", body, {
        "content-type": "application/json", "authorization": bearer("alice")})
    assert refusal_of(response) == ("resource_exhausted", "REQUEST_TOO_LARGE")
    assert await web_world.head(table_id) == 2


@pytest.mark.parametrize("authorization", ["Bearer", "Bearer ", "Basic YWxpY2U6cHc=", "bearer x.y.z",
                                           "Bearer " + "a" * 20_000, "Bearer \tx"])
async def test_a_bad_authorization_header_is_unauthenticated_with_a_reason(
    web_world: WebWorld, authorization: str
) -> None:
    table_id = await web_world.new_table()
    response = await connect_json(web_world, table_id, authorization=authorization)()
    code, reason = refusal_of(response)
    assert code == "unauthenticated" and reason.startswith("TOKEN_"), (code, reason)
    route = await raw_request(web_world.port, "POST", f"/v1/tables/{table_id}:sitDown",
                              json.dumps({"seat": 1, "buyIn": str(BUY_IN)}).encode(),
                              {"authorization": authorization})
    assert route.status == 401 and error_info(route.json()).reason.startswith("TOKEN_")
    assert await web_world.head(table_id) == 2


@contextlib.asynccontextmanager
async def raw_connection(port: int) -> AsyncIterator[tuple[asyncio.StreamReader, asyncio.StreamWriter]]:
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    try:
        yield reader, writer
    finally:
        writer.close()
        with contextlib.suppress(Exception):
            await writer.wait_closed()


async def read_response_head(reader: asyncio.StreamReader) -> tuple[int, dict[str, str]]:
    head = (await reader.readuntil(b"\r\n\r\n")).decode("latin-1").split("\r\n")
    status = int(head[0].split()[1])
    headers = {}
    for line in head[1:]:
        if line:
            name, _, value = line.partition(":")
            headers[name.strip().lower()] = value.strip()
    return status, headers


@pytest.mark.parametrize("path", ["/stud.v1.TableService/SitDown", "/v1/tables/{table}:sitDown"],
                         ids=["connect", "route"])
async def test_a_body_that_never_ends_is_given_up_at_the_deadline(web_world: WebWorld, path: str) -> None:
    """The server answers DEADLINE_EXCEEDED when the deadline passes (it has no reason to give: as on the
    gRPC port, that status is the deadline's own), and appends nothing."""
    table_id = await web_world.new_table()

    def send_part_of_a_body() -> tuple[int, dict]:
        connection = http.client.HTTPConnection("127.0.0.1", web_world.port, timeout=30)
        try:
            connection.putrequest("POST", path.format(table=table_id))
            for name, value in (("content-type", "application/json"), ("content-length", "1000"),
                                ("authorization", bearer("alice")), ("connect-timeout-ms", "500")):
                connection.putheader(name, value)
            connection.endheaders(b'{"seat": 1,')
            response = connection.getresponse()  # the deadline is half a second; the socket's 30 s
            return response.status, json.loads(response.read())
        finally:
            connection.close()

    status, document = await asyncio.to_thread(send_part_of_a_body)
    assert (status, document["code"]) == (504, "deadline_exceeded"), document
    assert await web_world.head(table_id) == 2


async def watchers(world: WebWorld) -> int:
    assert world.host.runtime is not None
    return world.host.runtime.watcher_count()


async def wait_for_watchers(world: WebWorld, count: int, timeout: float = 30.0) -> None:
    async with asyncio.timeout(timeout):
        while await watchers(world) != count:
            await asyncio.sleep(0.05)


@pytest.mark.parametrize("form", ["connect", "ndjson"])
async def test_a_client_that_disconnects_mid_stream_leaves_no_watcher(web_world: WebWorld, form: str) -> None:
    table_id = await seated(web_world, "alice")  # idle: nothing would be sent to notice the client is gone
    before = await watchers(web_world)
    if form == "connect":
        body = json.dumps({"name": f"tables/{table_id}", "heartbeatSeconds": 3600}).encode()
        request = (
            f"POST /stud.v1.TableService/WatchTable HTTP/1.1\r\nhost: x\r\n"
            f"content-type: application/connect+json\r\ncontent-length: {len(body) + 5}\r\n"
            f"authorization: {bearer('alice')}\r\n\r\n"
        ).encode() + struct.pack(">BI", 0, len(body)) + body
    else:
        request = (f"GET /v1/tables/{table_id}:watch?heartbeat_seconds=3600 HTTP/1.1\r\nhost: x\r\n"
                   f"authorization: {bearer('alice')}\r\n\r\n").encode()
    async with raw_connection(web_world.port) as (reader, writer):
        writer.write(request)
        await writer.drain()
        status, _ = await asyncio.wait_for(read_response_head(reader), 30)
        assert status == 200
        await asyncio.wait_for(reader.read(100), 30)  # the first message
        await wait_for_watchers(web_world, before + 1)
    await wait_for_watchers(web_world, before)  # closed: the server lets go of the watch


@pytest.mark.parametrize("form", ["connect", "ndjson"])
async def test_a_client_that_resets_its_http2_stream_leaves_no_watcher(
    web_world: WebWorld, form: str
) -> None:
    """Over HTTP/2 the connection stays (pooled); only the stream is reset."""
    table_id = await seated(web_world, "alice")
    before = await watchers(web_world)
    headers = {"authorization": bearer("alice")}
    if form == "connect":
        body = json.dumps({"name": f"tables/{table_id}", "heartbeatSeconds": 3600}).encode()
        request: tuple[str, str, bytes | None] = (
            "POST", "/stud.v1.TableService/WatchTable", struct.pack(">BI", 0, len(body)) + body)
        headers["content-type"] = "application/connect+json"
    else:
        request = ("GET", f"/v1/tables/{table_id}:watch?heartbeat_seconds=3600", None)
    method, path, content = request
    async with http_client(True).stream(method, web_world.base_url + path, headers, content) as response:
        assert response.status == 200 and response.http_version == pyqwest.HTTPVersion.HTTP2
        async with asyncio.timeout(30):
            await response.content.__anext__()  # the first message
        await wait_for_watchers(web_world, before + 1)
    await wait_for_watchers(web_world, before)


@pytest.mark.parametrize("path", [
    "/../../../../etc/passwd", "/%2e%2e/%2e%2e/etc/passwd", "/..%2f..%2fetc/passwd", "/static/../index.html",
    "/index.html/..", "//etc/passwd", "/.%00./etc/passwd",
])
async def test_static_paths_with_dot_dot_are_not_found(web_world: WebWorld, path: str) -> None:
    async with raw_connection(web_world.port) as (reader, writer):
        writer.write(f"GET {path} HTTP/1.1\r\nhost: x\r\nconnection: close\r\n\r\n".encode())
        await writer.drain()
        response = await asyncio.wait_for(reader.read(), 30)
    assert b"root:" not in response
    status = int(response.split(b" ", 2)[1])
    assert status in (400, 404, 501), response[:200]


# -- shutdown and the access log ----------------------------------------------------------------------------


async def test_graceful_shutdown_ends_open_web_watches(make_database: Callable[..., Any]) -> None:
    async with web_service(await make_database(migrated=True), grace_seconds=1.0) as world:
        table_id = await seated(world, "alice")
        request = table_service_pb2.WatchTableRequest(name=f"tables/{table_id}", heartbeat_seconds=3600)
        connect = ConnectCaller(world.base_url, "proto").stream(method_named("WatchTable"), request,
                                                                  bearer("alice")).__aiter__()
        ndjson = RouteCaller(world.base_url).stream(method_named("WatchTable"), request, bearer("alice"))
        ndjson = ndjson.__aiter__()
        await connect.__anext__()
        await ndjson.__anext__()

        async def drain(stream: Any) -> list[Any]:
            return [reply async for reply in stream]

        draining = [asyncio.ensure_future(drain(connect)), asyncio.ensure_future(drain(ndjson))]
        await asyncio.sleep(0.1)
        assert not any(task.done() for task in draining)
        stopping = asyncio.ensure_future(world.host.stop())
        async with asyncio.timeout(30):  # the grace period (1 s), and room for a busy machine
            results = await asyncio.gather(*draining, return_exceptions=True)
            await stopping
    print("after shutdown:", results)
    assert results == [[], []]


async def test_the_access_log_records_an_auditors_web_call_with_its_web_peer(web_world: WebWorld) -> None:
    table_id = await web_world.new_table()
    auditor = f"auditor-{table_id}"

    def call_and_name_the_local_port() -> tuple[int, int]:
        import http.client

        connection = http.client.HTTPConnection("127.0.0.1", web_world.port, timeout=10)
        connection.connect()
        local_port = connection.sock.getsockname()[1]
        connection.request("GET", f"/v1/tables/{table_id}:view",
                           headers={"authorization": bearer(auditor, Role.AUDITOR)})
        status = connection.getresponse().status
        connection.close()
        return status, local_port

    status, local_port = await asyncio.to_thread(call_and_name_the_local_port)
    assert status == 200
    audit = web_world.grpc_client("auditor", Role.AUDITOR)
    records = await audit.audit.ListAccessRecords(audit_service_pb2.ListAccessRecordsRequest(
        principal_id=auditor), metadata=audit.metadata)
    assert [(r.method, r.resource, r.peer) for r in records.access_records] == [
        ("/stud.v1.TableService/GetTableView", f"tables/{table_id}", f"ipv4:127.0.0.1:{local_port}")]
