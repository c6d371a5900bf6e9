"""The statistics every test of the report shares: results, chi-square, Holm's correction, p-value checks.

Every test ends in a p-value: the chance, were the shuffle perfect, of a statistic at least as far from
its expectation as the one observed. A test passes at 99% when its p-value is at least ``ALPHA`` (0.01).
A report runs hundreds of tests, so about one in a hundred fails at 99% by chance alone: the report's
verdict uses Holm's step-down correction over all of them (family-wise error 1%), and the p-values
themselves are checked for uniformity (Kolmogorov–Smirnov), which a perfect shuffle gives them.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
from scipy import stats as scipy_stats

from stud_service.rng.settings import ALPHA


@dataclass
class TestResult:
    """One test: what it measured, on how much, and its p-value."""

    __test__ = False  # not a pytest class

    section: str  # "stream", "nist", "dieharder", "cards", "scaling"
    name: str
    method: str  # how the statistic and its p-value are computed
    sample: str  # what it ran on, how much
    statistic: float
    p_value: float
    df: int | None = None
    own_verdict: str | None = None  # a battery's own assessment (Dieharder's PASSED / WEAK / FAILED)
    detail: dict[str, Any] = field(default_factory=dict)
    holm_p: float | None = None  # filled in by ``apply_holm``

    @property
    def passed(self) -> bool:
        return self.p_value >= ALPHA

    def as_json(self) -> dict[str, Any]:
        return {
            "section": self.section, "name": self.name, "method": self.method, "sample": self.sample,
            "statistic": finite_or_none(self.statistic), "df": self.df,
            "p_value": finite_or_none(self.p_value),
            "holm_p": None if self.holm_p is None else finite_or_none(self.holm_p),
            "verdict_99": "pass" if self.passed else "fail", "own_verdict": self.own_verdict,
            "detail": self.detail,
        }


def finite_or_none(value: float) -> float | None:
    return float(value) if np.isfinite(value) else None


def chi_square(observed: Any, expected: Any, variance_scale: float = 1.0,
               df: int | None = None) -> tuple[float, int, float]:
    """Pearson's chi-square of ``observed`` against ``expected`` counts (cells with no expectation left out).

    ``variance_scale`` corrects for draws without replacement: k distinct cards of a deck counted into the
    same 52 cells vary (52 - k) / 51 times as much as k independent draws would, so the statistic is divided
    by it. ``df`` defaults to the number of cells less one. Returns (statistic, df, p-value)."""
    observed = np.asarray(observed, dtype=np.float64).ravel()
    expected = np.asarray(expected, dtype=np.float64).ravel()
    if observed.shape != expected.shape:
        raise ValueError("observed and expected counts differ in shape")
    cells = expected > 0
    if np.any(observed[~cells] != 0):
        return float("inf"), int(cells.sum()) - 1, 0.0  # a count where none can be: no shuffle does that
    statistic = float(np.sum((observed[cells] - expected[cells]) ** 2 / expected[cells])) / variance_scale
    degrees = int(cells.sum()) - 1 if df is None else df
    if degrees <= 0:
        return statistic, 0, 1.0  # one cell: nothing can deviate
    return statistic, degrees, float(scipy_stats.chi2.sf(statistic, degrees))


def uniform_counts_test(counts: Any, section: str, name: str, method: str, sample: str,
                        variance_scale: float = 1.0, **detail: Any) -> TestResult:
    """Chi-square of counts that should be equal in every cell."""
    counts = np.asarray(counts, dtype=np.float64)
    expected = np.full_like(counts, counts.sum() / counts.size)
    statistic, df, p = chi_square(counts, expected, variance_scale)
    return TestResult(section, name, method, sample, statistic, p, df, detail=detail)


def holm(p_values: Sequence[float]) -> list[float]:
    """Holm's step-down adjusted p-values (family-wise error control under any dependence)."""
    m = len(p_values)
    order = sorted(range(m), key=lambda i: p_values[i])
    adjusted = [1.0] * m
    running = 0.0
    for rank, index in enumerate(order):
        running = max(running, min(1.0, (m - rank) * p_values[index]))
        adjusted[index] = running
    return adjusted


def apply_holm(results: Sequence[TestResult]) -> None:
    for result, adjusted in zip(results, holm([r.p_value for r in results]), strict=True):
        result.holm_p = adjusted


def ks_uniform(p_values: Sequence[float]) -> tuple[float, float]:
    """Kolmogorov–Smirnov distance of the p-values from the uniform distribution, and its p-value."""
    outcome = scipy_stats.kstest(np.asarray(p_values, dtype=np.float64), "uniform")
    return float(outcome.statistic), float(outcome.pvalue)


def nist_uniformity(p_values: Sequence[float]) -> tuple[float, float]:
    """SP 800-22 §4.2.2: the p-values in 10 equal bins, chi-square with 9 degrees of freedom:
    (statistic, P-value_T); uniform when P-value_T ≥ 0.0001."""
    if not len(p_values):
        return float("nan"), float("nan")
    counts, _ = np.histogram(np.asarray(p_values, dtype=np.float64), bins=10, range=(0.0, 1.0))
    expected = len(p_values) / 10
    statistic = float(np.sum((counts - expected) ** 2 / expected))
    return statistic, float(scipy_stats.chi2.sf(statistic, 9))


def nist_proportion_range(sequences: int, alpha: float = ALPHA) -> tuple[float, float]:
    """SP 800-22 §4.2.1: the range the proportion of sequences passing must fall in, p̂ ± 3·sqrt(p̂(1-p̂)/m)."""
    p_hat = 1.0 - alpha
    half = 3.0 * (p_hat * alpha / sequences) ** 0.5
    return p_hat - half, min(1.0, p_hat + half)
