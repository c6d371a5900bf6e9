"""Events: the facts of a table, in the order they happened.

Events are frozen dataclasses holding only ints, strings, bools, None, tuples of those (and
of plain dicts for results), plus the TableConfig in TableCreated / HandStarted and the
verbatim ``extra`` audit dict.  ``codec.event_to_json`` turns each into plain JSON with
``"type"`` (the class name) and ``"v"`` (that type's schema version, its entry in
``EVENT_VERSIONS``; bump it when a type's fields change and teach the decoder the old shape).

Every event about a hand has a ``hand`` field: the table's hand number, 1, 2, 3...
Seats are 1..8; ``seat=None`` on a CardDealt is the community card (RULES.md §2).
``at_ms`` is the caller's clock at the command that caused the event; the event that gives
a player the turn (BettingRoundStarted, PlayerActed) fixes their action deadline.

Each event spells out its ``__init__`` (the one the dataclass would generate: same parameters,
defaults and order; ``tests/test_engine_records.py`` holds them to it).  mypyc compiles a written
``__init__`` and not a generated one (setup.py); run as plain Python, ``records.fast_frozen_init``
swaps in its faster one.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from stud_service.engine.commands import ActionKind
from stud_service.engine.config import TableConfig, Variant
from stud_service.engine.records import fast_frozen_init


@dataclass(frozen=True, slots=True)
class TableCreated:
    table_id: str
    config: TableConfig
    at_ms: int

    def __init__(self, table_id: str, config: TableConfig, at_ms: int) -> None:
        object.__setattr__(self, "table_id", table_id)
        object.__setattr__(self, "config", config)
        object.__setattr__(self, "at_ms", at_ms)


@dataclass(frozen=True, slots=True)
class PlayerSeated:
    player_id: str
    seat: int
    buy_in: int
    at_ms: int

    def __init__(self, player_id: str, seat: int, buy_in: int, at_ms: int) -> None:
        object.__setattr__(self, "player_id", player_id)
        object.__setattr__(self, "seat", seat)
        object.__setattr__(self, "buy_in", buy_in)
        object.__setattr__(self, "at_ms", at_ms)


@dataclass(frozen=True, slots=True)
class PlayerLeft:
    """The player left the table, taking ``cash_out`` chips with them."""

    player_id: str
    seat: int
    cash_out: int
    at_ms: int

    def __init__(self, player_id: str, seat: int, cash_out: int, at_ms: int) -> None:
        object.__setattr__(self, "player_id", player_id)
        object.__setattr__(self, "seat", seat)
        object.__setattr__(self, "cash_out", cash_out)
        object.__setattr__(self, "at_ms", at_ms)


@dataclass(frozen=True, slots=True)
class LeaveRequested:
    """The player asked to leave during hand ``hand``: folded when their turn comes, removed at hand end."""

    hand: int
    player_id: str
    seat: int
    at_ms: int

    def __init__(self, hand: int, player_id: str, seat: int, at_ms: int) -> None:
        object.__setattr__(self, "hand", hand)
        object.__setattr__(self, "player_id", player_id)
        object.__setattr__(self, "seat", seat)
        object.__setattr__(self, "at_ms", at_ms)


@dataclass(frozen=True, slots=True)
class PlayerSatOut:
    """Dealt no new hands until they sit in.  ``reason``: "request", "timeout", "busted", or the service's
    for the player's protection: "loss_limit", "session_limit", "inactive", "excluded" (at a tournament's
    table: docs/player-protection.md)."""

    player_id: str
    seat: int
    reason: str
    at_ms: int

    def __init__(self, player_id: str, seat: int, reason: str, at_ms: int) -> None:
        object.__setattr__(self, "player_id", player_id)
        object.__setattr__(self, "seat", seat)
        object.__setattr__(self, "reason", reason)
        object.__setattr__(self, "at_ms", at_ms)


@dataclass(frozen=True, slots=True)
class PlayerSatIn:
    player_id: str
    seat: int
    at_ms: int

    def __init__(self, player_id: str, seat: int, at_ms: int) -> None:
        object.__setattr__(self, "player_id", player_id)
        object.__setattr__(self, "seat", seat)
        object.__setattr__(self, "at_ms", at_ms)


@dataclass(frozen=True, slots=True)
class PlayerToppedUp:
    player_id: str
    seat: int
    amount: int
    at_ms: int

    def __init__(self, player_id: str, seat: int, amount: int, at_ms: int) -> None:
        object.__setattr__(self, "player_id", player_id)
        object.__setattr__(self, "seat", seat)
        object.__setattr__(self, "amount", amount)
        object.__setattr__(self, "at_ms", at_ms)


@dataclass(frozen=True, slots=True)
class ClientSeedSet:
    """The player's client seed for the next hand they are dealt into (the provably fair shuffle)."""

    player_id: str
    seat: int
    seed: str
    at_ms: int

    def __init__(self, player_id: str, seat: int, seed: str, at_ms: int) -> None:
        object.__setattr__(self, "player_id", player_id)
        object.__setattr__(self, "seat", seat)
        object.__setattr__(self, "seed", seed)
        object.__setattr__(self, "at_ms", at_ms)


