"""The hostile-input suite's raw HTTP/1.1 cases against the web port (issue 37 parts 1 and 3): request
smuggling shapes (Content-Length with Transfer-Encoding, two lengths, other encodings), bad chunk sizes, an
h2c preface followed by garbage, bodies and headers that stop arriving, oversized headers, pipelining, path
tricks, and a field bound in a route's path sent again in its query or body (generated from the routes).

Every exchange is checked as the spray checks its calls (tests/hostile_world.py): nothing refused may change
the log or the money, no ERROR line, no 5xx without a reason; a malformed message is answered 4xx (or the
connection closed) at once.
"""

from __future__ import annotations

import asyncio
import json
import re
import uuid
from collections.abc import AsyncIterator
from dataclasses import dataclass

import pytest
import pytest_asyncio
from google.api import annotations_pb2
from grpc_fixtures import table_spec
from hostile_wire import HttpClosed, HttpResponse, authorization, read_response, reason_of
from hostile_world import (
    CHIPS_TABLE,
    MONEY_TABLE,
    PLAYED_TABLE,
    PLAYER,
    STUD_SERVICES,
    TOURNAMENT,
    World,
    client,
    hostile_world,
)

from stud_service.auth import Role

pytestmark = pytest.mark.timeout(300)

# "At once": a malformed message is answered (or the connection closed) within this, and not by a timeout
# (an answer "at once" is never 408). Generous: a busy machine is slow, a missing answer never comes.
AT_ONCE_SECONDS = 10.0
# The port's timeouts for a request's head and body here (short: the defaults are 10 s and 30 s); a head or
# body that stops arriving must be cut within CUT_WITHIN_SECONDS.
HEAD_AND_BODY_TIMEOUT_SECONDS = 2.0
CUT_WITHIN_SECONDS = 15.0
PLAYER_TOKEN = authorization("player", PLAYER) or ""
OPERATOR_TOKEN = authorization("operator", PLAYER) or ""



@pytest_asyncio.fixture(scope="module")
async def world(make_database) -> AsyncIterator[World]:
    async with hostile_world(await make_database(migrated=True),
                             web_header_timeout_seconds=HEAD_AND_BODY_TIMEOUT_SECONDS,
                             web_body_timeout_seconds=HEAD_AND_BODY_TIMEOUT_SECONDS) as world:
        yield world


@dataclass
class Exchange:
    """What came back for bytes written on a fresh connection: the responses in order, then whether the
    server closed the connection, and how long it all took."""

    responses: list[HttpResponse]
    closed: bool
    seconds: float


async def exchange(world: World, chunks: list[bytes], answers: int = 1, pause: float = 0.0,
                   within: float = AT_ONCE_SECONDS) -> Exchange:
    """Write ``chunks`` (``pause`` seconds apart) on a new connection and read up to ``answers`` responses;
    stops at ``within`` seconds (the exchange then reports what it had)."""
    loop = asyncio.get_running_loop()
    started = loop.time()
    reader, writer = await asyncio.open_connection("127.0.0.1", world.web_port)
    responses: list[HttpResponse] = []
    closed = False

    async def talk() -> None:
        nonlocal closed
        for index, chunk in enumerate(chunks):
            if index and pause:
                await asyncio.sleep(pause)
            try:
                writer.write(chunk)
                await writer.drain()
            except (ConnectionError, OSError):
                break
        try:
            while len(responses) < answers:
                responses.append(await read_response(reader))
        except (HttpClosed, asyncio.IncompleteReadError, ConnectionError, OSError):
            closed = True

    try:
        await asyncio.wait_for(talk(), within)
    except TimeoutError:
        pass
    finally:
        writer.close()
    return Exchange(responses, closed, loop.time() - started)


async def checked(world: World, chunks: list[bytes], answers: int = 1, **options) -> Exchange:
    """``exchange``, with the spray's invariants: no change to the log or the money unless every response
    is a success, no ERROR line, no 5xx without a reason."""
    before = await world.fingerprint()
    errors = len(world.log.errors)
    result = await exchange(world, chunks, answers, **options)
    await asyncio.sleep(0.2)  # a call the server still ran after answering has time to land
    assert not world.log.errors[errors:], world.log.errors[errors]
    for response in result.responses:
        if response.status >= 500:
            assert reason_of(response), (response.status, response.body[:300])
    if not result.responses or any(response.status >= 300 for response in result.responses):
        assert await world.fingerprint() == before, "a refused exchange changed the log or the money"
    return result


