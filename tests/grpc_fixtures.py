"""Fixtures for the gRPC tests: a real server on a loopback port over a real PostgreSQL, real clients.

``grpc_service``    the server of the session (its own migrated database, short pauses between hands): the
                    TableService with the AuditService, CashierService, PlayerProtectionService and
                    TournamentService beside it, as ``serve`` has them, on its gRPC port and its web port
                    (Connect, gRPC-Web)
``transport``       the transport ``operator`` and ``make_player`` call over: "grpc" unless a test module
                    parametrises it (``@pytest.mark.parametrize("transport", TRANSPORTS)``): the same
                    test then runs over the gRPC port and the web port (see ``WEB_TRANSPORTS``)
``operator``        a StudClient with an operator token
``make_player``     ``make_player("alice")`` -> StudClient with a player token
``table_id``        a table id no other test uses
``new_table``       ``await new_table(**Table fields)`` -> the id of a freshly created table
``spawn_server``    start ``stud-service serve`` as a child process on a database; kill it at the end
``service_under_test(url, settings, reveal_seeds_after=None)``  the same in-process server, for a test
                    module that needs its own database or runtime or audit settings (an async context manager)
``whole_service(url, secret, log, level, **options)``  the whole service as ``serve`` wires it
                    (ServiceHost, metrics too), its JSON log written to ``log``, and a channel to it
``self_signed``     TlsFiles of a self-signed certificate for localhost / 127.0.0.1
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import os
import shutil
import signal
import socket
import subprocess
import sys
import uuid
from collections.abc import AsyncIterator, Awaitable, Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any

import grpc
import pytest
import pytest_asyncio
from google.protobuf import duration_pb2
from google.protobuf.message import Message
from sealing_keys import TEST_KEYRING, keyring_file

from stud_service.auth import Role, mint_token
from stud_service.bots import StudClient
from stud_service.bots.client import wait_until_serving as serving
from stud_service.bots.connect_stub import WebChannel
from stud_service.db import open_pool
from stud_service.observability.logging import configure_logging
from stud_service.sealing import open_sealed_store
from stud_service.server.api.audit_service import AuditService
from stud_service.server.api.cashier_service import CashierService
from stud_service.server.api.protection_service import PlayerProtectionService
from stud_service.server.api.table_service import TableService
from stud_service.server.api.tournament_service import TournamentService
from stud_service.server.grpc.app import RunningServer, TlsFiles, start_server
from stud_service.server.host import ServiceHost, ServiceOptions
from stud_service.server.proto_gen import table_pb2
from stud_service.server.tables.runtime import TableRuntime
from stud_service.server.tables.settings import RuntimeSettings
from stud_service.server.web.app import WebApplication, WebSettings
from stud_service.server.web.server import WebServer, start_web_server
from stud_service.store import EventStore

TOKEN_SECRET = "grpc-tests-token-secret-32-bytes-long!"
# A new table's version: TableCreated, then the commitment to its first hand's seed (ShuffleCommitted).
CREATED_VERSION = 2
NEXT_HAND_PAUSE = 0.05
# A transport: "grpc" (the gRPC port), or the web port's protocol and codec (StudClient.over_web).
WEB_TRANSPORTS: dict[str, tuple[Any, Any]] = {
    "connect-json": ("connect", "json"),
    "connect-proto": ("connect", "proto"),
    "grpc-web": ("grpc-web", "proto"),
}
ALL_TRANSPORTS = ("grpc", *WEB_TRANSPORTS)
# The gRPC port and the web port's most common form (what a browser's Connect client speaks).
TRANSPORTS = ("grpc", "connect-json")


@dataclass
class ServiceUnderTest:
    running: RunningServer
    runtime: TableRuntime
    store: EventStore
    database_url: str
    channel: grpc.aio.Channel
    web: WebServer

    @property
    def address(self) -> str:
        return f"127.0.0.1:{self.running.port}"

    @property
    def web_url(self) -> str:
        return f"http://127.0.0.1:{self.web.port}"

    def client(self, player: str | None, role: Role = Role.PLAYER, transport: str = "grpc",
               device_id: str | None = None) -> StudClient:
        token = mint_token(TOKEN_SECRET, player, role) if player is not None else None
        return self.connect(token, transport, device_id)

    def connect(self, token: str | None, transport: str = "grpc", device_id: str | None = None) -> StudClient:
        """A client presenting ``token`` (any token, or none) and ``device_id`` over ``transport``."""
        return StudClient(self.channel_for(transport), token, device_id)

    def channel_for(self, transport: str) -> grpc.aio.Channel | WebChannel:
        if transport == "grpc":
            return self.channel
        protocol, codec = WEB_TRANSPORTS[transport]
        return WebChannel(self.web_url, protocol, codec)


@contextlib.asynccontextmanager
async def service_under_test(
    url: str, settings: RuntimeSettings, *, reveal_seeds_after: float | None = None
) -> AsyncIterator[ServiceUnderTest]:
    """A server on a loopback port over the database at ``url``, and the same services on a web port of
    its own: the TableService with the AuditService (``reveal_seeds_after``: its delayed public reveal of
    seeds), the CashierService and the PlayerProtectionService beside it."""
    pool = await open_pool(url, max_size=20)
    store = await open_sealed_store(pool, TEST_KEYRING)  # the key registry checked, as a server does
    runtime = TableRuntime(store, settings)
    tables = TableService(runtime, TOKEN_SECRET)
    audit = AuditService(runtime, TOKEN_SECRET, reveal_seeds_after=reveal_seeds_after)
    cashier = CashierService(runtime, TOKEN_SECRET)
    protection = PlayerProtectionService(runtime, TOKEN_SECRET)
    tournaments = TournamentService(runtime, TOKEN_SECRET)
    running = await start_server(tables, "127.0.0.1:0", audit_service=audit, cashier_service=cashier,
                                 more_services=(protection, tournaments))
    running.on_shutdown.append(runtime.close)
    services: dict[Any, object] = {
        TableService.DESCRIPTOR: tables, AuditService.DESCRIPTOR: audit, CashierService.DESCRIPTOR: cashier,
        PlayerProtectionService.DESCRIPTOR: protection, TournamentService.DESCRIPTOR: tournaments,
    }
    web = await start_web_server(WebApplication(services, WebSettings(serve_page=False)), "127.0.0.1:0",
                                 None, 0, connection_closed=runtime.sessions.connection_closed)
    running.on_shutdown.append(lambda: web.shutdown(0))
    channel = grpc.aio.insecure_channel(f"127.0.0.1:{running.port}")
    try:
        yield ServiceUnderTest(running, runtime, store, url, channel, web)
    finally:
        await channel.close()
        await running.shutdown(0)
        await store.close()
        await pool.close()


@dataclass
class WholeService:
    host: ServiceHost
    channel: grpc.aio.Channel
    metrics_url: str


@contextlib.asynccontextmanager
async def whole_service(
    database_url: str, token_secret: str, log: IO[str], level: str = "INFO", **options: Any
) -> AsyncIterator[WholeService]:
    """``ServiceHost`` on ``database_url`` (short pauses between hands; metrics on a free port; ``options``
    for any other ServiceOptions) with the service's JSON log handler writing to ``log`` at ``level``, and
    a channel to it; the root logger is put back as it was afterwards."""
    port = free_port()
    settings = ServiceOptions(**{
        "token_secret": token_secret, "database_url": database_url, "listen": "127.0.0.1:0",
        "metrics_listen": f"127.0.0.1:{port}", "hand_pause_seconds": NEXT_HAND_PAUSE, "pool_size": 8,
        **options,
    })
    root = logging.getLogger()
    previous = root.level
    handler = configure_logging("json", level, log)
    try:
        async with (
            ServiceHost(settings) as host,
            grpc.aio.insecure_channel(f"127.0.0.1:{host.port}") as channel,
        ):
            yield WholeService(host, channel, f"http://127.0.0.1:{port}/metrics")
    finally:
        root.removeHandler(handler)
        root.setLevel(previous)
        logging.captureWarnings(False)


@pytest_asyncio.fixture(scope="session")
async def grpc_service(make_database: Callable[..., Awaitable[str]]) -> AsyncIterator[ServiceUnderTest]:
    url = await make_database(migrated=True)
    async with service_under_test(url, RuntimeSettings(next_hand_pause=NEXT_HAND_PAUSE)) as service:
        yield service


@pytest.fixture
def transport() -> str:
    """Overridden by a test's ``@pytest.mark.parametrize("transport", ...)``."""
    return "grpc"


