"""The writer's statements sent straight through libpq (``stud_service.store._wire``): prepared once
per connection, errors raised with their SQLSTATE class, the connection left as psycopg expects."""

from __future__ import annotations

import psycopg
import pytest
from psycopg import errors, pq

from stud_service.store._wire import PreparedStatement

ADD = PreparedStatement("test_wire_add", "SELECT $1::integer + $2::integer")
DIVIDE = PreparedStatement("test_wire_divide", "SELECT 1 / $1::integer")


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


def test_psycopg_placeholders_are_refused() -> None:
    for sql in ("SELECT %s", "SELECT %(n)s"):
        with pytest.raises(ValueError, match="placeholders"):
            PreparedStatement("test_wire_bad", sql)
