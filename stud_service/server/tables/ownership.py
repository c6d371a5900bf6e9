"""Table ownership: leases in PostgreSQL, renewed in batches, following the clients, by the database clock.

One replica owns a table at a time (docs/deployment.md, "Ownership"): it runs the table's action clocks,
seat offers and dealer. Its leases expire ``lease_seconds`` after their last renewal *by the database's
clock* (no two replicas' clocks are compared), and every change of owner raises the lease's epoch, which
fences the owner's own appends (:class:`stud_service.store.Fence`): a replica that was paused past its
leases' expiry and wakes up has its deals and timeouts refused by the database, and drops the tables.

Ownership follows the clients. Each replica's heartbeat carries its **interest**: for each table its own
clients use, its watch streams on it plus one if they called it within the last lease period. A table one
live replica uses more than ``INTEREST_MARGIN`` times as much as any other is **claimed** by it: it is
owned there whatever that replica's share, so the replica whose players sit at a table also deals it and
runs its clocks, and no other replica needs to follow it. Tables nobody claims (nobody uses them, or
several replicas use them about equally: the margin keeps such a table where it is) are divided by the
fair share, ``ceil(unclaimed tables / live replicas)``, live meaning seen within a lease period.

Each round (every ``lease_seconds / 3``) costs a replica two statements (one more when it may take a lease,
two more when it finds free ones, one more when it hands tables over), whatever it owns:

- **renew**: its heartbeat with its interest and all its leases in one statement; a lease that is not
  returned was lost;
- **plan**: the claims on what it owns and what its clients use, and its share: it hands over what another
  replica claims and its surplus of unclaimed tables (a replica joined), between hands: at once if no hand
  runs, else when the hand ends, instead of dealing the next one, so a hand in progress always finishes
  where it is;
- **take**, only when the plan leaves it room (it holds fewer unclaimed tables than its share, or it claims
  one it does not hold): free (unowned or expired) leases it claims, then unclaimed ones up to its fair
  share of them (replicas taking at the same moment may want the same lease: one gets it, the other takes
  fewer and the rest at its next round); a free table another replica claims is left to that one. Finding
  them is one statement, which reads every table's lease; taking them, when there are some, two more (one
  for expired leases, one for new ones). A replica holding its share skips it: when every live replica
  does, no unclaimed lease is free, and a dead replica's tables are found by the others as soon as it stops
  counting as live (a lease period after its last round, when its leases have expired too) and their
  shares grow.

A lease runs from its statement's transaction start, so the replica counts each one held for a lease period
from when that transaction was begun, not from when its round began: a round that waited for a connection
(the database away) keeps what it renews and takes. Lease writes commit without waiting for a synchronous
standby (``synchronous_commit = local``): a primary just promoted in strict synchronous mode holds every
commit until a standby confirms it, and a lease committed that way would be worth nothing once confirmed
(its period run out meanwhile), so the tables whose next event needs their owner (a deal, a timeout) would
resume one such wait after the rest. It loses no guarantee: each fenced append reads its lease in its own
transaction and commits synchronously, and the standby replays the primary's writes in order, so an
acknowledged append's lease is on the standby before the append is; a lease write lost with its primary
fenced nothing acknowledged, and its owner's appends are refused until a round takes the lease again.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import math
import uuid
from collections.abc import AsyncIterator, Callable, Iterable, Mapping
from dataclasses import dataclass
from datetime import timedelta

from psycopg import AsyncConnection
from psycopg_pool import AsyncConnectionPool

from stud_service.backoff import Backoff
from stud_service.store.errors import is_store_fault

_log = logging.getLogger(__name__)

DEFAULT_LEASE_SECONDS = 5.0
TABLE_STREAMS = "tables/%"  # the streams that are tables (server.tables.live.STREAM_PREFIX)
# A tournament's stream is leased as a table's is: its owner runs its level clock. Nobody claims one (its
# clients play at its tables, which they claim): the fair share divides them with the unclaimed tables.
TOURNAMENT_STREAMS = "tournaments/"

# The heartbeat carries this replica's interest: it replaces what the row held.
_RENEW_SQL = """
WITH beat AS (
    INSERT INTO replicas (replica_id, seen_at, interest_streams, interest_clients)
    VALUES (%(me)s, now(), %(streams)s::text[], %(clients)s::int[])
    ON CONFLICT (replica_id) DO UPDATE
       SET seen_at = excluded.seen_at, interest_streams = excluded.interest_streams,
           interest_clients = excluded.interest_clients
)
UPDATE table_leases SET expires_at = now() + %(lease)s
 WHERE owner = %(me)s AND stream_id = ANY(%(owned)s::text[])
