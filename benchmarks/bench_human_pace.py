"""The service at a human pace: many tables, each player thinking 1–3 s before each action, one replica.

``stud-service serve`` runs as its own process on a PostgreSQL (as in ``bench_service.py``); ``--tables``
tables (default 1,000), three bots each, play through the public gRPC API, each bot waiting a random think
time (uniform, ``--think`` seconds) before every action, as a person would. The bots run in
``--load-processes`` processes of their own; each process's CPU is reported beside the server's, so a
bottleneck in the bots shows (a load process near a whole core is one: run more of them).

Reported over the measured window (after the first hands are dealt): actions per second, the server's
CPU (share of one core, and per action), the client-observed ``Act`` round trip (p50, p99; also apart for
the actions that ended their hand, whose call settles it, and the others), and the delay
from an append to the watchers' message: for each watch message, the time the watcher reads it minus the
record time of its last event (the server's clock right after the commit; all processes share this
machine's clock), p50 and p99.

Two figures split the client's ``Act`` time: the server's own handling of each action (its
``action_latency_seconds`` histogram, from the handler running the command to its events appended; read
from its metrics port at the window's ends: the share within 25 ms and the bucket p99 falls in), and how
late each load process's own event loop woke up from a 10 ms sleep (a bot's reply read late is timed
late). The load processes' collector is set as the server's (``--gc-thresholds``, default ``serve``'s):
with Python's, each ran a 110-170 ms full collection every half minute, timed as slower ``Act`` calls.

A third places what is left: a load process checks the server's health every 50 ms over the bots' own
connections in turn, a call that shares their connections, the server's transport and its event loop
with ``Act``, but not the calls queued for the ``Act`` handler nor its work. Each load process opens
``--connections-per-process`` HTTP/2 connections of its own (gRPC would otherwise carry all of a
process's channels to one address on one connection).

It also counts the bots still playing at the window's end: one whose watch or ``Act`` ended with an
error stops, and its table plays short-handed (or, against the floor, stops), so the load offered is
less than it says.

The service is measured against the bare-gRPC floor (``grpc_floor.py``: the same bots and message pattern
with no work behind it, and no hands, so no pauses between them): what Python gRPC alone gives at this pace.
``--pairs`` runs of each alternate in the same run (service then floor, then floor then service, ...), each
service run on a fresh database; each pair's ratios are printed, service ÷ floor: the actions served, and the
``Act`` p99. Goal (the pairs' medians): the service serves ≥ 97% of the floor's actions, and its ``Act`` p99
is ≤ 3× the floor's. ``--floor`` or ``--service-only`` runs one of them alone (no headline).

Run: ``.venv/bin/python benchmarks/bench_human_pace.py [--tables 1000] [--seconds 30] [--load-processes 4]
[--gc-thresholds 1000,1,5000] [--connections-per-process 4] [--pairs 2 | --floor | --service-only]``
With ``DATABASE_URL`` set that PostgreSQL is used (the role must be able to create a database);
otherwise an embedded PostgreSQL (``pgserver``) is started in a temporary directory.
"""

from __future__ import annotations

import argparse
import asyncio
import itertools
import multiprocessing
import os
import statistics
import sys
import time
import urllib.request
import uuid
from collections import Counter
from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
os.environ.setdefault("GRPC_ENABLE_FORK_SUPPORT", "false")

import grpc  # noqa: E402
import headline  # noqa: E402  (benchmarks/headline.py: the script's own folder is on sys.path)
from bench_service import (  # noqa: E402
    BOTS_PER_TABLE,
    BUY_IN,
    SECRET,
    Database,
    Server,
    _outcomes,
    cpu_seconds,
    free_port,
    fund,
    percentile,
    start_load_generators,
    stop_playing,
    table_spec,
)
from grpc_health.v1 import health_pb2, health_pb2_grpc  # noqa: E402
from prometheus_client.parser import text_string_to_metric_families  # noqa: E402

