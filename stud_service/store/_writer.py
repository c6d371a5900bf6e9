"""Group commit for appends, and the announcements that follow them.

An append finding the writer with a free slot (fewer than ``max_inflight`` transactions under
way, none of them on its stream) commits at once, in the caller's own task: alone, an append
costs what it would cost by itself. Appends arriving while every slot is taken queue up and go
to PostgreSQL together: one round trip, one transaction, one WAL flush for the lot
(``stud_append_commands``), each command keeping its own outcome. Several transactions are under
way at once on separate connections, so while one waits for its WAL flush the next is already
executing and a third forms: the server's time and ours overlap instead of adding up.

A stream is in at most one transaction at a time: a command for a stream with one under way
waits and goes in the next batch, so one stream's commands reach PostgreSQL in the order they
were made (a command expecting the version its predecessor creates finds it there). Batches
are therefore disjoint in streams; each still locks its streams in sorted order, which keeps
batches of several processes on one database free of deadlocks. A command is acknowledged only
after its transaction's durable commit.

Announcements (NOTIFY ``stream:version``) are sent after the commit by a background task that
coalesces them, in a transaction that does not wait for its WAL flush. A NOTIFY inside the append
transaction would hold PostgreSQL's global notify lock through the commit's flush and serialise all
writers. If the process dies between commit and announcement, subscribers still see the events at
their next notification or poll.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections import deque
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

import psycopg
from psycopg_pool import AsyncConnectionPool

from stud_service.db.connect import check_idle_connection

_log = logging.getLogger(__name__)

ANNOUNCE_INTERVAL = 0.002  # seconds between announcement transactions, at most one per interval
KEEP_CONNECTIONS = 0.05  # seconds idle after which the writer gives its connections back to the pool

AppendRow = tuple[str, int | None, int]  # outcome, first version, last (or actual) version

_APPEND_SQL = "SELECT * FROM stud_append_commands(%s::text[], %s::bigint[], %s::text[], %s)"


@dataclass(slots=True)
class _Command:
    stream_id: str
    expected: int
    request_id: str | None
    text: str  # the events' canonical JSON texts joined by newlines
    future: asyncio.Future[AppendRow]


def _text_array(values: list[str | None]) -> str:
    """A text[] literal. Built here because psycopg inspects every element of a list parameter
    to choose its type, which costs more than the whole append function call for small batches."""
    return "{" + ",".join(
        "NULL" if v is None else '"' + v.replace("\\", "\\\\").replace('"', '\\"') + '"' for v in values
    ) + "}"


def _int_array(values: Iterable[int]) -> str:
    return "{" + ",".join(map(str, values)) + "}"


class AppendWriter:
    def __init__(
        self,
        pool: AsyncConnectionPool,
        *,
        announce: bool = True,
        max_batch: int = 256,
        max_inflight: int = 2,
    ) -> None:
        self.pool = pool
        self.announce = announce
        self.max_batch = max_batch
        self.max_inflight = max_inflight
        self._queue: deque[_Command] = deque()
        self._inflight = 0
        self._busy: set[str] = set()  # streams with a transaction under way
        self._dispatch_soon = False
        self._connections: list[psycopg.AsyncConnection[Any]] = []  # kept, see _take_connection
        self._last_used = 0.0
        self._release_timer: asyncio.TimerHandle | None = None
        self._tasks: set[asyncio.Task[None]] = set()
        self._announcements: dict[str, int] = {}
        self._announcer: asyncio.Task[None] | None = None
        self._announce_wake = asyncio.Event()

    async def append(self, stream_id: str, expected: int, request_id: str | None, text: str) -> AppendRow:
        future: asyncio.Future[AppendRow] = asyncio.get_running_loop().create_future()
        self._queue.append(_Command(stream_id, expected, request_id, text, future))
        if not self._dispatch_soon:
            # Batches form at the end of the loop's turn: the writers woken together by one
            # commit all queue their next command before any of them is sent.
            self._dispatch_soon = True
            asyncio.get_running_loop().call_soon(self._dispatch)
        return await future

    def _spawn(self, coro: Any) -> asyncio.Task[None]:
        task = asyncio.get_running_loop().create_task(coro)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)
        return task

    def _dispatch(self) -> None:
        """Start batches of queued commands while slots are free, leaving queued (in order) those
        whose stream has a transaction under way."""
        self._dispatch_soon = False
        while self._queue and self._inflight < self.max_inflight:
            batch: list[_Command] = []
            taken: set[str] = set()
            held: deque[_Command] = deque()
            for command in self._queue:
                if command.stream_id in self._busy or len(batch) >= self.max_batch:
                    held.append(command)
                else:
                    batch.append(command)
                    taken.add(command.stream_id)
            self._queue = held
            if not batch:
                return
            self._busy |= taken
            self._inflight += 1
            self._spawn(self._commit_batch(batch, taken))

    async def _commit_batch(self, batch: list[_Command], streams: set[str]) -> None:
        try:
            outcomes = await self._run(batch)
        finally:
            self._inflight -= 1
            self._busy -= streams
        for command, outcome in zip(batch, outcomes, strict=True):
            if not command.future.done():  # done: the caller was cancelled
                if isinstance(outcome, BaseException):
                    command.future.set_exception(outcome)
                else:
                    command.future.set_result(outcome)
        self._dispatch()

    async def _run(self, batch: list[_Command]) -> list[AppendRow | BaseException]:
        """Commit ``batch`` in one transaction; each command's outcome, or the error it met."""
        # Stable sort: one stream's commands stay in order; every batch locks streams in one order.
        order = sorted(range(len(batch)), key=lambda i: batch[i].stream_id)
        ordered = [batch[i] for i in order]
        outcomes: list[AppendRow | BaseException] = [None] * len(batch)  # type: ignore[list-item]
        try:
            rows = await self._execute(ordered)
        except psycopg.OperationalError as exc:
            # The connection failed: whether the batch committed is unknown to us.
            return [exc] * len(batch)
        except psycopg.Error as exc:
            if len(batch) == 1:
                return [exc]
            # Something in the batch failed the whole transaction: give each command its own.
            _log.info("batch of %d appends failed (%s); retrying them one by one", len(batch), exc)
            for position, command in zip(order, ordered, strict=True):
                try:
                    ((_, outcome, first, last),) = await self._execute([command])
                    outcomes[position] = self._done(command, outcome, first, last)
                except psycopg.Error as one_exc:
                    outcomes[position] = one_exc
            return outcomes
        for idx, outcome, first, last in rows:
            outcomes[order[idx - 1]] = self._done(ordered[idx - 1], outcome, first, last)
        return outcomes

    def _done(self, command: _Command, outcome: str, first: int | None, last: int) -> AppendRow:
        if outcome == "a" and self.announce:
            self._announce(command.stream_id, last)
        return outcome, first, last

    async def _execute(self, batch: list[_Command]) -> list[tuple[Any, ...]]:
        params = (
            _text_array([c.stream_id for c in batch]),
            _int_array([c.expected for c in batch]),
            _text_array([c.request_id for c in batch]),
            "\x1e".join([c.text for c in batch]),
        )
        conn = await self._take_connection()
        try:
            cur = await conn.execute(_APPEND_SQL, params, prepare=True)
            rows = await cur.fetchall()
        except BaseException:
            await self.pool.putconn(conn)  # the pool discards it if broken
            raise
        self._keep_connection(conn)
        return rows

    # -- connections ---------------------------------------------------------------------------
    # Checking a connection out of the pool costs more client time than the append itself. While
    # appends keep coming the writer keeps the connections its batches used, and gives them back
    # once it has been idle for KEEP_CONNECTIONS seconds (so an idle or forgotten store holds
    # none, and a batch waiting on a small pool gets them soon).

    async def _take_connection(self) -> psycopg.AsyncConnection[Any]:
        while self._connections:
            conn = self._connections.pop()
            try:
                await check_idle_connection(conn)  # as the pool checks it: a select(), no round trip
                return conn
            except psycopg.Error:
                await self.pool.putconn(conn)
        return await self.pool.getconn()

    def _keep_connection(self, conn: psycopg.AsyncConnection[Any]) -> None:
        self._connections.append(conn)
        self._last_used = asyncio.get_running_loop().time()
        if self._release_timer is None:
            self._release_timer = asyncio.get_running_loop().call_later(
                KEEP_CONNECTIONS, self._release_if_idle
            )

    def _release_if_idle(self) -> None:
        loop = asyncio.get_running_loop()
        idle_for = loop.time() - self._last_used
        if self._inflight or self._queue or idle_for < KEEP_CONNECTIONS:
            wait = max(KEEP_CONNECTIONS - idle_for, 0.001)
            self._release_timer = loop.call_later(wait, self._release_if_idle)
            return
        self._release_timer = None
        self._spawn(self._release_connections())

    async def _release_connections(self) -> None:
        connections, self._connections = self._connections, []
        for conn in connections:
            await self.pool.putconn(conn)

    # -- announcements -------------------------------------------------------------------------

    def _announce(self, stream_id: str, version: int) -> None:
        if version > self._announcements.get(stream_id, 0):
            self._announcements[stream_id] = version
        self._announce_wake.set()
        if self._announcer is None or self._announcer.done():
            self._announcer = self._spawn(self._announce_forever())

    async def _announce_forever(self) -> None:
        while True:
            await self._announce_wake.wait()
            self._announce_wake.clear()
            await self._flush_announcements()
            # Let announcements gather a moment: one NOTIFY transaction then covers many appends.
            await asyncio.sleep(ANNOUNCE_INTERVAL)

    async def _flush_announcements(self) -> None:
        pending, self._announcements = self._announcements, {}
        if not pending:
            return
        try:
            async with self.pool.connection() as conn:
                await conn.execute(
                    "SELECT stud_announce_many(%s::text[], %s::bigint[])",
                    (_text_array(list(pending)), _int_array(pending.values())),
                    prepare=True,
                )
        except psycopg.Error as exc:
            # Lost announcements only delay subscribers until their next notification or poll.
            _log.warning("could not announce %d stream(s): %s", len(pending), exc)

    async def close(self) -> None:
        """Wait for queued appends, send the last announcements, stop the background tasks."""
        while self._queue or self._inflight:
            await asyncio.sleep(0.001)
        if self._announcer is not None:
            self._announcer.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._announcer
            self._announcer = None
        await self._flush_announcements()
        if self._release_timer is not None:
            self._release_timer.cancel()
            self._release_timer = None
        await self._release_connections()

