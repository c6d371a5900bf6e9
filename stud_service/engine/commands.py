"""Commands: requests to the table.  ``now_ms`` is the caller's clock (ms since the epoch);
the engine never reads a clock of its own."""

from __future__ import annotations

import enum
from dataclasses import dataclass, field
from typing import Any

from stud_service.engine.config import TableConfig
from stud_service.engine.records import fast_frozen_init


class ActionKind(enum.StrEnum):
    FOLD = "FOLD"
    CHECK = "CHECK"
    CALL = "CALL"
    BRING_IN = "BRING_IN"
    COMPLETE = "COMPLETE"
    BET = "BET"
    RAISE = "RAISE"


@dataclass(frozen=True, slots=True)
class CreateTable:
    table_id: str
    config: TableConfig
    now_ms: int = 0


@dataclass(frozen=True, slots=True)
class SitDown:
    player_id: str
    seat: int
    buy_in: int
    now_ms: int = 0


@dataclass(frozen=True, slots=True)
class Leave:
    player_id: str
    now_ms: int = 0


# Why a SitOut sits a player out: they asked, or the service did for their protection (a loss or session limit
# reached, inactive past the operator's time-out, excluded while in a tournament: docs/player-protection.md).
SIT_OUT_COMMAND_REASONS = ("request", "loss_limit", "session_limit", "inactive", "excluded")


@dataclass(frozen=True, slots=True)
class SitOut:
    player_id: str
    now_ms: int = 0
    reason: str = "request"


@dataclass(frozen=True, slots=True)
class SitIn:
    player_id: str
    now_ms: int = 0


@dataclass(frozen=True, slots=True)
class TopUp:
    player_id: str
    amount: int
    now_ms: int = 0


@dataclass(frozen=True, slots=True)
class SetClientSeed:
    """The player's contribution to the next hand's shuffle: 1..64 printable characters."""

    player_id: str
    seed: str
    now_ms: int = 0


@dataclass(frozen=True, slots=True)
class CommitShuffle:
    """Commit to the next hand's server seed: ``commitment`` (64 lowercase hex digits, SHA-256 of the seed)
    is published, ``secret`` (the seed) kept in the log for the deal and for audit, never shown."""

    commitment: str
    secret: dict[str, Any]
    now_ms: int = 0


@dataclass(frozen=True, slots=True)
class Stakes:
    """A tournament level's stakes (RULES.md §11: ante, bring-in, small and big bet as in §1), its number."""

    ante: int
    bring_in: int
    small_bet: int
    big_bet: int
    level: int


@dataclass(frozen=True, slots=True)
class StartHand:
    """Deal a new hand from ``deck`` (all 52 codes in shuffled order), committed to by ``commitment``.
    ``extra`` is audit data (e.g. client seeds) copied verbatim into HandStarted.  ``stakes``: at a
    tournament table, the level this hand is dealt at (§11: a level change takes effect from the next
    hand dealt); None keeps the table's.  A cash table's stakes are fixed: it refuses any."""

    deck: tuple[int, ...]
    commitment: str
    now_ms: int = 0
    extra: dict[str, Any] = field(default_factory=dict)
    stakes: Stakes | None = None


@dataclass(frozen=True, slots=True)
class Act:
    """A betting decision.  ``amount`` is the total the player's bet on this street becomes
    ("raises to 800"): required for BRING_IN, COMPLETE, BET and RAISE, None for FOLD, CHECK, CALL."""

    player_id: str
    action: ActionKind
    amount: int | None = None
    now_ms: int = 0


@dataclass(frozen=True, slots=True)
class Timeout:
    """Act for the player to act if their action clock ran out by ``now_ms`` (RULES.md §7)."""

    now_ms: int


@dataclass(frozen=True, slots=True)
class JoinWaitingList:
    """Wait for a seat at a full table (docs/waiting-list.md)."""

    player_id: str
    now_ms: int = 0


@dataclass(frozen=True, slots=True)
class LeaveWaitingList:
    """Stop waiting (and decline a seat on offer, if any)."""

    player_id: str
    now_ms: int = 0


@dataclass(frozen=True, slots=True)
class ExpireSeatOffers:
    """End the seat offers whose time ran out by ``now_ms``, passing each seat on (docs/waiting-list.md)."""

    now_ms: int


# --- stopping a game (RULES.md §12): an operator's commands, each with who and why ----------------------


@dataclass(frozen=True, slots=True)
class PauseTable:
    """Deal no new hand until resumed; a running hand plays on to its end."""

    operator: str
    reason: str
    now_ms: int = 0


@dataclass(frozen=True, slots=True)
class ResumeTable:
    """Deal again after a pause."""

    operator: str
    reason: str
    now_ms: int = 0


@dataclass(frozen=True, slots=True)
class CloseTable:
    """Close the table for good: as pausing, then every player leaves and is paid out (at once, or when the
    running hand ends), and the waiting list is emptied."""

    operator: str
    reason: str
    now_ms: int = 0


@dataclass(frozen=True, slots=True)
class VoidHand:
    """Void hand ``hand``, which must be the one running: every chip goes back to whoever put it in."""

    hand: int
    operator: str
    reason: str
    now_ms: int = 0


@dataclass(frozen=True, slots=True)
class VoidInterruptedHand:
    """Void the running hand if nothing happened in it for the table's ``interrupted_hand_void_seconds``
    by ``now_ms`` (the table's owner sends it, as it sends Timeout)."""

    now_ms: int


@dataclass(frozen=True, slots=True)
class UpdateTableSettings:
    """Change settings that may change between hands (``CHANGEABLE_SETTINGS``): ``settings`` maps each
    TableConfig field to its new value."""

    operator: str
    reason: str
    settings: dict[str, Any]
    now_ms: int = 0


# The TableConfig fields an operator may change between hands (UpdateTableSettings): none that the running
# or a finished hand's rules, stakes or money depend on.
CHANGEABLE_SETTINGS = ("name", "action_clock_seconds", "seat_offer_seconds", "interrupted_hand_void_seconds")


# --- the table chat (docs/chat.md) -------------------------------------------------------------------

@dataclass(frozen=True, slots=True)
class SendChat:
    """A chat message from ``player_id`` (seated, or watching where the table lets spectators write)."""

    player_id: str
    text: str
    now_ms: int = 0


@dataclass(frozen=True, slots=True)
class MuteChat:
    """An operator (``by``) mutes ``player_id`` at this table (``muted``) or lets them write again."""

    player_id: str
    by: str
    reason: str
    muted: bool = True
    now_ms: int = 0


@dataclass(frozen=True, slots=True)
class DeleteChat:
    """An operator (``by``) deletes chat message ``number``: nobody but an auditor reads it again."""

    number: int
    by: str
    reason: str
    now_ms: int = 0


Command = (CreateTable | SitDown | Leave | SitOut | SitIn | TopUp | SetClientSeed | CommitShuffle | StartHand
           | Act | Timeout | JoinWaitingList | LeaveWaitingList | ExpireSeatOffers | PauseTable | ResumeTable
           | CloseTable | VoidHand | VoidInterruptedHand | UpdateTableSettings | SendChat | MuteChat
           | DeleteChat)

for _command_type in Command.__args__:
    fast_frozen_init(_command_type)  # a client builds one per decision: see records.py