from stud_service.auth import Role, mint_token  # noqa: E402
from stud_service.bots import Bot, StudClient, random_strategy  # noqa: E402
from stud_service.bots.client import OWN_CONNECTION, events_of  # noqa: E402
from stud_service.server.collector import DEFAULT_THRESHOLDS, parse_thresholds, tune_collector  # noqa: E402
from stud_service.server.proto_gen import table_service_pb2  # noqa: E402

CONNECTIONS_PER_PROCESS = 4  # HTTP/2 connections a load process spreads its bots' calls over (default)
SEATING = 32  # bots of one load process sitting down at a time


@dataclass
class Window:
    """Whether the measured window is open, and what was seen in it (seconds): the watch delays, and the
    ``Act`` round trips of the actions that ended their hand (settled in the call) and of the others."""

    open: bool = False
    delays: list[float] = field(default_factory=list)
    ending: list[float] = field(default_factory=list)
    others: list[float] = field(default_factory=list)
    lags: list[float] = field(default_factory=list)  # the load process's own event loop: late wake-ups
    probes: list[float] = field(default_factory=list)  # a trivial call's round trips on the bots' connections


LAG_TICK = 0.01  # seconds between the load process's wake-ups that time its own event loop


async def _time_own_loop(window: Window) -> None:
    """How late this process's event loop wakes up from a short sleep: an ``Act`` answered while the loop
    was busy (or collecting) is timed as slower by as much, so the bots' own share of the tail shows."""
    while True:
        started = time.perf_counter()
        await asyncio.sleep(LAG_TICK)
        if window.open:
            window.lags.append(time.perf_counter() - started - LAG_TICK)


PROBE_INTERVAL = 0.05  # seconds between a load process's health checks


async def _probe_connections(channels: list[grpc.aio.Channel], window: Window) -> None:
    """Time a trivial call (a health check) on the bots' own connections in turn: it shares their
    connections, the server's transport and its event loop with the bots' ``Act`` calls, but not the
    ``Act`` method's queue of calls waiting for its handler, nor the handler's work."""
    stubs = [health_pb2_grpc.HealthStub(channel) for channel in channels]
    for turn in itertools.count():
        started = time.perf_counter()
        await stubs[turn % len(stubs)].Check(health_pb2.HealthCheckRequest())
        if window.open:
            window.probes.append(time.perf_counter() - started)
        await asyncio.sleep(PROBE_INTERVAL)


class _TimedStream:
    """A watch call whose messages are timed against their last event's record time (window open)."""

    def __init__(self, call: Any, window: Window) -> None:
        self._call = call
        self._window = window

    def __aiter__(self) -> AsyncIterator[table_service_pb2.WatchTableResponse]:
        return self._read()

    async def _read(self) -> AsyncIterator[table_service_pb2.WatchTableResponse]:
        async for message in self._call:
            events = events_of(message)
            if events and self._window.open and events[-1].HasField("record_time"):  # the floor's have none
                recorded = events[-1].record_time
                self._window.delays.append(time.time() - (recorded.seconds + recorded.nanos / 1e9))
            yield message

    def cancel(self) -> None:
        self._call.cancel()


class TimedClient(StudClient):
    """A bot's client whose watch streams time each message (see :class:`_TimedStream`)."""

    def __init__(self, channel: grpc.aio.Channel, token: str, window: Window) -> None:
        super().__init__(channel, token)
        self._window = window

    def watch(self, *args: Any, **kwargs: Any) -> Any:
        return _TimedStream(super().watch(*args, **kwargs), self._window)

    async def act(self, *args: Any, **kwargs: Any) -> Any:
        started = time.perf_counter()
        view = await super().act(*args, **kwargs)
        if self._window.open:
            (self._window.ending if view.hand.complete else self._window.others).append(
                time.perf_counter() - started
            )
        return view


def _load_generator(address: str, table_ids: list[str], seed: int, think: tuple[float, float], warm_up: float,
                    seconds: float, collector: str, connections: int, ready: Any, go: Any, results: Any
                    ) -> None:
    os.environ["GRPC_ENABLE_FORK_SUPPORT"] = "false"
    outcome = asyncio.run(
        _drive(address, table_ids, seed, think, warm_up, seconds, collector, connections, ready, go)
    )
    results.put(outcome)


