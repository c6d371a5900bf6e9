"""The database fails over under play and nothing acknowledged is lost.

Two replicas of the service (child processes) share a Patroni cluster of three PostgreSQL 15 nodes in strict
synchronous mode (tests/patroni_cluster.py), reached as a deployment would: ``DATABASE_URL`` naming the three
hosts with ``target_session_attrs=read-write``. Players play raked USD tables through both replicas and the
cashier takes a deposit every 0.4 s while, one after the other: the primary's postmaster is killed, a planned
switchover runs, the new primary dies right after taking over, and a whole node is lost (its agent and
postmaster). A client retries a call that got UNAVAILABLE (or no answer) with the same request id, on the
other replica. After each fault: every acknowledged Act and Deposit is in the log, no request id is there
twice, every hand verifies, ``audit money`` balances, and every table deals again by itself.
"""

from __future__ import annotations

import asyncio
import contextlib
import random
import time
from collections.abc import AsyncIterator, Awaitable, Callable

import grpc
import pytest
from failover_traffic import Replicas, Traffic, deposit_every, play_seat
from grpc_fixtures import TOKEN_SECRET, ServerProcess, table_spec
from grpc_health.v1 import health_pb2, health_pb2_grpc
from patroni_cluster import PatroniCluster
from scaleout_play import LoggedTable, check_hands_and_chips, raise_a_failure, stop_clients
from sealing_keys import sealed_store

from stud_service.audit.money_log import audit_money
from stud_service.auth import Role, mint_token
from stud_service.bots import StudClient
from stud_service.db import open_pool
from stud_service.server.proto_gen import table_pb2
from stud_service.store import EventStore

pytestmark = pytest.mark.ha

TABLES = ("ha-stud", "ha-razz")
SEATS = 3
DEPOSIT = 200_000
BUY_IN = 20_000
RESUME = 90.0  # the longest a table may take to deal again after a fault (a lost node: the ttl and more)


async def watch_readiness(replicas: Replicas, traffic: Traffic) -> None:
    """Ask each replica's readiness (health service "") twice a second, noting any answer but SERVING: a
    database failover must not take the replicas out of a load balancer's rotation."""
    stubs = [health_pb2_grpc.HealthStub(channel) for channel in replicas.channels]
    while True:
        for index, stub in enumerate(stubs):
            with contextlib.suppress(grpc.aio.AioRpcError):
                answer = await stub.Check(health_pb2.HealthCheckRequest(service=""), timeout=5)
                if answer.status != health_pb2.HealthCheckResponse.SERVING:
                    traffic.not_ready.append(f"replica {index} at {time.strftime('%X')}")
        await asyncio.sleep(0.5)


@contextlib.asynccontextmanager
async def replicas_playing(spawn_server, url: str
                           ) -> AsyncIterator[tuple[list[ServerProcess], Replicas, Traffic]]:
    """Two replicas on ``url``, the tables full and played through both, the cashier depositing."""
    servers = [await spawn_server(url, "--lease-seconds", "3") for _ in range(2)]
    channels = [grpc.aio.insecure_channel(server.address) for server in servers]
    replicas, traffic = Replicas(channels, TOKEN_SECRET), Traffic()
    tasks: list[asyncio.Task[None]] = []
    try:
        operator = StudClient(channels[0], mint_token(TOKEN_SECRET, "house", Role.OPERATOR))
        rake = table_pb2.RakeRule(basis_points=500, cap_2_players=100, cap_3_to_4_players=200,
                                  cap_5_or_more_players=300)
        for index, table_id in enumerate(TABLES):
            variant = table_pb2.VARIANT_SEVEN_CARD_STUD if index == 0 else table_pb2.VARIANT_RAZZ
            spec = table_spec(variant, action_clock=20, play_money=False, currency_code="USD")
            spec.rake.CopyFrom(rake)
            await operator.create_table(table_id, spec)
            for seat in range(1, SEATS + 1):
                player = f"{table_id}-p{seat}"
                await operator.deposit(player, DEPOSIT)
                await StudClient(channels[seat % 2], mint_token(TOKEN_SECRET, player)).sit_down(
                    table_id, seat, BUY_IN)
                tasks.append(asyncio.create_task(
                    play_seat(replicas, traffic, table_id, player, seat, random.Random(f"{table_id}{seat}"))))
        tasks.append(asyncio.create_task(deposit_every(replicas, traffic, 0.4)))
        tasks.append(asyncio.create_task(watch_readiness(replicas, traffic)))
        yield servers, replicas, traffic
        raise_a_failure(tasks)  # a client met a refusal it should not have
    finally:
        await stop_clients(tasks, channels)


async def wait_for_deals(store: EventStore, tables: dict[str, LoggedTable], since: int, fault: str,
                         traffic: Traffic) -> float:
    """Until every table has dealt a hand after ``since`` (its version at the fault); the seconds it took."""
    started = time.monotonic()
    while True:
        with contextlib.suppress(Exception):  # the primary may still be moving
            for table in tables.values():
                await table.refresh(store)
        if all(any(p["type"] == "HandStarted" for p in table.payloads[since:]) for table in tables.values()):
            return time.monotonic() - started
        assert time.monotonic() - started < RESUME, (
            f"after {fault}: a table did not deal again within {RESUME:.0f} s (retries {traffic.reasons})")
        await asyncio.sleep(0.2)


