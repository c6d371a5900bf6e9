"""The C core's Python face on the cases the rule book names, plus hypothesis edge cases.

Bring-in (RULES.md §3), who acts first from the board (§4), hand ranks and ties at showdown (§5),
lows (§6), and the worked hand of §9.
"""

from __future__ import annotations

import pytest
import reference_eval as ref
from hypothesis import given, settings
from hypothesis import strategies as st

from stud_service.cards import parse_card, parse_cards
from stud_service.native import (
    EIGHT_MIN_VALUE,
    LOW_CLASSES,
    HandCategory,
    board_rank_high,
    board_rank_razz,
    bring_in_index,
    door_card_strength,
    eight_or_better_value,
    evaluate_eight_or_better,
    evaluate_high,
    evaluate_low,
    high_value,
    low_value,
)

DENSE_HIGH = {key: value for value, key in enumerate(ref.all_high_keys(), start=1)}
DENSE_LOW = {key: LOW_CLASSES - index for index, key in enumerate(ref.all_low_keys())}


# ---- §3 bring-in -------------------------------------------------------------------------


def test_bring_in_two_of_clubs_is_the_worst_card() -> None:
    """§3: the 2♣ is the worst card of all; it brings in against every other door card."""
    assert door_card_strength(parse_card("2c"), razz=False) == 0
    for other in range(1, 52):
        assert bring_in_index([other, 0]) == 1
        assert bring_in_index([0, other]) == 0


def test_bring_in_lowest_rank_then_suit_in_bridge_order() -> None:
    """§3 Stud: lowest rank brings in; equal ranks go by suit, clubs < diamonds < hearts < spades."""
    assert bring_in_index(parse_cards("5s 3h 9c")) == 1
    assert bring_in_index(parse_cards("2d 2c 5s")) == 1
    assert bring_in_index(parse_cards("7s 7h 7d")) == 2
    assert bring_in_index(parse_cards("Ac Ks")) == 1  # aces are high in Stud


def test_bring_in_worked_hand_two_of_diamonds() -> None:
    """§9: seat 2 shows the 2♦, the lowest door card, and brings in."""
    door = parse_cards("9h 2d 5c Qs 8d Jc Th Kd")
    assert bring_in_index(door) == 1


def test_razz_bring_in_highest_card_kings_top_aces_low() -> None:
    """§3 Razz: the highest card brings in, aces low, so the king is highest and the ace lowest."""
    assert bring_in_index(parse_cards("Qd Kh 5s"), razz=True) == 1
    assert bring_in_index(parse_cards("As 2c"), razz=True) == 1
    assert bring_in_index(parse_cards("Ac Ad As Ah"), razz=True) == 2


def test_razz_king_of_spades_brings_in_before_king_of_clubs() -> None:
    """§3 Razz: ties by suit with spades highest — K♠ brings in before K♣."""
    assert bring_in_index(parse_cards("Kc Ks Kd"), razz=True) == 1
    assert door_card_strength(parse_card("Ks"), razz=True) == 0
    assert door_card_strength(parse_card("Ks"), razz=True) < door_card_strength(parse_card("Kc"), razz=True)
    assert door_card_strength(parse_card("Ac"), razz=True) == 51


def test_position_tie_break_option_sees_equal_ranks_as_equal() -> None:
    """§3 option bring_in_tiebreak = POSITION: without suits, equal ranks have equal strength."""
    for razz in (False, True):
        assert door_card_strength(parse_card("2c"), razz, use_suit=False) == door_card_strength(
            parse_card("2s"), razz, use_suit=False
        )
    assert door_card_strength(parse_card("2s"), False, use_suit=False) < door_card_strength(
        parse_card("3c"), False, use_suit=False
    )
    assert door_card_strength(parse_card("Kc"), True, use_suit=False) < door_card_strength(
        parse_card("Qs"), True, use_suit=False
    )


def test_door_card_strength_agrees_with_bring_in_index() -> None:
    """§3: the bring-in is the door card of lowest strength, in both variants."""
    for razz in (False, True):
        strengths = sorted(range(52), key=lambda card: door_card_strength(card, razz))
        assert [door_card_strength(card, razz) for card in strengths] == list(range(52))
        assert bring_in_index(list(reversed(strengths[:8])), razz) == 7


# ---- §4 who acts first ----------------------------------------------------------------------


