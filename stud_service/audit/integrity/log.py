"""Reading the tables' streams for the integrity report: one consistent snapshot, optionally a time window.

Every table stream is read in one REPEATABLE READ, READ ONLY transaction, in batches (the fold runs between
two awaits, so a server's event loop is held for a few milliseconds at a time). Only the event types the
fold reads are fetched, and of the cards only the face-up ones: a face-down card, sealed at rest, is never
read, so the report cannot depend on one.
"""

from __future__ import annotations

from collections.abc import Iterator
from datetime import datetime
from typing import Any

from stud_service.audit.integrity.fold import INTEGRITY_TYPES, TABLES, IntegrityFold
from stud_service.audit.integrity.score import IntegrityReport, SessionOverlaps, score_pairs
from stud_service.audit.integrity.sessions import recorded_sessions
from stud_service.store import EventStore
from stud_service.store._json import loads

BATCH_ROWS = 5_000
FROM_LOG = "from the log"  # ``integrity_report``'s sessions: the player sessions the log records

_READ = (
    "SELECT e.stream_id, e.version, e.payload::text FROM events e"
    " WHERE starts_with(e.stream_id, %(prefix)s) AND e.type = ANY(%(types)s)"
    " AND (e.type <> 'CardDealt' OR e.payload @> '{\"face_up\": true}')"
    " AND (%(since)s::timestamptz IS NULL OR e.recorded_at >= %(since)s)"
    " AND (%(until)s::timestamptz IS NULL OR e.recorded_at < %(until)s)"
    " ORDER BY e.stream_id, e.version"
)
# Every table event in the log (a stream's head version is its count of events): the log the report covers.
_COUNT = (
    "SELECT coalesce(sum(t.version), 0) FROM streams s"
    " CROSS JOIN LATERAL (SELECT version FROM events e WHERE e.stream_id = s.stream_id"
    " ORDER BY version DESC LIMIT 1) t WHERE starts_with(s.stream_id, %(prefix)s)"
)


def _parsed(rows: list[tuple[str, int, str]]) -> Iterator[tuple[str, int, dict[str, Any]]]:
    for stream_id, version, text in rows:
        yield stream_id, version, loads(text)


async def integrity_report(
    store: EventStore,
    since: datetime | None = None,
    until: datetime | None = None,
    sessions: SessionOverlaps | None | str = FROM_LOG,
) -> IntegrityReport:
    """Every pair of players who sat together in the hands recorded in [``since``, ``until``), scored
    (``score.score_pairs``). ``sessions``: where shared networks and devices come from: by default the
    player sessions of the log that overlap the window (``sessions.recorded_sessions``; none while the log
    holds no session, and the report says so)."""
    if isinstance(sessions, str):
        sessions = await recorded_sessions(store, since, until)
    params = {"prefix": TABLES, "types": list(INTEGRITY_TYPES), "since": since, "until": until}
    fold = IntegrityFold()
    async with store.pool.connection() as conn, conn.transaction():
        await conn.execute("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ, READ ONLY")
        cursor = await conn.execute(_COUNT, params)
        (events_in_log,) = await cursor.fetchone()
        named = conn.cursor("integrity_events")
        await named.execute(_READ, params)
        while rows := await named.fetchmany(BATCH_ROWS):
            fold.feed(_parsed(rows))
        await named.close()
    report = score_pairs(fold.tally, sessions)
    report.events_in_log = int(events_in_log)
    report.malformed = fold.malformed
    return report
