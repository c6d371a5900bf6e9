"""While the database is away the store's pool tries to connect several times a second (db.connect,
``_reconnect_soon``), and psycopg's pool warns once per failed attempt: the log keeps one such line per ten
seconds (observability.logging, ``RepeatedLineFilter``), the next one saying how many were held back. A real
PostgreSQL behind a loopback proxy that starts refusing connections."""

from __future__ import annotations

import io
import json
import logging
from collections.abc import AsyncIterator, Iterator

import psycopg
import pytest
import pytest_asyncio
from own_postgres import started_with_database
from psycopg_pool import PoolTimeout
from tcp_proxy import TcpProxy, tcp_proxy

from stud_service.db import open_pool
from stud_service.observability.logging import RepeatedLineFilter, configure_logging


@pytest_asyncio.fixture
async def proxy() -> AsyncIterator[TcpProxy]:
    async with started_with_database("stud-pool-log-pg-") as pg, tcp_proxy(pg.port) as proxy:
        yield proxy


@pytest.fixture
def log() -> Iterator[io.StringIO]:
    stream = io.StringIO()
    root = logging.getLogger()
    level = root.level
    handler = configure_logging("json", "INFO", stream)
    try:
        yield stream
    finally:
        root.removeHandler(handler)
        root.setLevel(level)
        logging.captureWarnings(False)


def pool_warnings(log: io.StringIO) -> list[str]:
    lines = [json.loads(line) for line in log.getvalue().splitlines()]
    return [line["msg"] for line in lines
            if line["logger"].startswith("psycopg.pool") and line["level"] == "WARNING"]


async def test_a_database_away_leaves_one_pool_warning_not_one_per_attempt(
    proxy: TcpProxy, log: io.StringIO
) -> None:
    pool = await open_pool(f"postgresql://postgres@127.0.0.1:{proxy.port}/postgres", max_size=2, timeout=4)
    try:
        proxy.refusing = True
        proxy.cut()  # the database is away: every connection goes, every new one is refused
        timed_out = False
        for _ in range(10):  # a connection cut but not yet known to be fails its statement first
            try:
                async with pool.connection() as conn:  # a caller waits: the pool tries again meanwhile
                    await conn.execute("SELECT 1")
            except PoolTimeout:
                timed_out = True
                break
            except psycopg.OperationalError:
                continue
        assert timed_out, "a connection was had with the database away"
    finally:
        await pool.close()
    assert proxy.refused >= 5, "the pool did not try to connect several times"
    warned = [msg for msg in pool_warnings(log) if "error connecting" in msg]
    assert len(warned) == 1, warned


def test_the_next_line_let_through_counts_those_held_back_and_other_loggers_are_untouched() -> None:
    now = [100.0]
    stream = io.StringIO()
    handler = logging.StreamHandler(stream)
    handler.addFilter(RepeatedLineFilter(interval=10, clock=lambda: now[0]))
    pool_log, ours = logging.getLogger("psycopg.pool.test"), logging.getLogger("stud_service.test")
    for logger in (pool_log, ours):
        logger.addHandler(handler)
        logger.propagate = False
    try:
        for attempt in range(5):
            pool_log.warning("error connecting in %r: %s", "stud-store", f"refused {attempt}")
            ours.warning("ours %d", attempt)
        now[0] += 10  # the interval is over
        pool_log.warning("error connecting in %r: %s", "stud-store", "refused 5")
    finally:
        for logger in (pool_log, ours):
            logger.removeHandler(handler)
            logger.propagate = True
    lines = stream.getvalue().splitlines()
    assert [line for line in lines if line.startswith("error")] == [
        "error connecting in 'stud-store': refused 0",
        "error connecting in 'stud-store': refused 5 (and 4 more since the last such line)",
    ]
    assert [line for line in lines if line.startswith("ours")] == [f"ours {n}" for n in range(5)]
