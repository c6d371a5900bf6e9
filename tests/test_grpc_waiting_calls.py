"""A burst of calls against a real server on a loopback port: clients reconnecting all at once (after a
restart or a failover, each reopening its watch streams) are all served, not refused.

The asyncio server starts a method's calls one at a time, so a burst waits in gRPC's core; with gRPC's
own limit (1,000 waiting) a share of a burst of 3,000 was refused as CANCELLED. The streams here are
health watches (server streaming, one message at once): they need no database, and the limit is the
server's, whatever the method.
"""

from __future__ import annotations

import asyncio

import grpc
import pytest
from grpc_health.v1 import health_pb2, health_pb2_grpc

from stud_service.bots.client import OWN_CONNECTION
from stud_service.server.grpc.app import DEFAULT_MAX_WAITING_CALLS, start_server, waiting_call_options
from stud_service.server.proto_gen import table_service_pb2_grpc

BURST = 3_000  # watch streams opened at once: a replica's 1,000 tables with three players each
CONNECTIONS = 4


async def _watches_served(max_waiting_calls: int) -> tuple[int, dict[str, int]]:
    """Open BURST health watches at once; how many got their first message, and how the rest ended."""
    running = await start_server(
        table_service_pb2_grpc.TableServiceServicer(), "127.0.0.1:0", max_waiting_calls=max_waiting_calls
    )
    channels = [grpc.aio.insecure_channel(f"127.0.0.1:{running.port}", options=OWN_CONNECTION)
                for _ in range(CONNECTIONS)]
    calls = [health_pb2_grpc.HealthStub(channels[index % CONNECTIONS]).Watch(health_pb2.HealthCheckRequest())
             for index in range(BURST)]
    refused: dict[str, int] = {}

    async def first_message(call: grpc.aio.UnaryStreamCall) -> bool:
        try:
            reply = await call.read()
        except grpc.aio.AioRpcError as error:
            refused[error.code().name] = refused.get(error.code().name, 0) + 1
            return False
        return reply is not grpc.aio.EOF and reply.status == health_pb2.HealthCheckResponse.SERVING

    try:
        served = await asyncio.wait_for(asyncio.gather(*(first_message(call) for call in calls)), 120)
    finally:
        for call in calls:
            call.cancel()
        for channel in channels:
            await channel.close()
        await running.shutdown(0)
    return sum(served), refused


async def test_a_burst_of_reconnecting_watches_is_served_in_full() -> None:
    served, refused = await _watches_served(DEFAULT_MAX_WAITING_CALLS)
    assert (served, refused) == (BURST, {})


async def test_past_the_limit_calls_are_refused_so_the_server_applies_it() -> None:
    """The same burst with a limit far below it: the server refuses some (so the limit above is the one
    in force, and the burst does wait)."""
    served, refused = await _watches_served(50)
    assert served < BURST and sum(refused.values()) == BURST - served, refused


def test_the_waiting_limit_is_passed_to_grpc_with_its_hard_limit() -> None:
    assert waiting_call_options(200) == [
        ("grpc.server.max_pending_requests", 200),
        ("grpc.server.max_pending_requests_hard_limit", 600),
    ]
    with pytest.raises(ValueError):
        waiting_call_options(0)
