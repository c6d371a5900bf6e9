"""Failover of table ownership with real ``serve`` processes on one PostgreSQL (docs/deployment.md,
"Ownership"): the owner of a table is SIGKILLed, or SIGSTOPped past its lease and woken; the other replica
takes the lease once it expires, re-arms the clocks from the log and play goes on there; the woken stale
owner fires no clock and deals nothing (its own appends are fenced) and gives the table up. Every hand
verifies and every chip is accounted for."""

from __future__ import annotations

import asyncio
import contextlib
import json
import signal
import time
from collections.abc import AsyncIterator, Awaitable, Callable, Sequence
from dataclasses import dataclass

import grpc
import pytest
from grpc_fixtures import TOKEN_SECRET, ServerProcess, table_spec
from psycopg_pool import AsyncConnectionPool
from scaleout_play import (
    LoggedTable,
    Replica,
    SeatDriver,
    check_hands_and_chips,
    raise_a_failure,
    stop_clients,
)
from sealing_keys import sealed_store

from stud_service.auth import Role, mint_token
from stud_service.bots import StudClient
from stud_service.db import open_pool
from stud_service.server.tables.live import stream_id_for
from stud_service.store import EventStore

LEASE_SECONDS = 4  # takeovers come within the test; a loaded machine does not stall an owner past it
ACTION_CLOCK = 2
BUY_IN = 40_000
WAIT_SECONDS = 60
TABLE = "t-own"
A, B = 0, 1


def replica_id(server: ServerProcess) -> str:
    return server.replica_id()


async def lease(pool: AsyncConnectionPool, table_id: str) -> tuple[str, int] | None:
    async with pool.connection() as conn:
        cur = await conn.execute(
            "SELECT owner, epoch FROM table_leases WHERE stream_id = %s", (stream_id_for(table_id),)
        )
        row = await cur.fetchone()
    return None if row is None else (str(row[0]), int(row[1]))


async def wait_until(
    condition: Callable[[], Awaitable[bool]],
    what: str,
    servers: Sequence[ServerProcess] = (),
    seconds: float = WAIT_SECONDS,
) -> None:
    """Wait for ``condition``; on timeout, fail with the warnings and errors the ``servers`` logged."""
    deadline = asyncio.get_running_loop().time() + seconds
    while not await condition():
        if asyncio.get_running_loop().time() > deadline:
            logged = [
                f"{n}: {line}"
                for n, server in enumerate(servers)
                for line in server.log_text().splitlines()
                if '"WARNING"' in line or '"ERROR"' in line
            ]
            raise AssertionError(f"timed out waiting until {what}; logged:\n" + "\n".join(logged[-20:]))
        await asyncio.sleep(0.05)


def owners_event(payload: dict) -> bool:
    """Whether only a table's owner writes this event: a deal, a seed commitment, a timeout."""
    kind = payload["type"]
    return kind in ("HandStarted", "ShuffleCommitted") or (kind == "PlayerActed" and payload["timeout"])


@dataclass
class Cluster:
    servers: list[ServerProcess]
    replicas: list[Replica]
    pool: AsyncConnectionPool
    store: EventStore
    table: LoggedTable
    tasks: list[asyncio.Task[None]]

    async def refresh(self) -> None:
        await self.table.refresh(self.store)
        raise_a_failure(self.tasks)  # a bot failed on a live replica


