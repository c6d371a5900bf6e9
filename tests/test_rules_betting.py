"""RULES.md §4: who acts first on later streets, bet sizes, the open pair, the cap, all-ins,
hands that end early and boards run out."""

from __future__ import annotations

from engine_helpers import deal_table, of_type, options

from stud_service.engine import TableConfig, Variant, to_act

RAZZ = TableConfig(min_buy_in=1, variant=Variant.RAZZ)


def test_completion_then_three_raises_then_no_more() -> None:
    """§4: one bet (the completion) and three raises per round; then call or fold only."""
    table = deal_table({1: "Ah Kh 2c", 2: "Ad Kd 9s", 3: "Ac Kc 9h", 4: "As Ks 9d"})
    table.act(1, "BRING_IN", 100)
    table.act(2, "COMPLETE", 200)
    table.act(3, "RAISE", 400)
    table.act(4, "RAISE", 600)
    table.act(1, "RAISE", 800)
    assert options(table, 2) == {"FOLD": (), "CALL": ()}


def test_heads_up_is_capped_without_the_option() -> None:
    """§4: the cap holds heads-up unless uncapped_heads_up is set."""
    table = deal_table({1: "Ah Kh 2c", 2: "Ad Kd 9s"})
    table.act(1, "COMPLETE", 200)
    table.act(2, "RAISE", 400)
    table.act(1, "RAISE", 600)
    table.act(2, "RAISE", 800)
    assert options(table, 1) == {"FOLD": (), "CALL": ()}


def test_uncapped_heads_up_option_lifts_the_cap_for_two_players() -> None:
    """§4: no cap when only two players start the round and the option is on."""
    config = TableConfig(min_buy_in=1, uncapped_heads_up=True)
    table = deal_table({1: "Ah Kh 2c", 2: "Ad Kd 9s"}, config=config)
    table.act(1, "COMPLETE", 200)
    for amount, seat in ((400, 2), (600, 1), (800, 2), (1000, 1)):
        table.act(seat, "RAISE", amount)
    assert options(table, 2) == {"FOLD": (), "CALL": (), "RAISE": (1200,)}


def test_uncapped_heads_up_does_not_apply_with_three_players() -> None:
    """§4: the option is only for rounds that start with two players."""
    table = deal_table({1: "Ah Kh 2c", 2: "Ad Kd 9s", 3: "Ac Kc 9h"},
                       config=TableConfig(min_buy_in=1, uncapped_heads_up=True))
    table.act(1, "BRING_IN", 100)
    table.act(2, "COMPLETE", 200)
    table.act(3, "RAISE", 400)
    table.act(1, "RAISE", 600)
    table.act(2, "RAISE", 800)
    assert options(table, 3) == {"FOLD": (), "CALL": ()}


def _to_fourth_street(hands: dict[int, str], config: TableConfig | None = None):
    table = deal_table(hands, config=config)
    bring_in = of_type(table.log, "BettingRoundStarted")[-1].first_seat
    table.act(bring_in, "BRING_IN", 100)
    while table.state.hand.street == 3:
        table.act(to_act(table.state), "CALL")
    return table


def _first_to_act_by_street(hands: dict[int, str], last_street: int) -> dict[int, int]:
    """Street -> first seat to act, from fourth street to ``last_street``, everyone checking through."""
    table = _to_fourth_street(hands)
    while table.state.hand.street < last_street:
        table.act(to_act(table.state), "CHECK")
    return {r.street: r.first_seat for r in of_type(table.log, "BettingRoundStarted") if r.street >= 4}


def test_fourth_street_open_pair_allows_a_big_bet_and_fixes_big_raises() -> None:
    """§4: a pair showing on fourth street lets the opener bet S or B; after B every raise is B."""
    table = _to_fourth_street({1: "Ah Kh 9c 9d", 2: "Ad Kd 2c 3s"})
    assert to_act(table.state) == 1
    assert options(table, 1) == {"CHECK": (), "FOLD": (), "BET": (200, 400)}
    table.act(1, "BET", 400)
    assert options(table, 2) == {"FOLD": (), "CALL": (), "RAISE": (800,)}
    table.act(2, "RAISE", 800)
    assert options(table, 1) == {"FOLD": (), "CALL": (), "RAISE": (1200,)}


def test_fourth_street_open_pair_small_opening_keeps_small_raises() -> None:
    """§4: if the opening bet on fourth street is S, later raises that round are S."""
    table = _to_fourth_street({1: "Ah Kh 9c 9d", 2: "Ad Kd 2c 3s"})
    table.act(1, "BET", 200)
    assert options(table, 2) == {"FOLD": (), "CALL": (), "RAISE": (400,)}


def test_open_pair_on_any_live_board_gives_the_option_to_the_opener() -> None:
    """§4: the pair may be on another player's board than the opener's."""
    table = _to_fourth_street({1: "Ah Kh As Ks", 2: "Ad Kd 3c 3s", 3: "Qd Jd 2c 4h"})
    assert to_act(table.state) == 2  # a pair of threes beats ace-king high
    table.act(2, "CHECK")
    assert options(table, 3)["BET"] == (200, 400)


