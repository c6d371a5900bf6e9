"""decide(state, command) -> [events]: check a command against the state and say what happens.

A command yields every event it causes: the last call of a betting round also yields the next
street's cards and the next round's start, or the run-out, showdown and HandEnded.  Rejected
commands raise a DomainError and leave ``state`` untouched (decide never mutates its input; it
applies the events it emits to a private copy to work out what follows them).

Decisions where RULES.md is silent (as a well-run online card room does it):

- A player who leaves during a hand they were dealt into stays in it until their turn, when
  they check if that is free, else fold (the bring-in posts the bring-in); they are removed when
  the hand ends, taking their stack.  Between hands, or if not dealt in, they leave at once.
- A timeout on the bring-in posts the bring-in (it is forced; fold and check are not offered).
  A player who timed out plays the rest of that hand on the clock: each later turn waits for it.
- A player all-in for less than the bring-in posts what they have; the others still call the
  full bring-in, as with a short blind.
- A player who sits out during a hand plays that hand out; sitting out applies from the next hand.
- A player left with no chips after a hand is sat out ("busted") but keeps the seat; they may top
  up any positive amount up to the maximum buy-in and sit in again.  Top-ups wait until the hand
  the player is in has ended.
- Showdown: hands that cannot win anything are mucked automatically (online auto-muck); hands that
  tie or can win a share are shown.  When the cards were run out with no seventh-street betting,
  the best board on seventh street shows first.
- An all-in bet or raise short of a full one does not count toward the cap of four bets; the next
  full raise goes one step above the last full level.  An all-in completion short of the small bet
  is not a completion: players yet to act may still complete.
- The uncalled part of a bet goes back as soon as the betting that left it uncalled is over (before
  any run-out), not only at the showdown.
- A hand ended because everyone else folded has one pot, awarded as ``"half": "whole"`` (more only if
  the winner was all-in for less than players who then all folded, §5: each pot then goes to its
  only contender, also ``"whole"``).  So does a pot whose players all folded before a showdown.
- Rake (§10): the cap is the one for the players dealt in, folded or not; a hand won by everyone else
  folding is raked like any other once a fourth-street card was dealt; a player who put nothing in
  (no ante, folded before acting) has no contributed rake.
- A tournament table (§11): a player sitting out is dealt in, pays the ante and, when their turn comes,
  acts at once by the timeout rule (§7: the bring-in if due, else check if free, else fold) rather than
  holding the table for a clock they already let run out once.  Its chips are the tournament's: no
  top-up, no waiting list, and nobody leaves during a hand (the tournament moves players between hands).
- Stopping a game (§12): a pause stops the next deal only (the running hand's clocks run on); closing
  also takes no new player, empties the waiting list and lets each player leave at once, or when the
  running hand ends for those in it; neither is an operator's at a tournament table (its tournament stops
  it), nor does anything but a void happen at a closed table.  A void names the hand it means (a hand
  that ended meanwhile is not the one running any more), returns what each seat has in the hand (what it
  put in less any uncalled bet already returned), and ends the hand with a HandEnded without pots, rake,
  shown or mucked hands; players who asked to leave then leave, as after any hand.  A hand at a table with
  ``interrupted_hand_void_seconds`` stands still once that long has passed since its last action or deal:
  the owner's VoidInterruptedHand voids it, and any action, timeout or leaving in it is refused
  (HandInterrupted) so that the first write after an outage cannot play it on instead.  Settings change
  between hands only, and only those that no running hand's rules depend on (CHANGEABLE_SETTINGS).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from typing import Any, Final

from stud_service.cards import DECK_SIZE
from stud_service.engine.chat import CHAT_DECIDE
from stud_service.engine.commands import (
    CHANGEABLE_SETTINGS,
    SIT_OUT_COMMAND_REASONS,
    Act,
    ActionKind,
    CloseTable,
    CommitShuffle,
    CreateTable,
    ExpireSeatOffers,
    JoinWaitingList,
    Leave,
    LeaveWaitingList,
    PauseTable,
    ResumeTable,
    SetClientSeed,
    SitDown,
    SitIn,
    SitOut,
    Stakes,
    StartHand,
    Timeout,
    TopUp,
    UpdateTableSettings,
    VoidHand,
    VoidInterruptedHand,
)
from stud_service.engine.config import TableConfig, Variant
from stud_service.engine.control import CLOSED, PAUSED
from stud_service.engine.errors import (
    ActionNotAvailable,
    AlreadySeated,
    AlreadyWaiting,
    BuyInOutOfLimits,
    HandInterrupted,
    HandNotRunning,
    HandRunning,
    IllegalAmount,
    InvalidConfig,
    InvalidDeck,
    InvalidSeat,
    MalformedCommand,
    NoTable,
    NotEnoughPlayers,
    NotSeated,
    NotWaiting,
    NotYourTurn,
    OfferNotDue,
    SeatOnOffer,
    SeatTaken,
    TableExists,
    TableFull,
    TableIsClosed,
    TableIsPaused,
    TableNotFull,
    TableNotPaused,
    TimeoutNotDue,
    TournamentTable,
    VoidNotDue,
    WaitingListFull,
)
from stud_service.engine.events import (
    AntePosted,
    BettingRoundStarted,
    CardDealt,
    ClientSeedSet,
    GameChanged,
    HandEnded,
    HandMucked,
    HandShown,
    HandStarted,
    HandVoided,
    LeaveRequested,
    PlayerActed,
    PlayerLeft,
    PlayerSatIn,
    PlayerSatOut,
    PlayerSeated,
    PlayerToppedUp,
    SeatOffered,
    ShuffleCommitted,
    TableClosed,
    TableCreated,
    TablePaused,
    TableResumed,
    TableSettingsChanged,
    UncalledBetReturned,
    WaitingListJoined,
    WaitingListLeft,
)
from stud_service.engine.evolve import APPLY
from stud_service.engine.legal import legal_actions_for_seat
from stud_service.engine.replay import replay
from stud_service.engine.rules.betting import betting_round_needed
from stud_service.engine.rules.bring_in import (
    best_board_seat,
    bring_in_seat,
    first_to_act_on_later_street,
    next_seat_clockwise,
)
from stud_service.engine.rules.dealing import (
    LAST_STREET,
    ante_for_player,
    dealing_order,
    later_street_face_up,
    needs_community_card,
    third_street_faces,
)
from stud_service.engine.rules.pots import side_pots, uncalled_bet
from stud_service.engine.rules.rake import contributed_rake_shares, rake_for_hand, take_rake_from_pots
from stud_service.engine.rules.rotation import game_hand_of_next, game_of_next_hand
from stud_service.engine.rules.showdown import (
    ShowdownHand,
    award_pot,
    can_muck,
    evaluate_showdown_hand,
    showdown_order,
)
from stud_service.engine.rules.stopping import (
    leaves_after_hand,
    may_deal,
    may_take_players,
    valid_operator,
    valid_reason,
    void_returns,
)
from stud_service.engine.rules.waiting import (
    MAX_WAITING,
    expired_seat_offers,
    may_join_waiting_list,
    offered_seat,
    open_seats,
    seat_held_for_another,
    seat_offer_deadline,
    seat_offers_to_make,
)
from stud_service.engine.state import (
    HandState,
    TableState,
    action_deadline_ms,
    hand_void_deadline_ms,
    players_ready,
)
from stud_service.engine.time_bank import bank_refills, bank_start, bank_used, banks_at_start

# Enum members bound once: a module global is several times cheaper to read than ActionKind.FOLD
# (and a Final one, compiled, is a C static).
FOLD: Final = ActionKind.FOLD
CHECK: Final = ActionKind.CHECK
CALL: Final = ActionKind.CALL
BRING_IN: Final = ActionKind.BRING_IN
ALL_CARDS: Final = frozenset(range(DECK_SIZE))


class _Recorder:
    """Collects events and applies each to a private copy of the state, so later steps see them."""

    __slots__ = ("state", "events")

    def __init__(self, state: TableState) -> None:
        self.state = state.copy()
        self.events: list[Any] = []

    def emit(self, event: Any) -> None:
        self.events.append(event)
        state = self.state
        state.legal = None
        APPLY[type(event)](state, event)  # apply_in_place without its checks: we made the event

    @property
    def hand(self) -> HandState:
        hand = self.state.hand
        assert hand is not None
        return hand


def _config(state: TableState) -> TableConfig:
    if state.config is None:
        raise NoTable("there is no table yet: create it first")
    return state.config


def _seat_of(state: TableState, player_id: str) -> int:
    seat = state.seat_of(player_id)
    if seat is None:
        raise NotSeated(f"player {player_id!r} is not seated at this table")
    return seat


def _in_hand(state: TableState, seat: int) -> bool:
    return state.hand is not None and seat in state.hand.players


# --- table commands ---------------------------------------------------------------------------

def _create_table(state: TableState, cmd: CreateTable) -> list[Any]:
    if state.config is not None:
        raise TableExists(f"table {state.table_id!r} already exists")
    if not isinstance(cmd.table_id, str) or not cmd.table_id:
        raise InvalidConfig("table_id", "must be a non-empty string")
    if not isinstance(cmd.config, TableConfig):
        raise InvalidConfig("config", "must be a TableConfig")
    cmd.config.validate()
    return [TableCreated(cmd.table_id, cmd.config, cmd.now_ms)]


def _sit_down(state: TableState, cmd: SitDown) -> list[Any] | _Recorder:
    config = _config(state)
    _refuse_if_closed(state)
    if state.seat_of(cmd.player_id) is not None:
        raise AlreadySeated(f"player {cmd.player_id!r} already has seat {state.seat_of(cmd.player_id)}")
    if not isinstance(cmd.seat, int) or not 1 <= cmd.seat <= config.seats:
        raise InvalidSeat(f"seat must be 1..{config.seats}, got {cmd.seat!r}", 1, config.seats)
    if len(state.seats) >= config.seats:
        raise TableFull(f"all {config.seats} seats are taken")
    if cmd.seat in state.seats:
        raise SeatTaken(f"seat {cmd.seat} is taken")
    if seat_held_for_another(state.offers, cmd.seat, cmd.player_id):
        raise SeatOnOffer(f"seat {cmd.seat} is held for the player waiting first")
    if not isinstance(cmd.buy_in, int) or not config.min_buy_in <= cmd.buy_in <= config.max_buy_in:
        raise BuyInOutOfLimits(
            f"buy-in must be {config.min_buy_in}..{config.max_buy_in}, got {cmd.buy_in!r}",
            config.min_buy_in, config.max_buy_in)
    if cmd.player_id not in state.waiting:
        return [PlayerSeated(cmd.player_id, cmd.seat, cmd.buy_in, cmd.now_ms)]
    rec = _Recorder(state)
    rec.emit(WaitingListLeft(cmd.player_id, "seated", cmd.now_ms))
    rec.emit(PlayerSeated(cmd.player_id, cmd.seat, cmd.buy_in, cmd.now_ms))
    _offer_open_seats(rec, cmd.now_ms)  # a seat offered to them and not taken passes on
    return rec


def _leave(state: TableState, cmd: Leave) -> list[Any] | _Recorder:
    _config(state)
    seat = _seat_of(state, cmd.player_id)
    seat_state = state.seats[seat]
    if not _in_hand(state, seat):
        left = PlayerLeft(cmd.player_id, seat, seat_state.stack, cmd.now_ms)
        if not state.waiting:
            return [left]
        rec = _Recorder(state)
        rec.emit(left)
        _offer_open_seats(rec, cmd.now_ms)
        return rec
    if seat_state.leaving:
        return []
    if state.config is not None and state.config.tournament_id:
        raise HandRunning("a tournament table's players move only between hands")
    _refuse_if_interrupted(state, cmd.now_ms)
    rec = _Recorder(state)
    rec.emit(LeaveRequested(rec.hand.number, cmd.player_id, seat, cmd.now_ms))
    _advance(rec, cmd.now_ms)
    return rec


def _sit_out(state: TableState, cmd: SitOut) -> list[Any]:
    _config(state)
    seat = _seat_of(state, cmd.player_id)
    if cmd.reason not in SIT_OUT_COMMAND_REASONS:
        raise MalformedCommand("reason", f"a sit-out's reason is one of {', '.join(SIT_OUT_COMMAND_REASONS)}")
    if state.seats[seat].sitting_out:
        return []
    return [PlayerSatOut(cmd.player_id, seat, cmd.reason, cmd.now_ms)]


def _sit_in(state: TableState, cmd: SitIn) -> list[Any]:
    _config(state)
    seat = _seat_of(state, cmd.player_id)
    seat_state = state.seats[seat]
    if not seat_state.sitting_out:
        return []
    if seat_state.stack <= 0:
        raise ActionNotAvailable("no chips: top up before sitting in")
    return [PlayerSatIn(cmd.player_id, seat, cmd.now_ms)]


def _top_up(state: TableState, cmd: TopUp) -> list[Any]:
    config = _config(state)
    seat = _seat_of(state, cmd.player_id)
    if config.tournament_id:
        raise ActionNotAvailable("tournament chips cannot be topped up")
    _refuse_if_closed(state)
    if _in_hand(state, seat):
        raise HandRunning("top up between hands: you are in the running hand")
    stack = state.seats[seat].stack
    if not isinstance(cmd.amount, int) or cmd.amount <= 0 or stack + cmd.amount > config.max_buy_in:
        raise BuyInOutOfLimits(
            f"top-up must be 1..{config.max_buy_in - stack} (stack {stack}, maximum {config.max_buy_in}),"
            f" got {cmd.amount!r}", 1, config.max_buy_in - stack)
    return [PlayerToppedUp(cmd.player_id, seat, cmd.amount, cmd.now_ms)]


MAX_CLIENT_SEED_CHARS = 64


def _set_client_seed(state: TableState, cmd: SetClientSeed) -> list[Any]:
    _config(state)
    seat = _seat_of(state, cmd.player_id)
    seed = cmd.seed
    if not isinstance(seed, str) or not 0 < len(seed) <= MAX_CLIENT_SEED_CHARS or not seed.isprintable():
        raise MalformedCommand("seed", f"a client seed is 1..{MAX_CLIENT_SEED_CHARS} printable characters")
    return [ClientSeedSet(cmd.player_id, seat, seed, cmd.now_ms)]


def _commit_shuffle(state: TableState, cmd: CommitShuffle) -> list[Any]:
    """The next hand's seed commitment: 64 lowercase hex digits (SHA-256), its secret a JSON object."""
    _config(state)
    commitment = cmd.commitment
    if not isinstance(commitment, str) or len(commitment) != 64 or commitment.strip("0123456789abcdef"):
        raise MalformedCommand("commitment", "a commitment is 64 lowercase hex digits")
    if not isinstance(cmd.secret, dict):
        raise MalformedCommand("secret", "a commitment's secret is a JSON object")
    return [ShuffleCommitted(state.hand_number + 1, commitment, dict(cmd.secret), cmd.now_ms)]


