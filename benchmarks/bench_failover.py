"""Failover: from the SIGKILL of a table's owner to the first event its new owner writes, by lease setting.

Tables are owned by one replica at a time through leases (docs/deployment.md "Ownership"): a replica that
dies keeps its leases until they expire by the database's clock, ``--lease-seconds`` after their last
renewal; another replica takes them at its next round (every third of the lease) and re-arms the tables'
clocks and dealers from the log. This measures what a player waits for, with ``--replicas`` replicas on one
PostgreSQL, ``--tables`` money (USD, raked) tables, three bots each playing through the replicas and moving
to a live one when theirs dies (``stud_service.bots.failover``; a bot that busts tops up and sits back in,
so that every table can deal all run long), ``--kills`` times per lease setting:

1. let the bots play ``--play-seconds``, then wait until every table is owned by a live replica (ownership
   follows the clients: once the bots of a killed replica have moved to another, that one owns every table
   they play, and the restarted one none); pick the next replica (round robin) that owns tables; read the
   database's clock (``clock_timestamp()``) and SIGKILL it at once;
2. for each of its tables, from ``table_leases``: the dead owner's lease expiry (its last renewal plus the
   lease), and when the survivor took it (the new row's ``expires_at`` minus the lease, read before its first
   renewal, i.e. the take's own ``now()``); from ``events``: the first event of the new epoch that only an
   owner writes (a deal, the next hand's seed commitment, a timeout), by its ``recorded_at`` (the database's
   clock at its transaction's start; only the lease holder's appends pass the fence, so an owner's event
   recorded after the take is the new owner's);
3. restart the killed replica on its port, wait until it serves, and go on.

Reported per lease setting, side by side: p50 / p99 / max of kill -> old lease expiry (the lease's part: 2/3
to 1 lease, depending on when the dead owner last renewed), kill -> lease taken, kill -> first event of the
new owner per table and per kill (its last table), and first event - old lease expiry: what the service adds
to the lease (at most one round, plus the hand pause before a deal, plus a hand the bots were finishing,
plus the deal's append). A hand running at the kill plays on through the surviving replicas (any replica
writes players' actions); the new owner deals the next one.

At the end, every ended hand is verified from the log (hash chain, shuffle and deck proofs, replay, chips:
``stud_service.audit.verify_hand``) and the books are reconciled to the cent (``audit_money``, as
``stud-service audit money`` does). The run fails (exit 1) if a table was not taken over, a kill found a
table owned by no live replica, a bot was refused by a live replica, a hand does not verify or the money
does not balance. ``--diagnose`` prints each kill's tables as it happens: owner, players ready to be dealt
in and the newest event, at the kill and when the watch ended.

Run: ``.venv/bin/python benchmarks/bench_failover.py [--leases 5 1.5] [--kills 20] [--tables 8]
[--replicas 2] [--play-seconds 5] [--diagnose]`` (``DATABASE_URL`` as for ``bench_service.py``).
"""

from __future__ import annotations

import argparse
import asyncio
import multiprocessing
import os
import statistics
import sys
import time
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

import grpc  # noqa: E402
import headline  # noqa: E402  (benchmarks/headline.py)
from bench_service import (  # noqa: E402
    BOTS_PER_TABLE,
    BUY_IN,
    SECRET,
    Database,
    Server,
    fund,
    keys_environment,
    percentile,
    start_load_generators,
    table_spec,
)
from psycopg_pool import AsyncConnectionPool  # noqa: E402

from stud_service.auth import Role, mint_token  # noqa: E402
from stud_service.bots import StudClient  # noqa: E402

POLL_SECONDS = 0.02
# Each bot's account holds its buy-ins at every table and this many top-ups more for each.
TOP_UPS_PER_TABLE = 10
# Short reconnect backoff: a restarted replica is usable by the bots as soon as it serves again.
CHANNEL_OPTIONS = [("grpc.initial_reconnect_backoff_ms", 100), ("grpc.max_reconnect_backoff_ms", 500)]
# Events only a table's owner writes (its fenced commands: deals and their commitments, timeouts).
OWNERS_EVENT_SQL = """
SELECT version, type, recorded_at FROM events
 WHERE stream_id = %(stream)s AND version > %(after)s AND recorded_at >= %(taken)s
   AND (type IN ('HandStarted', 'ShuffleCommitted')
        OR (type = 'PlayerActed' AND payload->>'timeout' = 'true'))
 ORDER BY version LIMIT 1
"""

