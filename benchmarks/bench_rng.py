"""The randomness report's deal sampler against the standard library's shuffle, and the 10-million-deck run.

The sampler (``stud_service.rng.decks.dealt_deck``) deals a deck exactly as a hand is dealt: the seed's
HMAC-SHA256 stream, rejection sampling and Fisher–Yates (``stud_service.shuffle``), with the seed itself
derived by HMAC as a reproducible report derives it. The peer is ``random.SystemRandom().shuffle`` of a
52-card list, the standard library's shuffle on the OS CSPRNG, timed in the same process and alternated
with ours, best of each. Goal: at least as many decks a second as the peer.

The second figure is read, not measured here: the time the committed report (docs/rng/report.json) took to
deal and count its decks, and to run the whole report.

    .venv/bin/python benchmarks/bench_rng.py [--decks 20000] [--rounds 3]
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

import headline  # benchmarks/headline.py: the script's own folder is on sys.path

from stud_service.rng.decks import measure_throughput
from stud_service.rng.seeds import SeedSource

REPORT = Path(__file__).resolve().parent.parent / "docs" / "rng" / "report.json"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--decks", type=int, default=20_000, help="decks per timing round")
    parser.add_argument("--rounds", type=int, default=3, help="rounds, alternating ours and the peer")
    args = parser.parse_args()
    measured = measure_throughput(SeedSource(bytes(32)), args.decks, args.rounds)
    print(f"sampler: {measured.ours_per_second:,.0f} decks/s; random.SystemRandom().shuffle: "
          f"{measured.system_random_per_second:,.0f} decks/s; ratio {measured.ratio:.2f}×")
    run = ""
    if REPORT.is_file():
        report = json.loads(REPORT.read_text(encoding="utf-8"))
        timings, sizes = report["timings_seconds"], report["meta"]["sizes"]
        jobs = report["throughput"].get("jobs", 1)
        dieharder = ("" if "dieharder" in timings
                     else " (Dieharder's battery ran beside it, from its own log: not counted)")
        run = (f"; the committed report's {sizes['decks']:,} decks: {timings['decks'] / 60:,.1f} min "
               f"({jobs} processes), the whole report {timings['total'] / 60:,.0f} min{dieharder}")
        print(run[2:])
    headline.record(
        __file__,
        what="decks dealt by the report's sampler (the production shuffle, seed derivation included), one "
             f"process, best of {args.rounds} rounds of {args.decks:,}{run}",
        figure=f"{measured.ours_per_second:,.0f} decks/s",
        peer=f"random.SystemRandom().shuffle of 52 cards: {measured.system_random_per_second:,.0f} decks/s",
        ratio=f"{measured.ratio:.2f}×",
        goal="≥ 1× the peer",
        met=measured.ratio >= 1.0,
    )


if __name__ == "__main__":
    main()
