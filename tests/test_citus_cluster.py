"""The event log on a real Citus cluster (a coordinator and two workers, tests/citus_cluster.py), laid out
by ``stud-service migrate --citus``: the placement is the layout's, and every store path works there: appends
on one stream (handed to the stream's worker) and over several (through the coordinator), the checks of
both, reads, verification, the listener and its safety-net poll, and the lease round (take, renew, hand
over) with the fenced appends it guards. And what each path sends to the workers, counted in their logs."""

from __future__ import annotations

import asyncio
import re
import uuid
from collections.abc import AsyncIterator, Awaitable, Callable

import psycopg
import pytest
import pytest_asyncio
from citus_cluster import CitusCluster, migrate_citus

from stud_service.db import open_pool
from stud_service.server.tables.ownership import Leases
from stud_service.store import ConcurrencyError, EventStore, LeaseLost
from stud_service.store.citus import layout
from stud_service.store.models import Fence, StreamAppend
from stud_service.store.subscribe import HEADS_SQL

pytestmark = pytest.mark.citus

COLOCATED = ("streams", "events", "snapshots", "table_leases")
STATEMENT_LINE = re.compile(r"LOG:  (statement|execute [^:]*): ")


@pytest_asyncio.fixture(scope="module", loop_scope="session")
async def store(citus: CitusCluster) -> AsyncIterator[EventStore]:
    pool = await open_pool(citus.url, max_size=8)
    event_store = EventStore(pool)
    try:
        yield event_store
    finally:
        await event_store.close()
        await pool.close()


def new_stream(kind: str = "tables") -> str:
    return f"{kind}/{uuid.uuid4().hex[:12]}"


def events(count: int, hand: int | None = None) -> list[dict]:
    return [{"type": "Noted", "n": n, **({"hand": hand} if hand else {})} for n in range(count)]


async def rows(url: str, sql: str, *params: object) -> list[tuple]:
    async with await psycopg.AsyncConnection.connect(url, autocommit=True) as conn:
        return await (await conn.execute(sql, params)).fetchall()


async def run(url: str, *statements: str) -> None:
    async with await psycopg.AsyncConnection.connect(url, autocommit=True) as conn:
        for statement in statements:
            await conn.execute(statement)


async def test_migrate_citus_places_every_table_and_function_as_the_layout_says_and_repeats(
    citus: CitusCluster,
) -> None:
    partitions = dict(await rows(citus.url, (
        "SELECT logicalrelid::regclass::text, partmethod::text"
        " || coalesce(column_to_column_name(logicalrelid, partkey), '') || ':' || colocationid"
        " FROM pg_dist_partition")))
    methods = {table: kind.split(":")[0] for table, kind in partitions.items()}
    assert methods == {**dict.fromkeys(COLOCATED, "hstream_id"), "replicas": "n"}
    assert len({partitions[table].split(":")[1] for table in COLOCATED}) == 1, partitions
    colocation = int(partitions["events"].split(":")[1])
    functions = dict(await rows(citus.url, (
        "SELECT p.proname::text, coalesce(o.distribution_argument_index, -1) || ':'"
        " || coalesce(o.colocationid, 0) FROM pg_dist_object o JOIN pg_proc p"
        " ON o.classid = 'pg_proc'::regclass AND o.objid = p.oid WHERE starts_with(p.proname, 'stud_')")))
    assert functions["stud_append_stream"] == f"0:{colocation}"  # by p_stream, beside the events
    assert {p.table for p in layout()} == set(partitions) | ({p.table for p in layout()} & set(functions))
    # Each worker holds shards of the events; the coordinator none.
    nodes = {port for (port,) in await rows(citus.url, (
        "SELECT DISTINCT nodeport FROM pg_dist_shard_placement JOIN pg_dist_shard USING (shardid)"
        " WHERE logicalrelid = 'events'::regclass"))}
    assert nodes == {worker.port for worker in citus.workers}
    status, output = await asyncio.to_thread(migrate_citus, citus.url)
    assert status == 0 and "already placed" in output, output


