"""The writer's statements sent straight through libpq (``stud_service.store._wire``): prepared once
per connection, errors raised with their SQLSTATE class, the connection left as psycopg expects."""

from __future__ import annotations

import asyncio
import threading
import time

import psycopg
import pytest
from psycopg import errors, pq

from stud_service.store import _wire
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


async def test_a_statement_the_session_lost_is_prepared_again(database_url: str) -> None:
    async with await psycopg.AsyncConnection.connect(database_url, autocommit=True) as conn:
        await ADD.run(conn, ("1", "2"))
        await conn.execute("SELECT 1", prepare=True)  # psycopg prepares statements of its own
        async with conn.transaction():
            raise psycopg.Rollback()  # so on rollback it sends DEALLOCATE ALL, dropping ours too
        assert await prepared_names(conn) == []
        await ADD.run(conn, ("1", "2"))
        assert await prepared_names(conn) == ["test_wire_add"]
        assert conn.pgconn.transaction_status == pq.TransactionStatus.IDLE


async def test_a_lost_connection_raises_operational_error(database_url: str) -> None:
    connect = psycopg.AsyncConnection.connect
    async with await connect(database_url, autocommit=True) as admin, await connect(
        database_url, autocommit=True
    ) as conn:
        await ADD.run(conn, ("1", "2"))
        await admin.execute("SELECT pg_terminate_backend(%s)", (conn.info.backend_pid,))
        with pytest.raises(psycopg.OperationalError):
            await ADD.run(conn, ("1", "2"))


async def test_a_spinning_wait_falls_back_to_sleeping_past_its_budget(
    database_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    steps: list[str] = []  # "spin" per spin step, "sleep" per wait on the socket for the answer
    spin_step, wait_until_ready = _wire._yield_cpu, _wire._ready
    this_task = asyncio.current_task()

    def ours() -> bool:
        # The patches are module-wide: other stores in this event loop (the session's servers
        # keep dealing hands; here `neighbour`) or in other threads spin and sleep too. Count this
        # task's steps only.
        try:
            return asyncio.current_task() is this_task
        except RuntimeError:  # a thread with no event loop running
            return False

    def spin() -> None:
        if ours():
            steps.append("spin")
        spin_step()

    async def ready(loop: asyncio.AbstractEventLoop, fd: int, add, remove) -> None:
        if add == loop.add_reader and ours():
            steps.append("sleep")
        await wait_until_ready(loop, fd, add, remove)

    def neighbour(stop: threading.Event) -> None:
        # Short statements that spin, then sleep: steps not to count. In a thread and event loop of their
        # own: a run stops spinning when its own loop has other work, which is not what this test is about.
        async def run() -> None:
            async with await psycopg.AsyncConnection.connect(database_url, autocommit=True) as other:
                while not stop.is_set():
                    await SLEEP.run(other, ("0.005",), spin=0.002)

        asyncio.run(run())

    monkeypatch.setattr(_wire, "_yield_cpu", spin)
    monkeypatch.setattr(_wire, "_ready", ready)
    # On a loaded machine a turn of the loop can take longer than BUSY_STEP (the process was descheduled),
    # which ends the spinning as a busy loop would: not what this test is about.
    monkeypatch.setattr(_wire, "BUSY_STEP", 1.0)
    connect = psycopg.AsyncConnection.connect
    async with await connect(database_url, autocommit=True) as conn:
        stop = threading.Event()
        neighbour_thread = threading.Thread(target=neighbour, args=(stop,))
        neighbour_thread.start()
        try:
            await SLEEP.run(conn, ("0",))  # prepared
            steps.clear()
            await SLEEP.run(conn, ("0.3",), spin=0.05)
            # It spins; once the 50 ms are spent it sleeps on the socket and never spins again
            # (the statement takes 300 ms: a run that kept spinning would never sleep).
            assert "spin" in steps and "sleep" in steps
            assert "spin" not in steps[steps.index("sleep"):]
            steps.clear()
            await SLEEP.run(conn, ("0.3",))  # no budget: it only sleeps
            assert steps and set(steps) == {"sleep"}
            with pytest.raises(errors.DivisionByZero):
                await DIVIDE.run(conn, ("0",), spin=0.01)
            await DIVIDE.run(conn, ("1",), spin=0.01)
            assert conn.pgconn.transaction_status == pq.TransactionStatus.IDLE
        finally:
            stop.set()
            await asyncio.to_thread(neighbour_thread.join)


async def test_the_event_loop_serves_other_tasks_while_a_run_spins(database_url: str) -> None:
    async with await psycopg.AsyncConnection.connect(database_url, autocommit=True) as conn:
        await SLEEP.run(conn, ("0",))

        async def timer() -> None:
            await asyncio.sleep(0.02)

        timer_task = asyncio.ensure_future(timer())
        await SLEEP.run(conn, ("0.2",), spin=5.0)  # spins for the whole statement
        # A spin step hands the loop over: the 20 ms timer fired while the 200 ms statement ran.
        assert timer_task.done()


def test_psycopg_placeholders_are_refused() -> None:
    for sql in ("SELECT %s", "SELECT %(n)s"):
        with pytest.raises(ValueError, match="placeholders"):
            PreparedStatement("test_wire_bad", sql)


async def test_a_run_stops_spinning_while_the_event_loop_has_other_work(
    database_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    # A busy loop polls the socket between its callbacks anyway: spinning would only take CPU from them.
    steps: list[str] = []
    spin_step, wait_until_ready = _wire._yield_cpu, _wire._ready
    this_task = asyncio.current_task()

    def spin() -> None:
        if asyncio.current_task() is this_task:
            steps.append("spin")
        spin_step()

    async def ready(loop: asyncio.AbstractEventLoop, fd: int, add, remove) -> None:
        if add == loop.add_reader and asyncio.current_task() is this_task:
            steps.append("sleep")
        await wait_until_ready(loop, fd, add, remove)

    async def busy(stop: asyncio.Event) -> None:
        while not stop.is_set():  # 1 ms of work at a time, as a loaded server's callbacks take
            until = time.perf_counter() + 0.001
            while time.perf_counter() < until:
                pass
            await asyncio.sleep(0)

    monkeypatch.setattr(_wire, "_yield_cpu", spin)
    monkeypatch.setattr(_wire, "_ready", ready)
    async with await psycopg.AsyncConnection.connect(database_url, autocommit=True) as conn:
        await SLEEP.run(conn, ("0",))  # prepared
        stop = asyncio.Event()
        busy_task = asyncio.ensure_future(busy(stop))
        try:
            steps.clear()
            await SLEEP.run(conn, ("0.2",), spin=5.0)  # a budget longer than the statement
            # The first turn of the loop ran the busy task's millisecond: the run never spins, it sleeps.
            assert steps and set(steps) == {"sleep"}
        finally:
            stop.set()
            await busy_task
