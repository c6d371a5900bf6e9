"""The fifteen tests of NIST SP 800-22 Rev. 1a, written from the publication.

No implementation on PyPI is maintained (the ones there were last released in 2019–2021), so the tests are
written here from the publication's Sections 2 and 3, with the parameters of its reference program's
defaults, and ``tests/test_rng_nist.py`` checks each against the publication's worked examples (Section 2's
"Example" subsections, and Appendix B's results for the first million binary digits of e).

A sequence is a numpy array of 0/1 ``uint8``. Each test returns one or more p-values; a test that cannot
be applied to a sequence (the random excursions tests when the walk returns to zero too rarely) returns
none. ``second_level`` then judges a test over many sequences the way Section 4.2 does: the proportion
that pass at 1%, and the uniformity of their p-values.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from functools import cache

import numpy as np
from scipy import special

# Section 2 and the reference program's defaults for sequences of 10^6 bits.
BLOCK_FREQUENCY_M = 128
NON_OVERLAPPING_M = 9
NON_OVERLAPPING_BLOCKS = 8
OVERLAPPING_M = 9
OVERLAPPING_BLOCK = 1032
LINEAR_COMPLEXITY_M = 500
SERIAL_M = 16
APPROXIMATE_ENTROPY_M = 10
RANK_ROWS = RANK_COLUMNS = 32


class ShortSequence(ValueError):
    """The sequence is too short for the test."""


def igamc(a: float, x: float) -> float:
    """The complemented incomplete gamma function Q(a, x) the publication's p-values use (§5.5.3)."""
    return float(special.gammaincc(a, x))


def erfc(x: float) -> float:
    return math.erfc(x)


def _normal_cdf(x: float) -> float:
    return 0.5 * math.erfc(-x / math.sqrt(2.0))


def bits_from_bytes(data: bytes) -> np.ndarray:
    """The bits of ``data``, most significant bit of each byte first (as the stream is read)."""
    return np.unpackbits(np.frombuffer(data, dtype=np.uint8))


def bits_from_text(text: str) -> np.ndarray:
    return np.array([int(c) for c in text if c in "01"], dtype=np.uint8)


# 2.1 Frequency (monobit)
def frequency(bits: np.ndarray) -> float:
    n = len(bits)
    s = 2 * int(bits.sum()) - n
    return erfc(abs(s) / math.sqrt(n) / math.sqrt(2.0))


# 2.2 Frequency within a block
def block_frequency(bits: np.ndarray, m: int = BLOCK_FREQUENCY_M) -> float:
    blocks = len(bits) // m
    proportions = bits[: blocks * m].reshape(blocks, m).sum(axis=1) / m
    chi2 = 4.0 * m * float(np.sum((proportions - 0.5) ** 2))
    return igamc(blocks / 2.0, chi2 / 2.0)


# 2.3 Runs
def runs(bits: np.ndarray) -> float:
    n = len(bits)
    pi = float(bits.sum()) / n
    if abs(pi - 0.5) >= 2.0 / math.sqrt(n):
        return 0.0  # the frequency prerequisite fails: the test is not run, and the sequence fails it
    v = 1 + int(np.count_nonzero(bits[1:] != bits[:-1]))
    return erfc(abs(v - 2.0 * n * pi * (1 - pi)) / (2.0 * math.sqrt(2.0 * n) * pi * (1 - pi)))


# 2.4 Longest run of ones in a block
_LONGEST_RUN_TABLES = (
    # (minimum n, M, smallest class, largest class, probabilities) from §2.4.4 and §3.4
    (750_000, 10_000, 10, 16, (0.0882, 0.2092, 0.2483, 0.1933, 0.1208, 0.0675, 0.0727)),
    (6_272, 128, 4, 9, (0.1174035788, 0.242955959, 0.249363483, 0.17517706, 0.102701071, 0.112398847)),
    (128, 8, 1, 4, (0.21484375, 0.3671875, 0.23046875, 0.1875)),  # exact: 55, 94, 59 and 48 / 256
)