@contextlib.asynccontextmanager
async def two_replicas_one_table(
    spawn_server: Callable[..., Awaitable[ServerProcess]], database: str, silent_on_a: bool
) -> AsyncIterator[Cluster]:
    """Replicas A and B; a table created on A (so A owns it) with three bots playing through B, and with
    ``silent_on_a`` a fourth seat played through A that goes silent when A dies (its clock must fire at B).
    Without it, B's clients claim the table and A hands it over (docs/deployment.md, "Ownership")."""
    lease_flag = ("--lease-seconds", str(LEASE_SECONDS))
    first = await spawn_server(database, *lease_flag)
    pool = await open_pool(database, max_size=4)
    store = sealed_store(pool)
    channels = [grpc.aio.insecure_channel(first.address)]
    tasks: list[asyncio.Task[None]] = []
    try:
        operator = StudClient(channels[A], mint_token(TOKEN_SECRET, "house", Role.OPERATOR))
        await operator.create_table(TABLE, table_spec(action_clock=ACTION_CLOCK))
        # B starts once A holds the new table's lease: else B's first round could take it before A does.
        servers = [first, await spawn_server(database, *lease_flag)]
        channels.append(grpc.aio.insecure_channel(servers[B].address))
        replicas = [
            Replica(name, channel, lambda server=server: server.process.poll() is None)
            for name, channel, server in zip("AB", channels, servers, strict=True)
        ]
        seats = {1: B, 2: B, 3: B, **({4: A} if silent_on_a else {})}
        for seat, start in seats.items():
            token = mint_token(TOKEN_SECRET, f"p{seat}")
            await StudClient(channels[start], token).sit_down(TABLE, seat, BUY_IN)
            driver = SeatDriver(
                TABLE, seat, token, replicas, start, seed=seat, silent_after_failure=start == A
            )
            tasks.append(asyncio.create_task(driver.drive()))
        yield Cluster(servers, replicas, pool, store, LoggedTable(TABLE), tasks)
    finally:
        await stop_clients(tasks, channels)
        await store.close()
        await pool.close()


@pytest.fixture
async def database(make_database) -> str:
    return await make_database(migrated=True)


@pytest.mark.long
async def test_the_owner_is_killed_and_the_other_replica_takes_the_table_on(
    spawn_server: Callable[..., Awaitable[ServerProcess]], database: str
) -> None:
    async with two_replicas_one_table(spawn_server, database, silent_on_a=True) as cluster:
        a, b = (replica_id(server) for server in cluster.servers)
        assert await lease(cluster.pool, TABLE) == (a, 1)  # taken by the replica that created it

        async def played_on_a() -> bool:
            await cluster.refresh()
            silent = cluster.table.state.seats.get(4)
            return len(cluster.table.hands_ended()) >= 2 and silent is not None and not silent.sitting_out

        await wait_until(played_on_a, "two hands were played with A as the owner")
        # Both replicas have clients at the table, B's not clearly more (three seats to one): over many
        # rounds and hands the table stays where it is, never handed back and forth.
        await asyncio.sleep(3 * LEASE_SECONDS)
        await cluster.refresh()
        more = len(cluster.table.hands_ended()) + 2

        async def more_hands() -> bool:
            await cluster.refresh()
            return len(cluster.table.hands_ended()) >= more

        await wait_until(more_hands, "two more hands, each a chance to hand the table over between hands")
        assert await lease(cluster.pool, TABLE) == (a, 1)
        cluster.servers[A].kill()  # SIGKILL: no release, the lease must expire (A is an interested owner)
        killed = time.time()
        await cluster.refresh()
        killed_at = cluster.table.version

        async def carried_on_at_b() -> bool:
            await cluster.refresh()
            after = cluster.table.payloads[killed_at:]
            return (
                any(p["type"] == "PlayerActed" and p["timeout"] and p["seat"] == 4 for p in after)
                and any(p["type"] == "HandStarted" for p in after)
                and len(cluster.table.after(killed_at, "HandEnded")) >= 2
            )

        # Generous: a loaded machine slows each of the new owner's steps (lease expiry, load, clock, deals).
        await wait_until(
            carried_on_at_b,
            "B timed out the silent seat, dealt and ended two hands",
            cluster.servers,
            seconds=2 * WAIT_SECONDS,
        )
        assert await lease(cluster.pool, TABLE) == (b, 2)
        # The first of the owner's own events after the kill (players' actions are written by B all along).
        stored = await cluster.store.read_stream(stream_id_for(TABLE), after_version=killed_at)
        first_by_owner = next(e for e in stored if owners_event(e.payload))
        taken_after = first_by_owner.recorded_at.timestamp() - killed
        print(f"first event by the new owner {taken_after:.2f} s after SIGKILL")
        await check_hands_and_chips(cluster.store, cluster.table)


