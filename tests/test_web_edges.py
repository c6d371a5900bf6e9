"""The web port's edges, from outside: requests framed two ways, requests after a closing one, bodies and
heads that never finish, oversized heads, chunks and frames, compressed messages with no compression, fields
the path binds given again, and what one address may hold. Raw sockets against the whole service on loopback
(stud_service.server.web.wire and app hold the guards).

The port's own timeouts are short here (HEADER_TIMEOUT, BODY_TIMEOUT); the clients wait up to ANSWER_BOUND
for its answer, so nothing depends on the machine's speed. Every refusal carries the port's error body with
an ErrorInfo reason, appends nothing, and logs no ERROR.
"""

from __future__ import annotations

import asyncio
import contextlib
import http.client
import io
import json
import logging
import struct
from collections.abc import AsyncIterator, Callable
from typing import Any

import pytest
import pytest_asyncio
from web_calls import BUY_IN, seated
from web_fixtures import (
    RawResponse,
    WebWorld,
    assert_refused,
    bearer,
    error_info,
    refusal_of,
    web_port_on,
    web_service,
)

from stud_service.server.proto_gen import table_service_pb2
from stud_service.server.web.app import MAX_REQUEST_BYTES
from stud_service.server.web.wire import HEAD_LIMIT, PortLimits

HEADER_TIMEOUT = 1.5
BODY_TIMEOUT = 1.5
ANSWER_BOUND = 30.0  # how long a client waits for the port's answer (or its closing the connection)


@pytest_asyncio.fixture(scope="module", loop_scope="session")
async def web_world(make_database: Callable[..., Any]) -> AsyncIterator[WebWorld]:
    async with web_service(await make_database(migrated=True), web_header_timeout_seconds=HEADER_TIMEOUT,
                           web_body_timeout_seconds=BODY_TIMEOUT) as world:
        yield world


@pytest.fixture
def no_error_lines(caplog: pytest.LogCaptureFixture) -> Any:
    caplog.set_level(logging.INFO)
    yield
    errors = [record for record in caplog.records if record.levelno >= logging.ERROR]
    assert not errors, [record.getMessage() for record in errors]


# -- raw HTTP/1.1 ----------------------------------------------------------------------------------------


async def exchange(port: int, data: bytes, trickle: bytes = b"", every: float = 0.25) -> bytes:
    """Send ``data`` (then ``trickle`` a byte at a time, ``every`` seconds apart) while reading until the port
    closes the connection: everything it sent. The port may close it before all is sent (it refuses a
    request by its head), so sending never stops the reading."""
    reader, writer = await asyncio.open_connection("127.0.0.1", port)

    async def send() -> None:
        with contextlib.suppress(ConnectionError):
            writer.write(data)
            await writer.drain()
            for byte in trickle:
                await asyncio.sleep(every)
                writer.write(bytes([byte]))
                await writer.drain()

    sending = asyncio.ensure_future(send())
    received = b""
    try:
        async with asyncio.timeout(ANSWER_BOUND):  # the port, not this bound, ends the exchange
            while chunk := await reader.read(65536):
                received += chunk
    except ConnectionResetError:  # closed with our bytes unread: what it answered came first
        pass
    finally:
        sending.cancel()
        writer.close()
        with contextlib.suppress(Exception):
            await writer.wait_closed()
    return received


class _Kept(io.BytesIO):
    def close(self) -> None:  # http.client closes what it read a response from: the next one follows
        pass


class _Replayed:
    def __init__(self, data: bytes) -> None:
        self.file = _Kept(data)

    def makefile(self, *_: Any, **__: Any) -> io.BytesIO:
        return self.file


def responses(received: bytes) -> list[RawResponse]:
    """The HTTP/1.1 responses in ``received``, in order."""
    replayed, found = _Replayed(received), []
    while replayed.file.tell() < len(received):
        response = http.client.HTTPResponse(replayed)  # type: ignore[arg-type]
        response.begin()
        found.append(RawResponse(response.status, {k.lower(): v for k, v in response.getheaders()},
                                 response.read()))
    return found


