"""Ownership in the runtime (server.tables with server.tables.ownership): only the owner of a table deals and
runs its clocks; a table whose lease another replica takes is armed there; a stale owner's own commands
are refused by the fence in the append's transaction and it stops the table's work. A real server on a
loopback port, real clients, the real PostgreSQL; the "other replica" is a lease row written directly.
"""

from __future__ import annotations

import asyncio
import time
import uuid
from collections.abc import AsyncIterator, Awaitable, Callable

import pytest_asyncio
from grpc_fixtures import NEXT_HAND_PAUSE, ServiceUnderTest, service_under_test, table_spec, wait_for_turn

from stud_service.auth import Role
from stud_service.server.tables.live import LiveTable, stream_id_for
from stud_service.server.tables.ownership import Leases
from stud_service.server.tables.settings import RuntimeSettings

OTHER = "other-replica"


@pytest_asyncio.fixture
async def service(make_database: Callable[..., Awaitable[str]]) -> AsyncIterator[ServiceUnderTest]:
    url = await make_database(migrated=True)
    async with service_under_test(url, RuntimeSettings(next_hand_pause=NEXT_HAND_PAUSE)) as service:
        yield service


async def lease_of(service: ServiceUnderTest, table_id: str) -> tuple[str, int] | None:
    async with service.store.pool.connection() as conn:
        cur = await conn.execute(
            "SELECT owner, epoch FROM table_leases WHERE stream_id = %s", (stream_id_for(table_id),)
        )
        row = await cur.fetchone()
    return None if row is None else (str(row[0]), int(row[1]))


async def lease_to_other(service: ServiceUnderTest, table_id: str, seconds: float = 60) -> None:
    """Another replica holds (or takes) the table's lease for ``seconds``, by the database clock."""
    async with service.store.pool.connection() as conn:
        await conn.execute(
            "INSERT INTO table_leases (stream_id, owner, epoch, expires_at)"
            " VALUES (%(s)s, %(o)s, 1, now() + make_interval(secs => %(t)s))"
            " ON CONFLICT (stream_id) DO UPDATE SET owner = %(o)s, epoch = table_leases.epoch + 1,"
            " expires_at = now() + make_interval(secs => %(t)s)",
            {"s": stream_id_for(table_id), "o": OTHER, "t": seconds},
        )


def live_table(service: ServiceUnderTest, table_id: str) -> LiveTable:
    """The table as this replica has it loaded (never loading it)."""
    live = service.runtime.cache.get(table_id)
    assert live is not None, f"{table_id} is not loaded here"
    return live


async def seat_two(service: ServiceUnderTest, table_id: str) -> None:
    for seat, player in ((1, "alice"), (2, "bob")):
        await service.client(player).sit_down(table_id, seat, 5_000)


async def test_only_the_owner_deals_and_a_taken_lease_arms_the_table(service: ServiceUnderTest) -> None:
    service.runtime.keep_ownership(Leases(service.store.pool, "me", lease_seconds=0.9))
    table_id = f"t-{uuid.uuid4().hex[:12]}"
    await lease_to_other(service, table_id)  # owned elsewhere before it even exists
    await service.client("house", Role.OPERATOR).create_table(table_id, table_spec(action_clock=30))
    await seat_two(service, table_id)
    seated = live_table(service, table_id).version
    await asyncio.sleep(1.5)  # many pauses between hands, and lease rounds: nothing is dealt here
    assert live_table(service, table_id).version == seated
    assert live_table(service, table_id).dealer is None
    async with service.store.pool.connection() as conn:  # the other replica stops renewing
        await conn.execute("UPDATE table_leases SET expires_at = now()")
    await wait_for_turn([service.client("alice"), service.client("bob")], table_id)  # dealt here now
    assert await lease_of(service, table_id) == ("me", 2)


async def test_a_stale_owner_fires_no_clock_and_stops(service: ServiceUnderTest) -> None:
    # A long lease: no round renews (and notices the loss) before the clock is due.
    keeper = service.runtime.keep_ownership(Leases(service.store.pool, "me", lease_seconds=60))
    table_id = f"t-{uuid.uuid4().hex[:12]}"
    await service.client("house", Role.OPERATOR).create_table(table_id, table_spec(action_clock=1))
    assert await lease_of(service, table_id) == ("me", 1)  # taken on the spot by the creating replica
    await seat_two(service, table_id)
    _, view = await wait_for_turn([service.client("alice"), service.client("bob")], table_id)
    await lease_to_other(service, table_id)  # taken while "me" was not looking (paused, cut off)
    await asyncio.sleep(2.0)  # the action clock (1 s) is due and fires here
    live = live_table(service, table_id)
    assert await service.store.head(live.stream_id) == view.version  # no Timeout written
    assert keeper.epoch(live.stream_id) is None  # the table's work stopped here
    assert live.clock.timer is None and (live.clock.task is None or live.clock.task.done())
    assert await lease_of(service, table_id) == (OTHER, 2)


async def test_a_table_owned_elsewhere_is_followed_only_while_used_here(
    make_database: Callable[..., Awaitable[str]],
) -> None:
    url = await make_database(migrated=True)
    settings = RuntimeSettings(next_hand_pause=NEXT_HAND_PAUSE, unload_unused_after=0.5)
    async with service_under_test(url, settings) as service:
        service.runtime.keep_ownership(Leases(service.store.pool, "me", lease_seconds=30))
        operator = service.client("house", Role.OPERATOR)
        mine, theirs = f"t-{uuid.uuid4().hex[:12]}", f"t-{uuid.uuid4().hex[:12]}"
        await lease_to_other(service, theirs)
        await operator.create_table(theirs, table_spec())
        await operator.create_table(mine, table_spec())  # taken here on the spot: nobody else is live
        assert await lease_of(service, mine) == ("me", 1)
        watch = service.client("carol").watch(theirs)
        await asyncio.wait_for(watch.read(), 10)  # watched: loaded and followed for its watcher
        await asyncio.sleep(1.0)
        assert {live.table_id for live in service.runtime.loaded_tables()} >= {mine, theirs}
        watch.cancel()
        followed = live_table(service, theirs).follower
        unwatched = time.monotonic()
        # No watcher, no call for longer than unload_unused_after: unloaded.
        while service.runtime.cache.get(theirs) is not None:
            assert time.monotonic() - unwatched < 20, "a table nobody uses here stayed loaded"
            await asyncio.sleep(0.1)
        assert followed is not None
        await asyncio.wait([followed], timeout=10)  # cancelled on unloading: done once it has run to its end
        assert followed.done()
        assert service.runtime.cache.get(mine) is not None  # its owner keeps it, used or not
        await service.client("alice").sit_down(theirs, 1, 5_000)  # used again: loaded again, written here
        assert live_table(service, theirs).state.seats[1].player_id == "alice"
