"""Scale-out (DESIGN.md "Running at scale"): three replicas on one PostgreSQL under a bot load on several
tables, each table owned by one of them (docs/deployment.md "Ownership"); one replica is killed (SIGKILL)
in the middle of play; once its leases expire the others take its tables and carry on every table, the
dealer and action clocks included (RULES.md §7: a player who stops acting is timed out), even a table
that none of its own clients ever asked about; afterwards every hand verifies (chain, shuffle, replay,
chips) and every chip is accounted for."""

from __future__ import annotations

import asyncio
import contextlib
import signal
from collections.abc import Awaitable, Callable
from typing import TypeVar

import grpc
import pytest
from grpc_fixtures import TOKEN_SECRET, ServerProcess, table_spec
from scaleout_play import LoggedTable, Replica, SeatDriver, check_hands_and_chips, raise_a_failure
from sealing_keys import sealed_store

from stud_service.auth import Role, mint_token
from stud_service.bots import StudClient
from stud_service.db import open_pool
from stud_service.server.proto_gen import table_pb2

TABLES = 8
REPLICAS = 3
LEASE_SECONDS = 2  # short: the killed replica's tables are taken over within the test
SEATS = (1, 2, 3)
VARIANTS = (
    table_pb2.VARIANT_SEVEN_CARD_STUD,
    table_pb2.VARIANT_STUD_HI_LO,
    table_pb2.VARIANT_RAZZ,
)
ACTION_CLOCK = 2  # seconds: short, so the silent player's clock fires within the test
BUY_IN = 40_000  # the maximum: a bot cannot go broke in the few hands played here
TOP_UP_BUY_IN, TOP_UP = 30_000, 10_000
HANDS_BEFORE_KILL = 2  # per table
HANDS_AFTER_KILL = 2  # per table, ended by the surviving replicas
WAIT_SECONDS = 120  # generous: a loaded 2-core machine runs the database, two servers and the bots

T = TypeVar("T")
A, B = 0, 1
SILENT = ("t0", 3)  # on replica A; stops acting when A dies, so its table's new owner must time it out
TOPPED_UP = ("t2", 1)  # buys in short and tops up before the table starts
LEAVER = ("t3", 1)  # on replica B; leaves after the kill (a cash-out the books must show)
# Played only through A, and both its players go silent when A dies: B learns of it from the log alone.
LONELY, LONELY_SEATS, LONELY_CLOCK = "t5", (1, 2), 1


@pytest.fixture
async def database(make_database) -> str:
    return await make_database(migrated=True)


async def wait_until(
    condition: Callable[[], Awaitable[bool]], what: str, timeout: float = WAIT_SECONDS
) -> None:
    """Poll ``condition`` until it holds; fail naming ``what`` after ``timeout`` seconds."""
    deadline = asyncio.get_running_loop().time() + timeout
    while not await condition():
        if asyncio.get_running_loop().time() > deadline:
            raise AssertionError(f"timed out waiting until {what}")
        await asyncio.sleep(0.05)


async def within(call: Awaitable[T]) -> T:
    """Every call the test itself makes has a deadline: a replica that hangs must fail the test."""
    return await asyncio.wait_for(call, WAIT_SECONDS)


def hands_due_after_kill(table_id: str) -> int:
    # The lonely table's players all went silent: its running (or next) hand is its last.
    return 1 if table_id == LONELY else HANDS_AFTER_KILL


def replica_of(table: int, seat: int) -> int:
    """Spread every table's players over the replicas."""
    return (table + seat) % REPLICAS