def request(method: str, path: str, headers: dict[str, str], body: bytes = b"",
            version: str = "1.1") -> bytes:
    head = f"{method} {path} HTTP/{version}\r\nhost: stud.test\r\n"
    head += "".join(f"{name}: {value}\r\n" for name, value in headers.items())
    return (head + "\r\n").encode("latin-1") + body


def sit_out(table_id: str, **headers: str) -> Callable[[bytes], bytes]:
    return lambda body: request("POST", f"/v1/tables/{table_id}:sitOut",
                                {"authorization": bearer("alice"), **headers}, body)


LISTING = request("GET", "/v1/tables", {"authorization": bearer("alice")})
CHUNKED_EMPTY_OBJECT = b"2\r\n{}\r\n0\r\n\r\n"


async def sitting_out(world: WebWorld, table_id: str) -> bool:
    view = await world.grpc_client("alice").view(table_id)
    return next(seat.sitting_out for seat in view.seats if seat.player_id == "alice")

# -- §1: a request the port refuses never runs -------------------------------------------------------------


FRAMED_TWO_WAYS = {
    # a proxy trusting Content-Length and this port reading chunks would see different requests (CL.TE)
    "content-length-and-chunked": ({"content-length": "4", "transfer-encoding": "chunked"}, "1.1"),
    "chunked-then-gzip": ({"transfer-encoding": "chunked, gzip"}, "1.1"),
    "gzip-only": ({"transfer-encoding": "gzip"}, "1.1"),
    "two-transfer-encodings": ({"transfer-encoding": "chunked", "Transfer-Encoding": "chunked"}, "1.1"),
    "chunked-in-http-1.0": ({"transfer-encoding": "chunked"}, "1.0"),
}


@pytest.mark.parametrize("case", FRAMED_TWO_WAYS)
async def test_a_request_framed_two_ways_is_refused_before_it_runs(
    web_world: WebWorld, case: str, no_error_lines: None
) -> None:
    headers, version = FRAMED_TWO_WAYS[case]
    table_id = await seated(web_world, "alice")
    head = await web_world.head(table_id)
    data = request("POST", f"/v1/tables/{table_id}:sitOut", {"authorization": bearer("alice"), **headers},
                   CHUNKED_EMPTY_OBJECT, version) + LISTING
    answers = responses(await exchange(web_world.port, data))
    assert len(answers) == 1, answers  # the pipelined request is not read: the connection is closed
    info = assert_refused(answers[0], 400, "invalid_argument", "MALFORMED_REQUEST")
    assert answers[0].headers["connection"] == "close"
    print(case, answers[0].json()["message"], info)
    assert await web_world.head(table_id) == head
    assert not await sitting_out(web_world, table_id)


async def test_two_different_content_lengths_are_refused_with_the_error_body(
    web_world: WebWorld, no_error_lines: None
) -> None:
    table_id = await seated(web_world, "alice")
    head = await web_world.head(table_id)
    data = request("POST", f"/v1/tables/{table_id}:sitOut",
                   {"authorization": bearer("alice"), "content-length": "2", "Content-Length": "3"}, b"{} ")
    answers = responses(await exchange(web_world.port, data + LISTING))
    assert len(answers) == 1
    assert_refused(answers[0], 400, "invalid_argument", "MALFORMED_REQUEST")
    assert await web_world.head(table_id) == head


@pytest.mark.parametrize("closing", ["connection-close", "http-1.0"])
async def test_a_request_that_closes_its_connection_is_answered_for_what_it_did(
    web_world: WebWorld, closing: str, no_error_lines: None
) -> None:
    """Bytes after it (a pipelined request) are not read (RFC 9112 §9.6): they used to be a protocol error,
    answered 400 while the request ran anyway."""
    table_id = await seated(web_world, "alice")
    head = await web_world.head(table_id)
    headers = {"authorization": bearer("alice"), "content-length": "2"}
    if closing == "connection-close":
        headers["connection"] = "close"
    data = request("POST", f"/v1/tables/{table_id}:sitOut", headers, b"{}",
                   "1.0" if closing == "http-1.0" else "1.1")
    answers = responses(await exchange(web_world.port, data + LISTING))
    assert [answer.status for answer in answers] == [200], answers
    assert "view" in answers[0].json()
    assert await web_world.head(table_id) == head + 1
    assert await sitting_out(web_world, table_id)