@dataclass(frozen=True, slots=True)
class ShuffleCommitted:
    """The commitment to hand ``next_hand``'s server seed, published before any client seed for that hand
    can be set (README "The provably fair shuffle"): appended with TableCreated (hand 1) and with each
    HandStarted (the hand after it).  ``commitment``: hex SHA-256 of the seed.  ``secret``: the seed itself
    (``{"server_seed": hex}``), opaque to the engine; it is sealed at rest and never shown to a client."""

    next_hand: int
    commitment: str
    secret: dict[str, Any]
    at_ms: int

    def __init__(self, next_hand: int, commitment: str, secret: dict[str, Any], at_ms: int) -> None:
        object.__setattr__(self, "next_hand", next_hand)
        object.__setattr__(self, "commitment", commitment)
        object.__setattr__(self, "secret", secret)
        object.__setattr__(self, "at_ms", at_ms)


@dataclass(frozen=True, slots=True)
class HandStarted:
    """Everything needed to replay this hand alone.

    ``seats``: ((seat, player_id, starting_stack), ...) ascending by seat, the players dealt in.
    ``deck``: the 52 codes in dealing order; ``commitment``: the hex commitment published for it.
    ``game``: the game the hand is dealt in (RULES.md §13); None in a log written before mixed tables, whose
    hands were all dealt in ``config.variant`` (``hand_game``).  ``game_hand``: at a mixed table, the hand's
    place in its game's run, 1..hands_per_game (a replay of the hand alone knows from it where the table stood
    in its rotation); 0 at a table without one.
    """

    hand: int
    table_id: str
    config: TableConfig
    seats: tuple[tuple[int, str, int], ...]
    deck: tuple[int, ...]
    commitment: str
    extra: dict[str, Any]
    at_ms: int
    game: Variant | None = None
    game_hand: int = 0

    def __init__(self, hand: int, table_id: str, config: TableConfig, seats: tuple[tuple[int, str, int], ...],
                 deck: tuple[int, ...], commitment: str, extra: dict[str, Any], at_ms: int,
                 game: Variant | None = None, game_hand: int = 0) -> None:
        object.__setattr__(self, "hand", hand)
        object.__setattr__(self, "table_id", table_id)
        object.__setattr__(self, "config", config)
        object.__setattr__(self, "seats", seats)
        object.__setattr__(self, "deck", deck)
        object.__setattr__(self, "commitment", commitment)
        object.__setattr__(self, "extra", extra)
        object.__setattr__(self, "at_ms", at_ms)
        object.__setattr__(self, "game", game)
        object.__setattr__(self, "game_hand", game_hand)


def hand_game(event: HandStarted) -> Variant:
    """The game a hand was dealt in: the one its HandStarted names, else (older logs) the table's variant."""
    return event.config.variant if event.game is None else event.game


def started_game(payload: dict[str, Any]) -> str:
    """``hand_game`` of a HandStarted's JSON (as the log holds it): the game's name, e.g. "RAZZ"."""
    return str(payload.get("game") or payload["config"]["variant"])


@dataclass(frozen=True, slots=True)
class AntePosted:
    hand: int
    seat: int
    amount: int
    all_in: bool

    def __init__(self, hand: int, seat: int, amount: int, all_in: bool) -> None:
        object.__setattr__(self, "hand", hand)
        object.__setattr__(self, "seat", seat)
        object.__setattr__(self, "amount", amount)
        object.__setattr__(self, "all_in", all_in)


