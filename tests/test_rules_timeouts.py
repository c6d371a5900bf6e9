"""RULES.md §7: the action clock, timeouts and sitting out."""

from __future__ import annotations

import pytest
from engine_helpers import T0, deal_table, options

from stud_service.engine import (
    ActionKind,
    PlayerActed,
    PlayerSatOut,
    StartHand,
    TableConfig,
    Timeout,
    TimeoutNotDue,
    action_deadline_ms,
    can_start_hand,
    decide,
    to_act,
)

CLOCK = TableConfig(min_buy_in=1, action_clock_seconds=30)


def test_deadline_is_the_clock_after_the_event_that_gave_the_turn() -> None:
    """§7: every decision has an action clock (30 s by default)."""
    table = deal_table({1: "Ah Kh 2c", 2: "Ad Kd 9s", 3: "Ac Kc 9h"}, config=CLOCK)
    assert action_deadline_ms(table.state) == T0 + 30_000
    table.now = T0 + 7_000
    table.act(1, "BRING_IN", 100)
    assert action_deadline_ms(table.state) == T0 + 37_000


def test_timeout_before_the_deadline_is_refused() -> None:
    """§7: nothing happens before the clock runs out."""
    table = deal_table({1: "Ah Kh 2c", 2: "Ad Kd 9s"}, config=CLOCK)
    with pytest.raises(TimeoutNotDue) as error:
        decide(table.state, Timeout(T0 + 29_999))
    assert error.value.reason == "TIMEOUT_NOT_DUE"


def test_a_timeout_that_checks_and_sits_the_player_out() -> None:
    """§7: when the clock runs out the player checks if checking is legal, and is sat out."""
    table = deal_table({1: "Ah Kh 2c 3c", 2: "Ad Kd 9s 9c"}, config=CLOCK)
    table.act(1, "BRING_IN", 100)
    table.act(2, "CALL")
    assert to_act(table.state) == 2 and "CHECK" in options(table, 2)
    deadline = action_deadline_ms(table.state)
    events = table.run(Timeout(deadline))
    assert events[0] == PlayerActed(1, 2, ActionKind.CHECK, 0, 0, False, deadline, timeout=True)
    assert events[1] == PlayerSatOut("p2", 2, "timeout", deadline)
    assert to_act(table.state) == 1  # the hand goes on; the player is still in it
    assert table.state.seats[2].sitting_out


def test_a_timeout_that_folds_when_facing_a_bet() -> None:
    """§7: when checking is not legal the player folds."""
    table = deal_table({1: "Ah Kh 2c", 2: "Ad Kd 9s", 3: "Ac Kc 9h"}, config=CLOCK)
    table.act(1, "BRING_IN", 100)
    events = table.run(Timeout(action_deadline_ms(table.state) + 1))
    assert events[0].action is ActionKind.FOLD and events[0].timeout and events[0].seat == 2
    assert table.state.hand.players[2].folded
    assert to_act(table.state) == 3


def test_timed_out_player_is_not_dealt_the_next_hand() -> None:
    """§7: sat out for later hands until they come back; no ante is taken from them."""
    table = deal_table({1: "Ah Kh 2c", 2: "Ad Kd 9s", 3: "Ac Kc 9h"}, config=CLOCK)
    table.act(1, "BRING_IN", 100)
    table.run(Timeout(action_deadline_ms(table.state)))  # seat 2 folds and sits out
    table.act(3, "FOLD")
    assert table.state.hand is None and can_start_hand(table.state)
    events = decide(table.state, StartHand(tuple(range(52)), "00", table.now))
    assert [seat for seat, _, _ in events[0].seats] == [1, 3]
    assert all(getattr(e, "seat", None) != 2 for e in events[1:])


def test_timeout_of_the_bring_in_posts_the_bring_in() -> None:
    """§3/§7 (decision): the bring-in is forced, so a timed-out bring-in posts it and sits out."""
    table = deal_table({1: "Ah Kh 2c", 2: "Ad Kd 9s"}, config=CLOCK)
    events = table.run(Timeout(action_deadline_ms(table.state)))
    assert events[0].action is ActionKind.BRING_IN and events[0].amount == 100
    assert isinstance(events[1], PlayerSatOut)


def test_folding_when_a_check_is_free_is_allowed() -> None:
    """§7: the hand is simply dead."""
    table = deal_table({1: "Ah Kh 2c 3c", 2: "Ad Kd 9s 9c", 3: "Ac Kc 9h 8h"})
    table.act(1, "BRING_IN", 100)
    table.act(2, "CALL")
    table.act(3, "CALL")
    assert options(table, 2) == {"CHECK": (), "FOLD": (), "BET": (200, 400)}
    table.act(2, "FOLD")
    assert table.state.hand.players[2].folded
