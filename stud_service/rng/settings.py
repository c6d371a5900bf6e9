"""What a report runs, and at which sizes (kept apart from the statistics so the command line loads fast)."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from stud_service.rng.seeds import SeedSource

DEFAULT_DECKS = 10_000_000
DEFAULT_NIST_SEQUENCES = 100  # SP 800-22 §4.2: at least 1/alpha = 100 sequences
DEFAULT_NIST_BITS = 1_000_000
MIN_DECKS = 1_000
ALPHA = 0.01  # every verdict is at 99%


class ReportRefused(Exception):
    """The report cannot run as asked (a bad size, a missing tool or package)."""


@dataclass(frozen=True)
class ReportSettings:
    seeds: SeedSource = field(default_factory=lambda: SeedSource(None))
    decks: int = DEFAULT_DECKS
    nist_sequences: int = DEFAULT_NIST_SEQUENCES
    nist_bits: int = DEFAULT_NIST_BITS
    dieharder: str = "run"  # "run" or "skip"
    dieharder_log: Path | None = None
    batch: int = 50_000  # decks dealt and counted at a time

    def check(self) -> None:
        if self.decks < MIN_DECKS:
            raise ReportRefused(f"--decks must be at least {MIN_DECKS:,}")
        if self.nist_sequences < 1:
            raise ReportRefused("--nist-sequences must be at least 1")
        if self.nist_bits < 1_000 or self.nist_bits % 8:
            raise ReportRefused("--nist-bits must be a multiple of 8, at least 1,000")
        if self.dieharder not in ("run", "skip"):
            raise ReportRefused("--dieharder is 'run' or 'skip'")
        if self.dieharder_log is not None and not self.dieharder_log.is_file():
            raise ReportRefused(f"no Dieharder log at {self.dieharder_log}")