def refused_at_once(result: Exchange) -> None:
    """Answered 4xx (not 408: that is the head or body timeout's answer), or the connection closed, within
    AT_ONCE_SECONDS."""
    assert result.seconds < AT_ONCE_SECONDS, f"no answer in {result.seconds:.1f} s"
    assert result.responses or result.closed
    if result.responses:
        status = result.responses[0].status
        assert 400 <= status < 500 and status != 408, result.responses[0]


def request(method: str, target: str, headers: dict[str, str], body: bytes = b"") -> bytes:
    lines = [f"{method} {target} HTTP/1.1", "host: 127.0.0.1", *(f"{k}: {v}" for k, v in headers.items())]
    return ("\r\n".join(lines) + "\r\n\r\n").encode() + body


# -- part 1: request smuggling ----------------------------------------------------------------------------

SIT_OUT = f"/v1/tables/{CHIPS_TABLE}:sitOut"
LOBBY = request("GET", "/v1/tables", {})
CHUNKED_BODY = b"2\r\n{}\r\n0\r\n\r\n"


@pytest.mark.parametrize(("headers", "body"), [
    pytest.param({"content-length": "4", "transfer-encoding": "chunked"}, CHUNKED_BODY, id="cl-and-te"),
    pytest.param({"transfer-encoding": "chunked", "content-length": "4"}, CHUNKED_BODY, id="te-and-cl"),
    pytest.param({"content-length": "2", "Content-Length": "40"}, b"{}", id="two-lengths"),
    pytest.param({"transfer-encoding": "gzip"}, b"{}", id="te-gzip"),
    pytest.param({"transfer-encoding": "chunked, identity"}, CHUNKED_BODY, id="te-chunked-identity"),
    pytest.param({"transfer-encoding": "xchunked"}, CHUNKED_BODY, id="te-xchunked"),
    pytest.param({"content-length": "2, 40"}, b"{}", id="length-list"),
])
async def test_a_request_framed_two_ways_is_refused_before_it_runs(world, headers, body) -> None:
    """Refused at once, and the seat did not sit out: nothing was appended; a pipelined request after it is
    never read as part of it."""
    table_id = f"hz-framing-{uuid.uuid4().hex[:8]}"
    await client(world.channel, "house", Role.OPERATOR).create_table(table_id, table_spec())
    await client(world.channel, PLAYER).sit_down(table_id, 1, 5_000)
    sent = request("POST", f"/v1/tables/{table_id}:sitOut", {
        "authorization": PLAYER_TOKEN, "content-type": "application/json", **headers}, body)
    result = await checked(world, [sent + LOBBY], answers=2)
    refused_at_once(result)
    view = await client(world.channel, PLAYER).view(table_id)
    assert [(seat.player_id, seat.sitting_out) for seat in view.seats if seat.player_id] == [(PLAYER, False)]


# -- part 3: chunks, prefaces, sizes ----------------------------------------------------------------------

@pytest.mark.parametrize("size", [
    pytest.param(b"10000000000000000", id="2^64"),
    pytest.param(b"fffffffffffffffffffffffffffff", id="30-hex-digits"),
    pytest.param(b"-1", id="negative"),
    pytest.param(b"zz", id="not-hex"),
    pytest.param(b"4;" + b"x" * 70_000, id="huge-extension"),
])
async def test_a_bad_chunk_size_is_refused_at_once(world, size) -> None:
    """Answered 4xx (or closed) at once, whatever follows: here a whole chunked body of four bytes."""
    head = request("POST", SIT_OUT, {"authorization": PLAYER_TOKEN, "content-type": "application/json",
                                     "transfer-encoding": "chunked"})
    result = await checked(world, [head + size + b"\r\n{}{}\r\n0\r\n\r\n"])
    refused_at_once(result)