def test_worked_hand_boards_decide_who_acts_first() -> None:
    """§9 with §4: ace high beats king high; a pair of jacks showing beats a pair of twos."""
    seat1, seat8 = parse_cards("Ad 2c Kd 2h"), parse_cards("Ks Js 9s Jd")
    assert board_rank_high(seat1[:2]) > board_rank_high(seat8[:2])
    assert board_rank_high(seat1[:3]) > board_rank_high(seat8[:3])
    assert board_rank_high(seat8) > board_rank_high(seat1)


def test_board_categories_quads_trips_two_pair_pair_high() -> None:
    """§4: quads > trips > two pair > pair > high card on four up cards."""
    boards = ["Ac Kd Qh Js", "2c 2d 3h 4s", "2c 2d 3h 3s", "2c 2d 2h 3s", "2c 2d 2h 2s"]
    ranks = [board_rank_high(parse_cards(board)) for board in boards]
    assert ranks == sorted(ranks) and len(set(ranks)) == len(ranks)


def test_board_ignores_straights_flushes_and_suits() -> None:
    """§4: straights and flushes never count; suits do not break ties (lowest seat does, in the engine)."""
    assert board_rank_high(parse_cards("5s 6s 7s 8s")) < board_rank_high(parse_cards("2c 2d 3h 4s"))
    assert board_rank_high(parse_cards("5s 6s 7s 8s")) < board_rank_high(parse_cards("9c 2d 3h 4s"))
    assert board_rank_high(parse_cards("9s 8s")) == board_rank_high(parse_cards("9c 8d"))
    assert board_rank_high(parse_cards("Ks Kd 4c")) > board_rank_high(parse_cards("Kc Kh 3s"))  # kicker


def test_razz_board_best_low_acts_first() -> None:
    """§4 Razz: the best ace-to-five low board acts first; aces are low and pairs make a board worse."""
    assert board_rank_razz(parse_cards("Ad 2c")) > board_rank_razz(parse_cards("Kc Qd"))
    assert board_rank_razz(parse_cards("3d 2c")) > board_rank_razz(parse_cards("4c Ad"))
    assert board_rank_razz(parse_cards("Kc Qd")) > board_rank_razz(parse_cards("Ac Ad"))
    assert board_rank_razz(parse_cards("Ks Qs Js 9s")) > board_rank_razz(parse_cards("2c 2d 3h 4s"))
    assert board_rank_razz(parse_cards("7s")) == board_rank_razz(parse_cards("7c"))


@st.composite
def paired_boards(draw: st.DrawFn) -> tuple[list[int], list[int]]:
    """Two boards of the same size drawn from few ranks, so pairs, trips and quads are common."""
    size = draw(st.integers(1, 4))
    ranks = draw(st.lists(st.integers(0, 12), min_size=1, max_size=3, unique=True))
    pool = [r * 4 + s for r in ranks for s in range(4)] + [draw(st.integers(0, 51))]
    cards = draw(st.lists(st.sampled_from(sorted(set(pool))), min_size=min(2 * size, len(set(pool))),
                          max_size=2 * size, unique=True))
    first = cards[:size]
    second = cards[size:2 * size] if len(cards) >= 2 * size else first
    return first, second


def _sign(x: object, y: object) -> int:
    return (x > y) - (x < y)  # type: ignore[operator]


@settings(max_examples=300, deadline=None)
@given(paired_boards())
def test_paired_boards_compare_like_the_reference(boards: tuple[list[int], list[int]]) -> None:
    """§4 on paired boards: the C ranks compare exactly as the reference (Stud and Razz)."""
    first, second = boards
    assert _sign(board_rank_high(first), board_rank_high(second)) == _sign(
        ref.board_key_high(first), ref.board_key_high(second)
    )
    assert _sign(board_rank_razz(first), board_rank_razz(second)) == _sign(
        ref.board_key_razz(second), ref.board_key_razz(first)
    )


# ---- §5 hand ranks and ties ------------------------------------------------------------------


