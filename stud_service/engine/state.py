"""Table and hand state, and the read-only queries the service and clients need.

The state classes are mutable with ``__slots__`` for speed, but nothing outside the engine
mutates them: ``evolve`` and ``decide`` work on a ``copy``.  Treat a state you hold as a value.

Copies are copy-on-write: ``TableState.copy`` copies the table and hand shells and shares the
seat and player objects; each copy has its own ``token``, and ``writable_seat`` /
``writable_player`` copy a shared object (stamping it with the token) before its first change.
Only evolve writes, and only through those two functions.  A player's card lists (``down``, ``up``)
are shared between copies too: dealing replaces a list with a longer one, never appends in place.

Chips: during a hand a seat's ``stack`` is what is behind; what it put in lives in
``HandPlayer.committed``.  ``chips_in_play`` = stacks + committed is constant through a hand; at its
end the rake leaves the table (``TableState.rake_taken`` counts it).
"""

from __future__ import annotations

from typing import Any, ClassVar

from stud_service.engine.config import TableConfig, Variant
from stud_service.engine.control import OPEN_TABLE, TableControl
from stud_service.engine.rules.rotation import game_of_next_hand, hands_left_in_game
from stud_service.engine.rules.stopping import interrupted_hand_deadline_ms, may_deal


class SeatState:
    """A seat's player.  ``sit_out_reason`` is the reason of the PlayerSatOut that sat them out
    ("request", "timeout" or "busted"), None while sitting in."""

    __slots__ = ("player_id", "stack", "sitting_out", "leaving", "sit_out_reason", "owner")
    FIELDS: ClassVar[tuple[str, ...]] = ("player_id", "stack", "sitting_out", "leaving", "sit_out_reason")

    def __init__(self, player_id: str, stack: int, sitting_out: bool = False, leaving: bool = False,
                 owner: object = None, sit_out_reason: str | None = None) -> None:
        self.player_id = player_id
        self.stack = stack
        self.sitting_out = sitting_out
        self.leaving = leaving
        self.sit_out_reason = sit_out_reason
        self.owner = owner

    def copy(self, owner: object = None) -> SeatState:
        return SeatState(self.player_id, self.stack, self.sitting_out, self.leaving, owner,
                         self.sit_out_reason)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, SeatState) and all(
            getattr(self, s) == getattr(other, s) for s in SeatState.FIELDS)

    def __repr__(self) -> str:
        return (f"SeatState({self.player_id!r}, stack={self.stack}, out={self.sitting_out},"
                f" leaving={self.leaving})")


class HandPlayer:
    """One player's part of the running hand.

    ``bet`` is their bet on the current street; ``acted_level`` is the last full bet level they
    acted at on this street (None = not acted yet): a player may raise only if the level was
    raised by a full bet since they acted (RULES.md §4, short all-in raises do not reopen).
    """

    __slots__ = ("seat", "player_id", "down", "up", "folded", "all_in", "committed", "bet", "acted_level",
                 "owner")
    FIELDS: ClassVar[tuple[str, ...]] = (
        "seat", "player_id", "down", "up", "folded", "all_in", "committed", "bet", "acted_level")

    def __init__(self, seat: int, player_id: str, owner: object = None) -> None:
        self.seat = seat
        self.player_id = player_id
        self.down: list[int] = []
        self.up: list[int] = []
        self.folded = False
        self.all_in = False
        self.committed = 0
        self.bet = 0
        self.acted_level: int | None = None
        self.owner = owner

    def copy(self, owner: object = None) -> HandPlayer:
        # Through the constructor, not __new__: a compiled class (setup.py) has no bare allocation.
        other = HandPlayer(self.seat, self.player_id, owner)
        other.down = self.down  # shared: dealing replaces the list (see the module docstring)
        other.up = self.up
        other.folded = self.folded
        other.all_in = self.all_in
        other.committed = self.committed
        other.bet = self.bet
        other.acted_level = self.acted_level
        return other

    @property
    def can_act(self) -> bool:
        return not self.folded and not self.all_in

    def __eq__(self, other: object) -> bool:
        return isinstance(other, HandPlayer) and all(
            getattr(self, s) == getattr(other, s) for s in HandPlayer.FIELDS)


HAND_FIELDS = (
    "number", "deck", "next_card", "players", "order", "street", "community", "betting", "to_act",
    "turn_ms", "level", "full_level", "n_bets", "step", "completed", "bring_in_due", "uncapped",
    "first_actor", "aggressor", "round_street", "started_ms", "server_seed", "folds", "game", "config",
)


