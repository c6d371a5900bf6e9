"""Tests across hands: is each hand independent of the hands before it?

A hand's deck comes from its own seed, so under a perfect shuffle the first cards of successive hands are
independent and uniform on the 52 cards. Knuth's classic tests (The Art of Computer Programming, vol. 2,
§3.3.2), which 25 CFR 547.14(b)(2) lists, are run on that sequence, each against its exact distribution:

- serial: the first cards of hands 2k and 2k + 1 as a pair, each of the 52 × 52 pairs equally likely;
- gap: the runs of hands between two whose first card is one of the 13 lowest codes (2♣ … 5♣), geometric;
- poker: how many different first cards five hands in a row show (1 to 5), by Stirling numbers;
- coupon collector's: how many hands until every suit has been the first card, by Stirling numbers.
"""

from __future__ import annotations

from math import comb, perm

import numpy as np

from stud_service.cards import DECK_SIZE
from stud_service.rng.stats import TestResult, chi_square

N = DECK_SIZE
GAP_CODES = 13  # codes 0..12: 2♣ .. 5♣, a quarter of the deck
GAP_LONGEST = 16  # gaps of 16 hands or more share a cell
POKER_HAND = 5
COUPON_LONGEST = 20  # segments of 20 hands or more share a cell
SUITS = 4
MIN_EXPECTED = 5.0


def stirling2(n: int, k: int) -> int:
    """Stirling number of the second kind: ways to split n things into k non-empty groups."""
    return sum((-1) ** i * comb(k, i) * (k - i) ** n for i in range(k + 1)) // perm(k, k)


def poker_chances() -> list[float]:
    """P(r different cards among 5 independent uniform cards), r = 1..5."""
    return [perm(N, r) * stirling2(POKER_HAND, r) / N ** POKER_HAND for r in range(1, POKER_HAND + 1)]


def coupon_chances(longest: int = COUPON_LONGEST) -> list[float]:
    """P(a segment takes r hands to show every suit), r = 4 .. longest - 1, then r ≥ longest."""
    chances = [perm(SUITS, SUITS) * stirling2(r - 1, SUITS - 1) / SUITS ** r for r in range(SUITS, longest)]
    return [*chances, 1.0 - sum(chances)]


def _merge_small(observed: np.ndarray, expected: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Fold the cells expecting fewer than 5 into their neighbour toward the likeliest cell."""
    observed, expected = list(observed), list(expected)
    while len(expected) > 2 and min(expected) < MIN_EXPECTED:
        i = int(np.argmin(expected))
        j = i + 1 if i == 0 or (i + 1 < len(expected) and expected[i + 1] > expected[i - 1]) else i - 1
        observed[j] += observed[i]
        expected[j] += expected[i]
        del observed[i], expected[i]
    return np.array(observed, dtype=np.float64), np.array(expected, dtype=np.float64)


def _tested(name: str, method: str, sample: str, observed: np.ndarray, expected: np.ndarray) -> TestResult:
    observed, expected = _merge_small(observed, expected)
    statistic, df, p = chi_square(observed, expected)
    return TestResult("cards", name, method, sample, statistic, p, df,
                      detail={"family": "between hands", "observed": observed.tolist(),
                              "expected": expected.tolist()})


def between_hands_results(first_cards: np.ndarray) -> list[TestResult]:
    """The four tests on the first card of each hand, in the order the hands were dealt."""
    cards = first_cards.astype(np.int64)
    hands = len(cards)
    out = []
    pairs = hands // 2
    if pairs / (N * N) >= MIN_EXPECTED:
        observed = np.bincount(cards[0: 2 * pairs: 2] * N + cards[1: 2 * pairs: 2], minlength=N * N)
        out.append(_tested("serial test: first cards of two hands in a row",
                           "chi-square over the 2,704 pairs of the first cards of hands 2k and 2k + 1",
                           f"{pairs:,} pairs of hands",
                           observed, np.full(N * N, pairs / (N * N))))
    hits = np.flatnonzero(cards < GAP_CODES)
    gaps = np.diff(hits) - 1
    if len(gaps):
        p = GAP_CODES / N
        observed = np.bincount(np.minimum(gaps, GAP_LONGEST), minlength=GAP_LONGEST + 1)
        chances = [p * (1 - p) ** r for r in range(GAP_LONGEST)] + [(1 - p) ** GAP_LONGEST]
        out.append(_tested("gap test: hands between first cards among 2♣ … 5♣", "chi-square of the gap "
                           f"lengths 0 .. {GAP_LONGEST - 1} and longer against the geometric law (p = 1/4)",
                           f"{len(gaps):,} gaps", observed, len(gaps) * np.array(chances)))
    groups = hands // POKER_HAND
    if groups:
        grouped = np.sort(cards[: groups * POKER_HAND].reshape(groups, POKER_HAND), axis=1)
        distinct = 1 + np.count_nonzero(np.diff(grouped, axis=1), axis=1)
        observed = np.bincount(distinct - 1, minlength=POKER_HAND)
        out.append(_tested("poker test: different first cards in five hands in a row", "chi-square of the "
                           "number of different cards against its exact law (Stirling numbers)",
                           f"{groups:,} groups of five hands", observed, groups * np.array(poker_chances())))
    lengths = _coupon_segments((cards % SUITS).tolist())
    if lengths:
        observed = np.bincount(np.minimum(lengths, COUPON_LONGEST) - SUITS,
                               minlength=COUPON_LONGEST - SUITS + 1)
        out.append(_tested("coupon collector's test: hands until every suit has led", "chi-square of the "
                           f"segment lengths 4 .. {COUPON_LONGEST - 1} and longer against their exact law",
                           f"{len(lengths):,} segments", observed, len(lengths) * np.array(coupon_chances())))
    return out


def _coupon_segments(suits: list[int]) -> list[int]:
    lengths = []
    seen = 0
    start = 0
    for index, suit in enumerate(suits):
        seen |= 1 << suit
        if seen == (1 << SUITS) - 1:
            lengths.append(index + 1 - start)
            seen, start = 0, index + 1
    return lengths
