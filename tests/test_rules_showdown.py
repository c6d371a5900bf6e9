"""RULES.md §5 and §6: showdown order, mucking, side pots, split pots and the odd chip,
Stud Hi-Lo and Razz."""

from __future__ import annotations

from engine_helpers import deal_table, of_type, play_passively

from stud_service.engine import HandEnded, TableConfig, Variant

TINY = {"min_buy_in": 1, "ante": 1, "bring_in": 2, "small_bet": 4, "big_bet": 8}


def awards(ended: HandEnded) -> list[tuple[int, int, int, str]]:
    """(pot index, seat, amount, half) in award order."""
    return [(pot["pot"], a["seat"], a["amount"], a["half"]) for pot in ended.pots for a in pot["awards"]]


def test_three_way_all_in_makes_two_side_pots_awarded_last_side_pot_first() -> None:
    """§5: each all-in player is eligible only for what they matched; pots are awarded from the last
    side pot to the main pot; a hand that cannot win anything is mucked."""
    hands = {1: "Ac Ad Ah As 3d 4d 6h", 2: "Kc Kd Kh 7c 7d 8s 9s", 3: "Qh Jh 8h 5h 3h Tc Ts",
             4: "2d 4c 2c 9c Jc 8d 6s"}
    table = deal_table(hands, stacks={1: 250, 2: 450, 3: 650, 4: 5000})
    table.act(4, "COMPLETE", 200)
    table.act(1, "CALL")            # all-in: 200 behind the ante
    table.act(2, "RAISE", 400)      # all-in, a full raise
    table.act(3, "RAISE", 600)      # all-in, a full raise
    events = table.act(4, "CALL")
    ended = events[-1]
    assert [(p["pot"], p["amount"], p["eligible"]) for p in ended.pots] == [
        (2, 400, (3, 4)), (1, 600, (2, 3, 4)), (0, 1000, (1, 2, 3, 4))]
    assert awards(ended) == [(2, 3, 400, "high"), (1, 2, 600, "high"), (0, 1, 1000, "high")]
    assert ended.mucked == (4,)
    assert dict(ended.stacks) == {1: 1000, 2: 600, 3: 400, 4: 5000 - 650}
    assert "BettingRoundStarted" not in [type(e).__name__ for e in events]


def test_split_pot_odd_chip_goes_to_the_highest_card_by_suit() -> None:
    """§5: equal hands split; the odd chip goes to the winner whose winning five holds the highest
    single card, rank first then suit (the ace of spades beats the ace of hearts)."""
    hands = {1: "As Kd Qh Jc 9d 3c 4h", 2: "Ah Ks Qd Js 9c 3h 4d", 3: "5c 6d 2c 7s"}
    table = deal_table(hands, config=TableConfig(**TINY))
    ended = play_passively(table, fold=[3])[-1]
    assert ended.pots[0]["amount"] == 9
    assert awards(ended) == [(0, 1, 5, "high"), (0, 2, 4, "high")]
    assert ended.pots[0]["awards"][0]["hand"] == "ace-king high"


def test_odd_chip_goes_by_the_winning_five_not_to_the_lowest_seat() -> None:
    """§5: the odd chip follows the highest card by suit among each winner's winning five, even when
    that winner is not the lowest seat, and a higher card outside the five (seat 1's ace) does not count."""
    hands = {1: "Qc Jd Th 9c 8h As 2d", 2: "Qs Jc Td 9d 8d 3h 4c", 3: "5c 6d 2h 7s"}
    table = deal_table(hands, config=TableConfig(**TINY))
    ended = play_passively(table, fold=[3])[-1]
    assert ended.pots[0]["amount"] == 9
    assert awards(ended) == [(0, 2, 5, "high"), (0, 1, 4, "high")]
    assert ended.pots[0]["awards"][0]["hand"] == "queen-high straight"


def test_razz_odd_chip_goes_to_the_lowest_card_by_suit_ace_lowest() -> None:
    """§5 Razz: the odd chip goes to the tied winner holding the lowest card by suit in their low
    five, aces lowest: seat 2's ace of clubs, not seat 1 (lowest seat, and holder of the 2 of clubs)."""
    hands = {1: "As 2c 3d 4h 5d Qd Qh", 2: "Ac 2s 3h 4d 5h Kd Kh", 3: "9c Tc Js 6s"}
    table = deal_table(hands, config=TableConfig(variant=Variant.RAZZ, **TINY))
    ended = play_passively(table, fold=[3])[-1]
    assert ended.pots[0]["amount"] == 9
    assert awards(ended) == [(0, 2, 5, "low"), (0, 1, 4, "low")]
    assert ended.pots[0]["awards"][0]["hand"] == "5-4-3-2-A low"