# The end of the hand that was running at the kill, if one was: the new owner deals only after it.
HAND_ENDED_SQL = """
SELECT max(recorded_at) FROM events
 WHERE stream_id = %(stream)s AND version > %(after)s AND version < %(before)s AND type = 'HandEnded'
"""


# -- the bots: one load-generator process, every seat moving to a live replica when its own dies ---------


def _load_generator(
    addresses: list[str], table_ids: list[str], alive: Any, think: float, stop: Any, ready: Any, go: Any,
    results: Any,
) -> None:
    os.environ["GRPC_ENABLE_FORK_SUPPORT"] = "false"
    results.put(asyncio.run(_drive(addresses, table_ids, alive, think, stop, ready, go)))


async def _drive(
    addresses: list[str], table_ids: list[str], alive: Any, think: float, stop: Any, ready: Any, go: Any
) -> tuple[int, int, list[str]]:
    from stud_service.bots.failover import Replica, SeatDriver

    channels = [grpc.aio.insecure_channel(address, options=CHANNEL_OPTIONS) for address in addresses]
    replicas = [
        Replica(str(index), channel, lambda index=index: bool(alive[index]))
        for index, channel in enumerate(channels)
    ]
    drivers = []
    for index, table_id in enumerate(table_ids):
        for seat in range(1, BOTS_PER_TABLE + 1):
            token = mint_token(SECRET, f"bot-{seat}")
            start = (index + seat) % len(replicas)
            await StudClient(channels[start], token).sit_down(table_id, seat, BUY_IN)
            drivers.append(SeatDriver(table_id, seat, token, replicas, start, seed=index * 10 + seat,
                                      think_seconds=think, top_up_when_busted=BUY_IN))
    ready.set()
    loop = asyncio.get_running_loop()
    await loop.run_in_executor(None, go.wait)
    tasks = [asyncio.ensure_future(driver.drive()) for driver in drivers]
    await loop.run_in_executor(None, stop.wait)
    failures = [f"{task.exception()!r}" for task in tasks if task.done() and task.exception() is not None]
    for task in tasks:
        task.cancel()
    await asyncio.gather(*tasks, return_exceptions=True)
    for channel in channels:
        await channel.close()
    return sum(d.stats.actions for d in drivers), sum(d.failovers for d in drivers), failures


# -- what the database says ---------------------------------------------------------------------------


async def scalar(pool: AsyncConnectionPool, sql: str, params: dict[str, Any] | None = None) -> Any:
    async with pool.connection() as conn:
        cur = await conn.execute(sql, params)
        row = await cur.fetchone()
    return None if row is None else row[0]


async def all_rows(pool: AsyncConnectionPool, sql: str, params: dict[str, Any] | None = None) -> list[Any]:
    async with pool.connection() as conn:
        cur = await conn.execute(sql, params)
        return await cur.fetchall()


async def new_replica_id(pool: AsyncConnectionPool, known: set[str]) -> str:
    """The id of the replica just started: the one heartbeat not seen before (replicas start one by one)."""
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        fresh = {row[0] for row in await all_rows(pool, "SELECT replica_id FROM replicas")} - known
        if fresh:
            (replica,) = fresh
            known.add(replica)
            return str(replica)
        await asyncio.sleep(POLL_SECONDS)
    raise RuntimeError("the replica started never sent its heartbeat")


async def holdings(pool: AsyncConnectionPool) -> dict[str, int]:
    """Owner -> how many unexpired leases it holds."""
    rows = await all_rows(
        pool, "SELECT owner, count(*) FROM table_leases WHERE expires_at > now() GROUP BY owner"
    )
    return {str(owner): int(count) for owner, count in rows}