# --- the waiting list (docs/waiting-list.md) ---------------------------------------------------------

def _join_waiting_list(state: TableState, cmd: JoinWaitingList) -> list[Any]:
    config = _config(state)
    player = cmd.player_id
    if config.tournament_id:
        raise ActionNotAvailable("a tournament seats its players itself: there is no waiting list")
    _refuse_if_closed(state)
    if state.seat_of(player) is not None:
        raise AlreadySeated(f"player {player!r} already has seat {state.seat_of(player)}")
    if player in state.waiting:
        raise AlreadyWaiting(f"player {player!r} is already on the waiting list")
    free = open_seats(config.seats, state.seats, state.offers)
    if not may_join_waiting_list(len(free)):
        raise TableNotFull(f"seat {free[0]} is free: sit down instead of waiting")
    if len(state.waiting) >= MAX_WAITING:
        raise WaitingListFull(f"the waiting list is full ({MAX_WAITING} players)")
    return [WaitingListJoined(player, cmd.now_ms)]


def _leave_waiting_list(state: TableState, cmd: LeaveWaitingList) -> list[Any] | _Recorder:
    _config(state)
    if cmd.player_id not in state.waiting:
        raise NotWaiting(f"player {cmd.player_id!r} is not on the waiting list")
    left = WaitingListLeft(cmd.player_id, "request", cmd.now_ms)
    if offered_seat(state.offers, cmd.player_id) is None:
        return [left]
    rec = _Recorder(state)
    rec.emit(left)
    _offer_open_seats(rec, cmd.now_ms)  # the seat they declined goes to the next in line
    return rec


