"""The web port against the gRPC port: the same bots over Connect and gRPC-Web and over native gRPC, on one
server, in the same run.

1. Throughput and latency: one ``stud-service serve`` process (its gRPC port and its web port,
   ``--web-listen``) on a PostgreSQL. N tables, three bots each (``stud_service.bots``, unchanged: they
   watch with views and ``batch_events`` and ``Act`` on the turn seen, as in bench_service.py), driven from
   two load-generator processes, play H hands at every table over each transport in turn: native gRPC
   (HTTP/2); Connect JSON, Connect binary and gRPC-Web binary over HTTP/1.1 (``StudClient.over_web``); and
   Connect binary over HTTP/2 (h2c), to show what multiplexing changes. Rounds are interleaved, each in a
   rotated order, so the host's drift hits every transport alike. Every round plays fresh tables and leaves
   them mid-hand: their action clocks later time out the waiting seats, a few commands per table, falling on
   later rounds alike. Reported per transport: actions/s (all rounds' actions over all rounds' time), the
   client-observed ``Act`` round trip (p50, p99), the server's and the bots' CPU per action, and the ratio
   to gRPC (of the sums; median of the rounds' ratios).
2. Watch latency: one table, two bots acting over gRPC; one more client watches the table over each
   transport in turn (interleaved rounds). For each action: the time from the bot sending its ``Act`` to the
   watcher reading the message with the action's events (p50, p99).

Run: ``.venv/bin/python benchmarks/bench_web.py [--tables 8] [--hands 20] [--rounds 3]``
(``DATABASE_URL`` as for bench_service.py.) No figure is asserted: the figures are printed side by side.
"""

from __future__ import annotations

import argparse
import asyncio
import functools
import os
import statistics
import sys
import time
import uuid
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

import bench_service as bench  # noqa: E402  (puts the project on sys.path)
import grpc  # noqa: E402
import headline  # noqa: E402  (benchmarks/headline.py)

from stud_service.auth import Role, mint_token  # noqa: E402
from stud_service.bots import Bot, StudClient, random_strategy  # noqa: E402
from stud_service.bots.client import events_of  # noqa: E402
from stud_service.server.proto_gen import table_pb2  # noqa: E402

# One HTTP/1.1 connection pool per channel keeps this many idle connections: each player in a browser keeps
# its own (its watch stream's and one for its calls); a load process stands for many players.
IDLE_CONNECTIONS = 256
WATCH_BUY_IN = 1_000_000  # the table's maximum: the watched table's two bots play every round, nobody busts


def http_client(version: str) -> Any:
    """A pyqwest client that speaks one HTTP version only: ``HTTPTransport(http_version=HTTPVersion.HTTP1)``
    (its default on plaintext too, but only one option away from h2c), or ``HTTP2``, which on plaintext
    is h2c with prior knowledge. :func:`check_versions` asks a response which version it came in."""
    from pyqwest import Client, HTTPTransport, HTTPVersion

    chosen = HTTPVersion.HTTP2 if version == "2" else HTTPVersion.HTTP1
    return Client(HTTPTransport(http_version=chosen, pool_max_idle_per_host=IDLE_CONNECTIONS))


async def check_versions(base_url: str) -> None:
    from pyqwest import HTTPVersion

    for version, expected in (("1.1", HTTPVersion.HTTP1), ("2", HTTPVersion.HTTP2)):
        async with http_client(version).stream("GET", f"{base_url}/v1/tables") as response:
            if response.http_version != expected:
                raise RuntimeError(f"asked for HTTP/{version}, the web port answered {response.http_version}")


def web_channel(protocol: str, codec: str, version: str, address: str) -> Any:
    """Bench transport opener: the web port at ``address``, ``protocol`` and ``codec``, HTTP/``version``."""
    from stud_service.bots.connect_stub import WebChannel

    return WebChannel(address, protocol, codec, http_client=http_client(version))  # type: ignore[arg-type]


