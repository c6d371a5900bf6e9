"""No crash creates or destroys money: the server is killed (SIGKILL) at many points while players buy in, top
up, leave and play hands to their end, restarted on the same database each time, and after every restart the
books balance to the unit (``audit money``) and the table plays on."""

from __future__ import annotations

import asyncio
import contextlib
import random

import grpc
import pytest
from grpc_fixtures import TOKEN_SECRET, table_spec

from stud_service.audit.money_log import audit_money
from stud_service.auth import Role, mint_token
from stud_service.bots import StudClient
from stud_service.db import open_pool
from stud_service.server.proto_gen import table_pb2
from stud_service.store import EventStore

PLAYERS = ("ann", "ben", "cat", "dan")
DEPOSIT = 200_000
KILLS = 12
TABLE = "crash-money"


@pytest.fixture
async def database(make_database) -> str:
    return await make_database(migrated=True)


async def books(url: str):
    pool = await open_pool(url, max_size=2)
    try:
        return await audit_money(EventStore(pool))
    finally:
        await pool.close()


async def churn(clients: dict[str, StudClient], rng: random.Random) -> None:
    """Players sit down, top up, leave and act at random, as fast as the server answers, until cancelled.
    Refusals (a seat taken, a hand running, a turn gone, the server going away) are part of the game."""
    while True:
        name = rng.choice(PLAYERS)
        client = clients[name]
        try:
            view = await client.view(TABLE)
            seat = next((s.seat for s in view.seats if s.player_id == name), None)
            if view.legal_actions:
                choice = rng.choice(list(view.legal_actions))
                await client.act(TABLE, view.viewer_seat, choice.type, choice.amount, view.turn)
            elif seat is None:
                free = sorted(set(range(1, 5)) - {s.seat for s in view.seats})
                if free:
                    await client.sit_down(TABLE, rng.choice(free), rng.randrange(2_000, 12_000, 500))
            elif rng.random() < 0.2:
                await client.leave(TABLE)
            elif rng.random() < 0.3:
                await client.top_up(TABLE, rng.randrange(100, 3_000, 100))
        except grpc.aio.AioRpcError:
            await asyncio.sleep(0.005)


# The killed replica's lease on the table lapses soon, so the next one deals (server.tables.ownership).
SHORT_LEASE = ("--lease-seconds", "0.3")


@pytest.mark.long
async def test_sigkill_at_many_points_never_creates_or_destroys_money(spawn_server, database) -> None:
    rng = random.Random(15)
    server = await spawn_server(database, *SHORT_LEASE)
    async with grpc.aio.insecure_channel(server.address) as channel:
        operator = StudClient(channel, mint_token(TOKEN_SECRET, "house", Role.OPERATOR))
        spec = table_spec(action_clock=1, play_money=False, currency_code="USD")
        spec.rake.CopyFrom(
            table_pb2.RakeRule(
                basis_points=500, cap_2_players=100, cap_3_to_4_players=200, cap_5_or_more_players=300
            )
        )
        await operator.create_table(TABLE, spec)
        for name in PLAYERS:
            await operator.deposit(name, DEPOSIT)
    hands_seen = set()
    for kill in range(KILLS):
        if kill:
            server = await spawn_server(
                database, "--rake-sweep-seconds", str(rng.choice([0.05, 0.3, 5])), *SHORT_LEASE
            )
        async with grpc.aio.insecure_channel(server.address) as channel:
            clients = {name: StudClient(channel, mint_token(TOKEN_SECRET, name)) for name in PLAYERS}
            workers = [asyncio.ensure_future(churn(clients, random.Random(rng.random()))) for _ in range(3)]
            # Early kills land in the first requests' commits; later ones anywhere in play.
            await asyncio.sleep(rng.choice([0.0, 0.002, 0.02]) if kill % 3 == 0 else rng.uniform(0.1, 1.2))
            server.kill()
            for worker in workers:
                worker.cancel()
            for worker in workers:
                with contextlib.suppress(asyncio.CancelledError):
                    await worker
        report = await books(database)
        assert report.ok, [str(d) for d in report.discrepancies][:5]
        usd = report.totals["USD"]
        assert usd.deposits == DEPOSIT * len(PLAYERS) and usd.withdrawals == 0 and usd.difference == 0
        (table,) = report.tables.values()
        hands_seen.add(table.hands_ended)

    # Once the faults stop, the table plays on by itself and everyone can be paid out.
    server = await spawn_server(database, "--rake-sweep-seconds", "0.05", *SHORT_LEASE)
    async with grpc.aio.insecure_channel(server.address) as channel:
        clients = {name: StudClient(channel, mint_token(TOKEN_SECRET, name)) for name in PLAYERS}
        workers = [asyncio.ensure_future(churn(clients, random.Random(kill))) for kill in range(2)]
        # Until a raked hand has ended after the faults (churn folds many hands before any rake: at most
        # a minute), so the checks below see money moved by every kind of move.
        for _ in range(120):
            await asyncio.sleep(0.5)
            (playing,) = (await books(database)).tables.values()
            if playing.rake_taken > 0 and playing.hands_ended > max(hands_seen):
                break
        for worker in workers:
            worker.cancel()
        await asyncio.gather(*workers, return_exceptions=True)
        for client in clients.values():
            with contextlib.suppress(grpc.aio.AioRpcError):
                await client.leave(TABLE)
    report = await books(database)
    assert report.ok and report.totals["USD"].difference == 0
    (table,) = report.tables.values()
    # The kills fell across every kind of move: hands ended, and players bought in, topped up and left.
    assert max(hands_seen) >= 1 and table.hands_ended > max(hands_seen)
    assert table.buy_ins > 0 and table.top_ups > 0 and table.cash_outs > 0 and table.rake_taken > 0
