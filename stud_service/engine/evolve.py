"""evolve(state, event) -> state: apply one fact.

``evolve`` never changes the state it is given: it copies, then applies.  ``apply_in_place``
is the mutating step that ``replay`` and ``decide`` use on their own private copies (one copy
per batch instead of one per event).  Applying an event decide produced never fails; an event
that does not fit the state raises ``InvalidEvent``.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from typing import Any, Final

from stud_service.engine.chat import CHAT_APPLY
from stud_service.engine.commands import CHANGEABLE_SETTINGS, ActionKind
from stud_service.engine.control import CLOSED, OPEN, PAUSED
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
    hand_game,
)
from stud_service.engine.rules.betting import (
    bet_size_for_street,
    raise_size_after_bet,
    uncapped_heads_up_round,
)
from stud_service.engine.rules.rotation import hand_counts_toward_rotation
from stud_service.engine.state import (
    HandPlayer,
    HandState,
    SeatState,
    TableState,
    writable_player,
    writable_seat,
)
from stud_service.engine.time_bank import TIME_BANK_APPLY, forget_bank


class InvalidEvent(ValueError):
    """An event that cannot follow the state it is applied to (a corrupt or foreign log)."""


# Enum members bound once: a module global is several times cheaper to read than ActionKind.FOLD,
# and these comparisons run on every action applied.
FOLD: Final = ActionKind.FOLD
CHECK: Final = ActionKind.CHECK
CALL: Final = ActionKind.CALL
BRING_IN: Final = ActionKind.BRING_IN
COMPLETE: Final = ActionKind.COMPLETE
BET: Final = ActionKind.BET
RAISE: Final = ActionKind.RAISE


def _table_created(state: TableState, e: TableCreated) -> None:
    state.table_id = e.table_id
    state.config = e.config


def _player_seated(state: TableState, e: PlayerSeated) -> None:
    state.seats[e.seat] = SeatState(e.player_id, e.buy_in, owner=state.token)


def _player_left(state: TableState, e: PlayerLeft) -> None:
    del state.seats[e.seat]
    forget_bank(state, e.seat)


def _leave_requested(state: TableState, e: LeaveRequested) -> None:
    writable_seat(state, e.seat).leaving = True


def _player_sat_out(state: TableState, e: PlayerSatOut) -> None:
    seat_state = writable_seat(state, e.seat)
    seat_state.sitting_out = True
    seat_state.sit_out_reason = e.reason


def _player_sat_in(state: TableState, e: PlayerSatIn) -> None:
    seat_state = writable_seat(state, e.seat)
    seat_state.sitting_out = False
    seat_state.sit_out_reason = None


def _player_topped_up(state: TableState, e: PlayerToppedUp) -> None:
    writable_seat(state, e.seat).stack += e.amount


def _client_seed_set(state: TableState, e: ClientSeedSet) -> None:
    state.seats[e.seat]  # the seat must be taken; the service keeps the seed for the next deal


def _shuffle_committed(state: TableState, e: ShuffleCommitted) -> None:
    pass  # the service keeps the commitment for its next deal; the table itself does not change


def _hand_started(state: TableState, e: HandStarted) -> None:
    if state.hand is not None:
        raise InvalidEvent(f"hand {e.hand} started while hand {state.hand.number} is running")
    if state.config is None:  # replaying this hand alone: HandStarted carries the table
        state.table_id = e.table_id
        state.config = e.config
    elif e.config.tournament_id and e.config is not state.config:
        state.config = e.config  # a tournament table deals each hand at its level's stakes (§11)
    players = {}
    for seat, player_id, stack in e.seats:
        seat_state = state.seats.get(seat)
        if seat_state is None or seat_state.player_id != player_id:
            state.seats[seat] = SeatState(player_id, stack, owner=state.token)
        elif seat_state.stack != stack:
            writable_seat(state, seat).stack = stack
        players[seat] = HandPlayer(seat, player_id, state.token)
    state.hand_number = e.hand
    state.hand = HandState(e.hand, e.deck, players, e.at_ms, game=hand_game(e), config=e.config)
    seed = e.extra.get("server_seed") if isinstance(e.extra, dict) else None
    state.hand.server_seed = seed if isinstance(seed, str) else None


def _hand(state: TableState, hand_number: int) -> HandState:
    hand = state.hand
    if hand is None or hand.number != hand_number:
        raise InvalidEvent(f"event for hand {hand_number} but the running hand is "
                           f"{hand.number if hand else 'none'}")
    return hand


def _ante_posted(state: TableState, e: AntePosted) -> None:
    _hand(state, e.hand)
    player = writable_player(state, e.seat)
    writable_seat(state, e.seat).stack -= e.amount
    player.committed += e.amount
    player.all_in = e.all_in


def _card_dealt(state: TableState, e: CardDealt) -> None:
    hand = state.hand
    if hand is None or hand.number != e.hand:
        hand = _hand(state, e.hand)  # raises
    hand.next_card += 1
    if e.street != hand.street:
        _new_street(state, hand, e.street)
    seat = e.seat
    if seat is None:
        hand.community.append(e.card)
    elif e.face_up:
        player = writable_player(state, seat)
        player.up = player.up + [e.card]  # a new list: earlier states share the old one
    else:
        player = writable_player(state, seat)
        player.down = player.down + [e.card]


def _new_street(state: TableState, hand: HandState, street: int) -> None:
    """The street's first card closes the last street's betting: bets and actions start afresh."""
    hand.street = street
    hand.betting = False
    hand.to_act = None
    hand.level = hand.full_level = hand.n_bets = 0
    for seat, player in hand.players.items():
        if player.bet or player.acted_level is not None:
            player = writable_player(state, seat)
            player.bet = 0
            player.acted_level = None


def _betting_round_started(state: TableState, e: BettingRoundStarted) -> None:
    hand = _hand(state, e.hand)
    config = hand.config  # the hand's stakes (§11, §13)
    hand.betting = True
    hand.to_act = e.first_seat
    hand.turn_ms = e.at_ms
    state.turns += 1
    hand.round_street = e.street
    hand.level = hand.full_level = hand.n_bets = 0
    hand.completed = False
    hand.step = bet_size_for_street(config, e.street)
    hand.bring_in_due = e.street == 3
    hand.uncapped = uncapped_heads_up_round(config, len(hand.live()))
    hand.first_actor = e.first_seat
    hand.aggressor = None


def next_to_act(hand: HandState, after: int) -> int | None:
    """The next seat clockwise that still owes an action this round, or None (round over).

    §4: nobody owes one once a single live player is left, or once all live players but one are
    all-in and that one has matched the highest bet (as when the others with chips folded)."""
    players = hand.players
    order = hand.order
    i = order.index(after) + 1
    level = hand.level
    live = 0
    can_act = 0
    found = None
    for seat in order[i:] + order[:i]:  # clockwise, ``after`` last
        p = players[seat]
        if p.folded:
            continue
        live += 1
        if not p.all_in:
            can_act += 1
            if found is None and (p.acted_level is None or p.bet < level):
                found = seat
        if found is not None and live >= 2 and (can_act >= 2 or players[found].bet < level):
            return found  # the answer cannot change: the rest only adds players
    return None


def _player_acted(state: TableState, e: PlayerActed) -> None:
    hand = state.hand
    if hand is None or hand.number != e.hand:
        hand = _hand(state, e.hand)  # raises
    seat = e.seat
    player = writable_player(state, seat)
    chips = e.chips
    if chips:
        writable_seat(state, seat).stack -= chips
        player.committed += chips
    player.bet = e.amount
    player.all_in = e.all_in
    action = e.action
    if action is FOLD:
        player.folded = True
        hand.folds = (*hand.folds, seat)
    elif action is not CHECK and action is not CALL:
        _raise_level(state, hand, e)
    player.acted_level = hand.full_level
    nxt = next_to_act(hand, seat)
    hand.to_act = nxt
    hand.betting = nxt is not None
    hand.turn_ms = e.at_ms
    if nxt is not None:
        state.turns += 1


def _raise_level(state: TableState, hand: HandState, e: PlayerActed) -> None:
    """The bring-in, a completion, a bet or a raise: the street's bet level and the cap count move."""
    action = e.action
    config = hand.config  # the hand's stakes (§11, §13)
    if action is BRING_IN:
        hand.bring_in_due = False
        hand.level = hand.full_level = config.bring_in
        if config.bring_in >= config.small_bet:  # a full bring-in is the completion
            hand.completed = True
            hand.n_bets = 1
    elif action is COMPLETE:
        hand.bring_in_due = False
        hand.level = max(hand.level, e.amount)
        hand.aggressor = e.seat
        if e.amount >= config.small_bet:
            hand.completed = True
            hand.n_bets = 1
            hand.full_level = e.amount
    elif action is BET:
        hand.level = e.amount
        hand.aggressor = e.seat
        hand.step = raise_size_after_bet(config, hand.street, e.amount)
        if e.amount >= bet_size_for_street(config, hand.street):
            hand.n_bets = 1
            hand.full_level = e.amount
    elif action is RAISE:
        if e.amount >= hand.full_level + hand.step:  # a full raise; a short all-in one is not
            hand.n_bets += 1
            hand.full_level = e.amount
        hand.level = max(hand.level, e.amount)
        hand.aggressor = e.seat


