"""One hand read back from the event log, with everything needed to audit it.

A hand's events are the ones tagged with its number, from its ``HandStarted`` to its ``HandEnded``,
plus the untagged table events recorded in between or by the command that ended it (a player
sitting out, the seats freed after the hand).  ``load_hand`` reads that version range in one query,
and, at the same time, for hands whose seed was committed before the deal, the ``ShuffleCommitted``
event the hand's ``HandStarted.extra.commitment_version`` names and the ``ClientSeedSet`` events
shortly before the deal (to check that the commitment came first).
"""

from __future__ import annotations

import asyncio
import json
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from stud_service.audit.errors import HandNotFound, HandStillRunning
from stud_service.audit.fairness import CommitmentOrder, client_seeds_from_extra
from stud_service.shuffle import seed_from_secret
from stud_service.store import EventStore, StoredEvent
from stud_service.store.reads import fetch

STREAM_PREFIX = "tables/"
# Events a command may append after HandEnded (one PlayerLeft or PlayerSatOut per seat).
TRAILING_EVENTS = 8
# How far before the commitment the ClientSeedSet events are read: far enough to see a seed set just
# before the commitment (which the order check must refuse), bounded so a long table costs no more.
SEED_LOOKBACK = 256


def stream_id_for(table_id: str) -> str:
    return STREAM_PREFIX + table_id


@dataclass(frozen=True)
class HandRecord:
    """``events``: the stored events from HandStarted to the end of the hand's last command;
    ``commitment``: the ShuffleCommitted that committed the hand's server seed (None for hands logged
    before it existed); ``seed_events``: ``(version, payload)`` of the ClientSeedSet events read before
    the deal; ``sitting_out``: the seats dealt in whose players sat out when it started (only at a
    tournament table, which deals them in: RULES.md §11); ``deleted_chat``: the numbers of the chat messages
    sent during the hand that an operator deleted, then or later (docs/chat.md)."""

    table_id: str
    hand: int
    events: tuple[StoredEvent, ...]
    commitment: StoredEvent | None = None
    seed_events: tuple[tuple[int, dict[str, Any]], ...] = ()
    sitting_out: tuple[int, ...] = ()
    deleted_chat: frozenset[int] = frozenset()

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
    def voided(self) -> dict[str, Any] | None:
        """The hand's HandVoided payload (RULES.md §12: it paid nothing and shows no card); None if it
        was played to its end."""
        for stored in self.events:
            if stored.type == "HandVoided" and stored.payload.get("hand") == self.hand:
                return stored.payload
        return None

    @property
    def commitment_version(self) -> int | None:
        """The version of the ShuffleCommitted the hand names (None: a hand logged before)."""
        extra = self.started.get("extra")
        version = extra.get("commitment_version") if isinstance(extra, dict) else None
        return version if isinstance(version, int) and not isinstance(version, bool) else None

    def server_seed(self) -> bytes | None:
        """The hand's server seed: from its ShuffleCommitted (sealed at rest, opened by the store), or
        where older hands logged it (HandEnded, HandStarted.extra); None when the log holds none."""
        if self.commitment is not None:
            return seed_from_secret(self.commitment.payload.get("secret"))
        # An older hand: HandEnded revealed it (v2/v3), and HandStarted's extra kept it.
        extra = self.started.get("extra")
        logged = (self.ended or {}).get("server_seed")
        if not isinstance(logged, str) and isinstance(extra, dict):
            logged = extra.get("server_seed")
        return seed_from_secret({"server_seed": logged})

    def commitment_order(self) -> CommitmentOrder | None:
        """Where the commitment and the client seeds the hand used sit in the log (None: an older hand)."""
        version = self.commitment_version
        if version is None:
            return None
        stored = self.commitment
        committed: dict[str, Any] = {}
        if stored is not None and stored.version == version and stored.type == "ShuffleCommitted":
            committed = stored.payload
        versions: dict[int, int | None] = {}
        for seat, text in client_seeds_from_extra(self.started.get("extra")).items():
            matching = [v for v, p in self.seed_events
                        if p.get("seat") == seat and p.get("seed") == text and v < self.first_version]
            versions[seat] = max(matching) if matching else None
        commitment = committed.get("commitment")
        next_hand = committed.get("next_hand")
        return CommitmentOrder(
            commitment_version=version,
            committed=commitment if isinstance(commitment, str) else None,
            committed_hand=next_hand if isinstance(next_hand, int) else None,
            seed_versions=versions,
            started_version=self.first_version,
        )

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
        commitment: tuple[int, dict[str, Any]] | None = None,
        seed_events: tuple[tuple[int, dict[str, Any]], ...] = (),
        sitting_out: tuple[int, ...] = (),
    ) -> HandRecord:
        """A record from event JSON held outside a store (an export, a test); hashes are left empty.
        ``commitment``: ``(version, payload)`` of the hand's ShuffleCommitted."""
        at = recorded_at or datetime.fromtimestamp(0, UTC)

        def stored(version: int, payload: dict[str, Any]) -> StoredEvent:
            return StoredEvent(
                stream_id_for(table_id), version, payload["type"], payload, payload.get("hand"), at, None,
                b"", b"",
            )

        events = tuple(stored(first_version + index, payload) for index, payload in enumerate(payloads))
        committed = stored(*commitment) if commitment else None
        return cls(table_id, hand, events, committed, tuple(seed_events), tuple(sitting_out))

    def require_complete(self) -> HandRecord:
        if not self.complete:
            raise HandStillRunning(f"hand {self.hand} of table {self.table_id!r} is still running")
        return self


