"""What a hot standby takes off the primary: history, replay and audit reads with and without a standby.

A PostgreSQL primary and one hot standby streaming from it (``tests/standby_pair.py``: Debian's PostgreSQL,
run as ``postgres`` when root), the service in this process on the pair (``--read-database-url``: the
standby). ``--tables`` simulated tables of ``--hands`` hands each are stored through the service's own
(sealed) store. Then they are read over gRPC, ``--concurrency`` calls in flight, each about a random
finished hand: one of its players' ``ListHands`` of the table, ``ReplayHand`` or ``ExportHandHistory`` (PHH),
or an auditor's ``VerifyHand`` (an auditor's call is recorded in the access log: a write, on the primary),
``--reads`` calls a round. Rounds alternate between the service without a standby (every read on the
primary) and with it, ``--rounds`` of each.

Reported per 1,000 reads: the primary's CPU time (its postmaster and every process under it, walsender
included: what the primary's host spends), its statements' execution time (pg_stat_statements), and the
calls' latency. What stays on the primary with a standby: each read's position query, and the writes some
reads cause (an auditor's access record, a player's session). Headline: the primary's CPU per 1,000 reads
with the standby against without.

Run: ``.venv/bin/python benchmarks/bench_standby_reads.py [--tables 12] [--hands 40] [--reads 400]
[--rounds 2] [--concurrency 4]``.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import random
import shutil
import statistics
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

import grpc
import headline  # benchmarks/headline.py: the script's own folder is on sys.path
import psutil

from stud_service.audit.simulate import simulate_table, store_table
from stud_service.auth import Role, mint_token
from stud_service.engine import Variant
from stud_service.sealing.keyring import Keyring, new_key
from stud_service.server.host import ServiceHost, ServiceOptions
from stud_service.server.proto_gen import audit_service_pb2, audit_service_pb2_grpc

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))
from standby_pair import StandbyPair, missing  # noqa: E402  (the tests' pair of servers)

SECRET = "bench-standby-reads-token-secret-32-bytes!"
KEYRING = Keyring("bench", {"bench": new_key()}, "the benchmark's keyring")


@dataclass
class Round:
    standby: bool
    reads: int
    primary_cpu: float  # seconds
    primary_statement_ms: float
    primary_statements: int
    latencies: list[float]

    def per_thousand(self, value: float) -> float:
        return value * 1000 / self.reads


def primary_cpu(pair: StandbyPair) -> float:
    """CPU seconds of the primary's postmaster and every process under it (ended ones not counted)."""
    pid = int((pair.primary.data / "postmaster.pid").read_text().split()[0])
    postmaster = psutil.Process(pid)
    total = 0.0
    for process in [postmaster, *postmaster.children(recursive=True)]:
        with contextlib.suppress(psutil.Error):
            times = process.cpu_times()
            total += times.user + times.system
    return total


def primary_statements(pair: StandbyPair) -> tuple[float, int]:
    rows = pair.sql(pair.primary, "SELECT coalesce(sum(total_exec_time), 0)::float8,"
                                  " coalesce(sum(calls), 0)::bigint FROM pg_stat_statements")
    return rows[0][0], rows[0][1]


def options(pair: StandbyPair, standby: bool) -> ServiceOptions:
    return ServiceOptions(
        token_secret=SECRET, database_url=pair.url(pair.primary), listen="127.0.0.1:0", metrics_listen="off",
        keyring=KEYRING, grace_seconds=0.0, pool_size=8,
        read_database_url=pair.url(pair.standby) if standby else None,
    )


def token(player: str, role: Role = Role.PLAYER) -> list[tuple[str, str]]:
    return [("authorization", f"Bearer {mint_token(SECRET, player, role)}")]


