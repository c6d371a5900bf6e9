"""Table leases on the real PostgreSQL (server.tables.ownership): batch renewal, taking up to the fair share,
expiry by the database clock with a new epoch, release, the live-replica count, and the fence on owners'
appends.

Each test has a database of its own: the share counts every table in the log. Two "replicas" are two
``Leases`` objects with different ids in one process.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Awaitable, Callable

import pytest
import pytest_asyncio
from psycopg_pool import AsyncConnectionPool

from stud_service.db import open_pool
from stud_service.server.tables.ownership import (
    _FREE_SQL,
    _PLAN_SQL,
    Held,
    Leases,
    OwnershipEvents,
    OwnershipKeeper,
    fair_share,
)
from stud_service.store import EventStore, Fence, LeaseLost, StreamAppend

SHORT_LEASE = 0.4  # seconds: the expiry tests wait past it


@pytest_asyncio.fixture
async def pool(make_database: Callable[..., Awaitable[str]]) -> AsyncIterator[AsyncConnectionPool]:
    pool = await open_pool(await make_database(migrated=True), max_size=6)
    yield pool
    await pool.close()


@pytest_asyncio.fixture
async def store(pool: AsyncConnectionPool) -> AsyncIterator[EventStore]:
    store = EventStore(pool)
    yield store
    await store.close()


async def make_tables(store: EventStore, count: int) -> list[str]:
    streams = [f"tables/t{n:02d}" for n in range(count)]
    for stream in streams:
        await store.append(stream, 0, [{"type": "TableCreated", "n": 1}])
    await store.append("accounts/alice/EUR", 0, [{"type": "AccountOpened"}])  # not a table: never leased
    return streams


async def live_replicas(pool: AsyncConnectionPool, *names: str, **options: float) -> list[Leases]:
    """Replicas ``names``, each seen alive once (its heartbeat, no leases yet)."""
    replicas = [Leases(pool, name, **options) for name in names]
    for replica in replicas:
        await replica.renew([])
    return replicas


def test_fair_share_leaves_room_for_every_table() -> None:
    assert fair_share(7, 3) == 3
    assert fair_share(6, 3) == 2
    assert fair_share(0, 2) == 0
    assert fair_share(5, 0) == 5


async def test_replicas_take_their_fair_share_and_no_table_twice(
    pool: AsyncConnectionPool, store: EventStore
) -> None:
    streams = await make_tables(store, 7)
    a, b, c = (Leases(pool, name) for name in ("a", "b", "c"))
    for replica in (a, b, c):
        await replica.renew([])  # the heartbeat: three live replicas
    assert await a.share() == (7, 3)
    at_once = await asyncio.gather(a.take(), b.take(), c.take())  # a lease wanted twice goes to one
    owned = [stream for t in at_once for stream in t]
    assert len(owned) == len(set(owned)) and all(len(t) <= 3 for t in at_once)
    later = [await replica.take() for replica in (a, b, c)]  # the next round takes the rest
    counts = [len(first) + len(then) for first, then in zip(at_once, later, strict=True)]
    assert sum(counts) == 7 and max(counts) <= 3  # each at most its share: ceil(7 / 3)
    owned += [stream for t in later for stream in t]
    assert sorted(owned) == streams  # every table once, never an account
    assert all(epoch == 1 for t in at_once + later for epoch in t.values())
    assert [await replica.take() for replica in (a, b, c)] == [{}, {}, {}]  # at their share, nothing free


async def test_one_statement_renews_only_the_replicas_own_leases(
    pool: AsyncConnectionPool, store: EventStore
) -> None:
    streams = await make_tables(store, 4)
    a, b = await live_replicas(pool, "a", "b")
    mine, theirs = await a.take(), await b.take()
    assert len(mine) == len(theirs) == 2
    assert await a.renew(streams) == mine  # asking for all four renews its own two only
    assert await b.renew(list(theirs)) == theirs


async def test_an_expired_lease_is_taken_with_a_new_epoch_and_the_old_owner_cannot_renew(
    pool: AsyncConnectionPool, store: EventStore
) -> None:
    (stream,) = await make_tables(store, 1)
    a, b = Leases(pool, "a", SHORT_LEASE), Leases(pool, "b", SHORT_LEASE)
    assert await a.take() == {stream: 1}
    await b.renew([])
    assert await b.take() == {}  # a's lease is live: b waits, though its share is 1 too
    await asyncio.sleep(SHORT_LEASE + 0.2)  # a stops renewing (paused, dead)
    await b.renew([])
    assert await b.take() == {stream: 2}
    assert await a.renew([stream]) == {}  # woken: the lease is b's now


async def test_a_released_lease_can_be_taken_at_once(pool: AsyncConnectionPool, store: EventStore) -> None:
    streams = await make_tables(store, 2)
    a, b = Leases(pool, "a"), Leases(pool, "b")
    assert set(await a.take()) == set(streams)  # alone: its share is every table
    await b.renew([])  # a second replica: a's share is 1
    await a.release([streams[0]])
    assert await b.take() == {streams[0]: 2}
    assert await a.renew(streams) == {streams[1]: 1}


async def test_a_lease_whose_table_cannot_be_loaded_is_given_back_and_taken_again_later(
    pool: AsyncConnectionPool, store: EventStore
) -> None:
    """Kept and renewed, a lease whose table the replica could not load (the store away for that one read)
    would hold the table with no clock armed and no dealer: play would stop there for good."""
    [stream] = await make_tables(store, 1)
    loadable = False
    gained: list[tuple[str, int]] = []
    lost: list[str] = []

    async def table_gained(stream_id: str, epoch: int) -> bool:
        gained.append((stream_id, epoch))
        return loadable

    keeper = OwnershipKeeper(Leases(pool, "a"), OwnershipEvents(table_gained, lost.append, lambda s: s))
    await keeper.round()
    assert gained == [(stream, 1)]
    assert keeper.owned == {}  # not kept, not renewed
    assert lost == [stream]  # the table's work stopped (none started)
    other = Leases(pool, "b")
    await other.renew([])  # a second replica: the given-back lease is free for it at once
    assert await other.take() == {stream: 2}
    await other.release([stream])
    loadable = True
    await keeper.round()  # the next round takes it again, and keeps it now it loads
    assert keeper.owned == {stream: 3}
    assert await keeper.leases.renew([stream]) == {stream: 3}


async def test_live_replicas_are_those_seen_within_a_lease(
    pool: AsyncConnectionPool, store: EventStore
) -> None:
    await make_tables(store, 3)
    a, b = await live_replicas(pool, "a", "b", lease_seconds=SHORT_LEASE)
    assert await a.share() == (3, 2)
    await asyncio.sleep(SHORT_LEASE + 0.2)
    assert await a.share() == (3, 1)  # b has not been seen for a lease: not counted (a always counts itself)
    await b.renew([])
    assert await a.share() == (3, 2)
    await b.leave([])  # a graceful stop: not counted from now on
    assert await a.share() == (3, 1)


async def test_a_fenced_append_is_written_only_while_its_lease_is_held(
    pool: AsyncConnectionPool, store: EventStore
) -> None:
    (stream,) = await make_tables(store, 1)
    a, b = Leases(pool, "a", SHORT_LEASE), Leases(pool, "b", SHORT_LEASE)
    epoch = (await a.take())[stream]
    fence = Fence(stream, "a", epoch)
    assert (await store.append(stream, 1, [{"type": "Timeout"}], fence=fence)).version == 2
    await asyncio.sleep(SHORT_LEASE + 0.2)
    with pytest.raises(LeaseLost):  # expired, not yet taken: refused already
        await store.append(stream, 2, [{"type": "Timeout"}], fence=fence)
    assert (await b.take())[stream] == epoch + 1
    with pytest.raises(LeaseLost):
        await store.append(stream, 2, [{"type": "Timeout"}], fence=fence)
    with pytest.raises(LeaseLost):  # a command over several streams is fenced whole
        await store.append_all(
            [
                StreamAppend(stream, 2, [{"type": "PlayerLeft"}]),
                StreamAppend("accounts/alice/EUR", 1, [{"type": "AccountCredited"}]),
            ],
            fence=fence,
        )
    assert await store.head(stream) == 2 and await store.head("accounts/alice/EUR") == 1
    # The new owner's fence holds; unfenced appends (players' commands) are not affected by leases.
    new_fence = Fence(stream, "b", epoch + 1)
    assert (await store.append(stream, 2, [{"type": "Timeout"}], fence=new_fence)).version == 3
    assert (await store.append(stream, 3, [{"type": "Check"}])).version == 4


async def test_fenced_and_plain_appends_queued_together_keep_their_own_outcomes(
    pool: AsyncConnectionPool, store: EventStore
) -> None:
    streams = await make_tables(store, 3)
    a = Leases(pool, "a")
    epochs = await a.take()
    stale = Fence(streams[0], "a", epochs[streams[0]] + 5)  # not the lease's epoch
    held = Fence(streams[1], "a", epochs[streams[1]])
    results = await asyncio.gather(
        store.append(streams[0], 1, [{"type": "Timeout"}], fence=stale),
        store.append(streams[1], 1, [{"type": "Timeout"}], fence=held),
        store.append(streams[2], 1, [{"type": "Check"}]),
        return_exceptions=True,
    )
    assert isinstance(results[0], LeaseLost)
    assert [r.version for r in results[1:]] == [2, 2]  # type: ignore[union-attr]
    assert [await store.head(s) for s in streams] == [1, 2, 2]


async def test_a_replica_takes_the_tables_its_clients_use_first(
    pool: AsyncConnectionPool, store: EventStore
) -> None:
    streams = await make_tables(store, 4)
    a, b = await live_replicas(pool, "a", "b")
    # Both use streams[3] alike (nobody claims it); a alone uses streams[1] (a claims it, beyond its share).
    await b.renew([], {streams[3]: 1})
    interest_a = {streams[3]: 1, streams[1]: 1}
    taken_by_a = await a.take(interest_a)
    # Its claim, then its share (2) of the three unclaimed tables, the one its clients use first.
    assert len(taken_by_a) == 3 and {streams[1], streams[3]} <= set(taken_by_a)
    assert set(await b.take({streams[3]: 1})) == set(streams) - set(taken_by_a)


async def test_a_table_one_replica_clearly_uses_most_is_claimed_by_it_whatever_its_share(
    pool: AsyncConnectionPool, store: EventStore
) -> None:
    streams = await make_tables(store, 4)
    a, b = Leases(pool, "a"), Leases(pool, "b")
    used = {stream: 3 for stream in streams[:3]}  # a's clients use three tables; nobody uses the fourth
    await a.renew([], used)
    await b.renew([])
    assert await b.take() == {streams[3]: 1}  # claimed by a: b takes only the unclaimed one
    assert set(await a.take(used)) == set(streams[:3])  # above its fair share of 2: they are its claims
    plan = await b.plan([streams[3]])
    assert (plan.unclaimed, plan.replicas, plan.claimed_elsewhere) == (1, 2, frozenset())


async def test_a_claim_needs_clearly_more_use_than_the_next_replicas(
    pool: AsyncConnectionPool, store: EventStore
) -> None:
    (stream,) = await make_tables(store, 1)
    a, b = Leases(pool, "a"), Leases(pool, "b")
    await a.renew([], {stream: 2})
    assert await a.take({stream: 2}) == {stream: 1}  # alone: its claim (b is not live yet)
    for b_uses, claimed_elsewhere in ((3, False), (4, False), (5, True)):  # a claim needs > 2x a's use
        await b.renew([], {stream: b_uses})
        plan = await a.plan([stream], {stream: 2})
        assert (stream in plan.claimed_elsewhere) == claimed_elsewhere, b_uses
        assert plan.claimed_here == frozenset()
    await b.leave([])  # a replica that is no longer live claims nothing
    assert (await a.plan([stream], {stream: 2})).claimed_here == {stream}


async def test_a_claimed_free_lease_is_left_to_its_claimant(
    pool: AsyncConnectionPool, store: EventStore
) -> None:
    streams = await make_tables(store, 2)
    a, b = Leases(pool, "a"), Leases(pool, "b")
    await a.renew([], {streams[0]: 1})
    await b.renew([])
    assert await b.take() == {streams[1]: 1}  # its share is 1 of the one unclaimed table, and 0 is a's
    assert await b.take() == {}
    assert await a.take({streams[0]: 1}) == {streams[0]: 1}


async def test_a_lease_round_does_no_work_growing_as_the_square_of_the_tables(
    pool: AsyncConnectionPool, store: EventStore
) -> None:
    """The plan and take statements, with this replica's clients using every table: no join in them compares
    each table with each claim (the unclaimed tables were once an anti-join the planner ran as a nested
    loop: at 1,000 tables 499,500 comparisons and over 40 ms per statement)."""
    tables = 300
    streams = await make_tables(store, tables)
    (replica,) = await live_replicas(pool, "a")
    interest = dict.fromkeys(streams, 3)
    statements = [(_PLAN_SQL, replica._params(interest, owned=streams)),
                  (_FREE_SQL, replica._params(interest))]
    async with pool.connection() as conn:
        for sql, params in statements:
            async with conn.transaction(force_rollback=True):
                cur = await conn.execute("EXPLAIN (ANALYZE, COSTS OFF) " + sql, params)
                plan = [line for (line,) in await cur.fetchall()]
            removed = [int(line.rsplit(":", 1)[1]) for line in plan if "Rows Removed by Join Filter" in line]
            assert max(removed, default=0) < 10 * tables, "\n".join(plan)


class CountingLeases(Leases):
    """The real leases, counting the searches for free ones (which read every table's lease)."""

    searches = 0

    async def take(self, interest: dict[str, int] | None = None) -> Held:
        self.searches += 1
        return await super().take(interest)


async def test_a_replica_searches_for_free_leases_only_when_it_may_take_one(
    pool: AsyncConnectionPool, store: EventStore
) -> None:
    """Holding its fair share and all it claims, a replica's round renews and plans but does not search for
    free leases (on Citus that search reads every shard); when another replica dies, its share grows once the
    dead one stops counting as live, and it searches and takes the dead one's tables."""
    streams = await make_tables(store, 4)
    events = OwnershipEvents(lambda stream, epoch: True, lambda stream: None, lambda streams: streams)
    searching_a = CountingLeases(pool, "a", lease_seconds=3.0)
    searching_b = CountingLeases(pool, "b", lease_seconds=3.0)
    a, b = OwnershipKeeper(searching_a, events), OwnershipKeeper(searching_b, events)
    await a.round()  # alone: all four
    assert set(a.owned) == set(streams)
    await b.round()  # its share is 2, all are held: it finds none
    await a.round()  # hands its surplus over (between hands)
    await b.round()  # takes it
    assert len(a.owned) == len(b.owned) == 2
    searches = searching_a.searches, searching_b.searches
    for _ in range(3):
        await a.round()
        await b.round()
    assert (searching_a.searches, searching_b.searches) == searches  # each holds its share: no search
    assert len(a.owned) == len(b.owned) == 2
    # b dies (no more rounds): its leases expire, it stops counting as live, and a takes its tables.
    deadline = asyncio.get_running_loop().time() + 30
    while set(a.owned) != set(streams):
        assert asyncio.get_running_loop().time() < deadline, a.owned
        await asyncio.sleep(0.2)
        await a.round()
    assert searching_a.searches > searches[0]