async def test_a_chunked_request_alone_is_served(web_world: WebWorld) -> None:
    table_id = await seated(web_world, "alice")
    data = sit_out(table_id, **{"transfer-encoding": "chunked"})(CHUNKED_EMPTY_OBJECT)
    answers = responses(await exchange(web_world.port, data + request(
        "GET", "/v1/tables", {"authorization": bearer("alice"), "connection": "close"})))
    assert [answer.status for answer in answers] == [200, 200]
    assert await sitting_out(web_world, table_id)


# -- §3: heads over 64 KiB ---------------------------------------------------------------------------------


@pytest.mark.parametrize("where", ["header", "url"])
async def test_a_head_over_64_kib_gets_431_with_the_error_body(
    web_world: WebWorld, where: str, no_error_lines: None
) -> None:
    big = "a" * (HEAD_LIMIT + 100)
    data = request("GET", "/v1/tables" + ("?q=" + big if where == "url" else ""),
                   {"x-big": big} if where == "header" else {})
    answers = responses(await exchange(web_world.port, data))
    assert len(answers) == 1
    info = assert_refused(answers[0], 431, "resource_exhausted", "REQUEST_TOO_LARGE")
    assert info.metadata["limit"] == str(HEAD_LIMIT)


async def test_a_head_just_under_64_kib_is_served(web_world: WebWorld) -> None:
    data = request("GET", "/v1/tables", {"authorization": bearer("alice"), "x-big": "a" * (HEAD_LIMIT - 1000),
                                         "connection": "close"})
    answers = responses(await exchange(web_world.port, data))
    assert [answer.status for answer in answers] == [200]

# -- §3: bodies, heads, chunks and frames that never end -----------------------------------------------------


def sit_down(world: WebWorld, table_id: str, kind: str, declared: int, sent: bytes) -> bytes:
    """A SitDown whose Content-Length is ``declared``, of which ``sent`` is all that is sent."""
    token = {"authorization": bearer("alice"), "content-length": str(declared)}
    if kind == "route":
        return request("POST", f"/v1/tables/{table_id}:sitDown", token, sent)
    if kind == "connect":
        return request("POST", "/stud.v1.TableService/SitDown", {**token, "content-type": "application/json"},
                       sent)
    return request("POST", "/stud.v1.TableService/SitDown",
                   {**token, "content-type": "application/grpc-web+proto", "x-grpc-web": "1"}, sent)


KINDS = ["route", "connect", "grpc-web"]


@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("declared", [100, 10 * 1024**3], ids=["100-bytes", "10-GiB"])
async def test_a_body_shorter_than_its_length_is_answered(
    web_world: WebWorld, kind: str, declared: int, no_error_lines: None
) -> None:
    """Over the limit: refused at once, as a complete body over it is; under it: REQUEST_TIMEOUT (408) once
    the body timeout has passed, and the connection closed."""
    table_id = await web_world.new_table()
    sent = b"{" if declared == 100 else b"x" * 1024
    answers = responses(await exchange(web_world.port, sit_down(web_world, table_id, kind, declared, sent)))
    assert len(answers) == 1
    expected = ("resource_exhausted", "REQUEST_TOO_LARGE") if declared > MAX_REQUEST_BYTES else (
        "deadline_exceeded", "REQUEST_TIMEOUT")
    assert refusal_of(answers[0]) == expected, answers[0]
    if kind != "grpc-web":  # gRPC-Web says it in its trailers, with HTTP 200
        assert answers[0].status == (429 if declared > MAX_REQUEST_BYTES else 408)
    assert await web_world.head(table_id) == 2