RETURNING stream_id, epoch
"""

# The claims: a table's claimant is the live replica whose clients use it most, if that is more than
# INTEREST_MARGIN times the next one's use (so two replicas using a table about equally claim nothing,
# and a table changes hands only when the difference is clear: no flapping). This replica's own interest
# is the one it passes (its row may be a round old); the others' are their rows while they are live.
_CLAIMS_CTE = """
interest AS (
    SELECT i.stream_id, r.replica_id, i.clients
      FROM replicas r, unnest(r.interest_streams, r.interest_clients) AS i(stream_id, clients)
     WHERE r.seen_at > now() - %(lease)s AND r.replica_id <> %(me)s AND i.clients > 0
    UNION ALL
    SELECT i.stream_id, %(me)s, i.clients
      FROM unnest(%(streams)s::text[], %(clients)s::int[]) AS i(stream_id, clients)
     WHERE i.clients > 0
), ranked AS (
    SELECT stream_id, replica_id, clients,
           row_number() OVER w AS rank, lead(clients, 1, 0) OVER w AS runner_up
      FROM interest WINDOW w AS (PARTITION BY stream_id ORDER BY clients DESC, replica_id)
), claims AS (
    SELECT stream_id, replica_id AS claimant FROM ranked
     WHERE rank = 1 AND clients > %(margin)s * runner_up AND stream_id LIKE %(pattern)s
), live AS (
    -- The share counts this replica among the live ones even before its first heartbeat is committed.
    SELECT count(*) FILTER (WHERE replica_id <> %(me)s) + 1 AS n
      FROM replicas WHERE seen_at > now() - %(lease)s
), shared AS (
    -- The tables nobody claims: those the fair share divides. EXCEPT (hashed or sorted), not NOT EXISTS:
    -- the planner cannot tell how many claims there are and ran that anti-join as a nested loop, every
    -- table against every claim (42 ms of a round's two statements at a thousand tables, growing as the
    -- square).
    SELECT stream_id FROM streams WHERE stream_id LIKE %(pattern)s OR stream_id LIKE %(tournaments)s
    EXCEPT
    SELECT stream_id FROM claims
)"""

# Free (unowned or expired) leases: those this replica claims, whatever its share; then unclaimed ones up
# to its fair share of them, those its clients use first, then in an order of its own (replicas taking at
# once then mostly want different ones). Another replica's claim is left to it. Only read: the leases found
# free are taken by _TAKE_EXPIRED_SQL and _TAKE_NEW_SQL, which check again that each is free.
_FREE_SQL = f"""
WITH {_CLAIMS_CTE}, mine AS (
    SELECT count(*) AS n FROM table_leases l JOIN shared USING (stream_id)
     WHERE l.owner = %(me)s AND l.expires_at > now()
), claimed AS (
    SELECT c.stream_id FROM claims c
      -- The lease joined on the streams' key, not the claims': Citus joins two distributed tables only on
      -- their distribution columns (the same rows either way).
      JOIN streams s ON s.stream_id = c.stream_id LEFT JOIN table_leases l ON l.stream_id = s.stream_id
     WHERE c.claimant = %(me)s AND (l.stream_id IS NULL OR l.expires_at <= now())
), unclaimed AS (
    -- Joins with the arrays, not "= ANY(array)": that compares every row with every element, and at a
    -- thousand tables the round's statements took tens of milliseconds each.
    SELECT s.stream_id FROM shared s LEFT JOIN table_leases l ON l.stream_id = s.stream_id
      LEFT JOIN unnest(%(streams)s::text[]) AS used(stream_id) ON used.stream_id = s.stream_id
     WHERE l.stream_id IS NULL OR l.expires_at <= now()
     ORDER BY used.stream_id IS NOT NULL DESC, md5(s.stream_id || %(me)s)
     LIMIT greatest(0, (SELECT ceil(count(*)::numeric / (SELECT n FROM live)) FROM shared)
                       - (SELECT n FROM mine))
)
SELECT stream_id FROM claimed UNION SELECT stream_id FROM unclaimed
"""

# Taking the free leases found: an expired one gets a new owner and epoch if it is still expired (a replica
# taking it at the same moment locks the row first: this statement then sees its new expiry and skips it);
# a table never leased gets its first row unless another replica's insert got there first. Two statements,
# not one INSERT ... ON CONFLICT DO UPDATE ... WHERE expires_at <= now(): Citus refuses a function that is
# not immutable in that WHERE, and the same two statements serve plain PostgreSQL.
_TAKE_EXPIRED_SQL = """
UPDATE table_leases SET owner = %(me)s, epoch = epoch + 1, expires_at = now() + %(lease)s
 WHERE stream_id = ANY(%(free)s::text[]) AND expires_at <= now()