@pytest.fixture
def operator(grpc_service: ServiceUnderTest, transport: str) -> StudClient:
    return grpc_service.client("house", Role.OPERATOR, transport)


@pytest.fixture
def make_player(grpc_service: ServiceUnderTest, transport: str) -> Callable[[str], StudClient]:
    return lambda player: grpc_service.client(player, transport=transport)


@pytest.fixture
def table_id() -> str:
    return f"t-{uuid.uuid4().hex[:12]}"


def table_spec(
    variant: int = table_pb2.VARIANT_SEVEN_CARD_STUD,
    action_clock: int = 30,
    play_money: bool = True,
    **fields,
) -> table_pb2.Table:
    """A $2/$4 table in cents unless fields say otherwise. Play money unless ``play_money=False``: the
    game's tests need no accounts; money's tests (test_grpc_money.py) fund players through the cashier."""
    spec = table_pb2.Table(
        play_money=play_money,
        variant=variant,
        stakes=table_pb2.Stakes(small_bet=200, big_bet=400, ante=50, bring_in=100),
        min_buy_in=2_000,
        max_buy_in=40_000,
        action_clock=duration_pb2.Duration(seconds=action_clock),
    )
    for name, value in fields.items():
        if isinstance(value, Message):
            getattr(spec, name).CopyFrom(value)
        else:
            setattr(spec, name, value)
    return spec


