"""The event log on a real Citus cluster (a coordinator and two workers, tests/citus_cluster.py), laid out
by ``stud-service migrate --citus``: the placement is the layout's, and every store path works there: appends
on one stream (handed to the stream's worker) and over several (through the coordinator), the checks of
both, reads, verification, the listener and its safety-net poll, and the lease round (take, renew, hand
over) with the fenced appends it guards. And what each path sends to the workers, counted in their logs."""

from __future__ import annotations

import asyncio
import contextlib
import re
import socket
import uuid
from collections.abc import AsyncIterator, Awaitable, Callable

import psycopg
import pytest
import pytest_asyncio
from citus_cluster import CitusCluster, migrate_citus
from prometheus_client import generate_latest
from prometheus_client.parser import text_string_to_metric_families

from stud_service.db import open_pool
from stud_service.observability.metrics import Metrics
from stud_service.server.tables.ownership import Leases
from stud_service.store import ConcurrencyError, EventStore, LeaseLost
from stud_service.store.citus import layout
from stud_service.store.citus_routes import WorkerRoutes
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


async def learnt_routes(store: EventStore) -> WorkerRoutes:
    """The store's routes to the workers, learnt at its first append (the module's store may be new here:
    a test run alone, or after the module's fixtures were set up again, has appended nothing yet)."""
    await store.append(new_stream(), 0, events(1))
    routes = store._writer.routes
    assert routes is not None
    return routes


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


async def worker_port_of(citus: CitusCluster, stream_id: str) -> int:
    """The port of the worker holding ``stream_id``'s shard, as the coordinator's catalogue says."""
    ((port,),) = await rows(
        citus.url, "SELECT nodeport FROM pg_dist_shard_placement"
        " WHERE shardid = get_shard_id_for_distribution_column('events', %s::text)", stream_id)
    return int(port)


async def streams_on_every_worker(citus: CitusCluster, count: int) -> list[str]:
    """At least ``count`` new streams, drawn until the coordinator's catalogue puts one on each worker."""
    streams: list[str] = []
    ports: set[int] = set()
    while len(streams) < count or ports != {worker.port for worker in citus.workers}:
        streams.append(new_stream())
        ports.add(await worker_port_of(citus, streams[-1]))
    return streams


async def sent_straight(store: EventStore, stream_id: str, version: int) -> int:
    """Append to ``stream_id`` until the store sends its appends straight to a worker; the version reached."""
    async with asyncio.timeout(30):
        while store.appends_sent_to(stream_id) != "worker":
            version = (await store.append(stream_id, version, events(1))).version
            await asyncio.sleep(0.05)
    return version


async def test_an_append_on_one_stream_goes_straight_to_the_worker_holding_its_shard(
    citus: CitusCluster, store: EventStore,
) -> None:
    """After its first append the store learns the stream's worker and sends the next ones there, on a
    connection of its own to that worker: the one the coordinator's catalogue names, the other never."""
    streams = await streams_on_every_worker(citus, 6)
    versions = {s: (await store.append(s, 0, events(1))).version for s in streams}
    for stream_id in streams:
        versions[stream_id] = await sent_straight(store, stream_id, versions[stream_id])
    ports = {s: await worker_port_of(citus, s) for s in streams}
    assert set(ports.values()) == {w.port for w in citus.workers}, ports
    async with statements_logged(citus):
        for stream_id in streams:
            async def one(stream_id: str = stream_id) -> None:
                versions[stream_id] = (await store.append(stream_id, versions[stream_id], events(2))).version

            texts = await received_by(citus, one)
            calls = {port: sum(is_append(text) for text in found) for port, found in texts.items()}
            assert calls == {port: int(port == ports[stream_id]) for port in calls}, (ports[stream_id], texts)
    for stream_id in streams:
        assert (await store.verify(stream_id)).ok
        assert await store.head(stream_id) == versions[stream_id]


