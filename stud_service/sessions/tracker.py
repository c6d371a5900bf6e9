"""The player sessions one replica serves: found per call in memory, written to the log at start and end.

A **session** is one player's calls over one connection: its key is the player, the connection (the peer as
gRPC names it: one HTTP/2 connection on the gRPC port, one HTTP connection on the web port), the client's
address (the connection's, or what a trusted proxy forwarded) and its device id. Each call finds its session
in a dict: the hot path, with no I/O.

A session's records are written in order by a writer of its own (batched with every other session's writes
of the moment), retried with backoff while the store refuses them: its start (``PlayerSessionStarted``), the
tables it names after its first call (``PlayerSessionTables``), its end (``PlayerSessionEnded``). No call
waits for them, but a SitDown, which waits until its session's start is in the log (``durable``): another
replica checking a table's same-network rule must find the players seated there. While the store refuses
writes, reads are served all the same (a read must not fail for want of a record of who reads), and the
records go in once it is back.

A session **ends**:

- when its connection closes, on the web port, which sees it (``connection_closed``);
- after ``idle_seconds`` without a call and with no watch stream open (``end_idle``): gRPC does not tell a
  server when an HTTP/2 connection closes, so this is how a gRPC session ends; the end time is its last
  activity (a call's arrival, or a stream's end). A call on the same connection later starts a new session;
- when the replica stops (``close``).

Once a day is over and every session of its stream here has ended in the log, and for every such stream
when the replica stops, the stream is marked closed (``SessionStreamClosed``). A replica that crashes ends
none of its sessions and marks nothing: another replica closes them (``sessions.recovery``); so does a
stopping replica whose last records the store would not take.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import secrets
import time
from collections.abc import Awaitable
from dataclasses import dataclass, field
from typing import Any

from stud_service.backoff import Backoff
from stud_service.observability.logging import RateLimitedLog
from stud_service.sessions.networks import TrustedProxies
from stud_service.sessions.records import (
    EndReason,
    SessionEnd,
    SessionStart,
    Transport,
    stream_closed_event,
    stream_for,
    tables_event,
)
from stud_service.store import EventStore
from stud_service.store.batched import BatchedAppends

_log = logging.getLogger(__name__)
_failures = RateLimitedLog(_log, 60.0)

DEFAULT_IDLE_SECONDS = 300.0
# A session's writer waits at most this long between tries while the store refuses its records.
RETRY_CAP_SECONDS = 5.0
# A stopping replica waits this long for its sessions' ends to be written.
CLOSE_SECONDS = 5.0

SessionKey = tuple[str, str, str, str]  # player, connection, address, device


def wall_ms() -> int:
    return int(time.time() * 1000)


@dataclass(eq=False, slots=True)
class OpenSession:
    """A session this replica serves, while it lasts and until its records are written."""

    key: SessionKey
    start: SessionStart
    stream_id: str
    started: asyncio.Future[None]  # done once the start is in the log
    last_ms: int  # its last activity: a call's arrival, a stream's end
    durable: bool = False  # its start is in the log
    streams: int = 0  # watch streams open now
    calls: int = 1
    tables: list[str] = field(default_factory=list)  # in the order first named
    recorded: int = 0  # of ``tables``, how many are queued or written
    queue: list[dict[str, Any]] = field(default_factory=list)  # records to write, in order
    writing: asyncio.Task[None] | None = None


class PlayerSessions:
    """This replica's open player sessions (one per process: the runtime holds it)."""

    def __init__(self, store: EventStore, writer: str, idle_seconds: float = DEFAULT_IDLE_SECONDS,
                 enabled: bool = True, proxies: TrustedProxies | None = None) -> None:
        self.writer = writer  # the replica: its id names its streams, and tells whether it is alive
        self.idle_seconds = idle_seconds
        self.enabled = enabled  # False (--player-sessions off): no session is recorded
        self.proxies = proxies or TrustedProxies()  # whose X-Forwarded-For names the client
        self._appends = BatchedAppends(store, keep_heads=4)
        self._open: dict[SessionKey, OpenSession] = {}
        self._by_connection: dict[str, set[SessionKey]] = {}
        # Streams written here and not yet marked closed: their sessions not ended in the log yet.
        self._streams: dict[str, int] = {}
        self._writing: set[asyncio.Task[None]] = set()
        self._sweeper: asyncio.Task[None] | None = None
        self._closing = False

    # -- calls -------------------------------------------------------------------------------------

    def touch(self, player: str, transport: Transport, connection: str, address: str, device: str,
              table: str | None) -> OpenSession:
        """The call's session, begun if it is new, counting the call (and ``table``, ``tables/{id}``, if it
        names one)."""
        key = (player, connection, address, device)
        session = self._open.get(key)
        now = wall_ms()
        if session is None:
            return self._begin(key, transport, table, now)
        session.last_ms = now
        session.calls += 1
        if table is not None and table not in session.tables:
            session.tables.append(table)
            new, session.recorded = tuple(session.tables[session.recorded:]), len(session.tables)
            self._record(session, tables_event(session.start.session_id, new, now))
        return session

    @staticmethod
    async def durable(session: OpenSession) -> None:
        """Wait until ``session``'s start is in the log (the store away: until it is back)."""
        if not session.durable:
            await asyncio.shield(session.started)

    def stream_began(self, session: OpenSession) -> None:
        session.streams += 1

    def stream_ended(self, session: OpenSession) -> None:
        session.streams -= 1
        session.last_ms = wall_ms()

    def connection_closed(self, connection: str) -> None:
        """Every session on ``connection`` ends now (the web port's HTTP connection closed)."""
        now = wall_ms()
        for key in self._by_connection.pop(connection, ()):
            session = self._open.pop(key, None)
            if session is not None:
                self._end(session, EndReason.CLOSED, now)

    def end_idle(self, now_ms: int | None = None) -> int:
        """End the sessions idle for ``idle_seconds`` with no stream open; how many."""
        now = wall_ms() if now_ms is None else now_ms
        limit = now - int(self.idle_seconds * 1000)
        idle = [s for s in self._open.values() if s.streams <= 0 and s.last_ms <= limit]
        for session in idle:
            self._forget(session)
            self._end(session, EndReason.IDLE, session.last_ms)
        return len(idle)

    def open_sessions(self) -> list[OpenSession]:
        return list(self._open.values())

    # -- the log -----------------------------------------------------------------------------------

    def _begin(self, key: SessionKey, transport: Transport, table: str | None, now: int) -> OpenSession:
        player, connection, address, device = key
        start = SessionStart(secrets.token_hex(8), player, transport, connection, address, device,
                             self.writer, now, (table,) if table else ())
        loop = asyncio.get_running_loop()
        session = OpenSession(key, start, stream_for(now, self.writer), loop.create_future(), now,
                              tables=list(start.tables), recorded=len(start.tables))
        self._open[key] = session
        self._by_connection.setdefault(connection, set()).add(key)
        self._streams[session.stream_id] = self._streams.get(session.stream_id, 0) + 1
        self._record(session, start.to_event())
        return session

    def _forget(self, session: OpenSession) -> None:
        """Take ``session`` out of the open ones."""
        keys = self._by_connection.get(session.start.connection)
        if keys is not None:
            keys.discard(session.key)
            if not keys:
                del self._by_connection[session.start.connection]
        if self._open.get(session.key) is session:
            del self._open[session.key]

    def _end(self, session: OpenSession, reason: EndReason, at_ms: int) -> None:
        end = SessionEnd(session.start.session_id, reason, max(at_ms, session.start.at_ms),
                         tuple(session.tables), session.calls)
        self._record(session, end.to_event())

    def _record(self, session: OpenSession, event: dict[str, Any]) -> None:
        """Queue ``event`` for ``session``'s writer (started if it is not running)."""
        session.queue.append(event)
        if session.writing is None:
            task = asyncio.get_running_loop().create_task(self._write(session))
            session.writing = task
            self._writing.add(task)
            task.add_done_callback(self._writing.discard)

    async def _write(self, session: OpenSession) -> None:
        """Write ``session``'s queued records in order, retrying while the store refuses them."""
        backoff = Backoff(cap=RETRY_CAP_SECONDS)
        try:
            while session.queue:
                event = session.queue[0]
                try:
                    await self._appends.append(session.stream_id, event)
                except Exception as error:
                    _failures.warning("a player session's record could not be written; it is retried",
                                      extra={"error": type(error).__name__})
                    if self._closing:
                        return  # left to the replicas' recovery: this one is stopping
                    await backoff.wait()
                    continue
                backoff.reset()
                session.queue.pop(0)
                if not session.durable:
                    session.durable = True
                    session.started.set_result(None)
                if event["type"] == "PlayerSessionEnded":
                    self._streams[session.stream_id] -= 1
        finally:
            session.writing = None

    def mark_closed_days(self, now_ms: int | None = None) -> None:
        """Mark closed the streams of days before today whose every session here has ended in the log."""
        today = stream_for(wall_ms() if now_ms is None else now_ms, self.writer)
        for stream, unfinished in list(self._streams.items()):
            if unfinished <= 0 and stream < today:
                self._spawn(self._mark_closed(stream))

    async def _mark_closed(self, stream: str) -> None:
        if self._streams.get(stream, 1) > 0:
            return  # marked meanwhile
        self._streams[stream] = 1  # held while it is written
        try:
            await self._appends.append(stream, stream_closed_event(self.writer, wall_ms()))
        except Exception:
            self._streams[stream] = 0  # the next sweep tries again
            return
        del self._streams[stream]

    def _spawn(self, work: Awaitable[None]) -> None:
        task = asyncio.get_running_loop().create_task(work)  # type: ignore[arg-type]
        self._writing.add(task)
        task.add_done_callback(self._writing.discard)

    # -- lifecycle ---------------------------------------------------------------------------------

    def sweep_periodically(self, interval: float | None = None) -> None:
        """From now on, every ``interval`` seconds (default: a quarter of the idle time-out, at most 30 s),
        end the idle sessions and mark closed the streams of the days that are over."""
        every = interval if interval is not None else min(30.0, max(self.idle_seconds / 4, 0.05))
        if self._sweeper is None:
            self._sweeper = asyncio.get_running_loop().create_task(self._sweep(every))

    async def _sweep(self, every: float) -> None:
        while True:
            await asyncio.sleep(every)
            try:
                self.end_idle()
                self.mark_closed_days()
            except Exception:
                _log.exception("sweeping player sessions failed")

    async def close(self) -> None:
        """End every open session (SHUTDOWN), wait a few seconds at most for every record to be written,
        and mark closed every stream whose sessions have all ended in the log."""
        if self._sweeper is not None:
            self._sweeper.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._sweeper
            self._sweeper = None
        now = wall_ms()
        for session in list(self._open.values()):
            self._forget(session)
            self._end(session, EndReason.SHUTDOWN, now)
        if self._writing:
            await asyncio.wait(set(self._writing), timeout=CLOSE_SECONDS)
        self._closing = True
        for task in set(self._writing):
            task.cancel()  # the store would not take them: the replicas' recovery closes those sessions
        finished = [stream for stream, unfinished in self._streams.items() if unfinished <= 0]
        with contextlib.suppress(Exception):
            async with asyncio.timeout(CLOSE_SECONDS):
                for stream in finished:
                    await self._appends.append(stream, stream_closed_event(self.writer, now))
                    del self._streams[stream]