@pytest.fixture
def new_table(operator: StudClient) -> Callable[..., Awaitable[str]]:
    async def create(**fields) -> str:
        table_id = f"t-{uuid.uuid4().hex[:12]}"
        await operator.create_table(table_id, table_spec(**fields))
        return table_id

    return create


def free_port() -> int:
    return free_ports(1)[0]


def free_ports(count: int) -> list[int]:
    """``count`` distinct free loopback ports: each socket is held until all are drawn, as the kernel may
    hand a port just closed out again (a cluster once got one port for a node's PostgreSQL and its API)."""
    with contextlib.ExitStack() as held:
        ports = []
        for _ in range(count):
            sock = held.enter_context(socket.socket())
            sock.bind(("127.0.0.1", 0))
            ports.append(sock.getsockname()[1])
        return ports


@dataclass
class ServerProcess:
    process: subprocess.Popen[bytes]
    port: int
    log_path: Path

    def log_text(self) -> str:
        """Everything the server wrote to stderr (its log lines) so far."""
        return self.log_path.read_text(errors="replace")

    @property
    def address(self) -> str:
        return f"127.0.0.1:{self.port}"

    def replica_id(self) -> str:
        """The replica id the server logged at start (its leases' owner)."""
        for line in self.log_text().splitlines():
            with contextlib.suppress(ValueError):
                record = json.loads(line)
                if record.get("msg") == "service started":
                    return str(record["replica"])
        raise AssertionError("the server logged no start")

    def kill(self) -> None:
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGKILL)
            self.process.wait(timeout=10)


def serve_command(database_url: str, listen: str) -> list[str]:
    """``stud-service serve`` on ``database_url`` at ``listen``, without metrics."""
    return [sys.executable, "-m", "stud_service.cli", "serve", "--database-url", database_url,
            "--listen", listen, "--metrics-listen", "off"]


@pytest.fixture
def spawn_server(tmp_path: Path) -> Iterator[Callable[..., Awaitable[ServerProcess]]]:
    started: list[ServerProcess] = []

    async def spawn(database_url: str, *extra: str) -> ServerProcess:
        port = free_port()
        log_path = tmp_path / f"server-{port}.log"
        env = {**os.environ, "STUD_TOKEN_SECRET": TOKEN_SECRET, "STUD_TOKEN_HS256": "on",
               "STUD_KEYS_FILE": str(keyring_file())}
        process = subprocess.Popen(
            [
                *serve_command(database_url, f"127.0.0.1:{port}"),
                "--hand-pause-seconds",
                str(NEXT_HAND_PAUSE),
                *extra,
            ],
            env=env,
            stdout=subprocess.DEVNULL,
            stderr=log_path.open("wb"),  # a file, not a pipe: a chatty server must never block on it
        )
        server = ServerProcess(process, port, log_path)
        started.append(server)
        await wait_until_serving(server)
        return server

    yield spawn
    for server in started:
        server.kill()


