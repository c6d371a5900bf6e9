"""Idempotent retries (request_id), the watch stream (initial view, every event, resumable with no gap and
no duplicate), and list pagination: over the gRPC port and over the web port in each of its forms."""

from __future__ import annotations

import asyncio

import grpc
import pytest
from grpc_fixtures import ALL_TRANSPORTS, CREATED_VERSION, settle_table, table_spec, wait_for_turn

from stud_service.bots import Bot
from stud_service.bots.client import events_of
from stud_service.server.proto_gen import table_pb2, table_service_pb2
from stud_service.server.tables.live import stream_id_for

pytestmark = pytest.mark.parametrize("transport", ALL_TRANSPORTS)


async def head(grpc_service, table_id: str) -> int:
    return await grpc_service.store.head(stream_id_for(table_id))


async def test_a_retried_sit_down_returns_the_first_result_and_appends_nothing(
    grpc_service, new_table, make_player
):
    table_id = await new_table()
    alice = make_player("alice")
    first = await alice.sit_down(table_id, 2, 5_000, request_id="sit-1")
    after_first = await head(grpc_service, table_id)
    again = await alice.sit_down(table_id, 2, 5_000, request_id="sit-1")
    assert await head(grpc_service, table_id) == after_first
    assert again.viewer_seat == first.viewer_seat == 2
    assert [seat.stack for seat in again.seats] == [5_000]


async def test_a_retried_action_is_not_refused_as_stale_and_appends_nothing(
    grpc_service, new_table, make_player
):
    table_id = await new_table()
    alice, bob = make_player("alice"), make_player("bob")
    await alice.sit_down(table_id, 1, 5_000)
    await bob.sit_down(table_id, 2, 5_000)
    acting, view = await wait_for_turn([alice, bob], table_id)
    choice = view.legal_actions[0]
    await acting.act(table_id, view.viewer_seat, choice.type, choice.amount, view.turn, request_id="act-1")
    after_first = await head(grpc_service, table_id)
    retried = await acting.act(
        table_id, view.viewer_seat, choice.type, choice.amount, view.turn, request_id="act-1"
    )
    assert await head(grpc_service, table_id) == after_first
    assert retried.version == after_first


async def test_a_retried_create_table_returns_the_table(grpc_service, operator, table_id):
    first = await operator.create_table(table_id, table_spec(), request_id="create-1")
    again = await operator.create_table(table_id, table_spec(), request_id="create-1")
    assert again.name == first.name == f"tables/{table_id}"
    assert await head(grpc_service, table_id) == CREATED_VERSION


async def test_watch_sends_the_view_then_every_event_in_order(grpc_service, new_table, make_player):
    table_id = await new_table()
    alice = make_player("alice")
    stream = alice.watch(table_id)
    first = await stream.read()
    assert not first.HasField("event") and first.view.version == CREATED_VERSION
    await alice.sit_down(table_id, 5, 5_000)
    second = await stream.read()
    assert (second.event.version, second.event.type) == (CREATED_VERSION + 1, "PlayerSeated")
    assert second.event.player_seated.seat == 5
    stream.cancel()


async def test_a_watcher_that_disconnects_and_resumes_misses_nothing(grpc_service, new_table, make_player):
    """Resume from the last version received: the events joined are exactly the log, no gap, no duplicate."""
    table_id = await new_table()
    names = ["ann", "ben", "cat"]
    bots = [Bot(make_player(name), table_id, seat, seed=seat) for seat, name in enumerate(names, start=1)]
    for bot in bots:
        await bot.sit(10_000)
    playing = asyncio.ensure_future(asyncio.gather(*(bot.run(3) for bot in bots)))
    watcher = make_player("spectator")
    received: list[tuple[int, str]] = []
    initial = last = 0
    for _ in range(6):  # connect, read a few events, drop the connection, resume from the last version
        stream = watcher.watch(table_id, after_version=last)
        count = 0
        async for message in stream:
            if not message.HasField(
                "event"
            ):  # only the first connection (after_version 0) starts with a view
                initial = last = message.view.version
                continue
            received.append((message.event.version, message.event.type))
            last = message.event.version
            count += 1
            if count == 7:
                break
        stream.cancel()
    await asyncio.wait_for(playing, timeout=60)
    await settle_table(bots, watcher, table_id)
    end = await head(grpc_service, table_id)
    stream = watcher.watch(table_id, after_version=last)
    async for message in stream:
        received.append((message.event.version, message.event.type))
        if message.event.version >= end:
            break
    stream.cancel()
    versions = [version for version, _ in received]
    assert versions == list(range(initial + 1, end + 1)), "gap or duplicate in the resumed stream"
    stored = {
        event.version: event.payload["type"]
        for event in await grpc_service.store.read_stream(stream_id_for(table_id))
    }
    assert all(kind == stored[version] for version, kind in received)


