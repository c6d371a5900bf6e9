"""Shared networks and devices from the player sessions in the log: the report's ``SessionOverlaps``.

For a pair of players, over the sessions that overlap the report's window:

- **network**: pairs of sessions, one of each player, open at the same time from the same network (the same
  /24 for IPv4, /64 for IPv6: one household behind one router; the same address counts too);
- **device**: pairs of sessions, one of each player, with the same device id, at any time (one device used
  by two accounts is the stronger sign, whenever it was).

A session still open counts as open until now. Sessions without an address (a Unix socket) or without a
device id share nothing of that kind.
"""

from __future__ import annotations

import time
from collections import defaultdict
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from datetime import datetime

from stud_service.audit.integrity.score import Overlap
from stud_service.sessions.networks import network_of, parse_address
from stud_service.sessions.records import SESSION_ENDED, SESSION_STARTED, STREAM_PREFIX
from stud_service.store import EventStore
from stud_service.store.reads import fetch

_ANY = (f"SELECT EXISTS (SELECT 1 FROM events WHERE type = '{SESSION_STARTED}'"
        f" AND starts_with(stream_id, '{STREAM_PREFIX}'))")
_SESSIONS = f"""
SELECT s.payload->>'player', s.payload->>'address', s.payload->>'device', (s.payload->>'at_ms')::bigint,
       (SELECT (e.payload->>'at_ms')::bigint FROM events e WHERE e.stream_id = s.stream_id
           AND e.type = '{SESSION_ENDED}' AND e.payload->>'session' = s.payload->>'session'
         ORDER BY e.version LIMIT 1)
  FROM events s
 WHERE s.type = '{SESSION_STARTED}' AND starts_with(s.stream_id, '{STREAM_PREFIX}')
"""

Span = tuple[int, int]  # a session's start and end, ms


@dataclass
class _Player:
    networks: dict[str, list[Span]] = field(default_factory=lambda: defaultdict(list))
    devices: dict[str, int] = field(default_factory=lambda: defaultdict(int))


def _overlapping(mine: list[Span], theirs: list[Span]) -> int:
    """Pairs of spans, one of each list, open at a common moment."""
    return sum(1 for a_start, a_end in mine for b_start, b_end in theirs
               if a_start <= b_end and b_start <= a_end)


class RecordedSessions:
    """The sessions of the log, per player, for ``score.score_pairs``."""

    def __init__(self, rows: Iterable[tuple[str, str, str, int, int | None]], now_ms: int) -> None:
        self._players: dict[str, _Player] = defaultdict(_Player)
        for player, address_text, device, start, end in rows:
            found = self._players[player]
            address = parse_address(address_text or "")
            if address is not None:
                found.networks[str(network_of(address))].append((start, now_ms if end is None else end))
            if device:
                found.devices[device] += 1

    def overlaps(self, pairs: Iterable[tuple[str, str]]) -> Mapping[tuple[str, str], Overlap]:
        out: dict[tuple[str, str], Overlap] = {}
        for a, b in pairs:
            mine, theirs = self._players.get(a), self._players.get(b)
            if mine is None or theirs is None:
                continue
            network = sum(_overlapping(spans, theirs.networks[key])
                          for key, spans in mine.networks.items() if key in theirs.networks)
            device = sum(count * theirs.devices[key] for key, count in mine.devices.items()
                         if key in theirs.devices)
            if network or device:
                out[(a, b)] = Overlap(network, device)
        return out


def _ms(when: datetime | None) -> int | None:
    return None if when is None else int(when.timestamp() * 1000)


async def recorded_sessions(store: EventStore, since: datetime | None = None,
                            until: datetime | None = None) -> RecordedSessions | None:
    """The sessions that overlap [``since``, ``until``); None when the log holds no session at all (the
    report then says that no network or device evidence exists, rather than that none was found)."""
    if not (await fetch(store, _ANY, ()))[0][0]:
        return None
    until_ms, since_ms = _ms(until), _ms(since)
    query = _SESSIONS + (" AND (s.payload->>'at_ms')::bigint < %(until)s" if until_ms is not None else "")
    rows = await fetch(store, query, {"until": until_ms})
    now_ms = int(time.time() * 1000)
    kept = [row for row in rows if since_ms is None or row[4] is None or row[4] >= since_ms]
    return RecordedSessions(kept, now_ms)
