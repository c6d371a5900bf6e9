"""The C core agrees with the brute-force Python reference (tests/reference_eval.py) on random input.

200,000 random seven-card hands (and smaller sets of five- and six-card hands) for the high hand
(RULES.md §5), the ace-to-five low (§6 Razz) and the eight-or-better low (§6 Stud Hi-Lo); 200,000
random boards for who acts first (§4); 200,000 random sets of door cards for the bring-in (§3).
Hands go through the batch API; the single-call API is checked against the batch on a sample.
"""

from __future__ import annotations

import random
from collections import defaultdict
from concurrent.futures import ThreadPoolExecutor

import pytest
import reference_eval as ref

from stud_service import native

N_RANDOM = 200_000
SEED = 20_261_130


@pytest.fixture(scope="module")
def dense_high() -> dict[tuple[int, ...], int]:
    return {key: value for value, key in enumerate(ref.all_high_keys(), start=1)}


@pytest.fixture(scope="module")
def dense_low() -> dict[tuple[int, ...], int]:
    return {key: native.LOW_CLASSES - index for index, key in enumerate(ref.all_low_keys())}


def _random_hands(rng: random.Random, count: int, size: int) -> list[list[int]]:
    deck = list(range(52))
    return [rng.sample(deck, size) for _ in range(count)]


@pytest.mark.parametrize(("size", "count"), [(7, N_RANDOM), (6, 20_000), (5, 20_000)])
def test_batch_values_match_the_reference(
    size: int, count: int, dense_high: dict[tuple[int, ...], int], dense_low: dict[tuple[int, ...], int]
) -> None:
    """§5 high, §6 ace-to-five low and eight-or-better low of random hands equal the reference's."""
    hands = _random_hands(random.Random(SEED + size), count, size)
    packed = bytes(card for hand in hands for card in hand)
    high = native.evaluate_high_batch(packed, count, size)
    low = native.evaluate_low_batch(packed, count, size)
    eight = native.evaluate_eight_or_better_batch(packed, count, size)
    mismatches = []
    for i, hand in enumerate(hands):
        high_key, low_key, eight_key = ref.best_keys(hand)
        expected_eight = native.NO_LOW if eight_key is None else dense_low[eight_key]
        expected = (dense_high[high_key], dense_low[low_key], expected_eight)
        if (high[i], low[i], eight[i]) != expected:
            mismatches.append((hand, (high[i], low[i], eight[i]), expected))
    assert mismatches == []


def test_single_calls_match_the_batch() -> None:
    """The single-hand calls and the batch calls give the same values."""
    rng = random.Random(SEED)
    for size in (5, 6, 7):
        hands = _random_hands(rng, 5_000, size)
        packed = bytes(card for hand in hands for card in hand)
        count = len(hands)
        assert list(native.evaluate_high_batch(packed, count, size)) == [native.high_value(h) for h in hands]
        assert list(native.evaluate_low_batch(packed, count, size)) == [native.low_value(h) for h in hands]
        assert list(native.evaluate_eight_or_better_batch(packed, len(hands), size)) == [
            native.eight_or_better_value(h) for h in hands
        ]


def test_threaded_batch_matches_single_thread() -> None:
    """Splitting a batch across threads changes nothing in the result."""
    packed = native.random_hands(7, 300_000, 7)
    assert native.evaluate_high_batch(packed, 300_000, 7, n_threads=2) == native.evaluate_high_batch(
        packed, 300_000, 7
    )
    assert native.evaluate_low_batch(packed, 300_000, 7, n_threads=3) == native.evaluate_low_batch(
        packed, 300_000, 7
    )


def test_concurrent_callers_get_the_same_values() -> None:
    """The core is thread-safe: calls from many threads at once (cffi drops the GIL) agree with one thread."""
    packed = native.random_hands(11, 100_000, 7)
    expected = native.evaluate_high_batch(packed, 100_000, 7)
    hands = [list(packed[7 * i:7 * i + 7]) for i in range(2_000)]
    expected_single = [native.evaluate_high(hand) for hand in hands]

    def work(round_number: int) -> bool:
        if round_number % 2:
            return native.evaluate_high_batch(packed, 100_000, 7) == expected
        results = [native.evaluate_high(hand) for hand in hands]
        return [r.cards for r in results] == [e.cards for e in expected_single] and results == expected_single

    with ThreadPoolExecutor(max_workers=4) as pool:
        assert all(pool.map(work, range(8)))


def test_best_five_cards_make_the_best_hand() -> None:
    """§5/§6: the five cards returned come from the hand and are worth exactly the hand's best value."""
    rng = random.Random(SEED + 1)
    for hand in _random_hands(rng, 5_000, 7):
        high_key, low_key, eight_key = ref.best_keys(hand)
        high = native.evaluate_high(hand)
        assert len(high.cards) == 5 and set(high.cards) <= set(hand)
        assert ref.high_key_of_five(high.cards) == high_key
        assert high.category == high_key[0]
        low = native.evaluate_low(hand)
        assert len(low.cards) == 5 and set(low.cards) <= set(hand)
        assert ref.low_key_of_five(low.cards) == low_key
        eight = native.evaluate_eight_or_better(hand)
        if eight_key is None:
            assert eight is None
        else:
            assert eight is not None and set(eight.cards) <= set(hand)
            assert ref.qualifies_eight(eight.cards) and ref.low_key_of_five(eight.cards) == eight_key


def _assert_same_order(pairs: list[tuple[tuple[int, ...], int]], larger_key_is_better: bool) -> None:
    """C values must rank exactly as the reference keys do: equal keys equal values, better keys larger."""
    values_by_key: dict[tuple[int, ...], set[int]] = defaultdict(set)
    for key, value in pairs:
        values_by_key[key].add(value)
    assert all(len(values) == 1 for values in values_by_key.values())
    ordered = sorted(values_by_key, reverse=not larger_key_is_better)  # worst first
    values = [next(iter(values_by_key[key])) for key in ordered]
    assert values == sorted(values) and len(set(values)) == len(values)


def test_board_ranks_order_like_the_reference() -> None:
    """§4: who acts first — random boards of 1..4 up cards rank as the reference does (Stud and Razz)."""
    rng = random.Random(SEED + 2)
    by_size_high: dict[int, list[tuple[tuple[int, ...], int]]] = defaultdict(list)
    by_size_razz: dict[int, list[tuple[tuple[int, ...], int]]] = defaultdict(list)
    deck = list(range(52))
    for _ in range(N_RANDOM):
        board = rng.sample(deck, rng.randint(1, 4))
        by_size_high[len(board)].append((ref.board_key_high(board), native.board_rank_high(board)))
        by_size_razz[len(board)].append((ref.board_key_razz(board), native.board_rank_razz(board)))
    for size in (1, 2, 3, 4):
        _assert_same_order(by_size_high[size], larger_key_is_better=True)
        _assert_same_order(by_size_razz[size], larger_key_is_better=False)


def test_bring_in_matches_the_reference() -> None:
    """§3: random door cards of 1..8 players — the same player brings in, Stud and Razz."""
    rng = random.Random(SEED + 3)
    deck = list(range(52))
    for _ in range(N_RANDOM):
        door = rng.sample(deck, rng.randint(1, 8))
        assert native.bring_in_index(door) == ref.bring_in(door, razz=False)
        assert native.bring_in_index(door, razz=True) == ref.bring_in(door, razz=True)
