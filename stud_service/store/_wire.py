"""Prepared statements sent straight through libpq, for the append writer's hot path.

psycopg's ``execute`` builds a cursor, converts the query and its parameters and drives the wait
through generators: about 50 µs of client time per call, which at a few hundred group commits a
second is a large share of the writer's whole cycle. The writer's statements take parameters it
has already written as text and return nothing it needs but success, or one value (the routed
append's outcome, read as text), so here a statement is prepared once per connection and each run
is one ``PQsendQueryPrepared`` and a wait on the socket.
A run that finds its statement gone from the session (psycopg clears the session's prepared
statements after a rollback) prepares it again and runs once more.

The connection stays a normal psycopg connection: each run is one autocommit statement, so when it
returns the connection is idle again, as psycopg and the pool expect. A run cut short (cancelled,
connection lost) leaves the connection busy or broken, and the pool discards it when it comes back.

A run may wait for its answer by spinning (``spin`` seconds at most) instead of sleeping on the
socket. On a virtual machine an idle vCPU halts, and waking it when the answer arrives costs tens of
microseconds on each side (measured here: a one-row round trip takes 90 µs sleeping, 27 µs
spinning); a serial group-commit cycle pays that on every batch. Each spin step is one turn of the
event loop, so the loop's other tasks and I/O carry on, and a ``sched_yield``, so any other runnable
process (PostgreSQL itself, on a shared host) gets the CPU first. Past ``spin`` the run sleeps on the
socket as usual. So does a run whose spin step found the loop with other work (the step took longer
than ``BUSY_STEP``): a busy loop polls the socket between its callbacks anyway, so its CPU never
halts, and spinning there, or handing the CPU to other processes with ``sched_yield``, only delays
the work waiting in the loop.
"""

from __future__ import annotations

import asyncio
import os
import re
import time
import weakref
from collections.abc import Iterable, Sequence
from typing import Any

import psycopg
from psycopg import pq
from psycopg.errors import InvalidSqlStatementName, error_from_result

from stud_service.store import spans

_OK = (pq.ExecStatus.COMMAND_OK, pq.ExecStatus.TUPLES_OK)
_yield_cpu = getattr(os, "sched_yield", lambda: None)  # POSIX; elsewhere a spin step only yields the loop
# A spin step (one turn of the event loop) taking longer than this ran other work: the loop is busy.
BUSY_STEP = 50e-6


def quoted(value: str) -> str:
    """``value`` as an element of an array literal."""
    return '"' + value.replace("\\", "\\\\").replace('"', '\\"') + '"'


def text_array(values: Sequence[str | None]) -> str:
    """A text[] literal. Built here because psycopg inspects every element of a list parameter
    to choose its type, which costs more than the whole append function call for small batches."""
    return "{" + ",".join(["NULL" if v is None else quoted(v) for v in values]) + "}"


def int_array(values: Iterable[int | None]) -> str:
    return "{" + ",".join(["NULL" if v is None else str(v) for v in values]) + "}"


class PreparedStatement:
    """One statement with numbered text parameters ($1, $2, ...), prepared on first use on each
    connection it runs on."""

    def __init__(self, name: str, sql: str) -> None:
        if re.search(r"%(\(\w+\))?s", sql):
            raise ValueError("use $1, $2, ... placeholders")
        self.name = name.encode()
        self.sql = sql.encode()
        self._prepared_on: weakref.WeakSet[psycopg.AsyncConnection[Any]] = weakref.WeakSet()

    async def run(
        self, conn: psycopg.AsyncConnection[Any], params: Sequence[str | bytes | None], spin: float = 0.0
    ) -> bytes | None:
        if spans.tracer is None:
            return await self._run(conn, params, spin)
        with spans.statement(self.sql):
            return await self._run(conn, params, spin)

    async def _run(
        self, conn: psycopg.AsyncConnection[Any], params: Sequence[str | bytes | None], spin: float = 0.0
    ) -> bytes | None:
        """Run the statement with ``params`` (text, UTF-8 bytes, or None for NULL); raise its error
        if it failed, else return the first column of its first row as text (None: no row, or NULL).
        ``spin``: seconds to wait for the answer by spinning before sleeping on the socket."""
        pgconn = conn.pgconn
        values = [p.encode() if isinstance(p, str) else p for p in params]
        if conn not in self._prepared_on:
            await self._prepare(conn)
        pgconn.send_query_prepared(self.name, values)
        try:
            return await _result(pgconn, spin)
        except InvalidSqlStatementName:
            # The session lost its prepared statements: psycopg sends DEALLOCATE ALL after a
            # rollback (or a DROP, ALTER, DISCARD ALL) on a connection where it has prepared
            # statements of its own. The run failed before anything ran: prepare again, run again.
            self._prepared_on.discard(conn)
            await self._prepare(conn)
            pgconn.send_query_prepared(self.name, values)
            return await _result(pgconn, spin)

    async def _prepare(self, conn: psycopg.AsyncConnection[Any]) -> None:
        conn.pgconn.send_prepare(self.name, self.sql)
        await _result(conn.pgconn)
        self._prepared_on.add(conn)


async def _result(pgconn: pq.abc.PGconn, spin: float = 0.0) -> bytes | None:
    """Flush what was sent, wait for the server's answer, and raise it if it is an error; else the first
    column of its first row, as text (None if it has none)."""
    loop = asyncio.get_running_loop()
    fd = pgconn.socket
    while pgconn.flush():  # nonblocking connection: the query may not fit the socket at once
        await _ready(loop, fd, loop.add_writer, loop.remove_writer)
    spin_until = time.perf_counter() + spin if spin > 0 else 0.0
    error = None
    value = None
    while True:
        pgconn.consume_input()
        while pgconn.is_busy():  # getting the next result would block: wait for more input
            if spin_until and time.perf_counter() < spin_until:
                step = time.perf_counter()
                await asyncio.sleep(0)
                if time.perf_counter() - step > BUSY_STEP:
                    spin_until = 0.0  # the loop has other work: wait on the socket from now on
                else:
                    _yield_cpu()
            else:
                await _ready(loop, fd, loop.add_reader, loop.remove_reader)
            pgconn.consume_input()
        result = pgconn.get_result()
        if result is None:
            break
        if error is None and result.status not in _OK:
            error = error_from_result(result)
        elif value is None and result.ntuples and result.nfields:
            value = result.get_value(0, 0)
    if error is not None:
        raise error
    return value


async def _ready(loop: asyncio.AbstractEventLoop, fd: int, add: Any, remove: Any) -> None:
    ready: asyncio.Future[None] = loop.create_future()
    add(fd, _wake, ready)
    try:
        await ready
    finally:
        remove(fd)


def _wake(ready: asyncio.Future[None]) -> None:
    if not ready.done():  # the fd can report ready again before the waiter has run
        ready.set_result(None)
