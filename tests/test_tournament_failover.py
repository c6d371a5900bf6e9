"""A running tournament survives the SIGKILL of its owner (real ``serve`` processes on one PostgreSQL): during
a level change, during balancing and during hand for hand the owner is killed; the other replica takes its
leases once they expire and the tournament plays on there from the log (the level's start where the last
level ended, the moves and the hand-for-hand round carried out, hands reported once). Then the money
reconciles and the tournament verifies, hand by hand.

The tournament is created and its players registered through a replica of the test's own (dealing off: it
drives nothing); the bots play their seats through the public table API of the live servers, wherever the
tournament seats them."""

from __future__ import annotations

import asyncio
import contextlib
import random
import time
from collections.abc import Awaitable, Callable
from typing import Any

import grpc
import pytest
from grpc_fixtures import TOKEN_SECRET, ServerProcess
from tournament_replicas import fund, new_id, replica

from stud_service.audit.money_log import audit_money
from stud_service.audit.tournament_verify import verify_tournament
from stud_service.auth import mint_token
from stud_service.bots import StudClient, random_strategy
from stud_service.server.tables.runtime import TableRuntime
from stud_service.server.tournaments.live import stream_id_for
from stud_service.tournaments import Level, Status, TournamentConfig, TournamentKind, event_from_json
from stud_service.tournaments.events import (
    HandForHandStarted,
    LevelStarted,
    PlayerMoved,
    TableBroken,
    TableHandDealt,
    TableHandEnded,
    TournamentCancelled,
)

LEASE_SECONDS = 4
LEVELS = (Level(5, 10, 20, 40, 1), Level(10, 20, 40, 80, 1), Level(20, 50, 100, 200, 1),
          Level(50, 100, 200, 400, 1), Level(100, 200, 400, 800, 1))
PLAY_SECONDS = 300  # a whole sit & go of bots, with a takeover in it, on a loaded machine
ATTEMPTS = 3  # tournaments played until the moment to kill in comes (a bubble may burst in one hand)
# A tournament or two of real servers with a takeover: longer than the suite's default bound.
pytestmark = [pytest.mark.timeout(900), pytest.mark.long]


@pytest.fixture
async def database(make_database) -> str:
    return await make_database(migrated=True)


async def lease_owner(runtime: TableRuntime, stream_id: str) -> str | None:
    async with runtime.store.pool.connection() as conn:
        cur = await conn.execute("SELECT owner FROM table_leases WHERE stream_id = %s AND expires_at > now()",
                                 (stream_id,))
        row = await cur.fetchone()
    return None if row is None else str(row[0])


async def events_of(runtime: TableRuntime, tournament_id: str) -> list[Any]:
    stored = await runtime.store.read_stream(stream_id_for(tournament_id))
    return [event_from_json(item.payload) for item in stored]


async def play_seat(player: str, tournament_id: str, runtime: TableRuntime, servers: list[ServerProcess],
                    rng: random.Random) -> None:
    """One bot: it acts at its seat, wherever the tournament has it, through any live server."""
    channels = [grpc.aio.insecure_channel(server.address) for server in servers]
    clients = [StudClient(channel, mint_token(TOKEN_SECRET, player)) for channel in channels]
    try:
        while True:
            await asyncio.sleep(0.05)
            state = await runtime.tournaments.state(tournament_id)
            if state.status is not Status.RUNNING:
                continue
            seat_of = state.seat_of.get(player)
            if seat_of is None:
                continue
            table_id, seat = seat_of
            for server, client in zip(servers, clients, strict=True):
                if server.process.poll() is not None:
                    continue
                with contextlib.suppress(grpc.aio.AioRpcError):
                    view = await client.view(table_id)
                    if view.viewer_seat == seat and view.legal_actions:
                        choice = random_strategy(view, rng)
                        await client.act(table_id, seat, choice.type, choice.amount, view.turn)
                    break
    finally:
        for channel in channels:
            await channel.close()


async def wait_until(condition: Callable[[], Awaitable[bool]], seconds: float, what: str) -> None:
    deadline = time.monotonic() + seconds
    while not await condition():
        assert time.monotonic() < deadline, f"waited {seconds} s for {what}"
        await asyncio.sleep(0.1)


# What to wait for before the kill, and whose lease's owner is killed then: (events) -> stream id or None.
def at_level_change(events: list[Any]) -> str | None:
    first = next((event for event in events if isinstance(event, LevelStarted)), None)
    if first is None or time.time() * 1000 < first.starts_ms + 60_000 - 1_500:
        return None
    return "tournament"  # the level ends in a moment: its clock's owner dies


def at_balancing(events: list[Any]) -> str | None:
    moved = [event for event in events if isinstance(event, PlayerMoved | TableBroken)]
    if not moved:
        return None
    last = moved[-1]
    return f"tables/{last.to_table}" if isinstance(last, PlayerMoved) else f"tables/{last.table_id}"


def at_hand_for_hand(events: list[Any]) -> str | None:
    return "tournament" if any(isinstance(event, HandForHandStarted) for event in events) else None


