"""On Citus: which worker holds each stream's shard, and a pool of connections to each worker.

Through the coordinator, an append on one stream (``stud_append_stream``) costs the coordinator about a third
of a millisecond of CPU to plan it and pass it on, and the worker more to take it from there than to run it
itself (``benchmarks/bench_citus_floor.py``). A worker with Citus's metadata (every worker has it since Citus
11) takes statements on the distributed tables itself and runs those on its own shards locally, its commit
its own. So the writer treats each worker as a PostgreSQL of its own for the streams it holds, batches and all
(``_writer``), and asks this which worker that is.

Which worker holds a stream is read from the coordinator's catalogue (``pg_dist_placement``) in the
background, many streams a query, and read again after ``REFRESH_SECONDS``: until a stream is known, and
whenever its worker cannot be reached, its appends go through the coordinator. A stale answer (the shard moved
meanwhile) costs speed, not correctness: the worker that gets the statement routes it to the shard's new
place, as the coordinator would. The workers are reached at the names the coordinator knows them by, with the
coordinator's own user, password and options; a pool per worker, opened (one connection made) before any
append is sent there.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Sequence
from typing import Any

import psycopg
from psycopg.conninfo import conninfo_to_dict, make_conninfo
from psycopg_pool import AsyncConnectionPool

from stud_service.store.connections import check_idle_connection

_log = logging.getLogger(__name__)

# The worker holding each stream's shard, and its place among the nodes (the coordinator's, group 0, is
# no route: a table it keeps itself is appended to through it anyway).
ROUTES_SQL = """
SELECT c.stream_id, n.nodename, n.nodeport
  FROM unnest(%s::text[]) AS c(stream_id)
  JOIN pg_dist_placement p ON p.shardid = get_shard_id_for_distribution_column('events', c.stream_id)
  JOIN pg_dist_node n ON n.groupid = p.groupid
 WHERE n.isactive AND n.noderole = 'primary' AND n.groupid <> 0
