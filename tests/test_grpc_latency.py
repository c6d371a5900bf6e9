"""The latency meter (GLI-19): every view carries the server's measure of the round trip to its caller. On
the gRPC port the kernel's measure of the client's TCP connection; on the web port the round trip of the
watch's heartbeats, which the client answers (AnswerHeartbeat)."""

from __future__ import annotations

import asyncio
import socket
from typing import Any

import grpc
import pytest
from grpc_fixtures import wait_for_view

from stud_service.bots.client import error_reason
from stud_service.server.latency.tcp import TcpRoundTrips, parse_peer
from stud_service.server.proto_gen import table_pb2

WAIT = 60.0


async def heartbeat(stream: Any, timeout: float = WAIT) -> Any:
    async def read() -> Any:
        async for message in stream:
            if message.HasField("heartbeat"):
                return message.heartbeat
        raise AssertionError("the watch ended")

    return await asyncio.wait_for(read(), timeout)


async def test_every_view_on_the_grpc_port_carries_the_tcp_round_trip(new_table, make_player) -> None:
    table_id = await new_table()
    alice = make_player("alice")
    seated = await alice.sit_down(table_id, 1, 5_000)
    view = await alice.view(table_id)
    for carried in (seated, view):
        assert carried.round_trip.source == table_pb2.ROUND_TRIP_SOURCE_TCP
        assert 0 < carried.round_trip.time.ToMicroseconds() < 1_000_000  # loopback: well under a second
        assert carried.round_trip.HasField("measure_time")
    stream = alice.watch(table_id)
    first = await asyncio.wait_for(anext(aiter(stream)), WAIT)
    assert first.view.round_trip.source == table_pb2.ROUND_TRIP_SOURCE_TCP
    stream.cancel()


@pytest.mark.parametrize("transport", ["connect-json"])
async def test_the_web_port_measures_by_answered_heartbeats(new_table, make_player) -> None:
    """A quiet watch's heartbeat carries a ping; its answer gives the round trip, which the caller's views
    then carry (and the next heartbeat too); a ping is answered once, by its own caller, for its table."""
    table_id = await new_table()
    alice, bob = make_player("alice"), make_player("bob")
    await alice.sit_down(table_id, 1, 5_000)
    stream = alice.watch(table_id, heartbeat_seconds=1)
    beat = await heartbeat(stream)
    assert beat.ping
    for stranger, table in ((bob, table_id), (alice, "t-elsewhere")):
        with pytest.raises(grpc.aio.AioRpcError) as refused:
            await stranger.answer_heartbeat(table, beat.ping)
        assert refused.value.code() == grpc.StatusCode.NOT_FOUND
        assert error_reason(refused.value) in ("PING_NOT_FOUND", "NO_TABLE")
    answered = await alice.answer_heartbeat(table_id, beat.ping)
    assert answered.round_trip.source == table_pb2.ROUND_TRIP_SOURCE_HEARTBEAT
    assert 0 < answered.round_trip.time.ToMicroseconds() < 10_000_000
    with pytest.raises(grpc.aio.AioRpcError) as again:
        await alice.answer_heartbeat(table_id, beat.ping)
    assert error_reason(again.value) == "PING_NOT_FOUND"
    view = await alice.view(table_id)
    assert view.round_trip == answered.round_trip
    assert (await heartbeat(stream)).round_trip == answered.round_trip
    stream.cancel()
    # Before any answer, a web caller's view has the kernel's measure of its HTTP connection (once the
    # replica's next look at its connections, at most a second on, has seen it).
    await wait_for_view(bob, table_id, lambda v: v.round_trip.source == table_pb2.ROUND_TRIP_SOURCE_TCP)


@pytest.mark.parametrize("transport", ["grpc", "connect-json"])
async def test_a_forged_ping_is_not_found(new_table, make_player) -> None:
    table_id = await new_table()
    with pytest.raises(grpc.aio.AioRpcError) as refused:
        await make_player("alice").answer_heartbeat(table_id, "made-up")
    assert refused.value.code() == grpc.StatusCode.NOT_FOUND
    assert error_reason(refused.value) == "PING_NOT_FOUND"
    with pytest.raises(grpc.aio.AioRpcError) as refused:
        await make_player("alice").answer_heartbeat(table_id, "x" * 65)
    assert error_reason(refused.value) == "MALFORMED_REQUEST"


def test_grpc_peers_are_read_as_grpc_writes_them() -> None:
    assert parse_peer("ipv4:10.0.0.7:51234").port == 51234
    assert str(parse_peer("ipv6:[::1]:443").address) == "::1"
    assert str(parse_peer("ipv6:%5B::ffff:127.0.0.1%5D:80").address) == "::ffff:7f00:1"
    assert parse_peer("unix:/tmp/socket") is None and parse_peer("ipv4:nonsense") is None


@pytest.mark.parametrize("family", [socket.AF_INET, socket.AF_INET6])
def test_a_connection_is_found_by_the_peer_string_grpc_gives_it(family: int) -> None:
    """The kernel's measure of a loopback connection, looked up as gRPC names its client: an IPv4 client of a
    dual-stack (IPv6) listener too, which the kernel holds as ::ffff:a.b.c.d and gRPC names ipv4."""
    host = "::" if family == socket.AF_INET6 else "127.0.0.1"
    with socket.socket(family) as listener:
        listener.bind((host, 0))
        listener.listen()
        with socket.create_connection(("127.0.0.1", listener.getsockname()[1])) as client:
            accepted, _ = listener.accept()
            with accepted:
                address, port = client.getsockname()
                meter = TcpRoundTrips()
                measured = meter.round_trip_us(f"ipv4:{address}:{port}")
                assert measured is not None and 0 < measured < 1_000_000
                assert meter.round_trip_us(f"ipv4:{address}:{port}") == measured  # the parse kept
                assert meter.round_trip_us("unix:/tmp/socket") is None
