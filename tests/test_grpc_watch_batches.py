"""WatchTable with batch_events: one message per burst of events, the same events as one per message.

Bots play real hands; the same viewer watches with and without batching, resumes in the middle of a
burst and between bursts, and falls behind the server's buffer. Every way must give the log's events in
order with no gap and no duplicate, redacted for the viewer exactly as the unbatched stream is, and a
batched message's view must be the view at its last event. Over the gRPC port and the web port.
"""

from __future__ import annotations

import asyncio

import grpc
import pytest
from grpc_fixtures import CREATED_VERSION, TRANSPORTS, settle_table

from stud_service.bots import Bot, StudClient, events_of
from stud_service.server.proto_gen import table_service_pb2
from stud_service.server.tables.live import stream_id_for

Message = table_service_pb2.WatchTableResponse

pytestmark = pytest.mark.parametrize("transport", TRANSPORTS)


async def head(grpc_service, table_id: str) -> int:
    return await grpc_service.store.head(stream_id_for(table_id))


async def seat_bots(make_player, table_id: str, names=("ann", "ben", "cat")) -> list[Bot]:
    bots = [Bot(make_player(name), table_id, seat, seed=seat) for seat, name in enumerate(names, start=1)]
    for bot in bots:
        await bot.sit(10_000)
    return bots


async def read_until(stream: grpc.aio.UnaryStreamCall, version: int, into: list[Message]) -> None:
    """Append the stream's messages to ``into`` until one reports ``version`` (or later), then end it."""
    try:
        while True:
            message = await stream.read()
            assert message is not grpc.aio.EOF
            into.append(message)
            events = events_of(message)
            if events and events[-1].version >= version:
                return
    finally:
        stream.cancel()


def versions_of(messages: list[Message]) -> list[int]:
    return [event.version for message in messages for event in events_of(message)]


async def reached(messages: list[Message], version: int, timeout: float = 20) -> None:
    """Wait until a reader filling ``messages`` has received ``version``."""
    async with asyncio.timeout(timeout):
        while not versions_of(messages) or versions_of(messages)[-1] < version:
            await asyncio.sleep(0.02)


def event_texts(messages: list[Message], until: int) -> list[tuple[int, str, bytes]]:
    return [
        (event.version, event.type, event.SerializeToString(deterministic=True))
        for message in messages
        for event in events_of(message)
        if event.version <= until
    ]


async def watch_a_game(
    grpc_service, new_table, make_player, viewer: str
) -> tuple[list[Message], list[Message], int]:
    """``viewer`` watches two hands with views, batched and unbatched, from before anyone sits down.
    Returns both streams' messages and the table's version when play stopped (both reached it)."""
    table_id = await new_table()
    client = make_player(viewer)
    received: dict[bool, list[Message]] = {True: [], False: []}
    readers = [
        asyncio.ensure_future(
            read_until(client.watch(table_id, include_views=True, batch_events=batch), 10**9, messages)
        )
        for batch, messages in received.items()
    ]
    async with asyncio.timeout(10):  # both watches hold the initial view (version 1) before play starts
        while not all(received.values()):
            await asyncio.sleep(0.01)
    bots = await seat_bots(make_player, table_id)
    await asyncio.wait_for(asyncio.gather(*(bot.run(2) for bot in bots)), timeout=60)
    await settle_table(bots, make_player("spectator"), table_id)
    end = await head(grpc_service, table_id)
    for messages in received.values():
        await reached(messages, end)
    for reader in readers:
        reader.cancel()
    return received[True], received[False], end


@pytest.mark.parametrize("viewer", ["ann", "spectator"])
async def test_a_batched_watch_delivers_exactly_the_events_of_an_unbatched_one(
    grpc_service, new_table, make_player, viewer
):
    """Same viewer, same table: the same versions, types and redacted payloads, in fewer messages."""
    batched, unbatched, end = await watch_a_game(grpc_service, new_table, make_player, viewer)
    assert event_texts(batched, end) == event_texts(unbatched, end)
    versions = [version for version, _, _ in event_texts(batched, end)]
    assert versions == list(range(CREATED_VERSION + 1, end + 1))
    assert all(not message.HasField("event") for message in batched)
    assert all(not message.events for message in unbatched)
    assert len(batched) < len(unbatched)
    assert any(len(message.events) > 1 for message in batched)


async def test_each_batched_message_carries_the_view_at_its_last_event(grpc_service, new_table, make_player):
    batched, unbatched, _end = await watch_a_game(grpc_service, new_table, make_player, "ann")
    assert not batched[0].events and batched[0].view.version == CREATED_VERSION  # it starts with the view
    for message in batched[1:]:
        assert message.HasField("view")
        assert message.view.version == message.events[-1].version
        assert message.view.viewer_seat == 1
    # Where the unbatched stream sent a view too, it is the same table state as the caller sees it.
    unbatched_views = {m.view.version: m.view for m in unbatched if m.HasField("view")}
    compared = 0
    for message in batched[1:]:
        other = unbatched_views.get(message.view.version)
        if other is not None:
            assert list(message.view.legal_actions) == list(other.legal_actions)
            assert list(message.view.seats) == list(other.seats)
            compared += 1
    assert compared > 10