@dataclass
class LoadOutcome:
    """What one load process measured over the window (seconds; ``cpu`` its own CPU time)."""

    actions: int
    latencies: list[float]
    cpu: float
    window: Window
    lost: Counter[str]  # bots whose play ended in the window or before, by the status that ended it


def _ended_by(task: asyncio.Future[None]) -> str | None:
    """Why a bot's play ended before it was stopped (None: it had not)."""
    if not task.done():
        return None
    if task.cancelled():
        return "cancelled"
    error = task.exception()
    if isinstance(error, grpc.aio.AioRpcError):
        return error.code().name
    return type(error).__name__ if error is not None else "ended"


async def _drive(
    address: str, table_ids: list[str], seed: int, think: tuple[float, float], warm_up: float, seconds: float,
    collector: str, connections: int, ready: Any, go: Any,
) -> LoadOutcome:
    channels = [grpc.aio.insecure_channel(address, options=OWN_CONNECTION) for _ in range(connections)]
    window = Window()
    bots = [
        Bot(TimedClient(channels[(index * BOTS_PER_TABLE + seat) % len(channels)],
                        mint_token(SECRET, f"bot-{seat}"), window),
            table_id, seat, strategy=random_strategy, seed=seed + index * 10 + seat, think_range=think)
        for index, table_id in enumerate(table_ids)
        for seat in range(1, BOTS_PER_TABLE + 1)
    ]
    seating = asyncio.Semaphore(SEATING)

    async def sit(bot: Bot) -> None:
        async with seating:
            await bot.sit(BUY_IN)

    await asyncio.gather(*(sit(bot) for bot in bots))
    # The bots' own collector, tuned as the server's: with Python's defaults a load process holding 750
    # bots paused for a full collection (110-170 ms) every half minute, and every Act of its bots
    # answered meanwhile was timed as that much slower.
    if (thresholds := parse_thresholds(collector)) is not None:
        tune_collector(thresholds)
    ready.set()
    await asyncio.get_running_loop().run_in_executor(None, go.wait)
    stop = asyncio.Event()
    tasks = [asyncio.ensure_future(bot.run(10**9, stop)) for bot in bots]
    lag_timer = asyncio.ensure_future(_time_own_loop(window))
    prober = asyncio.ensure_future(_probe_connections(channels, window))
    await asyncio.sleep(warm_up)  # streams open, first hands dealt, first think times spent
    for bot in bots:
        bot.stats.actions, bot.stats.latencies = 0, []
    window.open = True
    cpu_before = time.process_time()
    await asyncio.sleep(seconds)
    window.open = False
    cpu = time.process_time() - cpu_before
    actions = sum(bot.stats.actions for bot in bots)
    latencies = [latency for bot in bots for latency in bot.stats.latencies]
    lost = Counter(reason for task in tasks if (reason := _ended_by(task)) is not None)
    lag_timer.cancel()
    prober.cancel()
    await stop_playing(stop, tasks, channels)
    return LoadOutcome(actions, latencies, cpu, window, lost)


LATENCY_BUCKETS = "stud_action_latency_seconds_bucket"


def handled_buckets(metrics_port: int) -> dict[float, float]:
    """The server's own ``action_latency_seconds`` histogram (receiving an action to its events appended),
    summed over the actions: cumulative count per upper bound."""
    with urllib.request.urlopen(f"http://127.0.0.1:{metrics_port}/metrics", timeout=10) as reply:
        text = reply.read().decode()
    buckets: dict[float, float] = {}
    for family in text_string_to_metric_families(text):
        for sample in family.samples:
            if sample.name == LATENCY_BUCKETS:
                bound = float(sample.labels["le"])
                buckets[bound] = buckets.get(bound, 0.0) + sample.value
    return buckets