RETURNING stream_id, epoch
"""
_TAKE_NEW_SQL = """
INSERT INTO table_leases (stream_id, owner, epoch, expires_at)
SELECT stream_id, %(me)s, 1, now() + %(lease)s FROM unnest(%(free)s::text[]) AS free(stream_id)
ON CONFLICT (stream_id) DO NOTHING
RETURNING stream_id, epoch
"""

# What this replica's leases should become: the unclaimed tables and the live replicas (its fair share),
# and which of the tables it owns (``owned``) another replica claims, and which it claims itself.
_PLAN_SQL = f"""
WITH {_CLAIMS_CTE}
SELECT (SELECT count(*) FROM shared), (SELECT n FROM live),
       ARRAY(SELECT stream_id FROM claims JOIN unnest(%(owned)s::text[]) AS o(stream_id) USING (stream_id)
              WHERE claimant <> %(me)s),
       ARRAY(SELECT stream_id FROM claims JOIN unnest(%(owned)s::text[]) AS o(stream_id) USING (stream_id)
              WHERE claimant = %(me)s)
"""

# Released leases expire now: another replica may take them at once; this one's fenced appends stop.
_RELEASE_SQL = """
UPDATE table_leases SET expires_at = now()
 WHERE owner = %(me)s AND stream_id = ANY(%(streams)s::text[]) AND expires_at > now()
"""

_LEAVE_SQL = "DELETE FROM replicas WHERE replica_id = %(me)s"

# The lease writes' transactions commit once flushed here, not waiting for a synchronous standby (the module's
# docstring says why that is safe).
_COMMIT_LOCALLY_SQL = "SET LOCAL synchronous_commit = local"

# How much more a replica's clients must use a table than any other replica's for it to claim the table.
INTEREST_MARGIN = 2


def new_replica_id() -> str:
    """A replica's id: unique per process start, so a restarted replica never inherits a fence."""
    return uuid.uuid4().hex[:16]


def fair_share(tables: int, replicas: int) -> int:
    """How many tables each of ``replicas`` live replicas may own: every table has room somewhere."""
    return math.ceil(tables / max(replicas, 1))


Interest = Mapping[str, int]  # stream id -> how much this replica's clients use the table (> 0)


class Held(dict[str, int]):
    """Leases held after a statement: stream id -> epoch. ``sent_at``: the loop time its transaction was begun
    at; each lease runs a lease period from the transaction's start (by the database's clock), no earlier,
    so it is held at least until ``sent_at + lease_seconds`` by this replica's clock."""

    def __init__(self, epochs: Iterable[tuple[str, int]], sent_at: float) -> None:
        super().__init__(epochs)
        self.sent_at = sent_at


@dataclass(frozen=True)
class Plan:
    """What a replica's leases should become, as of one round: the unclaimed tables and the live replicas
    (its fair share of the unclaimed), and of the tables it owns, those another replica claims and those
    it claims itself."""

    unclaimed: int
    replicas: int
    claimed_elsewhere: frozenset[str]
    claimed_here: frozenset[str]