def _expire_seat_offers(state: TableState, cmd: ExpireSeatOffers) -> list[Any] | _Recorder:
    _config(state)
    expired = expired_seat_offers(state.offers, cmd.now_ms)
    if not expired:
        due = min((deadline for _, _, deadline in state.offers), default=None)
        raise OfferNotDue("no seat is on offer" if due is None
                          else f"the first seat offer runs out at {due} ms, it is {cmd.now_ms} ms")
    rec = _Recorder(state)
    for player, _seat, _deadline in expired:
        rec.emit(WaitingListLeft(player, "offer_expired", cmd.now_ms))
    _offer_open_seats(rec, cmd.now_ms)
    return rec


def _offer_open_seats(rec: _Recorder, now_ms: int) -> None:
    """Offer each open seat to the next player waiting (a no-op unless someone waits)."""
    state = rec.state
    if not state.waiting:
        return
    config = _config(state)
    free = open_seats(config.seats, state.seats, state.offers)
    for player, seat in seat_offers_to_make(state.waiting, state.offers, free):
        rec.emit(SeatOffered(player, seat, seat_offer_deadline(now_ms, config.seat_offer_seconds), now_ms))


# --- a hand -----------------------------------------------------------------------------------

def _check_deck(deck: Any) -> tuple[int, ...]:
    # The common case in two C-speed steps: plain ints only, and each card of the deck once.
    if type(deck) is tuple and set(map(type, deck)) == {int} and set(deck) == ALL_CARDS \
            and len(deck) == DECK_SIZE:
        return deck
    if not isinstance(deck, tuple | list) or len(deck) != DECK_SIZE:
        raise InvalidDeck(f"the deck must hold {DECK_SIZE} cards")
    if any(not isinstance(c, int) or isinstance(c, bool) or not 0 <= c < DECK_SIZE for c in deck):
        raise InvalidDeck("the deck holds a code outside 0..51")
    if len(set(deck)) != DECK_SIZE:
        raise InvalidDeck("the deck holds a card twice")
    return tuple(deck)