async def test_a_trickling_body_is_cut_by_the_body_timeout(web_world: WebWorld, no_error_lines: None) -> None:
    """A byte every quarter second never lets the body sit idle, and still it must be in by the timeout."""
    table_id = await web_world.new_table()
    body = json.dumps({"seat": 1, "buyIn": str(BUY_IN)}).encode()
    data = sit_down(web_world, table_id, "route", len(body), b"")
    answers = responses(await exchange(web_world.port, data, trickle=body, every=BODY_TIMEOUT / 6))
    assert len(answers) == 1
    assert_refused(answers[0], 408, "deadline_exceeded", "REQUEST_TIMEOUT")
    assert await web_world.head(table_id) == 2


async def test_a_connect_stream_whose_body_stops_is_answered_in_its_form(web_world: WebWorld) -> None:
    data = request("POST", "/stud.v1.TableService/WatchTable", {
        "authorization": bearer("alice"), "content-type": "application/connect+json", "content-length": "50"},
        struct.pack(">BI", 0, 45) + b'{"name": ')
    answers = responses(await exchange(web_world.port, data))
    assert refusal_of(answers[0]) == ("deadline_exceeded", "REQUEST_TIMEOUT")


async def test_a_trickling_head_is_cut_by_the_header_timeout(
    web_world: WebWorld, no_error_lines: None
) -> None:
    head = b"x-slow: " + b"a" * 200 + b"\r\n\r\n"
    answers = responses(await exchange(web_world.port, b"GET /v1/tables HTTP/1.1\r\nhost: stud.test\r\n",
                                       trickle=head, every=HEADER_TIMEOUT / 6))
    assert len(answers) == 1
    info = assert_refused(answers[0], 408, "deadline_exceeded", "REQUEST_TIMEOUT")
    print(answers[0].json()["message"], info)


async def test_a_head_that_arrives_in_time_on_a_kept_connection_is_served(web_world: WebWorld) -> None:
    """The header clock starts with each request's first byte, not with the connection."""
    reader, writer = await asyncio.open_connection("127.0.0.1", web_world.port)
    try:
        for _ in range(2):
            writer.write(LISTING)
            await writer.drain()
            async with asyncio.timeout(ANSWER_BOUND):
                status_line = await reader.readline()
                assert status_line.startswith(b"HTTP/1.1 200"), status_line
                length = 0
                while (line := await reader.readline()) != b"\r\n":
                    if line.lower().startswith(b"content-length:"):
                        length = int(line.split(b":")[1])
                await reader.readexactly(length)
            await asyncio.sleep(HEADER_TIMEOUT * 1.5)  # idle between requests: the keep-alive's, not this
    finally:
        writer.close()


async def test_a_chunk_over_the_limit_is_refused_when_its_size_arrives(
    web_world: WebWorld, no_error_lines: None
) -> None:
    table_id = await web_world.new_table()
    for size in (b"10000000000000000", b"400001"):  # 2^64, and 4 MiB + 1
        data = sit_down(web_world, table_id, "route", 0, b"").replace(
            b"content-length: 0", b"transfer-encoding: chunked") + size + b"\r\n{\"seat\""
        answers = responses(await exchange(web_world.port, data))
        assert len(answers) == 1
        assert_refused(answers[0], 429, "resource_exhausted", "REQUEST_TOO_LARGE")
    assert await web_world.head(table_id) == 2


async def test_an_h2c_preface_followed_by_garbage_is_closed_at_once(web_world: WebWorld) -> None:
    """The garbage's first nine bytes read as a frame header announcing 6.7 MB: GOAWAY, and closed."""
    preface = b"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n"
    received = await exchange(web_world.port, preface + b"garbage garbage garbage\r\n" * 3)
    # GOAWAY: 8 bytes, type 7, no flags, stream 0; last stream 0, error FRAME_SIZE_ERROR (6)
    goaway = b"\x00\x00\x08\x07\x00\x00\x00\x00\x00" + b"\x00\x00\x00\x00" + b"\x00\x00\x00\x06"
    assert received.endswith(goaway), received

# -- §3: what one address may hold ---------------------------------------------------------------------------


