"""The gRPC service under load, against this machine's durable-commit limit measured in the same run.

1. Throughput and latency: ``stud-service serve`` runs as its own process on a PostgreSQL; N tables
   (8, then 64), three bots each, play through the public gRPC API only (bots from
   ``stud_service.bots``; watch stream with views, ``Act`` with the turn seen) for a fixed time.
   The bots run in two load-generator processes of their own, so the server process does only the
   server's work; its CPU time per action is reported, and the bots' beside it, and the watch-stream
   messages the bots receive per action (they watch with ``batch_events``: one message per command).
   Reported: accepted actions per second over all tables and the client-observed ``Act`` round trip
   (p50, p99). Every action is one durable append (synchronous commit) plus its NOTIFY.
2. The peer: ``pgbench`` on the same PostgreSQL at the same concurrency (N clients), each
   transaction one single-row INSERT committed durably: the rate at which this machine can commit
   one row at a time. Ratio = our actions/s ÷ pgbench inserts/s.
3. The floor: the same bots, load processes and tables against ``grpc_floor.py``, a ``grpc.aio`` server
   with the service's message pattern per action (one ``Act`` call in; one watch message per command
   to each of the table's watchers, as with ``batch_events``) and no database, engine or auth behind
   it: what Python gRPC alone allows on this machine. Ratio = our actions/s ÷ the floor's.
4. Memory: the server's resident set before and after 1,000 tables are opened (created, one player
   seated, loaded and followed by the server), per table; then the server's CPU while they sit idle.
5. Rake: the first table count again, tables with rake (5%, capped) against tables without, alternating
   ``--rake-rounds`` times in the same run; ratio = raked actions/s ÷ unraked (goal >= 0.95).
6. Sealing at rest: the first table count again, the service as deployed (decks, seeds and face-down cards
   sealed with AES-256-GCM, deck proofs) against the same service storing them in the clear
   (``serve_unsealed.py``), alternating ``--sealing-rounds`` times; ratio = sealed ÷ unsealed (goal >= 0.9).
6b. Player sessions and limits: the first table count again, the service as deployed (every player call
   placed in its session: the device id checked, the peer's address found, the session touched; a session's
   start and end in the log) with bots that set a careful player's limits (loss limits per day, week and
   month, a session limit, reality checks: :func:`protect`) against the same service with
   ``--player-sessions off`` and bots without limits (fresh bots each run), ``--sessions-rounds`` pairs in
   the order off-on, on-off, ...; ratio = on ÷ off (goal >= 0.95). The bots send a device id each, as
   clients do.
7. History while playing (a soak): the first table count again, with an auditor in a process of its own
   opening older hands of the tables being played through the public API while the bots are measured (an
   auditor token, two calls in flight; at each visit to a table ``ListHands`` finds its finished hands,
   played since the run began, and two of them drawn at random are read every way: ``ReplayHand`` in
   full, ``VerifyShuffle``, ``ExportHandHistory`` as PHH and as PokerStars text), against the same play
   without it, alternating ``--history-rounds`` times. Reported: actions/s with and without the reader and
   their ratio, history reads per second, and whether every table kept playing. After the window the bots
   play on until each has seen one more hand end; tables that dealt no new hand in the window, bots that
   saw none end after it (within ``SETTLE_LIMIT``), bots whose watch stream fell silent for
   ``STALL_SECONDS`` or whose play ended in an error, and failed reads must all be 0, in both kinds of
   round: otherwise the benchmark prints FAIL and exits with status 1. (Reading old hands once evicted the
   running hand's data key, and every table read froze for good.)

Every table plays for money (USD): the bots' buy-ins are debited from their accounts, funded through the
cashier before play, and every cash-out credited back, as in production.

8. ``--database-url URL``: only this comparison. The service plays ``--tables`` on an existing, migrated
   database (a Citus coordinator with the layout in place: ``stud-service migrate --citus``), and on one
   plain PostgreSQL made here, ``--rounds`` pairs alternating, in the same run; reported beside each other:
   actions/s, ``Act`` p50 and p99, and CPU per action of the service, of the database servers (on Citus the
   coordinator and every worker, found through ``pg_dist_node``; they must run on this machine) and of both.
   On a coordinator the service runs twice more each round, the second time with ``--citus-appends
   coordinator`` (single-stream appends handed on by the coordinator instead of sent straight to their
   workers), in the same rotation. A worker's URL makes the service enter the cluster there instead
   (bench_citus_floor.py ``--routing-rounds``).
   Give the same keyring every run on one database (``STUD_KEYS_FILE``): its hands are sealed with it.

Run: ``.venv/bin/python benchmarks/bench_service.py [--seconds 10] [--tables 8 64] [--memory-tables 1000]
[--rake-rounds 2] [--sealing-rounds 2] [--sessions-rounds 2] [--history-rounds 2] [--database-url URL
--rounds 2]`` (0 rounds or 0 memory tables skips that part).
With ``DATABASE_URL`` set that PostgreSQL is used (the role must be able to create a database);
otherwise an embedded PostgreSQL (``pgserver``) is started in a temporary directory.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import functools
import json
import multiprocessing
import os
import queue
import random
import re
import secrets
import shutil
import socket
import statistics
import subprocess
import sys
import tempfile
import time
import uuid
import warnings
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
os.environ.setdefault("GRPC_ENABLE_FORK_SUPPORT", "false")
warnings.filterwarnings("ignore", message=".*XDG_RUNTIME_DIR")

import grpc  # noqa: E402
import headline  # noqa: E402  (benchmarks/headline.py: the script's own folder is on sys.path)
import psycopg  # noqa: E402
from psycopg.conninfo import conninfo_to_dict, make_conninfo  # noqa: E402

from stud_service.auth import Role, mint_token  # noqa: E402
from stud_service.bots import Bot, StudClient, random_strategy  # noqa: E402
from stud_service.bots.client import OWN_CONNECTION, wait_until_serving  # noqa: E402
from stud_service.server.proto_gen import audit_service_pb2, table_pb2  # noqa: E402
from stud_service.store import apply_migrations  # noqa: E402

# Set in the environment so the load-generator processes (spawned) mint tokens with the same secret.
SECRET = os.environ.setdefault("STUD_BENCH_TOKEN_SECRET", secrets.token_hex(32))
BOTS_PER_TABLE = 3
BUY_IN = 40_000
IDLE_SECONDS = 10.0
WARM_UP_SECONDS = 1.0  # play before a measured window: streams open, first hands dealt
# A bot whose watch stream brings nothing for this long sits at a table that stopped moving: with no pause
# between hands, a table that plays sends its players a message per command, many a second.
STALL_SECONDS = 10.0
SILENCE_SAMPLE_SECONDS = 0.1
# After a history window the bots play on until each has seen one more hand end; a table that does not end one
# in this long (twice the action clock: a seat timing out still lets a hand end) has stopped for good.
SETTLE_LIMIT = 60.0


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def rss_kib(pid: int) -> int:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1])
    raise RuntimeError("no VmRSS")


def cpu_seconds(pid: int) -> float:
    """User + system CPU time a process has used."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def tree_cpu_seconds(pid: int) -> float:
    """CPU time of a process, of its children that ended (waited for: a postmaster's backends), and of
    those still running."""
    import psutil

    def used(process: psutil.Process) -> float:
        times = process.cpu_times()
        return times.user + times.system + times.children_user + times.children_system

    try:
        root = psutil.Process(pid)
        total = used(root)
        for child in root.children(recursive=True):
            with contextlib.suppress(psutil.Error):
                total += child.cpu_times().user + child.cpu_times().system
        return total
    except psutil.Error:
        return 0.0


def database_cpu(postmasters: tuple[int, ...]) -> tuple[float, ...]:
    return tuple(tree_cpu_seconds(pid) for pid in postmasters)


