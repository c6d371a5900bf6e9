"""Money tables played to the end on a real Citus cluster (tests/citus_cluster.py), through the service as
players use it: players funded through the cashier buy in, bots play, the service is killed (SIGKILL) in
the middle of hands and started again on the same port, the bots play on through it, then everyone cashes
out; every hand verifies, every chip bought in is at a table, cashed out or raked, and the money audit
reconciles every account, table and house stream to the unit. Also the demo, end to end, on the cluster."""

from __future__ import annotations

import asyncio
import contextlib
import os
import signal
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import grpc
import pytest
from citus_cluster import CitusCluster
from grpc_fixtures import NEXT_HAND_PAUSE, TOKEN_SECRET, ServerProcess, free_port, serve_command, table_spec
from grpc_fixtures import wait_until_serving as serving_at
from scaleout_play import LoggedTable, check_hands_and_chips
from sealing_keys import keyring_file, sealed_store

from stud_service.audit.money_log import audit_money
from stud_service.auth import Role, mint_token
from stud_service.bots import StudClient
from stud_service.bots.player import Bot
from stud_service.db import open_pool
from stud_service.server.proto_gen import table_pb2

pytestmark = pytest.mark.citus

TABLES = 3
VARIANTS = (table_pb2.VARIANT_SEVEN_CARD_STUD, table_pb2.VARIANT_STUD_HI_LO, table_pb2.VARIANT_RAZZ)
SEATS = (1, 2, 3)
BUY_IN = 20_000
DEPOSIT = 50_000
LEASE_SECONDS = 2
HANDS_BEFORE_KILL = 2  # per table
HANDS_AFTER_RESTART = 2  # per table
KILL_ATTEMPTS = 5  # kills until one lands mid-hand (one between hands restarts the service and tries again)
WAIT_SECONDS = 180  # generous: a loaded 2-core machine runs three databases, the service and the bots


class Service:
    """``stud-service serve`` on the cluster, started again on the same port after a kill."""

    def __init__(self, url: str, logs: Path) -> None:
        self.url = url
        self.logs = logs
        self.port = free_port()
        self.current: ServerProcess | None = None
        self.starts = 0

    async def start(self) -> None:
        self.starts += 1
        log_path = self.logs / f"service-{self.starts}.log"
        env = {**os.environ, "STUD_TOKEN_SECRET": TOKEN_SECRET, "STUD_TOKEN_HS256": "on",
               "STUD_KEYS_FILE": str(keyring_file())}
        process = subprocess.Popen(
            [*serve_command(self.url, f"127.0.0.1:{self.port}"), "--hand-pause-seconds", str(NEXT_HAND_PAUSE),
             "--lease-seconds", str(LEASE_SECONDS)],
            env=env, stdout=subprocess.DEVNULL, stderr=log_path.open("wb"),
        )
        self.current = ServerProcess(process, self.port, log_path)
        await serving_at(self.current, timeout=60)

    def kill(self) -> None:
        assert self.current is not None
        self.current.kill()

    def stop(self) -> None:
        if self.current is not None and self.current.process.poll() is None:
            self.current.process.send_signal(signal.SIGTERM)
            with contextlib.suppress(subprocess.TimeoutExpired):
                self.current.process.wait(30)
            self.current.kill()


@pytest.fixture
def service(citus: CitusCluster, tmp_path: Path) -> Iterator[Service]:
    running = Service(citus.url, tmp_path)
    yield running
    running.stop()


async def wait_until(condition, what: str) -> None:
    deadline = asyncio.get_running_loop().time() + WAIT_SECONDS
    while not await condition():
        if asyncio.get_running_loop().time() > deadline:
            raise AssertionError(f"timed out waiting until {what}")
        await asyncio.sleep(0.2)


async def play_through_restarts(
    channel: grpc.aio.Channel, table_id: str, seat: int, stop: asyncio.Event
) -> int:
    """One seat's bot, started again whenever the service goes away; the actions it made."""
    actions = 0
    token = mint_token(TOKEN_SECRET, f"{table_id}-p{seat}")
    while not stop.is_set():
        bot = Bot(StudClient(channel, token), table_id, seat, seed=seat)
        try:
            await bot.run(hands=10**9, stop=stop)
        except grpc.aio.AioRpcError as error:
            if error.code() not in (grpc.StatusCode.UNAVAILABLE, grpc.StatusCode.CANCELLED,
                                    grpc.StatusCode.DEADLINE_EXCEEDED):
                raise
            await asyncio.sleep(0.5)  # the service is away: try again
        actions += bot.stats.actions
    return actions