def _stakes_for_hand(config: TableConfig, stakes: Stakes | None) -> TableConfig:
    """The config a hand is dealt with: a tournament table's at the level ``stakes`` gives (§11),
    checked as a table's stakes are; a cash table's own, which no StartHand may change."""
    if stakes is None:
        return config
    if not config.tournament_id:
        raise ActionNotAvailable("a cash table's stakes are fixed when it is created")
    if not isinstance(stakes, Stakes):
        raise MalformedCommand("stakes", "stakes must be a Stakes")
    given = (stakes.ante, stakes.bring_in, stakes.small_bet, stakes.big_bet, stakes.level)
    if not config.game_stakes and all(type(n) is int for n in given) and given == (
            config.ante, config.bring_in, config.small_bet, config.big_bet, config.tournament_level):
        return config  # the stakes the last hand was dealt at (or the table created with): checked then
    try:
        return replace(config, ante=stakes.ante, bring_in=stakes.bring_in, small_bet=stakes.small_bet,
                       big_bet=stakes.big_bet, tournament_level=stakes.level).validate()
    except InvalidConfig as error:
        raise InvalidConfig(f"stakes.{error.field}", error.message.partition(": ")[2]) from None


def _start_hand(state: TableState, cmd: StartHand) -> list[Any] | _Recorder:
    config = _config(state)
    if state.hand is not None:
        raise HandRunning(f"hand {state.hand.number} is still running")
    if not may_deal(state.control.status):
        _refuse_if_closed(state)
        raise TableIsPaused(f"the table is paused: {state.control.reason}")
    config = _stakes_for_hand(config, cmd.stakes)
    game = game_of_next_hand(config, state.rotation_hands)
    config = config.for_game(game)  # §13: the game's own stakes, if it has them
    seats = players_ready(state)
    if len(seats) < 2:
        raise NotEnoughPlayers(f"a hand needs two players sitting in with chips, there are {len(seats)}")
    deck = _check_deck(cmd.deck)
    if not isinstance(cmd.commitment, str):
        raise MalformedCommand("commitment", "commitment must be a hex string")
    rec = _Recorder(state)
    number = state.hand_number + 1
    rec.emit(HandStarted(
        number, state.table_id or "", config,
        tuple((seat, state.seats[seat].player_id, state.seats[seat].stack) for seat in seats),
        deck, cmd.commitment, dict(cmd.extra), cmd.now_ms, game,
        game_hand_of_next(config, state.rotation_hands)))  # §13: the replay of the hand alone needs it
    if config.time_bank_seconds:  # §7: the reserves the hand starts with, so it replays alone
        rec.emit(banks_at_start(state, number, seats))
    if config.ante > 0:
        for seat in seats:
            amount, all_in = ante_for_player(config.ante, rec.state.seats[seat].stack)
            rec.emit(AntePosted(number, seat, amount, all_in))
    order = dealing_order(seats)
    dealt = 0  # the hand's first cards: deck[0], deck[1], ...
    for face_up in third_street_faces():
        for seat in order:
            rec.emit(CardDealt(number, 3, seat, deck[dealt], face_up))
            dealt += 1
    hand = rec.hand
    can_act = {p.seat for p in hand.players.values() if p.can_act}
    if betting_round_needed(len(can_act)):
        first = bring_in_seat(order, [hand.players[s].up[0] for s in order], can_act,
                              hand.game is Variant.RAZZ, config.bring_in_tiebreak)
        assert first is not None
        rec.emit(BettingRoundStarted(number, 3, first, cmd.now_ms))
    _advance(rec, cmd.now_ms)
    return rec