def postmaster_pid(url: str) -> int:
    """The postmaster process id of the PostgreSQL at ``url`` (on this machine), from its data directory."""
    with psycopg.connect(url, autocommit=True) as conn:
        row = conn.execute("SELECT current_setting('data_directory')").fetchone()
    assert row is not None
    return int((Path(row[0]) / "postmaster.pid").read_text().split()[0])


def postmasters(url: str) -> tuple[int, ...]:
    """The postmaster process ids of the PostgreSQL at ``url`` and, on a Citus node, of the cluster's other
    nodes (read from ``pg_dist_node``: from the coordinator its workers; from a worker, whose metadata Citus
    keeps in step, the coordinator and the other workers), all on this machine: whose CPU a run adds up. The
    node at ``url`` comes first."""
    urls = [url]
    with psycopg.connect(url, autocommit=True) as conn:
        if conn.execute("SELECT 1 FROM pg_extension WHERE extname = 'citus'").fetchone():
            others = ("SELECT nodename, nodeport FROM pg_dist_node WHERE noderole = 'primary'"
                      " AND groupid <> (SELECT groupid FROM pg_dist_local_group) ORDER BY groupid")
            urls += [make_conninfo(url, host=host, port=port) for host, port in conn.execute(others)]
    return tuple(postmaster_pid(node) for node in urls)


def is_citus_coordinator(url: str) -> bool:
    """Whether ``url`` is a Citus cluster's coordinator (false on a worker and on a plain PostgreSQL)."""
    with psycopg.connect(url, autocommit=True) as conn:
        if conn.execute("SELECT 1 FROM pg_extension WHERE extname = 'citus'").fetchone() is None:
            return False
        row = conn.execute("SELECT groupid = 0 FROM pg_dist_local_group").fetchone()
    return bool(row and row[0])


def percentile(values: list[float], fraction: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(fraction * len(ordered)))]


# -- PostgreSQL ------------------------------------------------------------------------------------


class Database:
    """A fresh database on the given server (or on an embedded one started here)."""

    def __init__(self) -> None:
        self._workdir: str | None = None
        self._embedded = None
        self._server_url = ""
        self.url = ""

    def start(self) -> str:
        server_url = os.environ.get("DATABASE_URL")
        if not server_url:
            from stud_service.db import EmbeddedPostgres

            self._workdir = tempfile.mkdtemp(prefix="stud-bench-")
            self._embedded = EmbeddedPostgres(Path(self._workdir) / "pg", delete_on_stop=True)
            server_url = self._embedded.start()
        self._server_url = server_url
        self.url = self.another()
        return self.url

    def another(self) -> str:
        """One more fresh database on the same server (after ``start``): for a service whose log must
        not be read by the other (the unsealed baseline cannot read sealed hands)."""
        name = f"stud_bench_{uuid.uuid4().hex[:8]}"
        with psycopg.connect(self._server_url, autocommit=True) as conn:
            conn.execute(f'CREATE DATABASE "{name}"')
        url = make_conninfo(self._server_url, dbname=name)
        asyncio.run(apply_migrations(url))
        return url

    def stop(self) -> None:
        if self._embedded is not None:
            self._embedded.stop()
        if self._workdir is not None:
            shutil.rmtree(self._workdir, ignore_errors=True)


def pgbench_binary() -> str:
    import pgserver

    bundled = Path(pgserver.__file__).parent / "pginstall" / "bin" / "pgbench"
    return str(bundled) if bundled.exists() else (shutil.which("pgbench") or "pgbench")


def pgbench_insert_rate(url: str, clients: int, seconds: int) -> float:
    """Durable single-row INSERT transactions per second at ``clients`` concurrent connections."""
    with psycopg.connect(url, autocommit=True) as conn:
        conn.execute("DROP TABLE IF EXISTS bench_rows")
        conn.execute(
            "CREATE TABLE bench_rows (id bigserial PRIMARY KEY, stream_id text NOT NULL,"
            " payload jsonb NOT NULL, recorded_at timestamptz NOT NULL DEFAULT now())"
        )
    script = Path(tempfile.mkstemp(suffix=".sql")[1])
    script.write_text(
        "\\set n random(1, 1000)\n"
        "INSERT INTO bench_rows (stream_id, payload) VALUES ('tables/t' || :n,"
        ' \'{"type": "PlayerActed", "seat": 3, "amount": 400}\');\n'
    )
    params = conninfo_to_dict(url)
    env = {
        **os.environ,
        "PGHOST": str(params.get("host", "")),
        "PGPORT": str(params.get("port", "5432")),
        "PGUSER": str(params.get("user", "")),
        "PGPASSWORD": str(params.get("password", "") or ""),
    }
    try:
        result = subprocess.run(
            [
                pgbench_binary(),
                "-n",
                "-f",
                str(script),
                "-c",
                str(clients),
                "-j",
                str(min(clients, 2)),
                "-T",
                str(seconds),
                str(params["dbname"]),
            ],
            capture_output=True,
            text=True,
            env=env,
            check=True,
        )
    finally:
        script.unlink()
    match = re.search(r"tps = ([\d.]+)", result.stdout)
    if match is None:
        raise RuntimeError(f"pgbench said: {result.stdout}{result.stderr}")
    return float(match.group(1))


# -- the service -----------------------------------------------------------------------------------


@functools.cache
def keys_environment() -> dict[str, str]:
    """The keyring the served hands are sealed with: the caller's, else a throwaway one made once per run
    (docs/keys.md): every server of the run reads the same database, whose registry knows that key."""
    if os.environ.get("STUD_KEYS_FILE") or os.environ.get("STUD_KEYS"):
        return {}
    from stud_service.sealing.keyring import Keyring, new_key

    return {"STUD_KEYS": json.dumps(Keyring("bench", {"bench": new_key()}).to_json())}


SERVE_OPTIONS = [
    "--metrics-listen", "off", "--web-listen", "off", "--hand-pause-seconds", "0", "--log-level", "WARNING",
]


class Server:
    """A gRPC server in a process of its own on a free loopback port (``service`` or ``floor``)."""

    def __init__(self, arguments: list[str], cashier: bool = True, port: int = 0) -> None:
        self.cashier = cashier  # the floor has no cashier: its tables take no money
        self.port = port or free_port()
        self.process = subprocess.Popen(
            [sys.executable, *arguments, "--listen", f"127.0.0.1:{self.port}"],
            env={**os.environ, "STUD_TOKEN_SECRET": SECRET, "STUD_TOKEN_HS256": "on",
                 "GRPC_ENABLE_FORK_SUPPORT": "false", **keys_environment()},
            stdout=subprocess.DEVNULL,
        )

    @classmethod
    def service(cls, url: str, web_port: int = 0, options: tuple[str, ...] = (), port: int = 0) -> Server:
        """``stud-service serve`` on the database at ``url`` (with its web port on ``web_port`` if given),
        ``options`` after the benchmark's own (a later flag wins), on ``port`` if given (a restart)."""
        web = ["--web-listen", f"127.0.0.1:{web_port}"] if web_port else []
        arguments = ["-m", "stud_service.cli", "serve", "--database-url", url, *SERVE_OPTIONS, *web, *options]
        return cls(arguments, port=port)

    @classmethod
    def unsealed(cls, url: str) -> Server:
        """The same service storing decks, seeds and face-down cards in the clear
        (benchmarks/serve_unsealed.py): the sealing rounds' baseline."""
        script = str(Path(__file__).resolve().with_name("serve_unsealed.py"))
        return cls([script, "--database-url", url, *SERVE_OPTIONS])

    @classmethod
    def floor(cls) -> Server:
        """The bare-gRPC floor (benchmarks/grpc_floor.py): the same message pattern, no work behind it."""
        return cls([str(Path(__file__).resolve().with_name("grpc_floor.py"))], cashier=False)

    async def wait_ready(self) -> None:
        await wait_until_serving(
            f"127.0.0.1:{self.port}", timeout=30, still_running=lambda: self.process.poll() is None
        )

    def stop(self) -> None:
        self.process.terminate()
        self.process.wait(timeout=30)