def test_no_open_pair_option_in_razz() -> None:
    """§4: the open-pair option is for Seven Card Stud and Stud Hi-Lo, not Razz."""
    table = _to_fourth_street({1: "Ah 2h 9c 9d", 2: "Ad 2d Kc 3s"}, config=RAZZ)
    first = to_act(table.state)
    assert options(table, first)["BET"] == (200,)


def test_first_to_act_is_the_best_board_and_ties_go_to_the_lowest_seat() -> None:
    """§4: best poker hand showing acts first; equal boards: first from the dealer's left;
    suits do not break the tie."""
    table = _to_fourth_street({1: "2h 3h Ac 7c", 2: "2d 3d As 7s", 3: "4h 5h 3c 4c"})
    assert of_type(table.log, "BettingRoundStarted")[-1].first_seat == 1


def test_first_to_act_counts_pairs_but_not_straights_or_flushes() -> None:
    """§4: only pairs, trips, quads and high cards count on a board; on fifth and sixth street a
    three- or four-card straight flush showing (Ks Qs Js Ts) beats neither a pair of nines nor an
    ace-high board with nothing."""
    pair = {1: "2h 3h 9c 9d 2s 4d", 2: "Ad Kd Ks Qs Js Ts", 3: "4h 5h 3c 7c 5c 6c"}
    assert _first_to_act_by_street(pair, 6) == {4: 1, 5: 1, 6: 1}
    ace_high = {1: "2h 3h 8c 6d 4s 2d", 2: "Ad Kd Ks Qs Js Ts", 3: "4h 5h Ah 9c 5d 3c"}
    assert _first_to_act_by_street(ace_high, 6) == {4: 3, 5: 3, 6: 3}


def test_best_board_all_in_passes_first_action_clockwise() -> None:
    """§4: if the best board is all-in, the next player clockwise who can act starts."""
    hands = {1: "2h 3h Ac Ad", 2: "2d 3d 5s 6s", 3: "4h 5h 2c 8c"}
    table = deal_table(hands, stacks={1: 150, 2: 9000, 3: 9000})
    table.act(3, "BRING_IN", 100)
    table.act(1, "CALL")  # all-in for the ante and the bring-in
    table.act(2, "CALL")
    round4 = of_type(table.log, "BettingRoundStarted")[-1]
    assert round4.street == 4 and round4.first_seat == 2


def test_a_fold_that_leaves_one_player_with_chips_who_has_matched_ends_the_betting() -> None:
    """§4: once all players but one are all-in and that one has matched the highest bet, nobody is
    asked to act.  Seat 2 folds a free check with seat 1 all-in: seat 3 is not asked (and so cannot
    fold the side pot away); the cards are run out to the showdown."""
    hands = {1: "2h 3h Ac Ad 7d 8d 9d", 2: "2d 3d 5s 6s", 3: "4h 5h 2c 8c Ts Js Qs"}
    table = deal_table(hands, stacks={1: 150, 2: 9000, 3: 9000})
    table.act(3, "BRING_IN", 100)
    table.act(1, "CALL")  # all-in for the ante and the bring-in
    table.act(2, "CALL")
    assert to_act(table.state) == 2 and "CHECK" in options(table, 2)
    events = table.act(2, "FOLD")
    assert not of_type(events, "BettingRoundStarted")
    assert [e.street for e in of_type(events, "CardDealt")] == [5, 5, 6, 6, 7, 7]
    assert type(events[-1]).__name__ == "HandEnded" and of_type(events, "HandShown")


def test_the_one_player_with_chips_still_answers_an_all_in_bet_they_have_not_matched() -> None:
    """§4: the last player with chips who has not matched the highest bet (an all-in bet) is asked."""
    hands = {1: "2h 3h Ac Ad 7d 8d 9d", 2: "2d 3d 5s 6s", 3: "4h 5h 2c 8c Ts Js Qs"}
    table = deal_table(hands, stacks={1: 350, 2: 9000, 3: 9000})
    table.act(3, "BRING_IN", 100)
    table.act(1, "CALL")
    table.act(2, "CALL")
    assert to_act(table.state) == 1  # a pair of aces showing
    assert table.act(1, "BET", 200)[0].all_in
    table.act(2, "FOLD")
    assert to_act(table.state) == 3 and {"FOLD", "CALL"} <= set(options(table, 3))


def test_razz_best_low_board_acts_first_and_pairs_are_bad() -> None:
    """§4 Razz: the best ace-to-five low board acts first; a pair makes a board worse."""
    table = _to_fourth_street({1: "Ah 2h 3c 3d", 2: "Ad 2d Kc Qs", 3: "5h 6h Jc 4h"}, config=RAZZ)
    assert of_type(table.log, "BettingRoundStarted")[-1].first_seat == 3  # J-4 beats K-Q beats 3-3


