"""The client over the web port (StudClient.over_web): a watch it cancels or drops ends on the server too,
and one cut off by the network resumes with after_version, missing nothing and repeating nothing."""

from __future__ import annotations

import asyncio

import pytest
from grpc_fixtures import CREATED_VERSION, WEB_TRANSPORTS

pytestmark = pytest.mark.parametrize("transport", list(WEB_TRANSPORTS))


async def watchers_become(grpc_service, count: int, timeout: float = 5.0) -> None:
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