def _longest_runs(blocks: np.ndarray) -> np.ndarray:
    """The longest run of ones in each row of a 0/1 array."""
    longest = np.zeros(len(blocks), dtype=np.int64)
    current = np.zeros(len(blocks), dtype=np.int64)
    for column in blocks.T:
        current = (current + 1) * column
        np.maximum(longest, current, out=longest)
    return longest


def longest_run(bits: np.ndarray) -> float:
    n = len(bits)
    table = next((row for row in _LONGEST_RUN_TABLES if n >= row[0]), None)
    if table is None:
        raise ShortSequence("the longest-run test needs at least 128 bits")
    _, m, low, high, pi = table
    blocks = n // m
    longest = np.clip(_longest_runs(bits[: blocks * m].reshape(blocks, m).astype(np.int64)), low, high)
    counts = np.bincount(longest - low, minlength=high - low + 1)
    expected = blocks * np.array(pi)
    chi2 = float(np.sum((counts - expected) ** 2 / expected))
    return igamc((len(pi) - 1) / 2.0, chi2 / 2.0)


# 2.5 Binary matrix rank
def _gf2_ranks(rows: np.ndarray, columns: int) -> np.ndarray:
    """Ranks over GF(2) of matrices whose rows are ``columns``-bit integers, all matrices at once."""
    rows = rows.copy()
    count, height = rows.shape
    rank = np.zeros(count, dtype=np.int64)
    for column in range(columns - 1, -1, -1):
        bit = np.uint64(1) << np.uint64(column)
        has = (rows & bit) != 0
        # rows not yet used as pivots are those at index >= rank; pick the first such row with the bit
        candidates = has & (np.arange(height)[None, :] >= rank[:, None])
        found = candidates.any(axis=1)
        pivot_index = np.argmax(candidates, axis=1)
        which = np.nonzero(found)[0]
        if len(which) == 0:
            continue
        pivots = rows[which, pivot_index[which]]
        # swap the pivot row into position ``rank``
        target = rank[which]
        rows[which, pivot_index[which]] = rows[which, target]
        rows[which, target] = pivots
        # clear the bit from every other row
        clear = ((rows[which] & bit) != 0)
        clear[np.arange(len(which)), target] = False
        rows[which] ^= np.where(clear, pivots[:, None], np.uint64(0))
        rank[which] += 1
    return rank


def _rank_probabilities(m: int, q: int) -> tuple[float, float, float]:
    """§3.5: the chance that a random m × q matrix over GF(2) has rank m, m - 1, and less."""
    def chance(r: int) -> float:
        product = 1.0
        for i in range(r):
            product *= ((1 - 2.0 ** (i - q)) * (1 - 2.0 ** (i - m))) / (1 - 2.0 ** (i - r))
        return 2.0 ** (r * (q + m - r) - m * q) * product

    full, less_one = chance(m), chance(m - 1)
    return full, less_one, 1.0 - full - less_one


def rank(bits: np.ndarray) -> float:
    size = RANK_ROWS * RANK_COLUMNS
    matrices = len(bits) // size
    if matrices == 0:
        raise ShortSequence("the rank test needs at least one 32 × 32 matrix")
    chunk = bits[: matrices * size].reshape(matrices * RANK_ROWS, RANK_COLUMNS).astype(np.uint64)
    weights = np.uint64(1) << np.arange(RANK_COLUMNS - 1, -1, -1, dtype=np.uint64)
    rows = (chunk * weights).sum(axis=1, dtype=np.uint64).reshape(matrices, RANK_ROWS)
    ranks = _gf2_ranks(rows, RANK_COLUMNS)
    observed = np.array([np.sum(ranks == RANK_ROWS), np.sum(ranks == RANK_ROWS - 1),
                         np.sum(ranks < RANK_ROWS - 1)], dtype=np.float64)
    expected = matrices * np.array(_rank_probabilities(RANK_ROWS, RANK_COLUMNS))
    chi2 = float(np.sum((observed - expected) ** 2 / expected))
    return math.exp(-chi2 / 2.0)