def _uncalled_bet_returned(state: TableState, e: UncalledBetReturned) -> None:
    _hand(state, e.hand)
    player = writable_player(state, e.seat)
    player.committed -= e.amount
    player.bet = max(0, player.bet - e.amount)
    writable_seat(state, e.seat).stack += e.amount


def _nothing(state: TableState, e: Any) -> None:
    _hand(state, e.hand)


def _hand_ended(state: TableState, e: HandEnded) -> None:
    _hand(state, e.hand)
    for seat, stack in e.stacks:
        if state.seats[seat].stack != stack:
            writable_seat(state, seat).stack = stack
    if e.rake:
        state.rake_taken += e.rake
    if hand_counts_toward_rotation(e.hand, state.control.voided_hand):
        state.rotation_hands += 1
    state.hand = None


def _game_changed(state: TableState, e: GameChanged) -> None:
    """§13: HandEnded counted the hand; this event only says what that changed."""


def _waiting_list_joined(state: TableState, e: WaitingListJoined) -> None:
    state.waiting = (*state.waiting, e.player_id)


def _waiting_list_left(state: TableState, e: WaitingListLeft) -> None:
    if e.player_id not in state.waiting:
        raise InvalidEvent(f"{e.player_id!r} left a waiting list they are not on")
    state.waiting = tuple(player for player in state.waiting if player != e.player_id)
    state.offers = tuple(offer for offer in state.offers if offer[0] != e.player_id)