async def test_a_paused_owner_wakes_up_fenced_and_writes_nothing(
    spawn_server: Callable[..., Awaitable[ServerProcess]], database: str
) -> None:
    # Seat 4 is played through A, so A has clients too and keeps the table (B's are not clearly more).
    async with two_replicas_one_table(spawn_server, database, silent_on_a=True) as cluster:
        a, b = (replica_id(server) for server in cluster.servers)
        assert await lease(cluster.pool, TABLE) == (a, 1)

        async def hands_ended(count: int) -> Callable[[], Awaitable[bool]]:
            async def check() -> bool:
                await cluster.refresh()
                return len(cluster.table.hands_ended()) >= count
            return check

        async def a_owns() -> bool:
            return (await lease(cluster.pool, TABLE) or ("", 0))[0] == a

        await wait_until(await hands_ended(2), "two hands were played with A as the owner")
        # A loaded machine may have stalled A past its lease already (B took it, A's clients took it
        # back): what matters is that A owns it when it is stopped, at whatever epoch.
        await wait_until(a_owns, "A owns the table before it is stopped")
        paused = cluster.servers[A].process
        paused.send_signal(signal.SIGSTOP)  # its connections stay open: only the lease's expiry frees it
        try:
            at_stop = await lease(cluster.pool, TABLE) or ("", 0)  # B's already if A stalled just before
            taken: list[tuple[str, int]] = []

            async def b_owns() -> bool:
                now = await lease(cluster.pool, TABLE)
                if now is not None and now[0] == b and (now[1] > at_stop[1] or at_stop[0] == b):
                    taken.append(now)
                    return True
                return False

            await wait_until(b_owns, "B took the lease of the paused owner")
            await cluster.refresh()
            taken_at = cluster.table.version
            more = await hands_ended(len(cluster.table.hands_ended()) + 2)
            await wait_until(more, "B dealt and ended two hands")
        finally:
            paused.send_signal(signal.SIGCONT)

        async def a_gave_up() -> bool:
            return "lease given up or lost" in cluster.servers[A].log_text()

        await wait_until(a_gave_up, "the woken replica noticed it lost the table")
        await asyncio.sleep(LEASE_SECONDS)  # its timers (dealer, clocks) were due long ago: they have fired
        assert paused.poll() is None  # alive and well, only without the table
        assert await lease(cluster.pool, TABLE) == taken[0]  # B kept it: A never renewed nor retook it
        await cluster.refresh()
        assert cluster.table.version > taken_at
        await check_hands_and_chips(cluster.store, cluster.table)
        errors = [line for line in cluster.servers[A].log_text().splitlines() if '"ERROR"' in line]
        assert not errors, errors[:3]


async def owners(pool: AsyncConnectionPool) -> dict[str, str]:
    """Stream id -> owner of every unexpired lease."""
    async with pool.connection() as conn:
        cur = await conn.execute("SELECT stream_id, owner FROM table_leases WHERE expires_at > now()")
        return {str(stream): str(owner) for stream, owner in await cur.fetchall()}


def leases_taken(server: ServerProcess) -> list[dict]:
    """The "lease taken" log records of a server: each carries the table and, had a hand been running
    when it took the lease, the hand."""
    records = []
    for line in server.log_text().splitlines():
        with contextlib.suppress(ValueError):
            record = json.loads(line)
            if record.get("msg") == "lease taken":
                records.append(record)
    return records