def _auto_action(state: TableState, seat: int, now_ms: int, timeout: bool) -> PlayerActed:
    """§7: check if checking is legal, else fold (a bring-in that is due is posted, being forced)."""
    hand = state.hand
    assert hand is not None
    legal = legal_actions_for_seat(state, seat)
    bring_in = legal.amounts(ActionKind.BRING_IN)
    if bring_in is not None:
        return _acted(state, hand, seat, ActionKind.BRING_IN, bring_in[0], now_ms, timeout)
    kind = ActionKind.CHECK if ActionKind.CHECK in legal.kinds() else ActionKind.FOLD
    return _acted(state, hand, seat, kind, None, now_ms, timeout)


def _acted(state: TableState, hand: HandState, seat: int, kind: ActionKind, amount: int | None, now_ms: int,
           timeout: bool = False) -> PlayerActed:
    player = hand.players[seat]
    stack = state.seats[seat].stack
    if kind is FOLD or kind is CHECK:
        total = player.bet
    elif kind is CALL:
        total = min(hand.level, player.bet + stack)
    else:
        assert amount is not None
        total = amount
    chips = total - player.bet
    return PlayerActed(hand.number, seat, kind, total, chips, chips == stack and chips > 0, now_ms, timeout)


def _refuse_act(state: TableState, cmd: Act) -> None:
    """Raise the error that says why ``cmd`` is not the turn's action."""
    _config(state)
    hand = state.hand
    if hand is None:
        raise HandNotRunning("no hand is running")
    seat = _seat_of(state, cmd.player_id)
    if seat not in hand.players:
        raise ActionNotAvailable(f"player {cmd.player_id!r} is not in this hand")
    # Not "it is not 'bob''s turn": a possessive after a quoted id reads as a stray quote.
    raise NotYourTurn(f"player {cmd.player_id!r} is not the one to act"
                      + (f": seat {hand.to_act} is" if hand.betting else ": nobody is to act now"))


def _act(state: TableState, cmd: Act) -> list[Any] | _Recorder:
    hand = state.hand
    seat = hand.to_act if hand is not None and hand.betting else None
    if seat is None or hand is None or hand.players[seat].player_id != cmd.player_id:
        _refuse_act(state, cmd)  # raises; the common case above skips the lookups
    assert hand is not None and seat is not None
    kind = cmd.action
    if type(kind) is not ActionKind:
        try:
            kind = ActionKind(kind)
        except ValueError:
            raise ActionNotAvailable(f"unknown action {cmd.action!r}") from None
    legal = state.legal or legal_actions_for_seat(state, seat)
    amounts = legal.amounts(kind)
    if amounts is None:
        offered = ", ".join(str(k) for k in legal.kinds())
        raise ActionNotAvailable(f"{kind} is not available now (you may: {offered})")
    if amounts:
        if cmd.amount not in amounts or isinstance(cmd.amount, bool):
            raise IllegalAmount(f"{kind} must be to {' or '.join(map(str, amounts))}, got {cmd.amount!r}",
                                amounts)
    elif cmd.amount is not None:
        raise IllegalAmount(f"{kind} takes no amount, got {cmd.amount!r}", ())
    if state.config is not None and state.config.interrupted_hand_void_seconds:
        _refuse_if_interrupted(state, cmd.now_ms)
    rec = _Recorder(state)
    rec.emit(_acted(state, hand, seat, kind, cmd.amount, cmd.now_ms))
    if state.config is not None and state.config.time_bank_seconds:
        used = bank_used(state, hand, seat, cmd.now_ms)  # §7: a decision past the action clock's end
        if used is not None:
            rec.emit(used)
    _advance(rec, cmd.now_ms)
    return rec


def _timeout(state: TableState, cmd: Timeout) -> list[Any] | _Recorder:
    _config(state)
    if state.hand is None:
        raise HandNotRunning("no hand is running")
    deadline = action_deadline_ms(state)
    if deadline is None:
        raise TimeoutNotDue("nobody is to act")
    if cmd.now_ms < deadline:
        raise TimeoutNotDue(f"the action clock runs out at {deadline} ms, it is {cmd.now_ms} ms")
    _refuse_if_interrupted(state, cmd.now_ms)
    seat = state.hand.to_act
    assert seat is not None
    rec = _Recorder(state)
    used = None
    if state.config is not None and state.config.time_bank_seconds:
        started = bank_start(state, state.hand, seat, cmd.now_ms)  # §7: the reserve runs now
        if started is not None:
            rec.emit(started)
            if cmd.now_ms < started.deadline_ms:
                return rec
        used = bank_used(state, state.hand, seat, cmd.now_ms)
    rec.emit(_auto_action(state, seat, cmd.now_ms, timeout=True))
    if used is not None:
        rec.emit(used)
    seat_state = rec.state.seats[seat]
    if not seat_state.sitting_out:
        rec.emit(PlayerSatOut(seat_state.player_id, seat, "timeout", cmd.now_ms))
    _advance(rec, cmd.now_ms)
    return rec