@pytest.mark.long
@pytest.mark.timeout(600)  # a loaded machine: three databases, the service, the bots, twice the wait bound
async def test_money_tables_play_to_the_end_through_a_kill_and_restart_and_reconcile_on_citus(
    citus: CitusCluster, service: Service,
) -> None:
    await service.start()
    pool = await open_pool(citus.url, max_size=4)
    store = sealed_store(pool)
    tables = {f"c{t}": LoggedTable(f"c{t}") for t in range(TABLES)}
    stop = asyncio.Event()
    tasks: list[asyncio.Task[int]] = []
    channel = grpc.aio.insecure_channel(f"127.0.0.1:{service.port}")
    try:
        operator = StudClient(channel, mint_token(TOKEN_SECRET, "house", Role.OPERATOR))
        for t, table_id in enumerate(tables):
            spec = table_spec(variant=VARIANTS[t], play_money=False, action_clock=5)
            await operator.create_table(table_id, spec)
            for seat in SEATS:
                player = f"{table_id}-p{seat}"
                await operator.deposit(player, DEPOSIT)
                await StudClient(channel, mint_token(TOKEN_SECRET, player)).sit_down(table_id, seat, BUY_IN)
        tasks = [asyncio.create_task(play_through_restarts(channel, table_id, seat, stop))
                 for table_id in tables for seat in SEATS]

        async def refreshed() -> None:
            for table in tables.values():
                await table.refresh(store)
            for task in tasks:
                if task.done() and task.exception() is not None:
                    raise task.exception()

        async def warmed_up_and_mid_hand() -> bool:
            await refreshed()
            return (all(len(t.hands_ended()) >= HANDS_BEFORE_KILL for t in tables.values())
                    and any(t.mid_hand() for t in tables.values()))

        # Killed mid-hand: the logs are read table by table, slowly on a busy host, so every hand seen
        # running may have ended before the kill; then the service is started again, killed at a later hand.
        for _attempt in range(KILL_ATTEMPTS):
            await wait_until(warmed_up_and_mid_hand, f"every table played {HANDS_BEFORE_KILL} hands")
            service.kill()
            await refreshed()
            if any(table.state.hand is not None for table in tables.values()):
                break
            await service.start()
        at_kill = {table_id: len(table.hands_ended()) for table_id, table in tables.items()}
        assert any(table.state.hand is not None for table in tables.values()), "between hands, every try"
        await service.start()

        async def played_on() -> bool:
            await refreshed()
            return all(len(t.hands_ended()) >= at_kill[i] + HANDS_AFTER_RESTART for i, t in tables.items())

        await wait_until(played_on, f"every table played {HANDS_AFTER_RESTART} more hands after the restart")
        stop.set()
        actions = await asyncio.gather(*tasks)
        assert all(count > 0 for count in actions)
        for table_id in tables:  # everyone cashes out, at the end of the hand if one runs
            for seat in SEATS:
                await StudClient(channel, mint_token(TOKEN_SECRET, f"{table_id}-p{seat}")).leave(table_id)

        async def everyone_left() -> bool:
            await refreshed()
            return all(not t.state.seats for t in tables.values())

        await wait_until(everyone_left, "every player cashed out")
    finally:
        stop.set()
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
        await channel.close()
    service.stop()
    try:
        for table in tables.values():
            await table.refresh(store)
            await check_hands_and_chips(store, table)
        report = await audit_money(store)
        assert report.ok, report
    finally:
        await pool.close()


@pytest.mark.timeout(400)
def test_the_demo_plays_a_raked_money_table_to_the_end_and_balances_on_citus(citus: CitusCluster) -> None:
    """Players funded through the cashier, the rake swept into the house's accounts, everyone cashed out:
    the demo's summary reconciles the books. (``demo --tournament`` also balances on a cluster; it takes
    two minutes here, more than this suite's share.)"""
    done = subprocess.run(
        [sys.executable, "-m", "stud_service.cli", "demo", "--hands", "3", "--players", "3",
         "--database-url", citus.url, "--web-listen", "127.0.0.1:0"],
        capture_output=True, text=True, timeout=WAIT_SECONDS,
    )
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    assert "balanced to the cent" in done.stdout, done.stdout[-3000:]