async def load_hand(store: EventStore, table_id: str, hand: int) -> HandRecord:
    """The hand's events; HandNotFound if the table has no such hand."""
    stream_id = stream_id_for(table_id)
    # The hand's range and its HandStarted's extra (public JSON: the commitment's version, the client
    # seeds), so that the hand, its ShuffleCommitted and the client seeds' events are then read at once.
    rows = await fetch(
        store,
        "SELECT min(version), max(version), (SELECT jsonb_build_array(s.payload -> 'extra',"
        " s.payload -> 'config' -> 'tournament_id')::text"
        " FROM events s WHERE s.stream_id = %s AND s.hand = %s AND s.type = 'HandStarted' LIMIT 1)"
        " FROM events WHERE stream_id = %s AND hand = %s",
        (stream_id, hand, stream_id, hand),
    )
    low, high, started_text = rows[0] if rows else (None, None, None)
    if low is None:
        raise HandNotFound(f"table {table_id!r} has no hand {hand}")
    extra, tournament_id = json.loads(started_text) if started_text else (None, None)
    extra = extra if isinstance(extra, dict) else {}
    named = extra.get("commitment_version")
    version = named if isinstance(named, int) and not isinstance(named, bool) and 0 < named < low else None
    reads: list[Any] = [
        store.read_stream(stream_id, after_version=low - 1, limit=high - low + 1 + TRAILING_EVENTS)
    ]
    if version is not None:
        # The commitment through the store (which opens its sealed secret) and, when the hand used
        # client seeds, those events (public) by one query on their type.
        reads.append(store.read_stream(stream_id, after_version=version - 1, limit=1))
        if extra.get("client_seeds"):
            reads.append(fetch(
                store,
                "SELECT version, payload::text FROM events WHERE stream_id = %s AND version > %s"
                " AND version < %s AND type = 'ClientSeedSet' ORDER BY version",
                (stream_id, max(0, version - SEED_LOOKBACK), low),
            ))
    if tournament_id:
        reads.append(_sitting_out_before(store, stream_id, low))
    results = list(await asyncio.gather(*reads))
    sitting_out: tuple[int, ...] = results.pop() if tournament_id else ()
    events = results[0]
    committed = results[1] if len(results) > 1 else []
    seeds = results[2] if len(results) > 2 else []
    # Keep the trailing table events only up to the next hand's start.
    kept = []
    for stored in events:
        if stored.version > high and stored.hand is not None:
            break
        kept.append(stored)
    said = [int(stored.payload["number"]) for stored in kept if stored.type == "ChatMessageSent"]
    return HandRecord(
        table_id,
        hand,
        tuple(kept),
        committed[0] if committed else None,
        tuple((int(v), json.loads(text)) for v, text in seeds),
        sitting_out,
        await _deleted_chat(store, stream_id, low, said) if said else frozenset(),
    )


async def _deleted_chat(store: EventStore, stream_id: str, since: int, numbers: list[int]) -> frozenset[int]:
    """Which of the chat messages ``numbers`` (sent after version ``since``) an operator deleted, then or at
    any time since (docs/chat.md)."""
    rows = await fetch(
        store,
        "SELECT (payload ->> 'number')::bigint FROM events WHERE stream_id = %s AND version > %s"
        " AND type = 'ChatMessageDeleted' AND (payload ->> 'number')::bigint = ANY(%s)",
        (stream_id, since, numbers),
    )
    return frozenset(int(number) for (number,) in rows)


async def _sitting_out_before(store: EventStore, stream_id: str, version: int) -> tuple[int, ...]:
    """The seats whose last PlayerSatOut / PlayerSatIn / PlayerSeated / PlayerLeft before ``version`` sat
    them out (events without secrets: read as stored).  A cash table deals no such seat in, so only a
    tournament table's hand needs them."""
    rows = await fetch(
        store,
        "SELECT DISTINCT ON (payload ->> 'seat') (payload ->> 'seat')::int, type FROM events"
        " WHERE stream_id = %s AND version < %s"
        " AND type IN ('PlayerSatOut', 'PlayerSatIn', 'PlayerSeated', 'PlayerLeft')"
        " ORDER BY payload ->> 'seat', version DESC",
        (stream_id, version),
    )
    return tuple(sorted(seat for seat, kind in rows if kind == "PlayerSatOut"))