RAKE = table_pb2.RakeRule(
    basis_points=500, cap_2_players=100, cap_3_to_4_players=200, cap_5_or_more_players=300
)


def table_spec(raked: bool = False) -> table_pb2.Table:
    from google.protobuf import duration_pb2

    return table_pb2.Table(
        variant=table_pb2.VARIANT_SEVEN_CARD_STUD,
        stakes=table_pb2.Stakes(small_bet=200, big_bet=400, ante=50, bring_in=100),
        min_buy_in=2_000,
        max_buy_in=1_000_000,
        action_clock=duration_pb2.Duration(seconds=30),
        currency_code="USD",
        rake=RAKE if raked else None,
    )


async def fund(operator: StudClient, players: list[str], amount: int) -> None:
    """Deposit ``amount`` into each player's USD account (a payment reference of its own each time)."""
    for player in players:
        await operator.deposit(player, amount)


async def protect(channel: grpc.aio.Channel, players: list[str], bankroll: int) -> None:
    """Each player's own limits, as a careful player sets them, none of them reached in a run: a loss limit
    per day, week and month of ten bankrolls, a session limit of a day and a reality check every 5 minutes.
    Every buy-in, top-up and deal then checks them (the loss limit reads the player's account each deal)."""
    from stud_service.server.proto_gen import player_protection_service_pb2 as pb

    for player in players:
        client = StudClient(channel, mint_token(SECRET, player))
        name = f"players/{player}"
        for period in (pb.LIMIT_PERIOD_DAY, pb.LIMIT_PERIOD_WEEK, pb.LIMIT_PERIOD_MONTH):
            await client.protection.SetLimit(pb.SetLimitRequest(
                name=name, kind=pb.LIMIT_KIND_LOSS, currency_code="USD", period=period, amount=10 * bankroll),
                metadata=client.metadata)
        await client.protection.SetLimit(pb.SetLimitRequest(name=name, kind=pb.LIMIT_KIND_SESSION_TIME,
                                                            amount=86_400), metadata=client.metadata)
        await client.protection.SetRealityCheck(pb.SetRealityCheckRequest(name=name, interval_seconds=300),
                                                metadata=client.metadata)


LOAD_PROCESSES = 2  # bot load generators, each its own process (and event loop), tables split between them


def grpc_channel(address: str) -> grpc.aio.Channel:
    """A channel on an HTTP/2 connection of its own."""
    return grpc.aio.insecure_channel(address, options=OWN_CONNECTION)


@dataclass(frozen=True)
class Transport:
    """How the bots reach the server: ``opener(address)`` gives the channel their StudClients take. Picklable
    (the load generators are spawned), so ``opener`` is a module-level function or a partial of one."""

    name: str
    address: str
    opener: Callable[[str], Any] = grpc_channel

    @classmethod
    def grpc(cls, port: int) -> Transport:
        return cls("gRPC", f"127.0.0.1:{port}")


@dataclass(frozen=True)
class Budget:
    """How long the bots play: ``hands`` hands at every table if given (the window ends when the last
    table has played them), else ``seconds`` after a warm-up of WARM_UP_SECONDS; with ``settle``, they then
    play on, unmeasured, until every one of them has seen a hand end after the window (``settle``)."""

    seconds: float
    hands: int = 0
    settle: bool = False


@dataclass
class Outcome:
    """One load generator's measurements over the window."""

    actions: int
    latencies: list[float]
    cpu: float  # the generator's CPU seconds
    messages: int  # watch-stream messages
    seconds: float
    # With a time budget: each bot's longest wait for a watch message (window and settling), the bots
    # whose table ended no hand after the window (``settle``), and the errors that ended bots' play.
    silences: list[float] = field(default_factory=list)
    unsettled: int = 0
    errors: list[str] = field(default_factory=list)


def _load_generator(
    transport: Transport, table_ids: list[str], seed: int, budget: Budget, bots: str, ready: Any, go: Any,
    results: Any
) -> None:
    """One load-generator process: seats three bots at each of its tables, plays on ``go``."""
    os.environ["GRPC_ENABLE_FORK_SUPPORT"] = "false"
    results.put(asyncio.run(_drive(transport, table_ids, seed, budget, bots, ready, go)))


def bot_names(prefix: str) -> list[str]:
    """The players at every table: ``{prefix}-1``, ``{prefix}-2``, ..."""
    return [f"{prefix}-{seat}" for seat in range(1, BOTS_PER_TABLE + 1)]


async def _drive(
    transport: Transport, table_ids: list[str], seed: int, budget: Budget, bots_named: str, ready: Any,
    go: Any
) -> Outcome:
    channels = [transport.opener(transport.address) for _ in range(2)]
    bots: list[Bot] = []
    names = bot_names(bots_named)
    for index, table_id in enumerate(table_ids):
        for seat in range(1, BOTS_PER_TABLE + 1):
            client = StudClient(channels[(index + seat) % len(channels)], mint_token(SECRET, names[seat - 1]),
                                device_id=f"bench-device-{seat}")
            bot = Bot(client, table_id, seat, strategy=random_strategy, seed=seed + index * 10 + seat)
            await bot.sit(BUY_IN)
            bots.append(bot)
    ready.set()
    await asyncio.get_running_loop().run_in_executor(None, go.wait)
    stop = asyncio.Event()
    started = time.perf_counter()
    tasks = [asyncio.ensure_future(bot.run(budget.hands or 10**9, stop)) for bot in bots]
    if budget.hands:
        cpu_before = time.process_time()
        await asyncio.gather(*tasks)
    else:
        await asyncio.sleep(WARM_UP_SECONDS)
        for bot in bots:
            bot.stats.actions, bot.stats.latencies, bot.stats.messages = 0, [], 0
        cpu_before = time.process_time()
        started = time.perf_counter()
        heard = asyncio.Event()
        listening = asyncio.ensure_future(longest_silences(bots, heard))
        await asyncio.sleep(budget.seconds)
    outcome = Outcome(
        actions=sum(bot.stats.actions for bot in bots),
        latencies=[latency for bot in bots for latency in bot.stats.latencies],
        cpu=time.process_time() - cpu_before,
        messages=sum(bot.stats.messages for bot in bots),
        seconds=time.perf_counter() - started,
    )
    if not budget.hands:
        outcome.unsettled = await settle(bots) if budget.settle else 0
        heard.set()
        outcome.silences = await listening
        # A bot's play ends early only in an error (the rest run until ``stop``).
        outcome.errors = [error_text(error) for task in tasks
                          if task.done() and not task.cancelled() and (error := task.exception()) is not None]
    await stop_playing(stop, tasks, channels)
    return outcome


def error_text(error: BaseException) -> str:
    """An error in one line: a gRPC status by its code and details."""
    if isinstance(error, grpc.aio.AioRpcError):
        return f"{error.code().name} {error.details()}"
    return repr(error)


async def longest_silences(bots: list[Bot], until: asyncio.Event) -> list[float]:
    """Samples the bots' watch streams while they play, ``until`` it is set: each bot's longest stretch
    without a message, up to the end (a table that stopped moving leaves its bots silent from then on)."""
    started = time.perf_counter()
    heard = [bot.stats.messages for bot in bots]
    last_heard = [started] * len(bots)
    longest = [0.0] * len(bots)
    while not until.is_set():
        await asyncio.sleep(SILENCE_SAMPLE_SECONDS)
        now = time.perf_counter()
        for index, bot in enumerate(bots):
            if bot.stats.messages != heard[index]:
                heard[index], last_heard[index] = bot.stats.messages, now
            longest[index] = max(longest[index], now - last_heard[index])
    return longest