# name, protocol, codec, HTTP version. HTTP/2 once, to show what multiplexing the streams on few connections
# (as gRPC does, and browsers do over TLS) changes.
WEB = (("Connect JSON", "connect", "json", "1.1"), ("Connect binary", "connect", "proto", "1.1"),
       ("gRPC-Web binary", "grpc-web", "proto", "1.1"), ("Connect bin h2c", "connect", "proto", "2"))


def transports(grpc_port: int, web_port: int) -> list[bench.Transport]:
    base_url = f"http://127.0.0.1:{web_port}"
    return [bench.Transport.grpc(grpc_port)] + [
        bench.Transport(name, base_url, functools.partial(web_channel, protocol, codec, version))
        for name, protocol, codec, version in WEB
    ]


def rotated(items: list[Any], by: int) -> list[Any]:
    by %= len(items)
    return items[by:] + items[:by]


def merged(results: list[bench.LoadResult]) -> bench.LoadResult:
    """Several rounds as one: their actions over their time, their latencies pooled, their CPU summed."""
    return bench.LoadResult(
        seconds=sum(r.seconds for r in results),
        actions=sum(r.actions for r in results),
        latencies=[latency for r in results for latency in r.latencies],
        server_cpu=sum(r.server_cpu for r in results),
        load_cpu=sum(r.load_cpu for r in results),
        messages=sum(r.messages for r in results),
    )


# -- watch latency ---------------------------------------------------------------------------------


class TimedClient(StudClient):
    """A bot's client noting when each of its ``Act`` calls left, by the table version the action made."""

    def __init__(self, channel: grpc.aio.Channel, token: str, sent: dict[int, float]) -> None:
        super().__init__(channel, token)
        self.sent = sent

    async def act(self, *args: Any, **kwargs: Any) -> table_pb2.TableView:
        started = time.perf_counter()
        view = await super().act(*args, **kwargs)
        self.sent[view.version] = started
        return view


async def watch_latencies(grpc_port: int, watched_over: list[bench.Transport], rounds: int,
                          hands: int) -> dict[str, list[float]]:
    """Act sent (over gRPC) -> the watcher over each transport reads its events, for every action."""
    address = f"127.0.0.1:{grpc_port}"
    table_id = f"watch-{uuid.uuid4().hex[:6]}"
    sent: dict[int, float] = {}
    latencies: dict[str, list[float]] = {transport.name: [] for transport in watched_over}
    async with grpc.aio.insecure_channel(address) as channel:
        operator = StudClient(channel, mint_token(bench.SECRET, "house", Role.OPERATOR))
        players = [f"watch-bot-{seat}" for seat in (1, 2)]
        await bench.fund(operator, players, WATCH_BUY_IN)
        await operator.create_table(table_id, bench.table_spec())
        clients = [TimedClient(channel, mint_token(bench.SECRET, player), sent) for player in players]
        for seat, client in enumerate(clients, start=1):
            await client.sit_down(table_id, seat, WATCH_BUY_IN)
        for round_number in range(rounds):
            for transport in rotated(watched_over, round_number):
                watcher_channel = transport.opener(transport.address)
                watcher = StudClient(watcher_channel, mint_token(bench.SECRET, "watcher"))
                arrived: dict[int, float] = {}
                stream = watcher.watch(table_id, include_views=True, batch_events=True)
                await stream.read()  # the first message: the view now; the watch is live from here
                reading = asyncio.ensure_future(_note_arrivals(stream, arrived))
                sent.clear()
                bots = [Bot(client, table_id, seat, strategy=random_strategy, seed=round_number * 10 + seat)
                        for seat, client in enumerate(clients, start=1)]
                await asyncio.gather(*(bot.run(hands) for bot in bots))
                await asyncio.sleep(0.2)  # the last action's events on their way to the watcher
                reading.cancel()
                stream.cancel()
                await asyncio.gather(reading, return_exceptions=True)
                await watcher_channel.close()
                latencies[transport.name] += [arrived[version] - started
                                              for version, started in sent.items() if version in arrived]
    return latencies


