"""docs/benchmarks.md has one current row per benchmark, generated from the benchmarks' own runs.

Every ``benchmarks/bench_*.py`` ends by recording its headline through ``benchmarks/headline.py``; the
recorded rows (``benchmarks/results/``) are what the document's table shows, never a copy made by hand.
"""

from __future__ import annotations

import ast
import importlib.util
import json
import subprocess
import sys
from pathlib import Path
from types import ModuleType

import pytest

ROOT = Path(__file__).resolve().parent.parent
BENCHMARKS = ROOT / "benchmarks"
DOC = ROOT / "docs" / "benchmarks.md"
SCRIPTS = sorted(BENCHMARKS.glob("bench_*.py"))


def _headline() -> ModuleType:
    spec = importlib.util.spec_from_file_location("headline", BENCHMARKS / "headline.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules["headline"] = module  # its dataclass looks its module up while it is built
    spec.loader.exec_module(module)
    return module


headline = _headline()


def _table_rows() -> list[str]:
    document = DOC.read_text(encoding="utf-8")
    table = document[document.index(headline.BEGIN):document.index(headline.END)]
    return [line for line in table.splitlines() if line.startswith("| `")]


def _calls_record(script: Path) -> bool:
    for node in ast.walk(ast.parse(script.read_text(encoding="utf-8"))):
        if (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "record"
                and isinstance(node.func.value, ast.Name) and node.func.value.id == "headline"):
            return True
    return False


def test_there_are_benchmarks() -> None:
    assert len(SCRIPTS) >= 10


@pytest.mark.parametrize("script", SCRIPTS, ids=lambda script: script.name)
def test_every_benchmark_records_its_headline(script: Path) -> None:
    assert _calls_record(script), f"{script.name} does not call headline.record(...) at its end"


@pytest.mark.parametrize("script", SCRIPTS, ids=lambda script: script.name)
def test_every_benchmark_has_a_row_and_a_paragraph(script: Path) -> None:
    rows = [row for row in _table_rows() if row.startswith(f"| `{script.name}")]
    assert rows, f"docs/benchmarks.md has no row for {script.name}: run it, then headline.py --write"
    paragraph = f"### `{script.name}`"
    assert paragraph in DOC.read_text(encoding="utf-8"), f"no paragraph on what bounds {script.name}"


def test_the_table_is_the_recorded_one() -> None:
    result = subprocess.run([sys.executable, str(BENCHMARKS / "headline.py"), "--check"],
                            capture_output=True, text=True, timeout=60)
    assert result.returncode == 0, result.stderr
    recorded = {row.benchmark for row in headline.recorded()}
    assert {path.name for path in SCRIPTS} <= {name.split(",")[0] for name in recorded}


def test_the_service_benchmark_has_its_history_soak_row() -> None:
    assert any(row.startswith("| `bench_service.py, history soak`") for row in _table_rows())


def test_the_human_pace_row_is_measured_against_the_floor() -> None:
    """Issue 34's goal 2: the service's actions served and Act p99 at a human pace are ratios to the
    bare-gRPC floor's, from runs alternating in the same run (not to a health check on the service's own
    connections)."""
    row = next(row for row in headline.recorded() if row.benchmark == "bench_human_pace.py")
    assert row.peer.startswith("the bare-gRPC floor"), row.peer
    assert "floor's actions" in row.ratio and "p99" in row.ratio, row.ratio
    assert "pairs alternating" in row.what, row.what


def test_a_recorded_headline_becomes_a_row(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """What a benchmark hands to ``record`` is kept with the date and the command, and drawn as one row."""
    monkeypatch.setattr(headline, "RESULTS", tmp_path)
    monkeypatch.setattr(sys, "argv", ["bench_example.py", "--tables", "8"])
    kept = headline.record(str(BENCHMARKS / "bench_example.py"), part="Soak", what="a | b", figure="5/s",
                           peer="pgbench: 10 tps", ratio="0.50×", goal="≥ 0.5×", met=True)
    stored = json.loads((tmp_path / "bench_example-soak.json").read_text(encoding="utf-8"))
    assert stored["command"] == ".venv/bin/python benchmarks/bench_example.py --tables 8"
    assert stored["benchmark"] == "bench_example.py, Soak" and len(stored["date"]) == 10
    (row,) = headline.recorded()
    assert row == kept
    line = headline.table([row]).splitlines()[-1]
    assert line.startswith("| `bench_example.py, Soak` | a \\| b | 5/s | pgbench: 10 tps | 0.50× | ≥ 0.5×"
                           " | ✔ | 20")
    assert line.endswith("| `.venv/bin/python benchmarks/bench_example.py --tables 8` |")


def test_the_readme_summarises_and_links_the_benchmarks() -> None:
    assert "(docs/benchmarks.md)" in (ROOT / "README.md").read_text(encoding="utf-8")