@dataclass(frozen=True, slots=True)
class CardDealt:
    """One card from the deck: to ``seat`` (None = community card), face up or down, on ``street`` 3..7."""

    hand: int
    street: int
    seat: int | None
    card: int
    face_up: bool

    def __init__(self, hand: int, street: int, seat: int | None, card: int, face_up: bool) -> None:
        object.__setattr__(self, "hand", hand)
        object.__setattr__(self, "street", street)
        object.__setattr__(self, "seat", seat)
        object.__setattr__(self, "card", card)
        object.__setattr__(self, "face_up", face_up)


@dataclass(frozen=True, slots=True)
class BettingRoundStarted:
    """Betting on ``street`` opens with ``first_seat`` to act (the bring-in on third street)."""

    hand: int
    street: int
    first_seat: int
    at_ms: int

    def __init__(self, hand: int, street: int, first_seat: int, at_ms: int) -> None:
        object.__setattr__(self, "hand", hand)
        object.__setattr__(self, "street", street)
        object.__setattr__(self, "first_seat", first_seat)
        object.__setattr__(self, "at_ms", at_ms)


@dataclass(frozen=True, slots=True)
class PlayerActed:
    """``amount``: the player's bet on this street after the action; ``chips``: what they put in now."""

    hand: int
    seat: int
    action: ActionKind
    amount: int
    chips: int
    all_in: bool
    at_ms: int
    timeout: bool = False

    def __init__(self, hand: int, seat: int, action: ActionKind, amount: int, chips: int, all_in: bool,
                 at_ms: int, timeout: bool = False) -> None:
        object.__setattr__(self, "hand", hand)
        object.__setattr__(self, "seat", seat)
        object.__setattr__(self, "action", action)
        object.__setattr__(self, "amount", amount)
        object.__setattr__(self, "chips", chips)
        object.__setattr__(self, "all_in", all_in)
        object.__setattr__(self, "at_ms", at_ms)
        object.__setattr__(self, "timeout", timeout)


@dataclass(frozen=True, slots=True)
class UncalledBetReturned:
    hand: int
    seat: int
    amount: int

    def __init__(self, hand: int, seat: int, amount: int) -> None:
        object.__setattr__(self, "hand", hand)
        object.__setattr__(self, "seat", seat)
        object.__setattr__(self, "amount", amount)


@dataclass(frozen=True, slots=True)
class HandShown:
    """A hand shown at showdown: all the player's cards and what they make (``low`` for Hi-Lo/Razz)."""

    hand: int
    seat: int
    cards: tuple[int, ...]
    high: str | None
    low: str | None

    def __init__(self, hand: int, seat: int, cards: tuple[int, ...], high: str | None,
                 low: str | None) -> None:
        object.__setattr__(self, "hand", hand)
        object.__setattr__(self, "seat", seat)
        object.__setattr__(self, "cards", cards)
        object.__setattr__(self, "high", high)
        object.__setattr__(self, "low", low)


@dataclass(frozen=True, slots=True)
class HandMucked:
    """The seat threw its hand away unseen (RULES.md §5); the cards stay in the log for audit."""

    hand: int
    seat: int

    def __init__(self, hand: int, seat: int) -> None:
        object.__setattr__(self, "hand", hand)
        object.__setattr__(self, "seat", seat)


@dataclass(frozen=True, slots=True)
class HandEnded:
    """The result.

    ``pots``: in award order (last side pot first), each a dict
    ``{"pot": index (0 = main), "amount", "eligible": (seats), "awards": ({"seat", "amount",
    "half": "high" | "low" | "whole", "hand": description or None}, ...)}``.
    ``shown``: ((seat, cards), ...); ``mucked``: seats; ``stacks``: ((seat, stack), ...) after the hand.
    ``server_seed`` (v2): the hex server seed of ``HandStarted.extra``, revealed now that the hand is over
    so anyone can recompute the deck (``stud_service.shuffle``); None when the hand was dealt without one.
    ``rake`` (v3): what the house took (RULES.md §10), taken from the pots before they were awarded: each
    pot's dict says how much (``"rake"``; a v2 pot has none: 0) and its awards add up to ``amount - rake``;
    ``stacks`` are after it.  ``rake_shares``: ((seat, contributed rake), ...) ascending by seat, the
    seats with a share only; they add up to ``rake``.
    """

    hand: int
    pots: tuple[dict[str, Any], ...]
    shown: tuple[tuple[int, tuple[int, ...]], ...]
    mucked: tuple[int, ...]
    stacks: tuple[tuple[int, int], ...]
    at_ms: int
    server_seed: str | None = None
    rake: int = 0
    rake_shares: tuple[tuple[int, int], ...] = ()

    def __init__(self, hand: int, pots: tuple[dict[str, Any], ...],
                 shown: tuple[tuple[int, tuple[int, ...]], ...], mucked: tuple[int, ...],
                 stacks: tuple[tuple[int, int], ...], at_ms: int, server_seed: str | None = None,
                 rake: int = 0, rake_shares: tuple[tuple[int, int], ...] = ()) -> None:
        object.__setattr__(self, "hand", hand)
        object.__setattr__(self, "pots", pots)
        object.__setattr__(self, "shown", shown)
        object.__setattr__(self, "mucked", mucked)
        object.__setattr__(self, "stacks", stacks)
        object.__setattr__(self, "at_ms", at_ms)
        object.__setattr__(self, "server_seed", server_seed)
        object.__setattr__(self, "rake", rake)
        object.__setattr__(self, "rake_shares", rake_shares)