class Leases:
    """The lease statements of replica ``me`` on ``pool``: each one round trip, by the database clock."""

    def __init__(
        self, pool: AsyncConnectionPool, me: str, lease_seconds: float = DEFAULT_LEASE_SECONDS
    ) -> None:
        self.pool = pool
        self.me = me
        self.lease_seconds = lease_seconds
        self.lease = timedelta(seconds=lease_seconds)

    def _params(self, interest: Interest | None = None, **more: object) -> dict[str, object]:
        streams = sorted(interest or {})
        clients = [(interest or {})[stream] for stream in streams]
        return {
            "me": self.me, "lease": self.lease, "pattern": TABLE_STREAMS,
            "tournaments": TOURNAMENT_STREAMS + "%", "margin": INTEREST_MARGIN,
            "streams": streams, "clients": clients, **more,
        }

    @contextlib.asynccontextmanager
    async def _writing(self) -> AsyncIterator[tuple[AsyncConnection, float]]:
        """A transaction for lease writes, committed locally, and the loop time it was begun at."""
        async with self.pool.connection() as conn:
            begun_at = asyncio.get_running_loop().time()  # before BEGIN: no later than the database's now()
            async with conn.transaction():
                await conn.execute(_COMMIT_LOCALLY_SQL)
                yield conn, begun_at

    async def renew(self, owned: Iterable[str], interest: Interest | None = None) -> Held:
        """Heartbeat with this replica's ``interest``, and renew the leases of ``owned`` it still holds:
        stream id -> epoch."""
        async with self._writing() as (conn, begun_at):
            cur = await conn.execute(_RENEW_SQL, self._params(interest, owned=list(owned)))
            return Held(((str(stream), int(epoch)) for stream, epoch in await cur.fetchall()), begun_at)

    async def take(self, interest: Interest | None = None) -> Held:
        """Take the free leases this replica claims, then unclaimed ones up to its fair share of them (those
        in ``interest`` first): stream id -> new epoch. One statement when none is free (most rounds)."""
        async with self._writing() as (conn, begun_at):
            cur = await conn.execute(_FREE_SQL, self._params(interest))
            free = sorted(str(stream) for (stream,) in await cur.fetchall())
            taken = Held((), begun_at)
            if not free:
                return taken
            for sql in (_TAKE_EXPIRED_SQL, _TAKE_NEW_SQL):
                cur = await conn.execute(sql, self._params(free=free))
                taken.update((str(stream), int(epoch)) for stream, epoch in await cur.fetchall())
            return taken

    async def plan(self, owned: Iterable[str], interest: Interest | None = None) -> Plan:
        """The share and the claims that decide which of ``owned`` this replica should hand over."""
        async with self.pool.connection() as conn:
            cur = await conn.execute(_PLAN_SQL, self._params(interest, owned=list(owned)))
            row = await cur.fetchone()
        assert row is not None
        return Plan(int(row[0]), int(row[1]), frozenset(row[2]), frozenset(row[3]))

    async def share(self) -> tuple[int, int]:
        """The unclaimed tables in the log and the live replicas (this one included)."""
        plan = await self.plan(())
        return plan.unclaimed, plan.replicas

    async def release(self, streams: Iterable[str]) -> None:
        """Give up these leases now (another replica may take them at its next round)."""
        async with self._writing() as (conn, _begun_at):
            await conn.execute(_RELEASE_SQL, self._params(streams=list(streams)))

    async def leave(self, owned: Iterable[str]) -> None:
        """At a graceful stop: release everything and stop counting as live, so the others take over now."""
        await self.release(owned)
        async with self._writing() as (conn, _begun_at):
            await conn.execute(_LEAVE_SQL, self._params())


@dataclass(frozen=True)
class OwnershipEvents:
    """What the keeper tells the tables and asks them: a lease gained (stream, epoch: ``False``, or an
    awaitable of it, when the table could not be taken up, and the lease is given back), a lease lost, which
    of some owned tables may be handed over now (between hands; those nobody here watches first), and how
    much this replica's clients use each table (its claims)."""

    gained: Callable[[str, int], object]
    lost: Callable[[str], None]
    idle: Callable[[list[str]], list[str]]
    interest: Callable[[], Interest] = dict