# --- what follows an event --------------------------------------------------------------------

def _advance(rec: _Recorder, now_ms: int) -> None:
    """Emit everything that follows without a player's decision: auto-folds of leavers, the next
    street, the run-out, the showdown and the end of the hand."""
    while rec.state.hand is not None:
        hand = rec.hand
        if hand.betting and hand.to_act is not None and _waits_for(rec.state, hand.to_act):
            return  # wait for the player (next_to_act only names a seat while two are live)
        live = hand.live()
        if len(live) == 1:
            _end_uncontested(rec, live[0].seat, now_ms)
            return
        if hand.betting:
            seat = hand.to_act
            assert seat is not None
            if _waits_for(rec.state, seat):
                return  # wait for the player
            absent = not rec.state.seats[seat].leaving  # at a tournament table (§11)
            rec.emit(_auto_action(rec.state, seat, now_ms, timeout=absent))
            continue
        # Betting on this street is over: a bet nobody can match any more goes back now (§5).
        _return_uncalled(rec)
        if hand.street >= LAST_STREET:
            _showdown(rec, now_ms)
            return
        _deal_street(rec, hand.street + 1, now_ms)


def _waits_for(state: TableState, seat: int) -> bool:
    """Whether the table waits for ``seat`` to act: not when they asked to leave (they check or fold at
    once), nor at a tournament table when they sit out (§11: dealt in, they act by the timeout rule)."""
    seat_state = state.seats[seat]
    if seat_state.leaving:
        return False
    return not (seat_state.sitting_out and state.config is not None and state.config.tournament_id != "")


def _deal_street(rec: _Recorder, street: int, now_ms: int) -> None:
    hand = rec.hand
    live_players = hand.live()
    live = [p.seat for p in live_players]
    can_act = {p.seat for p in live_players if p.can_act}  # dealing changes nobody's folded or all-in
    if needs_community_card(DECK_SIZE - hand.next_card, len(live)):
        rec.emit(CardDealt(hand.number, street, None, hand.deck[hand.next_card], True))
    else:
        face_up = later_street_face_up(street)
        for seat in live:
            rec.emit(CardDealt(hand.number, street, seat, hand.deck[hand.next_card], face_up))
    if betting_round_needed(len(can_act)):
        boards = [hand.players[s].up for s in live]
        first = first_to_act_on_later_street(live, boards, can_act, hand.game is Variant.RAZZ)
        assert first is not None
        rec.emit(BettingRoundStarted(hand.number, street, first, now_ms))


def _return_uncalled(rec: _Recorder) -> None:
    hand = rec.hand
    returned = uncalled_bet({seat: p.committed for seat, p in hand.players.items()})
    if returned is not None:
        rec.emit(UncalledBetReturned(hand.number, returned[0], returned[1]))


def _end_uncontested(rec: _Recorder, winner: int, now_ms: int) -> None:
    """§4: everybody else folded: the last player wins at once, no more cards.  §5: only the chips
    they matched; any above their all-in go to the last of the players who put them in to fold."""
    _return_uncalled(rec)
    hand = rec.hand
    config = rec.state.config
    assert config is not None
    pots = side_pots({seat: p.committed for seat, p in hand.players.items()}, hand.folds) or [(0, (winner,))]
    total = sum(amount for amount, _ in pots)
    rake = rake_for_hand(config, total, len(hand.order), hand.street > 3) if config.rake_basis_points else 0
    results, winnings = _award_pots(hand.game, pots, rake, {})
    _finish(rec, results, (), (), winnings, rake, now_ms)


def _award_pots(game: Variant, pots: list[tuple[int, tuple[int, ...]]], rake: int,
                shown: dict[int, ShowdownHand]) -> tuple[tuple[dict[str, Any], ...], dict[int, int]]:
    """§5: the pots' results, last side pot first, and what each seat wins.  §10: the rake comes out
    of the pots before any is awarded.  A pot goes to the best hands shown among its contenders, or
    whole to its only contender when none showed: the last player left, or the last of the pot's
    players to fold when all of them folded."""
    pot_rakes = take_rake_from_pots([amount for amount, _ in pots], rake) if rake else [0] * len(pots)
    results = []
    winnings: dict[int, int] = {}
    for index in range(len(pots) - 1, -1, -1):
        amount, contenders = pots[index]
        pot_rake = pot_rakes[index]
        in_contention = [seat for seat in contenders if seat in shown]
        if in_contention:
            # A Hi-Lo pot is split into its halves after its share of the rake is taken (§10).
            awards = award_pot(game, amount - pot_rake, in_contention, shown)
        else:
            awards = [{"seat": contenders[0], "amount": amount - pot_rake, "half": "whole", "hand": None}]
        for award in awards:
            winnings[award["seat"]] = winnings.get(award["seat"], 0) + award["amount"]
        results.append({"pot": index, "amount": amount, "rake": pot_rake, "eligible": contenders,
                        "awards": tuple(awards)})
    return tuple(results), winnings