@dataclass(frozen=True, slots=True)
class WaitingListJoined:
    """The player joined the end of the table's waiting list (docs/waiting-list.md)."""

    player_id: str
    at_ms: int

    def __init__(self, player_id: str, at_ms: int) -> None:
        object.__setattr__(self, "player_id", player_id)
        object.__setattr__(self, "at_ms", at_ms)


@dataclass(frozen=True, slots=True)
class WaitingListLeft:
    """The player is off the waiting list, with any seat offered to them.  ``reason``: "request"
    (they left it), "seated" (they sat down) or "offer_expired" (they let the offer run out)."""

    player_id: str
    reason: str
    at_ms: int

    def __init__(self, player_id: str, reason: str, at_ms: int) -> None:
        object.__setattr__(self, "player_id", player_id)
        object.__setattr__(self, "reason", reason)
        object.__setattr__(self, "at_ms", at_ms)


@dataclass(frozen=True, slots=True)
class SeatOffered:
    """``seat`` is held for the waiting ``player_id`` until ``deadline_ms`` (docs/waiting-list.md)."""

    player_id: str
    seat: int
    deadline_ms: int
    at_ms: int

    def __init__(self, player_id: str, seat: int, deadline_ms: int, at_ms: int) -> None:
        object.__setattr__(self, "player_id", player_id)
        object.__setattr__(self, "seat", seat)
        object.__setattr__(self, "deadline_ms", deadline_ms)
        object.__setattr__(self, "at_ms", at_ms)


# --- stopping a game (RULES.md §12): each says who (the operator's id) and why ------------------------------


@dataclass(frozen=True, slots=True)
class TablePaused:
    """No new hand is dealt until the table is resumed; a running hand plays on to its end."""

    operator: str
    reason: str
    at_ms: int

    def __init__(self, operator: str, reason: str, at_ms: int) -> None:
        object.__setattr__(self, "operator", operator)
        object.__setattr__(self, "reason", reason)
        object.__setattr__(self, "at_ms", at_ms)


@dataclass(frozen=True, slots=True)
class TableResumed:
    """The table deals again."""

    operator: str
    reason: str
    at_ms: int

    def __init__(self, operator: str, reason: str, at_ms: int) -> None:
        object.__setattr__(self, "operator", operator)
        object.__setattr__(self, "reason", reason)
        object.__setattr__(self, "at_ms", at_ms)


@dataclass(frozen=True, slots=True)
class TableClosed:
    """Closed for good: no new hand nor player; its players leave (PlayerLeft, paid out) at once, or each
    when the running hand ends; the waiting list is emptied (WaitingListLeft "table_closed")."""

    operator: str
    reason: str
    at_ms: int

    def __init__(self, operator: str, reason: str, at_ms: int) -> None:
        object.__setattr__(self, "operator", operator)
        object.__setattr__(self, "reason", reason)
        object.__setattr__(self, "at_ms", at_ms)


@dataclass(frozen=True, slots=True)
class HandVoided:
    """Hand ``hand`` is void: ``returned`` ((seat, chips), ...) gives every seat back what it put in; no
    pot is awarded, no rake taken, no card shown.  A HandEnded (no pots, the stacks as before the hand)
    follows in the same append.  ``operator``: who voided it, "" with ``automatic`` (the table voided an
    interrupted hand itself)."""

    hand: int
    operator: str
    reason: str
    automatic: bool
    returned: tuple[tuple[int, int], ...]
    at_ms: int

    def __init__(self, hand: int, operator: str, reason: str, automatic: bool,
                 returned: tuple[tuple[int, int], ...], at_ms: int) -> None:
        object.__setattr__(self, "hand", hand)
        object.__setattr__(self, "operator", operator)
        object.__setattr__(self, "reason", reason)
        object.__setattr__(self, "automatic", automatic)
        object.__setattr__(self, "returned", returned)
        object.__setattr__(self, "at_ms", at_ms)