async def read_round(pair: StandbyPair, hands: list[tuple[str, int, str]], args: argparse.Namespace,
                     standby: bool, rng: random.Random) -> Round:
    auditor = token("auditor", Role.AUDITOR)
    async with ServiceHost(options(pair, standby)) as host, \
            grpc.aio.insecure_channel(f"127.0.0.1:{host.port}") as channel:
        audit = audit_service_pb2_grpc.AuditServiceStub(channel)
        calls = []
        for _ in range(args.reads):
            table_id, hand, player = rng.choice(hands)
            name, own = f"tables/{table_id}/hands/{hand}", token(player)
            calls.append(rng.choice((
                lambda t=table_id, m=own: audit.ListHands(
                    audit_service_pb2.ListHandsRequest(parent=f"tables/{t}", page_size=50), metadata=m),
                lambda n=name, m=own: audit.ReplayHand(
                    audit_service_pb2.ReplayHandRequest(name=n), metadata=m),
                lambda n=name, m=own: audit.ExportHandHistory(
                    audit_service_pb2.ExportHandHistoryRequest(name=n), metadata=m),
                lambda n=name: audit.VerifyHand(
                    audit_service_pb2.VerifyHandRequest(name=n), metadata=auditor),
            )))
        await calls[0]()  # connections open before the measurement
        latencies: list[float] = []
        pending = iter(calls)

        async def worker() -> None:
            for call in pending:
                started = time.perf_counter()
                await call()
                latencies.append(time.perf_counter() - started)

        cpu, (statement_ms, statements) = primary_cpu(pair), primary_statements(pair)
        await asyncio.gather(*(worker() for _ in range(args.concurrency)))
        cpu_after, (statement_ms_after, statements_after) = primary_cpu(pair), primary_statements(pair)
    return Round(standby, args.reads, cpu_after - cpu, statement_ms_after - statement_ms,
                 statements_after - statements, latencies)


async def store_tables(pair: StandbyPair, args: argparse.Namespace) -> list[tuple[str, int, str]]:
    """The tables' hands, stored through the service's store: (table id, hand, a player of it) of each."""
    hands = []
    async with ServiceHost(options(pair, standby=False)) as host:
        assert host.runtime is not None
        for index in range(args.tables):
            table = simulate_table(f"standby-{index}", list(Variant)[index % len(Variant)], args.hands,
                                   seed=900 + index)
            await store_table(host.runtime.store, table)
            hands += [(table.table_id, record.hand, record.seats[0][1]) for record in table.hand_records()]
    return hands


def summary(rounds: list[Round], standby: bool) -> tuple[float, float, float, float]:
    """Per 1,000 reads: primary CPU s, statement ms, statements; and the calls' median latency in ms."""
    mine = [r for r in rounds if r.standby is standby]
    reads = sum(r.reads for r in mine)
    return (sum(r.primary_cpu for r in mine) * 1000 / reads,
            sum(r.primary_statement_ms for r in mine) * 1000 / reads,
            sum(r.primary_statements for r in mine) * 1000 / reads,
            statistics.median(latency for r in mine for latency in r.latencies) * 1000)


async def run(args: argparse.Namespace) -> None:
    workdir = Path(tempfile.mkdtemp(prefix="stud-bench-standby-"))
    pair = await asyncio.to_thread(StandbyPair.start, workdir)
    try:
        hands = await store_tables(pair, args)
        rng = random.Random(7)
        rounds = []
        for index in range(2 * args.rounds):
            done = await read_round(pair, hands, args, standby=index % 2 == 1, rng=rng)
            rounds.append(done)
            print(f"{'standby' if done.standby else 'primary'}: {done.reads} reads, primary CPU"
                  f" {done.primary_cpu:.2f} s, statements {done.primary_statements} taking"
                  f" {done.primary_statement_ms:.0f} ms; median call"
                  f" {statistics.median(done.latencies) * 1000:.1f} ms")
    finally:
        await asyncio.to_thread(pair.destroy)
        shutil.rmtree(workdir, ignore_errors=True)
    alone, beside = summary(rounds, standby=False), summary(rounds, standby=True)
    for label, figures in (("primary only", alone), ("with the standby", beside)):
        print(f"{label}: per 1,000 reads the primary spent {figures[0]:.2f} s CPU, {figures[1]:,.0f} ms in"
              f" {figures[2]:,.0f} statements; median call {figures[3]:.1f} ms")
    headline.record(
        __file__,
        what=f"history, replay and audit reads (players' ListHands, ReplayHand, ExportHandHistory; an"
             f" auditor's VerifyHand) of"
             f" {args.tables} stored tables × {args.hands} hands, {args.concurrency} in flight, {args.rounds}"
             f" rounds of {args.reads} each way: the primary's CPU per 1,000 reads",
        figure=f"{beside[0]:.2f} s with a standby (median call {beside[3]:.1f} ms)",
        peer=f"every read on the primary: {alone[0]:.2f} s (median call {alone[3]:.1f} ms); its statements'"
             f" time {alone[1]:,.0f} ms → {beside[1]:,.0f} ms",
        ratio=f"{beside[0] / alone[0]:.2f}× the primary's CPU",
    )


def main() -> None:
    if why := missing():
        raise SystemExit(why)
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tables", type=int, default=12)
    parser.add_argument("--hands", type=int, default=40)
    parser.add_argument("--reads", type=int, default=400)
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--concurrency", type=int, default=4)
    asyncio.run(run(parser.parse_args()))


if __name__ == "__main__":
    main()