async def settle(bots: list[Bot]) -> int:
    """Plays on until every bot has seen a hand end after now (its table still deals), at most SETTLE_LIMIT
    seconds; how many bots never did."""
    seen = [bot.stats.hands_seen for bot in bots]
    deadline = time.perf_counter() + SETTLE_LIMIT
    while True:
        waiting = sum(bot.stats.hands_seen <= before for bot, before in zip(bots, seen, strict=True))
        if not waiting or time.perf_counter() > deadline:
            return waiting
        await asyncio.sleep(SILENCE_SAMPLE_SECONDS)


async def stop_playing(stop: asyncio.Event, tasks: list[asyncio.Future[Any]], channels: list[Any]) -> None:
    """End the bots' tasks (``stop``, then cancel what is still waiting) and close their channels."""
    stop.set()
    for task in tasks:
        task.cancel()
    await asyncio.gather(*tasks, return_exceptions=True)
    for channel in channels:
        await channel.close()


@dataclass
class LoadResult:
    seconds: float  # the measured window
    actions: int
    latencies: list[float]
    server_cpu: float  # seconds of the server process's CPU during the measured window
    load_cpu: float  # seconds of the load generators' CPU during the same window
    messages: int  # watch-stream messages the bots received in the window
    # With a time budget (``Outcome``): each bot's longest wait for a watch message, the bots whose table
    # ended no hand after the window (when they settle), the errors that ended bots' play.
    silences: list[float] = field(default_factory=list)
    unsettled: int = 0
    bot_errors: list[str] = field(default_factory=list)
    history: HistoryOutcome | None = None  # what the history process beside the bots saw, if any
    # Seconds of each database server's CPU in the window (--database-url runs; on Citus the coordinator's
    # first, then the workers').
    database_cpu: tuple[float, ...] = ()

    @property
    def stalled_bots(self) -> int:
        return sum(silence >= STALL_SECONDS for silence in self.silences)

    @property
    def rate(self) -> float:
        return self.actions / self.seconds

    @property
    def cpu_per_action(self) -> float:
        """Seconds of the server's CPU per accepted action."""
        return self.server_cpu / max(self.actions, 1)

    def columns(self) -> str:
        """actions/s, p50 and p99 ms, server and bots CPU ms per action, watch messages per action."""
        actions = max(self.actions, 1)
        p50, p99 = (percentile(self.latencies, fraction) * 1000 for fraction in (0.5, 0.99))
        server_ms, bots_ms = (cpu / actions * 1000 for cpu in (self.server_cpu, self.load_cpu))
        return (
            f"{self.rate:>10.0f} {p50:>8.1f} {p99:>8.1f} {server_ms:>12.2f} {bots_ms:>10.2f}"
            f" {self.messages / actions:>10.1f}"
        )


def play(port: int, tables: int, seconds: float, server_pid: int, raked: bool = False,
         cashier: bool = True, transport: Transport | None = None, hands: int = 0,
         history: HistoryReaders | None = None, protected: bool | None = None,
         database_pids: tuple[int, ...] = ()) -> LoadResult:
    """N tables of bots, driven from LOAD_PROCESSES other processes, playing for ``seconds`` (or ``hands``
    hands at each table), over ``transport`` (the gRPC port by default; tables are set up over gRPC);
    ``history`` (with ``seconds`` only) watches the tables, reading their older hands if it is told to.
    ``protected`` (not None): bots of their own for this run, with (True) or without (False) the limits a
    careful player sets (:func:`protect`)."""
    budget = Budget(seconds, hands, settle=history is not None)
    transport = transport or Transport.grpc(port)
    table_ids = [f"load-{tables}-{uuid.uuid4().hex[:6]}-{index}" for index in range(tables)]
    prefix = "bot" if protected is None else f"bot{uuid.uuid4().hex[:6]}"

    async def create() -> None:
        async with grpc.aio.insecure_channel(f"127.0.0.1:{port}") as channel:
            operator = StudClient(channel, mint_token(SECRET, "house", Role.OPERATOR))
            if cashier:
                await fund(operator, bot_names(prefix), BUY_IN * tables)
            if protected:
                await protect(channel, bot_names(prefix), BUY_IN * tables)
            for table_id in table_ids:
                await operator.create_table(table_id, table_spec(raked))

    asyncio.run(create())
    context = multiprocessing.get_context("spawn")
    go = context.Event()
    results = context.Queue()
    jobs = [(transport, table_ids[worker::LOAD_PROCESSES], worker * 100_000, budget, prefix)
            for worker in range(min(LOAD_PROCESSES, tables))]
    processes = start_load_generators(_load_generator, jobs, go, results)
    if history is not None:
        history.start(port, table_ids, go)
    go.set()
    seen = None
    database_used: tuple[float, ...] = ()
    if hands:
        cpu_before = cpu_seconds(server_pid)
        outcomes = _outcomes(results, processes, 600)
        server_cpu = cpu_seconds(server_pid) - cpu_before
    else:
        time.sleep(WARM_UP_SECONDS)  # the generators' warm-up
        cpu_before = cpu_seconds(server_pid)
        database_before = database_cpu(database_pids)
        time.sleep(seconds)
        server_cpu = cpu_seconds(server_pid) - cpu_before
        database_used = tuple(after - before for after, before in zip(database_cpu(database_pids),
                                                                          database_before, strict=True))
        seen = history.finish() if history is not None else None
        outcomes = _outcomes(results, processes, 120 + SETTLE_LIMIT * budget.settle)
    for process in processes:
        process.join(timeout=30)
    return LoadResult(
        seconds=max(outcome.seconds for outcome in outcomes),
        actions=sum(outcome.actions for outcome in outcomes),
        latencies=[latency for outcome in outcomes for latency in outcome.latencies],
        server_cpu=server_cpu,
        load_cpu=sum(outcome.cpu for outcome in outcomes),
        messages=sum(outcome.messages for outcome in outcomes),
        silences=[silence for outcome in outcomes for silence in outcome.silences],
        unsettled=sum(outcome.unsettled for outcome in outcomes),
        bot_errors=[error for outcome in outcomes for error in outcome.errors],
        history=seen,
        database_cpu=database_used,
    )


def start_load_generators(target: Callable[..., None], jobs: list[tuple[Any, ...]], go: Any, results: Any
                          ) -> list[Any]:
    """One spawned process per job, running ``target(*job, ready, go, results)``; returned once every one has
    set its ``ready`` (its bots seated), RuntimeError as soon as one dies before."""
    context = multiprocessing.get_context("spawn")
    workers = []
    for job in jobs:
        ready = context.Event()
        process = context.Process(target=target, args=(*job, ready, go, results))
        process.start()
        workers.append((process, ready))
    for process, ready in workers:
        while not ready.wait(0.5):
            if not process.is_alive():
                raise RuntimeError("a load generator failed while seating its bots")
    return [process for process, _ready in workers]


def _outcomes(results: Any, processes: list[Any], timeout: float) -> list[Any]:
    """Each load generator's result; RuntimeError as soon as one has died without giving it."""
    outcomes: list[Any] = []
    deadline = time.monotonic() + timeout
    while len(outcomes) < len(processes):
        try:
            outcomes.append(results.get(timeout=1.0))
        except queue.Empty:
            if any(process.exitcode not in (None, 0) for process in processes):
                raise RuntimeError("a load generator failed while playing") from None
            if time.monotonic() > deadline:
                raise TimeoutError("the load generators did not finish") from None
    return outcomes


# -- history read while the tables play ------------------------------------------------------------

HISTORY_READERS = 2  # auditor calls in flight at once, each going round the tables from its own start
HANDS_PER_VISIT = 2  # finished hands read at each visit to a table: two were enough to freeze one
LIST_PAGE = 1000  # ListHands' largest page: a table's finished hands, oldest first
HISTORY_FORMATS = (audit_service_pb2.HISTORY_FORMAT_PHH, audit_service_pb2.HISTORY_FORMAT_POKERSTARS)
FAILURES_KEPT = 5


