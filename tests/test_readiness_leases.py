"""Readiness follows the lease rounds too: a replica whose rounds the database refuses, while it answers
everything else, takes no table and deals no hand, so it reports NOT_SERVING once no round has gone
through for a lease period, and SERVING again after the next round that does. Rounds that fail because the
database is away (a failover) are the outage threshold's to judge: the replica stays ready meanwhile."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Awaitable, Callable

import grpc
import psycopg
from grpc_fixtures import TOKEN_SECRET
from grpc_health.v1 import health_pb2, health_pb2_grpc

from stud_service.server.host import ServiceHost, ServiceOptions

LEASE_SECONDS = 2.0
WAIT_SECONDS = 60.0  # generous: a loaded machine


async def health_status(channel: grpc.aio.Channel) -> int:
    request = health_pb2.HealthCheckRequest(service="")
    reply = await health_pb2_grpc.HealthStub(channel).Check(request, timeout=20)
    return reply.status


async def wait_for_status(channel: grpc.aio.Channel, status: int, what: str) -> float:
    started = time.monotonic()
    while await health_status(channel) != status:
        assert time.monotonic() - started < WAIT_SECONDS, f"readiness never {what}"
        await asyncio.sleep(0.1)
    return time.monotonic() - started


async def test_a_replica_whose_lease_rounds_fail_is_not_ready_until_one_goes_through(
    make_database: Callable[..., Awaitable[str]],
) -> None:
    url = await make_database(migrated=True)
    host = ServiceHost(ServiceOptions(
        token_secret=TOKEN_SECRET, database_url=url, listen="127.0.0.1:0", metrics_listen="off",
        web_listen="off", lease_seconds=LEASE_SECONDS, unready_after_seconds=1.0, player_sessions=False,
    ))
    await host.start()
    try:
        async with grpc.aio.insecure_channel(f"127.0.0.1:{host.port}") as channel:
            serving = health_pb2.HealthCheckResponse.SERVING
            not_serving = health_pb2.HealthCheckResponse.NOT_SERVING
            await wait_for_status(channel, serving, "was SERVING at start")
            async with await psycopg.AsyncConnection.connect(url, autocommit=True) as conn:
                # Every lease statement now fails; reads, appends and the readiness probe still go through.
                await conn.execute("ALTER TABLE table_leases RENAME TO table_leases_away")
                took = await wait_for_status(channel, not_serving, "went NOT_SERVING as lease rounds failed")
                assert took >= LEASE_SECONDS / 2, "NOT_SERVING before a lease period without a round"
                assert not host.runtime.store.health.failing()  # the store itself answers
                await conn.execute("ALTER TABLE table_leases_away RENAME TO table_leases")
                await wait_for_status(channel, serving, "came back once a lease round went through")
    finally:
        await host.stop()


async def test_lease_rounds_failing_while_the_database_is_away_leave_the_replica_ready(
    make_database: Callable[..., Awaitable[str]],
) -> None:
    url = await make_database(migrated=True)
    database = psycopg.conninfo.conninfo_to_dict(url)["dbname"]
    host = ServiceHost(ServiceOptions(
        token_secret=TOKEN_SECRET, database_url=url, listen="127.0.0.1:0", metrics_listen="off",
        web_listen="off", lease_seconds=LEASE_SECONDS, unready_after_seconds=600.0, player_sessions=False,
    ))
    await host.start()
    admin = psycopg.conninfo.make_conninfo(url, dbname="postgres")
    try:
        async with grpc.aio.insecure_channel(f"127.0.0.1:{host.port}") as channel, \
                await psycopg.AsyncConnection.connect(admin, autocommit=True) as conn:
            serving = health_pb2.HealthCheckResponse.SERVING
            await wait_for_status(channel, serving, "was SERVING at start")
            # The database away: no new connection, every open one cut.
            await conn.execute(f'ALTER DATABASE "{database}" WITH ALLOW_CONNECTIONS false')
            await conn.execute("SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = %s",
                               (database,))
            started = time.monotonic()
            while time.monotonic() - started < 4 * LEASE_SECONDS:  # every lease round fails meanwhile
                assert await health_status(channel) == serving, "NOT_SERVING while the database was away"
                await asyncio.sleep(0.2)
            await conn.execute(f'ALTER DATABASE "{database}" WITH ALLOW_CONNECTIONS true')
            back = time.monotonic()
            while time.monotonic() - back < 2 * LEASE_SECONDS:  # back: the next rounds go through
                assert await health_status(channel) == serving, "NOT_SERVING once the database was back"
                await asyncio.sleep(0.2)
    finally:
        await host.stop()