async def wait_owned(pool: AsyncConnectionPool, ids: list[str], tables: int, timeout: float) -> bool:
    """Until every table is owned by one of the live replicas ``ids`` (however they share them)."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        held = await holdings(pool)
        if sum(held.get(r, 0) for r in ids) == tables:
            return True
        await asyncio.sleep(0.1)
    return False


# -- one kill -----------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Condition:
    """A table as the log and the leases have it at one moment: who owns it, whether it can deal."""

    owner: str  # the holder of its unexpired lease, "" if nobody holds one
    ready: int  # players who would be dealt in now: sitting in, with chips, not leaving
    hand_running: bool
    last_type: str  # its newest event
    last_age: float  # seconds since that event was recorded

    def can_deal(self) -> bool:
        """Whether the table deals again without a player's doing: a hand to finish, or two to deal to."""
        return self.hand_running or self.ready >= 2

    def describe(self, names: dict[str, str]) -> str:
        owner = names.get(self.owner, self.owner or "nobody")
        hand = "a hand running" if self.hand_running else "no hand"
        return (f"owner {owner}, {self.ready} ready, {hand}, last {self.last_type}"
                f" {self.last_age:.1f} s before")


@dataclass
class Takeover:
    """One table of a killed replica, each time in seconds after the kill."""

    stream_id: str
    expiry: float  # the dead owner's lease ran out
    taken: float | None = None  # the survivor's take committed its new epoch
    first: float | None = None  # the new owner's first event
    first_type: str = ""
    hand_ended: float | None = None  # the hand running at the kill ended (the bots played it out)
    before: Condition | None = None  # at the kill
    after: Condition | None = None  # when the watch ended (its first event seen, or the timeout)


@dataclass
class Kill:
    victim: int
    takeovers: list[Takeover]
    restart_seconds: float = 0.0
    owning: float = 0.0  # seconds waited for every table to be owned by a live replica before it
    owned: bool = True  # whether they were, or the wait timed out


LAST_EVENTS_SQL = """
SELECT DISTINCT ON (stream_id) stream_id, type, extract(epoch FROM now() - recorded_at)
  FROM events WHERE stream_id = ANY(%(streams)s) ORDER BY stream_id, version DESC
"""
OWNERS_SQL = """
SELECT stream_id, owner FROM table_leases WHERE stream_id = ANY(%(streams)s) AND expires_at > now()
"""
OWNED_SQL = "SELECT stream_id FROM table_leases WHERE owner = %(me)s AND expires_at > now()"


async def conditions(pool: AsyncConnectionPool, store: Any, streams: list[str]) -> dict[str, Condition]:
    """Each of ``streams`` now: its lease's holder, and from the log (folded as a replica loads it) how many
    players it would deal in, whether a hand runs, and its newest event."""
    from stud_service.engine.state import players_ready
    from stud_service.store.tables import load_table

    owners = {str(s): str(o) for s, o in await all_rows(pool, OWNERS_SQL, {"streams": streams})}
    last = {str(s): (str(t), float(age)) for s, t, age in await all_rows(pool, LAST_EVENTS_SQL,
                                                                         {"streams": streams})}
    found = {}
    for stream in streams:
        state = (await load_table(store, stream)).state
        last_type, last_age = last.get(stream, ("", 0.0))
        found[stream] = Condition(owners.get(stream, ""), len(players_ready(state)), state.hand is not None,
                                  last_type, last_age)
    return found