@pytest.mark.parametrize(
    ("cards", "category", "description"),
    [
        ("As Ks Qs Js Ts 2c 3d", HandCategory.STRAIGHT_FLUSH, "royal flush"),
        ("8s Qs Ks Js 9s Jd Ts", HandCategory.STRAIGHT_FLUSH, "king-high straight flush"),
        ("5d 4d 3d 2d Ad Ks Kh", HandCategory.STRAIGHT_FLUSH, "five-high straight flush"),
        ("Ac Ad Ah As 2c 2d 3h", HandCategory.FOUR_OF_A_KIND, "four of a kind, aces"),
        ("Kc Kd Kh 2s 2c 3d 3h", HandCategory.FULL_HOUSE, "full house, kings full of threes"),
        ("Ah 9h 7h 4h 2h Kc Qd", HandCategory.FLUSH, "ace-high flush"),
        ("6c 5d 4h 3s 2c Kd Kh", HandCategory.STRAIGHT, "six-high straight"),
        ("5c 4d 3h 2s Ac 9d 9h", HandCategory.STRAIGHT, "five-high straight"),
        ("7c 7d 7h As Kc 2d 4h", HandCategory.THREE_OF_A_KIND, "three of a kind, sevens"),
        ("Kc Jc Ad 2c Kd 2h 3s", HandCategory.TWO_PAIR, "two pair, kings and twos"),
        ("Jc Jd 9h 7s 5c 3d 2h", HandCategory.ONE_PAIR, "pair of jacks"),
        ("Ac Kd 9h 7s 5c 3d 2h", HandCategory.HIGH_CARD, "ace-king high"),
    ],
)
def test_categories_and_descriptions(cards: str, category: HandCategory, description: str) -> None:
    """§5 hand ranks: category and readable description of the best five."""
    hand = evaluate_high(parse_cards(cards))
    assert hand.category is category
    assert hand.description == description


def test_hand_ranks_in_order() -> None:
    """§5: straight flush > quads > full house > flush > straight > trips > two pair > pair > high card."""
    hands = ["Ac Kd 9h 7s 5c", "Jc Jd 9h 7s 5c", "Jc Jd 9h 9s 5c", "7c 7d 7h As Kc", "6c 5d 4h 3s 2c",
             "Ah 9h 7h 4h 2h", "Kc Kd Kh 2s 2c", "Ac Ad Ah As 2c", "9d 8d 7d 6d 5d"]
    values = [high_value(parse_cards(hand)) for hand in hands]
    assert values == sorted(values) and len(set(values)) == len(values)


def test_wheel_is_the_lowest_straight() -> None:
    """§5: A-2-3-4-5 is the lowest straight; ace-high is the highest."""
    wheel = high_value(parse_cards("5c 4d 3h 2s Ac"))
    assert wheel < high_value(parse_cards("6c 5d 4h 3s 2c")) < high_value(parse_cards("Ac Kd Qh Js Tc"))
    assert wheel > high_value(parse_cards("Kc Kd Kh 2s 3c"))
    assert evaluate_high(parse_cards("5c 4d 3h 2s Ac")).cards == tuple(parse_cards("5c 4d 3h 2s Ac"))


def test_suits_never_break_ties() -> None:
    """§5: equal hands in different suits are exact ties (and compare equal)."""
    first = evaluate_high(parse_cards("As Ks Qd Jd 9c 3c 2h"))
    second = evaluate_high(parse_cards("Ah Kh Qc Jc 9d 3d 2s"))
    assert first == second and first.value == second.value
    assert evaluate_high(parse_cards("Ah Kh Qc Jc 8d 3d 2s")) < first


def test_worked_hand_showdown() -> None:
    """§9: seat 8's king-high straight flush beats seat 1's two pair, kings and twos."""
    seat8 = evaluate_high(parse_cards("8s Qs Ks Js 9s Jd Ts"))
    seat1 = evaluate_high(parse_cards("Kc Jc Ad 2c Kd 2h 3s"))
    assert seat8.description == "king-high straight flush"
    assert seat1.description == "two pair, kings and twos"
    assert seat8 > seat1


# ---- §6 lows ------------------------------------------------------------------------------


def test_steel_wheel_is_best_high_straight_flush_low_and_eight() -> None:
    """§6: 5-4-3-2-A suited is a straight flush for high and still the best low (flushes don't count)."""
    cards = parse_cards("5s 4s 3s 2s As Kd Kh")
    assert evaluate_high(cards).description == "five-high straight flush"
    low = evaluate_low(cards)
    assert low.value == LOW_CLASSES and low.description == "5-4-3-2-A low"
    eight = evaluate_eight_or_better(cards)
    assert eight is not None and eight.value == LOW_CLASSES