def handled_summary(before: dict[float, float], after: dict[float, float], limit: float) -> str:
    """The window's share of actions the server handled within ``limit`` seconds (a bucket bound), and
    the bucket its p99 falls in."""
    counts = sorted((bound, after[bound] - before.get(bound, 0.0)) for bound in after)
    total = counts[-1][1] if counts else 0.0
    if total <= 0:
        return "no actions handled"
    within = next((count for bound, count in counts if bound >= limit), total)
    p99 = next(bound for bound, count in counts if count >= 0.99 * total)
    return (f"{within / total * 100:.1f}% of {total:.0f} within {limit * 1000:g} ms, p99 in the bucket up to"
            f" {p99 * 1000:g} ms")


async def create_tables(port: int, count: int, cashier: bool = True) -> list[str]:
    """``count`` tables, and (with a ``cashier``) the bots' accounts funded for a buy-in at each."""
    table_ids = [f"human-{uuid.uuid4().hex[:6]}-{index}" for index in range(count)]
    async with grpc.aio.insecure_channel(f"127.0.0.1:{port}") as channel:
        operator = StudClient(channel, mint_token(SECRET, "house", Role.OPERATOR))
        if cashier:
            await fund(operator, [f"bot-{seat}" for seat in range(1, BOTS_PER_TABLE + 1)], BUY_IN * count)
        creating = asyncio.Semaphore(16)

        async def create(table_id: str) -> None:
            async with creating:
                await operator.create_table(table_id, table_spec())

        await asyncio.gather(*(create(table_id) for table_id in table_ids))
    return table_ids


@dataclass
class PaceRun:
    """One run's figures over its window: the service's or the floor's."""

    floor: bool
    actions_per_second: float
    cpu_per_action_ms: float
    act_p50_ms: float
    act_p99_ms: float
    probe_p99_ms: float
    playing: int
    bots: int


