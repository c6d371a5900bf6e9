"""Table ownership: leases in PostgreSQL, renewed in batches, taken up to a fair share, by the database clock.

One replica owns a table at a time (docs/deployment.md, "Ownership"): it runs the table's action clocks,
seat offers and dealer. Its leases expire ``lease_seconds`` after their last renewal *by the database's
clock* (no two replicas' clocks are compared), and every change of owner raises the lease's epoch, which
fences the owner's own appends (:class:`stud_service.store.Fence`): a replica that was paused past its
leases' expiry and wakes up has its deals and timeouts refused by the database, and drops the tables.

Each round (every ``lease_seconds / 3``) costs a replica three statements (four when it hands tables
over), whatever it owns:

- **renew**: its heartbeat and all its leases in one statement; a lease that is not returned was lost;
- **take**: unowned or expired leases of tables in the log, up to its fair share,
  ``ceil(tables / live replicas)``, live meaning seen within a lease period (replicas taking at the same
  moment may want the same lease: one gets it, the other takes fewer and the rest at its next round);
- **surplus**: above its share (a replica joined), it releases tables between hands, one round at a time,
  so a hand in progress always finishes where it is.
"""

from __future__ import annotations

import asyncio
import logging
import math
import uuid
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from datetime import timedelta

from psycopg_pool import AsyncConnectionPool

from stud_service.backoff import Backoff
from stud_service.store.errors import is_store_fault

_log = logging.getLogger(__name__)

DEFAULT_LEASE_SECONDS = 5.0
TABLE_STREAMS = "tables/%"  # the streams that are tables (server.runtime.STREAM_PREFIX)

_RENEW_SQL = """
WITH beat AS (
    INSERT INTO replicas (replica_id, seen_at) VALUES (%(me)s, now())
    ON CONFLICT (replica_id) DO UPDATE SET seen_at = excluded.seen_at
)
UPDATE table_leases SET expires_at = now() + %(lease)s
 WHERE owner = %(me)s AND stream_id = ANY(%(owned)s::text[])
RETURNING stream_id, epoch
"""

# The share counts this replica among the live ones even before its first heartbeat is committed.
_TAKE_SQL = """
WITH live AS (
    SELECT count(*) FILTER (WHERE replica_id <> %(me)s) + 1 AS n
      FROM replicas WHERE seen_at > now() - %(lease)s
), tables AS (
    SELECT count(*) AS n FROM streams WHERE stream_id LIKE %(pattern)s
), mine AS (
    SELECT count(*) AS n FROM table_leases WHERE owner = %(me)s AND expires_at > now()
), free AS (
    SELECT s.stream_id FROM streams s LEFT JOIN table_leases l ON l.stream_id = s.stream_id
     WHERE s.stream_id LIKE %(pattern)s AND (l.stream_id IS NULL OR l.expires_at <= now())
     -- Tables this replica's clients use first; then replicas taking at once mostly want different ones.
     ORDER BY s.stream_id = ANY(%(wanted)s::text[]) DESC, md5(s.stream_id || %(me)s)
     LIMIT greatest(0, (SELECT ceil(tables.n::numeric / live.n) FROM tables, live) - (SELECT n FROM mine))
)
INSERT INTO table_leases (stream_id, owner, epoch, expires_at)
SELECT stream_id, %(me)s, 1, now() + %(lease)s FROM free
ON CONFLICT (stream_id) DO UPDATE
   SET owner = excluded.owner, epoch = table_leases.epoch + 1, expires_at = excluded.expires_at
 WHERE table_leases.expires_at <= now()
RETURNING stream_id, epoch
"""

_SHARE_SQL = """
SELECT (SELECT count(*) FROM streams WHERE stream_id LIKE %(pattern)s),
       (SELECT count(*) FILTER (WHERE replica_id <> %(me)s) + 1
          FROM replicas WHERE seen_at > now() - %(lease)s)
"""

# Released leases expire now: another replica may take them at once; this one's fenced appends stop.
_RELEASE_SQL = """
UPDATE table_leases SET expires_at = now()
 WHERE owner = %(me)s AND stream_id = ANY(%(streams)s::text[]) AND expires_at > now()
"""

_LEAVE_SQL = "DELETE FROM replicas WHERE replica_id = %(me)s"


def new_replica_id() -> str:
    """A replica's id: unique per process start, so a restarted replica never inherits a fence."""
    return uuid.uuid4().hex[:16]


def fair_share(tables: int, replicas: int) -> int:
    """How many tables each of ``replicas`` live replicas may own: every table has room somewhere."""
    return math.ceil(tables / max(replicas, 1))


