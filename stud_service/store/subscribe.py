"""Following streams live: one LISTEN connection per process, fanned out to any number of subscribers.

A notification only says "stream S has reached version V"; it is a hint to read, never the data.
Each subscriber reads the table from its own last version, so the events it yields are in order
with no gaps or duplicates whatever happens to notifications:

- a subscriber is woken only when a stream it follows is announced (or found) beyond the version it
  holds; a consumer that applies its own appends itself says so through ``position``, so the
  announcement of its own write costs it no read;
- a lost notification is noticed at the next one for that stream (the read returns everything after
  the subscriber's version, the missed events included) or, if none comes, at the hub's periodic
  poll: one query for the heads of every followed stream, whatever their number;
- when the listening connection drops, the hub reconnects, LISTENs again and wakes every
  subscriber, since notifications sent meanwhile are gone;
- when nothing has been followed for a poll interval (a replica whose tables went to other replicas), the
  hub closes its listening connection, so it does no work for announcements of streams nobody here
  follows; the next subscription starts it again;
- a read that fails because the database went away is retried, and so is the listening connection,
  with capped exponential backoff (:mod:`stud_service.backoff`) for as long as the database is away.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import AsyncIterator, Callable, Iterable
from dataclasses import dataclass, field
from typing import Protocol

import psycopg
from psycopg_pool import AsyncConnectionPool, PoolTimeout

from stud_service.backoff import Backoff
from stud_service.store._types import NOTIFY_CHANNEL
from stud_service.store.errors import CorruptStream, StoreUnavailable
from stud_service.store.health import StoreHealth
from stud_service.store.models import StoredEvent

_log = logging.getLogger(__name__)

SUBSCRIPTION_PAGE = 1_000
# The heads of the followed streams, for the safety-net poll: each its last event's version (a function per
# stream, not a correlated subquery, which Citus refuses beside unnest: migration 0018).
HEADS_SQL = "SELECT s.stream_id, stud_stream_head(s.stream_id) FROM unnest(%s::text[]) AS s(stream_id)"
CONNECT_TIMEOUT = 10  # seconds; a database host that does not answer at all is tried again after it
_READ_ANYWAY = 1 << 62  # "heard" of a subscriber that must read whatever it holds (reconnect)


class StreamReader(Protocol):
    """What the hub reads subscribed streams with (the store that owns it)."""

    async def read_stream(
        self, stream_id: str, after_version: int = 0, limit: int | None = None
    ) -> list[StoredEvent]: ...


@dataclass(eq=False, slots=True)
class _Subscriber:
    """One subscription's wake-up state, shared between the hub and the subscribing generator."""

    position: Callable[[], int]  # the version the consumer already holds (own appends included)
    version: int = 0  # the last version this subscription read or was told about
    heard: int = 0  # the highest version announced for the stream
    wake: asyncio.Event = field(default_factory=asyncio.Event)

    def held(self) -> int:
        return max(self.version, self.position())

    def hear(self, version: int) -> None:
        if version > self.heard:
            self.heard = version
        if version > self.held():
            self.wake.set()


