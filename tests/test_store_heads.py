"""Many streams' heads in one read (``EventStore.heads``): what the dealer asks before every hand (the seated
players' streams) and the ledger's standings rest on."""

from __future__ import annotations

import asyncio

import psycopg
import pytest

from stud_service.db import open_pool
from stud_service.store import EventStore


def ev(n: int) -> dict:
    return {"type": "Noted", "v": 1, "n": n}


async def test_heads_answer_each_stream_asked_with_zero_for_one_never_written(
    event_store: EventStore, stream_id: str
) -> None:
    odd = f'{stream_id}/with "quotes", a comma\\ and {{braces}}'
    await event_store.append(stream_id, 0, [ev(1), ev(2), ev(3)])
    await event_store.append(odd, 0, [ev(1)])
    never = f"{stream_id}/never"
    assert await event_store.heads([never, stream_id, odd]) == {never: 0, stream_id: 3, odd: 1}
    assert await event_store.heads([odd, stream_id, odd]) == {odd: 1, stream_id: 3}
    assert await event_store.heads([]) == {}


async def test_heads_are_read_again_on_a_fresh_connection_when_the_pooled_one_died(
    database_url: str, stream_id: str
) -> None:
    pool = await open_pool(database_url, min_size=1, max_size=1)
    try:
        store = EventStore(pool)
        await store.append(stream_id, 0, [ev(1), ev(2)])
        assert await store.heads([stream_id]) == {stream_id: 2}
        async with pool.connection() as conn:
            pid = conn.info.backend_pid
        async with await psycopg.AsyncConnection.connect(database_url, autocommit=True) as admin:
            await admin.execute("SELECT pg_terminate_backend(%s)", (pid,))
            for _ in range(1500):
                cur = await admin.execute("SELECT count(*) FROM pg_stat_activity WHERE pid = %s", (pid,))
                if (await cur.fetchone())[0] == 0:
                    break
        assert await store.heads([stream_id, f"{stream_id}/never"]) == {stream_id: 2, f"{stream_id}/never": 0}
    finally:
        await pool.close()


async def test_a_read_cancelled_while_it_waits_finishes_and_leaves_its_connection_idle(make_database) -> None:
    """A dealer re-armed mid-read cancels it: the read still finishes on its connection, which goes back to
    the pool idle and is used again (not closed as busy and replaced)."""
    url = await make_database(migrated=True)
    pool = await open_pool(url, min_size=1, max_size=1)
    try:
        store = EventStore(pool)
        await store.append("tables/t1", 0, [ev(1)])
        async with pool.connection() as conn:
            pid = conn.info.backend_pid
        admin = await psycopg.AsyncConnection.connect(url, autocommit=True)
        async with admin, admin.transaction():
            await admin.execute("LOCK TABLE events IN ACCESS EXCLUSIVE MODE")
            read = asyncio.create_task(store.heads(["tables/t1", "tables/t2"]))
            for _ in range(3000):  # the read waits for the lock (generous: a busy machine)
                cur = await admin.execute(
                    "SELECT count(*) FROM pg_stat_activity WHERE pid = %s AND wait_event_type = 'Lock'",
                    (pid,),
                )
                if (await cur.fetchone())[0]:
                    break
                await asyncio.sleep(0.01)
            else:
                raise AssertionError("the read never waited for the lock")
            read.cancel()
            with pytest.raises(asyncio.CancelledError):
                await read
        # the lock is released: the read finishes and its connection is idle again
        assert await store.heads(["tables/t1", "tables/t2"]) == {"tables/t1": 1, "tables/t2": 0}
        async with pool.connection() as conn:
            assert conn.info.backend_pid == pid
        assert pool.get_stats().get("returns_bad", 0) == 0
    finally:
        await pool.close()
