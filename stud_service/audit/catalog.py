"""Finding hands: by table, by player, by time, a page at a time.

Hands are listed in the order they started (ties by table, then hand number).  A page token is the
position of the last hand of the previous page, so pages stay stable while new hands are played.
"""

from __future__ import annotations

import base64
import json
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from stud_service.audit.records import STREAM_PREFIX, fetch, stream_id_for
from stud_service.store import EventStore

MAX_PAGE_SIZE = 1000
_BEGINNING = datetime(1970, 1, 1, tzinfo=UTC)


class BadPageToken(ValueError):
    """A page token this service did not issue."""


@dataclass(frozen=True)
class HandSummary:
    table_id: str
    hand: int
    started_at: datetime
    variant: str
    players: tuple[tuple[int, str, int], ...]  # (seat, player_id, starting stack) dealt in
    complete: bool
    first_version: int
    pot: int  # total awarded; 0 while the hand runs
    currency: str = ""  # the table's ISO 4217 code; "" for play chips

    @property
    def name(self) -> str:
        return f"tables/{self.table_id}/hands/{self.hand}"


@dataclass(frozen=True)
class HandPage:
    hands: tuple[HandSummary, ...]
    next_page_token: str  # empty on the last page


def encode_page_token(summary: HandSummary) -> str:
    raw = json.dumps([summary.started_at.isoformat(), stream_id_for(summary.table_id), summary.hand])
    return base64.urlsafe_b64encode(raw.encode()).decode()


def decode_page_token(token: str) -> tuple[datetime, str, int]:
    try:
        started, stream, hand = json.loads(base64.urlsafe_b64decode(token.encode()))
        after, stream, hand = datetime.fromisoformat(started), str(stream), int(hand)
    except (ValueError, TypeError, OverflowError) as error:  # OverflowError: a hand of Infinity
        raise BadPageToken("the page token is not one this service issued") from error
    in_range = after.tzinfo is not None and 0 <= hand < 2**63
    if not in_range or not stream.startswith(STREAM_PREFIX) or "\x00" in stream:
        raise BadPageToken("the page token is not one this service issued")
    return after, stream, hand


_LIST_QUERY = """
SELECT s.stream_id, s.hand, s.recorded_at, coalesce(s.payload->>'game', s.payload->'config'->>'variant'),
       s.payload->'seats', s.version,
       e.payload->'pots', coalesce(s.payload->'config'->>'currency', '')
  FROM events s
  LEFT JOIN events e ON e.stream_id = s.stream_id AND e.hand = s.hand AND e.type = 'HandEnded'
 WHERE s.type = 'HandStarted' AND starts_with(s.stream_id, %(prefix)s)
   AND (%(stream)s::text IS NULL OR s.stream_id = %(stream)s)
   AND (%(player)s::text IS NULL
        OR s.payload->'seats' @> jsonb_build_array(jsonb_build_array(%(player)s::text)))
   AND (%(since)s::timestamptz IS NULL OR s.recorded_at >= %(since)s)
   AND (%(until)s::timestamptz IS NULL OR s.recorded_at < %(until)s)
   AND (s.recorded_at, s.stream_id, s.hand) > (%(after_time)s, %(after_stream)s, %(after_hand)s)
 ORDER BY s.recorded_at, s.stream_id, s.hand
 LIMIT %(limit)s
"""


def _summary(row: tuple[Any, ...]) -> HandSummary:
    stream_id, hand, started_at, variant, seats, version, pots, currency = row
    pot = sum(int(p.get("amount", 0)) for p in pots) if pots else 0
    return HandSummary(
        table_id=stream_id[len(STREAM_PREFIX) :],
        hand=int(hand),
        started_at=started_at,
        variant=str(variant),
        players=tuple((int(seat), str(player), int(stack)) for seat, player, stack in seats),
        complete=pots is not None,
        first_version=int(version),
        pot=pot,
        currency=str(currency),
    )


async def list_hands(
    store: EventStore,
    *,
    table_id: str | None = None,
    player_id: str | None = None,
    since: datetime | None = None,
    until: datetime | None = None,
    page_size: int = 50,
    page_token: str = "",
) -> HandPage:
    """One page of hands matching every filter given (none: all hands of all tables)."""
    size = max(1, min(page_size, MAX_PAGE_SIZE))
    after = decode_page_token(page_token) if page_token else (_BEGINNING, "", 0)
    rows = await fetch(
        store,
        _LIST_QUERY,
        {
            "prefix": STREAM_PREFIX,
            "stream": stream_id_for(table_id) if table_id else None,
            "player": player_id,
            "since": since,
            "until": until,
            "after_time": after[0],
            "after_stream": after[1],
            "after_hand": after[2],
            "limit": size + 1,
        },
    )
    hands = tuple(_summary(row) for row in rows[:size])
    token = encode_page_token(hands[-1]) if len(rows) > size else ""
    return HandPage(hands, token)