class HandState:
    """The running hand.  ``street`` is 3..7 (the last street dealt); ``betting`` is True while a
    betting round is open, with ``to_act`` the seat whose turn it is.  ``folds``: the seats that
    folded, in the order they folded (a pot whose players all folded goes to the last, RULES.md §5).
    ``game``: the game the hand was dealt in (RULES.md §13: it is played to its end in that game); ``config``:
    the config it was dealt with (HandStarted's), whose stakes it is played at: a mixed table's game may have
    its own (§13), a tournament's level sets them (§11)."""

    __slots__ = HAND_FIELDS
    FIELDS: ClassVar[tuple[str, ...]] = HAND_FIELDS  # every field is state (codec, equality)

    def __init__(self, number: int, deck: tuple[int, ...], players: dict[int, HandPlayer],
                 at_ms: int, order: tuple[int, ...] | None = None, game: Variant = Variant.STUD,
                 config: TableConfig | None = None) -> None:
        self.number = number
        self.deck = deck
        self.next_card = 0
        self.players = players
        self.order: tuple[int, ...] = tuple(sorted(players)) if order is None else order  # the seats
        self.street = 0
        self.community: list[int] = []
        self.betting = False
        self.to_act: int | None = None
        self.turn_ms = at_ms
        self.level = 0              # the highest bet on this street
        self.full_level = 0         # the level set by the last full bet, completion or raise
        self.n_bets = 0             # bets + full raises this round, toward the cap of four
        self.step = 0               # the raise size this round
        self.completed = False      # third street: somebody completed to the small bet
        self.bring_in_due = False
        self.uncapped = False
        self.first_actor: int | None = None
        self.aggressor: int | None = None
        self.round_street = 0       # the street of the last betting round opened
        self.started_ms = at_ms
        self.server_seed: str | None = None  # from HandStarted.extra, revealed by HandEnded
        self.folds: tuple[int, ...] = ()
        self.game = game
        self.config = TableConfig() if config is None else config

    def copy(self) -> HandState:
        """A new shell sharing the players (see the module docstring: copy-on-write)."""
        o = HandState(self.number, self.deck, self.players.copy(), self.turn_ms, self.order, self.game,
                      self.config)
        o.next_card = self.next_card
        o.street = self.street
        o.community = self.community[:]
        o.betting = self.betting
        o.to_act = self.to_act
        o.level = self.level
        o.full_level = self.full_level
        o.n_bets = self.n_bets
        o.step = self.step
        o.completed = self.completed
        o.bring_in_due = self.bring_in_due
        o.uncapped = self.uncapped
        o.first_actor = self.first_actor
        o.aggressor = self.aggressor
        o.round_street = self.round_street
        o.started_ms = self.started_ms
        o.server_seed = self.server_seed
        o.folds = self.folds
        return o

    def live(self) -> list[HandPlayer]:
        """Players still in the hand (not folded), by seat."""
        players = self.players
        return [players[s] for s in self.order if not players[s].folded]

    def __eq__(self, other: object) -> bool:
        return isinstance(other, HandState) and all(
            getattr(self, s) == getattr(other, s) for s in HandState.FIELDS)


class ChatState:
    """The table chat's state (docs/chat.md), a value: replaced, never changed, so copies share it.

    ``messages``: how many were sent (the last message's number); ``muted``: the players an operator muted;
    ``deleted``: the numbers of deleted messages; ``sent``: per player, the times of their messages that may
    still count against the rate limit."""

    __slots__ = ("messages", "muted", "deleted", "sent")

    def __init__(self, messages: int = 0, muted: frozenset[str] = frozenset(),
                 deleted: frozenset[int] = frozenset(),
                 sent: dict[str, tuple[int, ...]] | None = None) -> None:
        self.messages = messages
        self.muted = muted
        self.deleted = deleted
        self.sent: dict[str, tuple[int, ...]] = {} if sent is None else sent

    def __eq__(self, other: object) -> bool:
        return isinstance(other, ChatState) and (self.messages, self.muted, self.deleted, self.sent) == (
            other.messages, other.muted, other.deleted, other.sent)


NO_CHAT = ChatState()