async def kill_and_watch(
    pool: AsyncConnectionPool, store: Any, server: Server, victim_id: str, lease: float, timeout: float
) -> list[Takeover]:
    """SIGKILL ``server`` (replica ``victim_id``); follow its tables to each one's new owner's first event."""
    owned = [str(row[0]) for row in await all_rows(pool, OWNED_SQL, {"me": victim_id})]
    before = await conditions(pool, store, owned)
    async with pool.connection() as conn:
        cur = await conn.execute("SELECT clock_timestamp()")
        row = await cur.fetchone()
        server.process.kill()  # right after reading the clock: the kill comes at most this statement later
    assert row is not None
    killed_at: datetime = row[0]
    server.process.wait(timeout=10)
    await asyncio.sleep(0.05)  # a renewal it sent just before dying has committed by now
    held = await all_rows(
        pool,
        "SELECT l.stream_id, l.expires_at, s.version FROM table_leases l JOIN streams s USING (stream_id)"
        " WHERE l.owner = %(me)s AND l.expires_at > %(at)s",
        {"me": victim_id, "at": killed_at},
    )
    heads = {str(stream): int(version) for stream, _expires, version in held}
    taken_at: dict[str, datetime] = {}
    takeovers = {
        str(stream): Takeover(str(stream), (expires - killed_at).total_seconds())
        for stream, expires, _version in held
    }
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline and any(t.first is None for t in takeovers.values()):
        rows = await all_rows(
            pool,
            "SELECT stream_id, owner, expires_at FROM table_leases"
            " WHERE stream_id = ANY(%(streams)s) AND owner <> %(me)s",
            {"streams": [s for s in takeovers if s not in taken_at], "me": victim_id},
        )
        for stream, _owner, expires in rows:
            # Polled every POLL_SECONDS, the row is seen long before its first renewal (a round later):
            # its expiry minus the lease is the take's own now().
            taken = expires - timedelta(seconds=lease)
            taken_at[stream] = taken
            takeovers[stream].taken = (taken - killed_at).total_seconds()
        for stream, taken in taken_at.items():
            takeover = takeovers[stream]
            if takeover.first is not None:
                continue
            found = await all_rows(pool, OWNERS_EVENT_SQL, {"stream": stream, "after": heads[stream],
                                                            "taken": taken})
            if found:
                version, takeover.first_type, recorded_at = found[0]
                takeover.first = (recorded_at - killed_at).total_seconds()
                ended = await scalar(pool, HAND_ENDED_SQL, {"stream": stream, "after": heads[stream],
                                                            "before": version})
                takeover.hand_ended = None if ended is None else (ended - killed_at).total_seconds()
        await asyncio.sleep(POLL_SECONDS)
    after = await conditions(pool, store, list(takeovers))
    for stream, takeover in takeovers.items():
        takeover.before, takeover.after = before.get(stream), after[stream]
    return list(takeovers.values())


def takeover_timeout(lease: float) -> float:
    """How long a kill's tables are followed for their new owners' first events."""
    return 3 * lease + 30


def next_victim(ids: list[str], held: dict[str, int], last: int) -> int:
    """The next replica after ``last`` (round robin) that owns tables."""
    order = [(last + step) % len(ids) for step in range(1, len(ids) + 1)]
    return next(index for index in order if held.get(ids[index]))


# -- one lease setting --------------------------------------------------------------------------------


@dataclass
class LeaseRun:
    lease: float
    kills: list[Kill] = field(default_factory=list)
    actions: int = 0
    failovers: int = 0
    bot_failures: list[str] = field(default_factory=list)
    hands_verified: int = 0
    hands_failed: list[str] = field(default_factory=list)
    money: Any = None  # the MoneyReport
    seconds: float = 0.0
    names: dict[str, str] = field(default_factory=dict)  # replica id -> "r<index>.<start>", for the report

    @property
    def takeovers(self) -> list[Takeover]:
        return [t for kill in self.kills for t in kill.takeovers]


async def create_tables(address: str, tables: int) -> list[str]:
    table_ids = [f"failover-{index}" for index in range(tables)]
    async with grpc.aio.insecure_channel(address) as channel:
        operator = StudClient(channel, mint_token(SECRET, "house", Role.OPERATOR))
        await fund(operator, [f"bot-{seat}" for seat in range(1, BOTS_PER_TABLE + 1)],
                   BUY_IN * tables * (1 + TOP_UPS_PER_TABLE))
        for table_id in table_ids:
            await operator.create_table(table_id, table_spec(raked=True))
    return table_ids


