"""The report as one self-contained HTML page: the verdict, the summary table, each section's method and
results, and the plots embedded (base64 PNG), so the page can be mailed or archived alone."""

from __future__ import annotations

import base64
from collections import defaultdict
from html import escape
from pathlib import Path
from typing import TYPE_CHECKING

from stud_service.rng.settings import ALPHA

if TYPE_CHECKING:
    from stud_service.rng.report import Report
    from stud_service.rng.stats import TestResult

STYLE = """
body { font-family: system-ui, sans-serif; max-width: 1100px; margin: 2em auto; padding: 0 1em; color: #222; }
table { border-collapse: collapse; margin: 0.5em 0 1.5em; font-size: 0.9em; }
th, td { border: 1px solid #ccc; padding: 0.25em 0.5em; text-align: left; vertical-align: top; }
th { background: #f2f2f2; } td.num { text-align: right; font-variant-numeric: tabular-nums; }
.pass { color: #1a7f37; font-weight: 600; } .fail { color: #cf222e; font-weight: 600; }
.weak { color: #9a6700; font-weight: 600; }
code { background: #f6f8fa; padding: 0 0.2em; } img { max-width: 100%; }
details { margin: 0.5em 0 1em; } summary { cursor: pointer; font-weight: 600; }
"""

METHODS = {
    "stream": (
        "The raw stream is the production one: blocks HMAC-SHA256(server_seed, M || u64be(k)) for k = 0, 1,"
        " … (docs/fairness.md §2.8), with no client seeds (M empty; a client seed changes only the "
        "message). Each seed's stream is read from k = 0 for 2 MiB, then the next seed's follows. Seeds are"
        " those of the run (see Seeding)."),
    "dieharder": (
        "Debian's dieharder, every test at its default sizes (<code>dieharder -a -g 200</code>), reading "
        "the stream as raw 32-bit words from standard input. Each p-value is dieharder's Kolmogorov–Smirnov"
        " test of its psamples p-values. Dieharder's own assessment is shown beside: FAILED below 10⁻⁶ or "
        "above 1 − 10⁻⁶, WEAK below 0.005 or above 0.995 (about one test in a hundred is WEAK by chance)."),
    "nist": (
        "NIST SP 800-22 Rev. 1a's fifteen tests, written from the publication (no maintained implementation"
        " is on PyPI) and checked against its worked examples and Appendix B's results for the binary "
        "digits of e. Sequences are successive seeds' streams. §4.2's two criteria are shown for each test,"
        " template and state: the proportion of sequences passing at 1% within p̂ ± 3√(p̂(1−p̂)/m), and the"
        " p-values uniform (chi-square over 10 bins, P-value_T ≥ 0.0001, from 55 sequences on). Each range "
        "is three standard deviations wide, and there are 188 templates and states: {range_chance} So the "
        "verdict takes, for each test, the smallest of the binomial tail of its failing sequences and its "
        "P-value_T over its templates/states, Bonferroni-corrected, into the Holm family. The Linear "
        "complexity test uses the publication's π₀ = 1/96 (the reference program has 0.01047)."),
    "cards": (
        "Decks are dealt by the production shuffle (stud_service.shuffle: the seed's HMAC stream, rejection"
        " sampling and Fisher–Yates), with the values each draw rejected counted on the way; the first "
        "10,000 decks of a reproducible run are also dealt by <code>deck_order</code> itself and must "
        "agree. Every test is Pearson's chi-square against the exact expectation of a perfect shuffle; "
        "where a statistic pools cards drawn from one deck without replacement it is scaled by its exact "
        "variance (the method column says how). Which positions a player receives, face up or down, is read"
        " from the engine dealing a hand that every player plays to seventh street (8 players: seventh "
        "street is one community card). Bring-in chances are exact (fractions), from the C core's door-card"
        " strengths; the first 2,000 decks' bring-ins are also asked of the engine's rule."),
    "scaling": (
        "A draw below n (§2.9) keeps x < limit = ⌊2³²/n⌋·n and returns x mod n: each result is then hit by "
        "exactly limit/n of the kept values, so the draw has no bias at all, by construction; the table "
        "shows the counts for every n a shuffle uses. The values rejected while dealing are counted and "
        "compared with their expected number."),
}


def _p(value: float | None) -> str:
    if value is None:
        return "—"
    return f"{value:.3g}" if value >= 1e-4 else f"{value:.2e}"


def _statistic(value: float) -> str:
    return "—" if value != value else f"{value:,.4g}"  # NaN: dieharder reports no statistic


def _verdict(passed: bool) -> str:
    return '<span class="pass">pass</span>' if passed else '<span class="fail">fail</span>'


