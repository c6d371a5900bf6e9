"""A self-exclusion or time-out takes the player out of every tournament not yet started, buy-in and fee
refunded through the ledger (docs/player-protection.md, "Self-exclusion and time-outs"), over real servers,
clients and PostgreSQL: at once from the call that records it, over both ports; and, when the replica dies
between the exclusion and the unregistrations (SIGKILL), by whoever looks next on the replica after it: a
sit & go's last registration, a scheduled tournament's start, and the periodic sweep. Doing it again undoes
nothing twice, and the books balance.
"""

from __future__ import annotations

import asyncio
import contextlib
import time
import uuid

import grpc
import pytest
from google.protobuf import duration_pb2, timestamp_pb2
from grpc_fixtures import TOKEN_SECRET, TRANSPORTS

from stud_service.audit.money_log import audit_money
from stud_service.auth import Role, mint_token
from stud_service.bots import StudClient, error_reason
from stud_service.bots.client import new_request_id
from stud_service.db import open_pool
from stud_service.ledger import protection
from stud_service.ledger.book import Ledger
from stud_service.server.proto_gen import player_protection_service_pb2 as pb
from stud_service.server.proto_gen import table_pb2, tournament_pb2, tournament_service_pb2
from stud_service.store import EventStore

T = tournament_service_pb2
BUY_IN, FEE, DEPOSIT = 1_000, 100, 10_000
DAY_S = 86_400
SCHEDULED_IN_S = 25  # a scheduled tournament's start: after the restart, soon enough for a test


@pytest.fixture(autouse=True)
def _cancelled_after(tournaments_cancelled_after: None) -> None:
    """The tournaments a test started stop with it (grpc_fixtures.cancel_running_tournaments)."""


@pytest.fixture
async def database(make_database) -> str:
    return await make_database(migrated=True)


def someone(name: str) -> str:
    return f"{name}-{uuid.uuid4().hex[:6]}"


def structure(entrants: int = 3, start_s: float | None = None) -> tournament_pb2.Tournament:
    """A $10 + $1 sit & go of ``entrants`` (scheduled ``start_s`` seconds from now if given)."""
    stakes = table_pb2.Stakes(ante=5, bring_in=10, small_bet=20, big_bet=40)
    spec = tournament_pb2.Tournament(
        display_name="Exclusions", max_entrants=entrants, seats_per_table=min(entrants, 8),
        starting_stack=1_000, buy_in=BUY_IN, fee=FEE, currency_code="USD",
        levels=[tournament_pb2.TournamentLevel(stakes=stakes, duration=duration_pb2.Duration(seconds=600))])
    if start_s is not None:
        spec.kind = tournament_pb2.TOURNAMENT_KIND_SCHEDULED
        spec.start_time.CopyFrom(timestamp_pb2.Timestamp(seconds=int(time.time() + start_s)))
    return spec


async def create(operator: StudClient, name: str, **fields) -> str:
    tournament_id = f"{name}-{uuid.uuid4().hex[:8]}"
    await operator.tournaments.CreateTournament(T.CreateTournamentRequest(
        tournament=structure(**fields), tournament_id=tournament_id, request_id=new_request_id()),
        metadata=operator.metadata)
    return f"tournaments/{tournament_id}"


async def register(client: StudClient, tournament: str) -> None:
    await client.tournaments.RegisterTournament(T.RegisterTournamentRequest(
        name=tournament, request_id=new_request_id()), metadata=client.metadata)


async def tournament_of(client: StudClient, tournament: str) -> tournament_pb2.Tournament:
    return await client.tournaments.GetTournament(T.GetTournamentRequest(name=tournament),
                                                  metadata=client.metadata)


async def registered(client: StudClient, tournament: str) -> bool:
    view = await client.tournaments.GetTournamentView(T.GetTournamentViewRequest(name=tournament),
                                                      metadata=client.metadata)
    return view.registered


async def unregistrations(store: EventStore, tournament: str) -> list[dict]:
    events = await store.read_stream(tournament)
    return [event.payload for event in events if event.payload["type"] == "PlayerUnregistered"]