def _seat_offered(state: TableState, e: SeatOffered) -> None:
    if e.player_id not in state.waiting or e.seat in state.seats:
        raise InvalidEvent(f"seat {e.seat} offered to {e.player_id!r} does not fit the state")
    state.offers = (*state.offers, (e.player_id, e.seat, e.deadline_ms))


# --- stopping a game (RULES.md §12) ---------------------------------------------------------------------

def _table_paused(state: TableState, e: TablePaused) -> None:
    state.control = replace(state.control, status=PAUSED, reason=e.reason, operator=e.operator,
                            since_ms=e.at_ms)


def _table_resumed(state: TableState, e: TableResumed) -> None:
    state.control = replace(state.control, status=OPEN, reason=e.reason, operator=e.operator,
                            since_ms=e.at_ms)


def _table_closed(state: TableState, e: TableClosed) -> None:
    state.control = replace(state.control, status=CLOSED, reason=e.reason, operator=e.operator,
                            since_ms=e.at_ms)


def _hand_voided(state: TableState, e: HandVoided) -> None:
    """Every chip in the hand goes back where it came from; the HandEnded that follows ends the hand."""
    hand = _hand(state, e.hand)
    for seat, chips in e.returned:
        player = writable_player(state, seat)
        if chips != player.committed:
            raise InvalidEvent(f"hand {e.hand} returns {chips} to seat {seat}, not its {player.committed}")
        player.committed = 0
        player.bet = 0
        writable_seat(state, seat).stack += chips
    hand.betting = False
    hand.to_act = None
    state.control = replace(state.control, voided_hand=e.hand, void_reason=e.reason,
                            void_operator=e.operator, voided_ms=e.at_ms)


def _table_settings_changed(state: TableState, e: TableSettingsChanged) -> None:
    if state.config is None:
        raise InvalidEvent("settings changed at a table that does not exist")
    if not set(e.settings) <= set(CHANGEABLE_SETTINGS):
        raise InvalidEvent(f"settings {sorted(set(e.settings) - set(CHANGEABLE_SETTINGS))} do not change")
    state.config = replace(state.config, **e.settings)
def _time_bank_event(state: TableState, e: Any) -> None:
    """§7's events belong to the running hand (engine.time_bank applies them)."""
    _hand(state, e.hand)
    TIME_BANK_APPLY[type(e)](state, e)


APPLY: dict[type, Callable[[TableState, Any], None]] = {
    TableCreated: _table_created,
    PlayerSeated: _player_seated,
    PlayerLeft: _player_left,
    LeaveRequested: _leave_requested,
    PlayerSatOut: _player_sat_out,
    PlayerSatIn: _player_sat_in,
    PlayerToppedUp: _player_topped_up,
    ClientSeedSet: _client_seed_set,
    ShuffleCommitted: _shuffle_committed,
    HandStarted: _hand_started,
    AntePosted: _ante_posted,
    CardDealt: _card_dealt,
    BettingRoundStarted: _betting_round_started,
    PlayerActed: _player_acted,
    UncalledBetReturned: _uncalled_bet_returned,
    HandShown: _nothing,
    HandMucked: _nothing,
    HandEnded: _hand_ended,
    WaitingListJoined: _waiting_list_joined,
    WaitingListLeft: _waiting_list_left,
    SeatOffered: _seat_offered,
    TablePaused: _table_paused,
    TableResumed: _table_resumed,
    TableClosed: _table_closed,
    HandVoided: _hand_voided,
    TableSettingsChanged: _table_settings_changed,
    GameChanged: _game_changed,
    **dict.fromkeys(TIME_BANK_APPLY, _time_bank_event),
    **CHAT_APPLY,
}


def apply_in_place(state: TableState, event: Any) -> TableState:
    """Apply ``event`` to ``state`` itself (which the caller owns) and return it."""
    state.legal = None
    try:
        APPLY[type(event)](state, event)
    except KeyError as exc:
        if type(event) not in APPLY:
            raise InvalidEvent(f"unknown event {type(event).__name__}") from None
        raise InvalidEvent(f"{type(event).__name__} does not fit the state: no {exc}") from None
    return state


def evolve(state: TableState, event: Any) -> TableState:
    """A new state: ``state`` with ``event`` applied.  ``state`` is left as it was."""
    return apply_in_place(state.copy(), event)
