"""Issue 7's structured logs on the real service: every JSON line about a table carries its table id,
and every line about a hand's events carries the hand's id (``{table}/h-{number}``), through hands played
by bots over gRPC on the session's PostgreSQL."""

from __future__ import annotations

import asyncio
import io
import json
import logging
import uuid
from collections.abc import AsyncIterator, Awaitable, Callable

import grpc
import pytest_asyncio
from grpc_fixtures import table_spec

from stud_service.auth import Role, mint_token
from stud_service.bots import Bot, StudClient
from stud_service.observability.logging import configure_logging
from stud_service.server import tables
from stud_service.server.host import ServiceHost, ServiceOptions

TOKEN_SECRET = "table-log-tests-secret-0123456789abcdef"
HANDS = 2


@pytest_asyncio.fixture
async def served_game(make_database: Callable[..., Awaitable[str]]) -> AsyncIterator[tuple[str, str]]:
    """(table id, the service's log text) after bots played HANDS hands at a fresh table."""
    logs = io.StringIO()
    root = logging.getLogger()
    level = root.level
    runtime_logger = logging.getLogger(tables.__name__)  # the runtime's modules log under it
    handler = configure_logging("json", "INFO", logs)
    runtime_logger.setLevel(logging.DEBUG)  # every applied event gets a line
    options = ServiceOptions(
        token_secret=TOKEN_SECRET,
        database_url=await make_database(migrated=False),
        listen="127.0.0.1:0",
        hand_pause_seconds=0.05,
        pool_size=4,
    )
    table_id = f"logs-{uuid.uuid4().hex[:10]}"
    try:
        async with (
            ServiceHost(options) as host,
            grpc.aio.insecure_channel(f"127.0.0.1:{host.port}") as channel,
        ):
            await StudClient(channel, mint_token(TOKEN_SECRET, "house", Role.OPERATOR)).create_table(
                table_id, table_spec()
            )
            bots = [
                Bot(StudClient(channel, mint_token(TOKEN_SECRET, name)), table_id, seat, seed=seat)
                for seat, name in enumerate(("ann", "ben", "cat"), start=1)
            ]
            for bot in bots:
                await bot.sit(10_000)
            await asyncio.wait_for(asyncio.gather(*(bot.run(HANDS) for bot in bots)), timeout=60)
        yield table_id, logs.getvalue()
    finally:
        root.removeHandler(handler)
        root.setLevel(level)
        runtime_logger.setLevel(logging.NOTSET)
        logging.captureWarnings(False)


async def test_every_line_about_a_table_carries_its_id_and_during_a_hand_the_hand_id(
    served_game: tuple[str, str],
) -> None:
    table_id, text = served_game
    about = [json.loads(raw) for raw in text.splitlines() if table_id in raw]
    assert about, "the service wrote no line about the table"
    assert all(line["table"] == table_id for line in about)

    started = {line["version"]: line["hand"] for line in about if line["msg"] == "hand started"}
    ended = {line["hand"]: line["version"] for line in about if line["msg"] == "hand ended"}
    assert list(started.values())[:HANDS] == [f"{table_id}/h-{n}" for n in range(1, HANDS + 1)]
    assert set(ended) >= {f"{table_id}/h-{n}" for n in range(1, HANDS + 1)}
    applied = [line for line in about if line["msg"] == "event applied"]
    assert applied
    checked = 0
    for line in applied:
        for first, hand in started.items():
            if hand in ended and first < line["version"] < ended[hand]:
                assert line["hand"] == hand, line  # an event inside the hand names the hand
                checked += 1
    assert checked >= 10  # cards dealt and actions of both hands were looked at
    # Between hands (seats taken before the first deal) a line names the table but no hand.
    assert any(line["hand"] is None for line in applied if line["version"] < min(started))
