"""Database failover: from the fault to each table's first event on the new primary, beside the floor.

A Patroni cluster of three PostgreSQL 15 nodes on loopback (tests/patroni_cluster.py: etcd, synchronous mode,
ttl 10 s, loop_wait 1 s), one replica of the service on it with ``DATABASE_URL`` naming the three hosts
(``target_session_attrs=read-write``), ``--tables`` raked USD tables of three bots each and a cashier
depositing every 0.4 s. Each bot retries a call answered UNAVAILABLE with the same request id
(tests/failover_traffic.py). Per durability mode (``synchronous_mode_strict`` on, then off) and per fault
kind, ``--repeats`` times:

- ``postmaster``: the primary's postmaster SIGKILLed (its agent restarts it: crash recovery in place);
- ``node``: the primary's node lost, its Patroni agent and postmaster SIGKILLed (a standby takes over once the
  leader key lapses, after the ttl); the node is started again afterwards and rejoins as a standby;
- ``switchover``: a planned switchover through Patroni's API.

Measured from the fault (this machine's clock, which PostgreSQL's ``now()`` shares on loopback) to each
table's first event whose transaction began once the old primary's processes were all gone (``recorded_at``:
so it went in on the primary that serves after the fault; a backend of a killed postmaster lives on for a
moment and may still commit locally, unacknowledged), and the floor in the same run, measured the same way:
a bare psycopg client that reconnects every 50 ms to the same hosts and inserts a row, its first committed
row. Reported per mode and kind: min / median / max over the tables (and repeats), beside the floor's median.
At the end of each mode every acknowledged Act and Deposit must be in the log and ``audit money`` must
balance: 0 acknowledged events lost.

Goal: the service's median ≤ the floor's median + 0.5 s for each kind and mode, and nothing acknowledged lost.

Run: ``.venv/bin/python benchmarks/bench_failover_db.py [--tables 6] [--repeats 2] [--modes strict relaxed]``
(needs Debian's ``patroni``, ``python3-etcd`` and ``etcd-server`` and PostgreSQL 15, as the HA tests do).
``--kinds node`` runs some fault kinds only (its row then has only those); ``--log-level INFO`` shows the
service's log on stderr (leases taken and lost, hands started: where a table's time went).
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import random
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(ROOT / "tests"))

import grpc  # noqa: E402
import headline  # noqa: E402  (benchmarks/headline.py)
import psutil  # noqa: E402
import psycopg  # noqa: E402
from bench_service import SECRET, Server, table_spec  # noqa: E402
from failover_traffic import Replicas, Traffic, deposit_every, play_seat  # noqa: E402  (tests/)
from patroni_cluster import PatroniCluster, missing_tools  # noqa: E402  (tests/patroni_cluster.py)

from stud_service.audit.money_log import audit_money  # noqa: E402
from stud_service.auth import Role, mint_token  # noqa: E402
from stud_service.bots import StudClient  # noqa: E402
from stud_service.db import open_pool  # noqa: E402
from stud_service.store import EventStore, apply_migrations  # noqa: E402

KINDS = ("postmaster", "node", "switchover")
CALL_DEADLINE = 30.0
RESUME_LIMIT = 90.0
RACES = {"STALE_TURN", "NOT_YOUR_TURN", "ACTION_NOT_AVAILABLE", "HAND_NOT_RUNNING"}
PLAYERS_PER_TABLE = 3


async def floor_writer(url: str, stop: asyncio.Event) -> None:
    """The floor: a bare client inserting a row every 50 ms, reconnecting whenever its connection fails."""
    while not stop.is_set():
        try:
            async with await psycopg.AsyncConnection.connect(url, autocommit=True, connect_timeout=2) as conn:
                while not stop.is_set():
                    await conn.execute("INSERT INTO bench_floor DEFAULT VALUES")
                    await asyncio.sleep(0.05)
        except psycopg.Error:
            await asyncio.sleep(0.05)


async def first_after(url: str, fault: float, gone: float, tables: list[str]
                      ) -> tuple[dict[str, float], float] | None:
    """Seconds from ``fault`` (epoch) to each table's first event begun after ``gone`` (when the old
    primary's processes were all gone), and to the floor's first row; None while any is missing or no primary
    answers."""
    try:
        async with await psycopg.AsyncConnection.connect(url, autocommit=True, connect_timeout=2) as conn:
            rows = await (await conn.execute(
                "SELECT stream_id, extract(epoch FROM min(recorded_at)) FROM events"
                " WHERE stream_id = ANY(%s) AND recorded_at > to_timestamp(%s) GROUP BY stream_id",
                ([f"tables/{t}" for t in tables], gone))).fetchall()
            floor = await (await conn.execute(
                "SELECT extract(epoch FROM min(at)) FROM bench_floor WHERE at > to_timestamp(%s)", (gone,)
            )).fetchone()
    except psycopg.Error:
        return None
    if len(rows) < len(tables) or floor is None or floor[0] is None:
        return None
    return {stream: float(at) - fault for stream, at in rows}, float(floor[0]) - fault


async def apply_fault(cluster: PatroniCluster, kind: str) -> tuple[float, float, str]:
    """Wait for a healthy cluster, then apply the fault: its time, when the old primary's processes
    (postmaster and children) were all gone (epoch seconds), and the node it hit."""
    leader = await asyncio.to_thread(cluster.wait_healthy, 120.0)
    await asyncio.sleep(1.0)  # play under way on a primary with its synchronous standby
    postmaster = psutil.Process(cluster.node(leader).postmaster_pid())
    old_server = [postmaster, *postmaster.children()]
    started = time.time()
    if kind == "postmaster":
        cluster.kill_postmaster(leader)
    elif kind == "node":
        cluster.lose_node(leader)
    else:
        switching = asyncio.ensure_future(asyncio.to_thread(cluster.switchover, leader))
    while any(process.is_running() and process.status() != psutil.STATUS_ZOMBIE for process in old_server):
        await asyncio.sleep(0.005)
    gone = time.time()
    if kind == "switchover":
        await switching
    return started, gone, leader


async def run_mode(strict: bool, tables: int, repeats: int, kinds: tuple[str, ...] = KINDS,
                   log_level: str = "WARNING") -> dict[str, tuple[list[float], list[float]]]:
    """Per fault kind: the tables' delays and the floor's, in seconds. Raises if anything acknowledged is
    lost."""
    cluster = PatroniCluster(Path(tempfile.mkdtemp(prefix="stud-bench-ha-")), strict=strict)
    server: Server | None = None
    results: dict[str, tuple[list[float], list[float]]] = {kind: ([], []) for kind in kinds}
    tasks: list[asyncio.Task[None]] = []
    stop_floor = asyncio.Event()
    try:
        await asyncio.to_thread(cluster.start)
        async with await psycopg.AsyncConnection.connect(cluster.url(), autocommit=True) as conn:
            await conn.execute("CREATE DATABASE stud")
        url = cluster.url("stud")
        await apply_migrations(url)
        async with await psycopg.AsyncConnection.connect(url, autocommit=True) as conn:
            await conn.execute(
                "CREATE TABLE bench_floor (id bigserial PRIMARY KEY, at timestamptz DEFAULT now())")
        server = Server.service(url, options=("--lease-seconds", "3", "--log-level", log_level))
        await server.wait_ready()
        channel = grpc.aio.insecure_channel(f"127.0.0.1:{server.port}")
        replicas, traffic = Replicas([channel], SECRET), Traffic()
        operator = StudClient(channel, mint_token(SECRET, "house", Role.OPERATOR))
        names = [f"db-{index}" for index in range(tables)]
        for table_id in names:
            await operator.create_table(table_id, table_spec(raked=True))
            for seat in range(1, PLAYERS_PER_TABLE + 1):
                player = f"{table_id}-p{seat}"
                await operator.deposit(player, 200_000)
                await StudClient(channel, mint_token(SECRET, player)).sit_down(table_id, seat, 20_000)
                tasks.append(asyncio.create_task(
                    play_seat(replicas, traffic, table_id, player, 0, random.Random(player))))
        tasks.append(asyncio.create_task(deposit_every(replicas, traffic, 0.4)))
        tasks.append(asyncio.create_task(floor_writer(url, stop_floor)))
        for _ in range(repeats):
            for kind in kinds:
                fault, gone, hit = await apply_fault(cluster, kind)
                deadline = time.monotonic() + RESUME_LIMIT
                while (found := await first_after(url, fault, gone, names)) is None:
                    for task in tasks:
                        if task.done():
                            task.result()  # a client met a refusal it should not have: fail the run
                    if time.monotonic() > deadline:
                        raise RuntimeError(f"{kind}: a table did not deal within {RESUME_LIMIT:.0f} s")
                    await asyncio.sleep(0.1)
                delays, floor = found
                results[kind][0].extend(delays.values())
                results[kind][1].append(floor)
                print(f"  {'strict' if strict else 'relaxed'} {kind} at {hit}: tables "
                      f"{min(delays.values()):.2f}/{statistics.median(delays.values()):.2f}/"
                      f"{max(delays.values()):.2f} s, floor {floor:.2f} s", flush=True)
                if kind == "node":
                    cluster.start_agent(cluster.node(hit))  # it rejoins as a standby
        stop_floor.set()
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
        await channel.close()
        keys = traffic.acknowledged_keys()
        await check_nothing_lost(url, keys)
        print(f"  {len(keys)} acknowledged calls, all in the log; {traffic.retries} retries"
              f" {traffic.reasons}", flush=True)
        return results
    finally:
        stop_floor.set()
        for task in tasks:
            task.cancel()
        if server is not None:
            with contextlib.suppress(Exception):
                server.stop()
        await asyncio.to_thread(cluster.destroy)


async def check_nothing_lost(url: str, keys: list[str]) -> None:
    pool = await open_pool(url, max_size=2)
    try:
        async with pool.connection() as conn:
            rows = await (await conn.execute(
                "SELECT request_id FROM events WHERE request_id = ANY(%s)", (keys,))).fetchall()
        missing = set(keys) - {row[0] for row in rows}
        if missing:
            raise RuntimeError(f"{len(missing)} acknowledged calls are not in the log")
        report = await audit_money(EventStore(pool))
        if not report.ok or report.totals["USD"].difference != 0:
            raise RuntimeError(f"the money does not balance: {[str(d) for d in report.discrepancies][:5]}")
    finally:
        await pool.close()


def summary(values: list[float]) -> str:
    return f"{min(values):.1f}/{statistics.median(values):.1f}/{max(values):.1f} s"


async def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--tables", type=int, default=6)
    parser.add_argument("--repeats", type=int, default=2)
    parser.add_argument("--modes", nargs="+", choices=("strict", "relaxed"), default=["strict", "relaxed"])
    parser.add_argument("--kinds", nargs="+", choices=KINDS, default=list(KINDS))
    parser.add_argument("--log-level", default="WARNING", help="the service's, on stderr")
    args = parser.parse_args()
    if (reason := missing_tools()) is not None:
        print(reason)
        return 2
    status = 0
    for mode in args.modes:
        print(f"== synchronous_mode_strict {'on' if mode == 'strict' else 'off'}", flush=True)
        results = await run_mode(
            mode == "strict", args.tables, args.repeats, tuple(args.kinds), args.log_level)
        gaps = {kind: statistics.median(tables) - statistics.median(floor)
                for kind, (tables, floor) in results.items()}
        met = all(gap <= 0.5 for gap in gaps.values())
        status |= 0 if met else 1
        headline.record(
            __file__, part=mode,
            what=(f"3-node Patroni cluster ({'strict' if mode == 'strict' else 'non-strict'} synchronous"
                  f" mode, ttl 10 s), {args.tables} raked USD tables and a deposit every 0.4 s,"
                  f" {args.repeats} faults of each kind: fault to each table's first event on the new"
                  " primary, min/median/max"),
            figure="; ".join(f"{kind} {summary(tables)}" for kind, (tables, _floor) in results.items()),
            peer="a bare psycopg client's first commit, median: " + "; ".join(
                f"{kind} {statistics.median(floor):.1f} s" for kind, (_tables, floor) in results.items()),
            ratio="median − floor: " + "; ".join(f"{kind} {gap:+.1f} s" for kind, gap in gaps.items()),
            goal="median ≤ the floor's + 0.5 s for each kind; 0 acknowledged events lost",
            met=met,
        )
    return status


if __name__ == "__main__":
    sys.exit(asyncio.run(main()))