@pytest.mark.parametrize("transport", TRANSPORTS)
async def test_an_exclusion_unregisters_the_player_from_every_tournament_not_started_and_refunds(
        grpc_service, operator, transport):
    ann, ben = someone("ann"), someone("ben")
    ann_client, ben_client = grpc_service.client(ann, transport=transport), grpc_service.client(ben)
    for player in (ann, ben):
        await operator.deposit(player, DEPOSIT)
    with_ben = await create(operator, "with-ben")
    scheduled = await create(operator, "later", entrants=20, start_s=7 * DAY_S)
    alone = await create(operator, "alone")
    untouched = await create(operator, "untouched")
    for tournament in (with_ben, scheduled, alone):
        await register(ann_client, tournament)
    await register(ben_client, with_ben)
    await register(ben_client, untouched)
    assert (await operator.account(ann)).balance == DEPOSIT - 3 * (BUY_IN + FEE)
    untouched_version = (await tournament_of(operator, untouched)).version

    excluded = await ann_client.protection.SelfExclude(
        pb.SelfExcludeRequest(name=f"players/{ann}", duration_seconds=DAY_S), metadata=ann_client.metadata)

    assert sorted(excluded.tournaments) == sorted([with_ben, scheduled, alone])
    assert (await operator.account(ann)).balance == DEPOSIT  # every buy-in and fee back
    for tournament in (with_ben, scheduled, alone):
        assert not await registered(ann_client, tournament)
        (undone,) = await unregistrations(grpc_service.store, tournament)
        assert (undone["player_id"], undone["reason"], undone["v"]) == (ann, "excluded", 2)
    assert (await tournament_of(operator, with_ben)).entrants == 1 and await registered(ben_client, with_ben)
    assert (await tournament_of(operator, untouched)).version == untouched_version
    # The event as clients see it says why.
    watch = ann_client.tournaments.WatchTournament(T.WatchTournamentRequest(name=alone, after_version=1),
                                                   metadata=ann_client.metadata)
    async for reply in watch:
        if reply.event.type == "PlayerUnregistered":
            assert reply.event.player_unregistered.reason == "excluded"
            break
    watch.cancel()
    # Looking again undoes nothing twice.
    assert await grpc_service.runtime.tournaments.exclusions.sweep() == []
    for tournament in (with_ben, scheduled, alone):
        assert len(await unregistrations(grpc_service.store, tournament)) == 1
    with pytest.raises(grpc.aio.AioRpcError) as refused:
        await register(ann_client, untouched)
    assert error_reason(refused.value) == "PLAYER_EXCLUDED"
    # The shared service's log holds other tests' streams (some written straight into the log, without
    # accounts): what concerns this test's players, tournaments and pools must reconcile.
    ours = (ann, ben, *(name.removeprefix("tournaments/")
                        for name in (with_ben, scheduled, alone, untouched)))
    money = await audit_money(grpc_service.store)
    mine = [d for d in money.discrepancies if any(own in d.stream_id for own in ours)]
    assert not mine, money.discrepancies


async def test_a_time_out_unregisters_too_and_a_player_not_excluded_keeps_their_entries(grpc_service,
                                                                                        operator):
    ann, ben = someone("ann"), someone("ben")
    for player in (ann, ben):
        await operator.deposit(player, DEPOSIT)
    tournament = await create(operator, "time-out")
    for player in (ann, ben):
        await register(grpc_service.client(player), tournament)
    client = grpc_service.client(ann)
    taken = await client.protection.TakeTimeOut(
        pb.TakeTimeOutRequest(name=f"players/{ann}", duration_seconds=DAY_S), metadata=client.metadata)
    assert list(taken.tournaments) == [tournament]
    assert [(event["player_id"], event["reason"]) for event in
            await unregistrations(grpc_service.store, tournament)] == [(ann, "excluded")]
    assert await registered(grpc_service.client(ben), tournament)  # ben is not excluded


async def record_exclusion_as_a_dead_call_left_it(database: str, player: str) -> None:
    """What a SelfExclude killed right after recording the exclusion leaves: the exclusion in the player's
    stream, and none of the unregistrations that should follow it."""
    pool = await open_pool(database, max_size=2)
    try:
        now = int(time.time() * 1000)
        event = protection.exclusion_event("exclusion", DAY_S * 1000, player, now)
        await Ledger(EventStore(pool, announce=False)).protect(player, lambda standing: [event])
    finally:
        await pool.close()


async def wait_until(predicate, timeout: float = 90.0, what: str = "") -> None:
    deadline = time.monotonic() + timeout
    while not await predicate():
        if time.monotonic() > deadline:
            raise AssertionError(f"not within {timeout} s: {what}")
        await asyncio.sleep(0.5)


