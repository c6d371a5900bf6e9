"""The player sessions one replica serves: found per call in memory, written to the log at start and end.

A **session** is one player's calls over one connection: its key is the player, the connection (the peer as
gRPC names it: one HTTP/2 connection on the gRPC port, one HTTP connection on the web port), the client's
address (the connection's, or what a trusted proxy forwarded) and its device id. Each call finds its session
in a dict (the hot path: no I/O once the session's start is in the log). The **first** call of a session
waits until the session's start is durably in the log (``PlayerSessionStarted``, batched with the other
sessions starting at the same moment), so a replica deciding a SitDown elsewhere sees it; if it cannot be
written, the call is refused (STORE_UNAVAILABLE) as a privileged call whose access record cannot be. A table
the session names for the first time after that is recorded in the background (``PlayerSessionTables``).

A session **ends** (``PlayerSessionEnded``, in the background, retried until written):

- when its connection closes, on the web port, which sees it (``connection_closed``);
- after ``idle_seconds`` without a call and with no watch stream open (``end_idle``): gRPC does not tell a
  server when an HTTP/2 connection closes, so this is how a gRPC session ends; the end time is its last
  activity (a call's arrival, or a stream's end). A call on the same connection later starts a new session;
- when the replica stops (``close``).

Once a day is over and its sessions here have ended, and for every stream when the replica stops, the
stream is marked closed (``SessionStreamClosed``). A replica that crashes ends none of its sessions and marks
nothing: another replica closes them (``sessions.recovery``).
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
# Ends and tables that could not be written are kept for the next sweep, up to this many (the oldest go).
MAX_UNWRITTEN = 100_000
# A stopping replica waits this long for its sessions' ends to be written.
CLOSE_SECONDS = 5.0

SessionKey = tuple[str, str, str, str]  # player, connection, address, device


def wall_ms() -> int:
    return int(time.time() * 1000)


@dataclass(eq=False, slots=True)
class OpenSession:
    """A session this replica serves, while it lasts."""

    key: SessionKey
    start: SessionStart
    stream_id: str
    started: asyncio.Future[None]  # done once the start is in the log (or failed)
    last_ms: int  # its last activity: a call's arrival, a stream's end
    durable: bool = False
    streams: int = 0  # watch streams open now
    calls: int = 1
    tables: list[str] = field(default_factory=list)  # in the order first named
    recorded: int = 0  # of ``tables``, how many the log holds


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
        self._unwritten: list[tuple[str, dict[str, Any]]] = []
        self._background: set[asyncio.Task[None]] = set()
        self._streams: dict[str, int] = {}  # streams written here and not marked closed: their open sessions
        self._sweeper: asyncio.Task[None] | None = None

    # -- calls -------------------------------------------------------------------------------------

    def touch(self, player: str, transport: Transport, connection: str, address: str, device: str,
              table: str | None) -> OpenSession | Awaitable[OpenSession]:
        """The call's session, counting the call (and ``table``, ``tables/{id}``, if it names one). An
        open session whose start is in the log comes back at once; else an awaitable of it, done once its
        start is (raising the store's error if it cannot be written)."""
        key = (player, connection, address, device)
        session = self._open.get(key)
        now = wall_ms()
        if session is None:
            return self._begin(key, transport, table, now)
        session.last_ms = now
        session.calls += 1
        if table is not None and table not in session.tables:
            session.tables.append(table)
            self._later(session, None)
        return session if session.durable else self._when_started(session)

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
        idle = [s for s in self._open.values() if s.streams <= 0 and s.durable and s.last_ms <= limit]
        for session in idle:
            self._forget(session)
            self._end(session, EndReason.IDLE, session.last_ms)
        return len(idle)

    def open_sessions(self) -> list[OpenSession]:
        return list(self._open.values())

    # -- the log -----------------------------------------------------------------------------------

    def _begin(self, key: SessionKey, transport: Transport, table: str | None,
               now: int) -> Awaitable[OpenSession]:
        player, connection, address, device = key
        start = SessionStart(secrets.token_hex(8), player, transport, connection, address, device,
                             self.writer, now, (table,) if table else ())
        session = OpenSession(key, start, stream_for(now, self.writer),
                              asyncio.get_running_loop().create_future(), now, tables=list(start.tables),
                              recorded=len(start.tables))
        self._open[key] = session
        self._by_connection.setdefault(connection, set()).add(key)
        self._streams[session.stream_id] = self._streams.get(session.stream_id, 0) + 1
        return self._write_start(session)

    async def _write_start(self, session: OpenSession) -> OpenSession:
        try:
            await self._appends.append(session.stream_id, session.start.to_event())
        except BaseException as error:
            if self._forget(session):  # else it ended meanwhile, and counted itself out then
                self._streams[session.stream_id] -= 1
            session.started.set_exception(error if isinstance(error, Exception) else asyncio.CancelledError())
            session.started.exception()  # read here: a call that waits for it raises it itself
            raise
        session.durable = True
        session.started.set_result(None)
        return session

    @staticmethod
    async def _when_started(session: OpenSession) -> OpenSession:
        await asyncio.shield(session.started)
        return session

    def _forget(self, session: OpenSession) -> bool:
        """Take ``session`` out of the open ones; whether it was open."""
        keys = self._by_connection.get(session.start.connection)
        if keys is not None:
            keys.discard(session.key)
            if not keys:
                del self._by_connection[session.start.connection]
        if self._open.get(session.key) is session:
            del self._open[session.key]
            return True
        return False

    def _end(self, session: OpenSession, reason: EndReason, at_ms: int) -> None:
        self._streams[session.stream_id] -= 1
        end = SessionEnd(session.start.session_id, reason, max(at_ms, session.start.at_ms),
                         tuple(session.tables), session.calls)
        self._later(session, end)

    def _later(self, session: OpenSession, end: SessionEnd | None) -> None:
        """Write the tables the session named since its last record of them, or its end, in the background."""
        if end is None:
            new, session.recorded = tuple(session.tables[session.recorded:]), len(session.tables)
            event = tables_event(session.start.session_id, new, wall_ms())
        else:
            event = end.to_event()
        self._spawn(self._write_later(session, event))

    def _spawn(self, work: Awaitable[None]) -> None:
        task = asyncio.get_running_loop().create_task(work)  # type: ignore[arg-type]
        self._background.add(task)
        task.add_done_callback(self._background.discard)

    async def _write_later(self, session: OpenSession, event: dict[str, Any]) -> None:
        if not session.durable:
            try:
                await asyncio.shield(session.started)
            except BaseException:
                return  # its start never reached the log: nothing of it does
        try:
            await self._appends.append(session.stream_id, event)
        except Exception as error:
            self._keep_unwritten(session.stream_id, event)
            _failures.warning("a player session's record could not be written; it is retried",
                              extra={"error": type(error).__name__})

    def _keep_unwritten(self, stream_id: str, event: dict[str, Any]) -> None:
        self._unwritten.append((stream_id, event))
        del self._unwritten[:-MAX_UNWRITTEN]

    def mark_closed_days(self, now_ms: int | None = None) -> None:
        """Mark closed the streams of days before today with no session open here (in the background)."""
        today = stream_for(wall_ms() if now_ms is None else now_ms, self.writer)
        for stream, still_open in list(self._streams.items()):
            if still_open <= 0 and stream < today:
                del self._streams[stream]
                self._spawn(self._write_event(stream, stream_closed_event(self.writer, wall_ms())))

    async def _write_event(self, stream_id: str, event: dict[str, Any]) -> None:
        try:
            await self._appends.append(stream_id, event)
        except Exception:
            self._keep_unwritten(stream_id, event)

    async def write_unwritten(self) -> int:
        """Try again the records that could not be written; how many are still waiting."""
        waiting, self._unwritten = self._unwritten, []
        for index, (stream_id, event) in enumerate(waiting):
            try:
                await self._appends.append(stream_id, event)
            except Exception:
                self._unwritten[:0] = waiting[index:]
                break
        return len(self._unwritten)

    # -- lifecycle ---------------------------------------------------------------------------------

    def sweep_periodically(self, interval: float | None = None) -> None:
        """From now on, every ``interval`` seconds (default: a quarter of the idle time-out, at most 30 s),
        end the idle sessions and write again what could not be written."""
        every = interval if interval is not None else min(30.0, max(self.idle_seconds / 4, 0.05))
        if self._sweeper is None:
            self._sweeper = asyncio.get_running_loop().create_task(self._sweep(every))

    async def _sweep(self, every: float) -> None:
        while True:
            await asyncio.sleep(every)
            try:
                self.end_idle()
                self.mark_closed_days()
                await self.write_unwritten()
            except Exception:
                _log.exception("sweeping player sessions failed")

    async def close(self) -> None:
        """End every open session (SHUTDOWN), mark every stream written here closed, and wait, a few seconds
        at most, for it all to be written."""
        if self._sweeper is not None:
            self._sweeper.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._sweeper
            self._sweeper = None
        now = wall_ms()
        for session in list(self._open.values()):
            self._forget(session)
            self._end(session, EndReason.SHUTDOWN, now)
        if self._background:
            await asyncio.wait(set(self._background), timeout=CLOSE_SECONDS)
        for stream in self._streams:
            self._keep_unwritten(stream, stream_closed_event(self.writer, now))
        self._streams.clear()
        with contextlib.suppress(Exception):
            async with asyncio.timeout(CLOSE_SECONDS):
                await self.write_unwritten()