async def run_lease(url: str, lease: float, args: argparse.Namespace) -> LeaseRun:
    from stud_service.db import open_pool

    started = time.monotonic()
    run = LeaseRun(lease)
    options = ("--lease-seconds", str(lease), "--hand-pause-seconds", str(args.hand_pause),
               "--rake-sweep-seconds", "5")
    pool = await open_pool(url, max_size=4)
    store = await open_store(pool)
    known: set[str] = set()
    servers: list[Server] = []
    ids: list[str] = []
    context = multiprocessing.get_context("spawn")
    alive = context.Array("b", [1] * args.replicas)
    stop, go, results = context.Event(), context.Event(), context.Queue()
    load: list[Any] = []
    try:
        for index in range(args.replicas):
            servers.append(Server.service(url, options=options))
            await servers[-1].wait_ready()
            ids.append(await new_replica_id(pool, known))
            run.names[ids[-1]] = f"r{index}.0"
        table_ids = await create_tables(f"127.0.0.1:{servers[0].port}", args.tables)
        addresses = [f"127.0.0.1:{server.port}" for server in servers]
        job = (addresses, table_ids, alive, args.think, stop)
        load = await asyncio.to_thread(start_load_generators, _load_generator, [job], go, results)
        go.set()
        victim = -1
        for number in range(1, args.kills + 1):
            await asyncio.sleep(args.play_seconds)  # the kill lands in ordinary play, not at a new deal
            owning = time.monotonic()
            owned = await wait_owned(pool, ids, args.tables, timeout=10 * lease + 10)
            owning = time.monotonic() - owning
            held = await holdings(pool)
            victim = next_victim(ids, held, victim)
            alive[victim] = 0  # first: a bot that sees its replica fail must find it dead
            watched = takeover_timeout(lease)
            takeovers = await kill_and_watch(pool, store, servers[victim], ids[victim], lease, watched)
            restarting = time.monotonic()
            servers[victim] = Server.service(url, options=options, port=servers[victim].port)
            await servers[victim].wait_ready()
            ids[victim] = await new_replica_id(pool, known)
            run.names[ids[victim]] = f"r{victim}.{number}"
            alive[victim] = 1
            restart_seconds = time.monotonic() - restarting
            run.kills.append(Kill(victim, takeovers, restart_seconds, owning, owned))
            if args.diagnose:
                print(describe_kill(run, len(run.kills)), flush=True)
    finally:
        stop.set()
        if load:
            run.actions, run.failovers, run.bot_failures = await asyncio.to_thread(results.get, True, 60)
            for process in load:
                process.join(timeout=30)
        for server in servers:
            server.stop()
        await store.close()
        await pool.close()
    await audit(url, run)
    run.seconds = time.monotonic() - started
    return run


async def open_store(pool: AsyncConnectionPool) -> Any:
    """The log as the replicas read it (the run's keyring opens its sealed events); registers nothing."""
    from stud_service.sealing import open_sealed_store
    from stud_service.sealing.keyring import load_keyring

    keyring = load_keyring(environ={**os.environ, **keys_environment()})
    assert keyring is not None
    return await open_sealed_store(pool, keyring, register_active=False, announce=False)


async def audit(url: str, run: LeaseRun) -> None:
    """Every ended hand verified, the books reconciled: the project's own audit, on the log alone."""
    from stud_service.audit import verify_hand
    from stud_service.audit.money_log import audit_money
    from stud_service.db import open_pool

    pool = await open_pool(url, max_size=4)
    store = await open_store(pool)
    try:
        hands = await all_rows(
            pool, "SELECT stream_id, hand FROM events WHERE type = 'HandEnded' AND stream_id LIKE 'tables/%'"
        )
        for stream, hand in hands:
            report = await verify_hand(store, str(stream).removeprefix("tables/"), int(hand))
            if report.ok:
                run.hands_verified += 1
            else:
                run.hands_failed.append(f"{stream} hand {hand}: {report.summary()}")
        run.money = await audit_money(store)
    finally:
        await store.close()
        await pool.close()


# -- the report ---------------------------------------------------------------------------------------


def describe_kill(run: LeaseRun, number: int) -> str:
    """One kill, table by table: at the kill and when its watch ended, and what the new owner wrote."""
    kill = run.kills[number - 1]
    waited = f"{kill.owning:.1f} s" + ("" if kill.owned else " (a table owned by no live replica: gave up)")
    lines = [f"kill {number}: r{kill.victim} with {len(kill.takeovers)} tables, after waiting {waited}"
             " for every table to be owned"]
    for t in sorted(kill.takeovers, key=lambda t: t.stream_id):
        taken = "not taken" if t.taken is None else f"taken {t.taken:.2f}"
        first = "NO EVENT of a new owner" if t.first is None else f"{t.first_type} {t.first:.2f}"
        lines.append(f"  {t.stream_id}: expiry {t.expiry:.2f}, {taken}, {first}")
        for when, condition in (("at the kill", t.before), ("after", t.after)):
            if condition is not None:
                lines.append(f"    {when:<11} {condition.describe(run.names)}")
    return "\n".join(lines)



