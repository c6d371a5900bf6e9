"""The integrity report as JSON and as text for a person (docs/integrity.md says how to read both)."""

from __future__ import annotations

from dataclasses import asdict
from typing import Any

from stud_service.audit.integrity.score import FLAG_SCORE, IntegrityReport, PairFinding


def _rounded(value: float | None, places: int = 2) -> float | None:
    return None if value is None else round(value, places)


def pair_json(pair: PairFinding) -> dict[str, Any]:
    return {
        "players": [pair.a, pair.b],
        "hands": pair.hands,
        "score": _rounded(pair.score),
        "flagged": pair.flagged,
        "reasons": list(pair.reasons),
        "chip_flow": {
            "from": pair.giver, "to": pair.receiver, "net": round(abs(pair.flow)),
            "a_to_b": round(pair.a_to_b), "b_to_a": round(pair.b_to_a),
            "at_showdown": round(abs(pair.showdown_flow)),
            "expected": round(pair.flow_expected if pair.flow >= 0 else -pair.flow_expected),
            "z": _rounded(pair.flow_z),
        },
        "soft_play": [{**asdict(soft), "z": _rounded(soft.z)} for soft in pair.soft_play],
        "heads_up": {"rounds": pair.heads_up_rounds, "checked": pair.heads_up_checked,
                     "z": _rounded(pair.check_down_z)},
        "raise_wars": {"count": pair.raise_wars, "three_way_rounds": pair.three_way_rounds,
                       "expected": _rounded(pair.raise_wars_expected), "z": _rounded(pair.raise_wars_z)},
        "timing": [
            {"actor": t.actor, "bettor": t.bettor, "mean_ms": _rounded(t.mean_ms, 0),
             "others_mean_ms": _rounded(t.others_mean_ms, 0), "actions": t.actions, "z": _rounded(t.z)}
            for t in pair.timing
        ],
        "sessions": None if pair.overlap is None else asdict(pair.overlap),
    }


def report_json(report: IntegrityReport, top: int | None = None) -> dict[str, Any]:
    """The whole report (``top``: only the highest-scoring pairs)."""
    pairs = report.pairs if top is None else report.pairs[:top]
    return {
        "events_in_log": report.events_in_log,
        "events_read": report.events_read,
        "hands": report.hands,
        "tables": report.tables,
        "players": report.players,
        "pairs_total": len(report.pairs),
        "pairs_flagged": len(report.flagged),
        "flag_score": FLAG_SCORE,
        "sessions_recorded": report.sessions_recorded,
        "baselines": {
            "heads_up_checked_rate": _rounded(report.baselines.heads_up_checked_rate, 4),
            "raise_wars_per_round": _rounded(report.baselines.raise_wars_per_round, 4),
        },
        "pairs": [pair_json(pair) for pair in pairs],
        "malformed": [{"stream": s, "version": v, "message": m} for s, v, m in report.malformed],
    }


def report_text(report: IntegrityReport, top: int = 10) -> str:
    """The top pairs with their reasons, for a person."""
    sessions = "sessions: recorded" if report.sessions_recorded else (
        "sessions: none recorded yet (no same-network or same-device evidence)")
    lines = [
        f"integrity: {report.hands} hands at {report.tables} tables, {report.players} players,"
        f" {len(report.pairs)} pairs; {report.events_read} events read of {report.events_in_log} in the log",
        f"{len(report.flagged)} pairs flagged (score >= {FLAG_SCORE}); {sessions}",
        f"baselines: nobody bet in {report.baselines.heads_up_checked_rate:.0%} of heads-up rounds;"
        f" {report.baselines.raise_wars_per_round:.2%} of three-way rounds held a raise war per pair",
        "",
    ]
    for rank, pair in enumerate(report.pairs[:top], start=1):
        mark = "FLAGGED" if pair.flagged else "ok"
        lines.append(
            f"{rank:>3}. {pair.a} & {pair.b}: score {pair.score:.1f} ({mark}), {pair.hands} hands together"
        )
        lines.extend(f"       - {reason}" for reason in pair.reasons)
        if not pair.reasons:
            lines.append("       - nothing past the reason threshold")
    for stream, version, message in report.malformed:
        lines.append(f"SKIPPED {stream} version {version}: {message}")
    return "\n".join(lines) + "\n"
