"""The floor of the database's CPU per append on Citus against one plain PostgreSQL, no service in between.

How close to one node's CPU per action can the service on Citus come? Here the service is taken out: a plain
psycopg client appends the commands a real run wrote, and the database servers' CPU per append is read for
each way of sending them.

1. The record: ``stud-service serve`` on one plain PostgreSQL made here, ``--tables`` money tables of bots
   (bench_service.py's), for ``--service-seconds``. Kept from it: the service's CPU per action and the
   database's (as bench_service.py reports them); the commands its writer sent, read back from the log (a
   command is a stream's events written by one transaction; the payloads are the stored ones, sealed as
   served, encoded again by the store's canonical encoder); the commands per action; and the size of the
   batches the writer reached (commands per transaction).
2. The cases, each on fresh streams (8, as 8 tables, unless a batch needs more), each stream replaying one
   recorded table's single-stream commands in order (request ids and fingerprints as recorded), each client on
   a connection of its own, for ``--seconds``, in ``--rounds`` rounds with the cases' order reversed every
   other round:
   (a) plain node, the writer's batch statement (its own code: ``AppendWriter._append_rows``, hashes made by
       the client, the previous batch's announcements in the statement) with N commands per statement
       (``--batches``), 8 ÷ N statements under way at once;
   (b) plain node, ``stud_append_stream`` one call per append;
   (c) Citus through the coordinator, as the service sends an action until it knows the stream's worker (the
       coordinator delegates the call to the stream's worker);
   (d) Citus on the worker holding the stream's shard, called there directly (Citus keeps the metadata on
       the workers, so the worker runs the call itself: no coordinator);
   (e) Citus on the other worker (which hands the call to the right one);
   (f) Citus on the worker holding the streams' shards, the writer's batch as it goes there (its events as one
       ``INSERT ... VALUES``, no announcements) with N commands per statement: as the service sends an
       action once it knows the stream's worker.
   Reported: appends per second and CPU ms per append of the plain server, of the coordinator and of the
   workers (every process of each server, as bench_service.py reads them).
3. The floor of the issue's ratio (CPU per action on Citus, service included, over one plain node's): the
   service's CPU per action as measured on the plain node plus the best Citus case's database CPU per append
   (of (c), (d), (e) and (f) at one command per statement: at 8 tables a worker's batches hold about one)
   times the appends per action, over the plain node's service plus database per action. It leaves out
   what the service does on Citus beyond that (a call and an announcement per action, the lease rounds'
   fan-out, the fenced appends' lease check, the money moves through the coordinator): a lower bound.
4. ``--routing-rounds R``: then bench_service.py's comparison (the service against one plain PostgreSQL,
   R rounds alternating) twice on this cluster: the service pointed at the coordinator, as deployed, then at
   a worker instead (``serve`` migrates at start, and the migrations' bookkeeping is the coordinator's, so the
   worker is first given a copy of its ``schema_migrations``: everything is applied). No headline is kept
   for these (bench_service.py's Citus row is its own run's).

Run: ``.venv/bin/python benchmarks/bench_citus_floor.py [--seconds 3] [--rounds 3] [--batches 1 2 4 8]
[--service-seconds 10] [--tables 8] [--routing-rounds 0 --routing-seconds 10]``. Needs PostgreSQL 15 with
Citus installed (as ``make citus-test``); the plain node is ``DATABASE_URL``'s server if set, else an embedded
one, as in bench_service.py.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import sys
import time
from collections import Counter, defaultdict
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests"))

import headline  # noqa: E402  (benchmarks/headline.py: the script's own folder is on sys.path)
import psycopg  # noqa: E402
from bench_service import (  # noqa: E402
    BOTS_PER_TABLE,
    Database,
    Server,
    compare_with_plain,
    database_cpu,
    measure,
    postmaster_pid,
    postmasters,
)
from citus_cluster import (  # noqa: E402  (tests/citus_cluster.py)
    DATABASE,
    CitusCluster,
    citus_missing_reason,
    migrate_citus,
    start_cluster,
)

from stud_service.db import open_pool  # noqa: E402
from stud_service.store._types import EncodedCommand, Part  # noqa: E402
from stud_service.store._writer import AppendWriter, append_stream  # noqa: E402
from stud_service.store.canonical import canonical_json  # noqa: E402

STREAMS = 8  # streams appended to at once: one per table, as at 8 tables
WARM_UP_APPENDS = 5  # per client before the window: connections to the workers made, plans cached
MONEY_PREFIXES = ("accounts/", "house/", "players/")
GOAL = 1.5
FLOOR_PREFIX = "floor/"  # the cases' streams


# -- the record ----------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Recorded:
    """One command as the service's writer sent it for one table's stream."""

    events: EncodedCommand
    request_id: str | None
    fingerprint: str | None  # hex


@dataclass
class Record:
    tables: list[list[Recorded]]  # each table's single-stream commands, in order
    actions: int  # commands holding a player's action (PlayerActed, asked for by a request)
    single: int  # single-stream commands on the tables' streams
    money: int  # commands over several streams (buy-ins, cash-outs)
    batch_sizes: Counter[int]  # commands per transaction -> how many commands went in such a transaction

    @property
    def appends_per_action(self) -> float:
        return self.single / max(self.actions, 1)

    def mean_batch(self) -> float:
        """The batch a command went in, on average over the commands."""
        commands = max(self.batch_sizes.total(), 1)
        return sum(size * count for size, count in self.batch_sizes.items()) / commands


def read_record(url: str) -> Record:
    """The commands of a served run, from its log: per stream, the events one transaction wrote are one
    command (the writer puts at most one command of a stream in a batch); a transaction that also wrote a
    money stream is a money move (multi-stream, through the coordinator on Citus as well)."""
    with psycopg.connect(url, autocommit=True) as conn:
        rows = conn.execute(
            "SELECT stream_id, xmin::text, payload::text, request_id, encode(request_fingerprint, 'hex')"
            " FROM events ORDER BY stream_id, version"
        ).fetchall()
    commands: list[tuple[str, str, list[dict[str, Any]], str | None, str | None]] = []
    for stream_id, xid, payload, request_id, fingerprint in rows:
        if commands and commands[-1][0] == stream_id and commands[-1][1] == xid:
            commands[-1][2].append(json.loads(payload))
        else:
            commands.append((stream_id, xid, [json.loads(payload)], request_id, fingerprint))
    money_xids = {xid for stream_id, xid, *_ in commands if stream_id.startswith(MONEY_PREFIXES)}
    per_xid = Counter(xid for _, xid, *_ in commands)
    tables: dict[str, list[Recorded]] = defaultdict(list)
    actions = money = 0
    batch_sizes: Counter[int] = Counter()
    for stream_id, xid, events, request_id, fingerprint in commands:
        if xid in money_xids:
            money += not stream_id.startswith(MONEY_PREFIXES)
            continue
        if not stream_id.startswith("tables/"):
            continue
        texts = [canonical_json(event) for event in events]
        encoded = EncodedCommand(texts, [event["type"] for event in events],
                                 [event.get("hand") for event in events])
        tables[stream_id].append(Recorded(encoded, request_id, fingerprint))
        actions += request_id is not None and any(event["type"] == "PlayerActed" for event in events)
        batch_sizes[per_xid[xid]] += 1
    single = sum(len(commands) for commands in tables.values())
    return Record(list(tables.values()), actions, single, money, batch_sizes)


# -- the clients ---------------------------------------------------------------------------------------------


class Feed:
    """One fresh stream replaying a recorded table's commands (again from the first, with request ids of
    their own, when they run out)."""

    def __init__(self, stream_id: str, commands: list[Recorded]) -> None:
        self.stream_id = stream_id
        self.commands = commands
        self.version = 0
        self.sent = 0

    def next_part(self) -> Part:
        recorded = self.commands[self.sent % len(self.commands)]
        lap = self.sent // len(self.commands)
        request_id = recorded.request_id
        if request_id is not None and lap:
            request_id = f"{request_id}#{lap}"
        return Part(self.stream_id, self.version, request_id, recorded.fingerprint if request_id else None,
                    recorded.events)

    def appended(self, part: Part) -> None:
        self.version += len(part.events.texts)
        self.sent += 1


async def connect(url: str) -> psycopg.AsyncConnection[Any]:
    conn = await psycopg.AsyncConnection.connect(url, autocommit=True)
    await conn.execute("SET synchronous_commit = on")  # as the writer's connections (and the function) do
    return conn


async def call_appends(conn: psycopg.AsyncConnection[Any], feed: Feed, count: int | None,
                       until: float) -> int:
    """``stud_append_stream`` once per command, ``count`` times or until ``until``: how many were appended."""
    done = 0
    while done < count if count is not None else time.perf_counter() < until:
        part = feed.next_part()
        outcome = await append_stream(conn, part)  # as the service's writer sends it
        assert outcome[0] == "a", f"{part.stream_id}: {outcome}"
        feed.appended(part)
        done += 1
    return done


async def batch_appends(writer: AppendWriter, conn: psycopg.AsyncConnection[Any], feeds: list[Feed],
                        count: int | None, until: float, on_worker: bool = False) -> int:
    """The writer's batch statement, one command of each feed's stream per statement (its fast path, as a
    batch of single-stream commands with known heads goes; ``on_worker``: as it goes on a Citus worker, its
    events as one INSERT ... VALUES carrying no announcements): commands appended."""
    done = 0
    feeds = sorted(feeds, key=lambda feed: feed.stream_id)  # as the writer orders a batch's streams
    while done < count if count is not None else time.perf_counter() < until:
        parts = [feed.next_part() for feed in feeds]
        prevs = await writer._prev_hashes(conn, parts)
        assert all(prev is not None for prev in prevs)
        await writer._append_rows(conn, parts, [prev for prev in prevs if prev is not None],
                                  announce=not on_worker)
        for feed, part in zip(feeds, parts, strict=True):
            feed.appended(part)
        done += len(parts)
    return done


# -- the cases -----------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Case:
    key: str
    what: str
    citus: bool
    batch: int = 0  # commands per batch statement (plain node); 0: stud_append_stream, one call each
    entry: str = "coordinator"  # on Citus: "coordinator", "owner" (the stream's worker), "other" (worker)


@dataclass
class Sample:
    appends: int = 0
    seconds: float = 0.0
    cpu: dict[str, float] = field(default_factory=dict)  # server -> CPU seconds


@dataclass
class Bench:
    plain_url: str
    cluster: CitusCluster
    record: Record
    seconds: float
    pids: dict[str, int] = field(default_factory=dict)  # "plain", "coordinator", "worker0", "worker1", ...
    _streams: int = 0

    def worker_urls(self) -> list[str]:
        return [node.url(DATABASE) for node in self.cluster.workers]

    def fresh_feeds(self, count: int) -> list[Feed]:
        feeds = []
        for _ in range(count):
            self._streams += 1
            table = self.record.tables[self._streams % len(self.record.tables)]
            # Not under tables/: a service started on the cluster later (--routing-rounds) must not take
            # them for tables to deal at.
            feeds.append(Feed(f"{FLOOR_PREFIX}{os.getpid()}-{self._streams}", table))
        return feeds

    def placement(self, stream_id: str) -> int:
        """The index of the worker holding ``stream_id``'s shard."""
        with psycopg.connect(self.cluster.url, autocommit=True) as conn:
            row = conn.execute(
                "SELECT nodeport FROM citus_shards WHERE table_name = 'events'::regclass"
                " AND shardid = get_shard_id_for_distribution_column('events', %s::text)", (stream_id,)
            ).fetchone()
        assert row is not None
        return [node.port for node in self.cluster.workers].index(row[0])

    async def run(self, case: Case) -> Sample:
        if case.batch:
            return await self._run_batches(case)
        feeds = self.fresh_feeds(STREAMS)
        workers = self.worker_urls()
        urls = []
        for feed in feeds:
            if not case.citus:
                urls.append(self.plain_url)
            elif case.entry == "coordinator":
                urls.append(self.cluster.url)
            else:
                owner = self.placement(feed.stream_id)
                urls.append(workers[owner if case.entry == "owner" else (owner + 1) % len(workers)])
        conns = [await connect(url) for url in urls]
        try:
            return await self._window([
                lambda count, until, conn=conn, feed=feed: call_appends(conn, feed, count, until)
                for conn, feed in zip(conns, feeds, strict=True)
            ])
        finally:
            for conn in conns:
                await conn.close()

    def feeds_on(self, worker: int, count: int) -> list[Feed]:
        """``count`` fresh feeds whose streams' shards are all on ``worker``."""
        found: list[Feed] = []
        while len(found) < count:
            found += [feed for feed in self.fresh_feeds(count) if self.placement(feed.stream_id) == worker]
        return found[:count]

    async def _run_batches(self, case: Case) -> Sample:
        url = self.worker_urls()[0] if case.citus else self.plain_url
        pool = await open_pool(url, min_size=1, max_size=2)
        writer = AppendWriter(pool)
        statements = max(1, STREAMS // case.batch)
        conns = [await connect(url) for _ in range(statements)]
        feeds = [self.feeds_on(0, case.batch) if case.citus else self.fresh_feeds(case.batch) for _ in conns]
        try:
            return await self._window([
                lambda count, until, conn=conn, feeds=streams: batch_appends(
                    writer, conn, feeds, count if count is None else max(1, count // case.batch), until,
                    on_worker=case.citus)
                for conn, streams in zip(conns, feeds, strict=True)
            ])
        finally:
            await writer.close()
            for conn in conns:
                await conn.close()
            await pool.close()

    async def _window(self, clients: list[Callable[[int | None, float], Awaitable[int]]]) -> Sample:
        """Each client warms up, then all append for ``seconds``; the servers' CPU read around that."""
        await asyncio.gather(*(client(WARM_UP_APPENDS, 0.0) for client in clients))
        before = dict(zip(self.pids, database_cpu(tuple(self.pids.values())), strict=True))
        started = time.perf_counter()
        counts = await asyncio.gather(*(client(None, started + self.seconds) for client in clients))
        seconds = time.perf_counter() - started
        after = dict(zip(self.pids, database_cpu(tuple(self.pids.values())), strict=True))
        return Sample(sum(counts), seconds, {server: after[server] - before[server] for server in self.pids})


def cases(batches: list[int]) -> list[Case]:
    return [
        *(Case(f"a{n}", f"plain, batch statement, {n} per statement", False, batch=n) for n in batches),
        Case("b", "plain, stud_append_stream", False),
        Case("c", "Citus via the coordinator", True),
        Case("d", "Citus on the stream's worker", True, entry="owner"),
        Case("e", "Citus on the other worker", True, entry="other"),
        *(Case(f"f{n}", f"Citus on the streams' worker, batch, {n} per st.", True, batch=n, entry="owner")
          for n in batches),
    ]


@dataclass(frozen=True)
class Figures:
    rate: float  # appends/s
    plain: float  # CPU ms per append
    coordinator: float
    workers: float

    @property
    def database(self) -> float:
        return self.plain + self.coordinator + self.workers


def figures(samples: list[Sample], citus: bool) -> Figures:
    appends = max(sum(sample.appends for sample in samples), 1)

    def ms(servers: list[str]) -> float:
        return sum(sample.cpu[server] for sample in samples for server in servers) / appends * 1000

    workers = [server for server in samples[0].cpu if server.startswith("worker")]
    return Figures(appends / sum(sample.seconds for sample in samples),
                   0.0 if citus else ms(["plain"]), ms(["coordinator"]) if citus else 0.0,
                   ms(workers) if citus else 0.0)


# -- the run -------------------------------------------------------------------------------------------------


def give_worker_the_migrations(cluster: CitusCluster, worker_url: str) -> None:
    """A copy of the coordinator's ``schema_migrations`` on ``worker_url`` (a table of that node only): a
    service started there finds every migration applied (they were, from the coordinator)."""
    with psycopg.connect(cluster.url, autocommit=True) as conn:
        columns = conn.execute(
            "SELECT string_agg(quote_ident(attname) || ' ' || format_type(atttypid, atttypmod), ', '"
            " ORDER BY attnum) FROM pg_attribute WHERE attrelid = 'schema_migrations'::regclass"
            " AND attnum > 0 AND NOT attisdropped").fetchone()
        rows = conn.execute("SELECT * FROM schema_migrations").fetchall()
    assert columns is not None
    with psycopg.connect(worker_url, autocommit=True) as conn:
        conn.execute(f"CREATE TABLE IF NOT EXISTS schema_migrations ({columns[0]})")
        with conn.cursor().copy("COPY schema_migrations FROM STDIN") as copy:
            for row in rows:
                copy.write_row(row)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=3.0, help="each case's window, per round")
    parser.add_argument("--rounds", type=int, default=3,
                        help="rounds of every case, the order reversed every other round")
    parser.add_argument("--batches", type=int, nargs="+", default=[1, 2, 4, 8],
                        help="commands per batch statement in case (a)")
    parser.add_argument("--service-seconds", type=float, default=10.0, help="the recorded run's window")
    parser.add_argument("--tables", type=int, default=8, help="tables of the recorded run")
    parser.add_argument("--routing-rounds", type=int, default=0,
                        help="then bench_service.py's comparison with the service entering at a worker")
    parser.add_argument("--routing-seconds", type=int, default=10)
    args = parser.parse_args()
    reason = citus_missing_reason()
    if reason is not None:
        print(f"cannot run: {reason}", file=sys.stderr)
        return 2

    plain = Database()
    plain_url = plain.start()
    cluster = start_cluster()
    try:
        status, output = migrate_citus(cluster.url)
        if status != 0:
            raise RuntimeError(f"migrate --citus failed: {output}")
        served = measure(Server.service(plain_url), args.tables, args.service_seconds,
                         database_pids=postmasters(plain_url))
        record = read_record(plain_url)
        pids = {"plain": postmaster_pid(plain_url), "coordinator": postmaster_pid(cluster.url)}
        pids |= {f"worker{i}": postmaster_pid(node.url(DATABASE)) for i, node in enumerate(cluster.workers)}
        bench = Bench(plain_url, cluster, record, args.seconds, pids)
        every = cases(args.batches)
        samples: dict[str, list[Sample]] = defaultdict(list)
        for number in range(args.rounds):
            for case in every if number % 2 == 0 else every[::-1]:
                samples[case.key].append(asyncio.run(bench.run(case)))
        if args.routing_rounds:
            worker_url = bench.worker_urls()[0]
            give_worker_the_migrations(cluster, worker_url)
            for entry in (cluster.url, worker_url):  # as now, then entering at a worker
                compare_with_plain(entry, [args.tables], args.routing_seconds, args.routing_rounds,
                                   record=False)
    finally:
        cluster.destroy()
        plain.stop()
    results = {key: figures(done, key[0] in "cdef") for key, done in samples.items()}
    report(args, served, record, every, results)
    return 0


def report(args: argparse.Namespace, served: Any, record: Record, every: list[Case],
           results: dict[str, Figures]) -> None:
    actions = max(served.actions, 1)
    service_ms = served.server_cpu / actions * 1000
    database_ms = sum(served.database_cpu) / actions * 1000
    per_action = record.appends_per_action
    print(f"the record: the service on one plain PostgreSQL, {args.tables} money tables, {BOTS_PER_TABLE}"
          f" bots each, {args.service_seconds:.0f} s: {served.rate:.0f} actions/s, CPU per action service"
          f" {service_ms:.2f} ms, database {database_ms:.2f} ms; its log: {record.single} single-stream"
          f" commands on {len(record.tables)} tables ({per_action:.2f} per action), {record.money} money"
          f" moves;"
          f" commands per batch transaction {record.mean_batch():.2f} on average over the commands"
          f" ({', '.join(f'{size}: {count}' for size, count in sorted(record.batch_sizes.items()))})")
    print(f"the cases: no service, {STREAMS} streams replaying the recorded tables' commands, {args.rounds}"
          f" rounds of {args.seconds:.0f} s each, order reversed every other round, {os.cpu_count()} CPUs")
    base = results["b"]
    print(f"{'case':<4} {'':<40} {'appends/s':>10} {'plain':>7} {'coord.':>7} {'workers':>8} {'database':>9}"
          f" {'÷ (b)':>6}   CPU ms per append")
    for case in every:
        done = results[case.key]
        print(f"{case.key:<4} {case.what:<40} {done.rate:>10.0f} {done.plain:>7.3f} {done.coordinator:>7.3f}"
              f" {done.workers:>8.3f} {done.database:>9.3f} {done.database / base.database:>6.2f}")
    best = min([key for key in ("c", "d", "e", "f1") if key in results],
               key=lambda key: results[key].database)
    floor_all = service_ms + results[best].database * per_action
    plain_all = service_ms + database_ms
    floor = floor_all / plain_all
    through_coordinator = (service_ms + results["c"].database * per_action) / plain_all
    # The same with the plain node's appends alone (its batch statement at the record's batch size, no lease
    # rounds or reads): the floor of the appends' own share.
    batch = min(args.batches, key=lambda n: abs(n - record.mean_batch()))
    appends_only = floor_all / (service_ms + results[f"a{batch}"].database * per_action)
    print(f"floor of the ratio: the service's {service_ms:.2f} ms per action (as on the plain node) +"
          f" ({best}) {results[best].database:.3f} ms per append × {per_action:.2f} appends per action ="
          f" {floor_all:.2f} ms, over the plain node's {plain_all:.2f} ms (service + database) = {floor:.2f}×"
          f" (through the coordinator, case c: {through_coordinator:.2f}×; over the plain node's appends"
          f" alone, a{batch}: {appends_only:.2f}×)")
    best_what = next(case.what for case in every if case.key == best)
    verdict = "within reach" if floor <= GOAL else "beyond the floor: not reachable by routing alone"
    print(f"goal CPU per action on Citus <= {GOAL}× one plain node's at {args.tables} tables: {verdict};"
          f" left for everything else on Citus (the service's own extra work, lease rounds, announcements):"
          f" {max(GOAL * plain_all - floor_all, 0):.2f} ms per action")
    headline.record(
        __file__,
        what=f"the database's CPU per append on Citus (a coordinator and 2 workers on this machine) with no"
             f" service, the commands of a served run of {args.tables} money tables replayed on {STREAMS}"
             f" streams, {args.rounds} rounds of {args.seconds:.0f} s alternating with one plain PostgreSQL;"
             " floor of CPU per action on Citus (service + database) over one plain node's",
        figure=f"{results[best].database:.3f} ms per append ({best}: {best_what});"
               f" through the coordinator {results['c'].database:.3f} (coordinator"
               f" {results['c'].coordinator:.3f}, workers {results['c'].workers:.3f}); floor {floor:.2f}×",
        peer=f"one plain PostgreSQL: stud_append_stream {base.database:.3f} ms per append, batch statement"
             f" ({batch} per statement) {results[f'a{batch}'].database:.3f}; served: service"
             f" {service_ms:.2f} + database {database_ms:.2f} ms per action, {per_action:.2f} appends per"
             " action",
        ratio=f"{results[best].database / base.database:.2f}× the plain node's call; floor of the ratio"
              f" {floor:.2f}×",
        goal=f"floor ≤ {GOAL}× (issue 39's CPU goal reachable)",
        met=floor <= GOAL,
    )


if __name__ == "__main__":
    sys.exit(main())
