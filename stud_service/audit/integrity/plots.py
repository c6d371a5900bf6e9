"""The report's plots of the top pairs (matplotlib: the ``report`` extra, ``stud-service[report]``).

One PNG, three panels, a row per pair, highest score at the top:

- what makes up each pair's score (each statistic's squared z-score, stacked);
- the net chips that moved between them, against what their play with everyone else predicts;
- how often each folded to the other's bets with the better up cards, against how often they folded so to
  everyone else.
"""

from __future__ import annotations

from pathlib import Path

from stud_service.audit.integrity.score import FLAG_SCORE, IntegrityReport

PARTS = (("chip flow", "flow_z"), ("soft play", "soft_play_z"), ("check-down", "check_down_z"),
         ("raise wars", "raise_wars_z"))


class PlotsUnavailable(RuntimeError):
    """matplotlib is not installed."""


def write_plots(report: IntegrityReport, path: Path, top: int = 10) -> Path:
    """Draw the ``top`` pairs of ``report`` into the PNG ``path``; PlotsUnavailable without matplotlib."""
    try:
        import matplotlib

        matplotlib.use("Agg")  # files only: no display
        import matplotlib.pyplot as plt
    except ImportError as error:
        raise PlotsUnavailable("the plots need matplotlib: pip install 'stud-service[report]'") from error
    pairs = list(reversed(report.pairs[:top]))  # barh draws bottom up
    labels = [f"{p.a} & {p.b}" for p in pairs]
    rows = range(len(pairs))
    figure, (scores, flows, folds) = plt.subplots(1, 3, figsize=(16, 1.2 + 0.55 * max(1, len(pairs))),
                                                  sharey=True)
    left = [0.0] * len(pairs)
    for name, attribute in PARTS:
        squares = [max(0.0, getattr(p, attribute)) ** 2 for p in pairs]
        scores.barh(rows, squares, left=left, label=name)
        left = [a + b for a, b in zip(left, squares, strict=True)]
    scores.axvline(FLAG_SCORE**2, color="black", linestyle="--", linewidth=1, label=f"flag ({FLAG_SCORE:g}²)")
    scores.set_yticks(list(rows), labels)
    scores.set_xlabel("score² (sum of squared z-scores)")
    scores.set_title("what the score is made of")
    scores.legend(loc="lower right", fontsize="small")
    flows.barh([r + 0.2 for r in rows], [abs(p.flow) for p in pairs], height=0.4, label="net flow")
    flows.barh([r - 0.2 for r in rows], [p.flow_expected if p.flow >= 0 else -p.flow_expected for p in pairs],
               height=0.4, label="predicted by their play with others")
    for row, pair in zip(rows, pairs, strict=True):
        flows.annotate(f"{pair.giver} → {pair.receiver}", (0, row + 0.2), fontsize="x-small", va="center")
    flows.set_xlabel("chips")
    flows.set_title("chips from one to the other")
    flows.legend(loc="lower right", fontsize="small")
    for row, pair in zip(rows, pairs, strict=True):
        for offset, soft in ((0.2, pair.soft_play[0]), (-0.2, pair.soft_play[1])):
            to_them = soft.folds_better / soft.faced_better if soft.faced_better else 0.0
            others = (soft.actor_others_folds_better / soft.actor_others_faced_better
                      if soft.actor_others_faced_better else 0.0)
            folds.barh(row + offset, to_them, height=0.35, color="tab:red")
            folds.plot([others], [row + offset], marker="|", color="black", markersize=12)
            folds.annotate(soft.actor, (0, row + offset), fontsize="x-small", va="center")
    folds.set_xlim(0, 1)
    folds.set_xlabel("folds with the better up cards (bar: to the other; |: to others)")
    folds.set_title("folding to the other's bets")
    figure.suptitle(f"integrity: top {len(pairs)} of {len(report.pairs)} pairs, {report.hands} hands")
    figure.tight_layout()
    path.parent.mkdir(parents=True, exist_ok=True)
    figure.savefig(path, dpi=110)
    plt.close(figure)
    return path
