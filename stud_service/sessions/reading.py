"""Reading player sessions: an auditor's listing, and the sessions a table's same-network rule compares.

Listing: by start time, then stream and version (a total order over every replica's streams), filtered by
player, device, address or network and time; a page's position is its last session's (start, stream,
version), so pages stay stable while new sessions start. Only the filters asked for are in the query, so
the player filter reads the player's index (migration 0016).

``current_sessions``: for each of some players, their sessions still open and their newest one (open or
not: a player who sat down and then lost their connection is still the player of that network), among
their ``RECENT`` newest.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from stud_service.sessions.networks import IPNetwork
from stud_service.sessions.records import (
    SESSION_ENDED,
    SESSION_STARTED,
    SESSION_TABLES,
    STREAM_PREFIX,
    PlayerSession,
    SessionEnd,
    SessionStart,
)
from stud_service.store import EventStore
from stud_service.store.positions import BadPosition, parse_position, position_of
from stud_service.store.reads import fetch

__all__ = ["RECENT", "BadPosition", "SessionPage", "current_sessions", "list_sessions", "session_from_row"]

MAX_PAGE_SIZE = 1000
RECENT = 20  # of a player's newest sessions, those a same-network rule looks at
_AT = "(s.payload->>'at_ms')::bigint"
# A session's end (the first, should a replica thought lost have written one too) and its tables' events.
_LATER = f"""
 (SELECT e.payload::text FROM events e WHERE e.stream_id = s.stream_id AND e.type = '{SESSION_ENDED}'
     AND e.payload->>'session' = s.payload->>'session' ORDER BY e.version LIMIT 1),
 (SELECT array_agg(t.payload::text ORDER BY t.version) FROM events t WHERE t.stream_id = s.stream_id
     AND t.type = '{SESSION_TABLES}' AND t.payload->>'session' = s.payload->>'session')"""
_FILTERS = {
    "player": "s.payload->>'player' = %(player)s",
    "device": "s.payload->>'device' = %(device)s",
    "network": "nullif(s.payload->>'address', '')::inet <<= %(network)s::cidr",
    "since": f"{_AT} >= %(since)s",
    "until": f"{_AT} < %(until)s",
}
# Each player's newest sessions, with whether each has ended: a function per player (migration 0020),
# which a Citus coordinator can run (a LIMIT in a lateral subquery over unnest it refuses).
_CURRENT = """
SELECT p.player, s.stream_id, s.version, s.payload, s.ended
  FROM unnest(%(players)s::text[]) AS p(player)
 CROSS JOIN LATERAL stud_recent_sessions(p.player, %(recent)s) AS s
"""


@dataclass(frozen=True)
class SessionPage:
    sessions: tuple[PlayerSession, ...]
    next_position: str  # "" on the last page


def session_from_row(stream_id: str, version: int, start: str, end: str | None,
                     tables: list[str] | None) -> PlayerSession:
    """A session from its start's row and its later events' payloads (JSON text)."""
    started = SessionStart.from_event(json.loads(start))
    ended = SessionEnd.from_event(json.loads(end)) if end else None
    named = list(started.tables)
    for payload in [json.loads(text) for text in tables or ()]:
        named += payload.get("tables") or ()
    if ended is not None:
        named += ended.tables
    return PlayerSession(started, ended, tuple(dict.fromkeys(named)), stream_id, version)


async def list_sessions(
    store: EventStore,
    *,
    player_id: str | None = None,
    device: str | None = None,
    network: IPNetwork | None = None,
    since_ms: int | None = None,
    until_ms: int | None = None,
    page_size: int = 50,
    position: str = "",
) -> SessionPage:
    """Sessions started in [``since_ms``, ``until_ms``) (either bound optional), of ``player_id``, with
    ``device``, from an address within ``network``, if given; after ``position`` (a previous page's
    ``next_position``); oldest first."""
    size = max(1, min(page_size, MAX_PAGE_SIZE))
    after_ms, after_stream, after_version = parse_position(position, STREAM_PREFIX)
    params: dict[str, Any] = {"player": player_id, "device": device,
                              "network": str(network) if network is not None else None,
                              "since": since_ms, "until": until_ms}
    conditions = [_FILTERS[name] for name, value in params.items() if value is not None]
    params.update(type=SESSION_STARTED, prefix=STREAM_PREFIX, after_ms=after_ms, after_stream=after_stream,
                  after_version=after_version, limit=size + 1)
    query = (
        f"SELECT s.stream_id, s.version, s.payload::text, {_LATER} FROM events s"
        " WHERE s.type = %(type)s AND starts_with(s.stream_id, %(prefix)s)"
        + "".join(f" AND {condition}" for condition in conditions)
        + f" AND ({_AT}, s.stream_id, s.version) > (%(after_ms)s, %(after_stream)s, %(after_version)s)"
        f" ORDER BY {_AT}, s.stream_id, s.version LIMIT %(limit)s"
    )
    rows = await fetch(store, query, params)
    sessions = tuple(session_from_row(*row) for row in rows[:size])
    last = sessions[-1] if len(rows) > size else None
    return SessionPage(sessions, position_of(last.start.at_ms, last.stream_id, last.version) if last else "")


async def current_sessions(store: EventStore, players: list[str]) -> dict[str, list[SessionStart]]:
    """Each player's sessions a same-network rule compares: those still open, and their newest."""
    if not players:
        return {}
    rows = await fetch(store, _CURRENT, {"players": sorted(set(players)), "recent": RECENT})
    current: dict[str, list[SessionStart]] = {}
    newest: dict[str, SessionStart] = {}
    for player, _stream, _version, text, ended in rows:
        start = SessionStart.from_event(json.loads(text))
        if player not in newest or start.at_ms > newest[player].at_ms:
            newest[player] = start
        if not ended:
            current.setdefault(player, []).append(start)
    for player, start in newest.items():
        if start not in current.get(player, []):
            current.setdefault(player, []).append(start)
    return current
