"""Timing shared by the benchmarks: the best of several rounds, so a busy machine's pauses count least."""

from __future__ import annotations

import time
from collections.abc import Callable


def best_seconds(run: Callable[[], object], rounds: int) -> float:
    """The shortest wall time of ``rounds`` calls of ``run``."""
    best = float("inf")
    for _ in range(rounds):
        started = time.perf_counter()
        run()
        best = min(best, time.perf_counter() - started)
    return best


def best_microseconds(operation: Callable[[], object], repeat: int, rounds: int = 5) -> float:
    """Microseconds per call of ``operation``: the best of ``rounds`` rounds of ``repeat`` calls each."""

    def one_round() -> None:
        for _ in range(repeat):
            operation()

    return best_seconds(one_round, rounds) / repeat * 1e6
