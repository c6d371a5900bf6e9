"""The garbage collector of a serving process: short pauses, rare full collections, none over startup.

Python's defaults (700, 10, 10) run a full collection whenever a quarter more objects than the last one
found have survived two young collections. A served table's state lives for seconds between its players'
actions, so it survives them and is promoted, then freed by its reference count; with a thousand tables
a full collection (over every tracked object of the process: each call, watch stream and table) ran every
few seconds, stopping the event loop for tens to hundreds of milliseconds while it found next to nothing
(docs/benchmarks-log.md). Here ``gc.freeze`` moves what startup made (modules, classes, the server) out of
every later collection's walk, and the thresholds keep each pause short:

- young (1,000): each young collection frees the cycles gRPC leaves per call (a handler lookup's
  closure), and its pause grows with the threshold (at 1,000 up to 8-11 ms, at 2,000 up to 15-23 ms, at
  10,000 up to 40 ms, all at 1,000 tables);
- middle (1): a middle collection after every young one walks only what survived one young collection,
  not ten (its pauses up to 25-28 ms against 58-63 ms at 10), for about the same collector time in all;
- full (5,000 middle ones): at a thousand busy tables about two middle collections run a second, so a full
  one waits about 40 minutes; it takes about a quarter of a second there.

Cyclic garbage is still collected: young cycles at each young collection, old ones at the full ones.
"""

from __future__ import annotations

import gc

# (young, middle, full): a young collection after this many new tracked objects, a middle one after
# this many young ones, a full one after this many middle ones (and Python's own quarter rule).
DEFAULT_THRESHOLDS = (1_000, 1, 5_000)
PYTHON = "python"  # the setting that leaves the collector as Python configures it


def parse_thresholds(value: str) -> tuple[int, int, int] | None:
    """``--gc-thresholds``: three positive integers ``young,middle,full``, or 'python' (None: Python's
    own settings, no freeze); ValueError for anything else."""
    text = value.strip().lower()
    if text in (PYTHON, "off", ""):
        return None
    parts = text.split(",")
    try:
        numbers = tuple(int(part) for part in parts)
    except ValueError:
        raise ValueError("--gc-thresholds is three integers young,middle,full or 'python'") from None
    if len(numbers) != 3 or min(numbers) < 1:
        raise ValueError("--gc-thresholds is three integers young,middle,full, each at least 1")
    return numbers[0], numbers[1], numbers[2]


def tune_collector(thresholds: tuple[int, int, int]) -> None:
    """Once the process has started: collect what startup left, freeze the rest out of later
    collections, and set the thresholds."""
    gc.collect()
    gc.freeze()
    gc.set_threshold(*thresholds)
