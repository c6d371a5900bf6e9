"""What a caller can make the server remember: lookups of tables that do not exist leave nothing behind.

A name is the caller's to choose, so any structure keyed by a requested name must be emptied once the
request is answered; tables that exist are bounded by what operators created.
"""

from __future__ import annotations

import asyncio
import gc
import resource
from collections.abc import Awaitable, Callable
from typing import Any

import grpc
import pytest
from grpc_fixtures import ServiceUnderTest

from stud_service.bots.client import events_of
from stud_service.engine import NoTable
from stud_service.server.api import table_watch
from stud_service.server.tables.runtime import TableRuntime
from stud_service.server.tables.settings import RuntimeSettings

LOOKUPS = 100_000
CONCURRENCY = 32
# Before the fix each unknown name left a lock and a dict entry behind (~240 bytes: 24 MB per 100,000).
OBJECT_GROWTH_LIMIT = 1_000  # objects the collector tracks: noise, not one per name
RSS_GROWTH_LIMIT = 12 * 1024 * 1024  # coarse: the process as the kernel sees it


def _rss_bytes() -> int:
    with open("/proc/self/statm") as statm:
        return int(statm.read().split()[1]) * resource.getpagesize()


async def _look_up_unknown(runtime: TableRuntime, names: range, prefix: str) -> None:
    async def worker(start: int) -> None:
        for number in range(start, names.stop, CONCURRENCY):
            with pytest.raises(NoTable):
                await runtime.table(f"{prefix}-{number}")

    await asyncio.gather(*(worker(names.start + offset) for offset in range(CONCURRENCY)))


class _EmptyLog:
    """A log holding no streams. The memory under test is the runtime's; with the real store each name
    costs a query (~0.5 ms of CPU here), and 100,000 of them would take most of a minute. The same
    path over the real store and the real API is the last test below."""

    async def read_stream(self, stream_id: str, after_version: int = 0, limit: int | None = None) -> list:
        await asyncio.sleep(0)  # a lookup waits for its read, as with the database: loads overlap
        return []


async def test_lookups_of_unknown_tables_leave_nothing_behind() -> None:
    runtime = TableRuntime(_EmptyLog(), RuntimeSettings(auto_deal=False))  # type: ignore[arg-type]
    try:
        await _look_up_unknown(runtime, range(2_000), "warm")
        gc.collect()
        rss_before, objects_before = _rss_bytes(), len(gc.get_objects())
        await _look_up_unknown(runtime, range(LOOKUPS), "nobody")
        gc.collect()
        rss_growth, object_growth = _rss_bytes() - rss_before, len(gc.get_objects()) - objects_before
        assert object_growth < OBJECT_GROWTH_LIMIT, f"{object_growth} more objects held"
        assert rss_growth < RSS_GROWTH_LIMIT, f"RSS grew by {rss_growth} bytes"
        assert runtime.loading_count() == 0
        assert runtime.loaded_tables() == []
    finally:
        await runtime.close()


async def test_concurrent_first_lookups_share_one_load_and_a_caller_giving_up_spoils_none(
    grpc_service: ServiceUnderTest, new_table: Callable[..., Awaitable[str]]
) -> None:
    table_id = await new_table()
    runtime = TableRuntime(grpc_service.store, RuntimeSettings(auto_deal=False))
    try:
        impatient = asyncio.ensure_future(runtime.table(table_id))
        patient = [asyncio.ensure_future(runtime.table(table_id)) for _ in range(5)]
        await asyncio.sleep(0)
        impatient.cancel()
        tables = await asyncio.gather(*patient)
        assert all(live is tables[0] for live in tables)
        assert tables[0].version >= 1
        assert runtime.loaded_tables() == [tables[0]]
        assert runtime.loading_count() == 0
    finally:
        await runtime.close()


async def test_the_api_keeps_no_trace_of_unknown_table_names(grpc_service: ServiceUnderTest) -> None:
    client = grpc_service.client("mallory")
    loaded = len(grpc_service.runtime.loaded_tables())

    async def ask(number: int) -> None:
        with pytest.raises(grpc.aio.AioRpcError) as refused:
            await client.view(f"ghost-{number}")
        assert refused.value.code() == grpc.StatusCode.NOT_FOUND

    for start in range(0, 2_000, 100):
        await asyncio.gather(*(ask(number) for number in range(start, start + 100)))
    assert grpc_service.runtime.loading_count() == 0
    assert len(grpc_service.runtime.loaded_tables()) == loaded


@pytest.mark.parametrize("batch_events", [False, True])
async def test_a_resumed_watch_reads_the_log_a_page_at_a_time(
    grpc_service: ServiceUnderTest,
    new_table: Callable[..., Awaitable[str]],
    monkeypatch: pytest.MonkeyPatch,
    batch_events: bool,
) -> None:
    """Resuming at the start of a long table must not hold the table's whole history in memory."""
    table_id = await new_table()
    alice = grpc_service.client("alice")
    await alice.sit_down(table_id, 1, 10_000)
    for _ in range(4):
        await alice.sit_out(table_id)
        await alice.sit_in(table_id)
    head = (await alice.view(table_id)).version  # 10 events: the table, a seat, 8 sit-outs and -ins
    monkeypatch.setattr(table_watch, "LOG_PAGE", 3)
    rows_read: list[int] = []
    store = grpc_service.store
    real_read = store.read_stream

    async def counting_read(*args: Any, **kwargs: Any) -> list[Any]:
        rows = await real_read(*args, **kwargs)
        rows_read.append(len(rows))
        return rows

    monkeypatch.setattr(store, "read_stream", counting_read)
    stream = alice.watch(table_id, after_version=1, include_views=True, batch_events=batch_events)
    versions: list[int] = []
    while not versions or versions[-1] < head:
        message = await asyncio.wait_for(stream.read(), 10)
        versions.extend(event.version for event in events_of(message))
    stream.cancel()
    assert versions == list(range(2, head + 1))
    assert message.view.version == head  # the message reaching the live version carries the view
    assert rows_read and max(rows_read) <= 3