class OwnershipKeeper:
    """Runs the rounds of one replica: renew with its interest, take, hand over what others claim and the
    surplus. ``owned`` is what it holds now; ``handing_over`` the owned tables it gives up when their hand
    ends (the dealer asks :meth:`hand_over_instead_of_dealing` before each deal)."""

    def __init__(self, leases: Leases, events: OwnershipEvents) -> None:
        self.leases = leases
        self.events = events
        self.lease_seconds = leases.lease_seconds
        self.owned: dict[str, int] = {}  # stream id -> epoch
        self.handing_over: set[str] = set()
        self._held_until: dict[str, float] = {}  # stream id -> loop time until which its lease is surely held
        # Loop time of the first of the rounds the database has refused since the last that went through (a
        # statement it does not accept); None while rounds go through, or fail or stall on a database away.
        self._refused_since: float | None = None
        self._lock = asyncio.Lock()  # one round (or take) at a time: each reads and changes ``owned``
        self._stopping = False

    @property
    def interval(self) -> float:
        return self.lease_seconds / 3

    def epoch(self, stream_id: str) -> int | None:
        return self.owned.get(stream_id)

    def drop(self, stream_id: str) -> None:
        """A lease found lost elsewhere (a fenced append refused): forget it."""
        self.handing_over.discard(stream_id)
        self._held_until.pop(stream_id, None)
        if self.owned.pop(stream_id, None) is not None:
            self.events.lost(stream_id)

    async def round(self) -> None:
        """One round: renew, take, then hand over between hands what another replica claims and the
        surplus of the unclaimed tables above the fair share."""
        async with self._lock:
            interest = self.events.interest()
            renewed = await self.leases.renew(self.owned, interest)
            for stream_id in [s for s in self.owned if renewed.get(s) != self.owned[s]]:
                self.drop(stream_id)
            self._hold(renewed)
            # Renewed too late to count (the statement waited past a lease period): dropped now, and taken
            # again below if they are free, not a round later.
            self.expire_unrenewed()
            # Planned first (its claims over what this replica owns and what its clients use: a table taken
            # below is one or the other), then the search for free leases only when this replica may take
            # one: that search reads every table's lease (on Citus every shard), and most rounds find none.
            plan = await self.leases.plan(self.owned.keys() | interest.keys(), interest)
            if self._may_take(plan):
                await self._take(interest)
            await self._hand_over(plan, interest)
            self._refused_since = None

    def _may_take(self, plan: Plan) -> bool:
        """Whether a free lease may be this replica's to take: one its clients claim that it does not own yet,
        or room below its fair share of the unclaimed tables. When every live replica holds its share, no
        unclaimed table is free (the shares cover them all), so the replicas with room find the free ones:
        one whose owner died is taken as soon as that owner stops counting as live, its lease period after
        its last round, when the shares of the others grow."""
        if plan.claimed_here - self.owned.keys():
            return True
        return len(self._owned_unclaimed(plan)) < fair_share(plan.unclaimed, plan.replicas)

    def _owned_unclaimed(self, plan: Plan) -> list[str]:
        """The tables this replica owns that no replica claims: those its fair share counts."""
        return [s for s in self.owned if s not in plan.claimed_elsewhere and s not in plan.claimed_here]

    def rounds_failing_for(self) -> float:
        """Seconds since the database began refusing this replica's lease rounds while it answers (0 while
        they go through): readiness is lost when this exceeds a lease period, since such a replica takes no
        table and deals no hand. Rounds failing or stalled on a database away are not counted."""
        if self._refused_since is None:
            return 0.0
        return asyncio.get_running_loop().time() - self._refused_since

    async def take_now(self) -> None:
        """Take what is free and this replica's now (a table was just created here), not at the next round."""
        async with self._lock:
            await self._take(self.events.interest())

    def _hold(self, held: Held) -> None:
        until = held.sent_at + self.lease_seconds
        for stream_id in held.keys() & self.owned.keys():
            self._held_until[stream_id] = until

    async def _take(self, interest: Interest) -> int:
        taken = await self.leases.take(interest)
        self.owned.update(taken)
        self._hold(taken)
        not_taken_up = []
        for stream_id, epoch in sorted(taken.items()):
            result = self.events.gained(stream_id, epoch)
            if asyncio.iscoroutine(result):
                result = await result
            if result is False:
                not_taken_up.append(stream_id)
        if not_taken_up:
            # Kept and renewed, such a lease would hold the table with no clock armed and no dealer: play
            # would stop there for good. Given back, it is free at the next round, here or elsewhere.
            for stream_id in not_taken_up:
                self.drop(stream_id)
            await self.leases.release(not_taken_up)
            _log.warning("leases given back: tables not loadable", extra={"tables": len(not_taken_up)})
        return len(taken) - len(not_taken_up)

    async def _hand_over(self, plan: Plan, interest: Interest) -> None:
        """Release now, of the tables to hand over, those between hands; the others when their hand ends."""
        unclaimed = sorted(
            self._owned_unclaimed(plan),
            key=lambda s: (interest.get(s, 0), s),  # the ones this replica's clients use least go first
        )
        surplus = max(0, len(unclaimed) - fair_share(plan.unclaimed, plan.replicas))
        idle = self.events.idle(unclaimed)
        # Of the surplus, tables between hands first: then nothing waits for a hand to end.
        by_idle = idle + [s for s in unclaimed if s not in idle]
        leaving = sorted(plan.claimed_elsewhere & self.owned.keys()) + by_idle[:surplus]
        now = set(self.events.idle(leaving))
        self.handing_over = {s for s in leaving if s not in now}
        if now:
            await self._release(sorted(now))

    async def _release(self, streams: list[str]) -> None:
        for stream_id in streams:
            self.drop(stream_id)  # stop the clocks first: nothing of ours may follow the release
        await self.leases.release(streams)
        _log.info("leases released to rebalance", extra={"tables": len(streams)})

    async def hand_over_instead_of_dealing(self, stream_id: str) -> bool:
        """Before a deal: whether this table is to be handed over, and if so release it now (its hand is
        over; the replica that claims it, or the next with room for it, deals the next one)."""
        if stream_id not in self.handing_over:
            return False
        async with self._lock:
            if stream_id not in self.handing_over or stream_id not in self.owned:
                return False
            await self._release([stream_id])
        return True

    def expire_unrenewed(self) -> None:
        """Leases not renewed for a whole lease period may be someone else's: stop their work now (the
        fence would refuse it anyway; this spares the doomed attempts)."""
        now = asyncio.get_running_loop().time()
        for stream_id in [s for s in self.owned if self._held_until.get(s, now) <= now]:
            self.drop(stream_id)

    def stop(self) -> None:
        """End :meth:`run` at its next step (with a cancel: Python 3.11 can swallow a cancel that lands as
        a pool checkout finishes, and the loop would then go on)."""
        self._stopping = True

    async def run(self) -> None:
        """Rounds until stopped; a store fault is retried with backoff (owned leases lapse meanwhile)."""
        backoff = Backoff(cap=self.interval)
        while not self._stopping:
            try:
                await self.round()
                backoff.reset()
                delay = self.interval
            except Exception as error:
                if is_store_fault(error):
                    self._refused_since = None  # the database away: the outage threshold's to judge
                    if backoff.failures == 0:
                        _log.warning("leases: the store is unavailable; retrying: %s", error)
                else:
                    _log.exception("a lease round failed")
                    if self._refused_since is None:
                        self._refused_since = asyncio.get_running_loop().time()
                delay = backoff.next_delay()
            self.expire_unrenewed()
            if not self._stopping:
                await asyncio.sleep(delay)

    async def leave(self) -> None:
        """Stop the work of every table, release the leases and stop counting as live (a graceful stop)."""
        owned = list(self.owned)
        for stream_id in owned:
            self.drop(stream_id)
        await self.leases.leave(owned)