@dataclass
class HistoryOutcome:
    """What the history process saw over the measured window."""

    seconds: float  # from the window's start to the stop
    reads: int  # ReplayHand, VerifyShuffle and ExportHandHistory calls answered
    lists: int  # ListHands calls answered
    hands_read: int  # distinct hands read
    tables_read: int  # distinct tables with a hand read
    failure_count: int  # calls refused or failed, shuffles that did not verify
    failures: list[str]  # the first FAILURES_KEPT of them
    hands_at_start: dict[str, int]  # each table's hand number as the window opened
    hands_at_end: dict[str, int]  # and as it closed

    @property
    def rate(self) -> float:
        return self.reads / max(self.seconds, 1e-9)

    @property
    def stopped_tables(self) -> list[str]:
        """Tables that dealt no new hand in the window."""
        return [table for table, hand in self.hands_at_start.items() if self.hands_at_end[table] <= hand]

    @property
    def fewest_new_hands(self) -> int:
        return min(self.hands_at_end[table] - hand for table, hand in self.hands_at_start.items())


@dataclass
class HistoryTally:
    """The readers' running counts (one event loop: no lock needed)."""

    reads: int = 0
    lists: int = 0
    hands: set[str] = field(default_factory=set)
    failure_count: int = 0
    failures: list[str] = field(default_factory=list)

    def fail(self, what: str) -> None:
        self.failure_count += 1
        if len(self.failures) < FAILURES_KEPT:
            self.failures.append(what)

    async def answer(self, what: str, call: Any) -> Any | None:
        """The reply to ``call``, or None after counting its failure."""
        try:
            return await call
        except grpc.aio.AioRpcError as error:
            self.fail(f"{what}: {error_text(error)}")
            return None


async def read_history(auditor: StudClient, table_ids: list[str], first: int, rng: random.Random,
                       tally: HistoryTally) -> None:
    """Goes round the tables from ``first`` until cancelled: at each, ListHands finds the finished hands and
    HANDS_PER_VISIT of them, drawn at random, are read (``read_hand``)."""
    audit, metadata = auditor.audit, auditor.metadata
    position = first
    while True:
        table_id = table_ids[position % len(table_ids)]
        position += 1
        listed = await tally.answer(f"ListHands {table_id}", audit.ListHands(
            audit_service_pb2.ListHandsRequest(parent=f"tables/{table_id}", page_size=LIST_PAGE),
            metadata=metadata))
        finished = [hand.name for hand in listed.hands if hand.complete] if listed is not None else []
        tally.lists += listed is not None
        if not finished:
            await asyncio.sleep(0.05)  # no hand of this table has ended yet
            continue
        for name in rng.sample(finished, min(HANDS_PER_VISIT, len(finished))):
            await read_hand(auditor, name, tally)


async def read_hand(auditor: StudClient, name: str, tally: HistoryTally) -> None:
    """One finished hand read every way an auditor can, one call after another."""
    audit, metadata = auditor.audit, auditor.metadata
    replay = await tally.answer(f"ReplayHand {name}", audit.ReplayHand(audit_service_pb2.ReplayHandRequest(
        name=name, view=audit_service_pb2.REPLAY_VIEW_FULL), metadata=metadata))
    shuffle = await tally.answer(f"VerifyShuffle {name}", audit.VerifyShuffle(
        audit_service_pb2.VerifyShuffleRequest(name=name), metadata=metadata))
    if shuffle is not None and not shuffle.passed:
        tally.fail(f"VerifyShuffle {name}: did not verify: {shuffle.message}")
    exports = [
        await tally.answer(f"ExportHandHistory {name}", audit.ExportHandHistory(
            audit_service_pb2.ExportHandHistoryRequest(name=name, format=form), metadata=metadata))
        for form in HISTORY_FORMATS
    ]
    tally.reads += sum(reply is not None for reply in (replay, shuffle, *exports))
    tally.hands.add(name)


async def hand_numbers(client: StudClient, table_ids: list[str]) -> dict[str, int]:
    """Each table's current (or last) hand number."""
    views = await asyncio.gather(*(client.view(table_id) for table_id in table_ids))
    return {table_id: view.hand.hand_number for table_id, view in zip(table_ids, views, strict=True)}


def _historian(address: str, table_ids: list[str], reading: bool, stop: Any, ready: Any, go: Any,
               results: Any) -> None:
    """The history process: notes each table's hand as the bots' window opens and as it closes, and in
    between (if ``reading``) reads the tables' finished hands as an auditor."""
    os.environ["GRPC_ENABLE_FORK_SUPPORT"] = "false"
    results.put(asyncio.run(_watch_history(address, table_ids, reading, stop, ready, go)))


async def _watch_history(address: str, table_ids: list[str], reading: bool, stop: Any, ready: Any, go: Any
                         ) -> HistoryOutcome:
    loop = asyncio.get_running_loop()
    async with grpc_channel(address) as channel:
        rail = StudClient(channel, mint_token(SECRET, "rail"))  # a player who sits nowhere: views only
        auditor = StudClient(channel, mint_token(SECRET, "auditor", Role.AUDITOR))
        ready.set()
        await loop.run_in_executor(None, go.wait)
        await asyncio.sleep(WARM_UP_SECONDS)  # as the bots: the window opens with hands already played
        hands_at_start = await hand_numbers(rail, table_ids)
        tally = HistoryTally()
        rng = random.Random(2028)
        started = time.perf_counter()
        readers = [
            asyncio.ensure_future(read_history(auditor, table_ids, index * len(table_ids) // HISTORY_READERS,
                                               rng, tally))
            for index in range(HISTORY_READERS if reading else 0)
        ]
        await loop.run_in_executor(None, stop.wait)
        elapsed = time.perf_counter() - started
        for reader in readers:
            reader.cancel()
        for outcome in await asyncio.gather(*readers, return_exceptions=True):
            if not isinstance(outcome, asyncio.CancelledError):
                tally.fail(f"a reader ended: {outcome!r}")
        hands_at_end = await hand_numbers(rail, table_ids)
    return HistoryOutcome(
        seconds=elapsed, reads=tally.reads, lists=tally.lists, hands_read=len(tally.hands),
        tables_read=len({name.split("/")[1] for name in tally.hands}), failure_count=tally.failure_count,
        failures=tally.failures, hands_at_start=hands_at_start, hands_at_end=hands_at_end,
    )


class HistoryReaders:
    """The history process beside the bots, in a process of its own so their measurements are not
    disturbed by its client work; ``reading`` False: it only notes the tables' hands (the baseline)."""

    def __init__(self, reading: bool) -> None:
        self.reading = reading
        context = multiprocessing.get_context("spawn")
        self._stop = context.Event()
        self._results = context.Queue()
        self._processes: list[Any] = []

    def start(self, port: int, table_ids: list[str], go: Any) -> None:
        """Started and connected before ``go``; its window opens with the bots'."""
        job = (f"127.0.0.1:{port}", table_ids, self.reading, self._stop)
        self._processes = start_load_generators(_historian, [job], go, self._results)

    def finish(self) -> HistoryOutcome:
        self._stop.set()
        outcome = _outcomes(self._results, self._processes, 120)[0]
        for process in self._processes:
            process.join(timeout=30)
        return outcome


async def open_tables(port: int, count: int) -> None:
    async with grpc.aio.insecure_channel(f"127.0.0.1:{port}") as channel:
        operator = StudClient(channel, mint_token(SECRET, "house", Role.OPERATOR))
        player = StudClient(channel, mint_token(SECRET, "resident"))
        await fund(operator, ["resident"], 10_000 * count)
        semaphore = asyncio.Semaphore(16)

        async def one(index: int) -> None:
            async with semaphore:
                table_id = f"idle-{index}"
                await operator.create_table(table_id, table_spec())
                await player.sit_down(table_id, 1, 10_000)

        await asyncio.gather(*(one(index) for index in range(count)))


