"""Following streams live: one LISTEN connection per process, fanned out to any number of subscribers.

A notification only says "stream S has reached version V"; it is a hint to read, never the data.
Each subscriber reads the table from its own last version, so the events it yields are in order
with no gaps or duplicates whatever happens to notifications:

- a lost notification is noticed at the next one for that stream (the read returns everything after
  the subscriber's version, the missed events included) or, if none comes, at the periodic poll;
- when the listening connection drops, the hub reconnects, LISTENs again and wakes every
  subscriber, since notifications sent meanwhile are gone;
- a read that fails because the database went away is retried after a short pause.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import AsyncIterator
from typing import TYPE_CHECKING

import psycopg
from psycopg_pool import AsyncConnectionPool, PoolTimeout

from stud_service.store.errors import CorruptStream, StoreUnavailable
from stud_service.store.models import StoredEvent

if TYPE_CHECKING:
    from stud_service.store.eventlog import EventStore

_log = logging.getLogger(__name__)

NOTIFY_CHANNEL = "stud_events"
SUBSCRIPTION_PAGE = 1_000


class NotificationHub:
    """Owns the process's LISTEN connection and wakes the subscribers of each notified stream."""

    def __init__(
        self,
        pool: AsyncConnectionPool,
        *,
        poll_interval: float = 5.0,
        retry_delay: float = 0.2,
    ) -> None:
        self._conninfo = pool.conninfo
        self.poll_interval = poll_interval
        self.retry_delay = retry_delay
        self._waiters: dict[str, set[asyncio.Event]] = {}
        self._listening = asyncio.Event()
        self._task: asyncio.Task[None] | None = None
        self._closed = False
        self.listener_pid: int | None = None  # backend pid of the LISTEN connection, while connected
        self.reconnects = 0

    # -- the listener --------------------------------------------------------------------------

    def _ensure_started(self) -> None:
        if self._task is None and not self._closed:
            self._task = asyncio.get_running_loop().create_task(self._listen_forever(), name="stud-listen")

    async def _listen_forever(self) -> None:
        first = True
        while not self._closed:
            try:
                async with await psycopg.AsyncConnection.connect(self._conninfo, autocommit=True) as conn:
                    await conn.execute(f"LISTEN {NOTIFY_CHANNEL}")
                    self.listener_pid = conn.info.backend_pid
                    if not first:
                        self.reconnects += 1
                    first = False
                    self._listening.set()
                    self._wake_all()  # whatever was announced while we were not listening is lost
                    await self._dispatch(conn)
            except psycopg.OperationalError as exc:
                _log.warning("notification listener lost its connection: %s", exc)
            finally:
                self._listening.clear()
                self.listener_pid = None
            if not self._closed:
                await asyncio.sleep(self.retry_delay)

    async def _dispatch(self, conn: psycopg.AsyncConnection) -> None:
        while not self._closed:
            async for note in conn.notifies(timeout=self.poll_interval):
                stream_id, _, _version = note.payload.rpartition(":")
                for wake in self._waiters.get(stream_id, ()):
                    wake.set()
            # A quiet spell: make sure the connection is still alive (a dead peer sends no error).
            await conn.execute("SELECT 1")

    def _wake_all(self) -> None:
        for waiters in self._waiters.values():
            for wake in waiters:
                wake.set()

    async def close(self) -> None:
        self._closed = True
        if self._task is not None:
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._task
            self._task = None

    # -- subscribers ---------------------------------------------------------------------------

    async def subscribe(
        self, store: EventStore, stream_id: str, after_version: int = 0
    ) -> AsyncIterator[StoredEvent]:
        """Events of ``stream_id`` after ``after_version``: stored ones first, then live."""
        self._ensure_started()
        wake = asyncio.Event()
        self._waiters.setdefault(stream_id, set()).add(wake)
        try:
            # Read only once listening (or after a poll interval if the database is away), so an
            # append between our first read and the LISTEN cannot go unnoticed until the next poll.
            with contextlib.suppress(TimeoutError):
                async with asyncio.timeout(self.poll_interval):
                    await self._listening.wait()
            version = after_version
            while True:
                wake.clear()  # before reading: a notification arriving during the read re-arms it
                try:
                    batch = await store.read_stream(stream_id, version, limit=SUBSCRIPTION_PAGE)
                except (psycopg.OperationalError, StoreUnavailable, PoolTimeout) as exc:
                    _log.warning("subscription to %r: read failed, retrying: %s", stream_id, exc)
                    await asyncio.sleep(self.retry_delay)
                    continue
                for event in batch:
                    if event.version != version + 1:
                        raise CorruptStream(stream_id, version + 1, "event missing from the log")
                    version = event.version
                    yield event
                if len(batch) == SUBSCRIPTION_PAGE:
                    continue
                with contextlib.suppress(TimeoutError):
                    async with asyncio.timeout(self.poll_interval):
                        await wake.wait()
        finally:
            waiters = self._waiters.get(stream_id)
            if waiters is not None:
                waiters.discard(wake)
                if not waiters:
                    del self._waiters[stream_id]
