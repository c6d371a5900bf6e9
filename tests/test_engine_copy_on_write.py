"""Copy-on-write states: every state of a hand stays as it was while later states share its parts.

States share seat and player records, and players' card lists, with the states they were copied
from (stud_service.engine.state).  These tests keep every state of whole hands (RULES.md §2 dealing,
§3-§4 betting, §5 showdown) and check each against its own snapshot once the hand is over.
"""

from __future__ import annotations

import json
import random

import pytest

from stud_service.engine import (
    Act,
    ActionKind,
    PlayerSeated,
    StartHand,
    TableConfig,
    TableCreated,
    Variant,
    execute,
    legal_actions,
    replay,
    state_to_json,
)


def _table(variant: Variant, players: int) -> object:
    config = TableConfig(variant=variant, min_buy_in=1, max_buy_in=40_000)
    return replay([TableCreated("t", config, 0)]
                  + [PlayerSeated(f"p{seat}", seat, 1_000 + 700 * seat, 0) for seat in range(1, players + 1)])


def _snapshot(state: object) -> dict:
    """The state as plain JSON, sharing no list with the state (state_to_json hands out its lists)."""
    return json.loads(json.dumps(state_to_json(state)))


@pytest.mark.parametrize("variant", list(Variant))
def test_no_state_of_a_hand_changes_after_later_events(variant: Variant) -> None:
    rng = random.Random(11)
    state = _table(variant, 6)
    kept: list[tuple[object, dict]] = []
    for _ in range(30):
        deck = list(range(52))
        rng.shuffle(deck)
        _, state = execute(state, StartHand(tuple(deck), "00", 0))
        while state.hand is not None:
            kept.append((state, _snapshot(state)))
            hand = state.hand
            player_id = hand.players[hand.to_act].player_id
            kind, amounts = rng.choice(legal_actions(state, player_id).options)
            _, state = execute(state, Act(player_id, kind, amounts[0] if amounts else None, 0))
    assert len(kept) > 100
    for old, snapshot in kept:
        assert _snapshot(old) == snapshot


def test_dealing_gives_the_new_state_new_card_lists() -> None:
    """§2: a street's cards land in the new state's lists; the lists of the state before stay short."""
    state = _table(Variant.STUD, 2)
    _, state = execute(state, StartHand(tuple(range(52)), "00", 0))
    before = {seat: (list(p.down), list(p.up)) for seat, p in state.hand.players.items()}
    while state.hand is not None and state.hand.street == 3:
        hand = state.hand
        player_id = hand.players[hand.to_act].player_id
        options = dict(legal_actions(state, player_id).options)
        kind = next(k for k in (ActionKind.BRING_IN, ActionKind.CALL, ActionKind.CHECK) if k in options)
        amounts = options[kind]
        previous = state
        _, state = execute(state, Act(player_id, kind, amounts[0] if amounts else None, 0))
    assert state.hand is not None and state.hand.street == 4
    for seat, (down, up) in before.items():
        assert (previous.hand.players[seat].down, previous.hand.players[seat].up) == (down, up)
        assert len(state.hand.players[seat].up) == len(up) + 1