def _showdown(rec: _Recorder, now_ms: int) -> None:
    """§5: show in order (mucking what cannot win), award the pots from the last side pot to the
    main pot.  The uncalled bet was returned when the betting ended."""
    state = rec.state
    config = state.config
    assert config is not None
    hand = rec.hand
    live = [p.seat for p in hand.live()]
    pots = side_pots({seat: p.committed for seat, p in hand.players.items()}, hand.folds)
    if hand.round_street == LAST_STREET:
        first = hand.aggressor if hand.aggressor is not None else hand.first_actor
        assert first is not None
        # The first actor may have folded since (a timeout): the next live seat clockwise shows first.
        first = next_seat_clockwise(hand.order, first, set(live))
    else:
        first = best_board_seat(live, [hand.players[s].up for s in live], hand.game is Variant.RAZZ)
    assert first is not None
    hands: dict[int, ShowdownHand] = {}
    shown: list[ShowdownHand] = []
    shown_cards: list[tuple[int, tuple[int, ...]]] = []
    mucked: list[int] = []
    for seat in showdown_order(live, first):
        player = hand.players[seat]
        own = tuple(player.down[:2] + player.up + player.down[2:])
        made = evaluate_showdown_hand(hand.game, seat, own + tuple(hand.community))
        hands[seat] = made
        if can_muck(hand.game, made, player.all_in, shown, pots):
            mucked.append(seat)
            rec.emit(HandMucked(hand.number, seat))
            continue
        shown.append(made)
        shown_cards.append((seat, own))
        rec.emit(HandShown(hand.number, seat, own,
                           made.high.description if made.high else None,
                           made.low.description if made.low else None))
    rake = 0
    if config.rake_basis_points:  # §10: the rake comes out of the pots before any is awarded
        rake = rake_for_hand(config, sum(amount for amount, _ in pots), len(hand.order), True)
    results, winnings = _award_pots(hand.game, pots, rake, {h.seat: h for h in shown})
    _finish(rec, results, tuple(shown_cards), tuple(mucked), winnings, rake, now_ms)


def _finish(rec: _Recorder, pots: tuple, shown: tuple, mucked: tuple, winnings: dict[int, int],
            rake: int, now_ms: int) -> None:
    hand = rec.hand
    state = rec.state
    stacks = tuple((seat, state.seats[seat].stack + winnings.get(seat, 0)) for seat in hand.order)
    shares = contributed_rake_shares({seat: p.committed for seat, p in hand.players.items()}, rake) \
        if rake else ()
    if state.config is not None and state.config.time_bank_refill_hands:
        for refill in bank_refills(state, hand):  # §7: before HandEnded, as the hand's own events
            rec.emit(refill)
    rec.emit(HandEnded(hand.number, pots, shown, mucked, stacks, now_ms, hand.server_seed, rake, shares))
    config = state.config
    if config is not None and config.mixed and state.rotation_hands % config.hands_per_game == 0:
        # §13: that hand was its game's last; the next hand's game is known from now on
        rec.emit(GameChanged(hand.number, game_of_next_hand(config, state.rotation_hands),
                             config.hands_per_game, now_ms))
    _after_hand(rec, stacks, now_ms)


def _after_hand(rec: _Recorder, stacks: tuple[tuple[int, int], ...], now_ms: int) -> None:
    """Once a hand has ended: players who asked to leave (all of them at a closed table, §12) leave with
    their stacks, a player left with none is sat out, and the seats freed are offered to the players
    waiting."""
    state = rec.state
    closed = state.control.status == CLOSED
    for seat, stack in stacks:
        seat_state = state.seats[seat]
        if leaves_after_hand(closed, seat_state.leaving):
            rec.emit(PlayerLeft(seat_state.player_id, seat, stack, now_ms))
        elif stack == 0 and not seat_state.sitting_out:
            rec.emit(PlayerSatOut(seat_state.player_id, seat, "busted", now_ms))
    _offer_open_seats(rec, now_ms)  # seats left by players who asked to leave during the hand


# --- stopping a game (RULES.md §12) -----------------------------------------------------------------------

def _refuse_if_closed(state: TableState) -> None:
    if not may_take_players(state.control.status):
        raise TableIsClosed(f"the table is closed: {state.control.reason}")


def _refuse_if_interrupted(state: TableState, now_ms: int) -> None:
    """§12: nothing more is played in a hand that stood still too long: it is voided instead."""
    deadline = hand_void_deadline_ms(state)
    if deadline is not None and now_ms >= deadline:
        raise HandInterrupted(f"the hand stood still past {deadline} ms (the table's"
                              " interrupted_hand_void_seconds): it is being voided")


def _check_operator_command(state: TableState, operator: Any, reason: Any) -> TableConfig:
    """The table, and a command recording who and why (§12)."""
    config = _config(state)
    if not valid_operator(operator):
        raise MalformedCommand("operator", "an operator's id is 1..64 characters without control characters")
    if not valid_reason(reason):
        raise MalformedCommand("reason", "a reason is 1..500 characters, not only spaces, without control"
                                         " characters")
    return config


def _stoppable(state: TableState, cmd: PauseTable | CloseTable) -> None:
    config = _check_operator_command(state, cmd.operator, cmd.reason)
    _refuse_if_closed(state)
    if config.tournament_id:
        raise TournamentTable("a tournament's table is paused and closed by its tournament")


def _pause_table(state: TableState, cmd: PauseTable) -> list[Any]:
    _stoppable(state, cmd)
    if state.control.status == PAUSED:
        raise TableIsPaused(f"the table is paused already: {state.control.reason}")
    return [TablePaused(cmd.operator, cmd.reason, cmd.now_ms)]


def _resume_table(state: TableState, cmd: ResumeTable) -> list[Any]:
    _check_operator_command(state, cmd.operator, cmd.reason)
    _refuse_if_closed(state)
    if state.control.status != PAUSED:
        raise TableNotPaused("the table is not paused")
    return [TableResumed(cmd.operator, cmd.reason, cmd.now_ms)]


