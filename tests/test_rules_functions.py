"""Each rule function of stud_service.engine.rules, tested under the name of the rule it implements."""

from __future__ import annotations

from engine_helpers import cards

from stud_service.engine import BringInTiebreak, TableConfig, Variant
from stud_service.engine.rules.betting import (
    bet_size_for_street,
    betting_round_needed,
    may_reraise,
    open_pair_on_fourth_street,
    opening_bet_sizes,
    raise_cap_reached,
    raise_size_after_bet,
    uncapped_heads_up_round,
)
from stud_service.engine.rules.bring_in import (
    best_board_seat,
    bring_in_seat,
    first_to_act_on_later_street,
    lowest_door_card_seat,
    next_seat_clockwise,
)
from stud_service.engine.rules.dealing import (
    ante_for_player,
    dealing_order,
    later_street_face_up,
    needs_community_card,
)
from stud_service.engine.rules.pots import side_pots, uncalled_bet
from stud_service.engine.rules.showdown import (
    award_pot,
    can_muck,
    evaluate_showdown_hand,
    odd_chip_winner,
    showdown_order,
    split_among_winners,
    split_hi_lo,
)

STUD = TableConfig()
HI_LO = Variant.STUD_HI_LO


def test_ante_for_player_short_stack_is_all_in() -> None:
    """§2."""
    assert ante_for_player(50, 1000) == (50, False)
    assert ante_for_player(50, 30) == (30, True)
    assert ante_for_player(50, 50) == (50, True)


def test_dealing_order_is_clockwise_from_seat_one() -> None:
    """§1/§2."""
    assert dealing_order([7, 2, 5]) == [2, 5, 7]


def test_later_street_face_up_except_seventh() -> None:
    """§2."""
    assert [later_street_face_up(s) for s in (4, 5, 6, 7)] == [True, True, True, False]


def test_needs_community_card_when_fewer_cards_than_players() -> None:
    """§2: 8 players on seventh street: 4 cards left for 8 players."""
    assert needs_community_card(4, 8)
    assert not needs_community_card(8, 8)


def test_next_seat_clockwise_wraps() -> None:
    """§1: clockwise is increasing seat number, wrapping from 8 to 1."""
    assert next_seat_clockwise((1, 3, 8), 8, {1, 3}) == 1
    assert next_seat_clockwise((1, 3, 8), 3, {3}) == 3
    assert next_seat_clockwise((1, 3, 8), 3, set()) is None


def test_lowest_door_card_seat_by_suit_and_by_position() -> None:
    """§3."""
    seats, doors = (1, 2, 3), cards("5d 9s 5c")
    assert lowest_door_card_seat(seats, doors, False, BringInTiebreak.SUIT) == 3
    assert lowest_door_card_seat(seats, doors, False, BringInTiebreak.POSITION) == 1
    assert lowest_door_card_seat(seats, cards("Kc Ks As"), True, BringInTiebreak.SUIT) == 2


def test_bring_in_seat_passes_on_from_an_all_in_player() -> None:
    """§3."""
    assert bring_in_seat((1, 2, 3), cards("5d 2c 9s"), {1, 3}, False, BringInTiebreak.SUIT) == 3


def test_best_board_seat_pairs_beat_high_cards_ties_to_lowest_seat() -> None:
    """§4."""
    assert best_board_seat((1, 2), [cards("Ah Kh"), cards("3c 3d")], False) == 2
    assert best_board_seat((1, 2), [cards("Ah Kh"), cards("As Ks")], False) == 1
    assert best_board_seat((1, 2), [cards("Kh Qh"), cards("5c 4d")], True) == 2


def test_first_to_act_on_later_street_skips_all_in_best_board() -> None:
    """§4."""
    boards = [cards("Ah Ad"), cards("3c 4d"), cards("Kc 9d")]
    assert first_to_act_on_later_street((1, 2, 3), boards, {1, 2, 3}, False) == 1
    assert first_to_act_on_later_street((1, 2, 3), boards, {2, 3}, False) == 2


def test_bet_size_for_street() -> None:
    """§4: S on third and fourth, B from fifth."""
    assert [bet_size_for_street(STUD, s) for s in (3, 4, 5, 6, 7)] == [200, 200, 400, 400, 400]


