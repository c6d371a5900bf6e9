"""The report's figures (matplotlib, the ``report`` extra): a heat map of the position × card deviations,
histograms of the p-values (flat under a perfect shuffle) and their QQ plots against the uniform."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

from stud_service.rng.settings import ReportRefused

if TYPE_CHECKING:
    from stud_service.rng.report import Report

DPI = 110


def _pyplot():  # noqa: ANN202 - matplotlib's module
    try:
        import matplotlib

        matplotlib.use("Agg")  # files only: no display
        import matplotlib.pyplot as plt
    except ImportError as error:
        raise ReportRefused("the report's plots need matplotlib: "
                            "pip install 'stud-service[report]'") from error
    return plt


def p_value_groups(report: Report) -> dict[str, np.ndarray]:
    """The p-values each plot shows: the card tests, NIST's per-sequence p-values, Dieharder's."""
    groups = {"cards": np.array([r.p_value for r in report.section_results("cards")])}
    nist_values = [p for summary in report.nist for p in summary.p_values]
    if nist_values:
        groups["NIST SP 800-22 (every sequence)"] = np.array(nist_values)
    dieharder_values = [r.p_value for r in report.section_results("dieharder")]
    if dieharder_values:
        groups["Dieharder"] = np.array(dieharder_values)
    return groups


def write_plots(report: Report, out: Path) -> dict[str, Path]:
    plt = _pyplot()
    figures: dict[str, Path] = {}
    counts = report.counts
    if counts is not None and counts.decks:
        expected = counts.decks / 52
        deviations = (counts.position_card - expected) / np.sqrt(expected * 51 / 52)
        figure, axes = plt.subplots(figsize=(8.6, 7.2))
        image = axes.imshow(deviations, cmap="RdBu_r", vmin=-4, vmax=4, origin="upper", aspect="equal")
        axes.set_xlabel("card (code: 0 = 2♣ … 51 = A♠)")
        axes.set_ylabel("deck position (0 = first card dealt)")
        axes.set_title(f"Position × card: (observed − expected) / σ over {counts.decks:,} decks\n"
                       f"largest |z| = {np.max(np.abs(deviations)):.2f} of 2,704 cells")
        figure.colorbar(image, ax=axes, label="standard deviations")
        figures["heatmap"] = _save(plt, figure, out / "position-card-heatmap.png")

    groups = p_value_groups(report)
    figure, axes = plt.subplots(1, len(groups), figsize=(4.6 * len(groups), 3.8), squeeze=False)
    for ax, (name, values) in zip(axes[0], groups.items(), strict=True):
        bins = 20 if len(values) >= 200 else 10
        ax.hist(values, bins=bins, range=(0, 1), color="#4c78a8", edgecolor="white")
        ax.axhline(len(values) / bins, color="black", linestyle="--", linewidth=1, label="uniform")
        ax.set_title(f"{name}: {len(values):,} p-values")
        ax.set_xlabel("p-value")
        ax.set_ylabel("count")
        ax.legend(loc="lower right")
    figure.suptitle("p-value histograms (flat for a perfect shuffle)")
    figures["histograms"] = _save(plt, figure, out / "p-value-histograms.png")

    figure, axes = plt.subplots(1, len(groups), figsize=(4.2 * len(groups), 4.2), squeeze=False)
    for ax, (name, values) in zip(axes[0], groups.items(), strict=True):
        ordered = np.sort(values)
        uniform = (np.arange(1, len(ordered) + 1) - 0.5) / len(ordered)
        ax.plot(uniform, ordered, ".", markersize=3, color="#4c78a8")
        ax.plot([0, 1], [0, 1], color="black", linewidth=1)
        ax.set_xlim(0, 1)
        ax.set_ylim(0, 1)
        ax.set_aspect("equal")
        ax.set_title(name)
        ax.set_xlabel("uniform quantile")
        ax.set_ylabel("observed p-value")
    figure.suptitle("QQ plots of the p-values against the uniform distribution")
    figures["qq"] = _save(plt, figure, out / "p-value-qq.png")
    return figures


def _save(plt, figure, path: Path) -> Path:  # noqa: ANN001 - matplotlib's types
    figure.tight_layout()
    # No timestamps in the PNG's metadata, so a rerun with the same seed writes the same bytes.
    figure.savefig(path, dpi=DPI, metadata={"Software": None})
    plt.close(figure)
    return path
