"""Closing the sessions of a replica that is gone: a crash must not leave sessions open for ever.

A replica's sessions are in its own streams, ``sessions/{day}/{writer}``, the writer being the replica's id.
A replica is **alive** while its row in ``replicas`` (the table ownership's heartbeat, renewed every third of
a lease) was seen within ``lost_after_seconds``. Every replica, every ``RECOVERY_SECONDS``, looks at the
session streams of the writers that are not alive and not marked closed (``SessionStreamClosed``: a writer
marks its streams when it stops, and a day's when the day is over) and, in each:

- ends every session still open that started over ``lost_after_seconds`` ago (a replica starting up may not
  have heartbeated yet): ``PlayerSessionEnded`` with the reason ``replica_lost`` and, as its end time, the
  writer's last heartbeat (the latest the session can have lasted); with no heartbeat on record, the latest
  event of the stream (the writer was alive then). Its tables are those its events named;
- then marks the stream closed, in the same append, at the version read: two replicas at it at once
  conflict, and the one refused leaves it to the other.

A writer thought lost that was only paused and comes back writes its own ends as well: a session then has
two, and readers take the first (``sessions.reading``).
"""

from __future__ import annotations

import json
from collections import defaultdict
from dataclasses import dataclass
from typing import Any

from stud_service.sessions.records import (
    SESSION_ENDED,
    SESSION_STARTED,
    SESSION_TABLES,
    STREAM_CLOSED,
    STREAM_PREFIX,
    EndReason,
    SessionEnd,
    SessionStart,
    stream_closed_event,
    writer_of,
)
from stud_service.store import ConcurrencyError, EventStore, StreamAppend
from stud_service.store.reads import fetch

DEFAULT_LOST_AFTER_SECONDS = 60.0
RECOVERY_SECONDS = 30.0

# Every session stream with its head and last event's type (one index probe each), the writers' last
# heartbeats, and the database's clock: what one round decides on.
_STREAMS = f"""
SELECT s.stream_id, l.version, l.type FROM streams s
 CROSS JOIN LATERAL (SELECT version, type FROM events e WHERE e.stream_id = s.stream_id
                      ORDER BY version DESC LIMIT 1) l
 WHERE starts_with(s.stream_id, '{STREAM_PREFIX}') AND l.type <> '{STREAM_CLOSED}'
"""
_HEARTBEATS = "SELECT replica_id, (extract(epoch FROM seen_at) * 1000)::bigint FROM replicas"
_NOW = "SELECT (extract(epoch FROM now()) * 1000)::bigint"
_EVENTS = (
    "SELECT version, type, payload::text FROM events WHERE stream_id = %s AND version <= %s"
    f" AND type IN ('{SESSION_STARTED}', '{SESSION_TABLES}', '{SESSION_ENDED}') ORDER BY version"
)


@dataclass(frozen=True)
class Recovered:
    """One round's work: the streams closed and the sessions ended in them."""

    streams: int
    sessions: int


def _open_sessions(rows: list[tuple[int, str, str]]) -> tuple[list[tuple[SessionStart, list[str], int]], int]:
    """The sessions a stream's events leave open, each with the tables it named and its last event's time;
    and the stream's latest event time."""
    starts: dict[str, SessionStart] = {}
    tables: dict[str, list[str]] = defaultdict(list)
    last: dict[str, int] = {}
    ended: set[str] = set()
    latest = 0
    for _version, kind, text in rows:
        payload: dict[str, Any] = json.loads(text)
        session, at_ms = payload.get("session", ""), int(payload.get("at_ms") or 0)
        latest = max(latest, at_ms)
        if kind == SESSION_STARTED:
            starts[session] = SessionStart.from_event(payload)
            tables[session] += payload.get("tables") or ()
        elif kind == SESSION_TABLES:
            tables[session] += payload.get("tables") or ()
        else:
            ended.add(session)
        last[session] = max(last.get(session, 0), at_ms)
    still_open = [(start, list(dict.fromkeys(tables[sid])), last[sid])
                  for sid, start in starts.items() if sid not in ended]
    return still_open, latest


async def close_lost_sessions(
    store: EventStore, *, lost_after_seconds: float = DEFAULT_LOST_AFTER_SECONDS, me: str | None = None
) -> Recovered:
    """End the open sessions of every writer that is not alive (``me`` always is) and mark their streams
    closed; what was done."""
    now_ms = int((await fetch(store, _NOW, ()))[0][0])
    lost_before = now_ms - int(lost_after_seconds * 1000)
    heartbeats = {replica: int(seen) for replica, seen in await fetch(store, _HEARTBEATS, ())}
    candidates = [
        (stream, int(version)) for stream, version, _type in await fetch(store, _STREAMS, ())
        if (writer := writer_of(stream)) != me and heartbeats.get(writer, lost_before) <= lost_before
    ]
    streams = sessions = 0
    for stream, version in candidates:
        rows = await fetch(store, _EVENTS, (stream, version))
        still_open, latest = _open_sessions(rows)
        if any(start.at_ms > lost_before for start, _tables, _last in still_open):
            continue  # a writer just started, not yet heartbeating; or one that stopped a moment ago
        writer = writer_of(stream)
        gone_at = heartbeats.get(writer, latest)
        ends = [
            SessionEnd(start.session_id, EndReason.REPLICA_LOST, max(start.at_ms, last, gone_at),
                       tuple(tables), 0).to_event()
            for start, tables, last in still_open
        ]
        try:
            closing = [*ends, stream_closed_event(writer, now_ms)]
            await store.append_all([StreamAppend(stream, version, closing)])
        except ConcurrencyError:
            continue  # another replica closed it, or its writer is back: the next round looks again
        streams += 1
        sessions += len(ends)
    return Recovered(streams, sessions)
