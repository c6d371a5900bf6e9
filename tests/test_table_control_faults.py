"""Stopping a game (RULES.md §12) through faults, with real ``serve`` processes and a real PostgreSQL:

- a pause survives the owner's SIGKILL: the replica taking the table deals nothing until it is resumed;
- a void whose replica is SIGKILLed while voiding is, retried with its request id on another replica, in the
  log exactly once, and the hand verifies;
- an interrupted hand (``interrupted_hand_void_time``) whose owner is SIGKILLed is voided by the next owner
  if nothing happened in it for that long, and played on (its clock fires) if the next owner came sooner;
- the same across a database outage longer, and shorter, than the setting: the owner voids the hand when it
  can next write, or times the player out and plays on.
"""

from __future__ import annotations

import asyncio
import contextlib
import time

import grpc
import pytest
from google.protobuf import duration_pb2
from grpc_fixtures import TOKEN_SECRET, ServerProcess, table_spec
from test_faults_database import (  # noqa: F401  (fixtures)
    BUY_IN,
    FaultyDatabase,
    assert_books_hold,
    channel_to,
    database,
    start_service,
)
from test_grpc_processes import chips_always_conserved, read_log

from stud_service.auth import Role, mint_token
from stud_service.bots import StudClient
from stud_service.bots.client import events_of, new_request_id
from stud_service.server.proto_gen import audit_service_pb2, events_pb2, table_pb2

LEASE = ("--lease-seconds", "1.5")  # a killed owner's tables are taken over soon
NO_DEAL_SECONDS = 6.0  # past the lease's expiry and a dozen pauses between hands: a paused table would deal
WAIT = 60.0
CLOCK = 2  # seconds: the action clock
VOID_AFTER = 15  # seconds: interrupted_hand_void_time, far past the clock and a replica's restart
# A replica's restart on a machine at load 20 took longer than VOID_AFTER: the test of a next owner coming in
# time gives it this long (it waits only for the takeover, never for the limit).
VOID_AFTER_IN_TIME = 120
PASSIVE = (table_pb2.ACTION_TYPE_BRING_IN, table_pb2.ACTION_TYPE_CHECK, table_pb2.ACTION_TYPE_CALL)


def clients(channel: grpc.aio.Channel, *players: str) -> list[StudClient]:
    return [StudClient(channel, mint_token(TOKEN_SECRET, player)) for player in players]


def operator_on(channel: grpc.aio.Channel) -> StudClient:
    return StudClient(channel, mint_token(TOKEN_SECRET, "house", Role.OPERATOR))


async def until(check, what: str, timeout: float = WAIT):  # type: ignore[no-untyped-def]
    deadline = time.monotonic() + timeout
    while True:
        found = await check()
        if found:
            return found
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out waiting until {what}")
        await asyncio.sleep(0.05)


async def to_act(players: list[StudClient], table_id: str) -> tuple[StudClient, table_pb2.TableView]:
    async def turn():  # type: ignore[no-untyped-def]
        for player in players:
            view = await player.view(table_id)
            if view.legal_actions:
                return player, view
        return None

    return await until(turn, "a player has the turn")


async def seated(channel: grpc.aio.Channel, table_id: str, spec: table_pb2.Table, *players: str) -> None:
    await operator_on(channel).create_table(table_id, spec)
    for seat, player in enumerate(clients(channel, *players), start=1):
        await player.sit_down(table_id, seat, BUY_IN)


async def first_event_after(channel: grpc.aio.Channel, table_id: str, version: int,
                            wanted: tuple[str, ...]) -> events_pb2.TableEvent:
    """The first event after ``version`` whose type is one of ``wanted``, as a watch streams it."""
    stream = clients(channel, "spectator")[0].watch(table_id, after_version=version, batch_events=True)
    try:
        async with asyncio.timeout(WAIT):
            async for message in stream:
                for event in events_of(message):
                    if event.type in wanted:
                        return event
    finally:
        stream.cancel()
    raise AssertionError("the watch ended")


@pytest.fixture
async def log_url(make_database) -> str:
    return await make_database(migrated=True)


# -- SIGKILL during a pause and during a void ----------------------------------------------------------------