async def test_the_worker_pools_are_in_the_pool_metrics(citus: CitusCluster, store: EventStore) -> None:
    """An operator sees the replica's connections to each worker beside its main pool: every pool the store
    opened to a worker is read at each scrape, under its worker's name."""
    metrics = Metrics()
    metrics.watch_pools(store.worker_pools)
    stream_id = new_stream()
    version = await sent_straight(store, stream_id, (await store.append(stream_id, 0, events(1))).version)
    await store.append(stream_id, version, events(1))  # on a connection of the worker's pool
    port = await worker_port_of(citus, stream_id)
    text = generate_latest(metrics.registry).decode()
    found = {(sample.name, sample.labels.get("pool")): sample.value
             for family in text_string_to_metric_families(text) for sample in family.samples}
    name = f"citus-worker 127.0.0.1:{port}"
    assert found[("stud_db_pool_min_connections", name)] == 1, sorted(found)
    assert found[("stud_db_pool_requests_total", name)] >= 1


async def test_an_append_sent_to_a_worker_that_no_longer_holds_its_shard_is_handed_on(
    citus: CitusCluster, store: EventStore,
) -> None:
    """The store's knowledge of where a stream lives may be old (a shard moved since it looked): the worker
    it sends the append to hands the call on to the shard's worker, and the chain stays whole."""
    routes = await learnt_routes(store)
    stream_id = new_stream()
    version = await sent_straight(store, stream_id, (await store.append(stream_id, 0, events(1))).version)
    home = await worker_port_of(citus, stream_id)
    (other,) = [w for w in citus.workers if w.port != home]
    await routes._learn([(stream_id, "127.0.0.1", other.port)])  # as if the shard had moved from there
    assert store.appends_sent_to(stream_id) == "worker"
    for _ in range(3):
        version = (await store.append(stream_id, version, events(2))).version
    assert await store.head(stream_id) == version
    assert (await store.verify(stream_id)).ok
    with pytest.raises(ConcurrencyError):
        await store.append(stream_id, version - 1, events(1))


async def test_a_stream_whose_worker_cannot_be_reached_is_appended_through_the_coordinator(
    citus: CitusCluster, store: EventStore,
) -> None:
    """A worker this process cannot connect to (its name as the coordinator knows it not reachable from
    here: a port nothing listens on stands for it) costs nothing but speed: its streams' appends go
    through the coordinator, which reaches the worker itself."""
    routes = await learnt_routes(store)
    stream_id = new_stream()
    version = (await store.append(stream_id, 0, events(1))).version
    with socket.socket() as probe:  # a port taken for a moment, then free: nothing listens there
        probe.bind(("127.0.0.1", 0))
        silent = probe.getsockname()[1]
    await routes._learn([(stream_id, "127.0.0.1", silent)])
    assert store.appends_sent_to(stream_id) == "coordinator"
    for _ in range(3):
        version = (await store.append(stream_id, version, events(2))).version
    assert await store.head(stream_id) == version == 7
    assert (await store.verify(stream_id)).ok


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
    # Nothing here waits for a lease to run out (a releases, b takes): a long one, as a second's ran out on a
    # busy machine between b's take and its append.
    a, b = Leases(pool, f"a-{table}", lease_seconds=60.0), Leases(pool, f"b-{table}", lease_seconds=60.0)
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


SHARD = re.compile(r"\b[a-z_]+_\d{6}\b")  # a shard's table, as Citus names it (events_102043)
TRANSACTION_CONTROL = re.compile(r"BEGIN|COMMIT|ROLLBACK|PREPARE TRANSACTION|assign_distributed_transaction")


def received(log: str) -> list[str]:
    """The statements a node received from a client (the coordinator, for a worker) in ``log``: its log
    entries of statements run, less those a function ran inside it (followed by a CONTEXT entry) and the
    shard statements Citus ran itself for a statement on a distributed table it received (logged next by
    the same backend: local execution, no round trip)."""
    entries = ENTRY.findall(log)
    found = []
    last: dict[str, str] = {}  # backend pid -> its last statement logged
    for index, (pid, level, text) in enumerate(entries):
        if level != "LOG" or not STATEMENT_LINE.match(f"{level}:  {text}"):
            continue
        before, last[pid] = last.get(pid), text
        if SHARD.search(text) and before is not None and not SHARD.search(before) and not (
                TRANSACTION_CONTROL.search(before)):
            continue
        following = [e for e in entries[index + 1:index + 4] if e[0] == pid]
        if not any(e[1] == "CONTEXT" for e in following[:2] if e[1] != "LOG"):
            found.append(text)
    return found