async def check_nothing_lost(store: EventStore, tables: dict[str, LoggedTable], traffic: Traffic,
                             fault: str) -> None:
    keys = traffic.acknowledged_keys()
    async with store.pool.connection() as conn:
        rows = await (await conn.execute(
            "SELECT request_id, count(*) FROM events WHERE request_id = ANY(%s) GROUP BY request_id", (keys,)
        )).fetchall()
        doubled = await (await conn.execute(
            "SELECT stream_id, request_id FROM events WHERE request_id IS NOT NULL"
            " GROUP BY stream_id, request_id HAVING count(*) > 1")).fetchall()
    found = dict(rows)
    missing = [key for key in keys if key not in found]
    assert not missing, f"after {fault}: {len(missing)} of {len(keys)} acknowledged calls are not in the log"
    assert not doubled, f"after {fault}: request ids recorded twice: {doubled[:3]}"
    for table in tables.values():
        await table.refresh(store)
        await check_hands_and_chips(store, table)
    report = await audit_money(store)
    assert report.ok, f"after {fault}: {[str(d) for d in report.discrepancies][:5]}"
    assert report.totals["USD"].difference == 0


@pytest.mark.long
@pytest.mark.timeout(600)
async def test_tables_and_the_cashier_play_through_every_kind_of_database_failover(
    ha_cluster: PatroniCluster, ha_database: str, spawn_server
) -> None:
    pool = await open_pool(ha_database, max_size=2)
    store = sealed_store(pool)
    tables = {table_id: LoggedTable(table_id) for table_id in TABLES}
    resumed: dict[str, float] = {}
    try:
        async with replicas_playing(spawn_server, ha_database) as (servers, replicas, traffic):
            await wait_for_deals(store, tables, 0, "the start", traffic)

            async def fault(name: str, act: Callable[[], Awaitable[None]]) -> None:
                await asyncio.sleep(2.0)  # play under way on the primary
                for table in tables.values():
                    await table.refresh(store)
                since = min(table.version for table in tables.values())
                acts_before = len(traffic.acts)
                await act()
                try:
                    resumed[name] = await wait_for_deals(store, tables, since, name, traffic)
                except AssertionError as error:
                    raise AssertionError(f"{error}\n{ha_cluster.describe()}") from None
                waited = time.monotonic()
                while len(traffic.acts) <= acts_before:  # the players act again too
                    assert time.monotonic() - waited < RESUME, f"no action went in after {name}"
                    await asyncio.sleep(0.2)
                await check_nothing_lost(store, tables, traffic, name)
                assert not traffic.not_ready, f"after {name}: a replica was not ready: {traffic.not_ready}"

            async def kill_postmaster() -> None:
                # Its agent starts it again (crash recovery) and it stays the primary.
                ha_cluster.kill_postmaster(await asyncio.to_thread(ha_cluster.wait_healthy))

            async def lose_node() -> None:
                leader = await asyncio.to_thread(ha_cluster.wait_healthy)
                ha_cluster.lose_node(leader)
                await asyncio.to_thread(ha_cluster.wait_new_leader, leader, RESUME)
                ha_cluster.start_agent(ha_cluster.node(leader))  # it comes back as a standby (pg_rewind)

            # Switchovers start from a whole cluster: one run beside a node still rejoining after its loss
            # (pg_rewind) sometimes left no leader for over a minute (Patroni answered 503), so the node loss
            # comes last.
            async def switchover() -> None:
                leader = await asyncio.to_thread(ha_cluster.wait_healthy, RESUME)
                await asyncio.to_thread(ha_cluster.switchover, leader)

            async def new_primary_dies() -> None:
                # A switchover, and the new primary's postmaster killed as soon as it has taken over (its
                # agent restarts it; the old primary, demoted cleanly, is its synchronous standby again).
                leader = await asyncio.to_thread(ha_cluster.wait_healthy, RESUME)
                await asyncio.to_thread(ha_cluster.switchover, leader)
                new_leader = await asyncio.to_thread(ha_cluster.wait_new_leader, leader, RESUME)
                ha_cluster.kill_postmaster(new_leader)

            await fault("the primary's postmaster killed", kill_postmaster)
            await fault("a switchover", switchover)
            await fault("the new primary dying as it took over", new_primary_dies)
            await fault("a node lost", lose_node)
        for server in servers:
            assert server.process.poll() is None, "a replica died"
            errors = [line for line in server.log_text().splitlines()
                      if " ERROR " in line or '"ERROR"' in line]
            assert not errors, "\n".join(line[:1500] for line in errors[:5])
        assert len(traffic.deposits) > 10 and len(traffic.acts) > 20
        print(f"resumed after: {resumed}; {len(traffic.acts)} acts, {len(traffic.deposits)} deposits, "
              f"{traffic.retries} retries {traffic.reasons}")
    finally:
        await pool.close()
