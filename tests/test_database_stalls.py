"""Leases and writes across database outages and stalled commits, on a PostgreSQL of the test's own: stopped
for longer than a lease and started again, or holding every commit for a synchronous standby that is not
there (what a primary just promoted in strict synchronous mode does until its standby connects).

After such an outage the keeper's rounds must keep the leases they renew or take, and take them at all while
commits wait; and the append writer must begin the transactions of commands made while its batches wait:
a table whose next event needs its owner (a deal, a timeout) otherwise resumes a lease period, or a whole
commit wait, after the others.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncIterator
from dataclasses import dataclass

import psycopg
import pytest
import pytest_asyncio
from own_postgres import OwnPostgres, started_with_database
from psycopg_pool import AsyncConnectionPool

from stud_service.db import open_pool
from stud_service.server.tables.ownership import Leases, OwnershipEvents, OwnershipKeeper
from stud_service.store import EventStore, Fence, apply_migrations
from stud_service.store._writer import STALLED_SECONDS

LEASE = 1.5  # seconds: the keeper's lease (a round every 0.5 s)
OUTAGE = 2 * LEASE + 0.5  # the database stopped for longer than a lease
POOL_WAIT = 30.0  # a checkout waits far past the outage: the round under way when it began spans it
WATCHED = 4 * LEASE  # the keeper watched for this long after the database is back
WITHIN = 30.0  # a generous bound for what takes a fraction of a second


@pytest_asyncio.fixture
async def own_database() -> AsyncIterator[tuple[OwnPostgres, str]]:
    async with started_with_database("stud-lease-pg-") as pg:
        with psycopg.connect(pg.maintenance_url, autocommit=True) as conn:
            # The server runs with synchronous_commit off (a test server's speed); the database's own
            # setting is what a production server has, so a commit waits for any synchronous standby named.
            conn.execute("ALTER DATABASE stud SET synchronous_commit = on")
        await apply_migrations(pg.url("stud"))
        yield pg, pg.url("stud")


@dataclass
class Keeping:
    """A keeper of replica "a" (lease LEASE) on the test's own database, its store, and what it reported."""

    pg: OwnPostgres
    pool: AsyncConnectionPool
    store: EventStore
    keeper: OwnershipKeeper
    recorded: Recorded


@pytest_asyncio.fixture
async def keeping(own_database: tuple[OwnPostgres, str]) -> AsyncIterator[Keeping]:
    pg, url = own_database
    pool = await open_pool(url, max_size=4, timeout=POOL_WAIT)
    store = EventStore(pool)
    recorded = Recorded()
    keeper = OwnershipKeeper(Leases(pool, "a", lease_seconds=LEASE), recorded.events())
    try:
        yield Keeping(pg, pool, store, keeper, recorded)
    finally:
        keeper.stop()
        await store.close()
        await pool.close()


class Recorded:
    """The keeper's lease events with their monotonic times; every table loads."""

    def __init__(self) -> None:
        self.log: list[tuple[float, str, str]] = []

    def events(self) -> OwnershipEvents:
        return OwnershipEvents(self._gained, self._lost, lambda streams: streams)

    def _gained(self, stream_id: str, epoch: int) -> bool:
        self.log.append((time.monotonic(), "gained", stream_id))
        return True

    def _lost(self, stream_id: str) -> None:
        self.log.append((time.monotonic(), "lost", stream_id))

    def since(self, moment: float) -> list[str]:
        return [what for at, what, _stream in self.log if at >= moment]


async def a_table(store: EventStore) -> str:
    stream = "tables/t1"
    await store.append(stream, 0, [{"type": "TableCreated", "n": 1}])
    return stream


async def set_synchronous_standby(pg: OwnPostgres, names: str) -> None:
    """Name the synchronous standbys each commit waits for ('' for none), from each session's next command."""

    def run() -> None:
        with psycopg.connect(pg.maintenance_url, autocommit=True) as conn:
            conn.execute(f"ALTER SYSTEM SET synchronous_standby_names = '{names}'")
            conn.execute("SELECT pg_reload_conf()")
        # The server reloads its settings, then signals every session to, a moment after the call: a new
        # session has them once it has.
        deadline = time.monotonic() + WITHIN
        while True:
            with psycopg.connect(pg.maintenance_url, autocommit=True) as conn:
                row = conn.execute("SHOW synchronous_standby_names").fetchone()
            if row is not None and row[0] == names:
                return
            assert time.monotonic() < deadline, "the server did not take the setting"
            time.sleep(0.05)

    await asyncio.to_thread(run)