def is_append(statement: str) -> bool:
    """Whether a logged statement is an append: the writer's batch statement or one of its functions."""
    return re.search(r"stud_append_(rows|values_\d+|parts|fenced|stream)\b", statement) is not None


async def received_by(citus: CitusCluster, work: Callable[[], Awaitable[object]]) -> dict[int, list[str]]:
    """The statements each node (by port) received while ``work`` ran, from the coordinator (for a worker)
    or straight from a client: their logs, with log_statement = all."""
    nodes = citus.nodes()
    marks = [len(node.log_text()) for node in nodes]
    await work()
    await asyncio.sleep(0.5)  # logged as each statement starts: long since; but be generous
    return {node.port: received(node.log_text()[mark:]) for node, mark in zip(nodes, marks, strict=True)}


async def statements(citus: CitusCluster, work: Callable[[], Awaitable[object]]) -> tuple[int, list[str]]:
    """How many statements the workers received while ``work`` ran, and those the coordinator received."""
    texts = await received_by(citus, work)
    # Citus's own background work (its distributed deadlock detector asks every worker for its lock waits)
    # is not the path's.
    at_workers = sum("waiting_pid" not in text for w in citus.workers for text in texts[w.port])
    return at_workers, texts[citus.coordinator.port]


@contextlib.asynccontextmanager
async def statements_logged(citus: CitusCluster) -> AsyncIterator[None]:
    for node in citus.nodes():
        await run(node.url("stud"), "ALTER SYSTEM SET log_statement = 'all'", "SELECT pg_reload_conf()")
    try:
        yield
    finally:
        for node in citus.nodes():
            await run(node.url("stud"), "ALTER SYSTEM RESET log_statement", "SELECT pg_reload_conf()")


async def test_statements_each_path_sends_to_the_workers(citus: CitusCluster) -> None:
    """A single-stream append, fenced or not, is one statement to one worker (the function call, sent
    straight to the stream's worker once the store knows which that is: none through the coordinator); the
    multi-stream paths go through the coordinator and send more. The counts are printed (and are
    docs/deployment.md's). A store of its own: no other test's listener polls meanwhile."""
    pool = await open_pool(citus.url, max_size=4)
    store = EventStore(pool)
    try:
        async with statements_logged(citus):
            await count_statements(citus, store)
    finally:
        await store.close()
        await pool.close()


async def count_statements(citus: CitusCluster, store: EventStore) -> None:
    table, account = new_stream(), new_stream("accounts")
    await store.append(table, 0, events(1))  # connections opened, the streams started
    await store.append(account, 0, events(1))
    leases = Leases(store.pool, f"count-{table}")
    await leases.renew([])
    epoch = (await leases.take({table: 1}))[table]
    await leases.renew([table], {table: 1})
    version = {table: 1, account: 1}
    # The store looks the stream's worker up after its first append, and sets its session up there at the
    # first append it sends there.
    version[table] = await sent_straight(store, table, version[table])
    version[table] = (await store.append(table, version[table], events(1))).version
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
    counts, through_coordinator = {}, {}
    for name, work in paths:
        at_workers, at_coordinator = await statements(citus, work)
        counts[name] = at_workers / appends
        through_coordinator[name] = sum("stud_append_stream" in text for text in at_coordinator)
    print("statements received by the workers, per call:", counts)
    assert counts["one stream"] == 1 and counts["one stream, fenced"] == 1, counts
    assert through_coordinator["one stream"] == through_coordinator["one stream, fenced"] == 0, (
        through_coordinator)
    # The renewal names its leases (routed to their shards; the heartbeat's reference row to every node);
    # the search for free leases reads all 32 shards, which is why a round holding its share skips it.
    assert counts["lease renewal"] < 32 <= counts["search for free leases"], counts
    await leases.leave([table])


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
