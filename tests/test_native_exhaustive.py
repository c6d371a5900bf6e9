"""Exhaustive checks of the C high evaluator (RULES.md §5, hand ranks).

Every seven-card hand (133,784,560) and every five-card hand is evaluated through the C enumeration
entry point, and the counts per category and of distinct values must match the known totals.
Every five-card hand class is also checked against the Python reference, one representative each.
"""

from __future__ import annotations

from itertools import combinations_with_replacement
from math import comb

import pytest
import reference_eval as ref

from stud_service import native
from stud_service.native import HandCategory

SEVEN_CARD_CATEGORY_COUNTS = {
    HandCategory.STRAIGHT_FLUSH: 41_584,
    HandCategory.FOUR_OF_A_KIND: 224_848,
    HandCategory.FULL_HOUSE: 3_473_184,
    HandCategory.FLUSH: 4_047_644,
    HandCategory.STRAIGHT: 6_180_020,
    HandCategory.THREE_OF_A_KIND: 6_461_620,
    HandCategory.TWO_PAIR: 31_433_400,
    HandCategory.ONE_PAIR: 58_627_800,
    HandCategory.HIGH_CARD: 23_294_460,
}

FIVE_CARD_CATEGORY_COUNTS = {
    HandCategory.STRAIGHT_FLUSH: 40,
    HandCategory.FOUR_OF_A_KIND: 624,
    HandCategory.FULL_HOUSE: 3_744,
    HandCategory.FLUSH: 5_108,
    HandCategory.STRAIGHT: 10_200,
    HandCategory.THREE_OF_A_KIND: 54_912,
    HandCategory.TWO_PAIR: 123_552,
    HandCategory.ONE_PAIR: 1_098_240,
    HandCategory.HIGH_CARD: 1_302_540,
}


def _category_counts(value_counts: list[int]) -> dict[HandCategory, int]:
    totals = dict.fromkeys(HandCategory, 0)
    for value in range(1, native.HIGH_CLASSES + 1):
        totals[native.high_category(value)] += value_counts[value]
    return totals


@pytest.fixture(scope="module")
def seven_card_counts() -> list[int]:
    return native.enumerate_high_counts(7)


def test_all_seven_card_hands_by_category(seven_card_counts: list[int]) -> None:
    """§5 hand ranks: all C(52,7) hands fall into the categories in the known numbers."""
    assert sum(seven_card_counts) == comb(52, 7) == 133_784_560
    assert _category_counts(seven_card_counts) == SEVEN_CARD_CATEGORY_COUNTS


def test_seven_card_hands_take_4824_distinct_values(seven_card_counts: list[int]) -> None:
    """§5: the best five of seven cards reaches exactly 4,824 distinct hand values."""
    assert sum(1 for count in seven_card_counts if count) == 4_824


def test_all_five_card_hands_take_7462_distinct_values() -> None:
    """§5: all C(52,5) hands, by category, and exactly 7,462 distinct values (every class is reached)."""
    counts = native.enumerate_high_counts(5)
    assert sum(counts) == comb(52, 5)
    assert _category_counts(counts) == FIVE_CARD_CATEGORY_COUNTS
    assert sum(1 for count in counts if count) == 7_462 == native.HIGH_CLASSES


def test_six_card_hands_are_all_counted() -> None:
    """The six-card path of the enumeration covers every hand once (a straight flush can be made)."""
    counts = native.enumerate_high_counts(6, n_threads=1)
    assert sum(counts) == comb(52, 6)
    assert _category_counts(counts)[HandCategory.STRAIGHT_FLUSH] > 0


def test_the_enumeration_counts_the_same_with_any_number_of_threads(seven_card_counts: list[int]) -> None:
    """Splitting the work across threads (what makes the enumeration fast; its speed is measured by
    benchmarks/bench_evaluator.py) neither drops nor repeats a hand: every thread count, the machine's
    own included, gives the single-threaded counts."""
    single = native.enumerate_high_counts(6, n_threads=1)
    for threads in (2, 3, 7, 64, None):
        assert native.enumerate_high_counts(6, n_threads=threads) == single
    assert sum(seven_card_counts) == comb(52, 7)


def _representative(ranks: tuple[int, ...], flush: bool) -> list[int]:
    """A five-card hand with these ranks: all clubs for a flush, otherwise suits that never make one."""
    if flush:
        return [r * 4 for r in ranks]
    if len(set(ranks)) == 5:
        return [r * 4 + (1 if position == 1 else 0) for position, r in enumerate(ranks)]
    copies: dict[int, int] = {}
    hand = []
    for r in ranks:  # the k-th card of a rank gets suit k, so a paired hand is never a flush
        hand.append(r * 4 + copies.get(r, 0))
        copies[r] = copies.get(r, 0) + 1
    return hand


def test_every_five_card_high_class_matches_the_reference() -> None:
    """§5: one hand of each of the 7,462 classes gets exactly the reference's rank among all classes."""
    dense = {key: value for value, key in enumerate(ref.all_high_keys(), start=1)}
    assert len(dense) == native.HIGH_CLASSES
    checked = 0
    for ranks in combinations_with_replacement(range(13), 5):
        if ranks[0] == ranks[4]:
            continue
        for flush in (False, True) if len(set(ranks)) == 5 else (False,):
            hand = _representative(ranks, flush)
            assert native.high_value(hand) == dense[ref.high_key_of_five(tuple(hand))], hand
            checked += 1
    assert checked == native.HIGH_CLASSES


def test_every_five_card_low_class_matches_the_reference() -> None:
    """§6 Razz: one hand of each of the 6,175 ace-to-five classes gets the reference's rank (6175 = wheel)."""
    ordered = ref.all_low_keys()
    dense = {key: native.LOW_CLASSES - index for index, key in enumerate(ordered)}
    assert len(dense) == native.LOW_CLASSES
    for ranks in combinations_with_replacement(range(13), 5):
        if ranks[0] == ranks[4]:
            continue
        hand = _representative(ranks, False)
        key = ref.low_key_of_five(tuple(hand))
        assert native.low_value(hand) == dense[key], hand
        expected_eight = dense[key] if ref.qualifies_eight(tuple(hand)) else native.NO_LOW
        assert native.eight_or_better_value(hand) == expected_eight, hand
