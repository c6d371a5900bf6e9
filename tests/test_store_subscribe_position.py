"""Following a stream one also writes to (DESIGN.md "Persistence": NOTIFY fans events out): a replica's
own appends, held through ``position``, cost its subscription no read; other writers' events, gaps
included, are still read in order; lost announcements are found by one heads query for every stream."""

from __future__ import annotations

import asyncio
import time

import psycopg
import pytest
from psycopg_pool import AsyncConnectionPool
from test_store_subscribe import Collector, ev

from stud_service.db import open_pool
from stud_service.store import EventStore, StoredEvent, _writer


class CountingStore(EventStore):
    """The real store, counting the reads its subscriptions make."""

    reads = 0

    async def read_stream(
        self, stream_id: str, after_version: int = 0, limit: int | None = None
    ) -> list[StoredEvent]:
        self.reads += 1
        return await super().read_stream(stream_id, after_version, limit)


async def test_own_appends_held_through_position_are_not_read_again(
    db_pool: AsyncConnectionPool, stream_id: str
) -> None:
    store = CountingStore(db_pool, poll_interval=600)
    other_replica = EventStore(db_pool)
    held = 0
    collector = Collector(store.subscribe(stream_id, 0, position=lambda: held))
    try:
        await collector.wait_for(0)
        await asyncio.sleep(0.2)  # the first read (of an empty stream) is done
        reads_before = store.reads
        for n in range(5):  # our own writes, applied by us as they commit
            result = await store.append(stream_id, n, [ev(n + 1)])
            held = result.version
        await asyncio.sleep(0.3)  # their announcements arrive
        assert store.reads == reads_before
        assert collector.versions == []
        # Another replica writes twice: the subscription reads both, in order, after what we hold.
        await other_replica.append(stream_id, 5, [ev(6)])
        await other_replica.append(stream_id, 6, [ev(7), ev(8)])
        assert await collector.wait_for(3) == [6, 7, 8]
        assert store.reads > reads_before
    finally:
        await collector.stop()
        await store.close()
        await other_replica.close()


async def test_lost_announcements_of_many_streams_are_found_by_one_heads_query(
    db_pool: AsyncConnectionPool, stream_id: str
) -> None:
    store = CountingStore(db_pool, poll_interval=0.3)
    silent = EventStore(db_pool, announce=False)
    streams = [f"{stream_id}-{index}" for index in range(20)]
    collectors = [Collector(store.subscribe(stream)) for stream in streams]
    try:
        await asyncio.sleep(0.2)
        hub = store._hub
        assert hub is not None
        for stream in streams:
            await silent.append(stream, 0, [ev(1)])
        for collector in collectors:
            assert await collector.wait_for(1) == [1]
        # Idle now: each poll is one query, and no subscription reads unless its head moved.
        reads, polls, idle = store.reads, hub.polls, time.monotonic()
        while hub.polls < polls + 2:  # a poll every 0.3 s
            assert time.monotonic() - idle < 20, "the hub stopped polling"
            await asyncio.sleep(0.1)
        assert store.reads == reads
    finally:
        for collector in collectors:
            await collector.stop()
        await store.close()


