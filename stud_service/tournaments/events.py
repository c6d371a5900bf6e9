"""Events: the facts of a tournament (RULES.md §11), in the order they happened, on its stream
``tournaments/{id}``.

Frozen dataclasses of ints, strings, bools and tuples of those (plus the structure in TournamentCreated and
the verbatim ``secret`` of a DrawCommitted).  ``codec.event_to_json`` gives each as plain JSON with
``"type"`` and ``"v"`` (its entry in ``EVENT_VERSIONS``: bump it when a type's fields change and teach the
decoder the old shape), as the table's events do.  ``at_ms`` is the caller's clock at the command.

Players are player ids; tables are the ids of the table streams the tournament drives
(``{tournament id}-t{n}``); ``hand`` is a table's own hand number.  Amounts of money (refunds, prizes) are
in the currency's smallest unit; chips are tournament chips.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from stud_service.tournaments.structure import TournamentConfig


@dataclass(frozen=True, slots=True)
class TournamentCreated:
    """``by``: who created it (the operator's id; "" when not said)."""

    tournament_id: str
    config: TournamentConfig
    at_ms: int
    by: str = ""


@dataclass(frozen=True, slots=True)
class DrawCommitted:
    """The commitment to draw ``draw``'s seed, published before anything that draw decides is known
    (``draws``).  ``secret``: ``{"seed": hex}``, sealed at rest, never shown."""

    draw: int
    commitment: str
    secret: dict[str, Any]
    at_ms: int


@dataclass(frozen=True, slots=True)
class DrawRevealed:
    """Draw ``draw``'s seed (hex), revealed because the events after it draw from it (in their order)."""

    draw: int
    seed: str
    at_ms: int


@dataclass(frozen=True, slots=True)
class PlayerRegistered:
    """An entry: the account is debited buy-in + fee with it (the ledger's part, not wired yet)."""

    player_id: str
    at_ms: int


@dataclass(frozen=True, slots=True)
class PlayerUnregistered:
    """Before the start: buy-in and fee are refunded.  ``reason``: "request" (the player's own call) or
    "excluded" (their self-exclusion or time-out took them out); v1 events, before reasons, were requests."""

    player_id: str
    at_ms: int
    reason: str = "request"


@dataclass(frozen=True, slots=True)
class PlayerReEntered:
    """A player out of chips bought in again (``entry``: 2 for their first re-entry); a full buy-in joins
    the pool and the fee goes to the house."""

    player_id: str
    entry: int
    at_ms: int


@dataclass(frozen=True, slots=True)
class TournamentStarted:
    entrants: int
    at_ms: int


@dataclass(frozen=True, slots=True)
class LevelStarted:
    """Level ``level`` (its number; ``index`` in the structure's levels) runs from ``starts_ms``, the end of
    the one before, whenever the clock's command came."""

    index: int
    level: int
    starts_ms: int
    at_ms: int


@dataclass(frozen=True, slots=True)
class BreakStarted:
    """No hand is dealt until the next level; a hand running now finishes first."""

    index: int
    starts_ms: int
    at_ms: int


@dataclass(frozen=True, slots=True)
class TableOpened:
    table_id: str
    at_ms: int


@dataclass(frozen=True, slots=True)
class PlayerSeated:
    """A player takes ``seat`` at ``table_id`` with ``chips``: at the start (the seating draw), a late
    registration or a re-entry (the starting stack)."""

    player_id: str
    table_id: str
    seat: int
    chips: int
    at_ms: int


@dataclass(frozen=True, slots=True)
class TableHandDealt:
    """The tournament let ``table_id`` deal its hand ``hand``, at the level of ``index``."""

    table_id: str
    hand: int
    index: int
    at_ms: int


@dataclass(frozen=True, slots=True)
class TableHandEnded:
    """What the tournament folds of a table's hand: ``chips`` ((player, at its start, at its end), ...)
    for every player dealt in."""

    table_id: str
    hand: int
    chips: tuple[tuple[str, int, int], ...]
    at_ms: int


@dataclass(frozen=True, slots=True)
class PlayersEliminated:
    """Players out of chips after ``table_id``'s hand ``hand``, each with the chips they held at its start
    (which orders their places).  They leave the table."""

    table_id: str
    hand: int
    players: tuple[tuple[str, int], ...]
    at_ms: int


@dataclass(frozen=True, slots=True)
class PlacesFixed:
    """Places and their prizes: ((player, place, last place shared, prize), ...); a place not shared has
    ``last place == place``.  Prizes are credited with it (the ledger's part, not wired yet)."""

    places: tuple[tuple[str, int, int, int], ...]
    at_ms: int


@dataclass(frozen=True, slots=True)
class PlayerMoved:
    """Balancing or a broken table: the player leaves ``from_table`` (between its hands) for ``seat`` at
    ``to_table``, with their chips, dealt in from the next hand there."""

    player_id: str
    from_table: str
    to_table: str
    seat: int
    chips: int
    at_ms: int


@dataclass(frozen=True, slots=True)
class TableBroken:
    """The table closes; its players were moved by the PlayerMoved events before this."""

    table_id: str
    at_ms: int


@dataclass(frozen=True, slots=True)
class HandForHandStarted:
    players_left: int
    at_ms: int


@dataclass(frozen=True, slots=True)
class HandForHandEnded:
    players_left: int
    at_ms: int


@dataclass(frozen=True, slots=True)
class PrizesFixed:
    """Entries are over: ``entries`` buy-ins (re-entries too) of ``players`` players make the ``pool``;
    ``prizes`` by place, best first."""

    entries: int
    players: int
    pool: int
    prizes: tuple[int, ...]
    at_ms: int


@dataclass(frozen=True, slots=True)
class TournamentFinished:
    winner: str
    at_ms: int


@dataclass(frozen=True, slots=True)
class TournamentCancelled:
    """Stopped by ``by`` for ``reason``.  Before the start every entry's buy-in and fee is refunded
    (``refunds``); after it the pool pays the players still in (``payouts``), §11 Cancellation."""

    by: str
    reason: str
    refunds: tuple[tuple[str, int], ...]
    payouts: tuple[tuple[str, int], ...]
    at_ms: int


Event = (
    TournamentCreated | DrawCommitted | DrawRevealed | PlayerRegistered | PlayerUnregistered | PlayerReEntered
    | TournamentStarted | LevelStarted | BreakStarted | TableOpened | PlayerSeated | TableHandDealt
    | TableHandEnded | PlayersEliminated | PlacesFixed | PlayerMoved | TableBroken | HandForHandStarted
    | HandForHandEnded | PrizesFixed | TournamentFinished | TournamentCancelled
)

EVENT_TYPES: dict[str, type[Event]] = {cls.__name__: cls for cls in Event.__args__}  # type: ignore[attr-defined]
EVENT_VERSIONS: dict[type[Event], int] = {cls: 1 for cls in EVENT_TYPES.values()} | {PlayerUnregistered: 2}