@pytest.mark.parametrize("garbage", [b"\x00garbage\xff" * 20, b"\xff" * 200, b"\x00\x00\x00\x04" * 3],
                         ids=["text", "ones", "settings-on-a-stream"])
async def test_an_h2c_preface_followed_by_garbage_is_closed_at_once(world, garbage) -> None:
    """HTTP/2 with prior knowledge: garbage after the preface ends the connection at once (a GOAWAY or not),
    not when the client gives up."""
    before = await world.fingerprint()
    reader, writer = await asyncio.open_connection("127.0.0.1", world.web_port)
    writer.write(b"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n" + garbage)
    try:
        async with asyncio.timeout(AT_ONCE_SECONDS):  # read to the end: the server closes
            while await reader.read(65_536):
                pass
    finally:
        writer.close()
    assert await world.fingerprint() == before


async def test_headers_over_the_limit_get_the_error_body_every_refusal_has(world) -> None:
    result = await checked(world, [request("GET", "/v1/tables", {"x-padding": "p" * 100_000})])
    refused_at_once(result)
    assert result.responses and reason_of(result.responses[0]), result.responses[:1]


async def test_a_declared_length_over_the_limit_is_refused_at_once(world) -> None:
    head = request("POST", SIT_OUT, {"authorization": PLAYER_TOKEN, "content-type": "application/json",
                                     "content-length": str(10 * 2**30)})
    result = await checked(world, [head + b"{" * 1024])
    refused_at_once(result)
    assert result.responses and reason_of(result.responses[0]) == "REQUEST_TOO_LARGE", result.responses[:1]


async def test_a_body_or_headers_that_stop_arriving_are_cut_with_a_reason(world) -> None:
    """A body 1 byte of its 100, and headers trickling a byte a second, at once: each is cut within the
    bound, a body with 408 and a reason (headers may be cut by closing)."""
    head = request("POST", SIT_OUT, {"authorization": PLAYER_TOKEN, "content-type": "application/json",
                                     "content-length": "100"})
    trickle = [b"GET /v1/tables HTTP/1.1\r\nhost: 127.0.0.1\r\n", *(b"x" for _ in range(30))]
    body, headers = await asyncio.gather(
        checked(world, [head + b"{"], within=CUT_WITHIN_SECONDS),
        checked(world, trickle, pause=1.0, within=CUT_WITHIN_SECONDS),
    )
    assert body.responses and body.responses[0].status == 408 and reason_of(body.responses[0]), body
    assert headers.seconds < CUT_WITHIN_SECONDS and (headers.closed or headers.responses), headers


# -- pipelining, request lines, paths ---------------------------------------------------------------------

async def test_pipelined_requests_are_answered_in_order_a_refusal_among_them(world) -> None:
    bad = request("POST", SIT_OUT, {"authorization": PLAYER_TOKEN, "content-type": "application/json",
                                    "content-length": "1"}, b"{")
    result = await checked(world, [LOBBY + bad + LOBBY + request("GET", f"/v1/tables/{MONEY_TABLE}", {})],
                           answers=4)
    assert [response.status for response in result.responses] == [200, 400, 200, 200], result
    assert json.loads(result.responses[3].body)["name"] == f"tables/{MONEY_TABLE}"


@pytest.mark.parametrize("data", [
    b"\x16\x03\x01\x02\x00\x01\x00\x01\xfc\x03\x03" + bytes(range(200)),  # a TLS hello on a plaintext port
    b"GET /v1/tables HTTP/2.0\r\nhost: x\r\n\r\n",
    b"GET /v1/tables HTTP/1.1\r\n\r\n",  # no Host
    b"G\x00T /v1/tables HTTP/1.1\r\nhost: x\r\n\r\n",
    b"GET /v1/tables\x00 HTTP/1.1\r\nhost: x\r\n\r\n",
    b"GET /v1/tables HTTP/1.1\r\nhost: x\r\nbad header\r\n\r\n",
    b"GET /v1/tables HTTP/1.1\r\nhost: x\r\nx-a: \xff\xfe\r\n\r\n",
    b"BREW /v1/tables HTTP/1.1\r\nhost: x\r\n\r\n",
    b"GET * HTTP/1.1\r\nhost: x\r\n\r\n",
    b"GET http://elsewhere.example/v1/tables HTTP/1.1\r\nhost: x\r\n\r\n",
    b"\r\n\r\n\r\n",
], ids=["tls-hello", "http-2.0-line", "no-host", "nul-in-method", "nul-in-target", "header-without-colon",
        "header-not-utf8", "unknown-method", "asterisk", "absolute-form", "blank-lines"])
