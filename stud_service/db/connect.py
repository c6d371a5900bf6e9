"""Connecting: a pool of async connections on a migrated database, with a clear error when unreachable."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator
from dataclasses import dataclass

import psycopg
from psycopg.conninfo import conninfo_to_dict
from psycopg_pool import AsyncConnectionPool

from stud_service.db.embedded import EmbeddedPostgres
from stud_service.db.settings import DatabaseSettings, describe_url
from stud_service.store.connections import check_idle_connection
from stud_service.store.migrate import apply_migrations

CONNECT_TIMEOUT_SECONDS = 10
# The longest a call waits for a pooled connection (psycopg_pool's own default is 30 s): while the
# database is away, callers get UNAVAILABLE after this rather than hanging on.
DEFAULT_STORE_TIMEOUT_SECONDS = 5.0
# psycopg_pool retries a failed connection attempt with exponential backoff (1, 2, 4, 8 ... s) for up
# to this long, then gives the slot up and starts afresh only when a new caller asks for a connection.
# Its default, five minutes, let a replica find a restarted database up to half an outage's length late.
# So each attempt gives up at once and, while callers are queued for a connection (a write resolving its
# outcome, a dealer), the pool starts a new one RECONNECT_PAUSE_SECONDS later (see _StorePool): they get
# one within a fraction of a second of a new primary taking writes, not when their wait ends. With nobody
# waiting, the next caller starts an attempt as before.
RECONNECT_TIMEOUT_SECONDS = 0.0
RECONNECT_PAUSE_SECONDS = 0.2


class DatabaseUnavailable(RuntimeError):
    """PostgreSQL could not be reached. The message names the host, never the password."""


@dataclass(slots=True)
class Database:
    """An open database: its URL, a connection pool, and the embedded server if we started one."""

    url: str
    pool: AsyncConnectionPool
    embedded: EmbeddedPostgres | None = None


def _without_password(text: str, url: str) -> str:
    # psycopg's messages name host and user, not the password; this is a guard should one ever do.
    try:
        password = conninfo_to_dict(url).get("password")
    except psycopg.ProgrammingError:
        password = None
    return text.replace(str(password), "***") if password else text


async def check_reachable(url: str) -> None:
    """Connect once and raise :class:`DatabaseUnavailable` (naming the host) if that fails."""
    try:
        conn = await psycopg.AsyncConnection.connect(url, connect_timeout=CONNECT_TIMEOUT_SECONDS)
    except psycopg.Error as exc:
        reason = " ".join(line.strip() for line in str(exc).splitlines() if line.strip())
        reason = _without_password(reason or type(exc).__name__, url)
        raise DatabaseUnavailable(
            f"cannot connect to PostgreSQL at {describe_url(url)}: {reason}"
        ) from None
    await conn.close()


async def open_pool(
    url: str, *, min_size: int = 1, max_size: int = 10, timeout: float = DEFAULT_STORE_TIMEOUT_SECONDS
) -> AsyncConnectionPool:
    """An open pool of autocommit connections (each statement is its own transaction unless a
    block opens one with ``conn.transaction()``); a checkout waits at most ``timeout`` seconds."""
    await check_reachable(url)
    pool = _StorePool(
        url,
        min_size=min_size,
        max_size=max_size,
        kwargs={"autocommit": True, "connect_timeout": CONNECT_TIMEOUT_SECONDS},
        timeout=timeout,
        reconnect_timeout=RECONNECT_TIMEOUT_SECONDS,
        open=False,
        check=check_idle_connection,
        name="stud-store",
    )
    await pool.open(wait=True, timeout=CONNECT_TIMEOUT_SECONDS)
    return pool


_reconnecting: set[asyncio.Task[None]] = set()  # held until done (the loop keeps only weak references)


class _StorePool(AsyncConnectionPool):
    """The store's pool: when psycopg_pool gives a connection attempt up, it tries again shortly while
    callers are queued (``reconnect_failed``), one retry at a time; while one is due, callers who find no
    connection wait for it rather than each starting an attempt of their own (``_maybe_grow_pool``).

    psycopg_pool starts an attempt for every caller that finds no connection while the pool is not already
    growing, and with RECONNECT_TIMEOUT_SECONDS at 0 a failed attempt stops the growing at once. While the
    database refused, a burst of callers made as many attempts, each failure a retry of its own (each a few
    milliseconds of the event loop, and two warnings), and the replica was too busy to refuse the calls in
    time."""

    retry: asyncio.Task[None] | None = None

    def _maybe_grow_pool(self) -> None:
        if self.retry is None:
            super()._maybe_grow_pool()

    async def reconnect_failed(self) -> None:
        """Start another attempt RECONNECT_PAUSE_SECONDS from now if callers are queued for a connection
        then (``check`` grows a pool below its size), unless a retry is due already."""
        if self.retry is not None:
            return

        async def again() -> None:
            await asyncio.sleep(RECONNECT_PAUSE_SECONDS)
            self.retry = None  # before the attempt: its failure must be able to set up the next retry
            if not self.closed and self.get_stats().get("requests_waiting", 0) > 0:
                with contextlib.suppress(Exception):  # closed meanwhile: nothing to connect for
                    await self.check()

        task = self.retry = asyncio.get_running_loop().create_task(again())
        _reconnecting.add(task)
        task.add_done_callback(_reconnecting.discard)


@contextlib.asynccontextmanager
async def open_database(
    settings: DatabaseSettings,
    *,
    migrate: bool = True,
    max_size: int = 10,
    timeout: float = DEFAULT_STORE_TIMEOUT_SECONDS,
) -> AsyncIterator[Database]:
    """Resolve the database (starting the embedded one when no URL is set), migrate it, open a pool."""
    embedded: EmbeddedPostgres | None = None
    url = settings.url
    if url is None:
        embedded = EmbeddedPostgres(settings.embedded_pgdata)
        url = await asyncio.to_thread(embedded.start)
    try:
        await check_reachable(url)
        if migrate:
            await apply_migrations(url)
        pool = await open_pool(url, max_size=max_size, timeout=timeout)
        try:
            yield Database(url=url, pool=pool, embedded=embedded)
        finally:
            await pool.close()
    finally:
        if embedded is not None:
            await asyncio.to_thread(embedded.stop)
