"""The runtime's background work: the tasks it spawns, and how they outlast failures until they are done.

While the database is away, none of the runtime's work stops for good: the dealer, the action clocks, the
followers and the lease rounds each retry with capped backoff (:mod:`stud_service.backoff`) until it is
back, and stop only when the table has changed under them (a refused append) or the runtime closes.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable, Coroutine, Iterable
from typing import Any, Protocol

from stud_service.backoff import Backoff
from stud_service.engine import DomainError
from stud_service.ledger.errors import LedgerError
from stud_service.observability.metrics import Metrics
from stud_service.server.api.errors import RequestError
from stud_service.server.tables.live import TableMoved
from stud_service.store import LeaseLost, spans
from stud_service.store.errors import is_store_fault

_log = logging.getLogger(__name__)

# A background task that failed for another reason than the store is tried again, at most this far apart.
TASK_FAILURE_BACKOFF_CAP = 30.0
# Seconds cancel_until_done waits for its cancelled tasks before cancelling again those still running.
CANCEL_AGAIN_SECONDS = 0.5


class Logged(Protocol):
    """What a task's log lines name: the stream and its log fields (a table's id, a tournament's)."""

    @property
    def stream_id(self) -> str: ...

    @property
    def log_extra(self) -> dict[str, str]: ...


class TableTasks:
    """The background tasks of one runtime. ``closed``: the runtime is closing, nothing new is armed.
    ``lease_lost(stream_id)`` is told of a table whose append was refused because its lease is lost."""

    def __init__(self, metrics: Metrics | None, lease_lost: Callable[[str], None]) -> None:
        self.metrics = metrics
        self.lease_lost = lease_lost
        self.closed = False
        self._background: set[asyncio.Task[Any]] = set()

    def spawn(self, coroutine: Coroutine[Any, Any, Any]) -> asyncio.Task[Any]:
        task = asyncio.get_running_loop().create_task(coroutine, context=spans.detached())  # its own traces
        self._background.add(task)
        task.add_done_callback(self._background.discard)
        return task

    async def until_done(
        self, live: Logged, task: str, attempt: Callable[[], Awaitable[Any]]
    ) -> None:
        """Run a background task's ``attempt`` (a clock firing, a deal) until it is done: it succeeds, or
        the table moved on or refused it (the event that changed the table re-armed what is needed).
        While the store is away it is tried again with backoff. Any other failure is a fault of this
        replica, not of the table: it is counted (``stud_action_clock_failures_total``), logged, and tried
        again with a longer backoff, so a table is never left silent by one bad attempt."""
        backoff = Backoff()
        failing = Backoff(cap=TASK_FAILURE_BACKOFF_CAP)
        while True:
            try:
                await attempt()
                return
            except (TableMoved, RequestError, DomainError, LedgerError):
                return
            except LeaseLost:
                # Another replica owns the table now (this one was paused or cut off past the lease).
                self.lease_lost(live.stream_id)
                return
            except Exception as error:
                if is_store_fault(error):
                    await wait_for_store(live, backoff, task, error)
                    continue
                if self.metrics is not None:
                    self.metrics.action_clock_failed(task)
                if failing.failures == 0:
                    _log.exception("%s at %s failed; retrying with backoff", task, live.stream_id,
                                   extra=live.log_extra)
                else:
                    _log.error("%s at %s failed again (%d times): %s", task, live.stream_id,
                               failing.failures + 1, error, extra=live.log_extra)
                await failing.wait()

    async def close(self) -> None:
        """Cancel every task still running and wait for them to end (:func:`cancel_until_done`)."""
        tasks = list(self._background)
        await cancel_until_done(tasks)
        for task in tasks:
            if not task.cancelled():
                task.exception()  # retrieved: a task that failed as it was cancelled is not reported at exit


async def cancel_until_done(tasks: Iterable[asyncio.Task[Any]]) -> None:
    """Cancel ``tasks`` and wait until each has ended, cancelling again those that go on: on Python 3.11 a
    cancel that lands as an ``asyncio.wait_for`` finishes (a pool's checkout) is lost, and the task goes on
    (a tournament's level clock would sleep until a start hours away, and whoever waits for it with it)."""
    pending = {task for task in tasks if not task.done()}
    while pending:
        for task in pending:
            task.cancel()
        _ended, pending = await asyncio.wait(pending, timeout=CANCEL_AGAIN_SECONDS)


async def wait_for_store(live: Logged, backoff: Backoff, task: str, error: BaseException) -> None:
    """The pause before a background task tries the store again; logged once per outage, no trace."""
    if backoff.failures == 0:
        _log.warning(
            "%s at %s: the store is unavailable; retrying until it is back: %s",
            task, live.stream_id, error, extra=live.log_extra,
        )
    await backoff.wait()
