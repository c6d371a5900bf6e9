"""Every method of the API over the web port with a real Connect client (connectrpc's ConnectClient on
pyqwest), against the whole service on a real PostgreSQL: JSON and binary, HTTP/1.1 and HTTP/2, Connect
and gRPC-Web.

The methods come from the services' descriptors, so a new RPC fails ``test_every_method_has_a_call``
until it has a call in tests/web_calls.py. No method is marked ``idempotency_level = NO_SIDE_EFFECTS`` in
the protos, so Connect's GET form serves none of them (``test_connect_get_...`` says so, and fails the
day one is marked, so that its GET gets a test).
"""

from __future__ import annotations

import asyncio

import pytest
from connectrpc.code import Code
from connectrpc.errors import ConnectError
from connectrpc.protocol import ProtocolType
from google.rpc import error_details_pb2
from web_calls import BUY_IN, CALLS, seated
from web_fixtures import METHODS, ConnectCaller, WebWorld, bearer, method_named

from stud_service.server.proto_gen import table_service_pb2
from stud_service.server.web.connect import method_info

CODECS = ("json", "proto")
METHOD_NAMES = [method.name for method in METHODS]
PROTOCOLS = [ProtocolType.CONNECT, ProtocolType.GRPC_WEB]


def test_every_method_has_a_call() -> None:
    assert sorted(CALLS) == sorted(METHOD_NAMES)
    assert not [m.full_name for m in METHODS if m.client_streaming], "client streaming needs its own tests"


@pytest.mark.parametrize("codec", CODECS)
@pytest.mark.parametrize("name", METHOD_NAMES)
async def test_each_method_answers_over_connect(web_world: WebWorld, name: str, codec: str) -> None:
    await CALLS[name](web_world, ConnectCaller(web_world.base_url, codec))


@pytest.mark.parametrize("codec", CODECS)
@pytest.mark.parametrize("name", ["GetTableView", "Act", "SitDown", "VerifyShuffle", "Deposit", "WatchTable"])
async def test_unary_and_streaming_methods_answer_over_grpc_web(
    web_world: WebWorld, name: str, codec: str
) -> None:
    await CALLS[name](web_world, ConnectCaller(web_world.base_url, codec, ProtocolType.GRPC_WEB))


@pytest.mark.parametrize("protocol", PROTOCOLS, ids=["connect", "grpc-web"])
@pytest.mark.parametrize("http2", [False, True], ids=["http1", "http2"])
async def test_a_watch_streams_every_event_in_order_over_http1_and_http2(
    web_world: WebWorld, http2: bool, protocol: ProtocolType
) -> None:
    """A stream that stays open while events come (a bot's seat, a hand's deal ...), and resumes."""
    table_id = await seated(web_world, "alice")
    caller = ConnectCaller(web_world.base_url, "proto", protocol, http2=http2)
    watch = method_named("WatchTable")
    request = table_service_pb2.WatchTableRequest(name=f"tables/{table_id}", after_version=1)
    versions: list[int] = []
    replies = caller.stream(watch, request, bearer("alice")).__aiter__()
    async with asyncio.timeout(15):
        await web_world.grpc_client("bob").sit_down(table_id, 2, BUY_IN)  # two players: a hand is dealt
        while len(versions) < 12:
            reply = await replies.__anext__()
            versions.append(reply.event.version)
    await replies.aclose()  # type: ignore[attr-defined]
    assert versions == list(range(2, 14))
    # The same from a later point: exactly the events after it, as over gRPC.
    resumed = caller.stream(watch, table_service_pb2.WatchTableRequest(
        name=f"tables/{table_id}", after_version=7), bearer("alice")).__aiter__()
    async with asyncio.timeout(15):
        assert [(await resumed.__anext__()).event.version for _ in range(3)] == [8, 9, 10]
    await resumed.aclose()  # type: ignore[attr-defined]


@pytest.mark.parametrize("codec", CODECS)
@pytest.mark.parametrize("protocol", PROTOCOLS, ids=["connect", "grpc-web"])
async def test_a_refusal_carries_the_error_info_over_connect_and_grpc_web(
    web_world: WebWorld, codec: str, protocol: ProtocolType
) -> None:
    table_id = await seated(web_world, "alice")
    head = await web_world.head(table_id)
    caller = ConnectCaller(web_world.base_url, codec, protocol)
    request = table_service_pb2.SitDownRequest(name=f"tables/{table_id}", seat=1, buy_in=BUY_IN)
    with pytest.raises(ConnectError) as caught:
        await caller.unary(method_named("SitDown"), request, bearer("bob"))
    assert caught.value.code == Code.FAILED_PRECONDITION, caught.value
    assert reason_of(caught.value) == "SEAT_TAKEN"
    assert await web_world.head(table_id) == head


def test_connect_get_serves_no_method_as_none_is_marked_side_effect_free() -> None:
    options = [(m.full_name, m.GetOptions()) for m in METHODS]
    safe = [name for name, o in options if o.idempotency_level == o.NO_SIDE_EFFECTS]
    assert safe == [], f"{safe} may now be called with GET: test that"


async def test_connect_get_of_a_method_not_marked_side_effect_free_is_refused_with_a_reason(
    web_world: WebWorld,
) -> None:
    """Not the library's bare 405, which a Connect client can only read as UNKNOWN."""
    caller = ConnectCaller(web_world.base_url, "json")
    with pytest.raises(ConnectError) as caught:
        await caller.client.execute_unary(
            request=table_service_pb2.GetTableViewRequest(name="tables/x"),
            method=method_info(method_named("GetTableView")), headers={"authorization": bearer("alice")},
            use_get=True,
        )
    assert caught.value.code == Code.UNIMPLEMENTED, caught.value
    assert reason_of(caught.value) == "UNKNOWN_ROUTE"


def reason_of(error: ConnectError) -> str:
    infos = [d for d in error.details if d.type_name == "google.rpc.ErrorInfo"]
    assert len(infos) == 1, error
    info = error_details_pb2.ErrorInfo.FromString(infos[0].message_bytes)
    assert info.domain == "stud-service"
    return info.reason
