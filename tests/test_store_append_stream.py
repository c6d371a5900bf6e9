"""The single-stream append function (stud_append_stream, migrations 0019 and 0021) on plain PostgreSQL: the
path the writer takes on Citus, where the coordinator hands each call to its stream's worker. A store made to
route like that here gives every outcome the batch path gives, and hashes the events the same way."""

from __future__ import annotations

import asyncio
import uuid
from collections.abc import AsyncIterator

import psycopg
import pytest
import pytest_asyncio
from psycopg_pool import AsyncConnectionPool

from stud_service.db import open_pool
from stud_service.store import ConcurrencyError, EventStore, LeaseLost
from stud_service.store.models import Fence


def events(count: int, hand: int | None = None) -> list[dict]:
    return [{"type": "Noted", "n": n, **({"hand": hand} if hand else {})} for n in range(count)]


async def routed_store(pool: AsyncConnectionPool) -> EventStore:
    store = EventStore(pool)
    store._writer.routed = True  # as found on Citus: each single-stream command alone, by the function
    return store


@pytest_asyncio.fixture
async def routed(database_url: str) -> AsyncIterator[EventStore]:
    pool = await open_pool(database_url, max_size=6)
    store = await routed_store(pool)
    try:
        yield store
    finally:
        await store.close()
        await pool.close()


async def stored(url: str, stream_id: str) -> list[tuple]:
    async with await psycopg.AsyncConnection.connect(url, autocommit=True) as conn:
        cur = await conn.execute(
            "SELECT version, type, payload, hand, request_id, command_size, request_fingerprint, prev_hash,"
            " hash FROM events WHERE stream_id = %s ORDER BY version", (stream_id,))
        return await cur.fetchall()


async def test_routed_appends_give_every_outcome_of_the_batch_path(
    routed: EventStore, database_url: str, stream_id: str,
) -> None:
    first = await routed.append(stream_id, 0, events(3, hand=1), request_id="r1", fingerprint=b"\x01\x02")
    assert (first.first_version, first.version, first.duplicate) == (1, 3, False)
    second = await routed.append(stream_id, 3, events(1, hand=1), request_id="r2")
    assert (second.first_version, second.version) == (4, 4)
    # A retry, after the stream moved on: the original answer, nothing written.
    again = await routed.append(stream_id, 0, events(3, hand=1), request_id="r1", fingerprint=b"\x01\x02")
    assert (again.first_version, again.version, again.duplicate) == (1, 3, True)
    # A used request id at the expected head: the insert meets the request index, the second look finds it.
    reused = await routed.append(stream_id, 4, events(2), request_id="r2")
    assert (reused.first_version, reused.version, reused.duplicate) == (4, 4, True)
    for stale in (0, 2, 7):
        with pytest.raises(ConcurrencyError) as info:
            await routed.append(stream_id, stale, events(1))
        assert info.value.actual_version == 4
    assert await routed.head(stream_id) == 4
    rows = await stored(database_url, stream_id)
    assert [(r[0], r[3], r[4], r[5]) for r in rows] == [
        (1, 1, "r1", 3), (2, 1, None, None), (3, 1, None, None), (4, 1, "r2", 1)]
    assert rows[0][6] == b"\x01\x02" and rows[1][2] == {"type": "Noted", "n": 1, "hand": 1}
    assert (await routed.verify(stream_id)).ok


async def test_routed_and_batched_appends_hash_the_same_events_alike(
    routed: EventStore, event_store: EventStore, database_url: str,
) -> None:
    """The function hashes on the server, the batch path in the writer: the same events, the same chain."""
    by_function, by_batch = f"tables/{uuid.uuid4().hex[:12]}", f"tables/{uuid.uuid4().hex[:12]}"
    for expected, count in ((0, 2), (2, 1), (3, 3)):
        await routed.append(by_function, expected, events(count, hand=7))
        await event_store.append(by_batch, expected, events(count, hand=7))
    routed_rows, batched_rows = await stored(database_url, by_function), await stored(database_url, by_batch)
    assert routed_rows == batched_rows and len(routed_rows) == 6  # versions, types, payloads, hands, hashes


async def test_concurrent_routed_appends_at_one_version_one_wins(database_url: str, stream_id: str) -> None:
    """Two writers (two processes' stores) at the same expected version: one appends, the other is told of
    the conflict (after meeting the winner's row, or finding the head moved); nothing is written twice."""
    pools = [await open_pool(database_url, max_size=4) for _ in range(2)]
    stores = [await routed_store(pool) for pool in pools]
    try:
        head = 0
        for round_ in range(20):
            outcomes = await asyncio.gather(
                *(store.append(stream_id, head, events(2), request_id=f"{n}-{round_}")
                  for n, store in enumerate(stores)), return_exceptions=True)
            won = [o for o in outcomes if not isinstance(o, BaseException)]
            assert len(won) == 1 and won[0].version == head + 2, outcomes
            assert [type(o) for o in outcomes if isinstance(o, BaseException)] == [ConcurrencyError], outcomes
            head += 2
        assert await stores[1].head(stream_id) == 40
        assert (await stores[0].verify(stream_id)).ok
    finally:
        for store, pool in zip(stores, pools, strict=True):
            await store.close()
            await pool.close()


async def test_a_routed_append_fenced_by_its_lease_is_written_only_for_its_holder(
    routed: EventStore, database_url: str,
) -> None:
    table = f"tables/{uuid.uuid4().hex[:12]}"
    async with await psycopg.AsyncConnection.connect(database_url, autocommit=True) as conn:
        await conn.execute("INSERT INTO table_leases (stream_id, owner, epoch, expires_at)"
                           " VALUES (%s, 'a', 3, now() + interval '1 minute')", (table,))
    assert (await routed.append(table, 0, events(1), fence=Fence(table, "a", 3))).version == 1
    for fence in (Fence(table, "a", 2), Fence(table, "b", 3)):
        with pytest.raises(LeaseLost):
            await routed.append(table, 1, events(1), fence=fence)
    async with await psycopg.AsyncConnection.connect(database_url, autocommit=True) as conn:
        await conn.execute("UPDATE table_leases SET expires_at = now() - interval '1 second'"
                           " WHERE stream_id = %s", (table,))
    with pytest.raises(LeaseLost):
        await routed.append(table, 1, events(1), fence=Fence(table, "a", 3))
    assert await routed.head(table) == 1


async def test_a_routed_append_is_the_writers_own_prepared_statement(
    database_url: str, stream_id: str
) -> None:
    """The routed call goes straight through libpq as the writer's prepared statement (as its batches do), not
    through psycopg's execute, which costs about 50 µs more client time per call; its answer is still read,
    whether the session lost its prepared statements meanwhile (psycopg's DEALLOCATE ALL after a rollback)
    or not."""
    pool = await open_pool(database_url, max_size=1)  # the writer gets this connection every time
    try:
        store = await routed_store(pool)
        assert (await store.append(stream_id, 0, events(2))).version == 2
        await store.close()
        async with pool.connection() as conn:
            cur = await conn.execute(
                "SELECT name FROM pg_prepared_statements WHERE statement LIKE '%stud_append_stream(%'")
            assert [name for (name,) in await cur.fetchall()] == ["stud_append_stream"]
            await conn.execute("SELECT 1", prepare=True)
            async with conn.transaction():
                raise psycopg.Rollback()
        store = await routed_store(pool)
        assert (await store.append(stream_id, 2, events(1))).version == 3
        with pytest.raises(ConcurrencyError):
            await store.append(stream_id, 2, events(1))
        await store.close()
    finally:
        await pool.close()
