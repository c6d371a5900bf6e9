"""One hand read back from the event log, with everything needed to audit it.

A hand's events are the ones tagged with its number, from its ``HandStarted`` to its ``HandEnded``,
plus the untagged table events recorded in between or by the command that ended it (a player
sitting out, the seats freed after the hand).  ``load_hand`` reads that version range in one query.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from stud_service.audit.errors import HandNotFound, HandStillRunning
from stud_service.store import EventStore, StoredEvent

STREAM_PREFIX = "tables/"
# Events a command may append after HandEnded (one PlayerLeft or PlayerSatOut per seat).
TRAILING_EVENTS = 8


def stream_id_for(table_id: str) -> str:
    return STREAM_PREFIX + table_id


@dataclass(frozen=True)
class HandRecord:
    """``events``: the stored events from HandStarted to the end of the hand's last command."""

    table_id: str
    hand: int
    events: tuple[StoredEvent, ...]

    @property
    def started(self) -> dict[str, Any]:
        """The HandStarted payload; HandNotFound when the log holds none for this hand (tampering)."""
        for stored in self.events:
            if stored.type == "HandStarted" and stored.payload.get("hand") == self.hand:
                return stored.payload
        raise HandNotFound(f"hand {self.hand} of table {self.table_id!r} has no HandStarted event")

    @property
    def ended(self) -> dict[str, Any] | None:
        for stored in self.events:
            if stored.type == "HandEnded" and stored.payload.get("hand") == self.hand:
                return stored.payload
        return None

    @property
    def complete(self) -> bool:
        return self.ended is not None

    @property
    def first_version(self) -> int:
        return self.events[0].version

    @property
    def started_at(self) -> datetime:
        return self.events[0].recorded_at

    @property
    def seats(self) -> list[tuple[int, str, int]]:
        """((seat, player_id, starting stack), ...) of the players dealt in, by seat."""
        return [(int(seat), str(player), int(stack)) for seat, player, stack in self.started["seats"]]

    def seat_of(self, player_id: str) -> int | None:
        for seat, player, _stack in self.seats:
            if player == player_id:
                return seat
        return None

    @classmethod
    def from_payloads(
        cls,
        table_id: str,
        hand: int,
        payloads: list[dict[str, Any]],
        recorded_at: datetime | None = None,
        first_version: int = 1,
    ) -> HandRecord:
        """A record from event JSON held outside a store (an export, a test); hashes are left empty."""
        at = recorded_at or datetime.fromtimestamp(0, UTC)
        events = tuple(
            StoredEvent(
                stream_id_for(table_id),
                first_version + index,
                payload["type"],
                payload,
                payload.get("hand"),
                at,
                None,
                b"",
                b"",
            )
            for index, payload in enumerate(payloads)
        )
        return cls(table_id, hand, events)

    def require_complete(self) -> HandRecord:
        if not self.complete:
            raise HandStillRunning(f"hand {self.hand} of table {self.table_id!r} is still running")
        return self


async def load_hand(store: EventStore, table_id: str, hand: int) -> HandRecord:
    """The hand's events; HandNotFound if the table has no such hand."""
    stream_id = stream_id_for(table_id)
    rows = await fetch(
        store,
        "SELECT min(version), max(version) FROM events WHERE stream_id = %s AND hand = %s",
        (stream_id, hand),
    )
    low, high = rows[0] if rows else (None, None)
    if low is None:
        raise HandNotFound(f"table {table_id!r} has no hand {hand}")
    events = await store.read_stream(stream_id, after_version=low - 1, limit=high - low + 1 + TRAILING_EVENTS)
    # Keep the trailing table events only up to the next hand's start.
    kept = []
    for stored in events:
        if stored.version > high and stored.hand is not None:
            break
        kept.append(stored)
    return HandRecord(table_id, hand, tuple(kept))


async def fetch(store: EventStore, query: str, params: Any) -> list[tuple[Any, ...]]:
    """Rows of a read-only query on the store's pool."""
    async with store.pool.connection() as conn:
        cursor = await conn.execute(query, params)
        return await cursor.fetchall()