def test_open_pair_on_fourth_street_not_in_razz() -> None:
    """§4."""
    boards = [cards("9c 9d"), cards("Ah Kd")]
    assert open_pair_on_fourth_street(Variant.STUD, 4, boards)
    assert open_pair_on_fourth_street(Variant.STUD_HI_LO, 4, boards)
    assert not open_pair_on_fourth_street(Variant.RAZZ, 4, boards)
    assert not open_pair_on_fourth_street(Variant.STUD, 5, boards)
    assert not open_pair_on_fourth_street(Variant.STUD, 4, [cards("9c 8d")])


def test_opening_bet_sizes_and_raise_size_after_bet() -> None:
    """§4: an open pair allows S or B; a big bet on fourth street fixes big raises."""
    assert opening_bet_sizes(STUD, 4, True) == (200, 400)
    assert opening_bet_sizes(STUD, 4, False) == (200,)
    assert raise_size_after_bet(STUD, 4, 400) == 400
    assert raise_size_after_bet(STUD, 4, 200) == 200
    assert raise_size_after_bet(STUD, 5, 400) == 400


def test_raise_cap_reached_after_four_bets_unless_uncapped() -> None:
    """§4."""
    assert not raise_cap_reached(3, False)
    assert raise_cap_reached(4, False)
    assert not raise_cap_reached(9, True)
    assert uncapped_heads_up_round(TableConfig(uncapped_heads_up=True), 2)
    assert not uncapped_heads_up_round(TableConfig(uncapped_heads_up=True), 3)
    assert not uncapped_heads_up_round(STUD, 2)


def test_may_reraise_only_after_a_full_raise_since_acting() -> None:
    """§4: a short all-in raise does not reopen the betting."""
    assert may_reraise(None, 400)
    assert not may_reraise(400, 400)
    assert may_reraise(400, 800)


def test_betting_round_needed_with_two_players_who_can_act() -> None:
    """§4: otherwise the cards are run out."""
    assert betting_round_needed(2)
    assert not betting_round_needed(1)


def test_uncalled_bet_goes_back_to_the_top_contributor() -> None:
    """§5."""
    assert uncalled_bet({1: 650, 2: 450, 3: 250}) == (1, 200)
    assert uncalled_bet({1: 650, 2: 650}) is None


def test_side_pots_layers_by_all_in_amounts_with_dead_money_from_folders() -> None:
    """§5: each all-in player is eligible only for what they matched; folded chips play but win nothing."""
    committed = {1: 250, 2: 450, 3: 650, 4: 650, 5: 300}
    assert side_pots(committed, (5,)) == [
        (5 * 250, (1, 2, 3, 4)), (3 * 200 + 50, (2, 3, 4)), (2 * 200, (3, 4))]
    assert sum(a for a, _ in side_pots(committed, (5,))) == sum(committed.values())


def test_showdown_order_starts_at_the_first_shower_then_clockwise() -> None:
    """§5."""
    assert showdown_order([1, 4, 6], 4) == [4, 6, 1]


def test_can_muck_a_beaten_hand_but_not_all_in_or_tied() -> None:
    """§5."""
    winner = evaluate_showdown_hand(Variant.STUD, 1, cards("Ac Ad Ah 2c 3d 4h 9s"))
    loser = evaluate_showdown_hand(Variant.STUD, 2, cards("Kc Kd 2h 3c 5d 7h 9c"))
    pots = [(1000, (1, 2))]
    assert can_muck(Variant.STUD, loser, False, [winner], pots)
    assert not can_muck(Variant.STUD, loser, True, [winner], pots)
    assert not can_muck(Variant.STUD, winner, False, [loser], pots)
    # A side pot the winner is not in: the loser can still win it, so shows.
    assert not can_muck(Variant.STUD, loser, False, [winner], [(1000, (1, 2)), (500, (2, 3))])


def test_can_muck_in_hi_lo_only_when_beaten_both_ways() -> None:
    """§5/§6: a hand with a low that is not beaten can still win half."""
    high = evaluate_showdown_hand(Variant.STUD_HI_LO, 1, cards("Kc Kd Kh Qs Jc 9d 9h"))
    low = evaluate_showdown_hand(Variant.STUD_HI_LO, 2, cards("Ac 2d 4h 7s 5c Qd Jh"))
    assert not can_muck(Variant.STUD_HI_LO, low, False, [high], [(100, (1, 2))])


def test_odd_chip_winner_highest_card_by_suit_razz_lowest() -> None:
    """§5."""
    spade = evaluate_showdown_hand(Variant.STUD, 1, cards("As Kd Qh Jc 9d 3c 4h"))
    heart = evaluate_showdown_hand(Variant.STUD, 2, cards("Ah Ks Qd Js 9c 3h 4d"))
    assert odd_chip_winner([heart, spade], "high") == 1
    low_club = evaluate_showdown_hand(Variant.RAZZ, 3, cards("Ac 2d 3h 4s 5h Kd Kh"))
    low_spade = evaluate_showdown_hand(Variant.RAZZ, 4, cards("As 2h 3d 4c 5d Qd Qh"))
    assert odd_chip_winner([low_spade, low_club], "low") == 3