def run_once(args: argparse.Namespace, floor: bool, database: Database | None) -> PaceRun:
    """One run against the floor or the service (on a fresh database of ``database``'s server), printed."""
    metrics_port = free_port()
    if floor:
        server = Server.floor()
    else:
        assert database is not None
        server = Server.service(database.another(), options=(
            "--gc-thresholds", args.gc_thresholds, "--metrics-listen", f"127.0.0.1:{metrics_port}"))
    handled = "not measured (the floor has no metrics)"
    try:
        asyncio.run(server.wait_ready())
        started = time.perf_counter()
        table_ids = asyncio.run(create_tables(server.port, args.tables, server.cashier))
        context = multiprocessing.get_context("spawn")
        go, results = context.Event(), context.Queue()
        jobs = [(f"127.0.0.1:{server.port}", table_ids[worker :: args.load_processes], worker * 100_000,
                 tuple(args.think), args.warm_up, args.seconds, args.gc_thresholds,
                 args.connections_per_process)
                for worker in range(args.load_processes)]
        processes = start_load_generators(_load_generator, jobs, go, results)
        seated = time.perf_counter() - started
        go.set()
        time.sleep(args.warm_up)
        cpu_before = cpu_seconds(server.process.pid)
        handled_before = handled_buckets(metrics_port) if not floor else {}
        time.sleep(args.seconds)
        server_cpu = cpu_seconds(server.process.pid) - cpu_before
        if not floor:
            handled = handled_summary(handled_before, handled_buckets(metrics_port), 0.025)
        outcomes = _outcomes(results, processes, 120 + args.seconds)
        for process in processes:
            process.join(timeout=30)
    finally:
        server.stop()

    actions = sum(outcome.actions for outcome in outcomes)
    latencies = [latency for outcome in outcomes for latency in outcome.latencies]
    delays = [delay for outcome in outcomes for delay in outcome.window.delays]
    load_cpu = [outcome.cpu / args.seconds * 100 for outcome in outcomes]
    lost = sum((outcome.lost for outcome in outcomes), Counter())
    act = [percentile(latencies, fraction) * 1000 for fraction in (0.5, 0.99)]
    watch = (f"append to watcher p50 {percentile(delays, 0.5) * 1000:.1f} ms,"
             f" p99 {percentile(delays, 0.99) * 1000:.1f} ms ({len(delays)} messages)"
             if delays else "append to watcher: not measured (no record times)")
    ending = [latency for outcome in outcomes for latency in outcome.window.ending]
    others = [latency for outcome in outcomes for latency in outcome.window.others]
    lags = [lag for outcome in outcomes for lag in outcome.window.lags]
    probes = [probe for outcome in outcomes for probe in outcome.window.probes]
    print(
        f"human pace{' (the bare-gRPC floor)' if floor else ''}: {args.tables} tables,"
        f" {BOTS_PER_TABLE} bots each thinking"
        f" {args.think[0]:g}-{args.think[1]:g} s before each action, one replica,"
        f" {args.load_processes} load processes, {os.cpu_count()} CPUs,"
        f" {args.seconds:g} s measured after {args.warm_up:g} s of play (set up in {seated:.0f} s),"
        f" collector {args.gc_thresholds}, {args.connections_per_process} connections per load process"
    )
    print(
        f"  {actions / args.seconds:.0f} actions/s; server CPU {server_cpu / args.seconds * 100:.0f}%"
        f" of a core,"
        f" {server_cpu / max(actions, 1) * 1000:.2f} ms per action; load processes"
        f" {', '.join(f'{share:.0f}%' for share in load_cpu)} of a core each"
    )
    bots = len(table_ids) * BOTS_PER_TABLE
    print(f"  bots still playing at the window's end: {bots - lost.total()} of {bots}"
          + (f" (ended early: {dict(lost)}; their tables played short-handed or stopped)" if lost else ""))
    print(
        "  Act p99 per load process: "
        + ", ".join(f"{percentile(outcome.latencies, 0.99) * 1000:.1f}" for outcome in outcomes
                    if outcome.latencies)
        + " ms (a tail in one process only is that process's, or its connections')"
    )
    print(
        f"  Act p50 {act[0]:.1f} ms, p99 {act[1]:.1f} ms ({len(latencies)} timed);"
        f" {watch}"
    )
    if ending:  # the floor's tables play no hands
        print(
            f"  Act p50 / p99 of the hand's last action {percentile(ending, 0.5) * 1000:.1f} /"
            f" {percentile(ending, 0.99) * 1000:.1f} ms ({len(ending)}), of the others"
            f" {percentile(others, 0.5) * 1000:.1f} / {percentile(others, 0.99) * 1000:.1f} ms"
            f" ({len(others)})"
        )
    print(f"  the server's own handling, command to append (its action_latency histogram): {handled}")
    print(
        f"  a health check on the bots' own connections: p50 {percentile(probes, 0.5) * 1000:.1f},"
        f" p99 {percentile(probes, 0.99) * 1000:.1f} ms ({len(probes)} timed; the transport and the loop"
        " without the Act method's queue)"
    )
    print(
        f"  the load processes' own event loops woke up late by p50 {percentile(lags, 0.5) * 1000:.1f},"
        f" p99 {percentile(lags, 0.99) * 1000:.1f}, max {max(lags, default=0) * 1000:.1f} ms",
        flush=True,
    )
    return PaceRun(floor, actions / args.seconds, server_cpu / max(actions, 1) * 1000, act[0], act[1],
                   percentile(probes, 0.99) * 1000, bots - lost.total(), bots)


SERVED_GOAL = 0.97  # the service's actions/s against the floor's, same pairing
P99_GOAL = 3.0  # the service's Act p99 against the floor's, same pairing