def _close_table(state: TableState, cmd: CloseTable) -> _Recorder:
    """§12: as pausing, then every player leaves and is paid out: at once if not in the running hand."""
    _stoppable(state, cmd)
    rec = _Recorder(state)
    rec.emit(TableClosed(cmd.operator, cmd.reason, cmd.now_ms))
    for player in state.waiting:
        rec.emit(WaitingListLeft(player, "table_closed", cmd.now_ms))
    for seat, seat_state in sorted(state.seats.items()):
        if not _in_hand(state, seat):
            rec.emit(PlayerLeft(seat_state.player_id, seat, seat_state.stack, cmd.now_ms))
    return rec


def _void_hand(state: TableState, cmd: VoidHand) -> _Recorder:
    _check_operator_command(state, cmd.operator, cmd.reason)
    hand = state.hand
    if hand is None:
        raise HandNotRunning("no hand is running")
    if cmd.hand != hand.number:
        raise HandNotRunning(f"hand {cmd.hand!r} is not running (hand {hand.number} is)")
    rec = _Recorder(state)
    _void(rec, cmd.operator, cmd.reason, False, cmd.now_ms)
    return rec


def _void_interrupted_hand(state: TableState, cmd: VoidInterruptedHand) -> _Recorder:
    _config(state)
    deadline = hand_void_deadline_ms(state)
    if deadline is None:
        raise VoidNotDue("no hand is running" if state.hand is None
                         else "the table does not void interrupted hands")
    if cmd.now_ms < deadline:
        raise VoidNotDue(f"the hand stands still until {deadline} ms, it is {cmd.now_ms} ms")
    assert state.hand is not None
    idle = (cmd.now_ms - state.hand.turn_ms) // 1000
    rec = _Recorder(state)
    _void(rec, "", f"interrupted: no action or deal for {idle} s", True, cmd.now_ms)
    return rec


def _void(rec: _Recorder, operator: str, reason: str, automatic: bool, now_ms: int) -> None:
    """§12: every chip goes back to whoever put it in; no pot, no rake, no card shown; the hand ends."""
    hand = rec.hand
    returned = void_returns({seat: player.committed for seat, player in hand.players.items()})
    rec.emit(HandVoided(hand.number, operator, reason, automatic, returned, now_ms))
    stacks = tuple((seat, rec.state.seats[seat].stack) for seat in hand.order)
    rec.emit(HandEnded(hand.number, (), (), (), stacks, now_ms))
    _after_hand(rec, stacks, now_ms)


def _update_table_settings(state: TableState, cmd: UpdateTableSettings) -> list[Any]:
    """Settings that may change between hands (CHANGEABLE_SETTINGS), checked as a new table's are."""
    config = _check_operator_command(state, cmd.operator, cmd.reason)
    _refuse_if_closed(state)
    settings = cmd.settings
    if not isinstance(settings, dict) or not settings:
        raise MalformedCommand("settings", "name at least one setting to change")
    for name in settings:
        if name not in CHANGEABLE_SETTINGS:
            raise InvalidConfig(str(name), "is fixed when the table is created")
    if state.hand is not None:
        raise HandRunning(f"settings change between hands: hand {state.hand.number} is running"
                          " (pause the table and change them once it ends)")
    replace(config, **settings).validate()
    changed = {name: value for name, value in settings.items() if getattr(config, name) != value}
    if not changed:
        return []
    previous = {name: getattr(config, name) for name in changed}
    return [TableSettingsChanged(cmd.operator, cmd.reason, changed, previous, cmd.now_ms)]


_HANDLERS: dict[type, Callable[[TableState, Any], list[Any] | _Recorder]] = {
    CreateTable: _create_table,
    SitDown: _sit_down,
    Leave: _leave,
    SitOut: _sit_out,
    SitIn: _sit_in,
    TopUp: _top_up,
    SetClientSeed: _set_client_seed,
    CommitShuffle: _commit_shuffle,
    StartHand: _start_hand,
    Act: _act,
    Timeout: _timeout,
    JoinWaitingList: _join_waiting_list,
    LeaveWaitingList: _leave_waiting_list,
    ExpireSeatOffers: _expire_seat_offers,
    PauseTable: _pause_table,
    ResumeTable: _resume_table,
    CloseTable: _close_table,
    VoidHand: _void_hand,
    VoidInterruptedHand: _void_interrupted_hand,
    UpdateTableSettings: _update_table_settings,
    **CHAT_DECIDE,
}


def _run(state: TableState, command: Any) -> list[Any] | _Recorder:
    handler = _HANDLERS.get(type(command))
    if handler is None:
        raise MalformedCommand("command", f"unknown command {type(command).__name__}")
    return handler(state, command)


def decide(state: TableState, command: Any) -> list[Any]:
    """The events ``command`` causes in ``state``, or a DomainError saying why it is refused."""
    result = _run(state, command)
    return result.events if isinstance(result, _Recorder) else result


def execute(state: TableState, command: Any) -> tuple[list[Any], TableState]:
    """``decide`` and the state after its events in one step: ``(events, replay(events, state))``.

    decide already applies its events to a private copy to see what follows them; a service that
    needs the new state anyway saves applying them a second time."""
    result = _run(state, command)
    if isinstance(result, _Recorder):
        return result.events, result.state
    return result, replay(result, state)