@pytest.mark.parametrize("cut", ["mid_burst", "between_bursts"])
async def test_a_batched_watch_resumed_mid_burst_or_between_bursts_misses_nothing(
    grpc_service, new_table, make_player, cut
):
    """Drop the connection and resume from a version inside a burst already received (so the rest of it
    must come again, and only the rest) or at a burst's end; live, then from the log after play ends."""
    table_id = await new_table()
    bots = await seat_bots(make_player, table_id)
    playing = asyncio.ensure_future(asyncio.gather(*(bot.run(4) for bot in bots)))
    watcher = make_player("ann")
    kept: list[tuple[int, str]] = []
    initial = last = 0
    resumed_mid_burst = 0
    for _ in range(6):
        stream = watcher.watch(table_id, after_version=last, batch_events=True)
        count = 0
        async for message in stream:
            if not message.events:  # only the first connection (after_version 0) starts with a view
                initial = last = message.view.version
                continue
            assert message.events[0].version == last + 1, "gap or duplicate after resuming"
            count += 1
            events = list(message.events)
            if count >= 3 and (cut == "between_bursts" or len(events) > 1):
                if cut == "mid_burst":
                    events = events[: len(events) // 2]
                    resumed_mid_burst += 1
                kept += [(event.version, event.type) for event in events]
                last = events[-1].version
                break
            kept += [(event.version, event.type) for event in events]
            last = events[-1].version
        stream.cancel()
    await asyncio.wait_for(playing, timeout=60)
    await settle_table(bots, make_player("spectator"), table_id)
    end = await head(grpc_service, table_id)
    rest: list[Message] = []
    await read_until(watcher.watch(table_id, after_version=last, batch_events=True), end, rest)
    assert rest[0].events[0].version == last + 1
    kept += [(event.version, event.type) for message in rest for event in message.events]
    versions = [version for version, _ in kept]
    assert versions == list(range(initial + 1, versions[-1] + 1)), "gap or duplicate in the resumed stream"
    assert versions[-1] >= end
    stored = {
        event.version: event.payload["type"]
        for event in await grpc_service.store.read_stream(stream_id_for(table_id))
    }
    assert all(kind == stored[version] for version, kind in kept)
    if cut == "mid_burst":
        assert resumed_mid_burst == 6


@pytest.mark.parametrize("buffer", [0, 4])
async def test_a_batched_watcher_that_falls_behind_catches_up_from_the_log(
    grpc_service, new_table, make_player, monkeypatch, buffer
) -> None:
    """A buffer of 0 sends everything through the log; one of 4 mixes live bursts with catch-ups."""
    monkeypatch.setattr("stud_service.server.tables.fanout.WATCH_BUFFER", buffer)
    table_id = await new_table()
    watcher = make_player("spectator")
    stream = watcher.watch(table_id, include_views=True, batch_events=True)
    first = await stream.read()
    bots = await seat_bots(make_player, table_id, names=("ann", "ben"))
    await asyncio.wait_for(asyncio.gather(*(bot.run(2) for bot in bots)), timeout=60)
    end = await head(grpc_service, table_id)
    messages: list[Message] = []
    await asyncio.wait_for(read_until(stream, end, messages), timeout=20)
    monkeypatch.undo()
    await settle_table(bots, watcher, table_id)
    versions = versions_of(messages)
    assert versions == list(range(first.view.version + 1, versions[-1] + 1))
    assert versions[-1] >= end
    with_views = [message for message in messages if message.HasField("view")]
    assert with_views
    assert all(message.view.version == message.events[-1].version for message in with_views)


async def test_a_batched_catch_up_from_the_log_comes_in_bounded_messages_with_the_view_on_the_last(
    grpc_service, new_table, make_player, monkeypatch
) -> None:
    monkeypatch.setattr("stud_service.server.api.table_watch.MAX_EVENTS_PER_MESSAGE", 7)
    table_id = await new_table()
    bots = await seat_bots(make_player, table_id)
    await asyncio.wait_for(asyncio.gather(*(bot.run(1) for bot in bots)), timeout=60)
    spectator: StudClient = make_player("spectator")
    await settle_table(bots, spectator, table_id)
    end = await head(grpc_service, table_id)
    messages: list[Message] = []
    stream = spectator.watch(table_id, after_version=CREATED_VERSION, include_views=True, batch_events=True)
    await read_until(stream, end, messages)
    assert versions_of(messages) == list(range(CREATED_VERSION + 1, end + 1))
    assert all(1 <= len(message.events) <= 7 for message in messages)
    assert [message.HasField("view") for message in messages] == [False] * (len(messages) - 1) + [True]
    assert messages[-1].view.version == end


async def test_a_batched_watch_resumed_while_play_goes_on_sends_no_event_twice(
    grpc_service, new_table, make_player, monkeypatch
) -> None:
    """Events applied while a resumed watch reads the log reach it twice, from the log and live; a slow log
    read makes that certain. Each must be sent once."""
    table_id = await new_table()
    bots = await seat_bots(make_player, table_id)
    playing = asyncio.ensure_future(asyncio.gather(*(bot.run(3) for bot in bots)))
    store = grpc_service.store
    read_stream = store.read_stream

    async def slow_read_stream(*args, **kwargs):
        await asyncio.sleep(0.05)
        return await read_stream(*args, **kwargs)

    monkeypatch.setattr(store, "read_stream", slow_read_stream)
    while (resume_at := await head(grpc_service, table_id)) < 10:  # in the middle of the first hand
        await asyncio.sleep(0.005)
    messages: list[Message] = []
    stream = make_player("ann").watch(table_id, after_version=resume_at, batch_events=True)
    reading = asyncio.ensure_future(read_until(stream, 10**9, messages))
    await asyncio.wait_for(playing, timeout=60)
    monkeypatch.undo()
    await settle_table(bots, make_player("spectator"), table_id)
    end = await head(grpc_service, table_id)
    await reached(messages, end)
    reading.cancel()
    versions = versions_of(messages)
    assert versions == list(range(resume_at + 1, versions[-1] + 1))
    assert len(messages) > 3  # the log's events, then live ones