@pytest.mark.long
async def test_a_pause_outlives_the_owner_s_sigkill(spawn_server, log_url) -> None:
    first: ServerProcess = await spawn_server(log_url, *LEASE)
    async with grpc.aio.insecure_channel(first.address) as channel:
        await seated(channel, "paused", table_spec(), "ann", "ben")
        players = clients(channel, "ann", "ben")
        await to_act(players, "paused")
        await operator_on(channel).pause_table("paused", "the room closes at midnight")
        hand = (await players[0].view("paused")).hand.hand_number
        while True:  # the running hand plays on to its end
            view = await players[0].view("paused")
            if view.hand.complete:
                break
            player, turn = await to_act(players, "paused")
            passive = next(a for a in turn.legal_actions if a.type in PASSIVE)
            with contextlib.suppress(grpc.aio.AioRpcError):  # a stale turn: the loop looks again
                await player.act("paused", turn.viewer_seat, passive.type, passive.amount, turn.turn)
    first.kill()  # SIGKILL

    second = await spawn_server(log_url, *LEASE)
    async with grpc.aio.insecure_channel(second.address) as channel:
        spectator = clients(channel, "spectator")[0]
        await asyncio.sleep(NO_DEAL_SECONDS)
        view = await spectator.view("paused")
        assert view.table.hands_started == hand and view.table.status == table_pb2.TABLE_STATUS_PAUSED
        assert view.table.status_reason == "the room closes at midnight"
        await operator_on(channel).resume_table("paused", "open again")

        async def dealt() -> bool:
            return (await spectator.view("paused")).table.hands_started == hand + 1

        await until(dealt, "the resumed table dealt")
    assert chips_always_conserved(await read_log(log_url, "paused"), 2 * BUY_IN) >= 1


async def test_a_void_cut_by_sigkill_is_retried_once_with_its_request_id(spawn_server, log_url) -> None:
    first = await spawn_server(log_url, *LEASE)
    request_id = new_request_id()
    async with grpc.aio.insecure_channel(first.address) as channel:
        await seated(channel, "cut", table_spec(), "ann", "ben", "cat")
        _, view = await to_act(clients(channel, "ann", "ben", "cat"), "cut")
        hand = view.hand.hand_number
        voiding = asyncio.ensure_future(operator_on(channel).void_hand("cut", hand, "fault", request_id))
        await asyncio.sleep(0.005)
        first.kill()  # SIGKILL while the void is on its way: it is in the log whole, or not at all
        with contextlib.suppress(grpc.aio.AioRpcError):
            await voiding

    second = await spawn_server(log_url, *LEASE)
    async with grpc.aio.insecure_channel(second.address) as channel:
        table = await operator_on(channel).void_hand("cut", hand, "fault", request_id)
        assert table.last_voided_hand.hand_number == hand
        again = await operator_on(channel).void_hand("cut", hand, "fault", request_id)
        assert again.version == table.version  # a retry: the first result, nothing new
        auditor = StudClient(channel, mint_token(TOKEN_SECRET, "auditor", Role.AUDITOR))
        report = await auditor.audit.VerifyHand(
            audit_service_pb2.VerifyHandRequest(name=f"tables/cut/hands/{hand}"), metadata=auditor.metadata)
        assert report.passed, report
    payloads = await read_log(log_url, "cut")
    assert sum(p["type"] == "HandVoided" for p in payloads) == 1
    chips_always_conserved(payloads, 3 * BUY_IN)


# -- an interrupted hand and its owner's SIGKILL ------------------------------------------------------------


def interrupted_spec(void_after: int = VOID_AFTER) -> table_pb2.Table:
    limit = duration_pb2.Duration(seconds=void_after)
    return table_spec(action_clock=CLOCK, interrupted_hand_void_time=limit)


async def _killed_mid_hand(spawn_server, log_url: str, table_id: str,  # type: ignore[no-untyped-def]
                           void_after: int = VOID_AFTER) -> tuple[int, int, float]:
    """A hand dealt at ``table_id`` on a first replica, which is killed once a player has the turn: the
    version then, the hand, and when that turn began (epoch seconds: the hand's last action or deal)."""
    first = await spawn_server(log_url, *LEASE)
    async with grpc.aio.insecure_channel(first.address) as channel:
        await seated(channel, table_id, interrupted_spec(void_after), "ann", "ben")
        _, view = await to_act(clients(channel, "ann", "ben"), table_id)
    first.kill()
    payloads = await read_log(log_url, table_id)
    last = next(p for p in reversed(payloads) if p["type"] in ("BettingRoundStarted", "PlayerActed"))
    return view.version, view.hand.hand_number, last["at_ms"] / 1000