def count_announcing_transactions(store: EventStore, monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """The NOTIFY transactions of its own the store's writer sends (announcements no batch carried), counted
    in the one-element list returned."""
    own_transactions = [0]
    flush = store._writer._flush_announcements

    async def counting_flush() -> None:
        if store._writer._announcements:
            own_transactions[0] += 1
        await flush()

    monkeypatch.setattr(store._writer, "_flush_announcements", counting_flush)
    return own_transactions


async def assert_announced_in_next_batches(
    pool: AsyncConnectionPool, stream_id: str, database_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Each of three appends is announced once: inside the next batch's statement when one follows
    within the announce interval, else in a NOTIFY transaction of its own."""
    monkeypatch.setattr(_writer, "ANNOUNCE_INTERVAL", 0.5)  # the next append surely comes first
    store = EventStore(pool)
    own_transactions = count_announcing_transactions(store, monkeypatch)
    async with await psycopg.AsyncConnection.connect(database_url, autocommit=True) as listener:
        await listener.execute("LISTEN stud_events")
        try:
            for n in range(3):
                await store.append(stream_id, n, [ev(n + 1)])
            heard = []
            async for note in listener.notifies(timeout=30):
                if note.payload.startswith(stream_id + ":"):
                    heard.append(int(note.payload.rpartition(":")[2]))
                if len(heard) == 3:
                    break
        finally:
            await store.close()
    assert heard == [1, 2, 3]
    assert own_transactions == [1]  # versions 1 and 2 rode in the next batches; 3 went alone


async def test_announcements_ride_in_the_next_batch_and_the_last_goes_on_its_own(
    db_pool: AsyncConnectionPool, stream_id: str, database_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    await assert_announced_in_next_batches(db_pool, stream_id, database_url, monkeypatch)


async def test_announcements_still_ride_once_the_session_lost_its_prepared_statements(
    stream_id: str, database_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """psycopg answers a rollback on a connection where it has prepared statements with DEALLOCATE
    ALL, which drops the writer's batch statements too: the writer prepares them again instead of
    sending every batch down the checked path (which carries no announcements, so they pile up
    and only the last is sent)."""
    pool = await open_pool(database_url, max_size=1)  # the writer gets this connection every time
    try:
        warm_up = EventStore(pool)
        for n in range(2):  # both batch statements prepared on the connection
            await warm_up.append(f"{stream_id}-warm-up", n, [ev(n + 1)])
        await warm_up.close()
        async with pool.connection() as conn:
            await conn.execute("SELECT 1", prepare=True)
            async with conn.transaction():
                raise psycopg.Rollback()
        await assert_announced_in_next_batches(pool, stream_id, database_url, monkeypatch)
    finally:
        await pool.close()


async def test_routed_appends_announce_together_after_the_routed_interval(
    db_pool: AsyncConnectionPool, stream_id: str, database_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """On Citus each single-stream append is a routed call, which carries no announcement: the announcements
    of the appends made within ROUTED_ANNOUNCE_INTERVAL go out together in one NOTIFY transaction, not one
    each ANNOUNCE_INTERVAL (nearly one per action). The routed path runs on plain PostgreSQL too."""
    monkeypatch.setattr(_writer, "ROUTED_ANNOUNCE_INTERVAL", 3.0)  # the ten appends surely come within it
    store = EventStore(db_pool)
    store._writer.routed = True  # as found on Citus
    own_transactions = count_announcing_transactions(store, monkeypatch)
    streams = [f"{stream_id}-{n}" for n in range(10)]
    async with await psycopg.AsyncConnection.connect(database_url, autocommit=True) as listener:
        await listener.execute("LISTEN stud_events")
        try:
            for stream in streams:
                await store.append(stream, 0, [ev(1)])
                await asyncio.sleep(0.01)  # longer than ANNOUNCE_INTERVAL
            heard = set()
            async for note in listener.notifies(timeout=30):
                heard.add(note.payload.rpartition(":")[0])
                if heard >= set(streams):
                    break
        finally:
            await store.close()
    assert heard >= set(streams)
    assert own_transactions == [1]


async def test_one_announcing_transaction_at_a_time_and_close_waits_for_it(
    db_pool: AsyncConnectionPool, stream_id: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Announcements that fall due while the writer's own NOTIFY transaction is still under way wait for it,
    not a second one beside it: close() waits for the one under way, so none outlives the store."""
    monkeypatch.setattr(_writer, "ANNOUNCE_INTERVAL", 0.01)
    store = EventStore(db_pool)
    flush = store._writer._flush_announcements
    under_way, most_at_once, sent = [0], [0], [0]

    async def slow_flush() -> None:
        under_way[0] += 1
        most_at_once[0] = max(most_at_once[0], under_way[0])
        try:
            await asyncio.sleep(0.3)  # a slow transaction: several intervals fall due meanwhile
            await flush()
            sent[0] += 1
        finally:
            under_way[0] -= 1

    monkeypatch.setattr(store._writer, "_flush_announcements", slow_flush)
    for n in range(5):
        await store.append(stream_id, n, [ev(n + 1)])
        await asyncio.sleep(0.1)  # longer than the interval: each announced alone, not in the next batch
    await store.close()
    assert most_at_once == [1]
    assert under_way == [0] and sent[0] >= 1  # close cancels the one under way and sends the rest itself