def stats(values: list[float]) -> str:
    if not values:
        return f"{'-':>22}"
    return " ".join(f"{percentile(values, q):>6.2f}" for q in (0.5, 0.99)) + f" {max(values):>8.2f}"


def report(runs: list[LeaseRun], args: argparse.Namespace) -> bool:
    ok = True
    print(
        f"failover: {args.replicas} replicas on one PostgreSQL, {args.tables} raked USD tables,"
        f" {BOTS_PER_TABLE} bots each (think {args.think:.3f} s, hand pause {args.hand_pause} s),"
        f" {args.kills} SIGKILLs per lease;"
        f" {os.cpu_count()} CPUs, load average {os.getloadavg()[0]:.2f} at the end"
    )
    head = "".join(f"  lease {run.lease:>4} s: p50    p99      max" for run in runs)
    print(f"{'seconds after the SIGKILL':<48}{head}")
    rows: list[tuple[str, Any]] = [
        ("old lease expires (the lease's part)", lambda r: [t.expiry for t in r.takeovers]),
        ("lease taken by a survivor", lambda r: [t.taken for t in r.takeovers if t.taken is not None]),
        ("first event of the new owner, per table", lambda r: [t.first for t in r.takeovers if t.first]),
        ("  the same, per kill (its last table)",
         lambda r: [max(t.first for t in k.takeovers if t.first) for k in r.kills
                    if k.takeovers and all(t.first for t in k.takeovers)]),
        ("first event - old lease expiry (service's part)",
         lambda r: [t.first - t.expiry for t in r.takeovers if t.first]),
        ("  of which lease taken - old lease expiry",
         lambda r: [t.taken - t.expiry for t in r.takeovers if t.taken is not None]),
        ("  the hand running ended - lease taken (if later)",
         lambda r: [t.hand_ended - t.taken for t in r.takeovers
                    if t.taken is not None and t.hand_ended is not None and t.hand_ended > t.taken]),
        ("  first event - the later of both (the dealer)",
         lambda r: [t.first - max(t.taken, t.hand_ended or 0.0) for t in r.takeovers
                    if t.first and t.taken is not None]),
    ]
    for name, values in rows:
        print(f"{name:<48}" + "".join(f"  {'':>13}{stats(values(run))}" for run in runs))
    for run in runs:
        round_seconds = run.lease / 3
        taken = [t for t in run.takeovers if t.first is not None]
        kinds = sorted({t.first_type for t in taken})
        added = max((t.first - t.expiry for t in taken), default=0.0)
        print(
            f"lease {run.lease} s (a round every {round_seconds:.2f} s): {len(run.kills)} kills,"
            f" {len(run.takeovers)} tables taken over, first events {', '.join(kinds)};"
            f" the service's part at most {added:.2f} s against one round + hand pause"
            f" = {round_seconds + args.hand_pause:.2f} s; restarts took"
            f" {statistics.median([k.restart_seconds for k in run.kills] or [0]):.1f} s and waiting for"
            f" every table to be owned {statistics.median([k.owning for k in run.kills] or [0]):.1f} s"
            " (medians);"
            f" {run.actions} actions, {run.failovers} bot failovers; {run.seconds:.0f} s in all"
        )
        if taken:
            slowest = max(taken, key=lambda t: t.first or 0.0)
            ended = "none running" if slowest.hand_ended is None else f"{slowest.hand_ended:.2f}"
            print(
                f"  slowest: {slowest.stream_id} old lease expired {slowest.expiry:.2f}, taken"
                f" {slowest.taken or 0.0:.2f}, the running hand ended {ended}, first event"
                f" {slowest.first:.2f} s after the kill"
            )
        missing = [t for t in run.takeovers if t.first is None]
        if missing:
            ok = False
            print(f"  FAIL: not taken over (no event of a new owner): {[t.stream_id for t in missing]}")
            stuck = [t for t in missing if t.after is not None and not t.after.can_deal()]
            print(f"    of which {len(stuck)} could not deal when their watch ended (fewer than two players"
                  " ready, no hand running)")
            for t in missing:
                if t.after is not None:
                    print(f"    {t.stream_id}: {t.after.describe(run.names)}")
        if not run.takeovers or any(not kill.takeovers for kill in run.kills):
            ok = False
            print("  FAIL: a killed replica owned no table")
        unowned = sum(not kill.owned for kill in run.kills)
        if unowned:
            ok = False
            print(f"  FAIL: {unowned} kills went ahead with a table owned by no live replica after waiting"
                  f" {10 * run.lease + 10:g} s")
        for failure in run.bot_failures:
            ok = False
            print(f"  FAIL: a bot was refused by a live replica: {failure}")
        money = run.money
        usd = money.totals.get("USD") if money is not None else None
        hands_ok = not run.hands_failed and run.hands_verified > 0
        ok = ok and hands_ok and money is not None and money.ok and usd is not None and usd.difference == 0
        balances = "balances" if money is not None and money.ok else "FAILS"
        print(
            f"  audit: {run.hands_verified} hands verified (chain, shuffle, replay, chips),"
            f" {len(run.hands_failed)} failed; money {balances}"
            + (
                f": USD deposits {usd.deposits} = balances {usd.balances} + chips at tables"
                f" {usd.chips_at_tables} + rake {usd.rake_taken} (difference {usd.difference});"
                f" house {usd.house_balance}, unswept {usd.unswept_rake}"
                if usd is not None else ""
            )
        )
        for failure in run.hands_failed[:5]:
            print(f"  FAIL: {failure}")
        if money is not None:
            for discrepancy in money.discrepancies[:5]:
                print(f"  FAIL: {discrepancy}")
    return ok


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--leases", type=float, nargs="+", default=[5.0, 1.5], help="--lease-seconds to run")
    parser.add_argument("--kills", type=int, default=20, help="SIGKILLs per lease setting")
    parser.add_argument("--tables", type=int, default=8)
    parser.add_argument("--replicas", type=int, default=2)
    parser.add_argument("--hand-pause", type=float, default=0.3, help="the replicas' --hand-pause-seconds")
    parser.add_argument("--think", type=float, default=0.02, help="seconds each bot waits before acting")
    parser.add_argument("--play-seconds", type=float, default=5.0,
                        help="seconds the bots play between one kill's restart and the next kill")
    parser.add_argument("--diagnose", action="store_true",
                        help="print each kill's tables as they happen: owner, players ready, newest event")
    args = parser.parse_args()
    db = Database()
    db.start()
    try:
        runs = [asyncio.run(run_lease(db.another(), lease, args)) for lease in args.leases]
    finally:
        db.stop()
    ok = report(runs, args)
    record_headline(runs[0], args, ok)
    return 0 if ok else 1