# 2.6 Discrete Fourier transform (spectral)
def dft(bits: np.ndarray) -> float:
    n = len(bits)
    x = 2.0 * bits.astype(np.float64) - 1.0
    modulus = np.abs(np.fft.rfft(x))[: n // 2]
    threshold = math.sqrt(math.log(1.0 / 0.05) * n)
    n0 = 0.95 * n / 2.0
    n1 = float(np.count_nonzero(modulus < threshold))
    d = (n1 - n0) / math.sqrt(n * 0.95 * 0.05 / 4.0)
    return erfc(abs(d) / math.sqrt(2.0))


# 2.7 Non-overlapping template matching
@cache
def aperiodic_templates(m: int) -> tuple[tuple[int, ...], ...]:
    """Every m-bit template no proper prefix of which is also a suffix (148 of them for m = 9), in the
    order of their value."""
    out = []
    for value in range(1 << m):
        template = tuple((value >> (m - 1 - i)) & 1 for i in range(m))
        if all(template[:k] != template[m - k:] for k in range(1, m)):
            out.append(template)
    return tuple(out)


def _window_values(bits: np.ndarray, m: int) -> np.ndarray:
    """The value of the m bits starting at each position (positions 0 .. len - m)."""
    values = np.zeros(len(bits) - m + 1, dtype=np.int64)
    for i in range(m):
        values = (values << 1) | bits[i: len(bits) - m + 1 + i]
    return values


def _count_non_overlapping(hits: np.ndarray, m: int) -> int:
    """Matches counted left to right, skipping m bits after each (§2.7.4 step 2)."""
    count = 0
    next_free = -1
    for position in hits.tolist():
        if position >= next_free:
            count += 1
            next_free = position + m
    return count


def non_overlapping_template(bits: np.ndarray, template: tuple[int, ...] | None = None,
                             blocks: int = NON_OVERLAPPING_BLOCKS) -> list[float]:
    """One p-value for each template (every aperiodic template of length 9, unless one is given)."""
    templates = aperiodic_templates(NON_OVERLAPPING_M) if template is None else (template,)
    m = len(templates[0])
    block = len(bits) // blocks
    mean = (block - m + 1) / 2.0 ** m
    variance = block * (1.0 / 2.0 ** m - (2.0 * m - 1.0) / 2.0 ** (2 * m))
    windows = [_window_values(bits[j * block: (j + 1) * block], m) for j in range(blocks)]
    p_values = []
    for candidate in templates:
        value = int("".join(map(str, candidate)), 2)
        counts = [_count_non_overlapping(np.flatnonzero(w == value), m) for w in windows]
        chi2 = sum((c - mean) ** 2 for c in counts) / variance
        p_values.append(igamc(blocks / 2.0, chi2 / 2.0))
    return p_values


# 2.8 Overlapping template matching
def _overlapping_probabilities(m: int, block: int, classes: int = 5) -> list[float]:
    """The chances of 0, 1, ..., classes - 1 and at least ``classes`` matches of m ones in a block (§3.8,
    as the reference program computes them)."""
    eta = (block - m + 1) / 2.0 ** m / 2.0

    def chance(u: int) -> float:
        if u == 0:
            return math.exp(-eta)
        return sum(math.exp(-eta - u * math.log(2) + j * math.log(eta) - math.lgamma(j + 1) + math.lgamma(u)
                            - math.lgamma(j) - math.lgamma(u - j + 1)) for j in range(1, u + 1))

    pi = [chance(u) for u in range(classes)]
    return [*pi, 1.0 - sum(pi)]


def overlapping_template(bits: np.ndarray, m: int = OVERLAPPING_M, block: int = OVERLAPPING_BLOCK) -> float:
    blocks = len(bits) // block
    ones = (1 << m) - 1
    counts = np.zeros(6, dtype=np.int64)
    for j in range(blocks):
        matches = int(np.count_nonzero(_window_values(bits[j * block: (j + 1) * block], m) == ones))
        counts[min(matches, 5)] += 1
    expected = blocks * np.array(_overlapping_probabilities(m, block))
    chi2 = float(np.sum((counts - expected) ** 2 / expected))
    return igamc(5 / 2.0, chi2 / 2.0)


# 2.9 Maurer's universal statistical test
_UNIVERSAL = {  # L: (expected value, variance) from §2.9.4
    1: (0.7326495, 0.690), 2: (1.5374383, 1.338), 3: (2.4016068, 1.901), 4: (3.3112247, 2.358),
    5: (4.2534266, 2.705), 6: (5.2177052, 2.954), 7: (6.1962507, 3.125), 8: (7.1836656, 3.238),
    9: (8.1764248, 3.311), 10: (9.1723243, 3.356), 11: (10.170032, 3.384), 12: (11.168765, 3.401),
    13: (12.168070, 3.410), 14: (13.167693, 3.416), 15: (14.167488, 3.419), 16: (15.167379, 3.421),
}
_UNIVERSAL_MIN_N = ((1_059_061_760, 16), (496_435_200, 15), (231_669_760, 14), (107_560_960, 13),
                    (49_643_520, 12), (22_753_280, 11), (10_342_400, 10), (4_654_080, 9), (2_068_480, 8),
                    (904_960, 7), (387_840, 6))


def universal_statistic(bits: np.ndarray, block_length: int | None = None,
                        init_blocks: int | None = None) -> tuple[float, int, int]:
    """(f_n, L, K): the mean log2 distance between repeats of L-bit blocks over the K test blocks."""
    n = len(bits)
    if block_length is None:
        block_length = next((length for minimum, length in _UNIVERSAL_MIN_N if n >= minimum), 0)
        if not block_length:
            raise ShortSequence("Maurer's test needs at least 387,840 bits")
    length = block_length
    init = 10 * 2 ** length if init_blocks is None else init_blocks
    total = n // length
    k = total - init
    values = _window_values(bits[: total * length], length)[::length]
    last_seen = np.zeros(2 ** length, dtype=np.int64)
    for index in range(init):
        last_seen[values[index]] = index + 1
    total_log = 0.0
    table = last_seen.tolist()
    for index in range(init, total):
        value = int(values[index])
        total_log += math.log2(index + 1 - table[value])
        table[value] = index + 1
    return total_log / k, length, k


def universal(bits: np.ndarray, block_length: int | None = None, init_blocks: int | None = None) -> float:
    fn, length, k = universal_statistic(bits, block_length, init_blocks)
    expected, variance = _UNIVERSAL[length]
    c = 0.7 - 0.8 / length + (4 + 32 / length) * k ** (-3 / length) / 15
    sigma = c * math.sqrt(variance / k)
    return erfc(abs((fn - expected) / (math.sqrt(2.0) * sigma)))


# 2.10 Linear complexity
def berlekamp_massey(block: list[int]) -> int:
    """The linear complexity of a 0/1 sequence (the length of its shortest LFSR), over GF(2).
    Polynomials and the reversed sequence are Python ints, bit i the coefficient of x^i."""
    c, b = 1, 1
    length, last = 0, -1
    recent = 0  # bit i holds s[n - i]
    for n, bit in enumerate(block):
        recent = (recent << 1) | bit
        if (c & recent).bit_count() & 1:
            previous = c
            c ^= b << (n - last)
            if 2 * length <= n:
                length, last, b = n + 1 - length, n, previous
    return length


# §3.10's probabilities of the seven classes (pi_0 = 1/96). The reference program has 0.01047 for pi_0,
# and the publication's worked results (§2.10.8, Appendix B) came from it: ``REFERENCE_PROGRAM_PI``
# reproduces them, and the report uses the publication's values.
LINEAR_COMPLEXITY_PI = (0.010417, 0.03125, 0.125, 0.5, 0.25, 0.0625, 0.020833)
REFERENCE_PROGRAM_PI = (0.01047, 0.03125, 0.125, 0.5, 0.25, 0.0625, 0.020833)


def linear_complexity(bits: np.ndarray, m: int = LINEAR_COMPLEXITY_M,
                      pi: tuple[float, ...] = LINEAR_COMPLEXITY_PI) -> float:
    blocks = len(bits) // m
    mean = m / 2.0 + (9.0 + (-1) ** (m + 1)) / 36.0 - (m / 3.0 + 2.0 / 9.0) / 2.0 ** m
    counts = [0] * 7
    rows = bits[: blocks * m].reshape(blocks, m).tolist()
    for row in rows:
        t = (-1) ** m * (berlekamp_massey(row) - mean) + 2.0 / 9.0
        if t <= -2.5:
            counts[0] += 1
        elif t > 2.5:
            counts[6] += 1
        else:
            counts[min(5, max(1, math.ceil(t + 2.5)))] += 1  # (-2.5,-1.5] -> 1 ... (1.5, 2.5] -> 5
    chi2 = sum((counts[i] - blocks * p) ** 2 / (blocks * p) for i, p in enumerate(pi))
    return igamc(3.0, chi2 / 2.0)


# 2.11 Serial and 2.12 Approximate entropy
def _pattern_counts(bits: np.ndarray, m: int) -> np.ndarray:
    """Counts of every overlapping m-bit pattern, the sequence wrapped around (its first m - 1 bits
    appended)."""
    if m == 0:
        return np.array([len(bits)])
    extended = np.concatenate([bits, bits[: m - 1]])
    return np.bincount(_window_values(extended, m), minlength=1 << m)


def _psi_squared(bits: np.ndarray, m: int) -> float:
    if m <= 0:
        return 0.0
    counts = _pattern_counts(bits, m).astype(np.float64)
    n = len(bits)
    return float(np.sum(counts ** 2)) * 2.0 ** m / n - n


def serial(bits: np.ndarray, m: int = SERIAL_M) -> list[float]:
    psi_m, psi_m1, psi_m2 = (_psi_squared(bits, m - d) for d in range(3))
    first = psi_m - psi_m1
    second = psi_m - 2 * psi_m1 + psi_m2
    return [igamc(2.0 ** (m - 2), first / 2.0), igamc(2.0 ** (m - 3), second / 2.0)]


def _phi(bits: np.ndarray, m: int) -> float:
    counts = _pattern_counts(bits, m).astype(np.float64)
    proportions = counts[counts > 0] / len(bits)
    return float(np.sum(proportions * np.log(proportions)))


def approximate_entropy(bits: np.ndarray, m: int = APPROXIMATE_ENTROPY_M) -> float:
    n = len(bits)
    apen = _phi(bits, m) - _phi(bits, m + 1)
    chi2 = 2.0 * n * (math.log(2) - apen)
    return igamc(2.0 ** (m - 1), chi2 / 2.0)


# 2.13 Cumulative sums
def _c_div(a: int, b: int) -> int:
    """Integer division truncating toward zero, as the reference program's C does."""
    quotient = abs(a) // abs(b)
    return quotient if (a >= 0) == (b >= 0) else -quotient


def cumulative_sums(bits: np.ndarray) -> list[float]:
    """Forward and backward."""
    n = len(bits)
    steps = 2 * bits.astype(np.int64) - 1
    p_values = []
    for walk in (np.cumsum(steps), np.cumsum(steps[::-1])):
        z = int(np.max(np.abs(walk)))
        root = math.sqrt(n)
        total1 = sum(_normal_cdf((4 * k + 1) * z / root) - _normal_cdf((4 * k - 1) * z / root)
                     for k in range(_c_div(-n // z + 1, 4), _c_div(n // z - 1, 4) + 1))
        total2 = sum(_normal_cdf((4 * k + 3) * z / root) - _normal_cdf((4 * k + 1) * z / root)
                     for k in range(_c_div(-n // z - 3, 4), _c_div(n // z - 1, 4) + 1))
        p_values.append(1.0 - total1 + total2)
    return p_values


# 2.14 Random excursions and 2.15 Random excursions variant
EXCURSION_STATES = (-4, -3, -2, -1, 1, 2, 3, 4)
VARIANT_STATES = tuple(x for x in range(-9, 10) if x)


def _cycles(bits: np.ndarray) -> tuple[np.ndarray, np.ndarray, int]:
    """The walk, the cycle each step belongs to, and the number of cycles J (§2.14.4 steps 1-4)."""
    walk = np.cumsum(2 * bits.astype(np.int64) - 1)
    zeros = walk == 0
    cycle = np.concatenate([[0], np.cumsum(zeros)[:-1]])  # a zero closes its cycle
    cycles = int(np.count_nonzero(zeros)) + (0 if walk[-1] == 0 else 1)
    return walk, cycle, cycles


def _excursions_applicable(cycles: int, n: int) -> bool:
    return cycles >= max(0.005 * math.sqrt(n), 500)


def _excursion_pi(x: int) -> list[float]:
    a = 1.0 / (2 * abs(x))
    return [1 - a] + [a * a * (1 - a) ** (k - 1) for k in range(1, 5)] + [a * (1 - a) ** 4]


def random_excursions(bits: np.ndarray) -> list[float]:
    """One p-value for each state -4..-1, 1..4; none when there are too few cycles."""
    walk, cycle, cycles = _cycles(bits)
    if not _excursions_applicable(cycles, len(bits)):
        return []
    p_values = []
    for x in EXCURSION_STATES:
        visits = np.bincount(cycle[walk == x], minlength=cycles)
        counts = np.bincount(np.minimum(visits, 5), minlength=6)
        expected = cycles * np.array(_excursion_pi(x))
        chi2 = float(np.sum((counts - expected) ** 2 / expected))
        p_values.append(igamc(5 / 2.0, chi2 / 2.0))
    return p_values


def random_excursions_variant(bits: np.ndarray) -> list[float]:
    """One p-value for each state -9..-1, 1..9; none when there are too few cycles."""
    walk, _, cycles = _cycles(bits)
    if not _excursions_applicable(cycles, len(bits)):
        return []
    visits = {x: int(np.count_nonzero(walk == x)) for x in VARIANT_STATES}
    return [erfc(abs(visits[x] - cycles) / math.sqrt(2.0 * cycles * (4.0 * abs(x) - 2.0)))
            for x in VARIANT_STATES]


@dataclass(frozen=True)
class NistTest:
    name: str
    section: str
    run: Callable[[np.ndarray], float | list[float]]
    parameters: str


NIST_TESTS: tuple[NistTest, ...] = (
    NistTest("Frequency (monobit)", "2.1", frequency, ""),
    NistTest("Frequency within a block", "2.2", block_frequency, f"M = {BLOCK_FREQUENCY_M}"),
    NistTest("Runs", "2.3", runs, ""),
    NistTest("Longest run of ones in a block", "2.4", longest_run, "M = 10,000 for n ≥ 750,000"),
    NistTest("Binary matrix rank", "2.5", rank, "32 × 32"),
    NistTest("Discrete Fourier transform", "2.6", dft, ""),
    NistTest("Non-overlapping template matching", "2.7", non_overlapping_template,
             f"all {len(aperiodic_templates(NON_OVERLAPPING_M))} aperiodic templates of m = 9, N = 8 blocks"),
    NistTest("Overlapping template matching", "2.8", overlapping_template, "m = 9, M = 1032"),
    NistTest("Maurer's universal statistical", "2.9", universal, "L = 7, Q = 1280 for n = 10^6"),
    NistTest("Linear complexity", "2.10", linear_complexity, f"M = {LINEAR_COMPLEXITY_M}"),
    NistTest("Serial", "2.11", serial, f"m = {SERIAL_M}"),
    NistTest("Approximate entropy", "2.12", approximate_entropy, f"m = {APPROXIMATE_ENTROPY_M}"),
    NistTest("Cumulative sums", "2.13", cumulative_sums, "forward and backward"),
    NistTest("Random excursions", "2.14", random_excursions, "states -4..4"),
    NistTest("Random excursions variant", "2.15", random_excursions_variant, "states -9..9"),
)


def run_test(test: NistTest, bits: np.ndarray) -> list[float]:
    """A test's p-values on one sequence; none when the sequence is too short for it (Maurer's test needs
    387,840 bits) or, for the excursion tests, returns to zero too rarely."""
    try:
        result = test.run(bits)
    except ShortSequence:
        return []
    return list(result) if isinstance(result, list) else [result]


def run_all(bits: np.ndarray) -> dict[str, list[float]]:
    """Every test on one sequence: its p-values by test name (an empty list where it does not apply)."""
    return {test.name: run_test(test, bits) for test in NIST_TESTS}