@pytest.mark.long
async def test_an_interrupted_hand_is_voided_by_the_next_owner_once_it_stood_still_that_long(
    spawn_server, log_url
) -> None:
    version, hand, since = await _killed_mid_hand(spawn_server, log_url, "stood-still")
    await asyncio.sleep(max(0.0, since + VOID_AFTER + 1 - time.time()))  # nobody runs the table meanwhile
    second = await spawn_server(log_url, *LEASE)
    async with grpc.aio.insecure_channel(second.address) as channel:
        event = await first_event_after(channel, "stood-still", version, ("HandVoided", "PlayerActed"))
        assert event.type == "HandVoided", event  # not the clock's timeout: the void is written first
        voided = event.hand_voided
        assert voided.automatic and voided.hand == hand and not voided.operator
        assert event.hand_voided.reason.startswith("interrupted: no action or deal for ")
        view = await clients(channel, "ann")[0].view("stood-still")
        assert view.table.last_voided_hand.automatic and view.table.last_voided_hand.hand_number == hand
    chips_always_conserved(await read_log(log_url, "stood-still"), 2 * BUY_IN)


async def test_an_interrupted_hand_whose_next_owner_came_in_time_plays_on(spawn_server, log_url) -> None:
    version, hand, since = await _killed_mid_hand(spawn_server, log_url, "in-time", VOID_AFTER_IN_TIME)
    second = await spawn_server(log_url, *LEASE)
    async with grpc.aio.insecure_channel(second.address) as channel:
        event = await first_event_after(channel, "in-time", version, ("HandVoided", "PlayerActed"))
        assert event.type == "PlayerActed" and event.player_acted.timeout and event.player_acted.hand == hand
        assert event.record_time.ToSeconds() < since + VOID_AFTER_IN_TIME, "the next owner came too late"
    payloads = await read_log(log_url, "in-time")
    assert not any(p["type"] == "HandVoided" for p in payloads)


# -- an interrupted hand across a database outage ---------------------------------------------------------


async def _outage_during_a_hand(database: FaultyDatabase, start_service, table_id: str,  # noqa: F811
                                outage_past_the_void: bool) -> events_pb2.TableEvent:
    """A hand dealt, then the database stopped: until the hand has stood still past VOID_AFTER, or for
    less than that (but past the action clock); the first of HandVoided / PlayerActed written after."""
    host = await start_service(database.url, hand_pause_seconds=0.5)
    async with channel_to(host) as channel:
        await seated(channel, table_id, interrupted_spec(), "ann", "ben")
        _, view = await to_act(clients(channel, "ann", "ben"), table_id)
        payloads = await read_log(database.url, table_id)
        last = next(p for p in reversed(payloads) if p["type"] in ("BettingRoundStarted", "PlayerActed"))
        since = last["at_ms"] / 1000
        await asyncio.to_thread(database.pg.stop)
        back_at = since + (VOID_AFTER + 2 if outage_past_the_void else CLOCK + 4)
        await asyncio.sleep(max(0.0, back_at - time.time()))
        assert outage_past_the_void or time.time() < since + VOID_AFTER - 5, "the machine is too slow"
        await asyncio.to_thread(database.pg.start)
        event = await first_event_after(channel, table_id, view.version, ("HandVoided", "PlayerActed"))
        await assert_books_hold(host, [table_id])
        return event


@pytest.mark.long
async def test_an_outage_longer_than_the_setting_voids_the_hand_when_the_owner_can_next_write(
    database, start_service  # noqa: F811
) -> None:
    event = await _outage_during_a_hand(database, start_service, "long-outage", outage_past_the_void=True)
    assert event.type == "HandVoided" and event.hand_voided.automatic, event


async def test_an_outage_shorter_than_the_setting_times_the_player_out_and_plays_on(
    database, start_service  # noqa: F811
) -> None:
    event = await _outage_during_a_hand(database, start_service, "short-outage", outage_past_the_void=False)
    assert event.type == "PlayerActed" and event.player_acted.timeout, event
