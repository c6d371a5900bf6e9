"""The report: every battery and card test over the production shuffle, written as HTML, JSON and PNG.

``build_report(settings)`` runs, in this order: Dieharder on the raw stream (in the background: it takes
longest), NIST SP 800-22 on sequences of the same stream, the card tests over ``settings.decks`` decks, the
scaling and seeding checks, and the sampler's throughput against ``random.SystemRandom().shuffle``. Holm's
correction is then applied over every p-value. ``write_report`` writes ``index.html`` (plots embedded),
``report.json``, the plots as PNG files and Dieharder's own output into a directory.

The report passes when every test passes after Holm's correction at a family-wise 1%, every NIST test
meets SP 800-22 §4.2's two criteria, and Dieharder assessed no test FAILED.
"""

from __future__ import annotations

import json
import math
import platform
import re
import shlex
import subprocess
import sys
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from importlib import metadata
from pathlib import Path
from typing import Any

import numpy as np
from scipy import stats as scipy_stats

from stud_service.rng import dieharder, nist
from stud_service.rng.cards import CardCounts
from stud_service.rng.decks import (
    DRAWS_PER_DECK,
    THROUGHPUT_DECKS,
    Deal,
    batches,
    dealt_deck,
    measure_throughput,
)
from stud_service.rng.seeds import DECK_LABEL, NIST_LABEL, STREAM_LABEL, SeedSource
from stud_service.rng.settings import ALPHA, ReportRefused, ReportSettings
from stud_service.rng.stats import (
    TestResult,
    apply_holm,
    finite_or_none,
    ks_uniform,
    nist_proportion_range,
    nist_uniformity,
)
from stud_service.rng.stream import DEFAULT_BLOCKS_PER_SEED, seed_stream_bytes
from stud_service.shuffle import deck_order

Progress = Callable[[str], None] | None
U32 = 1 << 32
CHECKED_DECKS = 10_000  # decks the sampler also deals through deck_order itself, to show they agree
NIST_UNIFORMITY_MIN_SEQUENCES = 55  # §4.2.2: the uniformity of p-values needs at least 55 sequences


@dataclass
class NistSummary:
    """One SP 800-22 test (or one of its templates or states) over every sequence."""

    test: str
    part: str  # "" or the template / state / direction
    p_values: list[float]
    sequences: int  # sequences the test applied to

    @property
    def proportion(self) -> float:
        return sum(p >= ALPHA for p in self.p_values) / max(1, len(self.p_values))

    @property
    def proportion_range(self) -> tuple[float, float]:
        return nist_proportion_range(max(1, len(self.p_values)))

    @property
    def uniformity(self) -> tuple[float, float]:
        return nist_uniformity(self.p_values)

    @property
    def passed(self) -> bool:
        """§4.2's two criteria, as the publication states them for one test."""
        low, _ = self.proportion_range
        return self.proportion >= low and (len(self.p_values) < NIST_UNIFORMITY_MIN_SEQUENCES
                                           or self.uniformity[1] >= 0.0001)

    def as_json(self) -> dict[str, Any]:
        statistic, p_t = self.uniformity
        counts, _ = np.histogram(self.p_values, bins=10, range=(0.0, 1.0))
        return {"test": self.test, "part": self.part, "sequences": self.sequences,
                "proportion_passing": self.proportion, "proportion_range": list(self.proportion_range),
                "uniformity_chi2": finite_or_none(statistic), "uniformity_p_value_t": finite_or_none(p_t),
                "histogram_10_bins": counts.tolist(), "passed": self.passed}


