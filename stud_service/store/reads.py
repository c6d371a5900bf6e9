"""Read-only queries of the audit's kind (listings, probes of many streams) on the store's pool."""

from __future__ import annotations

from typing import Any

from stud_service.store.eventlog import EventStore


async def fetch(store: EventStore, query: str, params: Any) -> list[tuple[Any, ...]]:
    """Rows of a read-only query on the store's pool."""
    async with store.pool.connection() as conn:
        cursor = await conn.execute(query, params)
        return await cursor.fetchall()
