"""Following a stream (DESIGN.md "Persistence": NOTIFY fans events out): catch-up, then live, in order,
no gaps, no duplicates — through lost notifications and dropped connections."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator

import pytest_asyncio
from psycopg.conninfo import make_conninfo
from psycopg_pool import AsyncConnectionPool
from test_store_integrity import terminate_backends

from stud_service.db import open_pool
from stud_service.store import ConcurrencyError, EventStore, StoredEvent

QUICK = 30.0  # seconds a live event may take to arrive: far below the slow poll (600 s) used here


def ev(n: int) -> dict:
    return {"type": "Tick", "v": 1, "n": n}


@pytest_asyncio.fixture
async def slow_poll_store(db_pool: AsyncConnectionPool) -> AsyncIterator[EventStore]:
    """A store whose subscribers poll only every 10 minutes, so a test sees only what notifications
    (or the recovery logic) deliver."""
    store = EventStore(db_pool, poll_interval=600)
    yield store
    await store.close()


class Collector:
    """Runs a subscription in the background and collects what it yields."""

    def __init__(self, subscription: AsyncIterator[StoredEvent]) -> None:
        self.events: list[StoredEvent] = []
        self._subscription = subscription
        self._changed = asyncio.Condition()
        self._task = asyncio.ensure_future(self._run())

    async def _run(self) -> None:
        async with contextlib.aclosing(self._subscription) as events:
            async for event in events:
                async with self._changed:
                    self.events.append(event)
                    self._changed.notify_all()

    async def wait_for(self, count: int, timeout: float = QUICK) -> list[int]:
        async def reached() -> None:
            async with self._changed:
                await self._changed.wait_for(lambda: len(self.events) >= count or self._task.done())

        async with asyncio.timeout(timeout):
            await reached()
        if self._task.done():
            self._task.result()
        return self.versions

    @property
    def versions(self) -> list[int]:
        return [e.version for e in self.events]

    async def stop(self) -> None:
        self._task.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await self._task


async def test_catch_up_then_follow_live(slow_poll_store: EventStore, stream_id: str) -> None:
    store = slow_poll_store
    await store.append(stream_id, 0, [ev(1), ev(2), ev(3)])
    collector = Collector(store.subscribe(stream_id, after_version=1))
    try:
        assert await collector.wait_for(2) == [2, 3]
        await store.append(stream_id, 3, [ev(4)])
        await store.append(stream_id, 4, [ev(5), ev(6)])
        assert await collector.wait_for(5) == [2, 3, 4, 5, 6]
        assert [e.payload["n"] for e in collector.events] == [2, 3, 4, 5, 6]
    finally:
        await collector.stop()


async def test_many_subscribers_with_one_listener_see_the_same_sequence(
    slow_poll_store: EventStore, stream_id: str
) -> None:
    store = slow_poll_store
    collectors = [Collector(store.subscribe(stream_id)) for _ in range(5)]
    other = Collector(store.subscribe(stream_id + "-other"))
    try:
        for n in range(20):
            await store.append(stream_id, n, [ev(n)])
        for collector in collectors:
            assert await collector.wait_for(20) == list(range(1, 21))
        assert other.versions == []
    finally:
        for collector in [*collectors, other]:
            await collector.stop()


async def test_lost_notification_is_noticed_at_the_next_one(
    slow_poll_store: EventStore, db_pool: AsyncConnectionPool, stream_id: str
) -> None:
    store = slow_poll_store
    silent = EventStore(db_pool, announce=False)  # appends whose notification is lost
    collector = Collector(store.subscribe(stream_id))
    try:
        await store.append(stream_id, 0, [ev(1)])
        assert await collector.wait_for(1) == [1]
        await silent.append(stream_id, 1, [ev(2), ev(3)])
        await asyncio.sleep(0.3)
        assert collector.versions == [1]  # nothing announced, and the poll is far away
        await store.append(stream_id, 3, [ev(4)])
        assert await collector.wait_for(4) == [1, 2, 3, 4]  # the gap 2..3 was read, in order
    finally:
        await collector.stop()


async def test_periodic_poll_delivers_when_no_notification_ever_comes(
    db_pool: AsyncConnectionPool, stream_id: str
) -> None:
    store = EventStore(db_pool, announce=False, poll_interval=0.2)
    collector = Collector(store.subscribe(stream_id))
    try:
        await store.append(stream_id, 0, [ev(1)])
        await store.append(stream_id, 1, [ev(2)])
        assert await collector.wait_for(2) == [1, 2]
    finally:
        await collector.stop()
        await store.close()


async def test_listener_reconnects_after_its_backend_is_terminated(
    slow_poll_store: EventStore, stream_id: str
) -> None:
    store = slow_poll_store
    collector = Collector(store.subscribe(stream_id))
    try:
        await store.append(stream_id, 0, [ev(1)])
        assert await collector.wait_for(1) == [1]
        hub = store._hub
        old_pid = hub.listener_pid
        async with store.pool.connection() as admin:
            await admin.execute("SELECT pg_terminate_backend(%s)", (old_pid,))
            # Written while the listener is down: its notification goes nowhere.
            await store.append(stream_id, 1, [ev(2)])
        await store.append(stream_id, 2, [ev(3)])
        assert await collector.wait_for(3) == [1, 2, 3]
        for _ in range(600):
            if hub.listener_pid not in (None, old_pid):
                break
            await asyncio.sleep(0.05)
        assert hub.listener_pid not in (None, old_pid) and hub.reconnects >= 1
        await store.append(stream_id, 3, [ev(4)])
        assert await collector.wait_for(4) == [1, 2, 3, 4]
    finally:
        await collector.stop()


async def test_subscriber_survives_all_its_connections_dying(
    database_url: str, db_pool: AsyncConnectionPool, stream_id: str
) -> None:
    """Pooled readers and the listener all terminated at once (as in a database restart)."""
    app = f"sub-{stream_id[-10:]}"
    pool = await open_pool(make_conninfo(database_url, application_name=app), min_size=2, max_size=4)
    store = EventStore(pool, poll_interval=600)
    collector = Collector(store.subscribe(stream_id))
    try:
        await store.append(stream_id, 0, [ev(1)])
        assert await collector.wait_for(1) == [1]
        assert await terminate_backends(db_pool, app) >= 2
        for n in range(1, 4):  # the pool replaces its dead connections at checkout
            await store.append(stream_id, n, [ev(n + 1)])
        assert await collector.wait_for(4, timeout=10) == [1, 2, 3, 4]
    finally:
        await collector.stop()
        await store.close()
        await pool.close()


async def test_no_duplicates_or_gaps_under_concurrent_writers(
    slow_poll_store: EventStore, stream_id: str
) -> None:
    store = slow_poll_store
    collector = Collector(store.subscribe(stream_id))
    async def writer(name: str) -> None:
        for n in range(25):
            while True:
                try:
                    await store.append(stream_id, await store.head(stream_id), [{"type": name, "n": n}])
                    break
                except ConcurrencyError:
                    pass

    try:
        await asyncio.gather(*(writer(f"w{i}") for i in range(4)))
        assert await collector.wait_for(100, timeout=10) == list(range(1, 101))
        await asyncio.sleep(0.2)
        assert len(collector.events) == 100
    finally:
        await collector.stop()


async def test_the_listener_stops_while_nothing_is_followed_and_starts_again(
    db_pool: AsyncConnectionPool, stream_id: str
) -> None:
    store = EventStore(db_pool, poll_interval=0.2)  # the listener looks for subscribers this often
    try:
        first = Collector(store.subscribe(stream_id))
        await store.append(stream_id, 0, [ev(1)])
        assert await first.wait_for(1) == [1]
        hub = store._hub
        listener = hub.listener_pid
        assert listener is not None
        await first.stop()
        for _ in range(600):  # no subscriber left: its LISTEN connection goes
            if hub.listener_pid is None:
                break
            await asyncio.sleep(0.05)
        assert hub.listener_pid is None
        for _ in range(600):  # and its backend with it
            async with store.pool.connection() as conn:
                cur = await conn.execute("SELECT count(*) FROM pg_stat_activity WHERE pid = %s", (listener,))
                left = await cur.fetchone()
            if left == (0,):
                break
            await asyncio.sleep(0.05)
        assert left == (0,)
        await store.append(stream_id, 1, [ev(2)])  # announced to nobody
        second = Collector(store.subscribe(stream_id, after_version=1))
        try:
            assert await second.wait_for(1) == [2]  # read from the log once listening again
            await store.append(stream_id, 2, [ev(3)])
            assert await second.wait_for(2) == [2, 3]
            assert hub.listener_pid not in (None, listener)
        finally:
            await second.stop()
    finally:
        await store.close()
