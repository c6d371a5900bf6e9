"""Dieharder on the stream, small: the report's pipeline (``rng.dieharder.run_dieharder``: the stream written
into dieharder's standard input, its table read back) on two quick tests at reduced sizes. The production
stream passes them; two known-bad streams fail them, so the run can fail. The full ``-a`` battery takes
hours and belongs to ``make rng-report`` (docs/rng.md), not to the suite.

Dieharder is Debian's package: installed with apt-get when missing and the tests run as root, otherwise
the tests fail saying what to install (``debian_packages``)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import BinaryIO

import numpy as np
import pytest
from debian_packages import install_debian_package

from stud_service.rng.dieharder import parse, run_dieharder
from stud_service.rng.seeds import STREAM_LABEL, SeedSource
from stud_service.rng.stream import stream_chunks, write_stream

SEEDER = SeedSource(bytes(range(32))).seeder(STREAM_LABEL)
# sts_monobit and diehard_runs, 20 p-samples of 20,000 words each: about a second apiece.
QUICK = (("-g", "200", "-d", "100", "-p", "20", "-t", "20000"),
         ("-g", "200", "-d", "15", "-p", "20", "-t", "20000"))


@pytest.fixture(scope="module", autouse=True)
def dieharder_installed() -> Path:
    return install_debian_package("dieharder", Path("/usr/bin/dieharder"))


def _words_rewritten(rewrite: Callable[[np.ndarray], np.ndarray]) -> Callable[[BinaryIO, Callable], int]:
    """A source for ``run_dieharder``: the production stream, each chunk's 32-bit words rewritten."""
    def source(out: BinaryIO, seeder: Callable[[int], bytes]) -> int:
        written = 0
        try:
            for chunk in stream_chunks(seeder, 1 << 14, threads=1):
                words = rewrite(np.frombuffer(chunk, dtype=">u4"))
                out.write(words.astype(">u4").tobytes())
                written += 4 * len(words)
        except (BrokenPipeError, ValueError):  # dieharder has read enough and closed the pipe
            pass
        return written
    return source


def _assessments(source: Callable[[BinaryIO, Callable], int] = write_stream) -> dict[str, list[str]]:
    found: dict[str, list[str]] = {}
    for arguments in QUICK:
        run = run_dieharder(SEEDER, arguments, source)
        for result in parse(run.output):
            found.setdefault(result.detail["test"], []).append(result.own_verdict or "")
    return found


def test_the_production_stream_passes_the_quick_tests() -> None:
    assessments = _assessments()
    assert set(assessments) == {"sts_monobit", "diehard_runs"}
    assert all(verdict != "FAILED" for verdicts in assessments.values() for verdict in verdicts), assessments


def test_words_anded_in_pairs_fail_the_monobit_test() -> None:
    """Each output word the AND of two: a quarter of the bits are ones."""
    assessments = _assessments(_words_rewritten(lambda words: words[0::2] & words[1::2]))
    assert assessments["sts_monobit"] == ["FAILED"]


def test_words_repeated_fail_the_runs_test() -> None:
    """Each word twice in a row: as many ones as zeros, but the ups and downs of a sequence are wrong."""
    assessments = _assessments(_words_rewritten(lambda words: np.repeat(words[0::2], 2)))
    assert "FAILED" in assessments["diehard_runs"]
