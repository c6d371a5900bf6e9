"""The writer's statements sent straight through libpq (``stud_service.store._wire``): prepared once
per connection, errors raised with their SQLSTATE class, the connection left as psycopg expects."""

from __future__ import annotations

import asyncio
import time

import psycopg
import pytest
from psycopg import errors, pq

from stud_service.store._wire import PreparedStatement

ADD = PreparedStatement("test_wire_add", "SELECT $1::integer + $2::integer")
DIVIDE = PreparedStatement("test_wire_divide", "SELECT 1 / $1::integer")
SLEEP = PreparedStatement("test_wire_sleep", "SELECT pg_sleep($1::float8)")


async def prepared_names(conn: psycopg.AsyncConnection) -> list[str]:
    cur = await conn.execute("SELECT name FROM pg_prepared_statements WHERE name LIKE 'test_wire_%'")
    return sorted(name for (name,) in await cur.fetchall())


async def test_runs_are_prepared_once_per_connection(database_url: str) -> None:
    async with await psycopg.AsyncConnection.connect(database_url, autocommit=True) as conn:
        for n in range(3):
            await ADD.run(conn, (str(n), "1"))
        await DIVIDE.run(conn, ("2",))
        assert await prepared_names(conn) == ["test_wire_add", "test_wire_divide"]
        assert conn.pgconn.transaction_status == pq.TransactionStatus.IDLE
    async with await psycopg.AsyncConnection.connect(database_url, autocommit=True) as other:
        await ADD.run(other, ("1", None))  # NULL parameter; prepared again on this connection
        assert await prepared_names(other) == ["test_wire_add"]


async def test_an_error_raises_its_class_and_leaves_the_connection_usable(database_url: str) -> None:
    async with await psycopg.AsyncConnection.connect(database_url, autocommit=True) as conn:
        with pytest.raises(errors.DivisionByZero, match="division by zero"):
            await DIVIDE.run(conn, ("0",))
        assert conn.pgconn.transaction_status == pq.TransactionStatus.IDLE
        await DIVIDE.run(conn, ("1",))
        cur = await conn.execute("SELECT 41 + 1")  # psycopg's own path still works beside it
        assert await cur.fetchone() == (42,)


async def test_a_lost_connection_raises_operational_error(database_url: str) -> None:
    connect = psycopg.AsyncConnection.connect
    async with await connect(database_url, autocommit=True) as admin, await connect(
        database_url, autocommit=True
    ) as conn:
        await ADD.run(conn, ("1", "2"))
        await admin.execute("SELECT pg_terminate_backend(%s)", (conn.info.backend_pid,))
        with pytest.raises(psycopg.OperationalError):
            await ADD.run(conn, ("1", "2"))


async def test_a_spinning_wait_falls_back_to_sleeping_past_its_budget(database_url: str) -> None:
    async with await psycopg.AsyncConnection.connect(database_url, autocommit=True) as conn:
        await SLEEP.run(conn, ("0",))  # prepared
        started = time.process_time()
        await SLEEP.run(conn, ("0.3",), spin=0.01)
        # Spinning stops after 10 ms: the rest of the 300 ms is spent asleep, not on the CPU.
        assert time.process_time() - started < 0.15
        with pytest.raises(errors.DivisionByZero):
            await DIVIDE.run(conn, ("0",), spin=0.01)
        await DIVIDE.run(conn, ("1",), spin=0.01)
        assert conn.pgconn.transaction_status == pq.TransactionStatus.IDLE


async def test_the_event_loop_serves_other_tasks_while_a_run_spins(database_url: str) -> None:
    async with await psycopg.AsyncConnection.connect(database_url, autocommit=True) as conn:
        await SLEEP.run(conn, ("0",))
        timer_fired_at: list[float] = []

        async def timer() -> None:
            await asyncio.sleep(0.02)
            timer_fired_at.append(time.perf_counter())

        timer_task = asyncio.ensure_future(timer())
        await SLEEP.run(conn, ("0.2",), spin=5.0)  # spins for the whole statement
        finished_at = time.perf_counter()
        await timer_task
        assert timer_fired_at[0] < finished_at - 0.1  # on time, well before the run ended


def test_psycopg_placeholders_are_refused() -> None:
    for sql in ("SELECT %s", "SELECT %(n)s"):
        with pytest.raises(ValueError, match="placeholders"):
            PreparedStatement("test_wire_bad", sql)
