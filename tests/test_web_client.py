"""The client over the web port (StudClient.over_web): a watch it cancels or drops ends on the server too,
and one cut off by the network resumes with after_version, missing nothing and repeating nothing."""

from __future__ import annotations

import asyncio
import contextlib

import grpc
import pytest
from grpc_fixtures import CREATED_VERSION, TOKEN_SECRET, WEB_TRANSPORTS, settle_table
from tcp_proxy import tcp_proxy

from stud_service.auth import mint_token
from stud_service.bots import Bot, StudClient
from stud_service.server.proto_gen import events_pb2
from stud_service.server.tables.live import stream_id_for

pytestmark = pytest.mark.parametrize("transport", list(WEB_TRANSPORTS))


async def watchers_become(grpc_service, count: int, timeout: float = 30.0) -> None:
    async with asyncio.timeout(timeout):
        while grpc_service.runtime.watcher_count() != count:
            await asyncio.sleep(0.01)


@pytest.mark.parametrize("how", ["between_reads", "while_a_read_waits", "its_reader_cancelled"])
async def test_a_cancelled_watch_closes_its_http_stream(grpc_service, new_table, make_player, how) -> None:
    """The stream cancelled between reads or while another task's read waits, or the reading task
    cancelled (as a bot's is): the server's watch ends, as it does when a gRPC call is cancelled."""
    table_id = await new_table()
    before = grpc_service.runtime.watcher_count()
    stream = make_player("alice").watch(table_id)
    first = await stream.read()
    assert first.view.version == CREATED_VERSION
    await watchers_become(grpc_service, before + 1)
    waiting = None if how == "between_reads" else asyncio.ensure_future(stream.read())
    await asyncio.sleep(0.05)  # the read is waiting for news
    if how == "its_reader_cancelled":
        assert waiting is not None and waiting.cancel()
    else:
        assert stream.cancel()
    if waiting is not None:
        with pytest.raises(asyncio.CancelledError):
            await waiting
    await watchers_become(grpc_service, before)
    assert stream.cancelled()
    with pytest.raises(asyncio.CancelledError):
        await stream.read()


def in_a_hand(types: list[str]) -> bool:
    """Whether the events so far leave a hand running (started, not ended)."""
    started = max((i for i, kind in enumerate(types) if kind == "HandStarted"), default=-1)
    return started >= 0 and "HandEnded" not in types[started:]


async def test_a_watch_cut_off_mid_hand_resumes_after_its_last_version(grpc_service, new_table, transport):
    """The connection under a web watch dies mid-hand, three times: each time the client hears of it
    (an error, not a quiet end) and resumes after the last version it received; the events joined are
    the ones a gRPC watch of the same viewer gets, redacted the same, none missing, none twice."""
    table_id = await new_table()
    bots = [Bot(grpc_service.client(name), table_id, seat, seed=seat)
            for seat, name in enumerate(["ann", "ben", "cat"], start=1)]
    for bot in bots:
        await bot.sit(10_000)
    # The bots play until the watch has been cut three times (however many hands that takes), then stop.
    playing = asyncio.ensure_future(asyncio.gather(*(bot.run(10**6) for bot in bots)))
    protocol, codec = WEB_TRANSPORTS[transport]
    received: list[events_pb2.TableEvent] = []
    drops: list[grpc.StatusCode] = []
    async with tcp_proxy(grpc_service.web.port) as proxy:
        ann = StudClient.over_web(proxy.url, mint_token(TOKEN_SECRET, "ann"), protocol, codec)
        last = CREATED_VERSION
        since_cut = 0
        while len(drops) < 3:
            stream = ann.watch(table_id, after_version=last)
            cut = False
            try:
                async for message in stream:
                    if not message.HasField("event"):
                        continue  # a heartbeat
                    received.append(message.event)
                    last = message.event.version
                    since_cut += 1
                    types = [event.type for event in received]
                    if not cut and since_cut >= 5 and in_a_hand(types) and types[-1] == "CardDealt":
                        # Messages already received may still be read after the cut, then the error.
                        assert proxy.cut() == 1  # the watch's one connection
                        cut, since_cut = True, 0
            except grpc.aio.AioRpcError as error:
                drops.append(error.code())
            else:
                raise AssertionError("the stream ended quietly when its connection was cut")
        playing.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await playing
        await settle_table(bots, grpc_service.client("spectator"), table_id)
        end = await grpc_service.store.head(stream_id_for(table_id))
        stream = ann.watch(table_id, after_version=last)
        async for message in stream:
            received.append(message.event)
            if message.event.version >= end:
                break
        stream.cancel()
    assert set(drops) == {grpc.StatusCode.UNAVAILABLE}
    reference: list[events_pb2.TableEvent] = []
    stream = grpc_service.client("ann").watch(table_id, after_version=CREATED_VERSION)
    async for message in stream:
        reference.append(message.event)
        if message.event.version >= end:
            break
    stream.cancel()
    assert [event.version for event in received] == list(range(CREATED_VERSION + 1, end + 1))
    assert [without_record_time(event) for event in received] == [
        without_record_time(event) for event in reference
    ]


def without_record_time(event: events_pb2.TableEvent) -> bytes:
    """The event but its record_time: an event delivered live carries the replica's clock at the append,
    one read back from the log the database's recorded_at (a few milliseconds apart), on either port."""
    copy = events_pb2.TableEvent()
    copy.CopyFrom(event)
    copy.ClearField("record_time")
    return copy.SerializeToString(deterministic=True)