@pytest.mark.parametrize("keeper_starts", ["before", "during"])
async def test_leases_got_back_after_an_outage_longer_than_the_lease_are_kept(
    keeping: Keeping, keeper_starts: str
) -> None:
    """A round that waited for a connection through the outage renews (keeper started before it) or takes
    (started during it) the lease once the database is back. Its leases were counted from the round's
    start, long past: it dropped them at once, its table's work with them, and took them again only when
    they expired, a lease period later, at a new epoch."""
    pg, pool, store, keeper, recorded = (
        keeping.pg, keeping.pool, keeping.store, keeping.keeper, keeping.recorded)
    running: asyncio.Future[None] | None = None
    try:
        stream = await a_table(store)
        if keeper_starts == "before":
            running = asyncio.ensure_future(keeper.run())
            deadline = time.monotonic() + WITHIN
            while keeper.epoch(stream) is None:
                assert time.monotonic() < deadline, "the keeper never took the lease"
                await asyncio.sleep(0.05)
        await asyncio.to_thread(pg.stop)
        if keeper_starts == "during":
            running = asyncio.ensure_future(keeper.run())
        await asyncio.sleep(OUTAGE)
        await asyncio.to_thread(pg.start)
        back = time.monotonic()
        deadline = back + WITHIN
        while keeper.epoch(stream) is None:
            assert time.monotonic() < deadline, f"the lease was not held again: {recorded.log}"
            await asyncio.sleep(0.05)
        await asyncio.sleep(WATCHED)
        assert "lost" not in recorded.since(back), f"a lease got back was dropped: {recorded.log}"
        assert keeper.epoch(stream) is not None
        async with pool.connection() as conn:
            cur = await conn.execute(
                "SELECT owner, expires_at > now() FROM table_leases WHERE stream_id = %s", (stream,))
            assert await cur.fetchone() == ("a", True)  # still renewed
    finally:
        keeper.stop()
        if running is not None:
            running.cancel()
            await asyncio.gather(running, return_exceptions=True)


async def test_a_lease_round_goes_through_while_commits_wait_for_a_synchronous_standby(
    keeping: Keeping
) -> None:
    """Lease writes commit locally: a round takes the lease while every other commit waits for a standby,
    and the owner's fenced append begun then goes in once one confirms it. A round whose writes waited with
    them took the lease only after the wait, and a lease committed that late had run out already."""
    pg, store, keeper = keeping.pg, keeping.store, keeping.keeper
    appending: asyncio.Future[object] | None = None
    try:
        stream = await a_table(store)
        await set_synchronous_standby(pg, "absent_standby")  # every synchronous commit waits from now on
        await asyncio.wait_for(keeper.round(), WITHIN)
        epoch = keeper.epoch(stream)
        assert epoch == 1
        deal = [{"type": "HandStarted", "n": 1}]
        appending = asyncio.ensure_future(store.append(stream, 1, deal, fence=Fence(stream, "a", epoch)))
        await asyncio.sleep(LEASE)
        assert not appending.done()  # its commit waits for the standby
    finally:
        await set_synchronous_standby(pg, "")
    result = await asyncio.wait_for(appending, WITHIN)
    assert result.version == 2  # fenced by the lease the round took, checked as the append began


async def commits_waiting(pg: OwnPostgres) -> int:
    """Transactions of the test's database waiting at commit for a synchronous standby."""

    def count() -> int:
        with psycopg.connect(pg.maintenance_url, autocommit=True) as conn:
            row = conn.execute(
                "SELECT count(*) FROM pg_stat_activity WHERE datname = 'stud' AND wait_event = 'SyncRep'"
            ).fetchone()
            return int(row[0]) if row else 0

    return await asyncio.to_thread(count)


async def test_commands_made_while_the_writers_batches_wait_at_commit_begin_their_transactions(
    own_database: tuple[OwnPostgres, str]
) -> None:
    """The writer has two batches under way at most; stalled at commit, they held every later command back
    (an owner's deal goes in a batch of its own) until they committed, so those commands' transactions began
    only when the stall ended."""
    pg, url = own_database
    pool = await open_pool(url, max_size=8, timeout=POOL_WAIT)
    store = EventStore(pool)
    streams = [f"tables/t{n}" for n in range(4)]
    appends: list[asyncio.Future[object]] = []
    try:
        for stream in streams:
            await store.append(stream, 0, [{"type": "TableCreated", "n": 1}])
        await set_synchronous_standby(pg, "absent_standby")  # every synchronous commit waits from now on
        deadline = time.monotonic() + WITHIN
        for made, stream in enumerate(streams, start=1):  # one command at a time: a batch each
            appends.append(asyncio.ensure_future(store.append(stream, 1, [{"type": "HandStarted", "n": 1}])))
            while await commits_waiting(pg) < made:
                assert time.monotonic() < deadline, (
                    f"{made - 1} transactions wait at commit; the next command's never began"
                )
                await asyncio.sleep(STALLED_SECONDS)
        assert not any(append.done() for append in appends)
    finally:
        await set_synchronous_standby(pg, "")
    try:
        results = await asyncio.wait_for(asyncio.gather(*appends), WITHIN)
        assert [result.version for result in results] == [2, 2, 2, 2]  # each once
    finally:
        await store.close()
        await pool.close()
