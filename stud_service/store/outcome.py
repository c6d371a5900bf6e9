"""An append whose outcome is unknown: its connection was lost while it committed (a failover, a killed
backend).

The store resolves it itself when the command has a request id: it appends again with the same request id
once the database answers, which either finds the request recorded (the original result, written once) or
applies it (it never went in). It waits for the database up to ``OUTCOME_WAIT_SECONDS`` or, sooner, until the
caller cancels it (a call's deadline). A caller that needs to know whether it gave up on an unknown outcome
(to answer OUTCOME_UNKNOWN rather than STORE_UNAVAILABLE) tracks it with :func:`tracking_outcome`.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from contextvars import ContextVar
from dataclasses import dataclass

# Longer than any failover measured (a lost node under strict synchronous replication: about 20 s), and
# bounded so a loop without a deadline of its own does not wait forever.
OUTCOME_WAIT_SECONDS = 60.0
# Between tries while the database is away: soon enough to answer within half a second of its return.
RESOLVE_PAUSE_FIRST = 0.1
RESOLVE_PAUSE_MAX = 0.5


@dataclass
class PendingOutcome:
    """Whether the work in this context is waiting to learn an append's outcome."""

    unknown: bool = False


_pending: ContextVar[PendingOutcome | None] = ContextVar("stud_pending_outcome", default=None)


@contextlib.contextmanager
def tracking_outcome() -> Iterator[PendingOutcome]:
    """Note in the returned cell whether an append in this context is waiting on an unknown outcome."""
    cell = PendingOutcome()
    token = _pending.set(cell)
    try:
        yield cell
    finally:
        _pending.reset(token)


def outcome_unknown(unknown: bool) -> None:
    """The store: an append in this context is (True) or is no longer (False) waiting on its outcome."""
    cell = _pending.get()
    if cell is not None:
        cell.unknown = unknown