# Never folding, so the hand reaches seventh street, whose card is dealt face down.
PASSIVE = (table_pb2.ACTION_TYPE_CHECK, table_pb2.ACTION_TYPE_CALL, table_pb2.ACTION_TYPE_BRING_IN)


async def next_turn_in_hand(clients, table_id: str, hand: int, timeout: float = 30.0) -> tuple | None:
    """The (client, view) to act next in ``hand``; None once that hand is over."""
    deadline = asyncio.get_running_loop().time() + timeout
    while asyncio.get_running_loop().time() < deadline:
        for client in clients:
            view = await client.view(table_id)
            if view.hand.hand_number != hand or view.hand.complete:
                return None
            if view.legal_actions:
                return client, view
        await asyncio.sleep(0.02)
    raise TimeoutError(f"hand {hand} neither went on nor ended")


async def test_a_watch_resumed_at_the_head_mid_hand_shows_the_viewer_their_own_down_cards(
    grpc_service, new_table, make_player
):
    """Resumed at the live version in the middle of a hand (nothing to read from the log first), the
    watch still knows who sits where in that hand: the viewer's own face-down card is shown to them."""
    table_id = await new_table()
    alice, bob = make_player("alice"), make_player("bob")
    await alice.sit_down(table_id, 1, 5_000)
    await bob.sit_down(table_id, 2, 5_000)
    acting, view = await wait_for_turn([alice, bob], table_id)  # third street is dealt
    hand = view.hand.hand_number
    stream = alice.watch(table_id, after_version=await head(grpc_service, table_id))
    turn: tuple | None = (acting, view)
    while turn is not None:  # play the hand out: a few calls and checks a street
        acting, view = turn
        choice = next(action for action in view.legal_actions if action.type in PASSIVE)
        await acting.act(table_id, view.viewer_seat, choice.type, choice.amount, view.turn)
        turn = await next_turn_in_hand([alice, bob], table_id, hand)
    seventh: list = []
    async with asyncio.timeout(30):
        async for message in stream:
            events = events_of(message)
            seventh += [event.card_dealt for event in events
                        if event.type == "CardDealt" and event.card_dealt.street == table_pb2.STREET_SEVENTH]
            if any(event.type == "HandEnded" for event in events):
                break
    stream.cancel()
    own = [card for card in seventh if card.seat == 1]
    assert len(own) == 1 and not own[0].face_up
    assert not own[0].hidden, "the viewer's own seventh-street card came hidden"
    assert all(card.hidden for card in seventh if card.seat == 2)


async def test_list_tables_pages_through_every_table(grpc_service, operator, new_table):
    created = {await new_table() for _ in range(3)}
    seen: list[str] = []
    token = ""
    while True:
        page = await operator.stub.ListTables(
            table_service_pb2.ListTablesRequest(page_size=2, page_token=token), metadata=operator.metadata
        )
        assert len(page.tables) <= 2
        seen.extend(table.name.removeprefix("tables/") for table in page.tables)
        token = page.next_page_token
        if not token:
            break
    assert created <= set(seen)
    assert len(seen) == len(set(seen))


async def test_get_table_reports_the_configuration(operator, new_table):
    table_id = await new_table()
    table = await operator.get_table(table_id)
    assert (table.stakes.small_bet, table.stakes.big_bet, table.min_buy_in, table.max_seats) == (
        200,
        400,
        2_000,
        8,
    )
    assert table.action_clock.seconds == 30 and table.version == CREATED_VERSION


@pytest.mark.parametrize("after_version", [-1])
async def test_a_negative_resume_version_is_malformed(make_player, new_table, after_version):
    table_id = await new_table()
    with pytest.raises(grpc.aio.AioRpcError) as caught:
        async for _ in make_player("alice").watch(table_id, after_version=after_version):
            pass
    assert caught.value.code() == grpc.StatusCode.INVALID_ARGUMENT


async def test_a_watcher_that_falls_behind_catches_up_from_the_log(
    grpc_service, new_table, make_player, monkeypatch
) -> None:
    """With no buffer at all every event overflows it: the watcher must still see the log exactly."""
    monkeypatch.setattr("stud_service.server.tables.fanout.WATCH_BUFFER", 0)
    table_id = await new_table()
    watcher = make_player("spectator")
    stream = watcher.watch(table_id, include_views=True)
    first = await stream.read()
    bots = [Bot(make_player(name), table_id, seat, seed=seat) for seat, name in enumerate(["ann", "ben"], 1)]
    for bot in bots:
        await bot.sit(10_000)
    await asyncio.wait_for(asyncio.gather(*(bot.run(2) for bot in bots)), timeout=60)
    end = await head(grpc_service, table_id)
    versions, views = [], 0
    while not versions or versions[-1] < end:
        message = await asyncio.wait_for(stream.read(), timeout=10)
        versions.append(message.event.version)
        views += message.HasField("view")
    stream.cancel()
    monkeypatch.undo()
    await settle_table(bots, watcher, table_id)
    assert versions == list(range(first.view.version + 1, end + 1))
    assert views > 0
