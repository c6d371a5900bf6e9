"""What the player to act may do, and for what amounts (RULES.md §3, §4, §7).

Clients render their buttons from ``legal_actions``; ``decide`` accepts exactly these.
Amounts are the total the player's street bet becomes ("raise to").
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from typing import Final

from stud_service.engine.commands import ActionKind
from stud_service.engine.records import fast_frozen_init
from stud_service.engine.rules.betting import (
    may_reraise,
    open_pair_on_fourth_street,
    opening_bet_sizes,
    raise_cap_reached,
)
from stud_service.engine.state import HandPlayer, HandState, TableState

NO_AMOUNT: Final[tuple[int, ...]] = ()
Options = tuple[tuple[ActionKind, tuple[int, ...]], ...]  # ((kind, amounts), ...)


@dataclass(frozen=True, slots=True)
class LegalActions:
    """``options``: ((kind, amounts), ...); amounts is () for FOLD/CHECK/CALL, whose amount is implied
    (``call_amount`` is the total a CALL makes the bet).  Empty options: the player may not act now."""

    seat: int | None
    options: Options
    call_amount: int | None = None

    def __init__(self, seat: int | None, options: Options, call_amount: int | None = None) -> None:
        object.__setattr__(self, "seat", seat)
        object.__setattr__(self, "options", options)
        object.__setattr__(self, "call_amount", call_amount)

    def kinds(self) -> tuple[ActionKind, ...]:
        return tuple(kind for kind, _ in self.options)

    def amounts(self, kind: ActionKind) -> tuple[int, ...] | None:
        for option_kind, amounts in self.options:
            if option_kind is kind:
                return amounts
        return None

    def to_json(self) -> dict:
        return {"seat": self.seat, "call_amount": self.call_amount,
                "options": [{"action": str(kind), "amounts": list(amounts)}
                            for kind, amounts in self.options]}


fast_frozen_init(LegalActions)  # one per decision: see records.py


# The options without an amount, built once: most decisions offer exactly one of these pairs.
FACING_A_BET: Final[Options] = ((ActionKind.FOLD, NO_AMOUNT), (ActionKind.CALL, NO_AMOUNT))
# §7: a free fold is allowed
CHECK_IS_FREE: Final[Options] = ((ActionKind.CHECK, NO_AMOUNT), (ActionKind.FOLD, NO_AMOUNT))
BRING_IN: Final = ActionKind.BRING_IN
COMPLETE: Final = ActionKind.COMPLETE
BET: Final = ActionKind.BET
RAISE: Final = ActionKind.RAISE


def _live_boards(hand: HandState) -> Iterator[list[int]]:
    """The live players' up cards, read lazily: only the fourth street's open-pair rule looks at them.
    (A generator function, not an expression: compiled, a generator expression becomes a list.)"""
    players = hand.players
    for seat in hand.order:
        player = players[seat]
        if not player.folded:
            yield player.up


def _options_for(state: TableState, hand: HandState, player: HandPlayer) -> LegalActions:
    config = hand.config  # the hand's stakes (§11, §13)
    top = player.bet + state.seats[player.seat].stack  # the most this player's street bet can become
    if hand.bring_in_due:
        # §3: the bring-in must post the bring-in or complete; no fold, no check.
        bring_in = ((BRING_IN, (min(config.bring_in, top),)),)
        if config.bring_in < config.small_bet and top > config.bring_in:
            return LegalActions(player.seat, bring_in + ((COMPLETE, (min(config.small_bet, top),)),))
        return LegalActions(player.seat, bring_in)
    level = hand.level
    if level > player.bet:
        call_amount: int | None = min(level, top)
        options: Options = FACING_A_BET
    else:
        call_amount = None
        options = CHECK_IS_FREE
    if top > level and may_reraise(player.acted_level, hand.full_level):
        if hand.street == 3 and not hand.completed:
            options += ((COMPLETE, (min(config.small_bet, top),)),)
        elif level == 0:
            open_pair = open_pair_on_fourth_street(hand.game, hand.street, _live_boards(hand))
            sizes = opening_bet_sizes(config, hand.street, open_pair)
            if len(sizes) == 1:
                options += ((BET, (min(sizes[0], top),)),)
            else:
                options += ((BET, tuple(sorted({min(size, top) for size in sizes}))),)
        elif not raise_cap_reached(hand.n_bets, hand.uncapped):
            # A full raise is one step above the last full level (which is above any short all-in).
            options += ((RAISE, (min(hand.full_level + hand.step, top),)),)
    return LegalActions(player.seat, options, call_amount)


def legal_actions(state: TableState, player_id: str) -> LegalActions:
    """What ``player_id`` may do now; no options unless it is their turn."""
    hand = state.hand
    if hand is None or not hand.betting or hand.to_act is None:
        return LegalActions(state.seat_of(player_id), ())
    player = hand.players[hand.to_act]
    if player.player_id != player_id:
        return LegalActions(state.seat_of(player_id), ())
    cached = state.legal  # as legal_actions_for_seat, without checking the turn a second time
    if cached is None:
        cached = state.legal = _options_for(state, hand, player)
    return cached


def legal_actions_for_seat(state: TableState, seat: int) -> LegalActions:
    hand = state.hand
    if hand is None or not hand.betting or hand.to_act != seat:
        return LegalActions(seat, ())
    cached = state.legal
    if cached is None:
        # A state is never changed once another holds it, so the answer can be kept on it.
        cached = state.legal = _options_for(state, hand, hand.players[seat])
    return cached
