"""Many streams' heads in one read (``EventStore.heads``): what the dealer asks before every hand (the seated
players' streams) and the ledger's standings rest on."""

from __future__ import annotations

import psycopg

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
