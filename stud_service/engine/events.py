"""Events: the facts of a table, in the order they happened.

Events are frozen dataclasses holding only ints, strings, bools, None, tuples of those (and
of plain dicts for results), plus the TableConfig in TableCreated / HandStarted and the
verbatim ``extra`` audit dict.  ``codec.event_to_json`` turns each into plain JSON with
``"type"`` (the class name) and ``"v"`` (that type's schema version, the class attribute
``V``; bump it when a type's fields change and teach the decoder the old shape).

Every event about a hand has a ``hand`` field: the table's hand number, 1, 2, 3...
Seats are 1..8; ``seat=None`` on a CardDealt is the community card (RULES.md §2).
``at_ms`` is the caller's clock at the command that caused the event; the event that gives
a player the turn (BettingRoundStarted, PlayerActed) fixes their action deadline.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, ClassVar

from stud_service.engine.commands import ActionKind
from stud_service.engine.config import TableConfig
from stud_service.engine.records import fast_frozen_init


@dataclass(frozen=True, slots=True)
class TableCreated:
    V: ClassVar[int] = 1
    table_id: str
    config: TableConfig
    at_ms: int


@dataclass(frozen=True, slots=True)
class PlayerSeated:
    V: ClassVar[int] = 1
    player_id: str
    seat: int
    buy_in: int
    at_ms: int


@dataclass(frozen=True, slots=True)
class PlayerLeft:
    """The player left the table, taking ``cash_out`` chips with them."""

    V: ClassVar[int] = 1
    player_id: str
    seat: int
    cash_out: int
    at_ms: int


@dataclass(frozen=True, slots=True)
class LeaveRequested:
    """The player asked to leave during hand ``hand``: folded when their turn comes, removed at hand end."""

    V: ClassVar[int] = 1
    hand: int
    player_id: str
    seat: int
    at_ms: int


@dataclass(frozen=True, slots=True)
class PlayerSatOut:
    """Dealt no new hands until they sit in.  ``reason``: "request", "timeout" or "busted"."""

    V: ClassVar[int] = 1
    player_id: str
    seat: int
    reason: str
    at_ms: int


@dataclass(frozen=True, slots=True)
class PlayerSatIn:
    V: ClassVar[int] = 1
    player_id: str
    seat: int
    at_ms: int


@dataclass(frozen=True, slots=True)
class PlayerToppedUp:
    V: ClassVar[int] = 1
    player_id: str
    seat: int
    amount: int
    at_ms: int


@dataclass(frozen=True, slots=True)
class ClientSeedSet:
    """The player's client seed for the next hand they are dealt into (the provably fair shuffle)."""

    V: ClassVar[int] = 1
    player_id: str
    seat: int
    seed: str
    at_ms: int


@dataclass(frozen=True, slots=True)
class HandStarted:
    """Everything needed to replay this hand alone.

    ``seats``: ((seat, player_id, starting_stack), ...) ascending by seat, the players dealt in.
    ``deck``: the 52 codes in dealing order; ``commitment``: the hex commitment published for it.
    """

    V: ClassVar[int] = 1
    hand: int
    table_id: str
    config: TableConfig
    seats: tuple[tuple[int, str, int], ...]
    deck: tuple[int, ...]
    commitment: str
    extra: dict[str, Any]
    at_ms: int


@dataclass(frozen=True, slots=True)
class AntePosted:
    V: ClassVar[int] = 1
    hand: int
    seat: int
    amount: int
    all_in: bool


@dataclass(frozen=True, slots=True)
class CardDealt:
    """One card from the deck: to ``seat`` (None = community card), face up or down, on ``street`` 3..7."""

    V: ClassVar[int] = 1
    hand: int
    street: int
    seat: int | None
    card: int
    face_up: bool


@dataclass(frozen=True, slots=True)
class BettingRoundStarted:
    """Betting on ``street`` opens with ``first_seat`` to act (the bring-in on third street)."""

    V: ClassVar[int] = 1
    hand: int
    street: int
    first_seat: int
    at_ms: int


@dataclass(frozen=True, slots=True)
class PlayerActed:
    """``amount``: the player's bet on this street after the action; ``chips``: what they put in now."""

    V: ClassVar[int] = 1
    hand: int
    seat: int
    action: ActionKind
    amount: int
    chips: int
    all_in: bool
    at_ms: int
    timeout: bool = False


@dataclass(frozen=True, slots=True)
class UncalledBetReturned:
    V: ClassVar[int] = 1
    hand: int
    seat: int
    amount: int


@dataclass(frozen=True, slots=True)
class HandShown:
    """A hand shown at showdown: all the player's cards and what they make (``low`` for Hi-Lo/Razz)."""

    V: ClassVar[int] = 1
    hand: int
    seat: int
    cards: tuple[int, ...]
    high: str | None
    low: str | None


@dataclass(frozen=True, slots=True)
class HandMucked:
    """The seat threw its hand away unseen (RULES.md §5); the cards stay in the log for audit."""

    V: ClassVar[int] = 1
    hand: int
    seat: int


@dataclass(frozen=True, slots=True)
class HandEnded:
    """The result.

    ``pots``: in award order (last side pot first), each a dict
    ``{"pot": index (0 = main), "amount", "eligible": (seats), "awards": ({"seat", "amount",
    "half": "high" | "low" | "whole", "hand": description or None}, ...)}``.
    ``shown``: ((seat, cards), ...); ``mucked``: seats; ``stacks``: ((seat, stack), ...) after the hand.
    ``server_seed`` (v2): the hex server seed of ``HandStarted.extra``, revealed now that the hand is over
    so anyone can recompute the deck (``stud_service.shuffle``); None when the hand was dealt without one.
    """

    V: ClassVar[int] = 2
    hand: int
    pots: tuple[dict[str, Any], ...]
    shown: tuple[tuple[int, tuple[int, ...]], ...]
    mucked: tuple[int, ...]
    stacks: tuple[tuple[int, int], ...]
    at_ms: int
    server_seed: str | None = None


Event = (
    TableCreated | PlayerSeated | PlayerLeft | LeaveRequested | PlayerSatOut | PlayerSatIn | PlayerToppedUp
    | ClientSeedSet | HandStarted | AntePosted | CardDealt | BettingRoundStarted | PlayerActed
    | UncalledBetReturned | HandShown | HandMucked | HandEnded
)

EVENT_TYPES: dict[str, type] = {
    cls.__name__: cls
    for cls in (
        TableCreated, PlayerSeated, PlayerLeft, LeaveRequested, PlayerSatOut, PlayerSatIn, PlayerToppedUp,
        ClientSeedSet, HandStarted, AntePosted, CardDealt, BettingRoundStarted, PlayerActed,
        UncalledBetReturned, HandShown, HandMucked, HandEnded,
    )
}

for _event_type in EVENT_TYPES.values():
    fast_frozen_init(_event_type)  # events are built by the dozen per hand: see records.py