@pytest.mark.long
async def test_after_a_crash_between_the_exclusion_and_the_unregistrations_whoever_looks_next_undoes_them(
        spawn_server, database):
    ann, ben, cat = "ann", "ben", "cat"
    first = await spawn_server(database)
    async with grpc.aio.insecure_channel(first.address) as channel:
        def client(player: str, role: Role = Role.PLAYER) -> StudClient:
            return StudClient(channel, mint_token(TOKEN_SECRET, player, role))

        operator = client("house", Role.OPERATOR)
        for player in (ann, ben, cat):
            await operator.deposit(player, DEPOSIT)
        sit_and_go = await create(operator, "sng")
        scheduled = await create(operator, "soon", entrants=10, start_s=SCHEDULED_IN_S)
        far = await create(operator, "far", entrants=10, start_s=7 * DAY_S)
        for player, tournaments in ((ann, (sit_and_go, scheduled, far)), (ben, (sit_and_go, scheduled)),
                                    (cat, (scheduled,))):
            for tournament in tournaments:
                await register(client(player), tournament)
    first.kill()  # SIGKILL
    await record_exclusion_as_a_dead_call_left_it(database, ann)

    second = await spawn_server(database)
    async with grpc.aio.insecure_channel(second.address) as channel:
        operator = StudClient(channel, mint_token(TOKEN_SECRET, "house", Role.OPERATOR))
        ann_client = StudClient(channel, mint_token(TOKEN_SECRET, ann, Role.PLAYER))
        cat_client = StudClient(channel, mint_token(TOKEN_SECRET, cat, Role.PLAYER))
        # cat takes the sit & go's last place: ann's entry is undone first, so it does not start with her.
        await register(cat_client, sit_and_go)
        waiting = await tournament_of(operator, sit_and_go)
        assert waiting.state == tournament_pb2.TOURNAMENT_STATE_REGISTERING and waiting.entrants == 2
        assert not await registered(ann_client, sit_and_go)

        # The scheduled tournament starts without her.
        async def started() -> bool:
            return (await tournament_of(operator, scheduled)).state == tournament_pb2.TOURNAMENT_STATE_RUNNING

        await wait_until(started, SCHEDULED_IN_S + 60, "the scheduled tournament starts")
        running = await tournament_of(operator, scheduled)
        assert running.entrants == 2 and not await registered(ann_client, scheduled)

        # The one far off: the periodic sweep finds her entry.
        async def undone() -> bool:
            return not await registered(ann_client, far)

        await wait_until(undone, 90, "the sweep undoes the entry of the far tournament")
        assert (await operator.account(ann)).balance == DEPOSIT
    pool = await open_pool(database, max_size=2)
    try:
        store = EventStore(pool, announce=False)
        for tournament in (sit_and_go, scheduled, far):
            events = await unregistrations(store, tournament)
            reasons = [(event["player_id"], event["reason"]) for event in events]
            assert reasons == [(ann, "excluded")], (tournament, reasons)
        log = [event.payload["type"] for event in await store.read_stream(scheduled)]
        assert log.index("PlayerUnregistered") < log.index("TournamentStarted")
        assert (await audit_money(store)).ok
    finally:
        await pool.close()


async def test_a_player_excluded_in_a_running_tournament_is_sat_out_there_and_may_not_sit_in(grpc_service,
                                                                                            operator):
    """The tournament has started: no refund, no removal. The player keeps their seat and chips, sat out
    (dealt in and blinded off), may not sit in while excluded, and stays in until they are out."""
    ann, ben = someone("ann"), someone("ben")
    ann_client, ben_client = grpc_service.client(ann), grpc_service.client(ben)
    for player in (ann, ben):
        await operator.deposit(player, DEPOSIT)
    tournament = await create(operator, "running", entrants=2)
    for client in (ann_client, ben_client):
        await register(client, tournament)

    async def seated() -> bool:
        view = await ann_client.tournaments.GetTournamentView(T.GetTournamentViewRequest(name=tournament),
                                                              metadata=ann_client.metadata)
        if not view.table:
            return False
        with contextlib.suppress(grpc.aio.AioRpcError):  # its owner opens the table in the background
            table = await ann_client.view(view.table.removeprefix("tables/"))
            return any(seat.player_id == ann for seat in table.seats)  # and seats her there
        return False

    await wait_until(seated, 30, "the sit & go seats its players at its table")
    view = await ann_client.tournaments.GetTournamentView(T.GetTournamentViewRequest(name=tournament),
                                                          metadata=ann_client.metadata)
    table_id = view.table.removeprefix("tables/")
    balance = (await operator.account(ann)).balance

    excluded = await ann_client.protection.SelfExclude(
        pb.SelfExcludeRequest(name=f"players/{ann}", duration_seconds=DAY_S), metadata=ann_client.metadata)
    assert list(excluded.tournaments) == [] and list(excluded.tables) == [view.table]

    async def sat_out() -> bool:
        seats = (await ben_client.view(table_id)).seats
        return any(seat.player_id == ann and seat.sit_out_reason == table_pb2.SIT_OUT_REASON_EXCLUDED
                   for seat in seats)

    await wait_until(sat_out, 30, "the excluded player is sat out at the tournament's table")
    with pytest.raises(grpc.aio.AioRpcError) as refused:
        await ann_client.sit_in(table_id)
    assert error_reason(refused.value) == "PLAYER_EXCLUDED"
    still = await ann_client.tournaments.GetTournamentView(T.GetTournamentViewRequest(name=tournament),
                                                           metadata=ann_client.metadata)
    assert still.registered and (await operator.account(ann)).balance == balance  # in, and no refund
    assert await unregistrations(grpc_service.store, tournament) == []