async def wait_until_serving(server: ServerProcess, timeout: float = 30) -> None:
    try:
        await serving(server.address, timeout, still_running=lambda: server.process.poll() is None)
    except RuntimeError as error:
        raise RuntimeError(f"{error}: {server.log_text()[-2000:]}") from None


async def wait_for_view(client: StudClient, table_id: str, predicate, timeout: float = 30.0):
    """Poll the client's view until ``predicate(view)`` holds; return that view."""
    deadline = asyncio.get_running_loop().time() + timeout
    while True:
        view = await client.view(table_id)
        if predicate(view):
            return view
        if asyncio.get_running_loop().time() > deadline:
            raise TimeoutError(f"view never satisfied the condition; last version {view.version}")
        await asyncio.sleep(0.02)


async def wait_for_turn(clients, table_id: str, timeout: float = 30.0):
    """The (client, view) whose turn it is, once a hand has someone to act."""
    deadline = asyncio.get_running_loop().time() + timeout
    while True:
        for client in clients:
            view = await client.view(table_id)
            if view.legal_actions:
                return client, view
        if asyncio.get_running_loop().time() > deadline:
            raise TimeoutError("nobody got the turn")
        await asyncio.sleep(0.02)


async def settle_table(bots, spectator: StudClient, table_id: str, timeout: float = 30.0):
    """Stop dealing at a table: every bot sits out and a hand already dealt is played out.

    Returns the spectator's view once no hand is running."""
    for bot in bots:
        bot.sit_in_when_out = False
        await bot.client.sit_out(table_id)
    finishing = [asyncio.ensure_future(bot.run(1)) for bot in bots]
    try:
        return await wait_for_view(
            spectator, table_id, lambda v: not v.HasField("hand") or v.hand.complete, timeout=timeout
        )
    finally:
        for task in finishing:
            task.cancel()


@pytest.fixture(scope="session")
def self_signed(tmp_path_factory: pytest.TempPathFactory) -> TlsFiles:
    """A certificate for localhost and 127.0.0.1 and its key (openssl), for servers with TLS on."""
    if shutil.which("openssl") is None:
        pytest.skip("openssl is not installed")
    directory = tmp_path_factory.mktemp("tls")
    cert, key = directory / "cert.pem", directory / "key.pem"
    subprocess.run(
        ["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "1", "-subj", "/CN=localhost",
         "-addext", "subjectAltName=DNS:localhost,IP:127.0.0.1",
         "-addext", "basicConstraints=critical,CA:FALSE", "-keyout", str(key), "-out", str(cert)],
        check=True, capture_output=True,
    )
    return TlsFiles(cert_file=cert, key_file=key)


async def cancel_running_tournaments(service: ServiceUnderTest) -> None:
    """Cancel every tournament still running in the shared service: its players, absent once their test is
    over, would be dealt in and blinded off hand after hand (§11), and later tests that count the log's
    events would count its hands."""
    from stud_service.tournaments import Status, TournamentError

    tournaments = service.runtime.tournaments
    after: str | None = None
    while page := await tournaments.list(page_size=100, after=after):
        for state in page:
            if state.status is Status.RUNNING and state.tournament_id is not None:
                with contextlib.suppress(TournamentError):  # finished or cancelled meanwhile
                    await tournaments.cancel(state.tournament_id, by="house", reason="the test is over")
        after = page[-1].tournament_id


@pytest_asyncio.fixture(loop_scope="session")
async def tournaments_cancelled_after(grpc_service: ServiceUnderTest) -> AsyncIterator[None]:
    """Use (autouse) in a module whose tests start tournaments in the shared service."""
    yield
    await cancel_running_tournaments(grpc_service)
