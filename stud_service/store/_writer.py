"""Group commit for appends, and the announcements that follow them.

Appends waiting at the same moment go to PostgreSQL together: one round trip, one transaction,
one WAL flush for the lot (``stud_append_joined``), each command keeping its own outcome. While one
batch is committing the next gathers, so under load each commit carries many commands, and alone
an append costs what it would cost by itself. A command is acknowledged only after its batch's
durable commit.

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
from dataclasses import dataclass, field
from typing import Any

import psycopg
from psycopg_pool import AsyncConnectionPool

_log = logging.getLogger(__name__)

ANNOUNCE_INTERVAL = 0.002  # seconds between announcement transactions, at most one per interval

AppendRow = tuple[str, int | None, int]  # outcome, first version, last (or actual) version


@dataclass(slots=True)
class _Command:
    stream_id: str
    expected: int
    request_id: str | None
    types: list[str]
    hands: list[int | None]
    texts: list[str]
    future: asyncio.Future[AppendRow] = field(repr=False)


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
        self._tasks: set[asyncio.Task[None]] = set()
        self._announcements: dict[str, int] = {}
        self._announcer: asyncio.Task[None] | None = None
        self._announce_wake = asyncio.Event()

    async def append(
        self,
        stream_id: str,
        expected: int,
        request_id: str | None,
        types: list[str],
        hands: list[int | None],
        texts: list[str],
    ) -> AppendRow:
        future: asyncio.Future[AppendRow] = asyncio.get_running_loop().create_future()
        self._queue.append(_Command(stream_id, expected, request_id, types, hands, texts, future))
        if self._inflight < self.max_inflight:
            self._inflight += 1
            self._spawn(self._drain())
        return await future

    def _spawn(self, coro: Any) -> asyncio.Task[None]:
        task = asyncio.get_running_loop().create_task(coro)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)
        return task

    async def _drain(self) -> None:
        try:
            while self._queue:
                batch = [self._queue.popleft() for _ in range(min(len(self._queue), self.max_batch))]
                await self._commit(batch)
        finally:
            self._inflight -= 1

    async def _commit(self, batch: list[_Command]) -> None:
        # Stable sort: one stream's commands stay in order; every batch locks streams in one order.
        batch.sort(key=lambda c: c.stream_id)
        try:
            if len(batch) == 1:  # alone: the plain function, no batch bookkeeping
                rows = [(1, *await self._commit_one(batch[0]))]
            else:
                rows = await self._commit_batch(batch)
        except psycopg.OperationalError as exc:
            # The connection failed: whether the batch committed is unknown to us.
            for command in batch:
                _resolve(command.future, exception=exc)
            return
        except psycopg.Error as exc:
            if len(batch) == 1:
                _resolve(batch[0].future, exception=exc)
                return
            # Something in the batch failed the whole transaction: give each command its own.
            _log.info("batch of %d appends failed (%s); retrying them one by one", len(batch), exc)
            for command in batch:
                try:
                    self._done(command, await self._commit_one(command))
                except psycopg.Error as one_exc:
                    _resolve(command.future, exception=one_exc)
            return
        for idx, outcome, first, last in rows:
            self._done(batch[idx - 1], (outcome, first, last))

    def _done(self, command: _Command, row: AppendRow) -> None:
        if row[0] == "a" and self.announce:
            self._announce(command.stream_id, row[2])
        _resolve(command.future, result=row)

    async def _commit_one(self, c: _Command) -> AppendRow:
        async with self.pool.connection() as conn:
            cur = await conn.execute(
                "SELECT * FROM stud_append_text(%s, %s, %s, %s)",
                (c.stream_id, c.expected, c.request_id, "\n".join(c.texts)),
            )
            return await cur.fetchone()

    async def _commit_batch(self, batch: list[_Command]) -> list[tuple[int, str, int | None, int]]:
        async with self.pool.connection() as conn:
            cur = await conn.execute(
                "SELECT * FROM stud_append_joined(%s, %s, %s, %s)",
                (
                    [c.stream_id for c in batch],
                    [c.expected for c in batch],
                    [c.request_id for c in batch],
                    "\x1e".join("\n".join(c.texts) for c in batch),
                ),
            )
            return await cur.fetchall()

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
                    "SELECT stud_announce_many(%s, %s)", (list(pending), list(pending.values()))
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


def _resolve(
    future: asyncio.Future[AppendRow], result: AppendRow | None = None, exception: BaseException | None = None
) -> None:
    if future.done():  # the caller was cancelled while waiting
        return
    if exception is not None:
        future.set_exception(exception)
    else:
        future.set_result(result)
