"""HTTP/2 keepalive against a real server on a loopback port: clients that ping keep their watch streams,
and the server's own pings notice a client that stopped answering.

Intervals are shrunk (a client pinging every second, a server pinging every 0.2 s) so each test takes
seconds: grpc's default policy, which the server had before, ends a connection on the third ping sooner
than 5 minutes after the previous one, about 4 s into these tests, which hold their streams for 7.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import signal
import subprocess
import sys
import textwrap
from collections.abc import AsyncIterator, Awaitable, Callable

import grpc
import pytest
import pytest_asyncio
from grpc_fixtures import CREATED_VERSION, TOKEN_SECRET, ServerProcess, ServiceUnderTest

from stud_service.auth import mint_token
from stud_service.bots import StudClient
from stud_service.bots.client import events_of
from stud_service.server.api.table_service import TableService
from stud_service.server.grpc.app import RunningServer, start_server
from stud_service.server.grpc.keepalive import KeepalivePolicy
from stud_service.server.tables.runtime import TableRuntime
from stud_service.server.tables.settings import RuntimeSettings

CLIENT_PING_MS = 1_000  # grpc's client sends keepalive pings a second apart at the most
# A client pinging every second and waiting for no data (max_pings_without_data 0 lets it keep pinging a
# stream the server is quiet on), with or without calls in flight.
PINGING_CLIENT = [
    ("grpc.keepalive_time_ms", CLIENT_PING_MS),
    ("grpc.keepalive_timeout_ms", 5_000),
    ("grpc.keepalive_permit_without_calls", 1),
    ("grpc.http2.max_pings_without_data", 0),
]
# Well below the client's interval: a busy machine may deliver two pings close together, and a server
# sending nothing forgives no strike.
ACCEPTED_PING_SECONDS = CLIENT_PING_MS / 5000
# grpc's default policy ends such a connection on its fourth ping (the third too soon), about 4 s in.
HOLD_SECONDS = 7.0


class Replica:
    """A second server on the suite's database, with its own keepalive policy."""

    def __init__(self, running: RunningServer, runtime: TableRuntime) -> None:
        self.running = running
        self.runtime = runtime

    @property
    def address(self) -> str:
        return f"127.0.0.1:{self.running.port}"


@pytest_asyncio.fixture
async def start_replica(grpc_service: ServiceUnderTest) -> AsyncIterator[Callable[..., Awaitable[Replica]]]:
    started: list[Replica] = []

    async def start(policy: KeepalivePolicy) -> Replica:
        runtime = TableRuntime(grpc_service.store, RuntimeSettings(auto_deal=False))
        running = await start_server(TableService(runtime, TOKEN_SECRET), "127.0.0.1:0", keepalive=policy)
        running.on_shutdown.append(runtime.close)
        started.append(Replica(running, runtime))
        return started[-1]

    yield start
    for replica in started:
        await replica.running.shutdown(0)


async def test_pinging_clients_keep_their_watch_streams_and_idle_connections(
    grpc_service: ServiceUnderTest,
    spawn_server: Callable[..., Awaitable[ServerProcess]],
    new_table: Callable[..., Awaitable[str]],
) -> None:
    server = await spawn_server(
        grpc_service.database_url, "--keepalive-min-client-ping-seconds", str(ACCEPTED_PING_SECONDS)
    )
    table_id = await new_table()
    async with (
        grpc.aio.insecure_channel(server.address, options=PINGING_CLIENT) as watching,
        grpc.aio.insecure_channel(server.address, options=PINGING_CLIENT) as idle,
    ):
        stream = StudClient(watching, mint_token(TOKEN_SECRET, "wendy")).watch(table_id)
        first = await asyncio.wait_for(stream.read(), 10)
        assert first.view.version == CREATED_VERSION
        idler = StudClient(idle, mint_token(TOKEN_SECRET, "idle"))
        await idler.get_table(table_id)
        # Nothing happens at the table: both connections carry only the client's pings.
        states = []
        for _ in range(int(HOLD_SECONDS / 0.1)):
            await asyncio.sleep(0.1)
            states.append(idle.get_state())
        # A GOAWAY would have taken the idle channel out of READY (to IDLE, then connecting again).
        assert set(states) == {grpc.ChannelConnectivity.READY}
        await grpc_service.client("alice").sit_down(table_id, 1, 10_000)  # through another server
        message = await asyncio.wait_for(stream.read(), 10)
        assert [event.type for event in events_of(message)] == ["PlayerSeated"]
        stream.cancel()
        await idler.get_table(table_id)


async def test_a_client_pinging_more_often_than_allowed_is_sent_away(
    start_replica: Callable[..., Awaitable[Replica]], new_table: Callable[..., Awaitable[str]]
) -> None:
    replica = await start_replica(KeepalivePolicy(min_client_ping_seconds=5 * CLIENT_PING_MS / 1000))
    table_id = await new_table()
    async with grpc.aio.insecure_channel(replica.address, options=PINGING_CLIENT) as channel:
        stream = StudClient(channel, mint_token(TOKEN_SECRET, "eager")).watch(table_id)
        await asyncio.wait_for(stream.read(), 10)
        with pytest.raises(grpc.aio.AioRpcError) as ended:
            await asyncio.wait_for(stream.read(), 10)
        assert ended.value.code() == grpc.StatusCode.UNAVAILABLE
        assert "too many pings" in (ended.value.details() or "").lower()


_FROZEN_WATCHER = textwrap.dedent(
    """
    import asyncio, sys
    import grpc
    from stud_service.bots import StudClient

    async def main(address, token, table_id):
        async with grpc.aio.insecure_channel(address) as channel:
            stream = StudClient(channel, token).watch(table_id)
            await stream.read()
            print("watching", flush=True)
            await asyncio.sleep(3600)

    asyncio.run(main(*sys.argv[1:]))
    """
)


async def test_the_server_closes_the_streams_of_a_client_that_stopped_answering(
    start_replica: Callable[..., Awaitable[Replica]], new_table: Callable[..., Awaitable[str]]
) -> None:
    replica = await start_replica(KeepalivePolicy(ping_seconds=0.2, ping_timeout_seconds=0.5))
    table_id = await new_table()
    client = subprocess.Popen(
        [sys.executable, "-c", _FROZEN_WATCHER, replica.address, mint_token(TOKEN_SECRET, "zoe"), table_id],
        stdout=subprocess.PIPE,
        env={**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)},
    )
    try:
        assert client.stdout is not None
        line = await asyncio.wait_for(asyncio.to_thread(client.stdout.readline), 30)
        assert line == b"watching\n"
        assert replica.runtime.watcher_count() == 1
        # Stopped, not killed: its kernel still holds the socket open and acknowledges TCP, so only a
        # ping the process itself must answer can tell the server it is gone.
        client.send_signal(signal.SIGSTOP)
        await _until(lambda: replica.runtime.watcher_count() == 0, timeout=10)
    finally:
        client.kill()
        with contextlib.suppress(ProcessLookupError):
            client.send_signal(signal.SIGCONT)
        client.wait(timeout=10)


async def _until(condition: Callable[[], bool], timeout: float) -> None:
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    while not condition():
        if loop.time() > deadline:
            raise TimeoutError("the condition never held")
        await asyncio.sleep(0.05)


@pytest.mark.parametrize(
    "setting", [{"min_client_ping_seconds": 0}, {"ping_seconds": -1}, {"ping_timeout_seconds": 1e12}]
)
def test_keepalive_settings_out_of_range_are_refused(setting: dict[str, float]) -> None:
    with pytest.raises(ValueError, match=next(iter(setting))):
        KeepalivePolicy(**setting)