@dataclass(frozen=True, slots=True)
class TableSettingsChanged:
    """Settings changed between hands: ``settings`` maps each changed TableConfig field to its new value,
    ``previous`` to the value it had."""

    operator: str
    reason: str
    settings: dict[str, Any]
    previous: dict[str, Any]
    at_ms: int

    def __init__(self, operator: str, reason: str, settings: dict[str, Any], previous: dict[str, Any],
                 at_ms: int) -> None:
        object.__setattr__(self, "operator", operator)
        object.__setattr__(self, "reason", reason)
        object.__setattr__(self, "settings", settings)
        object.__setattr__(self, "previous", previous)
        object.__setattr__(self, "at_ms", at_ms)


# --- mixed games (RULES.md §13) ----------------------------------------------------------------------

@dataclass(frozen=True, slots=True)
class GameChanged:
    """A mixed table's hand ``after_hand`` ended the last hand of a game (§13: voided hands do not count):
    from the next hand on, the table plays ``game`` for ``hands`` hands.  Recorded right after that hand's
    HandEnded, so everyone knows the next hand's game before it is dealt."""

    after_hand: int
    game: Variant
    hands: int
    at_ms: int

    def __init__(self, after_hand: int, game: Variant, hands: int, at_ms: int) -> None:
        object.__setattr__(self, "after_hand", after_hand)
        object.__setattr__(self, "game", game)
        object.__setattr__(self, "hands", hands)
        object.__setattr__(self, "at_ms", at_ms)


# --- the time bank (RULES.md §7) ---------------------------------------------------------------------

@dataclass(frozen=True, slots=True)
class TimeBanksAtStart:
    """Right after HandStarted at a table with a time bank: each dealt-in seat's reserve (ms) and how many
    hands it was dealt before this one, ((seat, reserve_ms, hands_dealt), ...) ascending by seat, so the
    hand replays alone as HandStarted promises.  This hand counts as dealt from here on."""

    hand: int
    banks: tuple[tuple[int, int, int], ...]

    def __init__(self, hand: int, banks: tuple[tuple[int, int, int], ...]) -> None:
        object.__setattr__(self, "hand", hand)
        object.__setattr__(self, "banks", banks)


@dataclass(frozen=True, slots=True)
class TimeBankStarted:
    """The seat's action clock ran out and its reserve of ``reserve_ms`` runs for this decision, from the
    action clock's end until ``deadline_ms``."""

    hand: int
    seat: int
    reserve_ms: int
    deadline_ms: int
    at_ms: int

    def __init__(self, hand: int, seat: int, reserve_ms: int, deadline_ms: int, at_ms: int) -> None:
        object.__setattr__(self, "hand", hand)
        object.__setattr__(self, "seat", seat)
        object.__setattr__(self, "reserve_ms", reserve_ms)
        object.__setattr__(self, "deadline_ms", deadline_ms)
        object.__setattr__(self, "at_ms", at_ms)


@dataclass(frozen=True, slots=True)
class TimeBankUsed:
    """Right after the seat's PlayerActed: the decision took ``used_ms`` of its reserve, ``reserve_ms`` is
    left (only what is used is spent)."""

    hand: int
    seat: int
    used_ms: int
    reserve_ms: int
    at_ms: int

    def __init__(self, hand: int, seat: int, used_ms: int, reserve_ms: int, at_ms: int) -> None:
        object.__setattr__(self, "hand", hand)
        object.__setattr__(self, "seat", seat)
        object.__setattr__(self, "used_ms", used_ms)
        object.__setattr__(self, "reserve_ms", reserve_ms)
        object.__setattr__(self, "at_ms", at_ms)


@dataclass(frozen=True, slots=True)
class TimeBankRefilled:
    """Just before HandEnded: the seat was dealt another ``time_bank_refill_hands`` hands, and its reserve
    grew by ``added_ms`` to ``reserve_ms`` (up to the maximum)."""

    hand: int
    seat: int
    added_ms: int
    reserve_ms: int

    def __init__(self, hand: int, seat: int, added_ms: int, reserve_ms: int) -> None:
        object.__setattr__(self, "hand", hand)
        object.__setattr__(self, "seat", seat)
        object.__setattr__(self, "added_ms", added_ms)
        object.__setattr__(self, "reserve_ms", reserve_ms)


