"""A tournament read back from the event log: its stream ``tournaments/{id}``, what its hand histories say
of it (``TournamentInfo``: buy-in, fee, who went out in which hand and in which place), and its hands.

A tournament's tables are ordinary table streams (``tables/{tournament id}-t{n}``); the tournament's
``TableHandEnded`` events name each hand it folded, in the order it folded them.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from stud_service.audit.records import HandRecord
from stud_service.store import EventStore, StoredEvent
from stud_service.store.reads import fetch
from stud_service.tournaments.errors import NoTournament

TOURNAMENT_PREFIX = "tournaments/"


def tournament_stream_id(tournament_id: str) -> str:
    return TOURNAMENT_PREFIX + tournament_id


def tournament_number(tournament_id: str) -> int:
    """A stable 10-digit number for the tournament: hand-history tools read ``Tournament #`` as digits,
    and a tournament id is text (the hand number is derived the same way from the hand's stream)."""
    digest = hashlib.sha256(tournament_stream_id(tournament_id).encode()).digest()
    return 10**9 + int.from_bytes(digest[:8], "big") % (9 * 10**9)


def table_number(tournament_id: str, table_id: str) -> str:
    """``3`` for the tournament's table ``{id}-t3``; another table's id as it is."""
    prefix = f"{tournament_id}-t"
    return table_id[len(prefix):] if table_id.startswith(prefix) else table_id


@dataclass(frozen=True)
class Finish:
    """A player out of the tournament (or its winner) with the place fixed for them: ``place`` to
    ``last_place`` when shared, and the prize in the buy-in's currency."""

    player_id: str
    place: int
    last_place: int
    prize: int


@dataclass(frozen=True)
class TournamentInfo:
    """What a hand history of one of the tournament's tables says of the tournament: its id and name, the
    buy-in and fee (in ``currency``'s smallest unit; "" is play money; None: not known, the tournament's
    stream being missing), and the players who finished in each hand: ``finishes`` maps (table id, hand)
    to the players out in that hand whose place is fixed (the worst place first, as the room writes them),
    and the winner, in the hand that decided it."""

    tournament_id: str
    name: str = ""
    buy_in: int | None = None
    fee: int = 0
    currency: str = ""
    finishes: Mapping[tuple[str, int], tuple[Finish, ...]] = field(default_factory=dict)
    winner: str | None = None

    @property
    def number(self) -> int:
        return tournament_number(self.tournament_id)

    def finishers(self, table_id: str, hand: int) -> tuple[Finish, ...]:
        return tuple(self.finishes.get((table_id, hand), ()))

    @classmethod
    def from_payloads(cls, payloads: Iterable[Mapping[str, Any]]) -> TournamentInfo:
        """The info the tournament's events (JSON, in order) give; NoTournament without a
        TournamentCreated first."""
        events = list(payloads)
        if not events or events[0].get("type") != "TournamentCreated":
            raise NoTournament("the stream holds no tournament")
        created = events[0]
        config = created.get("config") or {}
        out_in: dict[str, tuple[str, int]] = {}  # the last elimination: a re-entry's earlier one has no place
        places: dict[str, Finish] = {}
        last_out: tuple[str, int] | None = None
        winner: str | None = None
        decided: tuple[str, int] | None = None
        for event in events:
            kind = event.get("type")
            if kind == "PlayersEliminated":
                last_out = (str(event["table_id"]), int(event["hand"]))
                for player, _chips in event["players"]:
                    out_in[str(player)] = last_out
            elif kind == "PlacesFixed":
                for player, place, last, prize in event["places"]:
                    places[str(player)] = Finish(str(player), int(place), int(last), int(prize))
            elif kind == "TournamentFinished":  # decided by the hand its last opponents went out in
                winner, decided = str(event["winner"]), last_out
        finishes: dict[tuple[str, int], list[Finish]] = {}
        for player, finish in places.items():
            hand = decided if player == winner else out_in.get(player)
            if hand is not None:
                finishes.setdefault(hand, []).append(finish)
        return cls(
            tournament_id=str(created["tournament_id"]),
            name=str(config.get("name", "")),
            buy_in=int(config.get("buy_in", 0)),
            fee=int(config.get("fee", 0)),
            currency=str(config.get("currency", "")),
            finishes={hand: tuple(sorted(found, key=lambda f: (-f.place, f.player_id)))
                      for hand, found in finishes.items()},
            winner=winner,
        )


async def load_tournament(store: EventStore, tournament_id: str) -> list[StoredEvent]:
    """The tournament's events in order; NoTournament for a stream that holds none."""
    events = await store.read_stream(tournament_stream_id(tournament_id))
    if not events:
        raise NoTournament(f"there is no tournament {tournament_id!r}")
    return events


# The events TournamentInfo reads (none holds a secret): a hand's export reads these, not the whole stream.
INFO_EVENTS = ["TournamentCreated", "PlayersEliminated", "PlacesFixed", "TournamentFinished"]


async def tournament_info(store: EventStore, tournament_id: str) -> TournamentInfo:
    """The tournament's info, read from its stream's events of the kinds it needs (NoTournament)."""
    rows = await fetch(
        store,
        "SELECT payload::text FROM events WHERE stream_id = %s AND type = ANY(%s) ORDER BY version",
        (tournament_stream_id(tournament_id), INFO_EVENTS),
    )
    if not rows:
        raise NoTournament(f"there is no tournament {tournament_id!r}")
    return TournamentInfo.from_payloads(json.loads(text) for (text,) in rows)


async def tournament_info_for(store: EventStore, record: HandRecord) -> TournamentInfo | None:
    """The info of the tournament whose table dealt ``record``; None for a cash table's hand.  A
    tournament table whose tournament's stream is missing gets the id alone (its history says no
    buy-in rather than failing)."""
    tournament_id = record.started.get("config", {}).get("tournament_id")
    if not tournament_id:
        return None
    try:
        return await tournament_info(store, str(tournament_id))
    except NoTournament:
        return TournamentInfo(str(tournament_id))


def folded_hands(payloads: Iterable[Mapping[str, Any]]) -> list[tuple[str, int]]:
    """(table id, hand) of every hand the tournament folded (its TableHandEnded events), in order."""
    return [(str(p["table_id"]), int(p["hand"])) for p in payloads if p.get("type") == "TableHandEnded"]