def measure(server: Server, tables: int, seconds: float, raked: bool = False,
            history: HistoryReaders | None = None, protected: bool | None = None,
            database_pids: tuple[int, ...] = ()) -> LoadResult:
    """Bots play ``tables`` tables on ``server`` for ``seconds`` (``history`` beside them; ``protected``: as
    :func:`play`; the CPU of the ``database_pids`` servers counted too); the server is stopped afterwards."""
    try:
        asyncio.run(server.wait_ready())
        return play(server.port, tables, seconds, server.process.pid, raked, server.cashier, history=history,
                    protected=protected, database_pids=database_pids)
    finally:
        server.stop()


@dataclass
class Row:
    tables: int
    ours: LoadResult
    floor: LoadResult
    pgbench: float  # tps


def print_pairs(what: str, tables: int, runs: dict[bool, list[LoadResult]], off: str, on: str,
                goal: float | None) -> None:
    """One feature off against on, in rounds alternating in the same run: the rates, their ratio, CPU."""
    rates = {enabled: [run.rate for run in results] for enabled, results in runs.items()}
    pair_ratios = [yes / max(no, 1e-9) for no, yes in zip(rates[False], rates[True], strict=True)]
    cpu = {enabled: sum(r.server_cpu for r in results) / max(sum(r.actions for r in results), 1) * 1000
           for enabled, results in runs.items()}
    p99 = {enabled: percentile([x for r in results for x in r.latencies], 0.99) * 1000
           for enabled, results in runs.items()}
    print(
        f"{what}: {tables} tables, actions/s {off} {', '.join(f'{r:.0f}' for r in rates[False])} vs {on}"
        f" {', '.join(f'{r:.0f}' for r in rates[True])} (alternating, same run);"
        f" ratio of the sums {sum(rates[True]) / max(sum(rates[False]), 1e-9):.2f}, median of the pairs'"
        f" ratios {statistics.median(pair_ratios):.2f}; p99 {p99[False]:.1f} vs {p99[True]:.1f} ms;"
        f" server CPU {cpu[False]:.2f} vs {cpu[True]:.2f} ms/action"
        + (f" (goal: ratio >= {goal})" if goal is not None else "")
    )


def run_problems(run: LoadResult, tables: int) -> list[str]:
    """How the tables of one history round failed to keep playing, if they did."""
    history = run.history
    if history is None:
        return ["the history process gave no outcome"]
    problems = []
    if history.stopped_tables:
        problems.append(f"{len(history.stopped_tables)} of {tables} tables dealt no new hand in the window"
                        f" ({', '.join(history.stopped_tables[:4])})")
    if run.unsettled:
        problems.append(f"{run.unsettled} of {len(run.silences)} bots saw no hand end within"
                        f" {SETTLE_LIMIT:.0f} s after the window: their tables stopped")
    if run.stalled_bots:
        problems.append(f"{run.stalled_bots} of {len(run.silences)} bots heard nothing from their table for"
                        f" >= {STALL_SECONDS:.0f} s")
    if run.bot_errors:
        problems.append(f"{len(run.bot_errors)} bots stopped by an error: {'; '.join(run.bot_errors[:3])}")
    if history.failure_count:
        problems.append(f"{history.failure_count} history calls failed: {'; '.join(history.failures)}")
    return problems


def print_history(tables: int, runs: dict[bool, list[LoadResult]]) -> bool:
    """The history soak's figures, and FAIL for every table that stopped, bot that stalled or read that
    failed, in either kind of round; whether it passed."""
    print_pairs("history while playing", tables, runs, "without readers",
                f"with an auditor reading older hands ({HISTORY_READERS} calls at once)", None)
    reads = [run.history for run in runs[True] if run.history is not None]
    print(
        f"history reads: {', '.join(f'{outcome.rate:.1f}' for outcome in reads)} reads/s (ReplayHand in full,"
        f" VerifyShuffle, ExportHandHistory as PHH and as PokerStars; besides them"
        f" {', '.join(f'{outcome.lists / outcome.seconds:.1f}' for outcome in reads)} ListHands/s);"
        f" distinct finished hands read {', '.join(str(outcome.hands_read) for outcome in reads)},"
        f" of {', '.join(str(outcome.tables_read) for outcome in reads)} of {tables} tables"
    )

    def both(figure: Callable[[LoadResult], object]) -> str:
        """``figure`` of each round without readers vs each round with them."""
        return " vs ".join(", ".join(str(figure(run)) for run in runs[reading]) for reading in (False, True))

    def stopped(run: LoadResult) -> object:
        return len(run.history.stopped_tables) if run.history is not None else "?"

    def fewest(run: LoadResult) -> object:
        return run.history.fewest_new_hands if run.history is not None else "?"

    print(
        f"live play (without vs with readers): tables that dealt no new hand in the window {both(stopped)}"
        f" (of {tables}); fewest new hands at a table {both(fewest)}; bots that saw no hand end after the"
        f" window within {SETTLE_LIMIT:.0f} s {both(lambda run: run.unsettled)}, heard nothing for"
        f" >= {STALL_SECONDS:.0f} s {both(lambda run: run.stalled_bots)}, stopped by an error"
        f" {both(lambda run: len(run.bot_errors))} (of {tables * BOTS_PER_TABLE}); longest silence"
        f" {both(lambda run: f'{max(run.silences, default=0):.1f}')} s; slowest Act"
        f" {both(lambda run: f'{max(run.latencies, default=0) * 1000:.0f}')} ms"
        f" (goal: all 0, and 0 reads failed)"
    )
    problems = []
    for reading, results in runs.items():
        for number, run in enumerate(results, 1):
            where = f"round {number} {'with' if reading else 'without'} readers"
            problems += [f"{where}: {problem}" for problem in run_problems(run, tables)]
            if reading and run.history is not None and not run.history.reads:
                problems.append(f"{where}: no finished hand was read")
    for problem in problems:
        print(f"*** FAIL (history soak): {problem}")
    if not problems:
        print("history soak: PASS: every table kept playing while its older hands were read")
    return not problems


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=int, default=10)
    parser.add_argument("--tables", type=int, nargs="+", default=[8, 64])
    parser.add_argument("--memory-tables", type=int, default=1000)
    parser.add_argument("--rake-rounds", type=int, default=2, help="raked/unraked pairs (0: skip)")
    parser.add_argument("--sealing-rounds", type=int, default=2, help="sealed/unsealed pairs (0: skip)")
    parser.add_argument("--sessions-rounds", type=int, default=2,
                        help="player sessions off/on pairs (0: skip)")
    parser.add_argument("--history-rounds", type=int, default=2,
                        help="pairs of play without and with an auditor reading older hands (0: skip)")
    parser.add_argument(
        "--database-url", default=None,
        help="also run the service on this existing, migrated database (a Citus coordinator with the layout"
             " in place: stud-service migrate --citus), with the plain node's figures from the same run"
             " beside it; only that comparison runs",
    )
    parser.add_argument("--rounds", type=int, default=2,
                        help="with --database-url: pairs of runs, in the order given, then reversed, ...")
    args = parser.parse_args()
    if args.database_url:
        return compare_with_plain(args.database_url, args.tables, args.seconds, args.rounds)

    database = Database()
    url = database.start()
    rows = []
    try:
        for tables in args.tables:
            ours = measure(Server.service(url), tables, args.seconds)
            peer = pgbench_insert_rate(url, tables, args.seconds)
            floor = measure(Server.floor(), tables, args.seconds)
            rows.append(Row(tables, ours, floor, peer))
        rake_runs: dict[bool, list[LoadResult]] = {False: [], True: []}
        for _round in range(args.rake_rounds):
            for raked in (False, True):
                rake_runs[raked].append(measure(Server.service(url), args.tables[0], args.seconds, raked))
        sealing_runs: dict[bool, list[LoadResult]] = {False: [], True: []}
        clear_url = database.another() if args.sealing_rounds else ""
        for _round in range(args.sealing_rounds):
            for sealed in (False, True):
                server = Server.service(url) if sealed else Server.unsealed(clear_url)
                sealing_runs[sealed].append(measure(server, args.tables[0], args.seconds))
        sessions_runs: dict[bool, list[LoadResult]] = {False: [], True: []}
        for number in range(args.sessions_rounds):
            # Off then on, then on then off: a load that drifts during the run weighs on both alike.
            for sessions in ((False, True) if number % 2 == 0 else (True, False)):
                server = Server.service(url, options=("--player-sessions", "on" if sessions else "off"))
                sessions_runs[sessions].append(
                    measure(server, args.tables[0], args.seconds, protected=sessions))
        history_runs: dict[bool, list[LoadResult]] = {False: [], True: []}
        for _round in range(args.history_rounds):
            for reading in (False, True):
                history = HistoryReaders(reading)
                history_runs[reading].append(measure(Server.service(url), args.tables[0], args.seconds,
                                                     history=history))
        if args.memory_tables:
            memory = measure_memory(url, args.memory_tables)
    finally:
        database.stop()

    print(
        f"stud-service over gRPC vs pgbench single-row durable INSERT on the same PostgreSQL and vs the"
        f" bare-gRPC floor (grpc_floor.py: the same bots, one message per command per watcher, no work),"
        f" same run ({args.seconds} s each, {BOTS_PER_TABLE} bots per table, {LOAD_PROCESSES} load processes,"
        f" {os.cpu_count()} CPUs)"
    )
    print(
        f"{'tables':>6} {'server':>7} {'actions/s':>10} {'p50 ms':>8} {'p99 ms':>8} {'server CPU':>12}"
        f" {'bots CPU':>10} {'watch msgs':>10} {'pgbench tps':>12} {'÷ pgbench':>10} {'÷ floor':>8}"
        f" {'÷ floor':>9}"
    )
    print(f"{'':>6} {'':>7} {'':>10} {'':>8} {'':>8} {'ms/action':>12} {'ms/action':>10} {'/action':>10}"
          f" {'':>12} {'':>10} {'actions/s':>8} {'per CPU s':>9}")
    for row in rows:
        for name, load in (("service", row.ours), ("floor", row.floor)):
            ours = load is row.ours
            versus_floor = f"{row.ours.rate / row.floor.rate:>8.2f}" if ours else f"{'':>8}"
            per_cpu = f"{row.floor.cpu_per_action / row.ours.cpu_per_action:>9.2f}" if ours else f"{'':>9}"
            print(
                f"{row.tables:>6} {name:>7} {load.columns()} {row.pgbench:>12.0f}"
                f" {load.rate / row.pgbench:>10.2f} {versus_floor} {per_cpu}   ({len(load.latencies)} actions"
                " timed)"
            )
    if args.rake_rounds:
        print_pairs("rake", args.tables[0], rake_runs, "without rake", "with rake", 0.95)
    if args.sealing_rounds:
        print_pairs("sealing at rest", args.tables[0], sealing_runs, "unsealed", "sealed (AES-256-GCM, deck"
                    " proofs)", 0.9)
    if args.sessions_rounds:
        print_pairs("player sessions", args.tables[0], sessions_runs, "sessions off", "sessions on", 0.95)
        record_sessions(args.tables[0], sessions_runs)
    passed = print_history(args.tables[0], history_runs) if args.history_rounds else True
    if args.memory_tables:
        before, after, opening, idle_cpu = memory
        per_table = (after - before) / args.memory_tables
        print(
            f"memory: {args.memory_tables} open tables took the server from {before / 1024:.0f} MiB to "
            f"{after / 1024:.0f} MiB RSS: {per_table:.1f} KiB per table (opened in {opening:.1f} s)"
        )
        print(
            f"idle: with those tables open the server used {idle_cpu / IDLE_SECONDS * 100:.1f}% of a CPU"
            f" over {IDLE_SECONDS:.0f} s"
        )
    print("goals: actions per server-CPU-second >= 0.5 x the floor's, p99 < 50 ms at 64 tables,"
          " < 100 KB per open table")
    record_headlines(rows[0], history_runs if args.history_rounds else None, passed)
    return 0 if passed else 1


