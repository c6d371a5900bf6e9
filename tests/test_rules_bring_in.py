"""RULES.md §3: the bring-in on third street."""

from __future__ import annotations

import pytest
from engine_helpers import deal_table, of_type, options

from stud_service.engine import (
    ActionNotAvailable,
    BettingRoundStarted,
    BringInTiebreak,
    InvalidConfig,
    TableConfig,
    Variant,
    to_act,
)


def bring_in_seat_of(table) -> int:
    return of_type(table.log, "BettingRoundStarted")[-1].first_seat


def test_lowest_door_card_brings_in_ties_broken_by_suit() -> None:
    """§3: lowest door card brings in; equal ranks by suit, clubs lowest (5c before 5d)."""
    table = deal_table({1: "Ah Kh 5d", 2: "Ad Kd 9s", 3: "Ac Kc 5c"})
    assert bring_in_seat_of(table) == 3


def test_two_of_clubs_is_the_worst_card_of_all() -> None:
    """§3: the 2 of clubs brings in ahead of the 2 of diamonds."""
    table = deal_table({1: "Ah Kh 2d", 2: "Ad Kd 2c", 3: "Ac Kc 3c"})
    assert bring_in_seat_of(table) == 2


def test_bring_in_tie_by_position_option() -> None:
    """§3 (Norwegian seed): with bring_in_tiebreak=POSITION the tied player first from the dealer's left."""
    config = TableConfig(min_buy_in=1, bring_in_tiebreak=BringInTiebreak.POSITION)
    table = deal_table({1: "Ah Kh 5d", 2: "Ad Kd 9s", 3: "Ac Kc 5c"}, config=config)
    assert bring_in_seat_of(table) == 1


def test_razz_highest_door_card_brings_in_kings_by_suit_spades_first() -> None:
    """§3 Razz: highest door card brings in, aces low; K of spades before the K of clubs."""
    config = TableConfig(min_buy_in=1, variant=Variant.RAZZ)
    table = deal_table({1: "2h 3h Kc", 2: "2d 3d Ks", 3: "2c 3c Qs", 4: "2s 3s Ad"}, config=config)
    assert bring_in_seat_of(table) == 2


def test_razz_ace_is_low_so_never_brings_in_over_a_queen() -> None:
    """§3 Razz: the ace is the lowest card."""
    config = TableConfig(min_buy_in=1, variant=Variant.RAZZ)
    table = deal_table({1: "2h 3h As", 2: "2d 3d Qc"}, config=config)
    assert bring_in_seat_of(table) == 2


def test_bring_in_passes_clockwise_when_the_lowest_card_is_all_in_from_the_ante() -> None:
    """§3: a player all-in from the ante cannot bring in; the next player with chips must,
    whatever their door card."""
    table = deal_table({2: "Ah Kh 2c", 3: "Ad Kd As", 5: "Ac Kc 3c"}, stacks={2: 50, 3: 10_000, 5: 10_000})
    assert of_type(table.log, "AntePosted")[0].all_in
    assert bring_in_seat_of(table) == 3


def test_bring_in_pass_on_wraps_from_seat_eight_to_seat_one() -> None:
    """§3 with §1's clockwise: the duty passes from seat 8 to seat 1."""
    table = deal_table({1: "Ah Kh As", 4: "Ad Kd Ks", 8: "Ac Kc 2c"}, stacks={1: 10_000, 4: 10_000, 8: 30})
    assert bring_in_seat_of(table) == 1


def test_bring_in_must_post_or_complete_no_fold_no_check() -> None:
    """§3: the bring-in posts the bring-in or completes to the small bet."""
    table = deal_table({1: "Ah Kh 2c", 2: "Ad Kd 9s"})
    assert options(table, 1) == {"BRING_IN": (100,), "COMPLETE": (200,)}
    before = table.state
    for action in ("FOLD", "CHECK", "CALL"):
        with pytest.raises(ActionNotAvailable):
            table.act(1, action)
    assert table.state is before


def test_players_may_call_or_complete_after_the_bring_in() -> None:
    """§3: after the bring-in each player may fold, call, or complete to S (not raise)."""
    table = deal_table({1: "Ah Kh 2c", 2: "Ad Kd 9s", 3: "Ac Kc 9h"})
    table.act(1, "BRING_IN", 100)
    assert options(table, 2) == {"FOLD": (), "CALL": (), "COMPLETE": (200,)}


def test_completion_is_not_a_raise_and_after_it_raises_go_in_steps_of_s() -> None:
    """§3: completing is not a raise; after it players may raise in steps of S (the bring-in too)."""
    table = deal_table({1: "Ah Kh 2c", 2: "Ad Kd 9s", 3: "Ac Kc 9h"})
    table.act(1, "BRING_IN", 100)
    table.act(2, "COMPLETE", 200)
    assert options(table, 3) == {"FOLD": (), "CALL": (), "RAISE": (400,)}
    table.act(3, "CALL")
    assert options(table, 1) == {"FOLD": (), "CALL": (), "RAISE": (400,)}


def test_uncontested_bring_in_ends_the_round_when_action_returns_to_it() -> None:
    """§3: nobody completes and all call: the round ends at the bring-in, who may not raise it."""
    table = deal_table({1: "Ah Kh 2c", 2: "Ad Kd 9s", 3: "Ac Kc 9h"})
    table.act(1, "BRING_IN", 100)
    table.act(2, "CALL")
    events = table.act(3, "CALL")
    assert [type(e).__name__ for e in events][-1] == "BettingRoundStarted"
    assert isinstance(events[-1], BettingRoundStarted) and events[-1].street == 4


def test_bring_in_player_may_complete_at_once() -> None:
    """§3: the bring-in may complete instead of posting; that is the first bet of the round."""
    table = deal_table({1: "Ah Kh 2c", 2: "Ad Kd 9s"})
    table.act(1, "COMPLETE", 200)
    assert options(table, 2) == {"FOLD": (), "CALL": (), "RAISE": (400,)}


def test_full_bring_in_needs_the_operator_option_and_counts_as_the_completion() -> None:
    """§1/§3: BI may equal S only if the operator says so; then posting it is the completion."""
    with pytest.raises(InvalidConfig) as error:
        TableConfig(bring_in=200, small_bet=200).validate()
    assert error.value.field == "bring_in"
    config = TableConfig(min_buy_in=1, bring_in=200, small_bet=200, allow_full_bring_in=True)
    table = deal_table({1: "Ah Kh 2c", 2: "Ad Kd 9s"}, config=config)
    assert options(table, 1) == {"BRING_IN": (200,)}
    table.act(1, "BRING_IN", 200)
    assert options(table, 2) == {"FOLD": (), "CALL": (), "RAISE": (400,)}


def test_bring_in_short_of_chips_posts_all_and_others_call_the_full_bring_in() -> None:
    """§3/§4 (decision): a bring-in with fewer chips than BI posts them all-in; the others call BI."""
    table = deal_table({1: "Ah Kh 2c", 2: "Ad Kd 9s", 3: "Ac Kc 9h"}, stacks={1: 110, 2: 10_000, 3: 10_000})
    assert options(table, 1) == {"BRING_IN": (60,)}
    events = table.act(1, "BRING_IN", 60)
    assert events[0].all_in
    assert to_act(table.state) == 2
    assert table.state.hand.level == 100
