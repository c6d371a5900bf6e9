"""Watcher fan-out: every event a table applies reaches each of its watch streams' queues, in order.

Each watch stream (:mod:`stud_service.server.api.table_watch`) has a :class:`Watcher`: a queue the
runtime puts every applied event into, with the state after it, whichever path brought the event (an own
write or the followed stream). The runtime never waits for a watcher: a client that stops reading fills
its queue up to ``WATCH_BUFFER`` events, then gets ``LAGGING`` once and no more events; the stream, when it
reaches that marker, reads what it missed from the log and takes events again. ``None`` in a queue ends
the stream (the server is shutting down).
"""

from __future__ import annotations

import asyncio
from collections.abc import Iterable
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from stud_service.engine import TableState

# Events a watcher may have waiting before it is switched to catching up from the log: a client that
# stops reading must not make the server hold the table's whole history in memory.
WATCH_BUFFER = 1_000
LAGGING = "lagging"  # queued once when a watcher's buffer is full; it then reads what it missed from the log


@dataclass(frozen=True, slots=True)
class AppliedEvent:
    """One event as a watcher needs it: the stored JSON, when it was recorded, and the state after it."""

    version: int
    payload: dict[str, Any]
    recorded_at: datetime
    state: TableState


@dataclass(eq=False)
class Watcher:
    """One watch stream's inbox: applied events, LAGGING, or None (the server is shutting down)."""

    queue: asyncio.Queue[AppliedEvent | str | None] = field(default_factory=asyncio.Queue)
    lagging: bool = False


def fan_out(watchers: Iterable[Watcher], applied: AppliedEvent) -> None:
    """Queue ``applied`` for each watcher, or LAGGING for one whose buffer just filled up."""
    for watcher in watchers:
        if watcher.lagging:
            continue
        if watcher.queue.qsize() >= WATCH_BUFFER:
            watcher.lagging = True
            watcher.queue.put_nowait(LAGGING)
        else:
            watcher.queue.put_nowait(applied)


def end_watches(watchers: Iterable[Watcher]) -> None:
    """Tell these watch streams to finish (graceful shutdown)."""
    for watcher in watchers:
        watcher.queue.put_nowait(None)
