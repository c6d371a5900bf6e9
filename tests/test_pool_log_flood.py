"""While the database is away the store's pool tries to connect several times a second (db.connect,
``_StorePool``), one attempt at a time however many callers wait, and psycopg's pool warns once per
failed attempt: the log keeps one such line per ten seconds (observability.logging, ``RepeatedLineFilter``),
the next one saying how many were held back. A real PostgreSQL behind a loopback proxy that starts refusing
connections."""

from __future__ import annotations

import asyncio
import io
import json
import logging
import time
from collections.abc import AsyncIterator, Iterator

import psycopg
import pytest
import pytest_asyncio
from own_postgres import started_with_database
from psycopg_pool import PoolTimeout
from tcp_proxy import TcpProxy, tcp_proxy

from stud_service.db import open_pool
from stud_service.db.connect import RECONNECT_PAUSE_SECONDS
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


BURST = 100
ARRIVAL_SECONDS = 0.01
# psycopg_pool makes each attempt twice (its backoff with a zero reconnect timeout retries once at once).
CONNECTS_PER_ATTEMPT = 2


async def test_a_burst_of_callers_with_the_database_away_sets_off_one_attempt_at_a_time(
    proxy: TcpProxy,
) -> None:
    """Each caller finding no connection used to start an attempt of its own and each failed attempt a retry
    of its own: a hundred callers meant hundreds of attempts a second, the replica too busy to refuse them in
    time. Now the callers wait on the one retry due, one every RECONNECT_PAUSE_SECONDS or so."""
    pool = await open_pool(f"postgresql://postgres@127.0.0.1:{proxy.port}/postgres", max_size=2, timeout=2)

    async def caller() -> None:
        try:
            async with pool.connection() as conn:
                await conn.execute("SELECT 1")
        except (PoolTimeout, psycopg.OperationalError):
            pass

    try:
        proxy.refusing = True
        proxy.cut()
        await caller()  # the pooled connection, cut, fails its statement and is dropped
        failed_before = pool.get_stats().get("connections_errors", 0)
        started = time.monotonic()
        callers = []
        for _ in range(BURST):  # arriving over a second, as calls to a replica do
            callers.append(asyncio.create_task(caller()))
            await asyncio.sleep(ARRIVAL_SECONDS)
        await asyncio.gather(*callers)
        waited = time.monotonic() - started
        attempts = pool.get_stats().get("connections_errors", 0) - failed_before
    finally:
        await pool.close()
    # With each caller's attempt retried on its own, over five hundred. Now about one attempt per retry;
    # a caller arriving just as a retry's attempt fails may start one more.
    assert waited >= 2.0
    retries = waited / RECONNECT_PAUSE_SECONDS + 2
    assert 1 <= attempts <= 2 * CONNECTS_PER_ATTEMPT * retries, (attempts, waited)


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
