"""Collusion and chip-dumping evidence, from the log alone (docs/integrity.md).

Public API (import from ``stud_service.audit.integrity``)::

    report = await integrity_report(store, since=None, until=None)   (sessions: the log's by default)
                                          -> IntegrityReport(.pairs ranked, .flagged, .baselines, ...)
    tally = fold_rows(rows)               the pair statistics of (stream_id, version, payload) rows
    report = score_pairs(tally, sessions=None)
    report_json(report, top=None) -> dict           report_text(report, top=10) -> str
    write_plots(report, path, top=10)               (stud_service.audit.integrity.plots; matplotlib)

``fold`` counts (pure, fast), ``score`` turns the counts into z-scores against baselines from the same log
and ranks the pairs with their reasons, ``log`` reads the tables' streams, ``sessions`` the player sessions
(the same-network and same-device overlaps, through ``SessionOverlaps``), ``report`` and ``plots`` present.
"""

from stud_service.audit.integrity.fold import IntegrityFold, Tally, fold_rows
from stud_service.audit.integrity.log import integrity_report
from stud_service.audit.integrity.report import report_json, report_text
from stud_service.audit.integrity.score import (
    FLAG_SCORE,
    IntegrityReport,
    Overlap,
    PairFinding,
    SessionOverlaps,
    score_pairs,
)

__all__ = [
    "FLAG_SCORE", "IntegrityFold", "IntegrityReport", "Overlap", "PairFinding", "SessionOverlaps", "Tally",
    "fold_rows", "integrity_report", "report_json", "report_text", "score_pairs",
]
