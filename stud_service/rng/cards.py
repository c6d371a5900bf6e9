"""The tests on the cards dealt: counted batch by batch over the decks, tested at the end.

Under a perfect shuffle every deck is one of the 52! orders with equal chance. Each test checks one
consequence of that, with Pearson's chi-square against exact expectations:

- position × card: every card at every position with chance 1/52 (the whole 52 × 52 table, each position,
  each card);
- adjacent pairs: at each pair of neighbouring positions, each of the 52 × 51 ordered pairs of cards equally;
- first three cards: each of the 132,600 ordered triples equally; permutations: the relative order of the
  first seven cards (5,040 orders, a stud hand), and of each of the 13 groups of four consecutive positions
  (Knuth's permutation test, 24 orders);
- players: each player's face-up and face-down cards, at tables of 2 to 8 players, in the engine's real
  dealing order (``layout``), every card equally; a player's k cards of one deck are drawn without
  replacement, so their counts vary (52 - k) / 51 times as much as independent draws: the statistic is
  divided by that;
- bring-in: how often each seat brings in, for Stud (and Stud Hi-Lo) and Razz, suit and position
  tie-breaks, 2 to 8 players, against the exact chance computed from the engine's door-card strengths;
- rank: each deck's Lehmer code (its digits c_i, uniform on 0..51-i and independent under a perfect
  shuffle), and its rank among the 52! orders scaled to [0, 1) and binned uniformly;
- between hands: Knuth's serial, gap, poker and coupon collector's tests on the first card of each hand
  (``hands``).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from fractions import Fraction
from functools import cache
from math import factorial, perm
from typing import Any

import numpy as np
from scipy import stats as scipy_stats

from stud_service import native
from stud_service.cards import DECK_SIZE
from stud_service.engine import BringInTiebreak
from stud_service.engine.rules.bring_in import lowest_door_card_seat
from stud_service.rng.decks import Batch
from stud_service.rng.hands import between_hands_results
from stud_service.rng.layout import (
    MAX_PLAYERS,
    MIN_PLAYERS,
    community_positions,
    door_positions,
    player_positions,
)
from stud_service.rng.stats import TestResult, chi_square, uniform_counts_test

N = DECK_SIZE
CELLS = N * N
FIRST_K_ORDER = 7  # the relative order of the first seven cards: 7! = 5,040 cells
KNUTH_GROUP = 4  # Knuth's permutation test on groups of four consecutive positions
MIN_EXPECTED = 5.0  # a chi-square cell needs at least this many expected counts; else the test is skipped
RANK_BINS = 1_000
PREFIX_CARDS = 10  # 52^10 < 2^63: a deck's first ten cards fit in one int64
BRING_IN_GAMES = (("Stud", False), ("Razz", True))  # Stud Hi-Lo brings in as Stud does (RULES.md §3)
BRING_IN_TIEBREAKS = (BringInTiebreak.SUIT, BringInTiebreak.POSITION)
BRING_IN_CHECKED_DECKS = 2_000  # decks whose bring-in is also asked of the engine itself


@cache
def door_strengths(razz: bool, tiebreak: BringInTiebreak) -> np.ndarray:
    """Each card's bring-in strength from the C core (the lowest brings in); ties only under POSITION."""
    use_suit = tiebreak is BringInTiebreak.SUIT
    strengths = np.array([native.door_card_strength(card, razz, use_suit) for card in range(N)],
                         dtype=np.int16)
    strengths.flags.writeable = False  # shared by every caller
    return strengths


@cache
def bring_in_expectation(players: int, razz: bool, tiebreak: BringInTiebreak) -> tuple[Fraction, ...]:
    """The exact chance that each seat (in seat order) brings in. Seat i brings in holding card c when
    every seat before it shows a card of higher strength and every seat after it one of higher or equal
    strength (ties go to the lowest seat): counted over the ordered draws of the other door cards."""
    strengths = door_strengths(razz, tiebreak).tolist()
    total = N * perm(N - 1, players - 1)
    chances = []
    for seat in range(players):
        ways = 0
        for card in range(N):
            higher = sum(s > strengths[card] for s in strengths)
            equal = sum(s == strengths[card] for s in strengths) - 1  # the others of c's strength
            if higher >= seat:
                ways += perm(higher, seat) * perm(higher + equal - seat, players - 1 - seat)
        chances.append(Fraction(ways, total))
    return tuple(chances)