async def test_appends_on_one_stream_and_over_several_keep_their_checks_on_citus(store: EventStore) -> None:
    table, account = new_stream(), new_stream("accounts")
    first = await store.append(table, 0, events(2, hand=1), request_id="r1")
    assert (first.first_version, first.version, first.duplicate) == (1, 2, False)
    again = await store.append(table, 0, events(2, hand=1), request_id="r1")  # a retry: the original answer
    assert (again.first_version, again.version, again.duplicate) == (1, 2, True)
    with pytest.raises(ConcurrencyError):
        await store.append(table, 1, events(1))
    # A money move: both streams or neither.
    moved = await store.append_all([StreamAppend(account, 0, events(1), request_id="m1"),
                                    StreamAppend(table, 2, events(1), request_id="m1")])
    assert [r.version for r in moved] == [1, 3]
    with pytest.raises(ConcurrencyError):
        await store.append_all([StreamAppend(account, 1, events(1)), StreamAppend(table, 2, events(1))])
    assert await store.head(account) == 1 and await store.head(table) == 3
    # Many at once, on many streams: each its own outcome (one-stream commands each to their worker, the
    # two-stream ones batched through the coordinator).
    streams = [new_stream() for _ in range(12)]
    results = await asyncio.gather(
        *(store.append(s, 0, events(3)) for s in streams),
        *(store.append_all([StreamAppend(new_stream("accounts"), 0, events(1)),
                            StreamAppend(new_stream("house"), 0, events(1))]) for _ in range(6)),
    )
    assert [r.version for r in results[:12]] == [3] * 12
    assert all([r.version for r in pair] == [1, 1] for pair in results[12:])
    for stream_id in [table, account, *streams]:
        assert (await store.verify(stream_id)).ok
    assert [e.version for e in await store.read_stream(table)] == [1, 2, 3]
    assert await store.hand_numbers(table) == [1]
    assert [e.version for e in await store.read_hand(table, 1)] == [1, 2]
    assert (await store.heads([table, account, "tables/never"])) == {table: 3, account: 1, "tables/never": 0}
    listed = await store.list_streams(prefix="tables/", limit=1000)
    assert {table, *streams} <= {info.stream_id for info in listed}


async def test_the_batch_statement_through_the_coordinator_also_works_on_citus(store: EventStore) -> None:
    """The one-node path (one statement for a whole batch, hashes made here) is refused nowhere on Citus:
    a store that does not route still writes correctly, only with more work on the coordinator."""
    writer = store._writer
    routed, writer.routed = writer.routed, False
    try:
        streams = [new_stream() for _ in range(6)]
        done = await asyncio.gather(*(store.append(s, 0, events(2)) for s in streams))
        assert [r.version for r in done] == [2] * 6
        done = await asyncio.gather(*(store.append(s, 2, events(1)) for s in streams))
        assert [r.version for r in done] == [3] * 6
        for stream_id in streams:
            assert (await store.verify(stream_id)).ok
    finally:
        writer.routed = routed


async def test_the_listener_hears_appends_and_its_safety_net_poll_runs_on_citus(citus: CitusCluster) -> None:
    pool = await open_pool(citus.url, max_size=4)
    store = EventStore(pool, poll_interval=1.0)  # its own: its listener stops with the test
    try:
        await hear_appends_and_poll(citus, store)
    finally:
        await store.close()
        await pool.close()


async def hear_appends_and_poll(citus: CitusCluster, store: EventStore) -> None:
    stream_id = new_stream()
    await store.append(stream_id, 0, events(1))
    heard: list[int] = []

    async def follow() -> None:
        async for event in store.subscribe(stream_id):
            heard.append(event.version)
            if event.version == 3:
                return

    following = asyncio.create_task(follow())
    await asyncio.sleep(0.5)
    await store.append(stream_id, 1, events(1))
    await store.append(stream_id, 2, events(1))
    await asyncio.wait_for(following, 30)
    assert heard == [1, 2, 3]
    heads = await rows(citus.url, HEADS_SQL, [stream_id, "tables/never"])
    assert heads == [(stream_id, 3), ("tables/never", None)]
    hub = store._hub
    assert hub is not None
    polls = hub.polls
    follower = asyncio.create_task(anext(aiter(store.subscribe(stream_id, after_version=3))))
    try:
        async with asyncio.timeout(30):  # the poll runs every second here: a refused one would reconnect
            while hub.polls < polls + 2:
                await asyncio.sleep(0.1)
    finally:
        follower.cancel()