def test_hi_lo_tied_low_half_odd_chip_goes_to_the_lowest_card_by_suit() -> None:
    """§5/§6: a tied low half splits; its odd chip goes to the low winner holding the lowest card by
    suit in their low five (ace lowest), here seat 2's ace of clubs, not the lowest seat."""
    hands = {1: "As 2c 4d 5h 7d Qd Jh", 2: "Ac 2s 4h 5d 7h Td Jd", 3: "Kc Ks Kh Qs Jc 9s 9h",
             4: "3c 3d 8c 6h", 5: "6c 6d 8d 9c"}
    table = deal_table(hands, config=TableConfig(variant=Variant.STUD_HI_LO, **TINY))
    ended = play_passively(table, fold=[4, 5])[-1]
    assert ended.pots[0]["amount"] == 15
    assert awards(ended) == [(0, 3, 8, "high"), (0, 2, 4, "low"), (0, 1, 3, "low")]
    assert [a["hand"] for a in ended.pots[0]["awards"][1:]] == ["7-5-4-2-A low"] * 2


def test_hi_lo_scoop_with_a_wheel() -> None:
    """§6: a player may use different five cards for high and low and win both halves."""
    hands = {1: "Ac 2d 3h 4s 5c Kd Kh", 2: "Qc Qd Jh Js 9c 9d 8s"}
    table = deal_table(hands, config=TableConfig(min_buy_in=1, variant=Variant.STUD_HI_LO))
    ended = play_passively(table)[-1]
    pot = ended.pots[0]["amount"]
    assert awards(ended) == [(0, 1, pot - pot // 2, "high"), (0, 1, pot // 2, "low")]
    assert [a["hand"] for a in ended.pots[0]["awards"]] == ["five-high straight", "5-4-3-2-A low"]


def test_hi_lo_split_between_high_and_low_odd_chip_to_the_high_half() -> None:
    """§5/§6: half to the best high, half to the best eight-or-better low; the odd unit goes high."""
    hands = {1: "Kc Kd Kh Qs Jc 9d 9h", 2: "Ac 2d 4h 7s 5c Qd Jh", 3: "8c 8d 2c 6s"}
    table = deal_table(hands, config=TableConfig(variant=Variant.STUD_HI_LO, **TINY))
    ended = play_passively(table, fold=[3])[-1]
    assert ended.pots[0]["amount"] == 9
    assert awards(ended) == [(0, 1, 5, "high"), (0, 2, 4, "low")]
    assert ended.pots[0]["awards"][1]["hand"] == "7-5-4-2-A low"


def test_hi_lo_without_a_qualifying_low_the_high_hand_takes_it_all() -> None:
    """§6: if no low qualifies (five different ranks, all 8 or lower), the best high wins the pot."""
    hands = {1: "Kc Kd Kh Qs Jc 9d 9h", 2: "Ac 2d 4h 9s Tc Qd Jh"}
    table = deal_table(hands, config=TableConfig(min_buy_in=1, variant=Variant.STUD_HI_LO))
    ended = play_passively(table)[-1]
    assert awards(ended) == [(0, 1, ended.pots[0]["amount"], "high")]


def test_razz_best_ace_to_five_low_wins_the_whole_pot() -> None:
    """§6 Razz: lowball ace-to-five, no qualifier; straights and flushes do not count."""
    hands = {1: "2h 3h 4h 5h 7h Kc Qd", 2: "Ac 2d 3c 4d 8s 9s Ts"}
    table = deal_table(hands, config=TableConfig(min_buy_in=1, variant=Variant.RAZZ))
    ended = play_passively(table)[-1]
    assert awards(ended) == [(0, 1, ended.pots[0]["amount"], "low")]
    assert ended.pots[0]["awards"][0]["hand"] == "7-5-4-3-2 low"


def test_razz_pairs_count_against() -> None:
    """§6 Razz: pairs are bad: a paired low loses to a rough unpaired one."""
    hands = {1: "Ac Ad 2c 2d 3c 3d 4c", 2: "Kh Qh Jh Th 9h 8s 7s"}
    table = deal_table(hands, config=TableConfig(min_buy_in=1, variant=Variant.RAZZ))
    ended = play_passively(table)[-1]
    assert awards(ended)[0][1] == 2


def test_without_a_seventh_street_bet_the_first_to_act_shows_first_then_clockwise() -> None:
    """§5: nobody bet on seventh: the player who acted first there (best board) shows first,
    then clockwise; later hands that are beaten are mucked, ties and winners show."""
    hands = {1: "2c 3c 4d 5d 7s 8s 9h", 2: "Ah Ad Kh Kd 9c 9d Js", 3: "Th Td 6c 6d Qs Qc Jc"}
    table = deal_table(hands)
    events = play_passively(table)
    seventh = [e for e in of_type(table.log, "BettingRoundStarted") if e.street == 7][0]
    assert seventh.first_seat == 2  # aces up showing
    showdown = [(type(e).__name__, e.seat) for e in events if type(e).__name__ in ("HandShown", "HandMucked")]
    assert showdown == [("HandShown", 2), ("HandMucked", 3), ("HandMucked", 1)]


def test_a_tied_hand_is_shown_not_mucked() -> None:
    """§5: a hand that can still win a share (a tie) is shown."""
    hands = {1: "As Kd Qh Jc 9d 3c 4h", 2: "Ah Ks Qd Js 9c 3h 4d"}
    table = deal_table(hands)
    ended = play_passively(table)[-1]
    assert ended.mucked == () and {seat for seat, _ in ended.shown} == {1, 2}