@pytest.mark.long
async def test_tables_follow_their_clients_between_hands_and_unused_ones_rebalance(
    spawn_server: Callable[..., Awaitable[ServerProcess]], database: str
) -> None:
    """Four tables played through A and two nobody uses. B joins: it takes one unused table and none of
    the used ones. Two tables' players move to B: those tables follow them there, between hands. B stops
    gracefully: its players come back to A, and so do its tables."""
    lease_flag = ("--lease-seconds", str(LEASE_SECONDS))
    first = await spawn_server(database, *lease_flag)
    pool = await open_pool(database, max_size=4)
    store = sealed_store(pool)
    channels = [grpc.aio.insecure_channel(first.address)]
    replicas = [Replica("A", channels[A], lambda: first.process.poll() is None)]
    tables = [LoggedTable(f"t-{n}") for n in range(4)]
    unused = [f"t-unused-{n}" for n in range(2)]
    drivers: dict[tuple[str, int], asyncio.Task[None]] = {}

    def play(table_id: str, seat: int, start: int) -> None:
        token = mint_token(TOKEN_SECRET, f"{table_id}-p{seat}")
        driver = SeatDriver(table_id, seat, token, replicas, start, seed=10 * len(drivers) + seat)
        drivers[table_id, seat] = asyncio.create_task(driver.drive())

    try:
        operator = StudClient(channels[A], mint_token(TOKEN_SECRET, "house", Role.OPERATOR))
        for table_id in unused:
            await operator.create_table(table_id, table_spec(action_clock=ACTION_CLOCK))
        for table in tables:
            await operator.create_table(table.table_id, table_spec(action_clock=ACTION_CLOCK))
            for seat in (1, 2):
                token = mint_token(TOKEN_SECRET, f"{table.table_id}-p{seat}")
                await StudClient(channels[A], token).sit_down(table.table_id, seat, BUY_IN)
                play(table.table_id, seat, A)
        a = replica_id(first)
        assert set((await owners(pool)).values()) == {a}  # alone: every table

        second = await spawn_server(database, *lease_flag)
        b = replica_id(second)
        channels.append(grpc.aio.insecure_channel(second.address))
        replicas.append(Replica("B", channels[B], lambda: second.process.poll() is None))

        async def unused_split() -> bool:
            held = await owners(pool)
            return len(held) == 6 and sorted(held[stream_id_for(t)] for t in unused) == sorted([a, b])

        await wait_until(unused_split, "the replica that joined took one of the two unused tables")
        await asyncio.sleep(3 * LEASE_SECONDS)  # many rounds: B has no clients, so none of the used tables
        held = await owners(pool)
        assert [held[stream_id_for(t.table_id)] for t in tables] == [a] * 4
        assert sorted(held[stream_id_for(t)] for t in unused) == sorted([a, b])

        moving = tables[2:]
        for table in moving:  # their players now play through B
            for seat in (1, 2):
                drivers.pop((table.table_id, seat)).cancel()
                play(table.table_id, seat, B)

        async def followed() -> bool:
            held = await owners(pool)
            return [held.get(stream_id_for(t.table_id)) for t in tables] == [a, a, b, b]

        await wait_until(followed, "the tables whose players moved to B were handed over to B")
        for table in tables:
            await table.refresh(store)
        moved_at = {table.table_id: table.version for table in tables}

        async def dealt_by_both() -> bool:
            for table in tables:
                await table.refresh(store)
            return all(len(t.after(moved_at[t.table_id], "HandStarted")) >= 2 for t in tables)

        # Two hands at each of four tables, by the action clock if a driver is slow: generous on a busy host.
        await wait_until(dealt_by_both, "every table dealt two hands since, two of them by B",
                         (first, second), seconds=2 * WAIT_SECONDS)
        taken_at_b = [r for r in leases_taken(second) if r.get("table") in {t.table_id for t in moving}]
        assert {r["table"] for r in taken_at_b} == {t.table_id for t in moving}
        assert all(r.get("hand") is None for r in taken_at_b), taken_at_b  # never taken during a hand

        second.process.send_signal(signal.SIGTERM)  # a graceful stop releases B's leases at once
        await asyncio.to_thread(second.process.wait, 30)
        async with pool.connection() as conn:
            cur = await conn.execute(
                "SELECT count(*) FROM table_leases WHERE owner = %s AND expires_at > now()", (b,)
            )
            assert (await cur.fetchone()) == (0,)
            cur = await conn.execute("SELECT count(*) FROM replicas WHERE replica_id = %s", (b,))
            assert (await cur.fetchone()) == (0,)

        async def all_back_on_a() -> bool:
            held = await owners(pool)
            return len(held) == 6 and set(held.values()) == {a}

        await wait_until(all_back_on_a, "A took back the tables of the replica that left")
        left_at = {table.table_id: table.version for table in tables}
        for table in moving:  # their watch streams ended with B's graceful stop: they reconnect to A
            for seat in (1, 2):
                drivers.pop((table.table_id, seat)).cancel()
                play(table.table_id, seat, A)

        async def dealt_again() -> bool:
            for table in tables:
                await table.refresh(store)
            return all(t.after(left_at[t.table_id], "HandStarted") for t in tables)

        await wait_until(dealt_again, "every table dealt on after B left (its players back on A)")
        for table in tables:
            # Each hand ran under one owner: no hand was cut short by a change of owner.
            await check_hands_and_chips(store, table)
            started = [p["hand"] for p in table.payloads if p["type"] == "HandStarted"]
            assert table.hands_ended() == started[: len(table.hands_ended())]
    finally:
        for task in drivers.values():
            task.cancel()
        await asyncio.gather(*drivers.values(), return_exceptions=True)
        for channel in channels:
            await channel.close()
        await store.close()
        await pool.close()