def _own(verdict: str | None) -> str:
    if verdict is None:
        return ""
    css = {"PASSED": "pass", "WEAK": "weak", "FAILED": "fail"}.get(verdict, "")
    return f'<span class="{css}">{escape(verdict)}</span>'


def _results_table(results: list[TestResult], own: bool = False) -> str:
    own_head = "<th>dieharder</th>" if own else ""
    head = ("<tr><th>test</th><th>statistic</th><th>df</th><th>p-value</th><th>Holm-adjusted</th>"
            f"<th>verdict at 99%</th>{own_head}<th>sample</th><th>method</th></tr>")
    rows = []
    for r in results:
        rows.append(
            f"<tr><td>{escape(r.name)}</td><td class=num>{_statistic(r.statistic)}</td>"
            f"<td class=num>{'' if r.df is None else r.df}</td><td class=num>{_p(r.p_value)}</td>"
            f"<td class=num>{_p(r.holm_p)}</td><td>{_verdict(r.passed)}</td>"
            f"{f'<td>{_own(r.own_verdict)}</td>' if own else ''}<td>{escape(r.sample)}</td>"
            f"<td>{escape(r.method)}</td></tr>")
    return f"<table>{head}{''.join(rows)}</table>"


def _table(headers: tuple[str, ...], rows: list[str]) -> str:
    head = "".join(f"<th>{escape(header)}</th>" for header in headers)
    return f"<table><tr>{head}</tr>{''.join(rows)}</table>"


def _family(result: TestResult) -> str:
    family = result.detail.get("family")
    if result.section == "dieharder":
        return "dieharder"
    return f"{result.section}: {family}" if family else f"{result.section}: {result.name}"


def _summary_table(report: Report) -> str:
    groups: dict[str, list[TestResult]] = defaultdict(list)
    for result in report.results:
        groups[_family(result)].append(result)
    rows = []
    for name, results in groups.items():
        worst = min(results, key=lambda r: r.p_value)
        holm_ok = all(r.holm_p is None or r.holm_p >= ALPHA for r in results)
        label = escape(worst.name if len(results) == 1 else f"{name} ({len(results)} tests)")
        rows.append(
            f"<tr><td>{label}</td><td class=num>{_statistic(worst.statistic)}</td>"
            f"<td class=num>{_p(worst.p_value)}</td><td class=num>{sum(not r.passed for r in results)}</td>"
            f"<td class=num>{_p(min(r.holm_p or 1.0 for r in results))}</td>"
            f"<td>{_verdict(holm_ok)}</td></tr>")
    return _table(("test", "statistic (smallest p)", "p-value (smallest)", "below 0.01", "Holm-adjusted",
                   "verdict at 99%"), rows)


def _nist_table(report: Report) -> str:
    rows = []
    names = list(dict.fromkeys(s.test for s in report.nist))
    for name in names:
        parts = [s for s in report.nist if s.test == name]
        usable = [s for s in parts if s.p_values]
        if not usable:
            rows.append(f"<tr><td>{escape(name)}</td><td colspan=5>not applicable to any sequence</td></tr>")
            continue
        worst = min(usable, key=lambda s: s.uniformity[1])
        low, high = worst.proportion_range
        rows.append(
            f"<tr><td>{escape(name)}</td><td class=num>{len(usable)}</td>"
            f"<td class=num>{min(s.sequences for s in usable)}–{max(s.sequences for s in usable)}</td>"
            f"<td class=num>{min(s.proportion for s in usable):.3f} (range {low:.3f}–{high:.3f})</td>"
            f"<td class=num>{_p(worst.uniformity[1])} ({escape(worst.part) or 'the test'})</td>"
            f"<td class=num>{sum(not s.passed for s in usable)}</td></tr>")
    return _table(("test", "p-values per sequence", "sequences applied", "lowest proportion passing",
                   "smallest P-value_T", "outside §4.2"), rows)


def _scaling_table(report: Report) -> str:
    rows = "".join(
        f"<tr><td class=num>{row['n']}</td><td class=num>{row['limit']:,}</td>"
        f"<td class=num>{row['rejected_values']:,}</td><td class=num>{row['values_per_result']:,}</td>"
        f"<td class=num>{row['rejection_chance']:.3g}</td></tr>" for row in report.scaling.get("draws", []))
    return _table(("n", "limit", "values rejected (of 2³²)", "kept values per result",
                   "chance of a rejection"), [rows])


def _image(path: Path, alt: str) -> str:
    data = base64.b64encode(path.read_bytes()).decode("ascii")
    return f'<p><img alt="{escape(alt)}" src="data:image/png;base64,{data}"></p>'