def compare_with_plain(url: str, table_counts: list[int], seconds: int, rounds: int,
                       record: bool = True) -> int:
    """The service on ``url`` (its database, and on Citus every node, counted in the CPU) against the same
    service on one plain PostgreSQL made here (or on $DATABASE_URL's server), in the same run, alternating.
    ``url`` may name a Citus worker (the service then sends every query there): the split shows that worker,
    the coordinator and the others, and no headline is kept (the Citus row is the coordinator's); nor with
    ``record`` false (a comparison run by another benchmark)."""
    plain = Database()
    plain_url = plain.start()
    given_pids, plain_pids = postmasters(url), postmasters(plain_url)
    # Entered at a Citus worker (the service's queries sent there, not to the coordinator): its pids are the
    # worker's, the coordinator's, then the other workers'.
    at_worker = len(given_pids) > 1 and not is_citus_coordinator(url)
    servers: dict[str, tuple[str, tuple[int, ...], tuple[str, ...]]] = {
        "given": (url, given_pids, ()), "plain": (plain_url, plain_pids, ())}
    if len(given_pids) > 1 and not at_worker:  # and the same through the coordinator
        via_coordinator = ("--citus-appends", "coordinator")
        servers = {"given": servers["given"], "via coord": (url, given_pids, via_coordinator),
                   "plain": servers["plain"]}
    runs: dict[tuple[int, str], list[LoadResult]] = {}
    try:
        for tables in table_counts:
            for number in range(rounds):
                for name in (list(servers) if number % 2 == 0 else list(reversed(servers))):
                    database_url, pids, options = servers[name]
                    runs.setdefault((tables, name), []).append(
                        measure(Server.service(database_url, options=options), tables, seconds,
                                database_pids=pids))
    finally:
        plain.stop()
    print(f"stud-service on {conninfo_to_dict(url).get('host')}:{conninfo_to_dict(url).get('port')}"
          f" ({len(given_pids)} database servers) vs one plain PostgreSQL, same run, {rounds} rounds"
          f" of {seconds} s alternating, {BOTS_PER_TABLE} bots per table, {os.cpu_count()} CPUs"
          + ("; via coord: the same cluster, --citus-appends coordinator" if "via coord" in servers else ""))
    print(f"{'tables':>6} {'database':>9} {'actions/s':>10} {'p50 ms':>8} {'p99 ms':>8} {'service':>9}"
          f" {'database':>9} {'all':>9}   CPU ms per action")
    for tables in table_counts:
        figures = {}
        for name in servers:
            done = runs[(tables, name)]
            actions = max(sum(r.actions for r in done), 1)
            latencies = [latency for r in done for latency in r.latencies]
            service_ms = sum(r.server_cpu for r in done) / actions * 1000
            database_ms = sum(sum(r.database_cpu) for r in done) / actions * 1000
            first_ms, second_ms = (sum(r.database_cpu[i] for r in done) / actions * 1000 for i in (0, 1)
                                   ) if len(servers[name][1]) > 1 else (database_ms, 0.0)
            figures[name] = (sum(r.actions for r in done) / sum(r.seconds for r in done),
                             percentile(latencies, 0.5) * 1000, percentile(latencies, 0.99) * 1000,
                             service_ms, database_ms, service_ms + database_ms, first_ms)
            rate, p50, p99, service_ms, database_ms, all_ms, _ = figures[name]
            split = "" if len(servers[name][1]) == 1 else (
                f"   (coordinator {first_ms:.2f}, workers {database_ms - first_ms:.2f})" if not at_worker else
                f"   (entry worker {first_ms:.2f}, coordinator {second_ms:.2f},"
                f" other workers {database_ms - first_ms - second_ms:.2f})")
            print(f"{tables:>6} {name:>9} {rate:>10.0f} {p50:>8.1f} {p99:>8.1f} {service_ms:>9.2f}"
                  f" {database_ms:>9.2f} {all_ms:>9.2f}{split}")
        for name in [n for n in servers if n != "plain"]:
            given, ours = figures[name], figures["plain"]
            label = "÷ plain" if len(servers) == 2 else f"{name.split()[-1][:3]}÷pla"
            print(f"{tables:>6} {label:>9} {given[0] / ours[0]:>10.2f} {given[1] / ours[1]:>8.2f}"
                  f" {given[2] / ours[2]:>8.2f} {given[3] / ours[3]:>9.2f} {given[4] / ours[4]:>9.2f}"
                  f" {given[5] / ours[5]:>9.2f}")
        if record and tables == table_counts[0] and "via coord" in servers:
            record_citus_headline(tables, len(given_pids) - 1, seconds, rounds, figures)
    print("goals on Citus: CPU per action (all) <= 1.5x the plain node's at 8 tables; Act p50 <= 1.5x")
    return 0