class TableState:
    """A table: its config, seats (1..config.seats) and the running hand, if any.

    ``waiting``: the waiting list, player ids in the order they joined; ``offers``: the freed seats
    held for players on it, ``(player_id, seat, deadline_ms)`` in the order offered (docs/waiting-list.md).
    Both are tuples, so copies share them safely.  ``rake_taken``: the table's rake so far, the sum of
    every HandEnded's ``rake`` (RULES.md §10); it has left the table's chips.  ``control``: paused or closed
    by an operator, and the last hand voided (RULES.md §12; a frozen value, shared by copies).

    The time bank (§7): ``banks``, seat -> (reserve ms, hands dealt since sitting down), for the seats whose
    reserve the log has spoken of (any other seat holds a full reserve and was dealt none); ``bank_turn``:
    the turn whose player's reserve is running (0: none).  ``chat``: the table chat's state.  ``banks`` and
    ``chat`` are replaced on change, never changed, so copies share them.  ``rotation_hands``: the hands that
    reached their end, voided ones not counting (RULES.md §13: they advance a mixed table's rotation)."""

    __slots__ = ("table_id", "config", "seats", "hand_number", "hand", "waiting", "offers", "turns",
                 "rake_taken", "control", "banks", "bank_turn", "chat", "rotation_hands", "token", "legal")
    FIELDS: ClassVar[tuple[str, ...]] = (
        "table_id", "config", "seats", "hand_number", "hand", "waiting", "offers", "turns", "rake_taken",
        "control", "banks", "bank_turn", "chat", "rotation_hands")

    def __init__(self) -> None:
        self.table_id: str | None = None
        self.config: TableConfig | None = None
        self.seats: dict[int, SeatState] = {}
        self.hand_number = 0
        self.hand: HandState | None = None
        self.waiting: tuple[str, ...] = ()
        self.offers: tuple[tuple[str, int, int], ...] = ()
        # Turns begun at this table so far: the current turn's number while somebody is to act.
        self.turns = 0
        self.rake_taken = 0
        self.control: TableControl = OPEN_TABLE
        self.banks: dict[int, tuple[int, int]] = {}
        self.bank_turn = 0
        self.chat: ChatState = NO_CHAT
        self.rotation_hands = 0
        self.token = object()  # marks the seat and player objects this copy may change in place
        self.legal: Any = None  # the player to act's LegalActions, computed once per state

    def copy(self) -> TableState:
        other = TableState()  # with its own token, no legal actions yet
        other.table_id = self.table_id
        other.config = self.config
        other.seats = self.seats.copy()
        other.hand_number = self.hand_number
        other.hand = self.hand.copy() if self.hand is not None else None
        other.waiting = self.waiting
        other.offers = self.offers
        other.turns = self.turns
        other.rake_taken = self.rake_taken
        other.control = self.control
        other.banks = self.banks
        other.bank_turn = self.bank_turn
        other.chat = self.chat
        other.rotation_hands = self.rotation_hands
        return other

    def seat_of(self, player_id: str) -> int | None:
        for seat, s in self.seats.items():
            if s.player_id == player_id:
                return seat
        return None

    def __eq__(self, other: object) -> bool:
        return isinstance(other, TableState) and all(
            getattr(self, s) == getattr(other, s) for s in TableState.FIELDS)

    def __repr__(self) -> str:
        return f"TableState({self.table_id!r}, seats={self.seats}, hand_number={self.hand_number})"


def writable_seat(state: TableState, seat: int) -> SeatState:
    """The seat's state, copied first if another state shares it (copy-on-write)."""
    seat_state = state.seats[seat]
    if seat_state.owner is not state.token:
        seat_state = state.seats[seat] = seat_state.copy(state.token)
    return seat_state


def writable_player(state: TableState, seat: int) -> HandPlayer:
    """The seat's part of the running hand, copied first if another state shares it."""
    players = state.hand.players  # type: ignore[union-attr]
    player = players[seat]
    if player.owner is not state.token:
        player = players[seat] = player.copy(state.token)
    return player


def initial_state() -> TableState:
    """The state before any event: no table."""
    return TableState()


def hand_running(state: TableState) -> bool:
    return state.hand is not None


def hands_ended(state: TableState) -> int:
    """How many of the table's hands are over: all it dealt, less the one still running."""
    return state.hand_number - (1 if state.hand is not None else 0)


def next_game(state: TableState) -> Variant | None:
    """The game the table's next hand will be dealt in (RULES.md §13), None before the table exists.  While a
    hand runs, the game that follows it if it reaches its end (voided, it does not count: §13)."""
    config = state.config
    if config is None:
        return None
    return game_of_next_hand(config, state.rotation_hands + (1 if state.hand is not None else 0))


def hands_left_in_current_game(state: TableState) -> int:
    """How many hands of a mixed table's current game remain, the running (or else the next) hand included
    (§13: every player knows); 0 at a table whose game does not rotate."""
    config = state.config
    return 0 if config is None else hands_left_in_game(config, state.rotation_hands)