async def test_a_malformed_request_line_or_header_is_refused_without_a_5xx(world, data) -> None:
    result = await checked(world, [data])
    assert result.seconds < AT_ONCE_SECONDS and (result.responses or result.closed), result


@pytest.mark.parametrize("target", [
    "/v1/../v1/tables", f"/v1/tables/{CHIPS_TABLE}/../{MONEY_TABLE}:view",
    f"/v1/tables/%2e%2e/{MONEY_TABLE}:view",
    f"/v1/tables/{CHIPS_TABLE}%2F..%2F{MONEY_TABLE}:view", "//v1/tables", "/v1/tables/%00:view",
    "/v1/tables/%ff%fe:view", "/v1/tables/" + "%2F" * 1000 + ":view", "/v1/tables/a:view:view",
    "/%2e%2e/%2e%2e/etc/passwd", "/stud.v1.TableService/../stud.v1.TableService/GetTable",
])
async def test_path_tricks_are_refused_or_served_as_written_never_a_5xx(world, target) -> None:
    result = await checked(world, [request("GET", target, {"authorization": PLAYER_TOKEN})])
    assert result.responses, result
    response = result.responses[0]
    if response.status >= 400:  # 501 UNKNOWN_ROUTE is Connect's status for a path no method has
        assert reason_of(response), (response.status, response.body[:200])


# -- a field bound in the path, again in the query or the body (generated from the routes) ------------------

# For each kind of name a route binds: the one its path names, and another the query or body names.
BOUND_NAMES = {
    "tables/*": (f"tables/{CHIPS_TABLE}", f"tables/{MONEY_TABLE}"),
    "tables/*/hands/*": (f"tables/{PLAYED_TABLE}/hands/1", f"tables/{MONEY_TABLE}/hands/1"),
    "players/*/accounts/*": (f"players/{PLAYER}/accounts/USD", "players/bob/accounts/USD"),
    "players/*": ("players/dora", "players/bob"),
    "tournaments/*": (f"tournaments/{TOURNAMENT}", "tournaments/hz-other-cup"),
}


def path_bound_cases() -> list[tuple[str, str, str, bytes | None]]:
    """(name, HTTP method, target, body) for each route with a path variable: the path names one table (or
    hand, account, player), the query or the body names another."""
    cases = []
    for service in STUD_SERVICES:
        for method in service.methods:
            rule = method.GetOptions().Extensions[annotations_pb2.http]
            kind = rule.WhichOneof("pattern")
            template = getattr(rule, kind) if kind not in (None, "custom") else ""
            bound = re.search(r"\{([a-z_]+)=([^}]*)\}", template)
            if bound is None:
                continue
            own, other = BOUND_NAMES[bound.group(2)]
            path = template.replace(bound.group(0), own)
            if rule.body == "*":
                body = json.dumps({bound.group(1): other}).encode()
                cases.append((f"{method.name}-body", kind.upper(), path, body))
            else:
                cases.append((f"{method.name}-query", kind.upper(), f"{path}?{bound.group(1)}={other}", None))
    return cases


async def test_a_field_bound_in_the_path_is_refused_in_the_query_or_body(world) -> None:
    """So that rules written against paths in a proxy or a WAF mean what they say: 400, nothing changed."""
    served = []
    for name, http_method, target, body in path_bound_cases():
        headers = {"authorization": OPERATOR_TOKEN, "content-type": "application/json"}
        result = await checked(world, [request(http_method, target, headers | (
            {"content-length": str(len(body))} if body is not None else {}), body or b"")])
        status = result.responses[0].status if result.responses else None
        if status != 400 or reason_of(result.responses[0]) != "MALFORMED_REQUEST":
            served.append((name, status))
    assert not served, served