def record_citus_headline(tables: int, workers: int, seconds: int, rounds: int,
                          figures: dict[str, tuple[float, ...]]) -> None:
    """The Citus comparison's row: CPU per action in all and Act p50, each against the plain node's (and the
    same through the coordinator, beside it)."""
    (rate, p50, _, service_ms, database_ms, all_ms, coordinator_ms) = figures["given"]
    (plain_rate, plain_p50, _, plain_service_ms, plain_database_ms, plain_all_ms, _) = figures["plain"]
    via_all_ms, via_p50 = figures["via coord"][5], figures["via coord"][1]
    cpu_ratio, p50_ratio = all_ms / plain_all_ms, p50 / plain_p50
    headline.record(
        __file__, part="Citus",
        what=f"{tables} money tables, {BOTS_PER_TABLE} bots each, the service on a Citus cluster (a"
             f" coordinator and {workers} workers on this machine, laid out by migrate --citus), {rounds}"
             f" rounds of {seconds} s alternating with one plain PostgreSQL and with the same cluster through"
             " the coordinator (--citus-appends coordinator): CPU per action of the service and of every"
             " database server",
        figure=f"{all_ms:.2f} ms CPU per action (service {service_ms:.2f}, coordinator {coordinator_ms:.2f},"
               f" workers {database_ms - coordinator_ms:.2f}); Act p50 {p50:.1f} ms; {rate:.0f} actions/s",
        peer=f"one plain PostgreSQL: {plain_all_ms:.2f} ms (service {plain_service_ms:.2f}, database"
             f" {plain_database_ms:.2f}); Act p50 {plain_p50:.1f} ms; {plain_rate:.0f} actions/s. Through"
             f" the coordinator: {via_all_ms:.2f} ms ({via_all_ms / plain_all_ms:.2f}×), Act p50"
             f" {via_p50:.1f} ms",
        ratio=f"{cpu_ratio:.2f}× the CPU; Act p50 {p50_ratio:.2f}×",
        goal="≤ 1.5× the CPU per action and the Act p50",
        met=cpu_ratio <= 1.5 and p50_ratio <= 1.5,
        arguments=["--database-url", "<coordinator URL>", "--tables", str(tables), "--rounds", str(rounds),
                   "--seconds", str(seconds)],
    )


def record_headlines(first: Row, history_runs: dict[bool, list[LoadResult]] | None, passed: bool) -> None:
    """The throughput at the first table count against pgbench and the floor, and the history soak's."""
    ours, floor = first.ours, first.floor
    p99 = percentile(ours.latencies, 0.99) * 1000
    efficiency = floor.cpu_per_action / ours.cpu_per_action  # actions per server-CPU-second: ours ÷ floor's
    headline.record(
        __file__,
        what=f"{first.tables} money tables, {BOTS_PER_TABLE} bots each over gRPC (batch_events), actions/s",
        figure=f"{ours.rate:,.0f} actions/s; p99 Act {p99:.0f} ms;"
               f" {ours.cpu_per_action * 1000:.2f} ms server CPU per action",
        peer=f"the bare-gRPC floor: {floor.cpu_per_action * 1000:.2f} ms server CPU per action,"
             f" {floor.rate:,.0f} actions/s; pgbench durable 1-row INSERT at the same concurrency:"
             f" {first.pgbench:,.0f} tps",
        ratio=f"{efficiency:.2f}× the floor's actions per server-CPU-second"
              f" ({ours.rate / floor.rate:.2f}× its actions/s); {ours.rate / first.pgbench:.2f}× pgbench",
        goal="≥ 0.5× the floor's actions per server-CPU-second",
        met=efficiency >= 0.5,
    )
    if history_runs is None:
        return
    rates = {reading: sum(run.actions for run in runs) / sum(run.seconds for run in runs)
             for reading, runs in history_runs.items()}
    reads = [run.history for run in history_runs[True] if run.history is not None]
    read_rate = sum(outcome.reads for outcome in reads) / max(sum(outcome.seconds for outcome in reads), 1e-9)
    headline.record(
        __file__,
        part="history soak",
        what=f"{first.tables} tables played while an auditor reads their finished hands every way"
             f" (ReplayHand, VerifyShuffle, PHH and PokerStars exports), {len(history_runs[True])} rounds"
             " alternating",
        figure=f"{rates[True]:,.0f} actions/s with the reader; {read_rate:.1f} history calls/s",
        peer=f"the same play without it: {rates[False]:,.0f} actions/s",
        ratio=f"{rates[True] / rates[False]:.2f}×",
        goal="every table keeps dealing, no bot stalls, no read fails",
        met=passed,
    )


def record_sessions(tables: int, runs: dict[bool, list[LoadResult]]) -> None:
    """The player sessions' cost: actions/s with sessions on against off, the rounds summed."""
    rates = {on: sum(run.actions for run in results) / sum(run.seconds for run in results)
             for on, results in runs.items()}
    cpu = {on: sum(run.server_cpu for run in results) / max(sum(run.actions for run in results), 1) * 1000
           for on, results in runs.items()}
    ratio = rates[True] / rates[False]
    headline.record(
        __file__,
        part="player sessions",
        what=f"{tables} money tables, {BOTS_PER_TABLE} bots each over gRPC, each call placed in its player"
             f" session (device id, address, session start and end in the log) and every bot with loss"
             f" limits (day, week, month), a session limit and reality checks, {len(runs[True])} rounds"
             " alternating",
        figure=f"{rates[True]:,.0f} actions/s with sessions and limits on; {cpu[True]:.2f} ms server CPU per"
               " action",
        peer=f"the same with --player-sessions off and no limits: {rates[False]:,.0f} actions/s;"
             f" {cpu[False]:.2f} ms server CPU per action",
        ratio=f"{ratio:.2f}×",
        goal="≥ 0.95×",
        met=ratio >= 0.95,
    )


def measure_memory(url: str, count: int) -> tuple[int, int, float, float]:
    """A fresh server's RSS (KiB) before and after ``count`` tables are opened, the seconds opening them
    took, and the server's CPU seconds over IDLE_SECONDS while they sit idle."""
    server = Server.service(url)
    try:
        asyncio.run(server.wait_ready())
        time.sleep(1.0)
        before = rss_kib(server.process.pid)
        started = time.perf_counter()
        asyncio.run(open_tables(server.port, count))
        opening = time.perf_counter() - started
        time.sleep(2.0)
        after = rss_kib(server.process.pid)
        # Idle: the open tables' subscriptions wait on notifications, polled by one heads query.
        idle_cpu = cpu_seconds(server.process.pid)
        time.sleep(IDLE_SECONDS)
        idle_cpu = cpu_seconds(server.process.pid) - idle_cpu
    finally:
        server.stop()
    return before, after, opening, idle_cpu


if __name__ == "__main__":
    sys.exit(main())
