"""Players for the simulated tables of the integrity audit: honest ones, and pairs that collude.

Each is a policy ``(state, seat, legal, rng) -> (ActionKind, amount or None)`` that
``stud_service.audit.simulate.play_table`` asks for the action of the player at ``seat``; it reads the
engine's state as that player may (their own cards, everyone's up cards, the bets), nothing else.

- ``honest``: plays its own cards: bets and raises strong hands, calls fair ones, folds weak ones to a bet,
  and counts showing a better board than the bettor in its favour.
- ``soft_play(partner)``: honest against everyone but its partner. With the partner still in the hand it never
  bets or raises into the partner heads-up, folds to the partner's bets unless very strong, and when the
  partner has bet and a third player called, raises again to squeeze that player (a raise war).
- ``chip_dumper(receiver)`` and ``chip_receiver(dumper)``: while the dumper is in the hand, the receiver bets
  and raises whenever nobody else has bet; the dumper calls the receiver's bets up to the last street, then
  folds to them, and leaves the betting to the receiver. Otherwise both play honestly.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from typing import Any

from stud_service.cards import rank_of
from stud_service.engine import ActionKind, TableState, Variant

Policy = Callable[[TableState, int, Any, random.Random], tuple[ActionKind, int | None]]
_AGGRESSIVE = (ActionKind.COMPLETE, ActionKind.BET, ActionKind.RAISE)


def high_strength(cards: list[int]) -> float:
    """A rough 0..1 strength of a high hand from its ranks (pairs, trips, high cards)."""
    counts: dict[int, int] = {}
    for card in cards:
        counts[rank_of(card)] = counts.get(rank_of(card), 0) + 1
    groups = sorted(((n, r) for r, n in counts.items()), reverse=True)
    top_n, top_rank = groups[0]
    if top_n >= 4:
        return 0.99
    if top_n == 3:
        return 0.97 if len(groups) > 1 and groups[1][0] >= 2 else 0.88
    if top_n == 2:
        if len(groups) > 1 and groups[1][0] == 2:
            return 0.72 + 0.01 * top_rank
        return 0.42 + 0.02 * top_rank
    return 0.1 + 0.02 * max(counts)


def low_strength(cards: list[int]) -> float:
    """A rough 0..1 strength of an ace-to-five low (eight or better): a made low by its highest card, a
    draw by how many distinct low cards it holds and how few cards it took to get them."""
    lows = sorted({(rank_of(card) + 1) % 13 for card in cards if (rank_of(card) + 1) % 13 <= 7})  # ace = 0
    if len(lows) >= 5:
        return 0.6 + 0.4 * (1 - lows[4] / 8)
    return 0.15 + 0.45 * (len(lows) / 5) * (len(lows) / max(1, len(cards)))


def strength(state: TableState, seat: int) -> float:
    hand = state.hand
    assert hand is not None and state.config is not None
    player = hand.players[seat]
    cards = list(player.down) + list(player.up) + list(hand.community)
    variant = hand.game  # the hand's game (RULES.md §13), not the table's first
    if variant is Variant.RAZZ:
        return low_strength(cards)
    if variant is Variant.STUD_HI_LO:
        return max(high_strength(cards), 0.9 * low_strength(cards))
    return high_strength(cards)


def _option(legal: Any, kinds: tuple[ActionKind, ...]) -> tuple[ActionKind, int | None]:
    """The first of ``kinds`` that is legal, at its smallest amount."""
    for kind in kinds:
        amounts = legal.amounts(kind)
        if amounts is not None:
            return kind, (amounts[0] if amounts else None)
    raise LookupError(kinds)


def _legal(legal: Any, kind: ActionKind) -> bool:
    return legal.amounts(kind) is not None


def _passive(legal: Any) -> tuple[ActionKind, int | None]:
    return _option(legal, (ActionKind.CHECK, ActionKind.BRING_IN, ActionKind.CALL, ActionKind.FOLD))


def _aggressive(legal: Any) -> tuple[ActionKind, int | None]:
    try:
        return _option(legal, _AGGRESSIVE)
    except LookupError:
        return _option(legal, (ActionKind.CALL, ActionKind.CHECK, ActionKind.BRING_IN))


def _bettor(state: TableState) -> int | None:
    """The seat whose bet, raise or completion the player to act faces (None: nobody's)."""
    hand = state.hand
    assert hand is not None
    return hand.aggressor


def _seat_of(state: TableState, player_id: str) -> int | None:
    hand = state.hand
    assert hand is not None
    for seat, player in hand.players.items():
        if player.player_id == player_id and not player.folded:
            return seat
    return None


def _board_better(state: TableState, seat: int, other: int) -> bool:
    from stud_service import native

    hand = state.hand
    assert hand is not None and state.config is not None
    mine, theirs = hand.players[seat].up[:4], hand.players[other].up[:4]
    if not mine or not theirs:
        return False
    rank = native.board_rank_razz if hand.game is Variant.RAZZ else native.board_rank_high
    return bool(rank(mine) > rank(theirs))


def honest(state: TableState, seat: int, legal: Any, rng: random.Random) -> tuple[ActionKind, int | None]:
    """Plays its own cards (see the module's docstring)."""
    value = strength(state, seat) + rng.uniform(-0.12, 0.12)
    bettor = _bettor(state)
    facing = bettor is not None and bettor != seat and _legal(legal, ActionKind.CALL)
    if facing:
        assert bettor is not None
        if _board_better(state, seat, bettor):
            value += 0.1
        if value > 0.8 and rng.random() < 0.5:
            return _aggressive(legal)
        if value > 0.38:
            return _option(legal, (ActionKind.CALL,))
        return _option(legal, (ActionKind.FOLD,))
    if value > 0.6 and rng.random() < 0.75:
        return _aggressive(legal)
    return _passive(legal)


def soft_play(partner: str) -> Policy:
    """Honest, but soft on ``partner`` and squeezing a third player with them (see the module's docstring)."""

    def policy(state: TableState, seat: int, legal: Any, rng: random.Random) -> tuple[ActionKind, int | None]:
        hand = state.hand
        assert hand is not None
        friend = _seat_of(state, partner)
        if friend is None:
            return honest(state, seat, legal, rng)
        live = hand.live()
        bettor = _bettor(state)
        if bettor == friend and _legal(legal, ActionKind.CALL):
            if len(live) > 2 and rng.random() < 0.7:
                return _aggressive(legal)  # the partner bet and someone called: raise them in between
            if strength(state, seat) < 0.9:
                return _option(legal, (ActionKind.FOLD,))
            return _option(legal, (ActionKind.CALL,))
        action = honest(state, seat, legal, rng)
        if len(live) == 2 and action[0] in _AGGRESSIVE:
            return _passive(legal)  # never bet into the partner heads-up
        return action

    return policy


def chip_dumper(receiver: str) -> Policy:
    """Loses chips to ``receiver`` (see the module's docstring)."""

    def policy(state: TableState, seat: int, legal: Any, rng: random.Random) -> tuple[ActionKind, int | None]:
        hand = state.hand
        assert hand is not None
        friend = _seat_of(state, receiver)
        if friend is None:
            return honest(state, seat, legal, rng)
        if _bettor(state) == friend and _legal(legal, ActionKind.CALL):
            if hand.street >= 7:
                return _option(legal, (ActionKind.FOLD,))
            return _option(legal, (ActionKind.CALL,))
        action = honest(state, seat, legal, rng)
        if action[0] in _AGGRESSIVE:
            return _passive(legal)  # leave the betting to the receiver
        return action

    return policy


def chip_receiver(dumper: str) -> Policy:
    """Collects from ``dumper`` (see the module's docstring)."""

    def policy(state: TableState, seat: int, legal: Any, rng: random.Random) -> tuple[ActionKind, int | None]:
        if _seat_of(state, dumper) is None:
            return honest(state, seat, legal, rng)
        bettor = _bettor(state)
        if bettor is None or bettor == _seat_of(state, dumper):
            return _aggressive(legal)  # bet so that the dumper can call, and fold on the last street
        return honest(state, seat, legal, rng)

    return policy
