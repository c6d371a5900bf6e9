"""Each benchmark's headline row, and the table of them in docs/benchmarks.md.

Every ``bench_*.py`` ends by calling :func:`record` with its headline: the figure, the peer or limit measured
in the same run, their ratio, the goal and whether it was met. The row is kept in ``benchmarks/results/`` (a
JSON file per row, committed: the figures of each one's last run) with the date and the command that made it.

    python benchmarks/headline.py            # print the table of every recorded row
    python benchmarks/headline.py --write    # ... and put it into docs/benchmarks.md, between its markers
    python benchmarks/headline.py --check    # exit 1 if docs/benchmarks.md's table is not the recorded one

``make bench`` runs every benchmark, then ``--write``: the document's table is always generated, never copied.
"""

from __future__ import annotations

import argparse
import datetime
import json
import re
import shlex
import sys
from dataclasses import asdict, dataclass
from pathlib import Path

BENCHMARKS = Path(__file__).resolve().parent
RESULTS = BENCHMARKS / "results"
DOC = BENCHMARKS.parent / "docs" / "benchmarks.md"
BEGIN = "<!-- benchmarks table: written by benchmarks/headline.py from benchmarks/results/ -->"
END = "<!-- end of benchmarks table -->"
COLUMNS = ("benchmark", "what", "figure", "peer or limit, same run", "ratio", "goal", "met", "date",
           "command")


@dataclass(frozen=True)
class Headline:
    benchmark: str  # the script's file name, and the part of it when it reports more than one row
    what: str  # what is measured, at what size
    figure: str  # the headline figure, with its unit
    peer: str  # the peer or limit measured in the same run, with its figure
    ratio: str  # figure against peer, as the benchmark states it
    goal: str  # "" when the benchmark has none
    met: bool | None  # None when there is no goal
    date: str  # of the run (UTC), YYYY-MM-DD
    command: str  # what reproduces it, from the repository's root

    def cells(self) -> tuple[str, ...]:
        met = "—" if self.met is None else ("✔" if self.met else "✘")
        return (f"`{self.benchmark}`", self.what, self.figure, self.peer, self.ratio, self.goal or "—", met,
                self.date, f"`{self.command}`")


def record(script: str, *, what: str, figure: str, peer: str, ratio: str, goal: str = "",
           met: bool | None = None, part: str = "", arguments: list[str] | None = None) -> Headline:
    """Keep the headline of the benchmark ``script`` (its ``__file__``) from this run, and print it.
    ``arguments``: the command's, when the run's own name something of this machine only (a server's URL)."""
    name = Path(script).name
    headline = Headline(
        benchmark=f"{name}, {part}" if part else name, what=what, figure=figure, peer=peer, ratio=ratio,
        goal=goal, met=met, date=datetime.datetime.now(datetime.UTC).date().isoformat(),
        command=shlex.join([".venv/bin/python", f"benchmarks/{name}",
                            *(sys.argv[1:] if arguments is None else arguments)]),
    )
    RESULTS.mkdir(exist_ok=True)
    path = RESULTS / f"{Path(name).stem}{'-' + slug(part) if part else ''}.json"
    path.write_text(json.dumps(asdict(headline), indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
    print(f"headline ({path.name}): {headline.figure} against {headline.peer}:"
          f" {headline.ratio}; goal {headline.goal or 'none'}: {headline.cells()[6]}")
    return headline


def slug(text: str) -> str:
    return re.sub(r"[^a-z0-9]+", "-", text.lower()).strip("-")


def recorded() -> list[Headline]:
    """Every kept row, in the order of the benchmarks' names."""
    rows = [Headline(**json.loads(path.read_text(encoding="utf-8"))) for path in RESULTS.glob("*.json")]
    return sorted(rows, key=lambda row: row.benchmark)


def table(rows: list[Headline]) -> str:
    def line(cells: tuple[str, ...]) -> str:
        return "| " + " | ".join(cell.replace("|", "\\|") for cell in cells) + " |"

    return "\n".join([line(COLUMNS), "|" + "---|" * len(COLUMNS), *(line(row.cells()) for row in rows)])


def with_table(document: str, rows: list[Headline]) -> str:
    before, begin, rest = document.partition(BEGIN)
    _old, end, after = rest.partition(END)
    if not begin or not end:
        raise SystemExit(f"{DOC} has no {BEGIN!r} ... {END!r} block")
    return f"{before}{BEGIN}\n{table(rows)}\n{END}{after}"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    action = parser.add_mutually_exclusive_group()
    action.add_argument("--write", action="store_true", help="also rewrite the table in docs/benchmarks.md")
    action.add_argument("--check", action="store_true", help="only check docs/benchmarks.md's table")
    args = parser.parse_args(argv)
    rows = recorded()
    current = DOC.read_text(encoding="utf-8")
    fresh = with_table(current, rows)
    if args.check:
        if fresh != current:
            print("docs/benchmarks.md's table is not the recorded one: run benchmarks/headline.py --write",
                  file=sys.stderr)
            return 1
        return 0
    print(table(rows))
    if args.write and fresh != current:
        DOC.write_text(fresh, encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