@dataclass
class Report:
    settings: ReportSettings
    meta: dict[str, Any] = field(default_factory=dict)
    results: list[TestResult] = field(default_factory=list)
    nist: list[NistSummary] = field(default_factory=list)
    counts: CardCounts | None = None
    dieharder_output: str = ""
    scaling: dict[str, Any] = field(default_factory=dict)
    seeding: dict[str, Any] = field(default_factory=dict)
    throughput: dict[str, Any] = field(default_factory=dict)
    timings: dict[str, float] = field(default_factory=dict)

    @property
    def holm_passed(self) -> bool:
        return all(result.holm_p is None or result.holm_p >= ALPHA for result in self.results)

    @property
    def nist_outside_range(self) -> int:
        """SP 800-22 templates/states outside §4.2's criteria (shown; the verdict is the family's)."""
        return sum(not summary.passed for summary in self.nist if summary.p_values)

    @property
    def dieharder_failed(self) -> list[TestResult]:
        return [r for r in self.results if r.section == "dieharder" and r.own_verdict == "FAILED"]

    @property
    def passed(self) -> bool:
        return self.holm_passed and not self.dieharder_failed

    def section_results(self, section: str) -> list[TestResult]:
        return [r for r in self.results if r.section == section]

    def summary_line(self) -> str:
        failing = sum(not r.passed for r in self.results)
        worst = min((r.holm_p for r in self.results if r.holm_p is not None), default=1.0)
        verdict = "PASSED" if self.passed else "FAILED"
        return (f"{verdict}: {len(self.results)} p-values, {failing} below 0.01 before correction, "
                f"smallest Holm-adjusted p {worst:.4g}; Dieharder "
                f"{len(self.dieharder_failed)} FAILED")

    def as_json(self) -> dict[str, Any]:
        return {
            "meta": self.meta, "passed": self.passed, "holm_passed": self.holm_passed,
            "nist_outside_section_4_2": self.nist_outside_range,
            "dieharder_failed": [r.name for r in self.dieharder_failed],
            "summary": self.summary_line(), "timings_seconds": self.timings, "throughput": self.throughput,
            "scaling": self.scaling, "seeding": self.seeding,
            "results": [r.as_json() for r in self.results], "nist": [s.as_json() for s in self.nist],
            "position_card_counts": None if self.counts is None else self.counts.position_card.tolist(),
        }


def _say(progress: Progress, message: str) -> None:
    if progress is not None:
        progress(message)


def build_metadata(settings: ReportSettings) -> dict[str, Any]:
    root = Path(__file__).resolve().parents[2]
    commit = _git(root, "rev-parse", "HEAD")
    dirty = _git(root, "status", "--porcelain", "--untracked-files=no")
    command = ["stud-service", "rng", "report", "--seed", settings.seeds.master.hex() if settings.seeds.master
               else "os", "--decks", str(settings.decks), "--nist-sequences", str(settings.nist_sequences),
               "--nist-bits", str(settings.nist_bits), "--dieharder", settings.dieharder]
    return {
        "generated": datetime.now(UTC).isoformat(timespec="seconds"),
        "build": {
            "stud_service_version": _version("stud-service"), "git_commit": commit or "unknown",
            "git_tree_modified": bool(dirty) if commit else None, "python": sys.version.split()[0],
            "numpy": np.__version__, "scipy": _version("scipy"), "platform": platform.platform(),
            "machine": platform.machine(),
        },
        "seeds": settings.seeds.describe(),
        "master_seed": settings.seeds.master.hex() if settings.seeds.master else None,
        "reproducible": settings.seeds.reproducible,
        "rerun": shlex.join(command) if settings.seeds.reproducible else None,
        "sizes": {"decks": settings.decks, "nist_sequences": settings.nist_sequences,
                  "nist_bits": settings.nist_bits, "dieharder": settings.dieharder,
                  "stream_bytes_per_seed": 32 * DEFAULT_BLOCKS_PER_SEED},
        "alpha": ALPHA,
    }


def _git(root: Path, *arguments: str) -> str:
    try:
        done = subprocess.run(["git", "-C", str(root), *arguments], capture_output=True, text=True,
                              timeout=20, check=False)
    except (OSError, subprocess.SubprocessError):
        return ""
    return done.stdout.strip() if done.returncode == 0 else ""


def _version(package: str) -> str:
    try:
        return metadata.version(package)
    except metadata.PackageNotFoundError:
        return "unknown"