def record_headline(run: LeaseRun, args: argparse.Namespace, ok: bool) -> None:
    """Kill to the new owner's first event at the first lease setting, against the lease's own part."""
    taken = [t for t in run.takeovers if t.first]
    if not taken:
        return
    first = [t.first for t in taken]
    expiry = [t.expiry for t in run.takeovers]
    added = [t.first - t.expiry for t in taken]
    bound = run.lease / 3 + args.hand_pause  # one lease round, then the pause before a deal
    missing = len(run.takeovers) - len(taken)
    headline.record(
        __file__,
        what=f"SIGKILL of a table's owner, {args.replicas} replicas, {args.tables} raked tables, lease"
             f" {run.lease:g} s, {len(run.kills)} kills ({len(run.takeovers)} tables to take over): kill to"
             " the new owner's first event",
        figure=f"p50 {percentile(first, 0.5):.2f} s, max {max(first):.2f} s"
               + (f"; {missing} of {len(run.takeovers)} tables not taken over within"
                  f" {takeover_timeout(run.lease):g} s" if missing else ""),
        peer=f"the lease itself, kill to the old lease's expiry: p50 {percentile(expiry, 0.5):.2f} s,"
             f" max {max(expiry):.2f} s",
        ratio=f"the service's part (first event − expiry): p50 {percentile(added, 0.5):.2f} s,"
              f" max {max(added):.2f} s",
        goal=f"service's part at p50 ≤ one round + the hand pause ({bound:.2f} s); every table taken over,"
             " every hand verified, the money balanced",
        met=ok and percentile(added, 0.5) <= bound,
    )


if __name__ == "__main__":
    raise SystemExit(main())