def _lehmer_digits(decks: np.ndarray, start: int, stop: int) -> np.ndarray:
    """c_i for positions start..stop-1: how many of the positions after i, before ``stop``, hold a
    smaller card (the relative order of that stretch as a Lehmer code)."""
    window = decks[:, start:stop]
    width = stop - start
    digits = np.empty((len(decks), width), dtype=np.int64)
    for i in range(width):
        digits[:, i] = (window[:, i + 1:] < window[:, i:i + 1]).sum(axis=1)
    return digits


def _pattern_index(digits: np.ndarray) -> np.ndarray:
    """A Lehmer code's index among the k! orders."""
    k = digits.shape[1]
    weights = np.array([factorial(k - 1 - i) for i in range(k)], dtype=np.int64)
    return digits @ weights


_PREFIX_WEIGHTS = N ** np.arange(PREFIX_CARDS - 1, -1, -1, dtype=np.int64)
_RANK_WEIGHTS = 1.0 / np.cumprod(np.arange(N, 0, -1, dtype=np.float64))  # 1/52, 1/(52·51), ...


@dataclass
class CardCounts:
    """Counts over every deck added; ``results()`` tests them."""

    decks: int = 0
    rejections: int = 0
    position_card: np.ndarray = field(default_factory=lambda: np.zeros((N, N), dtype=np.int64))
    pairs: np.ndarray = field(default_factory=lambda: np.zeros((N - 1, CELLS), dtype=np.int64))
    first_three: np.ndarray = field(default_factory=lambda: np.zeros(N * N * N, dtype=np.int64))
    first_k_order: np.ndarray = field(
        default_factory=lambda: np.zeros(factorial(FIRST_K_ORDER), dtype=np.int64))
    knuth_groups: np.ndarray = field(
        default_factory=lambda: np.zeros((N // KNUTH_GROUP, factorial(KNUTH_GROUP)), dtype=np.int64))
    lehmer_digits: np.ndarray = field(default_factory=lambda: np.zeros((N - 1, N), dtype=np.int64))
    rank_bins: np.ndarray = field(default_factory=lambda: np.zeros(RANK_BINS, dtype=np.int64))
    bring_in: dict[tuple[str, str, int], np.ndarray] = field(default_factory=dict)
    bring_in_checked: int = 0
    prefixes: list[np.ndarray] = field(default_factory=list)  # each deck's first ten cards as one number
    first_cards: list[np.ndarray] = field(default_factory=list)  # each hand's first card, hands in order

    def add(self, batch: Batch) -> None:
        decks = batch.decks
        count = len(decks)
        wide = decks.astype(np.int64)
        self.decks += count
        self.rejections += batch.rejections
        offsets = np.arange(N, dtype=np.int64) * N
        self.position_card += np.bincount((wide + offsets).ravel(), minlength=CELLS).reshape(N, N)
        pair_codes = wide[:, :-1] * N + wide[:, 1:] + np.arange(N - 1, dtype=np.int64) * CELLS
        self.pairs += np.bincount(pair_codes.ravel(), minlength=(N - 1) * CELLS).reshape(N - 1, CELLS)
        self.first_three += np.bincount(wide[:, 0] * CELLS + wide[:, 1] * N + wide[:, 2], minlength=N * N * N)
        self.first_k_order += np.bincount(_pattern_index(_lehmer_digits(decks, 0, FIRST_K_ORDER)),
                                          minlength=factorial(FIRST_K_ORDER))
        for group in range(N // KNUTH_GROUP):
            start = group * KNUTH_GROUP
            index = _pattern_index(_lehmer_digits(decks, start, start + KNUTH_GROUP))
            self.knuth_groups[group] += np.bincount(index, minlength=factorial(KNUTH_GROUP))
        digits = _lehmer_digits(decks, 0, N)[:, : N - 1]
        self.lehmer_digits += np.stack([np.bincount(digits[:, i], minlength=N) for i in range(N - 1)])
        rank = digits.astype(np.float64) @ _RANK_WEIGHTS[: N - 1]  # the rank / 52!, in [0, 1)
        bins = np.minimum((rank * RANK_BINS).astype(np.int64), RANK_BINS - 1)
        self.rank_bins += np.bincount(bins, minlength=RANK_BINS)
        self._add_bring_in(decks)
        self.prefixes.append(wide[:, :PREFIX_CARDS] @ _PREFIX_WEIGHTS)
        self.first_cards.append(decks[:, 0].copy())

    def repeated_prefixes(self) -> int:
        """How many decks repeat the first ten cards of an earlier deck (a cycling stream would)."""
        if not self.prefixes:
            return 0
        every = np.concatenate(self.prefixes)
        return int(len(every) - len(np.unique(every)))

    def _add_bring_in(self, decks: np.ndarray) -> None:
        check = max(0, min(len(decks), BRING_IN_CHECKED_DECKS - self.bring_in_checked))
        for game, razz in BRING_IN_GAMES:
            for tiebreak in BRING_IN_TIEBREAKS:
                strengths = door_strengths(razz, tiebreak)
                for players in range(MIN_PLAYERS, MAX_PLAYERS + 1):
                    doors = decks[:, door_positions(players)]
                    chosen = np.argmin(strengths[doors], axis=1)  # the first weakest: the lowest seat
                    key = (game, tiebreak.name, players)
                    counts = np.bincount(chosen, minlength=players)
                    self.bring_in[key] = self.bring_in.get(key, 0) + counts
                    seats = list(range(1, players + 1))
                    for row in range(check):
                        door = [int(card) for card in doors[row]]
                        if lowest_door_card_seat(seats, door, razz, tiebreak) != seats[int(chosen[row])]:
                            raise AssertionError(f"bring-in differs from the engine's for {key}")
        self.bring_in_checked += check

    def results(self) -> list[TestResult]:
        out: list[TestResult] = []
        decks = self.decks
        sample = f"{decks:,} decks"
        expected = decks / N
        statistic, _, _ = chi_square(self.position_card, np.full((N, N), expected),
                                     variance_scale=N / (N - 1))
        df = (N - 1) ** 2

        out.append(TestResult(
            "cards", "position × card (52 × 52)",
            "Pearson chi-square over the 2,704 cells, scaled by 51/52 (a deck is a permutation: both margins "
            "are fixed), against chi-square with 51² = 2,601 degrees of freedom",
            sample, statistic, float(scipy_stats.chi2.sf(statistic, df)), df))
        for position in range(N):
            out.append(uniform_counts_test(
                self.position_card[position], "cards", f"position {position}: each card 1/52",
                "chi-square, 51 df", sample, family="position"))
        for card in range(N):
            out.append(uniform_counts_test(
                self.position_card[:, card], "cards", f"card {card}: each position 1/52",
                "chi-square, 51 df", sample, family="card"))
        pair_expected = decks / (N * (N - 1))
        for position in range(N - 1):
            counts = self.pairs[position].reshape(N, N)
            expected_pairs = np.full((N, N), pair_expected)
            np.fill_diagonal(expected_pairs, 0.0)
            statistic, df, p = chi_square(counts, expected_pairs)
            out.append(TestResult("cards", f"adjacent pair at positions {position}, {position + 1}",
                                  "chi-square over the 2,652 ordered pairs of different cards", sample,
                                  statistic, p, df, detail={"family": "pair"}))
        out.extend(self._permutation_results(sample))
        out.extend(self._player_results(sample))
        out.extend(self._bring_in_results(sample))
        out.extend(self._rank_results(sample))
        if self.first_cards:
            out.extend(between_hands_results(np.concatenate(self.first_cards)))
        return out

    def _permutation_results(self, sample: str) -> list[TestResult]:
        out = []
        triples = N * (N - 1) * (N - 2)
        if self.decks / triples >= MIN_EXPECTED:
            expected = np.zeros(N * N * N)
            a, b, c = np.meshgrid(np.arange(N), np.arange(N), np.arange(N), indexing="ij")
            distinct = ((a != b) & (b != c) & (a != c)).ravel()
            expected[distinct] = self.decks / triples
            statistic, df, p = chi_square(self.first_three, expected)
            out.append(TestResult("cards", "first three cards, ordered (132,600 triples)",
                                  "chi-square over every ordered triple of different cards", sample,
                                  statistic, p, df))
        if self.decks / factorial(FIRST_K_ORDER) >= MIN_EXPECTED:
            out.append(uniform_counts_test(
                self.first_k_order, "cards", f"relative order of the first {FIRST_K_ORDER} cards "
                f"({factorial(FIRST_K_ORDER):,} orders)", "chi-square over the orders (Lehmer code of the "
                "first seven)", sample))
        for group, counts in enumerate(self.knuth_groups):
            start = group * KNUTH_GROUP
            out.append(uniform_counts_test(
                counts, "cards", f"permutation test, positions {start}..{start + KNUTH_GROUP - 1} "
                "(24 orders)",
                "Knuth's permutation test: the relative order of four consecutive cards, chi-square, 23 df",
                sample, family="knuth"))
        return out

    def _player_results(self, sample: str) -> list[TestResult]:
        out = []
        for players in range(MIN_PLAYERS, MAX_PLAYERS + 1):
            for seat in range(1, players + 1):
                for face_up in (True, False):
                    positions = player_positions(players, seat, face_up)
                    out.append(self._cards_at(positions, f"{players} players, seat {seat}, "
                                              f"{'up' if face_up else 'down'} cards", sample,
                                              players=players, seat=seat, face_up=face_up))
            for position in community_positions(players):
                out.append(self._cards_at([position], f"{players} players, community card", sample,
                                          players=players, seat=None, face_up=True))
        return out

    def _cards_at(self, positions: list[int], name: str, sample: str, **detail: Any) -> TestResult:
        k = len(positions)
        counts = self.position_card[positions].sum(axis=0)
        return uniform_counts_test(
            counts, "cards", name,
            f"chi-square of the {k} card{'s' if k > 1 else ''} at positions {positions} over the 52 cards, "
            f"divided by (52 - {k}) / 51 (drawn without replacement), 51 df",
            sample, variance_scale=(N - k) / (N - 1), family="player", positions=positions, **detail)

    def _bring_in_results(self, sample: str) -> list[TestResult]:
        out = []
        for game, razz in BRING_IN_GAMES:
            for tiebreak in BRING_IN_TIEBREAKS:
                for players in range(MIN_PLAYERS, MAX_PLAYERS + 1):
                    observed = self.bring_in[(game, tiebreak.name, players)]
                    chances = bring_in_expectation(players, razz, tiebreak)
                    expected = np.array([float(chance) * self.decks for chance in chances])
                    statistic, df, p = chi_square(observed, expected)
                    out.append(TestResult(
                        "cards",
                        f"bring-in seat, {game}, {tiebreak.name.lower()} tie-break, {players} players",
                        "chi-square of how often each seat brings in against its exact chance (door-card "
                        f"strengths from the C core; the first {BRING_IN_CHECKED_DECKS:,} decks also checked "
                        "against the engine's rule)", sample, statistic, p, df,
                        detail={"family": "bring-in", "observed": observed.tolist(),
                                "exact_chance": [str(chance) for chance in chances]}))
        return out

    def _rank_results(self, sample: str) -> list[TestResult]:
        out = []
        for position in range(N - 1):
            values = N - position
            out.append(uniform_counts_test(
                self.lehmer_digits[position, :values], "cards",
                f"Lehmer digit {position} (uniform on 0..{values - 1})",
                f"chi-square, {values - 1} df", sample, family="lehmer"))
        bins = self.rank_bins
        if self.decks / RANK_BINS < MIN_EXPECTED:
            width = max(1, int(RANK_BINS * MIN_EXPECTED // self.decks) + 1)
            while RANK_BINS % width:
                width += 1
            bins = bins.reshape(-1, width).sum(axis=1)
        out.append(uniform_counts_test(
            bins, "cards", f"deck rank among the 52! orders, {len(bins):,} equal bins",
            "the Lehmer code read as a mixed-radix fraction rank/52! in [0, 1), binned; chi-square", sample))
        return out
