"""The real service's metrics endpoint and logs after bots play a game through gRPC (the issue's "scrape the
endpoint after a demo game and check the numbers move"), on the session's PostgreSQL."""

from __future__ import annotations

import asyncio
import io
import json
import urllib.request
import uuid
from collections.abc import AsyncIterator, Awaitable, Callable
from dataclasses import dataclass

import grpc
import pytest_asyncio
from grpc_fixtures import table_spec, whole_service
from prometheus_client.parser import text_string_to_metric_families

from stud_service.auth import Role, mint_token
from stud_service.bots import Bot, StudClient
from stud_service.server.host import ServiceHost
from stud_service.server.proto_gen import table_pb2

TOKEN_SECRET = "observability-tests-secret-0123456789abcdef"
BUY_IN = 10_000
HANDS = 3


@dataclass
class Service:
    host: ServiceHost
    metrics_url: str
    channel: grpc.aio.Channel
    logs: io.StringIO

    def client(self, player: str, role: Role = Role.PLAYER) -> StudClient:
        return StudClient(self.channel, mint_token(TOKEN_SECRET, player, role))

    async def scrape(self) -> dict[tuple[str, frozenset], float]:
        def fetch() -> str:
            with urllib.request.urlopen(self.metrics_url, timeout=30) as response:
                return response.read().decode()

        text = await asyncio.to_thread(fetch)
        return {
            (sample.name, frozenset(sample.labels.items())): sample.value
            for family in text_string_to_metric_families(text)
            for sample in family.samples
        }


def total(samples: dict[tuple[str, frozenset], float], name: str, **labels: str) -> float:
    """Sum of ``name`` over every series whose labels include ``labels``."""
    wanted = set(labels.items())
    return sum(value for (sample, series), value in samples.items() if sample == name and wanted <= series)


@pytest_asyncio.fixture(scope="module", loop_scope="session")
async def service(make_database: Callable[..., Awaitable[str]]) -> AsyncIterator[Service]:
    logs = io.StringIO()
    async with whole_service(await make_database(migrated=False), TOKEN_SECRET, logs) as running:
        yield Service(running.host, running.metrics_url, running.channel, logs)


async def create_table(service: Service, action_clock_seconds: int = 30) -> str:
    table_id = f"obs-{uuid.uuid4().hex[:10]}"
    await service.client("house", Role.OPERATOR).create_table(
        table_id, table_spec(action_clock=action_clock_seconds)
    )
    return table_id


async def eventually(check: Callable[[], Awaitable[bool]], timeout: float = 30.0) -> bool:
    deadline = asyncio.get_running_loop().time() + timeout
    while not await check():
        if asyncio.get_running_loop().time() > deadline:
            return False
        await asyncio.sleep(0.05)
    return True


async def test_after_a_game_the_scrape_shows_hands_actions_latency_tables_watchers_and_pool_use(
    service: Service,
):
    before = await service.scrape()
    table_id = await create_table(service)
    bots = [
        Bot(service.client(name), table_id, seat, seed=seat)
        for seat, name in enumerate(("ann", "ben", "cat"), start=1)
    ]
    for bot in bots:
        await bot.sit(BUY_IN)
    play = asyncio.gather(*(bot.run(HANDS) for bot in bots))
    during = None
    # While the bots' watch streams are open the watcher gauge counts them.
    if await eventually(lambda: _watchers_at_least(service, len(bots))):
        during = await service.scrape()
    await asyncio.wait_for(play, timeout=60)
    after = await service.scrape()

    def moved(name: str, **labels: str) -> float:
        return total(after, name, **labels) - total(before, name, **labels)

    assert during is not None and total(during, "stud_active_watchers") >= len(bots)
    assert moved("stud_hands_started_total", variant="stud") >= HANDS
    assert moved("stud_hands_finished_total", variant="stud") >= HANDS
    accepted = sum(bot.stats.actions for bot in bots)
    refused = sum(bot.stats.refused for bot in bots)
    assert accepted > 0
    assert moved("stud_actions_total", outcome="ok") == accepted
    assert moved("stud_actions_total", outcome="error") == refused
    assert moved("stud_action_latency_seconds_count") == accepted + refused
    assert moved("stud_action_latency_seconds_sum") > 0
    assert {dict(series)["action"] for (name, series) in after if name == "stud_actions_total"} <= {
        "bring_in", "complete", "bet", "raise", "call", "check", "fold"
    }
    assert moved("stud_open_tables") >= 1
    assert moved("stud_db_pool_requests_total", pool="main") > 0
    assert total(after, "stud_db_pool_max_connections", pool="main") == 8
    # The streams closed with the game: the gauge comes back down.
    assert await eventually(lambda: _watchers_at_most(service, total(before, "stud_active_watchers")))


async def test_a_mixed_tables_hands_are_counted_under_each_hands_own_game(service: Service) -> None:
    """RULES.md §13: Razz then Stud, one hand each: the hands counters' ``variant`` is the hand's game, not
    the table's first one."""
    before = await service.scrape()
    table_id = f"obs-{uuid.uuid4().hex[:10]}"
    spec = table_spec(variant=table_pb2.VARIANT_RAZZ, hands_per_game=1)
    spec.rotation.extend([table_pb2.VARIANT_RAZZ, table_pb2.VARIANT_SEVEN_CARD_STUD])
    await service.client("house", Role.OPERATOR).create_table(table_id, spec)
    bots = [Bot(service.client(name), table_id, seat, seed=seat) for seat, name in ((1, "dan"), (2, "eve"))]
    for bot in bots:
        await bot.sit(BUY_IN)
    await asyncio.wait_for(asyncio.gather(*(bot.run(2) for bot in bots)), timeout=60)
    after = await service.scrape()

    def moved(name: str, **labels: str) -> float:
        return total(after, name, **labels) - total(before, name, **labels)

    assert moved("stud_hands_finished_total", variant="razz") >= 1
    assert moved("stud_hands_finished_total", variant="stud") >= 1


async def _watchers_at_least(service: Service, count: int) -> bool:
    return total(await service.scrape(), "stud_active_watchers") >= count


async def _watchers_at_most(service: Service, count: float) -> bool:
    return total(await service.scrape(), "stud_active_watchers") <= count


async def test_an_action_clock_running_out_moves_the_timeouts_counter(service: Service):
    """RULES.md section 7: the clock runs out, the player is checked or folded -- and it is counted."""
    before = total(await service.scrape(), "stud_timeouts_fired_total")
    table_id = await create_table(service, action_clock_seconds=1)
    for seat, name in enumerate(("dan", "eve"), start=1):
        await service.client(name).sit_down(table_id, seat, BUY_IN)

    async def fired() -> bool:
        return total(await service.scrape(), "stud_timeouts_fired_total") > before

    assert await eventually(fired, timeout=15)


async def test_the_service_logs_json_lines_without_the_token_secret_or_tokens(service: Service):
    token = mint_token(TOKEN_SECRET, "ann", Role.PLAYER)
    lines = [json.loads(line) for line in service.logs.getvalue().splitlines()]
    assert any(line["msg"] == "service started" for line in lines)
    for line in lines:
        assert {"ts", "level", "logger", "msg", "table", "hand"} <= set(line)
    text = service.logs.getvalue()
    assert TOKEN_SECRET not in text
    assert token.split(".")[0] not in text  # no JWT header, so no token of ours
