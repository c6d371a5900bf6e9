"""Debian's ``dieharder`` on the production stream, fed through standard input, and its results read back.

``dieharder -a -g 200`` runs every test of the battery at its default sizes (generator 200 reads raw
32-bit words from standard input); it reads some 240 GB, most of it for ``rgb_lagged_sum``, so the run
takes hours and the stream (``stream.write_stream``) is cut off when dieharder closes the pipe. Each line
of its table gives a test, its sizes, a p-value (a Kolmogorov–Smirnov test of ``psamples`` p-values) and
dieharder's own assessment: FAILED below 0.000001 or above 0.999999, WEAK below 0.005 or above 0.995.
"""

from __future__ import annotations

import contextlib
import re
import shutil
import subprocess
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from stud_service.rng.settings import ReportRefused
from stud_service.rng.stats import TestResult
from stud_service.rng.stream import write_stream

DIEHARDER = "dieharder"
FULL_RUN = ("-a", "-g", "200")
_ROW = re.compile(
    r"^\s*(?P<name>[a-z0-9_]+)\|\s*(?P<ntup>\d+)\|\s*(?P<tsamples>\d+)\|\s*(?P<psamples>\d+)\|"
    r"\s*(?P<p>[0-9.eE+-]+)\|\s*(?P<assessment>PASSED|WEAK|FAILED)\s*$"
)
_VERSION = re.compile(r"dieharder version (\S+)")


@dataclass(frozen=True)
class DieharderRun:
    arguments: tuple[str, ...]
    output: str  # dieharder's whole standard output
    bytes_read: int | None  # of the stream, when this process fed it
    seconds: float | None

    @property
    def version(self) -> str:
        return version_of(self.output)


def version_of(output: str) -> str:
    """The dieharder version its banner names."""
    found = _VERSION.search(output)
    return found.group(1) if found else "unknown"


def dieharder_path() -> str:
    path = shutil.which(DIEHARDER)
    if path is None:
        raise ReportRefused("dieharder is not installed: `apt-get install -y dieharder` (Debian's package), "
                            "or --dieharder skip")
    return path


def run_dieharder(seeder: Callable[[int], bytes], arguments: Sequence[str] = FULL_RUN,
                  source: Callable[..., int] = write_stream) -> DieharderRun:
    """Run dieharder with ``arguments``, writing the stream of ``seeder``'s seeds (or ``source``'s bytes:
    a callable like ``write_stream``) into its standard input until it has read what it needs."""
    command = [dieharder_path(), *arguments]
    start = time.monotonic()
    process = subprocess.Popen(command, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    assert process.stdin is not None and process.stdout is not None and process.stderr is not None
    written: list[int] = []

    def feed() -> None:
        try:
            written.append(source(process.stdin, seeder))
        finally:
            with contextlib.suppress(BrokenPipeError):
                process.stdin.close()

    feeder = threading.Thread(target=feed, name="dieharder-stream", daemon=True)
    feeder.start()
    output = process.stdout.read().decode("utf-8", "replace")
    errors = process.stderr.read().decode("utf-8", "replace")
    process.wait()
    feeder.join()
    if process.returncode != 0 or not parse(output):
        raise ReportRefused(f"dieharder {' '.join(arguments)} failed ({process.returncode}): {errors[-500:]}")
    return DieharderRun(tuple(arguments), output, written[0] if written else None, time.monotonic() - start)


LAST_TEST = "dab_monobit2"  # the last test ``dieharder -a`` runs (3.31)


def is_complete(output: str) -> bool:
    """Whether ``output`` holds a whole ``-a`` run: it has reached the last test."""
    return any(result.detail["test"] == LAST_TEST for result in parse(output))


def parse(output: str, sample: str = "") -> list[TestResult]:
    """One result for each line of dieharder's table."""
    results = []
    for line in output.splitlines():
        found = _ROW.match(line)
        if not found:
            continue
        name, ntup = found.group("name"), int(found.group("ntup"))
        results.append(TestResult(
            "dieharder", f"{name}" + (f" (ntup {ntup})" if ntup else ""),
            "dieharder's p-value: Kolmogorov–Smirnov test of its psamples p-values against uniform",
            sample or f"{int(found.group('psamples'))} × {int(found.group('tsamples')):,} samples",
            statistic=float("nan"), p_value=float(found.group("p")), own_verdict=found.group("assessment"),
            detail={"test": name, "ntup": ntup, "tsamples": int(found.group("tsamples")),
                    "psamples": int(found.group("psamples"))},
        ))
    return results
