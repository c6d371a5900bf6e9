"""A big event log built fast for the audit benchmarks: rows copied into a database with COPY, each
stream hash-chained as the store chains it (``bench_audit.py --money``, ``bench_integrity.py``)."""

from __future__ import annotations

import hashlib
import sys
import tempfile
import time
from collections.abc import Awaitable, Callable
from typing import Any

from stud_service.store import GENESIS_HASH

# (stream_id, version, type, canonical JSON text, hand)
Row = tuple[str, int, str, str, Any]


def replicated(template: list[Row], events: int, names: set[str], skip: str = "\0") -> list[Row]:
    """``template``, then whole copies of it with every stream and every quoted id of ``names`` suffixed
    (``.1``, ``.2`` ...), until at least ``events`` rows; copies leave out streams starting with ``skip``."""
    ids = [[name for name in names if f'"{name}"' in text] for _s, _v, _t, text, _h in template]
    rows = []
    for copy in range(-(-events // len(template))):
        for (stream, version, kind, text, hand), present in zip(template, ids, strict=True):
            if copy:
                if stream.startswith(skip):
                    continue
                stream = f"{stream}.{copy}"
                for name in present:
                    text = text.replace(f'"{name}"', f'"{name}.{copy}"')
            rows.append((stream, version, kind, text, hand))
    return rows


async def copy_rows(pool: Any, rows: list[Row]) -> int:
    """COPY ``rows`` (each stream's in version order) into an empty log; returns the streams written."""
    heads: dict[str, tuple[int, bytes]] = {}
    async with pool.connection() as conn:
        cursor = await conn.execute("SELECT EXISTS (SELECT 1 FROM events)")
        if (await cursor.fetchone())[0]:  # the audits cover the whole log: only ours may be in it
            raise SystemExit("this benchmark needs an empty database (or none: embedded)")
        async with conn.cursor().copy(
            "COPY events (stream_id, version, type, payload, hand, prev_hash, hash) FROM STDIN"
        ) as copy:
            for stream, version, kind, text, hand in rows:
                prev = heads[stream][1] if version > 1 else GENESIS_HASH
                digest = hashlib.sha256(prev + text.encode()).digest()
                heads[stream] = (version, digest)
                await copy.write_row((stream, version, kind, text, hand, prev, digest))
        async with conn.cursor().copy("COPY streams (stream_id, version) FROM STDIN") as copy:
            for stream, (version, _digest) in heads.items():
                await copy.write_row((stream, version))
        await conn.execute("ANALYZE events")
    return len(heads)


async def best_audit(url: str | None, rows: list[Row], audit: Callable[[Any], Awaitable[Any]],
                     name: str, rounds: int = 3) -> tuple[float, Any]:
    """Copy ``rows`` into a database (``url``; None: a throwaway embedded one), then run ``audit(store)``
    ``rounds`` times: the best time in seconds and the last result."""
    from stud_service.db import DatabaseSettings, open_database
    from stud_service.store import EventStore

    built = time.perf_counter()
    with tempfile.TemporaryDirectory() as data_dir:
        async with open_database(DatabaseSettings.resolve(url=url, data_dir=data_dir), max_size=2) as db:
            streams = await copy_rows(db.pool, rows)
            print(f"{name} log: {len(rows):,} events in {streams} streams, built in"
                  f" {time.perf_counter() - built:.0f} s", file=sys.stderr)
            store = EventStore(db.pool)
            best, result = float("inf"), None
            for _ in range(rounds):
                started = time.perf_counter()
                result = await audit(store)
                best = min(best, time.perf_counter() - started)
            await store.close()
    return best, result