# Short stacks where the tournament is played to its end: with 500 the last two or three players passed
# chips to and fro for hundreds of hands until the levels rose (two minutes and more). Three big bets of the
# first level where any eliminations lead to a move or a broken table; five where the bubble must come one
# player at a time (two out in one hand at five left skip hand for hand). Deep stacks where the first level
# must last its minute.
KILLS = {
    "level_change": (at_level_change, {"starting_stack": 3_000}),
    "balancing": (at_balancing, {"starting_stack": 120}),
    "hand_for_hand": (at_hand_for_hand, {"payouts": (5_000, 3_000, 2_000), "starting_stack": 200}),
}


@pytest.mark.parametrize("moment", sorted(KILLS))
async def test_the_owner_is_killed_and_the_tournament_plays_on_and_reconciles(
    spawn_server: Callable[..., Awaitable[ServerProcess]], database: str, moment: str
) -> None:
    trigger, fields = KILLS[moment]
    lease_flag = ("--lease-seconds", str(LEASE_SECONDS))
    servers = [await spawn_server(database, *lease_flag), await spawn_server(database, *lease_flag)]
    ids = {server.replica_id(): server for server in servers}
    async with replica(database) as runtime:
        for attempt in range(ATTEMPTS):
            players = [f"a{attempt}p{n}" for n in range(1, 7)]
            await fund(runtime, players, 10_000)
            tournament = new_id()
            config = TournamentConfig(**{
                "kind": TournamentKind.SIT_AND_GO, "min_entrants": 6, "max_entrants": 6, "seats_per_table": 3,
                "buy_in": 1_000, "fee": 100, "currency": "USD", "levels": LEVELS, "action_clock_seconds": 30,
                **fields,
            }).validate()
            await runtime.tournaments.create(tournament, config, by="house")
            bots = [asyncio.create_task(play_seat(player, tournament, runtime, servers, random.Random(n)))
                    for n, player in enumerate(players)]
            try:
                for player in players:
                    await runtime.tournaments.register(tournament, player)
                killed = await kill_at(runtime, tournament, trigger, ids)
                if killed is None:
                    continue  # the moment never came in this one: another tournament
                killed_at = time.monotonic()

                if moment == "level_change":
                    await played_at_level_two(runtime, tournament)
                    # Deep stacks would play on for many levels: the operator stops it (§11 Cancellation).
                    await runtime.tournaments.cancel(tournament, by="house", reason="the test is over")
                    ended = Status.CANCELLED
                else:
                    ended = Status.FINISHED

                async def over(tournament: str = tournament, ended: Status = ended) -> bool:
                    return (await runtime.tournaments.state(tournament)).status is ended

                await wait_until(over, PLAY_SECONDS, "the tournament to end on the other replica")
                print(f"{moment}: killed in tournament {attempt + 1}, {ended.value.lower()}"
                      f" {time.monotonic() - killed_at:.1f} s after the kill")
            finally:
                for bot in bots:
                    bot.cancel()
                await asyncio.gather(*bots, return_exceptions=True)
            events = await events_of(runtime, tournament)
            if moment == "level_change":
                first, second = [event for event in events if isinstance(event, LevelStarted)][:2]
                assert second.starts_ms == first.starts_ms + 60_000  # from the log: no drift
            report = await audit_money(runtime.store)
            assert report.ok, report.discrepancies
            verified = await verify_tournament(runtime.store, tournament)
            assert verified.ok, verified.first_problem()
            state = await runtime.tournaments.state(tournament)
            if state.status is Status.FINISHED:
                assert sum(state.prizes_won.values()) == 6_000
            else:
                (cancelled,) = [event for event in events if isinstance(event, TournamentCancelled)]
                assert sum(amount for _player, amount in cancelled.payouts) == 6_000
            return
    pytest.fail(f"no {moment} came in {ATTEMPTS} tournaments")


async def played_at_level_two(runtime: TableRuntime, tournament: str) -> None:
    """Wait until a hand was dealt at the second level (on the replica left) and has ended."""
    async def dealt_and_ended() -> bool:
        events = await events_of(runtime, tournament)
        dealt = [(event.table_id, event.hand) for event in events
                 if isinstance(event, TableHandDealt) and event.index == 1]
        ended = {(event.table_id, event.hand) for event in events if isinstance(event, TableHandEnded)}
        return any(hand in ended for hand in dealt)

    await wait_until(dealt_and_ended, PLAY_SECONDS, "a hand at the second level")


async def kill_at(runtime: TableRuntime, tournament: str, trigger: Callable[[list[Any]], str | None],
                  ids: dict[str, ServerProcess]) -> ServerProcess | None:
    """SIGKILL the owner of the lease ``trigger`` names when it names one; None if the tournament ends
    first."""
    deadline = time.monotonic() + PLAY_SECONDS
    while time.monotonic() < deadline:
        events = await events_of(runtime, tournament)
        named = trigger(events)
        if named is not None:
            stream_id = stream_id_for(tournament) if named == "tournament" else named
            owner = await lease_owner(runtime, stream_id)
            if owner in ids:
                ids[owner].kill()
                return ids[owner]
        if (await runtime.tournaments.state(tournament)).status is not Status.RUNNING:
            return None
        await asyncio.sleep(0.05)
    raise AssertionError("the tournament neither ended nor came to the moment to kill in")