async def test_one_address_holds_at_most_its_connections(web_world: WebWorld, no_error_lines: None) -> None:
    assert web_world.host.runtime is not None
    limit = 3
    async with web_port_on(web_world.host.runtime, PortLimits(0, limit)) as url:
        port = int(url.rpartition(":")[2])
        held = [await asyncio.open_connection("127.0.0.1", port) for _ in range(limit)]
        for _, writer in held:
            writer.write(b"GET /v1/tab")  # a head begun, and held (this port has no header timeout)
        reader, writer = await asyncio.open_connection("127.0.0.1", port)
        writer.write(LISTING)
        async with asyncio.timeout(ANSWER_BOUND):
            assert await reader.read() == b""  # closed unanswered
        writer.close()
        held_reader, held_writer = held.pop()
        held_writer.close()
        async with asyncio.timeout(ANSWER_BOUND):  # once the port has seen it go, a new one is served
            while True:
                with contextlib.suppress(ConnectionError):
                    answers = responses(await exchange(port, LISTING.replace(
                        b"\r\n\r\n", b"\r\nconnection: close\r\n\r\n")))
                    if answers:
                        break
                await asyncio.sleep(0.1)
        assert answers[0].status == 200
        for _, writer in held:
            writer.close()


# -- §3: compressed messages with no compression -------------------------------------------------------------


@pytest.mark.parametrize("form", ["grpc-web", "connect-stream"])
async def test_a_compressed_message_without_a_compression_is_invalid_argument(
    web_world: WebWorld, form: str, no_error_lines: None
) -> None:
    table_id = await web_world.new_table()
    head = await web_world.head(table_id)
    if form == "grpc-web":
        message = table_service_pb2.SitDownRequest(name=f"tables/{table_id}", seat=1, buy_in=BUY_IN)
        path, kind, payload = "/stud.v1.TableService/SitDown", "application/grpc-web+proto", \
            message.SerializeToString()
    else:
        path, kind, payload = "/stud.v1.TableService/WatchTable", "application/connect+json", \
            json.dumps({"name": f"tables/{table_id}"}).encode()
    body = struct.pack(">BI", 1, len(payload)) + payload  # flag 1: compressed; no encoding named
    data = request("POST", path, {"content-type": kind, "content-length": str(len(body)),
                                  "connection": "close"}, body)
    answers = responses(await exchange(web_world.port, data))
    assert refusal_of(answers[0]) == ("invalid_argument", "MALFORMED_REQUEST"), answers[0]
    assert await web_world.head(table_id) == head

# -- §3: a field the path binds comes from the path alone ----------------------------------------------------


async def test_a_field_the_path_binds_cannot_come_from_the_query_or_the_body(
    web_world: WebWorld, no_error_lines: None
) -> None:
    mine, other = await seated(web_world, "alice"), await web_world.new_table()
    head = await web_world.head(mine)
    for query in (f"name=tables/{other}", f"name=tables/{mine}"):
        data = request("GET", f"/v1/tables/{mine}:view?{query}",
                       {"authorization": bearer("alice"), "connection": "close"})
        [answer] = responses(await exchange(web_world.port, data))
        info = assert_refused(answer, 400, "invalid_argument", "MALFORMED_REQUEST")
        assert info.metadata["field"] == "name", answer.json()
    for body in ({"name": f"tables/{other}"}, {"name": f"tables/{mine}", "requestId": "r1"}):
        encoded = json.dumps(body).encode()
        data = request("POST", f"/v1/tables/{mine}:sitOut", {"authorization": bearer("alice"),
                       "content-length": str(len(encoded)), "connection": "close"}, encoded)
        [answer] = responses(await exchange(web_world.port, data))
        info = assert_refused(answer, 400, "invalid_argument", "MALFORMED_REQUEST")
        assert info.metadata["field"] == "name", answer.json()
    hands = request("GET", f"/v1/tables/{mine}/hands?parent=tables/{other}",
                    {"authorization": bearer("alice"), "connection": "close"})
    [answer] = responses(await exchange(web_world.port, hands))
    assert error_info(answer.json()).metadata["field"] == "parent"
    assert await web_world.head(mine) == head and not await sitting_out(web_world, mine)