def test_odd_chip_winner_is_not_simply_the_lowest_seat() -> None:
    """§5: the odd-chip rule decides even against seat order: high by the best card in the winning five
    (not a better card outside it); Razz and a tied Hi-Lo low half by the lowest card, aces lowest."""
    outside_ace = evaluate_showdown_hand(Variant.STUD, 1, cards("Qc Jd Th 9c 8h As 2d"))
    queen_of_spades = evaluate_showdown_hand(Variant.STUD, 2, cards("Qs Jc Td 9d 8d 3h 4c"))
    assert odd_chip_winner([outside_ace, queen_of_spades], "high") == 2
    deuce_of_clubs = evaluate_showdown_hand(Variant.RAZZ, 1, cards("As 2c 3d 4h 5d Qd Qh"))
    ace_of_clubs = evaluate_showdown_hand(Variant.RAZZ, 2, cards("Ac 2s 3h 4d 5h Kd Kh"))
    assert odd_chip_winner([deuce_of_clubs, ace_of_clubs], "low") == 2
    hi_lo = {1: evaluate_showdown_hand(Variant.STUD_HI_LO, 1, cards("As 2c 4d 5h 7d Qd Jh")),
             2: evaluate_showdown_hand(Variant.STUD_HI_LO, 2, cards("Ac 2s 4h 5d 7h Td Jd")),
             3: evaluate_showdown_hand(Variant.STUD_HI_LO, 3, cards("Kc Ks Kh Qs Jc 9s 9h"))}
    assert [(a["seat"], a["amount"], a["half"]) for a in award_pot(HI_LO, 11, (1, 2, 3), hi_lo)] == [
        (3, 6, "high"), (2, 3, "low"), (1, 2, "low")]


def test_two_odd_chips_go_one_each_in_odd_chip_order_not_seat_order() -> None:
    """§5: three tied winners and two odd chips: the first two in odd-chip order get one each."""
    hearts = evaluate_showdown_hand(Variant.STUD, 1, cards("Ah Kh Qc Jc 9d 3c 4d"))
    clubs = evaluate_showdown_hand(Variant.STUD, 2, cards("Ac Kc Qd Jd 9h 3d 4h"))
    spades = evaluate_showdown_hand(Variant.STUD, 3, cards("As Ks Qh Jh 9c 3h 4s"))
    assert split_among_winners(11, [hearts, clubs, spades], "high") == [(3, 4), (1, 4), (2, 3)]


def test_split_among_winners_and_hi_lo_halves() -> None:
    """§5: odd chips one each in odd-chip order; Hi-Lo: the odd unit to the high half."""
    spade = evaluate_showdown_hand(Variant.STUD, 1, cards("As Kd Qh Jc 9d 3c 4h"))
    heart = evaluate_showdown_hand(Variant.STUD, 2, cards("Ah Ks Qd Js 9c 3h 4d"))
    assert split_among_winners(9, [heart, spade], "high") == [(1, 5), (2, 4)]
    assert split_hi_lo(9) == (5, 4)


def test_award_pot_per_variant() -> None:
    """§5/§6: Stud high, Razz low, Hi-Lo split or scoop."""
    hands = {1: cards("Kc Kd Kh Qs Jc 9d 9h"), 2: cards("Ac 2d 4h 7s 5c Qd Jh")}
    stud = {s: evaluate_showdown_hand(Variant.STUD, s, c) for s, c in hands.items()}
    assert award_pot(Variant.STUD, 100, (1, 2), stud) == [{"seat": 1, "amount": 100, "half": "high",
                                                   "hand": "full house, kings full of nines"}]
    hi_lo = {s: evaluate_showdown_hand(Variant.STUD_HI_LO, s, c) for s, c in hands.items()}
    assert [(a["seat"], a["amount"], a["half"]) for a in award_pot(HI_LO, 101, (1, 2), hi_lo)] == [
        (1, 51, "high"), (2, 50, "low")]
    razz = {s: evaluate_showdown_hand(Variant.RAZZ, s, c) for s, c in hands.items()}
    assert [(a["seat"], a["half"]) for a in award_pot(Variant.RAZZ, 100, (1, 2), razz)] == [(2, "low")]