def render(report: Report, figures: dict[str, Path]) -> str:
    meta = report.meta
    build = meta["build"]
    sizes = meta["sizes"]
    rerun = (f"<code>{escape(meta['rerun'])}</code>" if meta["rerun"]
             else "not reproducible: seeds from the CSPRNG")
    verdict = '<span class="pass">PASSED</span>' if report.passed else '<span class="fail">FAILED</span>'
    parts = [
        "<!doctype html><html lang=en><head><meta charset=utf-8>",
        "<title>stud-service: randomness of the shuffle</title>", f"<style>{STYLE}</style></head><body>",
        "<h1>Randomness of the shuffle: test report</h1>",
        f"<p><strong>Verdict: {verdict}</strong> — {escape(report.summary_line())}.</p>",
        "<p>The report passes when every p-value passes after Holm's step-down correction over all of them "
        "(family-wise error 1%) and Dieharder assessed no test FAILED. "
        "The verdict at 99% beside each test is its own p-value against 0.01: about one test in a hundred "
        "fails that by chance.</p>",
        "<h2>Run</h2><table>",
        f"<tr><th>build</th><td>stud-service {escape(build['stud_service_version'])}, commit "
        f"<code>{escape(build['git_commit'])}</code>"
        f"{' (with local changes)' if build['git_tree_modified'] else ''}; Python {escape(build['python'])}, "
        f"numpy {escape(build['numpy'])}, scipy {escape(build['scipy'])}; "
        f"{escape(build['platform'])}</td></tr>",
        f"<tr><th>generated</th><td>{escape(meta['generated'])}</td></tr>",
        f"<tr><th>seeds</th><td>{escape(meta['seeds'])}</td></tr>",
        f"<tr><th>rerun</th><td>{rerun}</td></tr>",
        f"<tr><th>sizes</th><td>{sizes['decks']:,} decks; {sizes['nist_sequences']} NIST sequences of "
        f"{sizes['nist_bits']:,} bits; Dieharder: "
        f"{escape(meta.get('dieharder', {}).get('source', ''))}</td></tr>",
        "<tr><th>time</th><td>" + ", ".join(f"{escape(k)} {v:,.0f} s" for k, v in report.timings.items())
        + "</td></tr>",
        "<tr><th>sampler</th><td>" + (
            f"{report.throughput['sampler_decks_per_second']:,.0f} decks/s against "
            "<code>random.SystemRandom().shuffle</code>'s "
            f"{report.throughput['system_random_shuffle_per_second']:,.0f}"
            f" in the same run, one process: {report.throughput['ratio']:.2f}×" if report.throughput else "—")
        + "</td></tr></table>",
        "<h2>Summary</h2>", _summary_table(report),
    ]
    if "heatmap" in figures:
        parts.append(_image(figures["heatmap"], "position × card deviations"))
    parts += [_image(figures["histograms"], "p-value histograms"), _image(figures["qq"], "QQ plots")]
    uniformity = meta.get("p_value_uniformity", {})
    if uniformity:
        parts.append("<p>Kolmogorov–Smirnov test of each group's p-values against the uniform: " + "; ".join(
            f"{escape(k)}: D = {v['ks_distance']:.4f}, p = {_p(v['p_value'])}" for k, v in uniformity.items())
            + ".</p>")
    parts += [
        "<h2>The raw stream</h2>", f"<p>{METHODS['stream']}</p>",
        "<h3>Dieharder</h3>", f"<p>{METHODS['dieharder']}</p>",
    ]
    dieharder_results = report.section_results("dieharder")
    parts.append(_results_table(dieharder_results, own=True) if dieharder_results else
                 f"<p>{escape(meta.get('dieharder', {}).get('source', 'not run'))}.</p>")
    chance = meta.get("nist_range_chance")
    range_chance = (f"at {chance['sequences']} sequences a perfect generator leaves at least one of them "
                    f"in {100 * chance['any']:.0f}% of runs ({100 * chance['one']:.2f}% for each)."
                    if chance else "")
    parts += ["<h3>NIST SP 800-22</h3>", f"<p>{METHODS['nist'].format(range_chance=range_chance)}</p>",
              _nist_table(report),
              _results_table(report.section_results("nist")),
              "<h2>The cards dealt</h2>", f"<p>{METHODS['cards']}</p>",
              _results_table(report.section_results("cards")),
              "<h2>Scaling and seeding</h2>", f"<p>{METHODS['scaling']}</p>",
              _results_table(report.section_results("scaling")),
              f"<p>Rejections while dealing: {report.scaling.get('observed_rejections', 0):,} observed, "
              f"{report.scaling.get('expected_rejections', 0.0):.2f} expected.</p>",
              "<details><summary>Every draw size</summary>", _scaling_table(report), "</details>",
              "<table>"]
    for key, value in report.seeding.items():
        parts.append(f"<tr><th>{escape(key.replace('_', ' '))}</th><td>{escape(str(value))}</td></tr>")
    parts += ["</table>", "</body></html>"]
    return "\n".join(parts) + "\n"