def compare_pairs(args: argparse.Namespace, pairs: list[tuple[PaceRun, PaceRun]]) -> None:
    """Each pairing's ratios (service ÷ floor), their medians against the goals, and the headline."""
    served = [service.actions_per_second / max(floor.actions_per_second, 1e-9) for service, floor in pairs]
    tails = [service.act_p99_ms / max(floor.act_p99_ms, 1e-9) for service, floor in pairs]
    for number, ((service, floor), share, tail) in enumerate(zip(pairs, served, tails, strict=True), 1):
        print(f"pair {number}: service {service.actions_per_second:.0f} actions/s, Act p99"
              f" {service.act_p99_ms:.0f} ms, {service.cpu_per_action_ms:.2f} ms CPU per action; floor"
              f" {floor.actions_per_second:.0f} actions/s, Act p99 {floor.act_p99_ms:.0f} ms,"
              f" {floor.cpu_per_action_ms:.2f} ms; served {share:.3f}× the floor's, p99 {tail:.1f}×"
              " the floor's")
    services = [service for service, _floor in pairs]
    floors = [floor for _service, floor in pairs]

    def median(values: list[float]) -> float:
        return statistics.median(values)

    share, tail = median(served), median(tails)
    met = share >= SERVED_GOAL and tail <= P99_GOAL
    print(f"medians of {len(pairs)} pairs: served {share:.3f}× the floor's actions (goal ≥ {SERVED_GOAL:g}),"
          f" Act p99 {tail:.1f}× the floor's (goal ≤ {P99_GOAL:g}×): {'met' if met else 'not met'}")
    bots = min(run.playing for run in services)
    headline.record(
        __file__,
        what=f"{args.tables:,} tables, {BOTS_PER_TABLE} bots each thinking"
             f" {args.think[0]:g}–{args.think[1]:g} s before each action, one replica, {len(pairs)} pairs"
             " alternating with the floor: actions served and Act round trips",
        figure=f"{median([run.actions_per_second for run in services]):,.0f} actions/s, p99"
               f" {median([run.act_p99_ms for run in services]):,.0f} ms (p50"
               f" {median([run.act_p50_ms for run in services]):,.0f} ms),"
               f" {median([run.cpu_per_action_ms for run in services]):.2f} ms server CPU per action,"
               f" {bots:,} of {services[0].bots:,} bots playing",
        peer=f"the bare-gRPC floor, same bots: {median([run.actions_per_second for run in floors]):,.0f}"
             f" actions/s, p99 {median([run.act_p99_ms for run in floors]):,.0f} ms,"
             f" {median([run.cpu_per_action_ms for run in floors]):.2f} ms per action",
        ratio=f"{share:.2f}× the floor's actions, {tail:.1f}× its p99 (pairs' medians)",
        goal=f"≥ {SERVED_GOAL:.0%} of the floor's actions and p99 ≤ {P99_GOAL:g}× the floor's",
        met=met,
    )


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tables", type=int, default=1000)
    parser.add_argument("--seconds", type=float, default=30.0)
    parser.add_argument("--warm-up", type=float, default=8.0, help="seconds of play before the window")
    parser.add_argument("--think", type=float, nargs=2, default=[1.0, 3.0], metavar=("MIN", "MAX"))
    parser.add_argument("--load-processes", type=int, default=4)
    parser.add_argument("--connections-per-process", type=int, default=CONNECTIONS_PER_PROCESS,
                        help="HTTP/2 connections each load process's bots share (a person's has its own)")
    parser.add_argument("--gc-thresholds", default=",".join(map(str, DEFAULT_THRESHOLDS)),
                        help="the server's and the load processes' collector (serve --gc-thresholds)")
    parser.add_argument("--pairs", type=int, default=2,
                        help="runs of the service and of the floor, alternating (service first, then floor"
                             " first, ...), compared pair by pair")
    alone = parser.add_mutually_exclusive_group()
    alone.add_argument("--floor", action="store_true",
                       help="one run of the bare-gRPC floor (grpc_floor.py) alone, no headline")
    alone.add_argument("--service-only", action="store_true",
                       help="one run of the service alone, no headline")
    args = parser.parse_args()

    database = None if args.floor else Database()
    try:
        if database is not None:
            database.start()
        if args.floor or args.service_only:
            run_once(args, args.floor, database)
            return 0
        pairs = []
        for number in range(args.pairs):
            order = (False, True) if number % 2 == 0 else (True, False)
            runs = {floor: run_once(args, floor, database) for floor in order}
            pairs.append((runs[False], runs[True]))
    finally:
        if database is not None:
            database.stop()
    compare_pairs(args, pairs)
    return 0


if __name__ == "__main__":
    sys.exit(main())
