"""A plain Python reference for the C core, written to be obviously right rather than fast.

Hands are judged by brute force over their five-card subsets. Every function returns a KEY: a tuple
that sorts in the order of the rule it implements (for lows, SMALLER keys are better lows, as the
rule books phrase it). Tests compare the C core's values against these keys.

Only five-card keys are memoised (by rank pattern), which keeps 200,000 random hands affordable.
"""

from __future__ import annotations

from collections import Counter
from functools import cache
from itertools import combinations, combinations_with_replacement

Key = tuple[int, ...]
BestKeys = tuple[Key, Key, Key | None]  # (high, ace-to-five low, eight-or-better low or None)

HIGH_CARD, ONE_PAIR, TWO_PAIR, TRIPS, STRAIGHT, FLUSH, FULL_HOUSE, QUADS, STRAIGHT_FLUSH = range(9)
ACE = 12


def rank(card: int) -> int:
    return card // 4


def suit(card: int) -> int:
    return card % 4


def ace_low_rank(card: int) -> int:
    """A=0, 2=1, ..., K=12."""
    return (rank(card) + 1) % 13


def _groups(ranks: tuple[int, ...]) -> list[tuple[int, int]]:
    """(count, rank) pairs, biggest group first, then highest rank."""
    return sorted(((count, r) for r, count in Counter(ranks).items()), reverse=True)


@cache
def high5_key(ranks: tuple[int, ...], flush: bool) -> tuple[int, ...]:
    """Poker order of five cards given their ranks (sorted) and whether they share a suit."""
    groups = _groups(ranks)
    counts = [count for count, _ in groups]
    ordered = tuple(r for _, r in groups)
    distinct = sorted(set(ranks), reverse=True)
    straight_top = None
    if len(distinct) == 5:
        if distinct[0] - distinct[4] == 4:
            straight_top = distinct[0]
        elif distinct == [ACE, 3, 2, 1, 0]:
            straight_top = 3  # the wheel is five-high
    if straight_top is not None:
        return (STRAIGHT_FLUSH if flush else STRAIGHT, straight_top)
    if flush:
        return (FLUSH, *ordered)
    category = {
        (4, 1): QUADS, (3, 2): FULL_HOUSE, (3, 1, 1): TRIPS, (2, 2, 1): TWO_PAIR,
        (2, 1, 1, 1): ONE_PAIR, (1, 1, 1, 1, 1): HIGH_CARD,
    }[tuple(counts)]
    return (category, *ordered)


@cache
def low5_key(low_ranks: tuple[int, ...]) -> tuple[int, ...]:
    """Ace-to-five order of five ace-low ranks (sorted): smaller is better; pairs are bad."""
    groups = _groups(low_ranks)
    pattern = tuple(count for count, _ in groups)
    badness = {(1, 1, 1, 1, 1): 0, (2, 1, 1, 1): 1, (2, 2, 1): 2, (3, 1, 1): 3, (3, 2): 4, (4, 1): 5}[pattern]
    return (badness, *(r for _, r in groups))


def high_key_of_five(five: tuple[int, ...]) -> tuple[int, ...]:
    return high5_key(tuple(sorted(rank(c) for c in five)), len({suit(c) for c in five}) == 1)


def low_key_of_five(five: tuple[int, ...]) -> tuple[int, ...]:
    return low5_key(tuple(sorted(ace_low_rank(c) for c in five)))


def qualifies_eight(five: tuple[int, ...]) -> bool:
    low_ranks = {ace_low_rank(c) for c in five}
    return len(low_ranks) == 5 and max(low_ranks) <= 7  # five different ranks, all 8 or lower


def best_keys(cards: list[int]) -> BestKeys:
    """(best high key, best low key, best eight-or-better key or None) over all five-card subsets."""
    suit_counts = Counter(suit(c) for c in cards)
    if max(suit_counts.values()) < 5:  # no five-card subset is a flush: only the ranks matter
        return _best_keys_of_ranks(tuple(sorted(rank(c) for c in cards)))
    best_high = best_low = best_eight = None
    for five in combinations(cards, 5):
        high = high_key_of_five(five)
        low = low_key_of_five(five)
        if best_high is None or high > best_high:
            best_high = high
        if best_low is None or low < best_low:
            best_low = low
        if qualifies_eight(five) and (best_eight is None or low < best_eight):
            best_eight = low
    assert best_high is not None and best_low is not None
    return best_high, best_low, best_eight


@cache
def _best_keys_of_ranks(ranks: tuple[int, ...]) -> BestKeys:
    """best_keys for cards that cannot make a flush, memoised by their ranks (sorted)."""
    best_high = best_low = best_eight = None
    for five in combinations(ranks, 5):  # sorted input gives sorted fives
        high = high5_key(five, False)
        low_ranks = tuple(sorted((r + 1) % 13 for r in five))
        low = low5_key(low_ranks)
        if best_high is None or high > best_high:
            best_high = high
        if best_low is None or low < best_low:
            best_low = low
        if len(set(low_ranks)) == 5 and low_ranks[4] <= 7 and (best_eight is None or low < best_eight):
            best_eight = low
    assert best_high is not None and best_low is not None
    return best_high, best_low, best_eight


def all_high_keys() -> list[tuple[int, ...]]:
    """Every distinct five-card high key, worst first."""
    keys = set()
    for ranks in combinations_with_replacement(range(13), 5):
        if ranks[0] == ranks[4]:
            continue
        keys.add(high5_key(ranks, False))
        if len(set(ranks)) == 5:
            keys.add(high5_key(ranks, True))
    return sorted(keys)


def all_low_keys() -> list[tuple[int, ...]]:
    """Every distinct five-card ace-to-five key, best first."""
    patterns = (ranks for ranks in combinations_with_replacement(range(13), 5) if ranks[0] != ranks[4])
    return sorted({low5_key(ranks) for ranks in patterns})


def _board_category(counts: list[int]) -> int:
    """0 high card, 1 pair, 2 two pair, 3 trips, 4 quads (straights and flushes never count)."""
    if counts[0] >= 3:
        return counts[0]
    if counts[0] == 2:
        return 2 if counts.count(2) == 2 else 1
    return 0


def board_key_high(up: list[int]) -> tuple[int, ...]:
    """RULES.md §4: quads > trips > two pair > pair > high card, then ranks; suits ignored."""
    groups = _groups(tuple(rank(c) for c in up))
    return (_board_category([count for count, _ in groups]), *(r for _, r in groups))


def board_key_razz(up: list[int]) -> tuple[int, ...]:
    """RULES.md §4, Razz: ace-to-five low board; smaller is the better low (pairs are bad)."""
    groups = _groups(tuple(ace_low_rank(c) for c in up))
    return (_board_category([count for count, _ in groups]), *(r for _, r in groups))


def bring_in(door: list[int], razz: bool) -> int:
    """RULES.md §3: index of the lowest card (suits c<d<h<s); Razz: the highest, aces low, spades highest."""
    if razz:
        return max(range(len(door)), key=lambda i: (ace_low_rank(door[i]), suit(door[i])))
    return min(range(len(door)), key=lambda i: (rank(door[i]), suit(door[i])))
