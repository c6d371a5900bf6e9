"""What ``stud-service audit integrity`` costs over a big log, and how well it finds the colluders.

The log: the seeded tables of ``tests/integrity_tables.py`` (a soft-play pair and a chip-dumping pair among
honest bots, every variant, played through the engine), then whole copies of them with every table and
player id suffixed, until ``--events`` events (default 1,000,000), copied into PostgreSQL with COPY and
hash-chained per stream (``benchmarks/bulk_log.py``; ``--database-url`` or ``$DATABASE_URL``, none: a
throwaway embedded PostgreSQL). ``integrity_report`` reads and scores it, best of 3: events in the log per
second against the goal of 100,000 per second, the ratio in the same run.

``--detection N`` (default 200) also plays N seeded runs of 200 hands per table and counts the runs whose two
top pairs are the colluders, and the other pairs flagged (score >= FLAG_SCORE): docs/integrity.md quotes them.

Run: ``.venv/bin/python benchmarks/bench_integrity.py [--events N] [--detection N] [--database-url URL]``.
"""

from __future__ import annotations

import argparse
import asyncio
import sys
import time
from pathlib import Path

import headline  # benchmarks/headline.py (the script's own folder is on sys.path)
from bulk_log import best_audit, replicated

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))
from integrity_tables import COLLUDING, collusion_tables, log_rows  # noqa: E402

from stud_service.audit.integrity import FLAG_SCORE, fold_rows, integrity_report, score_pairs  # noqa: E402
from stud_service.store import canonical_json  # noqa: E402

GOAL_EVENTS_PER_SECOND = 100_000
TEMPLATE_RUNS = 3  # seeded runs in the template (one of each variant), 300 hands per table
DETECTION_HANDS = 200


def big_log(events: int) -> list[tuple[str, int, str, str, int | None]]:
    tables = [table for seed in range(TEMPLATE_RUNS) for table in collusion_tables(seed, 300, prefix="bench")]
    template = [
        (stream, version, payload["type"], canonical_json(payload).decode(), payload.get("hand"))
        for stream, version, payload in log_rows(tables)
    ]
    names = {table.table_id for table in tables} | {
        seated.player_id for table in tables for seated in table.state.seats.values()
    }
    return replicated(template, events, names)


async def throughput(url: str | None, events: int) -> tuple[float, int, int, int]:
    best, report = await best_audit(url, big_log(events), integrity_report, "integrity")
    assert report is not None and report.pairs
    return best, report.events_in_log, report.events_read, report.hands


def detection(runs: int) -> tuple[int, int, int, int, int]:
    """(runs with the colluders on top, other pairs flagged, other pairs, pairs of two honest bots flagged,
    pairs of two honest bots)."""
    top = flagged = others = honest_flagged = honest = 0
    colluders = {player for pair in COLLUDING for player in pair}
    for seed in range(runs):
        report = score_pairs(fold_rows(log_rows(collusion_tables(seed, DETECTION_HANDS))))
        top += {(p.a, p.b) for p in report.pairs[:2]} == COLLUDING
        rest = [p for p in report.pairs if (p.a, p.b) not in COLLUDING]
        others += len(rest)
        flagged += sum(p.flagged for p in rest)
        pure = [p for p in rest if p.a not in colluders and p.b not in colluders]
        honest += len(pure)
        honest_flagged += sum(p.flagged for p in pure)
    return top, flagged, others, honest_flagged, honest


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--events", type=int, default=1_000_000, help="events in the log")
    parser.add_argument("--detection", type=int, default=200, help="seeded runs for the detection rates")
    parser.add_argument("--database-url", help="PostgreSQL URL (default: $DATABASE_URL or embedded)")
    args = parser.parse_args()
    started = time.perf_counter()
    top, flagged, others, honest_flagged, honest = detection(args.detection)
    print(f"detection: the colluders were the top two pairs in {top} of {args.detection} runs"
          f" ({top / args.detection:.1%}); other pairs flagged (score >= {FLAG_SCORE:g}):"
          f" {flagged} of {others}"
          f" ({flagged / others:.2%}); pairs of two honest bots flagged: {honest_flagged} of {honest}"
          f" ({honest_flagged / honest:.2%}); {time.perf_counter() - started:.0f} s")
    best, in_log, read, hands = asyncio.run(throughput(args.database_url, args.events))
    rate = in_log / best
    print(f"audit integrity: {in_log:,} events in the log ({read:,} read), {hands:,} hands, in {best:.2f} s:"
          f" {rate:,.0f} events/s; goal {GOAL_EVENTS_PER_SECOND:,}/s,"
          f" ratio {rate / GOAL_EVENTS_PER_SECOND:.2f}")
    headline.record(
        __file__,
        what=f"audit integrity over a {in_log:,}-event log of played tables (read, fold, score, rank);"
             f" colluders found in {top} of {args.detection} seeded runs,"
             f" honest pairs flagged {honest_flagged / honest:.1%}",
        figure=f"{rate:,.0f} events/s",
        peer=f"the goal: {GOAL_EVENTS_PER_SECOND:,} events/s",
        ratio=f"{rate / GOAL_EVENTS_PER_SECOND:.2f}×",
        goal=f"≥ {GOAL_EVENTS_PER_SECOND:,} events/s",
        met=rate >= GOAL_EVENTS_PER_SECOND,
    )


if __name__ == "__main__":
    main()