def test_eight_or_better_needs_five_distinct_ranks_eight_or_lower() -> None:
    """§6 Hi-Lo: 8-7-6-5-4 is the worst qualifying low; a nine or a pair spoils it."""
    worst = evaluate_eight_or_better(parse_cards("8c 7d 6h 5s 4c Kd Kh"))
    assert worst is not None and worst.value == EIGHT_MIN_VALUE and worst.description == "8-7-6-5-4 low"
    assert evaluate_eight_or_better(parse_cards("9c 7d 6h 5s 4c Kd Kh")) is None
    assert evaluate_eight_or_better(parse_cards("8c 8d 6h 5s 4c Kd Kh")) is None


def test_counterfeited_low() -> None:
    """§6: pairing a low card counterfeits it — the next card must play, or the low fails."""
    made = evaluate_eight_or_better(parse_cards("Ac 2d 3h 4s 7c"))
    paired = evaluate_eight_or_better(parse_cards("Ac 2d 3h 4s 7c 4d 8h"))
    assert made is not None and paired is not None and made == paired  # the extra 4 changes nothing
    counterfeited = evaluate_eight_or_better(parse_cards("Ac 2d 3h 4s 4c Kd Kh"))
    assert counterfeited is None
    razz = evaluate_low(parse_cards("Ac 2d 3h 4s 4c Kd Kh"))
    assert razz.description == "K-4-3-2-A low"


def test_razz_pairs_count_against_and_aces_are_low() -> None:
    """§6 Razz: aces low; any unpaired low beats any pair; lower pairs beat higher pairs."""
    assert low_value(parse_cards("Ac 2d 3h 4s 6c")) > low_value(parse_cards("2c 3d 4h 5s 7c"))
    assert low_value(parse_cards("Kc Qd Jh Ts 8c")) > low_value(parse_cards("Ac Ad 2h 3s 4c"))
    assert low_value(parse_cards("Ac Ad 2h 3s 4c")) > low_value(parse_cards("2c 2d Ah 3s 4c"))
    low = evaluate_low(parse_cards("Ac Ad Ah 2c 2d 3h 3s"))
    assert low.description == "2-2-A-A-3 low (two pair, twos and aces)"  # the lowest top pair plays


def test_eight_or_better_values_share_the_low_scale() -> None:
    """§6: a qualifying eight-or-better value equals the hand's ace-to-five low value."""
    cards = parse_cards("7c 5d 4h 2s Ac Kd Qh")
    assert eight_or_better_value(cards) == low_value(cards) >= EIGHT_MIN_VALUE


LOW_CARDS = [r * 4 + s for r in (12, 0, 1, 2, 3, 4, 5, 6) for s in range(4)] + [28, 44, 49]


@settings(max_examples=400, deadline=None)
@given(st.lists(st.sampled_from(LOW_CARDS), min_size=5, max_size=7, unique=True))
def test_low_heavy_hands_match_the_reference(cards: list[int]) -> None:
    """Edge cases: wheels, steel wheels, counterfeited and paired lows — all three values as the reference."""
    high_key, low_key, eight_key = ref.best_keys(cards)
    assert high_value(cards) == DENSE_HIGH[high_key]
    assert low_value(cards) == DENSE_LOW[low_key]
    assert eight_or_better_value(cards) == (0 if eight_key is None else DENSE_LOW[eight_key])


@settings(max_examples=300, deadline=None)
@given(st.integers(0, 3), st.lists(st.integers(0, 12), min_size=4, max_size=7, unique=True), st.data())
def test_suited_hands_match_the_reference(suit: int, ranks: list[int], data: st.DataObject) -> None:
    """Edge cases: mostly one suit — flushes, straight flushes, steel wheels against pairs and straights."""
    cards = [r * 4 + suit for r in ranks]
    extra = data.draw(st.lists(st.integers(0, 51).filter(lambda c: c not in cards), max_size=7 - len(cards),
                               unique=True))
    cards += extra
    if len(cards) < 5:
        return
    high_key, low_key, _ = ref.best_keys(cards)
    assert high_value(cards) == DENSE_HIGH[high_key]
    assert low_value(cards) == DENSE_LOW[low_key]