"""
REFRESH_SECONDS = 60.0  # a stream's worker is read again this long after it was last read (shards can move)
UNREACHABLE_SECONDS = 30.0  # a worker that could not be reached is left alone this long
CHECKOUT_SECONDS = 1.0  # the longest an append waits for a worker's connection before going the other way
OPEN_SECONDS = 5.0  # the longest a worker's pool may take to open its first connection
KNOWN_ROUTES = 100_000  # streams whose worker is remembered


class WorkerRoutes:
    """The worker pools of a Citus cluster, and which of them each stream's appends go to."""

    def __init__(self, coordinator: AsyncConnectionPool, *, max_size: int) -> None:
        self._coordinator = coordinator
        self._max_size = max_size
        # Workers by name (_name: also their pools' names and the metrics' label).
        self._routes: dict[str, tuple[str, float]] = {}  # stream -> its worker, and until when that holds
        self._pools: dict[str, AsyncConnectionPool] = {}  # the workers' open pools
        # worker -> until when it is left alone (its pool did not open, or it gave no connection)
        self._away: dict[str, float] = {}
        self._wanted: set[str] = set()  # streams to look up
        self._looking: asyncio.Task[None] | None = None
        self._closed = False
        self.enabled = True  # false once the cluster shows it has no such routes (see _look_up)

    def pool_for(self, stream_id: str) -> AsyncConnectionPool | None:
        """The pool of ``stream_id``'s worker, or None: go through the coordinator (not known yet, or not
        reachable now). A stream not known, or not looked up for a while, is looked up in the background."""
        if not self.enabled:
            return None
        route = self._routes.get(stream_id)
        now = asyncio.get_running_loop().time()
        if route is None or route[1] < now:
            self._want(stream_id)
            if route is None:
                return None
        return self._reachable(route[0], now)

    def _reachable(self, worker: str, now: float) -> AsyncConnectionPool | None:
        """``worker``'s pool, unless it has none or is left alone now."""
        return None if self._away.get(worker, 0.0) > now else self._pools.get(worker)

    def pools(self) -> dict[str, AsyncConnectionPool]:
        """The open worker pools, by name ("citus-worker host:port"): for the pool metrics."""
        return dict(self._pools)

    def knows(self, stream_id: str) -> bool:
        """Whether ``stream_id``'s appends go straight to its worker now (nothing looked up by asking)."""
        route = self._routes.get(stream_id)
        if not self.enabled or route is None:
            return False
        return self._reachable(route[0], asyncio.get_running_loop().time()) is not None

    def unreachable(self, pool: AsyncConnectionPool, error: BaseException) -> None:
        """``pool``'s worker gave no connection: its streams go through the coordinator for a while."""
        self._leave_alone(pool.name, error)

    def _leave_alone(self, worker: str, error: BaseException) -> None:
        now = asyncio.get_running_loop().time()
        if self._away.get(worker, 0.0) <= now:  # once an outage, not once an append
            _log.warning("%s not reachable (%s); its streams' appends go through the coordinator for %.0f s",
                         worker, error, UNREACHABLE_SECONDS)
        self._away[worker] = now + UNREACHABLE_SECONDS

    def _want(self, stream_id: str) -> None:
        if self._closed:
            return
        self._wanted.add(stream_id)
        if self._looking is None or self._looking.done():
            self._looking = asyncio.get_running_loop().create_task(self._look_up(), name="stud-citus-routes")

    async def _look_up(self) -> None:
        while self._wanted and not self._closed:
            streams, self._wanted = sorted(self._wanted), set()
            try:
                async with self._coordinator.connection() as conn:
                    cur = await conn.execute(ROUTES_SQL, (streams,), prepare=True)
                    found = await cur.fetchall()
            except psycopg.OperationalError as exc:  # the coordinator away: asked again by the next append
                _log.info("could not look up the workers of %d stream(s): %s", len(streams), exc)
                return
            except psycopg.Error as exc:  # no distributed event log: every append through the coordinator
                _log.warning("appends go through the Citus coordinator: %s", exc)
                self.enabled = False
                return
            await self._learn(found)

    async def _learn(self, found: Sequence[tuple[str, str, int]]) -> None:
        now = asyncio.get_running_loop().time()
        expires = now + REFRESH_SECONDS
        for stream_id, host, port in found:
            worker = _name(host, port)
            if worker not in self._pools and self._away.get(worker, 0.0) <= now:
                await self._open(worker, host, port)
            # A worker whose pool did not open: the stream is looked up again, and the pool opened, once the
            # worker is no longer left alone.
            until = expires if worker in self._pools else min(expires, self._away.get(worker, expires))
            self._routes.pop(stream_id, None)  # re-inserted last: the oldest go first when there are too many
            self._routes[stream_id] = (worker, until)
        while len(self._routes) > KNOWN_ROUTES:
            del self._routes[next(iter(self._routes))]

    async def _open(self, worker: str, host: str, port: int) -> None:
        """A pool of connections to ``worker`` at ``host``:``port``, open with one connection made; if the
        worker does not answer, none, and the worker left alone."""
        settings: dict[str, Any] = {**conninfo_to_dict(self._coordinator.conninfo), "host": host,
                                    "port": str(port)}
        settings.pop("hostaddr", None)
        kwargs = self._coordinator.kwargs if isinstance(self._coordinator.kwargs, dict) else {}
        pool = AsyncConnectionPool(
            make_conninfo(**settings), min_size=1, max_size=self._max_size, kwargs=dict(kwargs),
            timeout=CHECKOUT_SECONDS, reconnect_timeout=0.0, check=check_idle_connection, open=False,
            name=worker,
        )
        try:
            await pool.open(wait=True, timeout=OPEN_SECONDS)
        except psycopg.Error as exc:  # PoolTimeout among them
            with contextlib.suppress(Exception):
                await pool.close()
            self._leave_alone(worker, exc)
            return
        if self._closed:
            await pool.close()
            return
        self._pools[worker] = pool

    async def close(self) -> None:
        self._closed = True
        if self._looking is not None:
            self._looking.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._looking
            self._looking = None
        pools, self._pools = list(self._pools.values()), {}
        self._routes.clear()
        for pool in pools:
            await pool.close()


def _name(host: str, port: int) -> str:
    """A worker's name here: its pool's, and its label in the pool metrics."""
    return f"citus-worker {host}:{port}"
