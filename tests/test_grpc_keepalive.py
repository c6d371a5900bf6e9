"""HTTP/2 keepalive against a real server on a loopback port: clients that ping keep their watch streams,
and the server's own pings notice a client that stopped answering.

Intervals are shrunk (tenths of seconds instead of seconds) so each test takes seconds: grpc's default
policy, which the server had before, ends a connection on the third ping sooner than 5 minutes after the
previous one, well inside the time these tests hold their streams.
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
import pytest_asyncio
from grpc_fixtures import TOKEN_SECRET, ServerProcess, ServiceUnderTest

from stud_service.auth import mint_token
from stud_service.bots import StudClient
from stud_service.bots.client import events_of
from stud_service.server.app import RunningServer, start_server
from stud_service.server.keepalive import KeepalivePolicy
from stud_service.server.runtime import RuntimeSettings, TableRuntime
from stud_service.server.service import TableService

CLIENT_PING_MS = 200
# The client pings every 0.2 s and waits for no data: an eager keepalive set-up (max_pings_without_data
# 0 lets a client keep pinging a stream the server is quiet on).
PINGING_CLIENT = [
    ("grpc.keepalive_time_ms", CLIENT_PING_MS),
    ("grpc.keepalive_timeout_ms", 5_000),
    ("grpc.keepalive_permit_without_calls", 1),
    ("grpc.http2.max_pings_without_data", 0),
]
HOLD_SECONDS = 3.0  # 15 client pings; grpc's default policy would have closed the connection on the third


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
        runtime = TableRuntime(grpc_service.store, RuntimeSettings(auto_deal=False, discover_interval=0))
        running = await start_server(TableService(runtime, TOKEN_SECRET), "127.0.0.1:0", keepalive=policy)
        running.on_shutdown.append(runtime.close)
        started.append(Replica(running, runtime))
        return started[-1]

    yield start
    for replica in started:
        await replica.running.shutdown(0)


async def _hold_a_watch_while_pinging(address: str, table_id: str, seat_someone: StudClient) -> None:
    async with grpc.aio.insecure_channel(address, options=PINGING_CLIENT) as channel:
        stream = StudClient(channel, mint_token(TOKEN_SECRET, "wendy")).watch(table_id)
        first = await asyncio.wait_for(stream.read(), 10)
        assert first.view.version == 1
        # Nothing happens at the table: the connection carries only the client's pings.
        await asyncio.sleep(HOLD_SECONDS)
        await seat_someone.sit_down(table_id, 1, 10_000)  # through another server: it arrives by NOTIFY
        message = await asyncio.wait_for(stream.read(), 10)
        assert [event.type for event in events_of(message)] == ["PlayerSeated"]
        stream.cancel()


async def test_a_client_pinging_often_keeps_its_watch_stream(
    grpc_service: ServiceUnderTest,
    start_replica: Callable[..., Awaitable[Replica]],
    new_table: Callable[..., Awaitable[str]],
) -> None:
    replica = await start_replica(KeepalivePolicy(min_client_ping_seconds=CLIENT_PING_MS / 2000))
    await _hold_a_watch_while_pinging(replica.address, await new_table(), grpc_service.client("alice"))


async def test_serve_takes_the_accepted_ping_interval_from_its_settings(
    grpc_service: ServiceUnderTest,
    spawn_server: Callable[..., Awaitable[ServerProcess]],
    new_table: Callable[..., Awaitable[str]],
) -> None:
    server = await spawn_server(
        grpc_service.database_url, "--keepalive-min-client-ping-seconds", str(CLIENT_PING_MS / 2000)
    )
    await _hold_a_watch_while_pinging(server.address, await new_table(), grpc_service.client("bob"))


async def test_a_pinging_client_without_calls_keeps_its_connection(
    start_replica: Callable[..., Awaitable[Replica]], new_table: Callable[..., Awaitable[str]]
) -> None:
    replica = await start_replica(KeepalivePolicy(min_client_ping_seconds=CLIENT_PING_MS / 2000))
    table_id = await new_table()
    async with grpc.aio.insecure_channel(replica.address, options=PINGING_CLIENT) as channel:
        client = StudClient(channel, mint_token(TOKEN_SECRET, "idle"))
        await client.get_table(table_id)
        states = []
        for _ in range(int(HOLD_SECONDS / 0.1)):
            await asyncio.sleep(0.1)
            states.append(channel.get_state())
        # A GOAWAY would have taken the channel out of READY (to IDLE, then connecting again).
        assert set(states) == {grpc.ChannelConnectivity.READY}
        await client.get_table(table_id)


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
