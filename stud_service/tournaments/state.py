"""A tournament's state, folded from its events, and the queries on it.

Mutable with ``__slots__`` like the table's state, but nothing outside ``evolve`` and ``decide`` changes
one: they work on a ``copy``.  Treat a state you hold as a value.

A copy shares its containers with the state it was made from and copies one only when it first changes it
(``mutable``, ``mutable_seats``): a decision at one table's hand end changes a few of a large tournament's
dicts (its chips, its table's seats), and copying every player's entries, places and seat with each hand
was about half of deciding it.
"""

from __future__ import annotations

import enum
from typing import Any, ClassVar

from stud_service.tournaments.rules.levels import level_number
from stud_service.tournaments.rules.payouts import default_payout_table
from stud_service.tournaments.structure import TournamentConfig

Group = tuple[tuple[str, int], ...]  # players out in one hand, each with their chips at its start


class Status(enum.StrEnum):
    REGISTERING = "REGISTERING"
    RUNNING = "RUNNING"
    FINISHED = "FINISHED"
    CANCELLED = "CANCELLED"


_FIELDS = (
    "tournament_id", "config", "status", "registered", "entries", "draw", "commitment", "secret",
    "level_index", "level_starts_ms", "tables", "tables_opened", "seat_of", "chips", "in_hand", "dealt_in",
    "last_hand", "unplaced", "hand_for_hand", "round_dealt", "prizes", "pool", "places", "prizes_won",
    "winner", "cancel_payouts",
)


_DICTS = ("entries", "seat_of", "chips", "in_hand", "dealt_in", "last_hand", "places", "prizes_won",
          "cancel_payouts")
_CONTAINERS = (*_DICTS, "tables")


class TournamentState:
    """``registered``: every player who entered, in order; ``entries``: each one's buy-ins (1 + re-entries).
    ``draw``/``commitment``/``secret``: the draw committed now (``secret`` None once revealed).
    ``tables``: table id -> seat -> player, the tables open now; ``seat_of``: player -> (table, seat) for
    the players still in; ``chips``: each player's chips after their last completed hand.  ``in_hand``:
    table -> its running hand; ``dealt_in``: table -> the players dealt into it; ``last_hand``: table ->
    the last hand it dealt.  ``unplaced``: the groups of players out (one per hand, in order) whose places
    are not fixed yet.  ``round_dealt``: the tables that dealt in this hand-for-hand round.  ``prizes``: by
    place once entries are over (None before); ``places``: player -> (place, last place shared);
    ``prizes_won``: player -> prize."""

    # ``_own``: the containers this state may change in place (not shared with a copy); ``_own_seats``: the
    # tables whose seat dicts it may (None: all of them).
    __slots__ = (*_FIELDS, "_own", "_own_seats")
    FIELDS: ClassVar[tuple[str, ...]] = _FIELDS

    def __init__(self) -> None:
        self.tournament_id: str | None = None
        self.config: TournamentConfig | None = None
        self.status = Status.REGISTERING
        self.registered: tuple[str, ...] = ()
        self.entries: dict[str, int] = {}
        self.draw = 0
        self.commitment = ""
        self.secret: dict[str, Any] | None = None
        self.level_index = -1
        self.level_starts_ms = 0
        self.tables: dict[str, dict[int, str]] = {}
        self.tables_opened = 0
        self.seat_of: dict[str, tuple[str, int]] = {}
        self.chips: dict[str, int] = {}
        self.in_hand: dict[str, int] = {}
        self.dealt_in: dict[str, tuple[str, ...]] = {}
        self.last_hand: dict[str, int] = {}
        self.unplaced: tuple[Group, ...] = ()
        self.hand_for_hand = False
        self.round_dealt: frozenset[str] = frozenset()
        self.prizes: tuple[int, ...] | None = None
        self.pool = 0
        self.places: dict[str, tuple[int, int]] = {}
        self.prizes_won: dict[str, int] = {}
        self.winner: str | None = None
        self.cancel_payouts: dict[str, int] = {}
        self._own: set[str] = set(_CONTAINERS)
        self._own_seats: set[str] | None = None

    def copy(self) -> TournamentState:
        """A copy sharing every container with this state until either changes one (then it copies it
        first: ``mutable``); tuples and frozensets are shared for good, nobody changes them."""
        other = TournamentState.__new__(TournamentState)
        for name in _FIELDS:
            setattr(other, name, getattr(self, name))
        other._own, other._own_seats = set(), set()
        self._own, self._own_seats = set(), set()  # this state too: neither may change a shared one in place
        return other

    def mutable(self, name: str) -> Any:
        """The container ``name`` (one of the dicts, or ``tables``), this state's own to change in place."""
        if name not in self._own:
            setattr(self, name, getattr(self, name).copy())
            self._own.add(name)
        return getattr(self, name)

    def mutable_seats(self, table_id: str) -> dict[int, str]:
        """The seats of ``table_id`` (seat -> player), this state's own to change in place."""
        tables: dict[str, dict[int, str]] = self.mutable("tables")
        own = self._own_seats
        if own is not None and table_id not in own:
            tables[table_id] = tables[table_id].copy()
            own.add(table_id)
        return tables[table_id]

    def new_table(self, table_id: str) -> None:
        """An empty table ``table_id`` (its seats this state's own)."""
        self.mutable("tables")[table_id] = {}
        if self._own_seats is not None:
            self._own_seats.add(table_id)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, TournamentState) and all(
            getattr(self, name) == getattr(other, name) for name in _FIELDS)

    def __repr__(self) -> str:
        return f"TournamentState({self.tournament_id!r}, {self.status}, players_left={players_left(self)})"


def initial_state() -> TournamentState:
    return TournamentState()


def players_left(state: TournamentState) -> int:
    """The players still in: seated, with chips."""
    return len(state.seat_of)


def entries_total(state: TournamentState) -> int:
    return sum(state.entries.values())


def entries_open(state: TournamentState) -> bool:
    """Before its prizes are fixed a tournament still takes entries (registrations, late or again)."""
    return state.prizes is None and state.status in (Status.REGISTERING, Status.RUNNING)


def current_level(state: TournamentState) -> int:
    """The number of the level running (a break: the level before it); 0 before the start."""
    if state.config is None or state.level_index < 0:
        return 0
    return level_number(state.config.levels, state.level_index)


def payout_table(state: TournamentState) -> tuple[int, ...]:
    """The structure's payout table, or the default one for the players entered so far."""
    assert state.config is not None
    return state.config.payouts or default_payout_table(len(state.registered))


def paid_places(state: TournamentState) -> int:
    return len(state.prizes) if state.prizes is not None else len(payout_table(state))


def table_counts(state: TournamentState) -> dict[str, int]:
    return {table_id: len(seats) for table_id, seats in state.tables.items()}


def tables_that_can_deal(state: TournamentState) -> list[str]:
    """Tables with two players or more."""
    return [table_id for table_id, seats in state.tables.items() if len(seats) >= 2]


def table_id_for(tournament_id: str, number: int) -> str:
    """The id of the tournament's table ``number`` (1, 2, ...): ``{tournament id}-t{number}``."""
    return f"{tournament_id}-t{number}"
