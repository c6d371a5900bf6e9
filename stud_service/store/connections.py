"""Telling a usable idle connection from one the server has closed, at almost no cost.

The check for the pool the store is given (``stud_service.db.connect`` opens it with this check) and for
the connections the writer keeps between its batches.
"""

from __future__ import annotations

import select

import psycopg


async def check_idle_connection(conn: psycopg.AsyncConnection) -> None:
    """Pool checkout check, costing one ``select()`` call and no round trip in the common case.

    An idle pooled connection receives nothing unless the server is closing it (terminated
    backend, restart, idle timeout). If its socket has something to read, a ``SELECT 1`` tells
    whether it is still usable; raising makes the pool discard it and hand out another.
    """
    if conn.closed or conn.broken:
        raise psycopg.OperationalError("connection is closed")
    readable, _, _ = select.select([conn.pgconn.socket], [], [], 0)
    if readable:
        await conn.execute("SELECT 1")