async def _note_arrivals(stream: Any, arrived: dict[int, float]) -> None:
    # read(), not async for: a grpc.aio stream call refuses the two mixed, and its first message was read.
    while (message := await stream.read()) is not grpc.aio.EOF:
        now = time.perf_counter()
        for event in events_of(message):
            arrived.setdefault(event.version, now)


# -- the run ---------------------------------------------------------------------------------------


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tables", type=int, default=8)
    parser.add_argument("--hands", type=int, default=20, help="hands per table per transport and round")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--watch-hands", type=int, default=10, help="hands per watcher and round (0: skip)")
    args = parser.parse_args()

    database = bench.Database()
    url = database.start()
    web_port = bench.free_port()
    # The load process stands for many players, all from one address: no per-address connection limit.
    server = bench.Server.service(url, web_port, ("--web-max-connections-per-address", "0"))
    runs: dict[str, list[bench.LoadResult]] = {}
    watch: dict[str, list[float]] = {}
    try:
        asyncio.run(server.wait_ready())
        asyncio.run(check_versions(f"http://127.0.0.1:{web_port}"))
        over = transports(server.port, web_port)
        for round_number in range(args.rounds):
            for transport in rotated(over, round_number):
                result = bench.play(server.port, args.tables, 0, server.process.pid, transport=transport,
                                    hands=args.hands)
                runs.setdefault(transport.name, []).append(result)
        if args.watch_hands:
            watch = asyncio.run(watch_latencies(server.port, over, args.rounds, args.watch_hands))
    finally:
        server.stop()
        database.stop()

    print(
        f"stud-service: the same bots over the web port (HTTP/1.1; h2c once) and over gRPC, one server, same"
        f" run ({args.tables} tables, {bench.BOTS_PER_TABLE} bots each, {args.hands} hands per table per"
        f" transport and round, {args.rounds} interleaved rounds, {bench.LOAD_PROCESSES} load processes,"
        f" {os.cpu_count()} CPUs)"
    )
    print(
        f"{'transport':<16} {'actions/s':>10} {'p50 ms':>8} {'p99 ms':>8} {'server CPU':>12} {'bots CPU':>10}"
        f" {'watch msgs':>10} {'÷ gRPC':>7} {'median':>7}   rounds' actions/s"
    )
    print(f"{'':<16} {'':>10} {'':>8} {'':>8} {'ms/action':>12} {'ms/action':>10} {'/action':>10}"
          f" {'':>7} {'round':>7}")
    baseline = runs[over[0].name]
    for name, results in runs.items():
        total = merged(results)
        ratio = total.rate / merged(baseline).rate
        per_round = statistics.median(r.rate / b.rate for r, b in zip(results, baseline, strict=True))
        print(
            f"{name:<16} {total.columns()} {ratio:>7.2f} {per_round:>7.2f}   "
            f"{', '.join(f'{r.rate:.0f}' for r in results)}   ({len(total.latencies)} actions timed)"
        )
    if watch:
        print(f"watch latency, one table, {args.watch_hands} hands per watcher and round, actions sent over"
              f" gRPC: from Act sent to the watcher reading its events")
        for name, values in watch.items():
            p50, p99 = (bench.percentile(values, fraction) * 1000 for fraction in (0.5, 0.99))
            print(f"{name:<16} p50 {p50:>6.2f} ms  p99 {p99:>6.2f} ms   ({len(values)} actions)")
    web, grpc_run = merged(runs["Connect binary"]), merged(baseline)
    headline.record(
        __file__,
        what=f"the same bots over the web port, Connect binary over HTTP/1.1, {args.tables} tables,"
             f" {args.rounds} rounds interleaved with gRPC",
        figure=f"{web.rate:,.0f} actions/s; {web.server_cpu / max(web.actions, 1) * 1000:.1f} ms server CPU"
               " per action",
        peer=f"native gRPC, same server and run: {grpc_run.rate:,.0f} actions/s;"
             f" {grpc_run.server_cpu / max(grpc_run.actions, 1) * 1000:.1f} ms",
        ratio=f"{web.rate / grpc_run.rate:.2f}× the actions/s",
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