def scaling_evidence(observed_rejections: int, decks: int) -> tuple[dict[str, Any], TestResult]:
    """§2.9's draw below n for every n a shuffle uses: how many of the 2^32 values are rejected and how many
    map to each result (all equal: no bias, by construction), and the rejections the run met against
    their expected number."""
    rows = []
    expected_per_deck = 0.0
    for n in range(2, 53):
        limit = (U32 // n) * n
        rejected = U32 - limit
        rows.append({"n": n, "limit": limit, "rejected_values": rejected, "values_per_result": limit // n,
                     "values_per_result_exact": limit % n == 0, "rejection_chance": rejected / U32})
        expected_per_deck += rejected / U32 / (1 - rejected / U32)  # expected redraws before acceptance
    expected = expected_per_deck * decks
    low = float(scipy_stats.poisson.cdf(observed_rejections, expected))
    high = float(scipy_stats.poisson.sf(observed_rejections - 1, expected))
    p_value = min(1.0, 2 * min(low, high))
    result = TestResult(
        "scaling", "rejections met while dealing",
        "two-sided Poisson test of the values rejected by the draws (§2.9) against their expected number",
        f"{decks:,} decks ({decks * DRAWS_PER_DECK:,} draws)", float(observed_rejections), p_value,
        detail={"observed": observed_rejections, "expected": expected})
    return {"draws": rows, "observed_rejections": observed_rejections, "expected_rejections": expected,
            "decks": decks}, result


def seeding_evidence(settings: ReportSettings, counts: CardCounts) -> dict[str, Any]:
    repeated = counts.repeated_prefixes()
    return {
        "entropy_source": "every hand's server seed is 32 bytes from secrets.token_bytes, the operating "
                          "system's CSPRNG (os.urandom: getrandom(2) on Linux), drawn when the hand's "
                          "commitment is made (stud_service.shuffle.new_server_seed)",
        "this_run": settings.seeds.describe(),
        "reseeding": "a new server seed for every hand; nothing of one hand's stream carries to the next",
        "period": "within a hand the stream is HMAC-SHA256 under the hand's seed over a 64-bit counter: a "
                  "hand reads about 7 of its 2^64 blocks, so it never wraps; across hands the seeds are "
                  "independent 256-bit values, and the chance that any two of H hands share one is below "
                  "H^2 / 2^257 (10^-50 for a trillion hands)",
        "repeated_first_ten_cards": repeated,
        "repeated_check": f"among the {counts.decks:,} decks, {repeated} pairs share their first ten cards "
                          f"(a perfect shuffle: about {counts.decks ** 2 / 2 / math.perm(52, 10):.2g})",
    }


def run_nist(settings: ReportSettings, progress: Progress) -> list[NistSummary]:
    seeder = settings.seeds.seeder(NIST_LABEL)
    blocks = -(-settings.nist_bits // 256)
    collected: dict[tuple[str, str], list[float]] = {}
    for index in range(settings.nist_sequences):
        bits = nist.bits_from_bytes(seed_stream_bytes(seeder(index), blocks))[: settings.nist_bits]
        for test in nist.NIST_TESTS:
            values = nist.run_test(test, bits)
            for part, value in zip(_nist_parts(test.name, len(values)), values, strict=True):
                collected.setdefault((test.name, part), []).append(value)
        if (index + 1) % 10 == 0:
            _say(progress, f"NIST SP 800-22: {index + 1} of {settings.nist_sequences} sequences")
    summaries = []
    for test in nist.NIST_TESTS:
        parts = [(part, values) for (name, part), values in collected.items() if name == test.name]
        if not parts:
            summaries.append(NistSummary(test.name, "not applicable to any sequence", [], 0))
        for part, values in parts:
            summaries.append(NistSummary(test.name, part, values, len(values)))
    return summaries


def _nist_parts(name: str, count: int) -> list[str]:
    if name == "Non-overlapping template matching":
        return ["".join(map(str, t)) for t in nist.aperiodic_templates(nist.NON_OVERLAPPING_M)]
    if name == "Cumulative sums":
        return ["forward", "backward"]
    if name == "Serial":
        return ["∇ψ²", "∇²ψ²"]
    if name == "Random excursions":
        return [f"x = {x:+d}" for x in nist.EXCURSION_STATES][:count]
    if name == "Random excursions variant":
        return [f"x = {x:+d}" for x in nist.VARIANT_STATES][:count]
    return [""] * count


def nist_range_chance(sequences: int, parts: int) -> dict[str, float]:
    """The chance that a perfect generator leaves §4.2.1's proportion range: for one test (its failures at
    1% are binomial) and for any of ``parts`` (taken as independent)."""
    low, _ = nist_proportion_range(sequences)
    most_failures = math.floor(sequences * (1 - low) + 1e-9)  # more than this many failing is out of range
    one = float(scipy_stats.binom.sf(most_failures, sequences, ALPHA))
    return {"sequences": sequences, "parts": parts, "one": one, "any": 1.0 - (1.0 - one) ** parts}


def nist_results(summaries: list[NistSummary], settings: ReportSettings) -> list[TestResult]:
    """Each NIST test as one result of the family. For every template or state of the test two p-values:
    the chance of at least as many sequences failing at 1% (binomial), and the uniformity P-value_T of the
    sequences' p-values (§4.2.2, from 55 sequences on); the result is the smallest of them all,
    Bonferroni-corrected over their number. (§4.2.1's 3-sigma proportion range, applied to each of the
    188 templates and states, is left by a perfect generator in most runs, ``nist_range_chance``: it is
    shown, and the verdict counts it this way.)"""
    out = []
    for test in nist.NIST_TESTS:
        parts = [s for s in summaries if s.test == test.name and s.p_values]
        if not parts:
            continue
        candidates = []  # (p-value, statistic, df, what, part)
        for part in parts:
            failures = sum(p < ALPHA for p in part.p_values)
            candidates.append((float(scipy_stats.binom.sf(failures - 1, len(part.p_values), ALPHA)),
                               float(failures), None, "sequences failing", part))
            if len(part.p_values) >= NIST_UNIFORMITY_MIN_SEQUENCES:
                statistic, p_t = part.uniformity
                candidates.append((p_t, statistic, 9, "uniformity", part))
        smallest, statistic, df, kind, worst = min(candidates, key=lambda c: c[0])
        out.append(TestResult(
            "nist", f"SP 800-22 §{test.section} {test.name}",
            "the smallest, over its templates/states, of the binomial tail of the sequences failing at 1% "
            "(statistic: how many failed) and the uniformity P-value_T (§4.2.2; statistic: chi-square, "
            "9 df), Bonferroni-corrected over them",
            f"{settings.nist_sequences} sequences of {settings.nist_bits:,} bits "
            f"({test.parameters or 'defaults'})",
            statistic, min(1.0, smallest * len(candidates)), df,
            detail={"parts": len(parts), "worst_part": worst.part, "worst_kind": kind,
                    "outside_proportion_range": sum(not s.passed for s in parts),
                    "lowest_proportion_passing": min(s.proportion for s in parts)}))
    return out


def _check_sampler(seeds: SeedSource, decks: int) -> None:
    seeder = seeds.seeder(DECK_LABEL)
    for index in range(decks):
        seed = seeder(index)
        if dealt_deck(seed)[0] != deck_order(seed, {}):
            raise AssertionError(f"the sampler's deck {index} differs from deck_order's")


def build_report(settings: ReportSettings, progress: Progress = None, jobs: int = 1,
                 deal: Deal = dealt_deck) -> Report:
    """Run everything ``settings`` asks; ``deal`` is the production shuffle unless a test passes a biased
    one (the known-bad controls)."""
    settings.check()
    report = Report(settings, meta=build_metadata(settings))
    dieharder_thread = _start_dieharder(settings, report, progress)
    started = time.monotonic()
    report.nist = run_nist(settings, progress)
    report.meta["nist_range_chance"] = nist_range_chance(
        settings.nist_sequences, sum(1 for summary in report.nist if summary.p_values))
    report.timings["nist"] = time.monotonic() - started

    started = time.monotonic()
    if settings.seeds.reproducible and deal is dealt_deck:
        _check_sampler(settings.seeds, min(CHECKED_DECKS, settings.decks))
    counts = CardCounts()
    for batch in batches(settings.seeds, settings.decks, settings.batch, jobs, deal):
        counts.add(batch)
        if counts.decks % max(settings.batch, settings.decks // 20) < settings.batch:
            _say(progress, f"cards: {counts.decks:,} of {settings.decks:,} decks "
                           f"({time.monotonic() - started:,.0f} s)")
    report.timings["decks"] = time.monotonic() - started
    report.counts = counts
    card_results = counts.results()
    report.scaling, rejection_result = scaling_evidence(counts.rejections, counts.decks)
    report.seeding = seeding_evidence(settings, counts)

    started = time.monotonic()
    # Timed on as many decks as the report tests, up to 20,000 per round: a small report stays quick.
    throughput = measure_throughput(settings.seeds, decks=min(settings.decks, THROUGHPUT_DECKS))
    report.throughput = {"decks": throughput.decks, "sampler_decks_per_second": throughput.ours_per_second,
                         "system_random_shuffle_per_second": throughput.system_random_per_second,
                         "ratio": throughput.ratio, "jobs": jobs,
                         "dealt_decks_per_second_in_run": counts.decks / max(1e-9, report.timings["decks"])}
    report.timings["throughput"] = time.monotonic() - started

    if dieharder_thread is not None:
        _say(progress, "waiting for dieharder")
        dieharder_thread.join()
        if isinstance(report.meta.get("dieharder_error"), str):
            raise ReportRefused(report.meta["dieharder_error"])
    report.results = (card_results + [rejection_result] + nist_results(report.nist, settings)
                      + dieharder.parse(report.dieharder_output))
    apply_holm(report.results)
    report.meta["p_value_uniformity"] = {
        section: dict(zip(("ks_distance", "p_value"), ks_uniform([r.p_value for r in rs]), strict=True))
        for section in ("cards", "dieharder") if (rs := report.section_results(section))
    }
    return report


def _start_dieharder(settings: ReportSettings, report: Report, progress: Progress) -> threading.Thread | None:
    log = settings.dieharder_log
    if log is not None:
        read_dieharder_log(log, settings.seeds, complete=False)  # refuse a wrong log now, not at the end

        def wait_for_log() -> None:
            try:
                report.dieharder_output = wait_for_dieharder_log(log, settings.seeds, progress)
            except ReportRefused as error:
                report.meta["dieharder_error"] = str(error)
                return
            report.meta["dieharder"] = {
                "source": f"the log of the same pipeline, run beside this report: {log.name}",
                "arguments": list(dieharder.FULL_RUN),
                "version": dieharder.version_of(report.dieharder_output)}

        thread = threading.Thread(target=wait_for_log, name="dieharder-log", daemon=True)
        thread.start()
        return thread
    if settings.dieharder == "skip":
        report.meta["dieharder"] = {"source": "not run (--dieharder skip)"}
        return None
    dieharder.dieharder_path()  # refuse now, not hours later

    def run() -> None:
        started = time.monotonic()
        try:
            outcome = dieharder.run_dieharder(settings.seeds.seeder(STREAM_LABEL))
        except ReportRefused as error:
            report.meta["dieharder_error"] = str(error)
            return
        report.dieharder_output = outcome.output
        report.timings["dieharder"] = time.monotonic() - started
        report.meta["dieharder"] = {"source": "run by this report", "arguments": list(outcome.arguments),
                                    "version": outcome.version, "stream_bytes_read": outcome.bytes_read}
        _say(progress, f"dieharder finished after {time.monotonic() - started:,.0f} s")

    _say(progress, "dieharder -a started on the stream (it runs longest)")
    thread = threading.Thread(target=run, name="dieharder", daemon=True)
    thread.start()
    return thread


_LOG_COMMAND = re.compile(
    r"^# command: .*rng stream --seed (?P<seed>[0-9a-f]{64}).*\| *dieharder (?P<args>.*)$", re.MULTILINE)


def read_dieharder_log(path: Path, seeds: SeedSource, complete: bool = True) -> str:
    """The output of ``stud-service rng stream --seed S | dieharder -a -g 200`` saved with a first line
    ``# command: <that pipeline>``; refused unless S is this report's master seed (and, if ``complete``,
    unless the run has reached the last test of ``-a``)."""
    text = path.read_text(encoding="utf-8", errors="replace")
    found = _LOG_COMMAND.search(text)
    if found is None or seeds.master is None or found.group("seed") != seeds.master.hex():
        raise ReportRefused(f"{path} is not a dieharder run of this report's stream: its first line must be "
                            "'# command: stud-service rng stream --seed <the report's seed> | "
                            "dieharder -a -g 200'")
    if found.group("args").split() != list(dieharder.FULL_RUN):
        raise ReportRefused(f"{path} is not a full run ('dieharder -a -g 200')")
    if complete and not dieharder.is_complete(text):
        raise ReportRefused(f"{path} holds no complete dieharder -a run")
    return text


DIEHARDER_LOG_POLL_SECONDS = 30.0
DIEHARDER_LOG_WAIT_SECONDS = 24 * 3600.0


def wait_for_dieharder_log(path: Path, seeds: SeedSource, progress: Progress,
                           timeout: float = DIEHARDER_LOG_WAIT_SECONDS) -> str:
    """``read_dieharder_log`` once the run writing ``path`` has finished (it may run beside the report)."""
    deadline = time.monotonic() + timeout
    announced = False
    while True:
        text = read_dieharder_log(path, seeds, complete=False)
        if dieharder.is_complete(text):
            return text
        if time.monotonic() > deadline:
            raise ReportRefused(f"the dieharder run writing {path} did not finish in {timeout:,.0f} s")
        if not announced:
            _say(progress, f"waiting for the dieharder run writing {path} to finish")
            announced = True
        time.sleep(DIEHARDER_LOG_POLL_SECONDS)


def write_report(settings: ReportSettings, out: Path, progress: Progress = None, jobs: int = 1,
                 deal: Deal = dealt_deck) -> Report:
    """Build the report and write it into ``out``: index.html, report.json, the PNG plots, dieharder.txt."""
    from stud_service.rng import html_report, plots

    started = time.monotonic()
    report = build_report(settings, progress, jobs, deal)
    report.timings["total"] = time.monotonic() - started
    out.mkdir(parents=True, exist_ok=True)
    figures = plots.write_plots(report, out)
    (out / "report.json").write_text(json.dumps(report.as_json(), indent=1, ensure_ascii=False) + "\n",
                                     encoding="utf-8")
    if report.dieharder_output:
        (out / "dieharder.txt").write_text(report.dieharder_output, encoding="utf-8")
    (out / "index.html").write_text(html_report.render(report, figures), encoding="utf-8")
    return report