async def test_the_lease_round_takes_renews_and_hands_over_and_fences_appends_on_citus(
    citus: CitusCluster, store: EventStore,
) -> None:
    table = new_stream()
    await store.append(table, 0, events(1))
    pool = store.pool
    a, b = Leases(pool, f"a-{table}", lease_seconds=1.0), Leases(pool, f"b-{table}", lease_seconds=1.0)
    await a.renew([])
    taken = await a.take({table: 1})  # its clients use it: a takes it first
    assert taken.get(table) == 1
    assert await a.renew([table], {table: 1}) == {table: 1}
    plan = await a.plan([table], {table: 1})
    assert table in plan.claimed_here
    fence = Fence(table, a.me, 1)
    assert (await store.append(table, 1, events(1), fence=fence)).version == 2  # to the stream's worker
    await a.release([table])
    await b.renew([])
    assert (await b.take({table: 1})).get(table) == 2  # released: b takes it at the next epoch
    with pytest.raises(LeaseLost):
        await store.append(table, 2, events(1), fence=fence)
    with pytest.raises(LeaseLost):
        await store.append_all([StreamAppend(table, 2, events(1)), StreamAppend(new_stream("accounts"), 0,
                                                                               events(1))], fence=fence)
    assert (await store.append(table, 2, events(1), fence=Fence(table, b.me, 2))).version == 3
    await b.leave([table])
    await a.leave([])


ENTRY = re.compile(r"^\d{4}-\d\d-\d\d [\d:.]+ \w+ \[(\d+)\] (\w+):  (.*)$", re.MULTILINE)


def received(log: str) -> list[str]:
    """The statements a node received from a client (the coordinator, for a worker) in ``log``: its log
    entries of statements run, less those a function ran inside it (followed by a CONTEXT entry)."""
    entries = ENTRY.findall(log)
    found = []
    for index, (pid, level, text) in enumerate(entries):
        if level != "LOG" or not STATEMENT_LINE.match(f"{level}:  {text}"):
            continue
        following = [e for e in entries[index + 1:index + 4] if e[0] == pid]
        if not any(e[1] == "CONTEXT" for e in following[:2] if e[1] != "LOG"):
            found.append(text)
    return found


async def worker_statements(citus: CitusCluster, work: Callable[[], Awaitable[object]]) -> int:
    """The statements the workers received from the coordinator while ``work`` ran (their logs, with
    log_statement = all)."""
    marks = [len(worker.log_text()) for worker in citus.workers]
    await work()
    await asyncio.sleep(0.5)  # logged as each statement starts: long since; but be generous
    texts = [text for worker, mark in zip(citus.workers, marks, strict=True)
             for text in received(worker.log_text()[mark:])]
    # Citus's own background work (its distributed deadlock detector asks every worker for its lock waits)
    # is not the path's.
    return sum("waiting_pid" not in text for text in texts)


