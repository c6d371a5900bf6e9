"""Purging player sessions past their retention, a whole day's streams at a time, with a record in the log.

Sessions hold personal data (a player's addresses and device ids), kept only as long as the operator's rule
says (docs/player-protection.md, "Retention"). The log is append-only and hash-chained per stream, so the
unit that can go is a whole stream: ``sessions/{day}/{writer}`` holds one replica's sessions started that
UTC day. ``purge_sessions(before=day)`` removes every session stream of the days before ``day`` that is
marked closed (``SessionStreamClosed``: none of its sessions is open, none will start there); a stream not
marked is kept and named in the report (its replica is alive, or lost and not yet recovered).

Before anything is deleted, one ``SessionsPurged`` event is appended to ``retention/sessions``, naming each
stream with its head version and hash and its number of sessions, and who purged, when, under which cut-off.
That event is itself in the hash chain (and checkpoints cover ``retention/``), so a later
``audit verify --checkpoint`` reads a purged stream as purged under a recorded rule, not as a log cut short;
every stream that remains verifies as before. What cannot be purged: one player's sessions inside a day's
stream (deleting them would break the stream's chain); an erasure request waits for its day's turn.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from datetime import date
from typing import Any

from stud_service.sessions.records import SESSION_STARTED, STREAM_CLOSED, STREAM_PREFIX
from stud_service.store import ConcurrencyError, EventStore
from stud_service.store.reads import fetch

SESSIONS_PURGED = "SessionsPurged"
RETENTION_PREFIX = "retention/"
RETENTION_STREAM = f"{RETENTION_PREFIX}sessions"
FORMAT_VERSION = 1
RECORD_ATTEMPTS = 3

# The session streams of days before the cut-off, with their heads and their sessions (one probe each).
_BEFORE = f"""
SELECT s.stream_id, h.version, h.hash, h.type,
       (SELECT count(*) FROM events c WHERE c.stream_id = s.stream_id AND c.type = '{SESSION_STARTED}')
  FROM streams s
 CROSS JOIN LATERAL (SELECT version, hash, type FROM events e WHERE e.stream_id = s.stream_id
                      ORDER BY version DESC LIMIT 1) h
 WHERE starts_with(s.stream_id, '{STREAM_PREFIX}') AND split_part(s.stream_id, '/', 2) < %(day)s
 ORDER BY s.stream_id
"""
_HEAD = "SELECT coalesce(max(version), 0) FROM events WHERE stream_id = %s"


@dataclass(frozen=True)
class PurgedStream:
    stream_id: str
    version: int  # its head when purged
    hash: str  # hex: the hash of its last event
    sessions: int


@dataclass(frozen=True)
class PurgeReport:
    before: str  # the cut-off day: streams of earlier days
    purged: tuple[PurgedStream, ...]
    kept_open: tuple[str, ...]  # streams of those days not marked closed: kept
    record: tuple[str, int] | None  # the SessionsPurged event's stream and version (None: nothing purged)

    @property
    def sessions(self) -> int:
        return sum(stream.sessions for stream in self.purged)


def purge_record(report: PurgeReport, by: str, at_ms: int) -> dict[str, Any]:
    return {
        "type": SESSIONS_PURGED, "v": FORMAT_VERSION, "before": report.before, "by": by, "at_ms": at_ms,
        "streams": [{"stream": s.stream_id, "version": s.version, "hash": s.hash, "sessions": s.sessions}
                    for s in report.purged],
    }


async def purge_sessions(store: EventStore, before: date, *, by: str, at_ms: int,
                         dry_run: bool = False) -> PurgeReport:
    """Purge the closed session streams of the days before ``before`` (``dry_run``: only say which), the
    record of it appended first, by ``by`` at ``at_ms``."""
    day = before.isoformat()
    rows = await fetch(store, _BEFORE, {"day": day})
    purged = tuple(PurgedStream(stream, int(version), bytes(digest).hex(), int(count))
                   for stream, version, digest, kind, count in rows if kind == STREAM_CLOSED)
    kept = tuple(stream for stream, _version, _digest, kind, _count in rows if kind != STREAM_CLOSED)
    report = PurgeReport(day, purged, kept, None)
    if dry_run or not purged:
        return report
    record = await _append_record(store, purge_record(report, by, at_ms))
    streams = [stream.stream_id for stream in purged]
    async with store.pool.connection() as conn, conn.transaction():
        # A stream marked closed is never written again; were one written all the same, it is not purged.
        cursor = await conn.execute(
            "SELECT stream_id, max(version) FROM events WHERE stream_id = ANY(%s) GROUP BY stream_id",
            (streams,))
        heads = {stream: int(version) for stream, version in await cursor.fetchall()}
        unchanged = [s.stream_id for s in purged if heads.get(s.stream_id) == s.version]
        await conn.execute("DELETE FROM events WHERE stream_id = ANY(%s)", (unchanged,))
        await conn.execute("DELETE FROM snapshots WHERE stream_id = ANY(%s)", (unchanged,))
        await conn.execute("DELETE FROM streams WHERE stream_id = ANY(%s)", (unchanged,))
    done = tuple(s for s in purged if s.stream_id in set(unchanged))
    changed = tuple(s.stream_id for s in purged if s.stream_id not in set(unchanged))
    return PurgeReport(day, done, kept + changed, record)


async def _append_record(store: EventStore, event: dict[str, Any]) -> tuple[str, int]:
    for attempt in range(RECORD_ATTEMPTS):
        head = int((await fetch(store, _HEAD, (RETENTION_STREAM,)))[0][0])
        try:
            result = await store.append(RETENTION_STREAM, head, [event])
        except ConcurrencyError:
            if attempt + 1 == RECORD_ATTEMPTS:
                raise
            continue
        return RETENTION_STREAM, result.version
    raise AssertionError("unreachable")


async def purge_records(store: EventStore) -> dict[str, tuple[int, str, str, int]]:
    """Every stream a retention record says was purged: its head version and hash then, and the record's
    stream and version."""
    rows = await fetch(store, "SELECT stream_id, version, payload::text FROM events"
                              f" WHERE starts_with(stream_id, '{RETENTION_PREFIX}') AND type = %s",
                       (SESSIONS_PURGED,))
    purged: dict[str, tuple[int, str, str, int]] = {}
    for record_stream, record_version, text in rows:
        for entry in json.loads(text).get("streams") or ():
            purged[str(entry["stream"])] = (int(entry["version"]), str(entry["hash"]), record_stream,
                                            int(record_version))
    return purged