class NotificationHub:
    """Owns the process's LISTEN connection and wakes the subscribers of each notified stream."""

    def __init__(
        self,
        pool: AsyncConnectionPool,
        *,
        poll_interval: float = 5.0,
        health: StoreHealth | None = None,
    ) -> None:
        self._conninfo = pool.conninfo
        self.poll_interval = poll_interval
        self._health = health or StoreHealth()
        self._subscribers: dict[str, set[_Subscriber]] = {}
        self._listening = asyncio.Event()
        self._task: asyncio.Task[None] | None = None
        self._stopping: asyncio.Task[None] | None = None  # a listener closing for want of subscribers
        self._closed = False
        self.listener_pid: int | None = None  # backend pid of the LISTEN connection, while connected
        self.reconnects = 0
        self.polls = 0  # heads queries run by the safety-net poll

    # -- the listener --------------------------------------------------------------------------

    def _ensure_started(self) -> None:
        if self._task is None and not self._closed:
            self._task = asyncio.get_running_loop().create_task(self._listen_forever(), name="stud-listen")

    async def _listen_forever(self) -> None:
        me = asyncio.current_task()
        first = True
        backoff = Backoff()
        while not self._closed and self._task is me:
            try:
                async with await psycopg.AsyncConnection.connect(
                    self._conninfo, autocommit=True, connect_timeout=CONNECT_TIMEOUT
                ) as conn:
                    await conn.execute(f"LISTEN {NOTIFY_CHANNEL}")
                    self.listener_pid = conn.info.backend_pid
                    if not first:
                        self.reconnects += 1
                    first = False
                    backoff.reset()
                    self._health.succeeded()
                    self._listening.set()
                    self._wake_all()  # whatever was announced while we were not listening is lost
                    await self._dispatch(conn)
            except psycopg.Error as exc:
                self._health.failed()
                if backoff.failures == 0:  # once per outage, not once per attempt
                    _log.warning("notification listener lost its connection: %s", exc)
            finally:
                if self._task is me:  # else it stopped for want of subscribers: a newer one may run
                    self._listening.clear()
                    self.listener_pid = None
            if not self._closed and self._task is me:
                await backoff.wait()

    async def _dispatch(self, conn: psycopg.AsyncConnection) -> None:
        # Notifications that arrive during a query on the connection (the poll below) come through psycopg.
        conn.add_notify_handler(lambda note: self._heard_payload(note.payload))
        while not self._closed:
            await self._hear_for(conn, self.poll_interval)
            if not self._subscribers:
                # Nobody here follows anything now: stop listening. All at once, with no await between,
                # so the next subscription finds no listener and starts one of its own.
                self._stopping = self._task  # held until it has closed its connection
                self._task = None
                self._listening.clear()
                self.listener_pid = None
                return
            # Every poll interval (and on a dead peer, which sends no error, this fails): the heads
            # of all followed streams in one query, for announcements that were lost.
            await self._poll_heads(conn)

    async def _hear_for(self, conn: psycopg.AsyncConnection, seconds: float) -> None:
        """Hear notifications for ``seconds`` with one reader on the connection's socket for all that time.

        psycopg's ``notifies()`` waits for each packet afresh (a future, a timer, the socket registered with
        the event loop and taken off again): at a busy replica, which hears every commit of every replica
        (its own too), that was about a tenth of its CPU. Raises the connection's error if it is lost."""
        loop = asyncio.get_running_loop()
        pgconn = conn.pgconn
        encoding = conn.info.encoding
        socket = pgconn.socket
        lost: asyncio.Future[None] = loop.create_future()

        def readable() -> None:
            try:
                pgconn.consume_input()
            except psycopg.Error as exc:
                loop.remove_reader(socket)
                if not lost.done():
                    lost.set_exception(exc)
                return
            while (note := pgconn.notifies()) is not None:
                self._heard_payload(note.extra.decode(encoding))

        loop.add_reader(socket, readable)
        try:
            await asyncio.wait((lost,), timeout=seconds)
        finally:
            loop.remove_reader(socket)
        if lost.done():
            lost.result()

    def _heard_payload(self, payload: str) -> None:
        stream_id, _, version = payload.rpartition(":")
        self._heard(stream_id, int(version) if version.isdigit() else _READ_ANYWAY)

    async def _poll_heads(self, conn: psycopg.AsyncConnection) -> None:
        streams = list(self._subscribers)
        cursor = await conn.execute(HEADS_SQL, (streams,))
        self.polls += 1
        for stream_id, version in await cursor.fetchall():
            if version is not None:  # None: nothing written to the stream yet
                self._heard(stream_id, version)

    def _heard(self, stream_id: str, version: int) -> None:
        for subscriber in self._subscribers.get(stream_id, ()):
            subscriber.hear(version)

    def _wake_all(self) -> None:
        for subscribers in self._subscribers.values():
            for subscriber in subscribers:
                subscriber.hear(_READ_ANYWAY)

    def followed_streams(self) -> Iterable[str]:
        return self._subscribers.keys()

    async def close(self) -> None:
        self._closed = True
        if self._task is not None:
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._task
            self._task = None

    # -- subscribers ---------------------------------------------------------------------------

    async def subscribe(
        self,
        store: StreamReader,
        stream_id: str,
        after_version: int = 0,
        position: Callable[[], int] | None = None,
    ) -> AsyncIterator[StoredEvent]:
        """Events of ``stream_id`` after ``after_version``: stored ones first, then live.

        ``position``: the version the consumer already holds by other means (its own appends,
        applied directly); events up to it are neither read nor yielded.
        """
        self._ensure_started()
        subscriber = _Subscriber(position or (lambda: after_version), after_version)
        self._subscribers.setdefault(stream_id, set()).add(subscriber)
        try:
            # Read only once listening (or after a poll interval if the database is away), so an
            # append between our first read and the LISTEN cannot go unnoticed until the next poll.
            with contextlib.suppress(TimeoutError):
                async with asyncio.timeout(self.poll_interval):
                    await self._listening.wait()
            backoff = Backoff()
            while True:
                subscriber.wake.clear()  # before reading: a notification during the read re-arms it
                if subscriber.heard == _READ_ANYWAY:
                    subscriber.heard = 0
                subscriber.version = subscriber.held()
                try:
                    batch = await store.read_stream(stream_id, subscriber.version, limit=SUBSCRIPTION_PAGE)
                except (psycopg.OperationalError, StoreUnavailable, PoolTimeout) as exc:
                    if backoff.failures == 0:
                        _log.warning("subscription to %r: read failed, retrying: %s", stream_id, exc)
                    await backoff.wait()
                    continue
                backoff.reset()
                expected = subscriber.version + 1
                for event in batch:
                    if event.version != expected:
                        raise CorruptStream(stream_id, expected, "event missing from the log")
                    expected += 1
                    subscriber.version = max(subscriber.version, event.version)
                    if event.version > subscriber.position():
                        yield event
                if len(batch) == SUBSCRIPTION_PAGE:
                    continue
                # Sleep until something beyond what we hold is announced (or found by the poll).
                while subscriber.heard <= subscriber.held():
                    subscriber.wake.clear()
                    await subscriber.wake.wait()
        finally:
            subscribers = self._subscribers.get(stream_id)
            if subscribers is not None:
                subscribers.discard(subscriber)
                if not subscribers:
                    del self._subscribers[stream_id]