async def test_statements_each_path_sends_to_the_workers(citus: CitusCluster) -> None:
    """A single-stream append, fenced or not, is one statement to one worker (the delegated function call);
    the multi-stream paths go through the coordinator and send more. The counts are printed (and are
    docs/deployment.md's). A store of its own: no other test's listener polls meanwhile."""
    pool = await open_pool(citus.url, max_size=4)
    store = EventStore(pool)
    for worker in citus.workers:
        await run(worker.url("stud"), "ALTER SYSTEM SET log_statement = 'all'", "SELECT pg_reload_conf()")
    try:
        table, account = new_stream(), new_stream("accounts")
        await store.append(table, 0, events(1))  # connections opened, the streams started
        await store.append(account, 0, events(1))
        leases = Leases(store.pool, f"count-{table}")
        await leases.renew([])
        epoch = (await leases.take({table: 1}))[table]
        await leases.renew([table], {table: 1})
        version = {table: 1, account: 1}
        appends = 5

        async def one_stream() -> None:
            for _ in range(appends):
                version[table] = (await store.append(table, version[table], events(3))).version

        async def fenced() -> None:
            for _ in range(appends):
                fence = Fence(table, leases.me, epoch)
                version[table] = (await store.append(table, version[table], events(3), fence=fence)).version

        async def money_move() -> None:
            for _ in range(appends):
                moved = await store.append_all([StreamAppend(account, version[account], events(1)),
                                                StreamAppend(table, version[table], events(1))])
                version[account], version[table] = moved[0].version, moved[1].version

        async def renewal() -> None:
            for _ in range(appends):
                await leases.renew([table], {table: 1})

        async def plan() -> None:
            for _ in range(appends):
                await leases.plan([table], {table: 1})

        async def search() -> None:
            for _ in range(appends):
                await leases.take({table: 1})

        paths = [("one stream", one_stream), ("one stream, fenced", fenced),
                 ("money move (two streams)", money_move), ("lease renewal", renewal), ("lease plan", plan),
                 ("search for free leases", search)]
        counts = {name: await worker_statements(citus, work) / appends for name, work in paths}
        print("statements received by the workers, per call:", counts)
        assert counts["one stream"] == 1 and counts["one stream, fenced"] == 1, counts
        # The renewal names its leases (routed to their shards; the heartbeat's reference row to every node);
        # the search for free leases reads all 32 shards, which is why a round holding its share skips it.
        assert counts["lease renewal"] < 32 <= counts["search for free leases"], counts
        await leases.leave([table])
    finally:
        for worker in citus.workers:
            await run(worker.url("stud"), "ALTER SYSTEM RESET log_statement", "SELECT pg_reload_conf()")
        await store.close()
        await pool.close()


async def test_a_workers_session_does_not_grow_with_the_appends_it_runs(citus: CitusCluster) -> None:
    """The function's statements are planned for each call's stream and none kept: a generic plan's shard
    plan, which Citus planned again at every execution and kept each copy of, grew a worker's session by about
    200 kB an append (the coordinator keeps its connections to the workers open for minutes). Called here on
    the worker itself, as the coordinator's delegated call runs there, on streams whose shards it holds."""
    worker = citus.workers[0]
    async with await psycopg.AsyncConnection.connect(worker.url("stud"), autocommit=True) as conn:
        streams: list[str] = []
        while len(streams) < 4:
            stream_id = new_stream()
            cur = await conn.execute(
                "SELECT nodeport FROM pg_dist_shard_placement"
                " WHERE shardid = get_shard_id_for_distribution_column('events', %s::text)", (stream_id,))
            if (await cur.fetchone()) == (worker.port,):
                streams.append(stream_id)
        version = dict.fromkeys(streams, 0)
        texts = "\n".join(f'{{"type":"Noted","n":{n}}}' for n in range(3))

        async def appends(count: int) -> None:
            for n in range(count):
                stream_id = streams[n % len(streams)]
                cur = await conn.execute("SELECT stud_append_stream(%s, NULL, NULL, %s, %s, NULL, %s)",
                                         (stream_id, version[stream_id], uuid.uuid4().hex, texts))
                row = await cur.fetchone()
                assert row is not None and chr(row[0][0]) == "a", row
                version[stream_id] = row[0][2]

        async def session_bytes() -> int:
            cur = await conn.execute("SELECT sum(total_bytes)::bigint FROM pg_backend_memory_contexts")
            row = await cur.fetchone()
            assert row is not None
            return row[0]

        await appends(40)  # past the plan cache's first five custom plans
        before = await session_bytes()
        await appends(200)
        grown = await session_bytes() - before
        assert grown < 1_000_000, f"the worker's session grew by {grown:,} bytes over 200 appends"
