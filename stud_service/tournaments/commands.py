"""Commands: requests to a tournament.  ``now_ms`` is the caller's clock (ms since the epoch); randomness
comes in as committed seeds (``NextDraw``), never from the tournament itself."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from stud_service.tournaments.structure import TournamentConfig


@dataclass(frozen=True, slots=True)
class NextDraw:
    """A fresh seed's ``commitment`` (64 lowercase hex digits, SHA-256 of the seed) and ``secret``
    (``draws.draw_secret(seed)``): committed now, revealed by the command whose events next draw.  Every
    command that may draw brings one; one that does not draw leaves it unused."""

    commitment: str
    secret: dict[str, Any]


@dataclass(frozen=True, slots=True)
class CreateTournament:
    """``by``: who creates it (the operator), recorded with it."""

    tournament_id: str
    config: TournamentConfig
    first_draw: NextDraw
    now_ms: int = 0
    by: str = ""


@dataclass(frozen=True, slots=True)
class Register:
    """An entry (before the start, or late); a sit & go's last seat starts it, with the seating draw."""

    player_id: str
    now_ms: int = 0
    next_draw: NextDraw | None = None


# Why a player is unregistered: their own call, or their exclusion (docs/player-protection.md).
UNREGISTER_REASONS = ("request", "excluded")


@dataclass(frozen=True, slots=True)
class Unregister:
    player_id: str
    now_ms: int = 0
    reason: str = "request"


@dataclass(frozen=True, slots=True)
class ReEnter:
    player_id: str
    now_ms: int = 0
    next_draw: NextDraw | None = None


@dataclass(frozen=True, slots=True)
class StartTournament:
    """A scheduled tournament's start time has come: it starts, or is cancelled for too few entrants."""

    now_ms: int
    next_draw: NextDraw | None = None


@dataclass(frozen=True, slots=True)
class AdvanceLevel:
    """The level clock: the running level's time is up by ``now_ms``."""

    now_ms: int
    next_draw: NextDraw | None = None


@dataclass(frozen=True, slots=True)
class DealTableHand:
    """``table_id`` is about to deal its hand ``hand`` (the table's next hand number) to ``seated`` (the
    players it seats, ``orders.seated_players``): refused unless they are the tournament's players there.
    None: not checked (a deal read back from the log, whose players the tournament recorded)."""

    table_id: str
    hand: int
    now_ms: int = 0
    seated: tuple[str, ...] | None = None


@dataclass(frozen=True, slots=True)
class EndTableHand:
    """``table_id``'s hand ``hand`` ended: ``chips`` ((player, at its start, at its end), ...) for every
    player dealt in (the table's HandStarted and HandEnded say them)."""

    table_id: str
    hand: int
    chips: tuple[tuple[str, int, int], ...]
    now_ms: int = 0
    next_draw: NextDraw | None = None


@dataclass(frozen=True, slots=True)
class CancelTournament:
    """The operator stops the tournament (``by``: who, ``reason``: why, free text)."""

    by: str
    reason: str
    now_ms: int = 0


Command = (CreateTournament | Register | Unregister | ReEnter | StartTournament | AdvanceLevel | DealTableHand
           | EndTableHand | CancelTournament)