# --- the table chat (docs/chat.md) -------------------------------------------------------------------

@dataclass(frozen=True, slots=True)
class ChatMessageSent:
    """Message ``number`` (1, 2, 3... per table) from ``player_id``, seated at ``seat`` or watching (None)."""

    number: int
    player_id: str
    seat: int | None
    text: str
    at_ms: int

    def __init__(self, number: int, player_id: str, seat: int | None, text: str, at_ms: int) -> None:
        object.__setattr__(self, "number", number)
        object.__setattr__(self, "player_id", player_id)
        object.__setattr__(self, "seat", seat)
        object.__setattr__(self, "text", text)
        object.__setattr__(self, "at_ms", at_ms)


@dataclass(frozen=True, slots=True)
class ChatMessageDeleted:
    """An operator (``by``) deleted message ``number`` for ``reason``: only an auditor reads it again."""

    number: int
    by: str
    reason: str
    at_ms: int

    def __init__(self, number: int, by: str, reason: str, at_ms: int) -> None:
        object.__setattr__(self, "number", number)
        object.__setattr__(self, "by", by)
        object.__setattr__(self, "reason", reason)
        object.__setattr__(self, "at_ms", at_ms)


@dataclass(frozen=True, slots=True)
class ChatMuteSet:
    """An operator (``by``) muted ``player_id`` at this table (``muted``: they may not write until let
    again) or let them write again, for ``reason``."""

    player_id: str
    muted: bool
    by: str
    reason: str
    at_ms: int

    def __init__(self, player_id: str, muted: bool, by: str, reason: str, at_ms: int) -> None:
        object.__setattr__(self, "player_id", player_id)
        object.__setattr__(self, "muted", muted)
        object.__setattr__(self, "by", by)
        object.__setattr__(self, "reason", reason)
        object.__setattr__(self, "at_ms", at_ms)


Event = (
    TableCreated | PlayerSeated | PlayerLeft | LeaveRequested | PlayerSatOut | PlayerSatIn | PlayerToppedUp
    | ClientSeedSet | ShuffleCommitted | HandStarted | AntePosted | CardDealt | BettingRoundStarted
    | PlayerActed | UncalledBetReturned | HandShown | HandMucked | HandEnded | WaitingListJoined
    | WaitingListLeft | SeatOffered | TablePaused | TableResumed | TableClosed | HandVoided
    | TableSettingsChanged | TimeBanksAtStart | TimeBankStarted | TimeBankUsed | TimeBankRefilled
    | ChatMessageSent | ChatMessageDeleted | ChatMuteSet | GameChanged
)

EVENT_TYPES: dict[str, type[Event]] = {
    cls.__name__: cls
    for cls in (
        TableCreated, PlayerSeated, PlayerLeft, LeaveRequested, PlayerSatOut, PlayerSatIn, PlayerToppedUp,
        ClientSeedSet, ShuffleCommitted, HandStarted, AntePosted, CardDealt, BettingRoundStarted, PlayerActed,
        UncalledBetReturned, HandShown, HandMucked, HandEnded, WaitingListJoined, WaitingListLeft,
        SeatOffered, TablePaused, TableResumed, TableClosed, HandVoided, TableSettingsChanged,
        TimeBanksAtStart, TimeBankStarted, TimeBankUsed, TimeBankRefilled, ChatMessageSent,
        ChatMessageDeleted, ChatMuteSet, GameChanged,
    )
}
# The chat's events: about the table's talk, not its play (docs/chat.md).
CHAT_EVENTS = frozenset({"ChatMessageSent", "ChatMessageDeleted", "ChatMuteSet"})

# Each type's schema version, written as "v" with every event.  Kept here rather than as a class
# attribute because a compiled dataclass (setup.py) would take a class variable for a field.
EVENT_VERSIONS: dict[type[Event], int] = {cls: 1 for cls in EVENT_TYPES.values()} | {
    HandEnded: 3,  # v2: server_seed; v3: rake, rake_shares and each pot's "rake"
    HandStarted: 2,  # v2: game and game_hand (RULES.md §13)
}

for _event_type in EVENT_TYPES.values():
    fast_frozen_init(_event_type)  # events are built by the dozen per hand: see records.py
