"""Reads a hot standby may serve, as current as the primary was when the call began.

History, replays, exports, audits, reconciliation and the lobby's listings read through :class:`StandbyReads`;
the live tables (the table runtime, leases, appends, the listener) never do: they keep the primary's store.

The consistency rule: a read served by a standby sees every write the primary had made durable when the read
began. The read takes the primary's WAL flush position (one function call there, no table touched), then
waits, at most ``wait`` seconds, for the standby to have replayed past it; a standby that does not get there
in time, is down, or fails the read in any way, leaves the read to the primary, and the reads of the next
``STANDBY_RETRY_SECONDS`` too. So a player's own hand that has just ended is in their history at once, and a
standby never fails a call the primary could answer.

Every read of one call runs on one standby connection, checked once: with several standbys behind one URL
(``target_session_attrs=prefer-standby``), all of them come from the standby that was checked. A URL that
lands on a primary (no standby up) is as current as can be: it serves the read.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections.abc import AsyncIterator, Awaitable, Callable
from typing import Any, TypeVar

import psycopg
from psycopg_pool import AsyncConnectionPool

from stud_service.store.connections import check_idle_connection
from stud_service.store.errors import StoreUnavailable
from stud_service.store.eventlog import EventStore

DEFAULT_REPLAY_WAIT_SECONDS = 1.0
# After a standby failed (unreachable, or a read on it failed) or lagged past the wait, reads go to the
# primary this long before it is tried again: a standby away or behind must not cost every call the wait.
STANDBY_RETRY_SECONDS = 5.0
REPLAY_POLL_SECONDS = 0.01
# The end of the WAL the primary has made durable: every write acknowledged as durable is before it (a commit
# not yet flushed could still be lost by the primary itself). Its insert position would also cover WAL still
# in its buffers, which reaches a standby only when flushed: up to the WAL writer's delay later.
PRIMARY_POSITION_SQL = "SELECT pg_current_wal_flush_lsn()::text"
# True once the server has replayed past the position, and on a server that is no standby at all.
REPLAYED_PAST_SQL = (
    "SELECT NOT pg_is_in_recovery() OR coalesce(pg_last_wal_replay_lsn() >= %s::pg_lsn, false)"
)

T = TypeVar("T")
_log = logging.getLogger(__name__)


class _OneConnection:
    """The part of a pool the store's reads use, handing out one connection (already checked out) every
    time: a call's reads all run on the standby that was found current enough."""

    max_size = 1  # one connection (the store's writer sizes its routed commands by it; reads write none)

    def __init__(self, conn: psycopg.AsyncConnection[Any], timeout: float) -> None:
        self._conn = conn
        self.timeout = timeout

    @contextlib.asynccontextmanager
    async def connection(self, timeout: float | None = None) -> AsyncIterator[psycopg.AsyncConnection[Any]]:
        yield self._conn


async def open_standby_pool(url: str, *, max_size: int, wait: float) -> AsyncConnectionPool:
    """A pool on the standby URL, opened without waiting: a standby down at start leaves reads to the
    primary until it comes up, as later."""
    pool = AsyncConnectionPool(
        url,
        min_size=1,
        max_size=max_size,
        kwargs={"autocommit": True, "connect_timeout": max(2, int(wait) + 1)},
        timeout=wait,
        reconnect_timeout=STANDBY_RETRY_SECONDS,
        open=False,
        check=check_idle_connection,
        name="stud-standby",
    )
    await pool.open(wait=False)
    return pool


class StandbyReads:
    """Runs read-only work on a standby when one is current enough, else on the primary's store.

    Without a standby pool, every read goes to the primary as it is, at no cost."""

    def __init__(
        self,
        primary: EventStore,
        standby: AsyncConnectionPool | None = None,
        *,
        wait: float = DEFAULT_REPLAY_WAIT_SECONDS,
        clock: Callable[[], float] = time.monotonic,
        served: Callable[[str], None] | None = None,
    ) -> None:
        self.primary = primary
        self.standby = standby
        self.wait = wait
        self._served = served or (lambda server: None)  # told "standby" or "primary" for each call (metrics)
        self._clock = clock
        self._skip_until = 0.0  # the clock's time until which the standby is left alone

    async def read(self, reading: Callable[[EventStore], Awaitable[T]]) -> T:
        """``reading(store)`` on a standby's store if it has replayed everything the primary had when this
        began, else on the primary's. ``reading`` must only read: it may run twice (the standby failed)."""
        if self.standby is None:
            return await reading(self.primary)
        if self._clock() < self._skip_until:
            self._served("primary")
            return await reading(self.primary)
        (position,) = (await self.primary._fetch(PRIMARY_POSITION_SQL, ()))[0]
        try:
            async with self.standby.connection() as conn:
                if await self._replayed_past(conn, position):
                    store = EventStore(
                        _OneConnection(conn, self.wait),  # type: ignore[arg-type]
                        announce=False,
                        sealer=self.primary.sealer,
                    )
                    answer = await reading(store)
                    self._served("standby")
                    return answer
            self._leave_standby(f"it has not replayed the primary's position {position} within {self.wait} s")
        except (StoreUnavailable, psycopg.Error) as error:
            self._leave_standby(f"it failed: {error}")  # down, restarting, or a query cancelled by recovery
        self._served("primary")
        return await reading(self.primary)

    def _leave_standby(self, why: str) -> None:
        """This call and the next few read the primary: a standby behind or away would cost each of them the
        wait or a connection attempt."""
        self._skip_until = self._clock() + STANDBY_RETRY_SECONDS
        _log.warning("reads go to the primary for %s s: the standby is left alone, as %s",
                     STANDBY_RETRY_SECONDS, why)

    async def _replayed_past(self, conn: psycopg.AsyncConnection[Any], position: str) -> bool:
        """Whether the standby gets past ``position`` within the wait (polling its replay position)."""
        deadline = self._clock() + self.wait
        while True:
            cursor = await conn.execute(REPLAYED_PAST_SQL, (position,))
            row = await cursor.fetchone()
            if row is not None and row[0]:
                return True
            if self._clock() >= deadline:
                return False
            await asyncio.sleep(REPLAY_POLL_SECONDS)