@pytest.mark.long
async def test_a_replica_dies_mid_hand_and_the_others_carry_on_every_table(
    spawn_server: Callable[..., Awaitable[ServerProcess]], database: str
) -> None:
    servers = [await spawn_server(database, "--lease-seconds", str(LEASE_SECONDS)) for _ in range(REPLICAS)]
    pool = await open_pool(database, max_size=4)
    store = sealed_store(pool)  # reads what the replicas sealed
    channels = [grpc.aio.insecure_channel(server.address) for server in servers]
    replicas = [
        Replica(name, channel, lambda server=server: server.process.poll() is None)
        for name, channel, server in zip("ABC", channels, servers, strict=True)
    ]
    tables = {f"t{t}": LoggedTable(f"t{t}") for t in range(TABLES)}
    drivers: list[SeatDriver] = []
    tasks: list[asyncio.Task[None]] = []
    try:
        operator = StudClient(channels[A], mint_token(TOKEN_SECRET, "house", Role.OPERATOR))
        for t, table_id in enumerate(tables):
            lonely = table_id == LONELY
            clock = LONELY_CLOCK if lonely else ACTION_CLOCK
            spec = table_spec(variant=VARIANTS[t % len(VARIANTS)], action_clock=clock)
            await within(operator.create_table(table_id, spec))
            for seat in LONELY_SEATS if lonely else SEATS:
                player = f"{table_id}-p{seat}"
                token = mint_token(TOKEN_SECRET, player)
                start = A if lonely else replica_of(t, seat)
                driver = SeatDriver(
                    table_id, seat, token, replicas, start, seed=100 * t + seat,
                    silent_after_failure=lonely or (table_id, seat) == SILENT,
                )
                client = StudClient(channels[start], token)
                if (table_id, seat) == TOPPED_UP:
                    await within(client.sit_down(table_id, seat, TOP_UP_BUY_IN))
                    await within(client.top_up(table_id, TOP_UP))  # alone at the table: no hand runs yet
                else:
                    await within(client.sit_down(table_id, seat, BUY_IN))
                drivers.append(driver)
        assert replica_of(0, SILENT[1]) == A and replica_of(3, LEAVER[1]) == B
        tasks = [asyncio.create_task(driver.drive()) for driver in drivers]
        silent = [d for d in drivers if d.silent_after_failure]
        moved = [d for d in drivers if d.start == A and not d.silent_after_failure]

        async def refreshed() -> None:
            for table in tables.values():
                await table.refresh(store)
            raise_a_failure(tasks)  # a bot failed on a live replica

        async def warmed_up_and_mid_hand() -> bool:
            await refreshed()
            return (
                all(len(table.hands_ended()) >= HANDS_BEFORE_KILL for table in tables.values())
                and sum(table.mid_hand() for table in tables.values()) >= 2
                # A silent player already sitting out would never be timed out again.
                and not any(tables[d.table_id].state.seats[d.seat].sitting_out for d in silent)
            )

        await wait_until(warmed_up_and_mid_hand, f"every table played {HANDS_BEFORE_KILL} hands")
        servers[A].kill()  # SIGKILL: replica A runs no shutdown code
        await refreshed()
        killed_at = {table_id: table.version for table_id, table in tables.items()}
        running_at_kill = [table_id for table_id, table in tables.items() if table.state.hand is not None]
        assert running_at_kill, "the kill was meant to land in the middle of hands"

        async def leave_on_b() -> None:
            leaver = StudClient(channels[B], mint_token(TOKEN_SECRET, f"{LEAVER[0]}-p{LEAVER[1]}"))
            await leaver.leave(LEAVER[0])

        await within(leave_on_b())

        def timed_out_after_kill(driver: SeatDriver) -> bool:
            acted = tables[driver.table_id].after(killed_at[driver.table_id], "PlayerActed")
            return any(p["timeout"] and p["seat"] == driver.seat for p in acted)

        async def survivor_carried_on() -> bool:
            await refreshed()
            return (
                all(
                    len(table.after(killed_at[table_id], "HandEnded")) >= hands_due_after_kill(table_id)
                    for table_id, table in tables.items()
                )
                and all(timed_out_after_kill(d) for d in silent if d.table_id != LONELY)
                and any(timed_out_after_kill(d) for d in silent if d.table_id == LONELY)
                and bool(tables[LEAVER[0]].after(killed_at[LEAVER[0]], "PlayerLeft"))
                and all(driver.actions_since_failover > 0 for driver in moved)
            )

        await wait_until(
            survivor_carried_on,
            f"the survivors ended {HANDS_AFTER_KILL} hands at every table (the lonely one: 1), timed out the"
            " silent players, let a player leave and every bot from A acted on B",
        )
    finally:
        for task in tasks:
            task.cancel()
        outcomes = await asyncio.gather(*tasks, return_exceptions=True)
        for channel in channels:
            await channel.close()
        for server in servers[B:]:
            server.process.send_signal(signal.SIGTERM)
        for server in servers[B:]:
            with contextlib.suppress(Exception):
                await asyncio.to_thread(server.process.wait, 30)
    for driver, outcome in zip(drivers, outcomes, strict=True):
        assert outcome is None or isinstance(outcome, asyncio.CancelledError), (driver.table_id, outcome)

    # Bots that played on A reconnected to B and kept playing there.
    assert moved and all(d.failovers == 1 and d.connected_to == "B" for d in moved)
    assert all(d.actions_since_failover > 0 for d in moved), [
        (d.table_id, d.seat, d.actions_since_failover) for d in moved
    ]
    assert all(d.failovers == 0 for d in drivers if d.start == B)

    try:
        for table_id, table in tables.items():
            await table.refresh(store)
            after_kill = table.payloads[killed_at[table_id]:]
            ended = [p for p in after_kill if p["type"] == "HandEnded"]
            assert ended, f"no hand ended at {table_id} after replica A died"
            if table_id != LONELY:
                assert any(p["type"] == "HandStarted" for p in after_kill), f"no deal at {table_id} since"
            timed_out = {p["seat"] for p in after_kill if p["type"] == "PlayerActed" and p["timeout"]}
            silent_here = {d.seat for d in silent if d.table_id == table_id}
            assert not silent_here or timed_out & silent_here, f"no clock fired at {table_id} after the kill"
            await check_hands_and_chips(store, table)
        assert any(p["type"] == "PlayerToppedUp" for p in tables[TOPPED_UP[0]].payloads)
        assert sum(p["cash_out"] for p in tables[LEAVER[0]].payloads if p["type"] == "PlayerLeft") > 0
    finally:
        await store.close()
        await pool.close()