def test_bet_sizes_small_on_third_and_fourth_big_from_fifth() -> None:
    """§4: S on third and fourth street, B on fifth, sixth and seventh."""
    table = _to_fourth_street({1: "Ah Kh 9c Td Jd", 2: "Ad Kd 2c 3s 4s"})
    assert options(table, 1)["BET"] == (200,)
    table.act(1, "CHECK")
    table.act(2, "CHECK")
    assert table.state.hand.street == 5
    assert options(table, to_act(table.state))["BET"] == (400,)


def test_short_all_in_raise_does_not_reopen_the_betting() -> None:
    """§4: an all-in raise of less than a full bet: players who already acted may call or fold only;
    a player who has not acted yet may still raise."""
    hands = {1: "2d 3d As Kh Qh", 2: "4d 5d 9s 8h 7h", 3: "6d 7d 2c 3h 4h"}
    table = deal_table(hands, stacks={1: 9000, 2: 650, 3: 9000})
    table.act(3, "BRING_IN", 100)
    table.act(1, "CALL")
    table.act(2, "CALL")
    for seat in (1, 2, 3):
        table.act(seat, "CHECK")
    assert table.state.hand.street == 5 and to_act(table.state) == 1
    table.act(1, "BET", 400)
    assert options(table, 2) == {"FOLD": (), "CALL": (), "RAISE": (500,)}
    table.act(2, "RAISE", 500)
    assert options(table, 3) == {"FOLD": (), "CALL": (), "RAISE": (800,)}
    table.act(3, "CALL")
    assert options(table, 1) == {"FOLD": (), "CALL": ()}


def test_call_all_in_for_less() -> None:
    """§4: a player without enough chips to call may call all-in for less."""
    table = deal_table({1: "Ah Kh 2c", 2: "Ad Kd 9s"}, stacks={1: 9000, 2: 180})
    table.act(1, "COMPLETE", 200)
    assert options(table, 2) == {"FOLD": (), "CALL": ()}
    events = table.act(2, "CALL")
    assert events[0].amount == 130 and events[0].all_in


def test_when_all_but_one_fold_the_last_player_wins_at_once_and_the_uncalled_bet_returns() -> None:
    """§4/§5: everyone else folded: no more cards; the unmatched part of the bet goes back."""
    table = deal_table({1: "Ah Kh 2c", 2: "Ad Kd 9s", 3: "Ac Kc 9h"})
    table.act(1, "BRING_IN", 100)
    table.act(2, "COMPLETE", 200)
    table.act(3, "FOLD")
    events = table.act(1, "FOLD")
    names = [type(e).__name__ for e in events]
    assert names == ["PlayerActed", "UncalledBetReturned", "HandEnded"]
    assert (events[1].seat, events[1].amount) == (2, 100)
    assert events[2].pots[0]["amount"] == 150 + 100 + 100
    assert events[2].pots[0]["awards"][0]["seat"] == 2
    assert len(of_type(table.log, "CardDealt")) == 9  # only the third-street cards were dealt


def test_all_in_players_get_the_board_run_out_without_more_betting() -> None:
    """§4: all players all-in: the remaining cards are dealt with no more betting."""
    table = deal_table({1: "Ah Kh 2c 3c 4c 5c 6c", 2: "Ad Kd 9s 9h 8c 8d 7d"}, stacks={1: 1000, 2: 5000})
    table.act(1, "COMPLETE", 200)
    table.act(2, "RAISE", 400)
    table.act(1, "RAISE", 600)
    table.act(2, "RAISE", 800)
    table.act(1, "CALL")
    assert table.state.hand.street == 4 and to_act(table.state) == 2  # a pair of nines showing
    table.act(2, "BET", 200)
    events = table.act(1, "CALL")  # all-in for 150: 1000 - 50 - 800
    names = [type(e).__name__ for e in events]
    assert "BettingRoundStarted" not in names
    assert (events[1].seat, events[1].amount) == (2, 50)  # the uncalled part comes back first
    assert [e.street for e in events if type(e).__name__ == "CardDealt"] == [5, 5, 6, 6, 7, 7]
    assert names[-1] == "HandEnded"


def test_one_player_left_with_chips_who_has_matched_gets_the_run_out() -> None:
    """§4: all but one all-in and that one has matched the highest bet: no more betting."""
    table = deal_table({1: "Ah Kh 2c 3c 4c 5c 6c", 2: "Ad Kd 9s 9h 8c 8d 7d"}, stacks={1: 300, 2: 5000})
    table.act(1, "COMPLETE", 200)
    events = table.act(2, "CALL")
    assert "BettingRoundStarted" in [type(e).__name__ for e in events]  # player 1 still has 50
    table.act(2, "BET", 200)
    events = table.act(1, "CALL")
    assert "BettingRoundStarted" not in [type(e).__name__ for e in events]
    assert type(events[-1]).__name__ == "HandEnded"