def to_act(state: TableState) -> int | None:
    """The seat whose turn it is, or None when nobody is to act."""
    hand = state.hand
    if hand is None or not hand.betting:
        return None
    return hand.to_act


def sit_out_reason(state: TableState, seat: int) -> str | None:
    """Why ``seat`` is sitting out, None if it is not: "busted" when it has no chips outside the
    running hand (it must top up before sitting in, however it came to sit out), else the reason
    it was sat out for ("request", "timeout", or "busted" for a seat that has topped up since)."""
    seat_state = state.seats[seat]
    if not seat_state.sitting_out:
        return None
    in_hand = state.hand is not None and seat in state.hand.players
    if seat_state.stack == 0 and not in_hand:
        return "busted"
    return seat_state.sit_out_reason


def turn_number(state: TableState) -> int:
    """The current turn's number (``TableState.turns``), 0 when nobody is to act.

    A turn begins when a player is given the action and ends when that player acts (or is timed
    out); another player sitting out, topping up or setting a seed does not end it. So a click made
    for turn N still applies while the table's turn is N, whatever else was recorded meanwhile."""
    return state.turns if to_act(state) is not None else 0


def action_deadline_ms(state: TableState) -> int | None:
    """When the running clock of the player to act runs out: the action clock, which starts at the event
    that gave them the turn, or, once it has run out, their time bank's reserve (§7)."""
    hand = state.hand
    if hand is None or not hand.betting or hand.to_act is None or state.config is None:
        return None
    deadline = hand.turn_ms + state.config.action_clock_seconds * 1000
    if state.bank_turn and state.bank_turn == state.turns:
        return deadline + time_bank_reserve_ms(state, hand.to_act)
    return deadline


# --- the time bank (RULES.md §7) ---------------------------------------------------------------------

def time_bank_reserve_ms(state: TableState, seat: int) -> int:
    """The seat's reserve (ms): what the log last said of it, else a full one (0 without a time bank)."""
    bank = state.banks.get(seat)
    if bank is not None:
        return bank[0]
    config = state.config
    return 0 if config is None else config.time_bank_seconds * 1000


def time_bank_hands_dealt(state: TableState, seat: int) -> int:
    """Hands the seat's player was dealt since sitting down (the time bank's refills count them)."""
    bank = state.banks.get(seat)
    return 0 if bank is None else bank[1]


def time_bank_running(state: TableState) -> bool:
    """Whether the player to act is on their time bank (their action clock has run out)."""
    return state.bank_turn != 0 and state.bank_turn == state.turns and to_act(state) is not None


def running_clock(state: TableState) -> str | None:
    """The clock the player to act is on: "ACTION", "TIME_BANK" (§7), or None when nobody is to act."""
    if to_act(state) is None:
        return None
    return "TIME_BANK" if time_bank_running(state) else "ACTION"


def seat_offer_deadline_ms(state: TableState) -> int | None:
    """When the first seat offer runs out (and passes on), or None when no seat is on offer."""
    return min((deadline for _, _, deadline in state.offers), default=None)


def chips_in_play(state: TableState) -> int:
    """Stacks plus the chips committed to the running hand; constant through a hand until its end,
    where the rake leaves (``chips_in_play + rake_taken`` stays constant)."""
    total = sum(s.stack for s in state.seats.values())
    if state.hand is not None:
        total += sum(p.committed for p in state.hand.players.values())
    return total


def players_ready(state: TableState) -> list[int]:
    """Seats that would be dealt into a hand started now: sitting in, with chips, not leaving.  At a
    tournament table a player sitting out is dealt in too (RULES.md §11: never removed for being absent)."""
    config = state.config
    if config is not None and config.tournament_id:
        return [seat for seat, s in sorted(state.seats.items()) if s.stack > 0 and not s.leaving]
    return [seat for seat, s in sorted(state.seats.items())
            if not s.sitting_out and s.stack > 0 and not s.leaving]


def can_start_hand(state: TableState) -> bool:
    """A table exists, no hand is running, it is neither paused nor closed (§12), and two or more players
    are ready."""
    return (state.config is not None and state.hand is None and may_deal(state.control.status)
            and len(players_ready(state)) >= 2)


def hand_void_deadline_ms(state: TableState) -> int | None:
    """When the running hand is voided as interrupted if nothing happens in it first (RULES.md §12): the
    last action or deal (the time the turn began) plus the table's ``interrupted_hand_void_seconds``; None
    while no hand runs or at a table that does not void interrupted hands."""
    hand = state.hand
    config = state.config
    if hand is None or config is None:
        return None
    return interrupted_hand_deadline_ms(hand.turn_ms, config.interrupted_hand_void_seconds)