class Leases:
    """The lease statements of replica ``me`` on ``pool``: each one round trip, by the database clock."""

    def __init__(
        self, pool: AsyncConnectionPool, me: str, lease_seconds: float = DEFAULT_LEASE_SECONDS
    ) -> None:
        self.pool = pool
        self.me = me
        self.lease_seconds = lease_seconds
        self.lease = timedelta(seconds=lease_seconds)

    def _params(self, **more: object) -> dict[str, object]:
        return {"me": self.me, "lease": self.lease, "pattern": TABLE_STREAMS, **more}

    async def _rows(self, sql: str, **params: object) -> list[tuple[str, int]]:
        async with self.pool.connection() as conn:
            cur = await conn.execute(sql, self._params(**params))
            return [(str(stream), int(epoch)) for stream, epoch in await cur.fetchall()]

    async def renew(self, owned: Iterable[str]) -> dict[str, int]:
        """Heartbeat and renew the leases of ``owned`` this replica still holds: stream id -> epoch."""
        return dict(await self._rows(_RENEW_SQL, owned=list(owned)))

    async def take(self, wanted: Iterable[str] = ()) -> dict[str, int]:
        """Take unowned or expired leases up to the fair share, those of ``wanted`` first (tables this
        replica's clients use: their owner then follows nothing for them): stream id -> new epoch."""
        return dict(await self._rows(_TAKE_SQL, wanted=list(wanted)))

    async def share(self) -> tuple[int, int]:
        """The tables in the log and the live replicas (this one included)."""
        async with self.pool.connection() as conn:
            cur = await conn.execute(_SHARE_SQL, self._params())
            row = await cur.fetchone()
        assert row is not None
        return int(row[0]), int(row[1])

    async def release(self, streams: Iterable[str]) -> None:
        """Give up these leases now (another replica may take them at its next round)."""
        async with self.pool.connection() as conn:
            await conn.execute(_RELEASE_SQL, self._params(streams=list(streams)))

    async def leave(self, owned: Iterable[str]) -> None:
        """At a graceful stop: release everything and stop counting as live, so the others take over now."""
        await self.release(owned)
        async with self.pool.connection() as conn:
            await conn.execute(_LEAVE_SQL, self._params())


@dataclass(frozen=True)
class OwnershipEvents:
    """What the keeper tells the tables and asks them: a lease gained (stream, epoch), a lease lost, which
    owned tables may be handed over now (between hands; those this replica's clients use last), and which
    tables this replica's clients use (taken first)."""

    gained: Callable[[str, int], object]
    lost: Callable[[str], None]
    idle: Callable[[list[str]], list[str]]
    wanted: Callable[[], list[str]] = list


class OwnershipKeeper:
    """Runs the rounds of one replica: renew, take, release the surplus. ``owned`` is what it holds now."""

    def __init__(self, leases: Leases, events: OwnershipEvents) -> None:
        self.leases = leases
        self.events = events
        self.lease_seconds = leases.lease_seconds
        self.owned: dict[str, int] = {}  # stream id -> epoch
        self._renewed_at: float | None = None  # loop time of the last round that renewed
        self._lock = asyncio.Lock()  # one round (or take) at a time: each reads and changes ``owned``

    @property
    def interval(self) -> float:
        return self.lease_seconds / 3

    def epoch(self, stream_id: str) -> int | None:
        return self.owned.get(stream_id)

    def drop(self, stream_id: str) -> None:
        """A lease found lost elsewhere (a fenced append refused): forget it."""
        if self.owned.pop(stream_id, None) is not None:
            self.events.lost(stream_id)

    async def round(self) -> None:
        """One round: renew, take up to the share, or else release the surplus between hands."""
        async with self._lock:
            started = asyncio.get_running_loop().time()
            renewed = await self.leases.renew(self.owned)
            for stream_id in [s for s in self.owned if renewed.get(s) != self.owned[s]]:
                self.drop(stream_id)
            self._renewed_at = started
            if not await self._take():
                await self._release_surplus()

    async def take_now(self) -> None:
        """Take what is free up to the share now (a table was just created here), not at the next round."""
        async with self._lock:
            await self._take()

    async def _take(self) -> int:
        taken = await self.leases.take(self.events.wanted())
        for stream_id, epoch in sorted(taken.items()):
            self.owned[stream_id] = epoch
            result = self.events.gained(stream_id, epoch)
            if asyncio.iscoroutine(result):
                await result
        return len(taken)

    async def _release_surplus(self) -> None:
        tables, replicas = await self.leases.share()
        surplus = len(self.owned) - fair_share(tables, replicas)
        if surplus <= 0:
            return
        handed = self.events.idle(sorted(self.owned))[:surplus]
        if handed:
            for stream_id in handed:
                self.drop(stream_id)  # stop the clocks first: nothing of ours may follow the release
            await self.leases.release(handed)
            _log.info("leases released to rebalance", extra={"tables": len(handed)})

    def expire_unrenewed(self) -> None:
        """Leases not renewed for a whole lease period may be someone else's: stop their work now (the
        fence would refuse it anyway; this spares the doomed attempts)."""
        if self._renewed_at is None or not self.owned:
            return
        if asyncio.get_running_loop().time() - self._renewed_at >= self.lease_seconds:
            for stream_id in list(self.owned):
                self.drop(stream_id)

    async def run(self) -> None:
        """Rounds until cancelled; a store fault is retried with backoff (owned leases lapse meanwhile)."""
        backoff = Backoff(cap=self.interval)
        while True:
            try:
                await self.round()
                backoff.reset()
                delay = self.interval
            except Exception as error:
                if not is_store_fault(error):
                    _log.exception("a lease round failed")
                elif backoff.failures == 0:
                    _log.warning("leases: the store is unavailable; retrying: %s", error)
                delay = backoff.next_delay()
            self.expire_unrenewed()
            await asyncio.sleep(delay)

    async def leave(self) -> None:
        """Stop the work of every table, release the leases and stop counting as live (a graceful stop)."""
        owned = list(self.owned)
        for stream_id in owned:
            self.drop(stream_id)
        await self.leases.leave(owned)
