"""Database faults, from outside: a real service on a PostgreSQL of the test's own, which is stopped,
has its backends terminated and runs out of disk, while tables are mid-play.

Afterwards every table deals again and every due action clock fires within a few seconds, with no
client doing anything; readiness follows the store while liveness does not; and while the store is
away every method is refused UNAVAILABLE + STORE_UNAVAILABLE + RetryInfo within the caller's deadline,
in a plain sentence.

The disk-full case puts the service's database in a tablespace on a small tmpfs, so PostgreSQL's own
writes fail with "No space left on device" while the server itself stays up; mounting needs root.
"""

from __future__ import annotations

import asyncio
import base64
import collections
import contextlib
import errno
import shutil
import subprocess
import tempfile
import time
import uuid
from collections.abc import AsyncIterator, Awaitable, Callable
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path

import grpc
import psycopg
import pytest
import pytest_asyncio
from connectrpc.client import ConnectClient
from connectrpc.code import Code
from connectrpc.compat import google_protobuf_json_codec
from connectrpc.errors import ConnectError
from google.rpc import error_details_pb2
from grpc_fixtures import TOKEN_SECRET, table_spec
from grpc_health.v1 import health_pb2, health_pb2_grpc
from grpc_status import rpc_status
from own_postgres import OwnPostgres, started_with_database
from web_fixtures import RouteCaller, RouteError, http_client, method_named
from web_fixtures import error_info as web_error_info

from stud_service.auth import Role, mint_token
from stud_service.bots import StudClient
from stud_service.bots.client import error_reason, new_request_id
from stud_service.db import open_pool
from stud_service.engine import chips_in_play
from stud_service.server.api.errors import store_wait_limit
from stud_service.server.api.tournament_service import TournamentService
from stud_service.server.grpc.app import AUDIT_SERVICE_NAME, CASHIER_SERVICE_NAME, TABLE_SERVICE_NAME
from stud_service.server.grpc.readiness import LIVENESS_SERVICE
from stud_service.server.host import ServiceHost, ServiceOptions
from stud_service.server.proto_gen import (
    audit_service_pb2,
    cashier_service_pb2,
    table_pb2,
    table_service_pb2,
    tournament_pb2,
    tournament_service_pb2,
)
from stud_service.server.web.connect import method_info
from stud_service.store.tables import load_table

SMALL_DISK = "48m"
# Long enough for the setup to finish before anything is due, even on a busy machine.
HAND_PAUSE = 6.0
ACTION_CLOCK = 8
OUTAGE = 10.0  # longer than both: whatever was set up comes due while the database is down
RECOVERY = 20.0  # "within a few seconds of recovery" (about one; a loaded machine must not fail it)
BUY_IN = 5_000


@dataclass
class FaultyDatabase:
    pg: OwnPostgres
    url: str
    small_disk: Path | None  # the tmpfs holding the database's tablespace; None if it cannot be mounted
    why_no_disk: str = ""

    def sql(self, query: str, params: tuple = ()) -> list[tuple]:
        with psycopg.connect(self.url, autocommit=True) as conn:
            cursor = conn.execute(query, params)
            return cursor.fetchall() if cursor.description else []

    def sql_as_maintenance(self, statement: str) -> None:
        """Run a server-wide statement (``ALTER SYSTEM``), then reload the configuration: every session
        takes the change."""
        with psycopg.connect(self.pg.maintenance_url, autocommit=True) as conn:
            conn.execute(statement)
            conn.execute("SELECT pg_reload_conf()")


def _mount_small_disk(path: Path) -> str:
    """Mount a small tmpfs at ``path``; the reason if that is impossible here, else ''."""
    path.mkdir()
    try:
        subprocess.run(
            ["mount", "-t", "tmpfs", "-o", f"size={SMALL_DISK}", "tmpfs", str(path)],
            check=True,
            capture_output=True,
            timeout=10,
        )
    except (OSError, subprocess.SubprocessError) as error:
        detail = getattr(error, "stderr", b"") or b""
        return f"cannot mount a tmpfs here ({error}; {detail.decode(errors='replace').strip()})"
    return ""


@pytest_asyncio.fixture
async def database() -> AsyncIterator[FaultyDatabase]:
    workdir = Path(tempfile.mkdtemp(prefix="stud-fault-pg-"))
    pg = OwnPostgres(workdir)
    small = workdir / "small"
    mounted = False
    try:
        await asyncio.to_thread(pg.init_from_copy)
        await asyncio.to_thread(pg.start)
        why = _mount_small_disk(small)
        mounted = not why
        with psycopg.connect(pg.maintenance_url, autocommit=True) as conn:
            if mounted:
                pg.own(small)
                conn.execute(f"CREATE TABLESPACE small LOCATION '{small}'")
                conn.execute("CREATE DATABASE stud TABLESPACE small")
            else:
                conn.execute("CREATE DATABASE stud")
        yield FaultyDatabase(pg, pg.url("stud"), small if mounted else None, why)
    finally:
        await asyncio.to_thread(pg.destroy)
        if mounted:
            subprocess.run(["umount", "-l", str(small)], check=False, capture_output=True, timeout=10)
        shutil.rmtree(workdir, ignore_errors=True)  # the mount point, left while it was mounted


@pytest_asyncio.fixture
async def start_service() -> AsyncIterator[Callable[..., Awaitable[ServiceHost]]]:
    hosts: list[ServiceHost] = []

    async def start(url: str, **options) -> ServiceHost:
        settings = {
            "token_secret": TOKEN_SECRET,
            "database_url": url,
            "listen": "127.0.0.1:0",
            "metrics_listen": "off",
            "hand_pause_seconds": HAND_PAUSE,
            "grace_seconds": 0.0,
            "pool_size": 8,
            "store_timeout_seconds": 1.0,
            "unready_after_seconds": 1.0,
            **options,
        }
        host = ServiceHost(ServiceOptions(**settings))
        await host.start()
        hosts.append(host)
        return host

    yield start
    for host in reversed(hosts):
        with contextlib.suppress(Exception):
            await host.stop()


@contextlib.asynccontextmanager
async def channel_to(host: ServiceHost) -> AsyncIterator[grpc.aio.Channel]:
    channel = grpc.aio.insecure_channel(f"127.0.0.1:{host.port}")
    try:
        yield channel
    finally:
        await channel.close()


def client(channel: grpc.aio.Channel, player: str, role: Role = Role.PLAYER) -> StudClient:
    return StudClient(channel, mint_token(TOKEN_SECRET, player, role))


async def seat_two(channel: grpc.aio.Channel, table_id: str) -> None:
    for seat, player in ((1, "alice"), (2, "bob")):
        await client(channel, player).sit_down(table_id, seat, BUY_IN)


async def seat_two_retrying(channel: grpc.aio.Channel, table_id: str, within: float) -> None:
    """As a client does after an outage: a call refused UNAVAILABLE is sent again, with its request id, until
    it goes in (a loaded machine may take more than the store timeout to reconnect the pool)."""
    for seat, player in ((1, "alice"), (2, "bob")):
        request_id, deadline = new_request_id(), time.monotonic() + within
        while True:
            try:
                await client(channel, player).sit_down(table_id, seat, BUY_IN, request_id=request_id)
                break
            except grpc.aio.AioRpcError as error:
                if error.code() != grpc.StatusCode.UNAVAILABLE or time.monotonic() > deadline:
                    raise
                await asyncio.sleep(0.2)


async def new_tables(operator: StudClient, count: int) -> list[str]:
    names = [f"t-{uuid.uuid4().hex[:10]}" for _ in range(count)]
    for name in names:
        await operator.create_table(name, table_spec(action_clock=ACTION_CLOCK))
    return names


def first_event_after(
    db: FaultyDatabase, table_id: str, kind: str, after: float, timed_out: bool = False
) -> datetime | None:
    """When the table's first ``kind`` event recorded after ``after`` (epoch seconds) was recorded."""
    rows = db.sql(
        "SELECT recorded_at FROM events WHERE stream_id = %s AND type = %s"
        " AND recorded_at > to_timestamp(%s) AND (NOT %s OR (payload->>'timeout')::boolean)"
        " ORDER BY version LIMIT 1",
        (f"tables/{table_id}", kind, after, timed_out),
    )
    return rows[0][0] if rows else None


async def wait_for_events(
    db: FaultyDatabase, wanted: dict[str, tuple[str, bool]], since: float, recovered: float, timeout: float
) -> dict[str, float]:
    """Seconds after ``recovered`` at which each table's first wanted event since ``since`` was recorded
    (waiting up to ``timeout``); each must be after ``recovered``: it could not happen before."""
    found: dict[str, float] = {}
    deadline = time.monotonic() + timeout
    while len(found) < len(wanted) and time.monotonic() < deadline:
        for table_id, (kind, timed_out) in wanted.items():
            if table_id not in found:
                when = await asyncio.to_thread(first_event_after, db, table_id, kind, since, timed_out)
                if when is not None:
                    found[table_id] = when.timestamp() - recovered
        await asyncio.sleep(0.1)
    missing = sorted(set(wanted) - set(found))
    assert not missing, f"no {[wanted[t] for t in missing]} within {timeout} s at {missing}"
    assert all(delay >= 0 for delay in found.values()), found
    return found


async def wait_for_hand(channel: grpc.aio.Channel, table_id: str, timeout: float = 30.0) -> None:
    spectator = client(channel, "spectator")
    deadline = time.monotonic() + timeout
    while not (await spectator.view(table_id)).HasField("hand"):
        assert time.monotonic() < deadline, f"{table_id} never dealt"
        await asyncio.sleep(0.05)


async def assert_books_hold(host: ServiceHost, tables: list[str]) -> None:
    """Every table's chips are the buy-ins, and its hash chain is whole."""
    assert host.runtime is not None
    store = host.runtime.store
    for table_id in tables:
        loaded = await load_table(store, f"tables/{table_id}")
        seated = sum(1 for seat in loaded.state.seats.values() if seat is not None)
        assert chips_in_play(loaded.state) + loaded.state.rake_taken == BUY_IN * seated, table_id
        assert (await store.verify(f"tables/{table_id}")).ok, table_id


async def health_status(channel: grpc.aio.Channel, service: str) -> int:
    stub = health_pb2_grpc.HealthStub(channel)
    reply = await stub.Check(health_pb2.HealthCheckRequest(service=service), timeout=20)
    return reply.status


# -- point 1: background tasks survive the database going away ------------------------------------


async def test_tables_deal_and_clocks_fire_after_postgres_restarts(database, start_service) -> None:
    """Stopped across a due deal and a due action clock: both happen within seconds of the restart."""
    host = await start_service(database.url)
    async with channel_to(host) as channel:
        operator = client(channel, "house", Role.OPERATOR)
        clock_tables = await new_tables(operator, 3)
        deal_tables = await new_tables(operator, 3)
        for table_id in clock_tables:
            await seat_two(channel, table_id)
        for table_id in clock_tables:
            await wait_for_hand(channel, table_id)  # dealt: the clock of the player to act runs
        for table_id in deal_tables:
            await seat_two(channel, table_id)  # the dealer deals after HAND_PAUSE
        before = time.time()
        wanted = {t: ("HandStarted", False) for t in deal_tables}
        wanted |= {t: ("PlayerActed", True) for t in clock_tables}
        early = [
            t for t, (kind, timed_out) in wanted.items() if first_event_after(database, t, kind, 0, timed_out)
        ]
        assert not early, f"the setup was too slow: {early} dealt or timed out before the outage"
        await asyncio.to_thread(database.pg.stop)
        # Every deal and every clock comes due while the database is down, and the outage is long
        # enough for a connection pool backing off exponentially to be seconds late.
        await asyncio.sleep(OUTAGE)
        # Taken as the start begins: the server accepts connections before pg_ctl returns, and the pool,
        # trying every fraction of a second, may commit in between.
        restarted = time.time()
        await asyncio.to_thread(database.pg.start)
        delays = await wait_for_events(database, wanted, before - 60, restarted, timeout=RECOVERY)
        print(
            "restart -> first deal / first due clock, per table:",
            {t: round(d, 2) for t, d in sorted(delays.items(), key=lambda item: item[1])},
        )
        await assert_books_hold(host, clock_tables + deal_tables)


LONG_HAND_PAUSE = 30.0
# Far less than the hand pause, far more than the ~1 s the deal takes: a deal that waited a second whole
# pause after the database came back is late by this bound however busy the machine.
DEAL_AFTER_RESTART = 20.0


@pytest.mark.long
async def test_a_deal_whose_pause_ran_out_during_an_outage_comes_when_the_store_answers(
    database, start_service
) -> None:
    """The pause counts from when the table became ready, not from when the dealer was armed again
    (after the outage the lease is taken again, and the dealer with it)."""
    host = await start_service(database.url, hand_pause_seconds=LONG_HAND_PAUSE)
    async with channel_to(host) as channel:
        (table_id,) = await new_tables(client(channel, "house", Role.OPERATOR), 1)
        await seat_two(channel, table_id)
        seated = time.time()
        assert first_event_after(database, table_id, "HandStarted", 0) is None
        await asyncio.to_thread(database.pg.stop)
        await asyncio.sleep(seated + LONG_HAND_PAUSE + 1.0 - time.time())  # the pause runs out meanwhile
        restarted = time.time()  # as the start begins (see above)
        await asyncio.to_thread(database.pg.start)
        delays = await wait_for_events(
            database, {table_id: ("HandStarted", False)}, 0, restarted, timeout=DEAL_AFTER_RESTART
        )
        print("restart -> deal whose pause ran out during the outage:", delays)
        await assert_books_hold(host, [table_id])


QUEUED_WAIT = 25.0  # a queued caller's wait for a connection: far beyond the outage and the restart
POOL_OUTAGE = 8.0
POOL_BACK = 5.0  # seconds: between the ~1 s the pool takes and the ~7 s it took with psycopg_pool's backoff


async def test_the_pool_connects_again_soon_after_a_long_outage(database) -> None:
    """psycopg_pool backs off 1, 2, 4, 8 ... s between connection attempts; unbounded, a pool whose
    database was away for POOL_OUTAGE (8 s) first tries again about 7 s after it is back."""
    pool = await open_pool(database.url, max_size=2, timeout=0.5)

    async def select_one() -> bool:
        try:
            async with pool.connection() as conn:
                await conn.execute("SELECT 1")
        except psycopg.OperationalError:
            return False
        return True

    try:
        assert await select_one()
        await asyncio.to_thread(database.pg.stop)
        down = time.monotonic()
        while time.monotonic() - down < POOL_OUTAGE:  # callers keep trying, as the service's loops do
            assert not await select_one()
            await asyncio.sleep(0.2)
        await asyncio.to_thread(database.pg.start)
        restarted = time.monotonic()
        while not await select_one():
            # Its backoff reset, the pool tries again within about a second; unbounded, only after about 7.
            assert time.monotonic() - restarted < POOL_BACK, "the pool did not connect again soon"
            await asyncio.sleep(0.2)
        print(f"pool: restart -> first query {time.monotonic() - restarted:.2f} s")
    finally:
        await pool.close()


async def test_a_caller_queued_for_a_connection_gets_one_soon_after_the_database_is_back(database) -> None:
    """psycopg_pool gives a reconnection up after its reconnect timeout and tries again only when a new caller
    asks: a caller already queued (a write resolving its outcome across a failover) waited out its whole
    timeout though the database was back. The pool now keeps trying while anyone may need it."""
    pool = await open_pool(database.url, max_size=1, timeout=QUEUED_WAIT)
    try:
        async with pool.connection() as conn:
            await conn.execute("SELECT 1")
        await asyncio.to_thread(database.pg.stop)

        async def queued() -> float:
            async with pool.connection() as conn:
                await conn.execute("SELECT 1")
            return time.monotonic()

        waiting = asyncio.ensure_future(queued())
        await asyncio.sleep(POOL_OUTAGE / 2)  # past the pool's reconnect timeout: its attempts gave up
        assert not waiting.done()
        await asyncio.to_thread(database.pg.start)
        restarted = time.monotonic()
        answered = await waiting  # a PoolTimeout here: the queued caller waited its whole timeout
        print(f"pool: restart -> the queued caller's query {answered - restarted:.2f} s")
    finally:
        await pool.close()


async def test_play_goes_on_after_every_backend_is_terminated(database, start_service) -> None:
    """pg_terminate_backend on every connection (the pool's, the LISTEN one): a second replica's
    writes still reach the first through its subscription, and due clocks still fire."""
    first = await start_service(database.url)
    second = await start_service(database.url)
    assert first.runtime is not None
    async with channel_to(first) as one, channel_to(second) as two:
        operator = client(one, "house", Role.OPERATOR)
        clock_table, followed = await new_tables(operator, 2)
        await seat_two(one, clock_table)
        await wait_for_hand(one, clock_table)
        await client(one, "spectator").view(followed)  # the first replica follows this table
        hub = first.runtime.store._hub
        assert hub is not None and hub.listener_pid is not None
        listener_before = hub.listener_pid
        terminated = database.sql(
            "SELECT pg_terminate_backend(pid) FROM pg_stat_activity"
            " WHERE datname = 'stud' AND pid <> pg_backend_pid()"
        )
        assert len(terminated) >= 3  # at least each replica's listener and a pooled connection
        started = time.time()
        await seat_two_retrying(two, followed, RECOVERY)  # written through the other replica only
        delays = await wait_for_events(
            database,
            {followed: ("HandStarted", False), clock_table: ("PlayerActed", True)},
            0,
            started,
            RECOVERY,
        )
        print("after pg_terminate_backend, seconds to the next deal / due clock:", delays)
        # The first replica heard of the other's writes: it reconnected its listener and caught up.
        spectator = client(one, "spectator")
        deadline = time.monotonic() + RECOVERY
        while not (await spectator.view(followed)).HasField("hand"):
            assert time.monotonic() < deadline, "the first replica never caught up with the other's writes"
            await asyncio.sleep(0.05)
        assert hub.listener_pid not in (None, listener_before) and hub.reconnects >= 1
        await assert_books_hold(first, [clock_table, followed])


def _fill(path: Path) -> Path:
    """Write a file until the filesystem is full; return it."""
    filler = path / "filler"
    chunk = b"\0" * (1 << 20)
    with filler.open("wb") as out:
        try:
            while True:
                out.write(chunk)
                out.flush()
        except OSError as error:
            assert error.errno == errno.ENOSPC, error
    return filler


WRITES_REFUSED_WITHIN = 60.0


async def create_tables_until_refused(operator: StudClient) -> grpc.RpcError:
    """Create tables until the service refuses one: the database refuses writes a moment after it is made to
    (a full disk once the free room left in the pages is used up; a configuration reload once each backend
    has taken it)."""
    started = time.monotonic()
    while time.monotonic() - started < WRITES_REFUSED_WITHIN:
        try:
            await operator.create_table(f"t-{uuid.uuid4().hex[:10]}", table_spec())
        except grpc.RpcError as error:
            return error
    raise AssertionError("the database never refused a write")


FILLING_HAND_PAUSE = 10.0  # filling the disk takes a second or two: the deals come due after it, however busy


async def test_a_full_disk_stalls_writes_and_play_resumes_once_space_is_freed(
    database, start_service
) -> None:
    if database.small_disk is None:
        pytest.skip(f"no small filesystem for the database: {database.why_no_disk}")
    host = await start_service(database.url, hand_pause_seconds=FILLING_HAND_PAUSE)
    async with channel_to(host) as channel:
        operator = client(channel, "house", Role.OPERATOR)
        tables = await new_tables(operator, 3)
        for table_id in tables:
            await seat_two(channel, table_id)  # each dealer is due FILLING_HAND_PAUSE from now
        seated = time.time()
        filler = await asyncio.to_thread(_fill, database.small_disk)
        refusal = await create_tables_until_refused(operator)
        assert refusal.code() == grpc.StatusCode.UNAVAILABLE and error_reason(refusal) == "STORE_UNAVAILABLE"
        assert "No space left on device" in database.pg.log_text()
        assert time.time() < seated + FILLING_HAND_PAUSE, "the deals came due before the disk was full"
        await asyncio.sleep(seated + FILLING_HAND_PAUSE + 1.0 - time.time())  # the deals come due, and fail
        filler.unlink()
        freed = time.time()
        delays = await wait_for_events(
            database, {t: ("HandStarted", False) for t in tables}, 0, freed, RECOVERY
        )
        print("disk freed -> first deal, per table:", delays)
        await assert_books_hold(host, tables)


READINESS_CHANGE = 20.0  # the threshold is 1 s and the monitor checks every quarter second: generous


async def wait_for_readiness(channel: grpc.aio.Channel, status: int, what: str) -> None:
    """Wait until readiness reports ``status`` (liveness stays SERVING all along)."""
    serving = health_pb2.HealthCheckResponse.SERVING
    started = time.monotonic()
    while await health_status(channel, "") != status:
        assert time.monotonic() - started < READINESS_CHANGE, f"readiness never {what}"
        assert await health_status(channel, LIVENESS_SERVICE) == serving
        await asyncio.sleep(0.1)
    for name in (TABLE_SERVICE_NAME, AUDIT_SERVICE_NAME):
        assert await health_status(channel, name) == status, name
    assert await health_status(channel, LIVENESS_SERVICE) == serving


async def test_a_replica_whose_store_refuses_writes_for_a_full_disk_is_not_ready_until_they_go_in_again(
    database, start_service
) -> None:
    """The database answers reads throughout; nobody writes once readiness is NOT_SERVING (no table has
    players, so no dealer either): the replica's own write probe notices the room freed."""
    if database.small_disk is None:
        pytest.skip(f"no small filesystem for the database: {database.why_no_disk}")
    host = await start_service(database.url)
    serving, not_serving = health_pb2.HealthCheckResponse.SERVING, health_pb2.HealthCheckResponse.NOT_SERVING
    async with channel_to(host) as channel:
        operator = client(channel, "house", Role.OPERATOR)
        (table_id,) = await new_tables(operator, 1)
        filler = await asyncio.to_thread(_fill, database.small_disk)
        refusal = await create_tables_until_refused(operator)
        assert refusal.code() == grpc.StatusCode.UNAVAILABLE and error_reason(refusal) == "STORE_UNAVAILABLE"
        await wait_for_readiness(channel, not_serving, "went NOT_SERVING while writes were refused")
        # Reads are served, a newcomer's first read too: its session's start waits for the store.
        assert (await client(channel, "spectator").view(table_id)).version >= 1
        filler.unlink()
        await wait_for_readiness(channel, serving, "came back once there was room")
        await operator.create_table(f"t-{uuid.uuid4().hex[:10]}", table_spec())
        auditor = client(channel, "auditor-1", Role.AUDITOR)
        request = audit_service_pb2.ListPlayerSessionsRequest(player_id="spectator")
        started = time.monotonic()
        listed = auditor.audit.ListPlayerSessions
        while not (await listed(request, metadata=auditor.metadata)).player_sessions:
            assert time.monotonic() - started < READINESS_CHANGE, "the session's start never went in"
            await asyncio.sleep(0.1)


READ_ONLY = "default_transaction_read_only"


async def test_a_replica_whose_database_turned_read_only_refuses_writes_unavailable_and_is_not_ready(
    database, start_service
) -> None:
    """A read-only database (a standby, or default_transaction_read_only for maintenance) is a store fault
    like a full disk: STORE_UNAVAILABLE, not INTERNAL; NOT_SERVING until writes go in again."""
    host = await start_service(database.url)
    serving, not_serving = health_pb2.HealthCheckResponse.SERVING, health_pb2.HealthCheckResponse.NOT_SERVING
    async with channel_to(host) as channel:
        operator = client(channel, "house", Role.OPERATOR)
        (table_id,) = await new_tables(operator, 1)
        await asyncio.to_thread(database.sql_as_maintenance, f"ALTER SYSTEM SET {READ_ONLY} = on")
        refusal = await create_tables_until_refused(operator)
        assert refusal.code() == grpc.StatusCode.UNAVAILABLE, refusal
        assert error_reason(refusal) == "STORE_UNAVAILABLE"
        await wait_for_readiness(channel, not_serving, "went NOT_SERVING while the database was read-only")
        await asyncio.to_thread(database.sql_as_maintenance, f"ALTER SYSTEM RESET {READ_ONLY}")
        await wait_for_readiness(channel, serving, "came back once the database took writes")
        await client(channel, "alice").sit_down(table_id, 1, BUY_IN)


# -- point 2: readiness follows the store, liveness does not ---------------------------------------


async def test_readiness_is_not_serving_while_the_store_is_down_and_liveness_stays_serving(
    database, start_service
) -> None:
    host = await start_service(database.url, unready_after_seconds=1.0)
    readiness = ("", TABLE_SERVICE_NAME, AUDIT_SERVICE_NAME)
    serving, not_serving = health_pb2.HealthCheckResponse.SERVING, health_pb2.HealthCheckResponse.NOT_SERVING
    async with channel_to(host) as channel:
        for name in (*readiness, LIVENESS_SERVICE):
            assert await health_status(channel, name) == serving
        await asyncio.to_thread(database.pg.stop)
        stopped = time.monotonic()
        # Nobody calls the service: the replica notices the outage on its own.
        while await health_status(channel, "") == serving:
            assert time.monotonic() - stopped < READINESS_CHANGE, "readiness never went NOT_SERVING"
            await asyncio.sleep(0.1)
        assert time.monotonic() - stopped >= 1.0  # not before the threshold
        for name in readiness:
            assert await health_status(channel, name) == not_serving
        assert await health_status(channel, LIVENESS_SERVICE) == serving
        await asyncio.to_thread(database.pg.start)
        restarted = time.monotonic()
        while await health_status(channel, "") != serving:
            assert time.monotonic() - restarted < READINESS_CHANGE, "readiness never came back"
            await asyncio.sleep(0.1)
        for name in (*readiness, LIVENESS_SERVICE):
            assert await health_status(channel, name) == serving


# -- point 3: refusals while the store is away ------------------------------------------------------

LOADED = "t-loaded"  # created before the outage: this replica holds it
UNLOADED = "tables/t-never-loaded"  # not in this replica's memory: only the store can answer
HAND = f"{UNLOADED}/hands/1"
ACCOUNT = "players/p1/accounts/USD"
TOURNAMENT = "tournaments/never-loaded"  # as UNLOADED: only the store can answer
CALL_DEADLINE = 1.0  # shorter than the store timeout below: the call's deadline must win
STARVED_ATTEMPTS = 5
STORE_TIMEOUT = 2.0
REQUESTS = {
    "CreateTable": table_service_pb2.CreateTableRequest(
        table=table_spec(), table_id="t-new", request_id="r1"
    ),
    "GetTable": table_service_pb2.GetTableRequest(name=UNLOADED),
    "ListTables": table_service_pb2.ListTablesRequest(),
    "SitDown": table_service_pb2.SitDownRequest(name=UNLOADED, seat=1, buy_in=BUY_IN, request_id="r2"),
    "Leave": table_service_pb2.LeaveRequest(name=UNLOADED, request_id="r3"),
    "SitOut": table_service_pb2.SitOutRequest(name=UNLOADED, request_id="r4"),
    "SitIn": table_service_pb2.SitInRequest(name=UNLOADED, request_id="r5"),
    "TopUp": table_service_pb2.TopUpRequest(name=UNLOADED, amount=100, request_id="r6"),
    "JoinWaitingList": table_service_pb2.JoinWaitingListRequest(name=UNLOADED, request_id="r9"),
    "LeaveWaitingList": table_service_pb2.LeaveWaitingListRequest(name=UNLOADED, request_id="r10"),
    "GetTableView": table_service_pb2.GetTableViewRequest(name=UNLOADED),
    "Act": table_service_pb2.ActRequest(
        name=UNLOADED, seat=1, action=table_pb2.ACTION_TYPE_FOLD, turn=3, request_id="r7"
    ),
    "WatchTable": table_service_pb2.WatchTableRequest(name=UNLOADED),
    "SendChat": table_service_pb2.SendChatRequest(name=UNLOADED, text="hello", request_id="r18"),
    "MuteChatPlayer": table_service_pb2.MuteChatPlayerRequest(
        name=UNLOADED, player_id="p2", muted=True, reason="outage", request_id="r19"
    ),
    "DeleteChatMessage": table_service_pb2.DeleteChatMessageRequest(
        name=UNLOADED, number=1, reason="outage", request_id="r20"
    ),
    "PauseTable": table_service_pb2.PauseTableRequest(name=UNLOADED, reason="outage", request_id="r13"),
    "ResumeTable": table_service_pb2.ResumeTableRequest(name=UNLOADED, reason="outage", request_id="r14"),
    "CloseTable": table_service_pb2.CloseTableRequest(name=UNLOADED, reason="outage", request_id="r15"),
    "VoidHand": table_service_pb2.VoidHandRequest(name=HAND, reason="outage", request_id="r16"),
    "UpdateTableSettings": table_service_pb2.UpdateTableSettingsRequest(
        name=UNLOADED, display_name="x", reason="outage", request_id="r17"
    ),
    "ListHands": audit_service_pb2.ListHandsRequest(parent="tables/-"),
    "GetHand": audit_service_pb2.GetHandRequest(name=HAND),
    "ReplayHand": audit_service_pb2.ReplayHandRequest(name=HAND),
    "VerifyHand": audit_service_pb2.VerifyHandRequest(name=HAND),
    "VerifyShuffle": audit_service_pb2.VerifyShuffleRequest(name=HAND),
    "ExportHandHistory": audit_service_pb2.ExportHandHistoryRequest(name=HAND),
    "SetClientSeed": audit_service_pb2.SetClientSeedRequest(name=UNLOADED, seed="ab" * 16, request_id="r8"),
    "ReconcileMoney": audit_service_pb2.ReconcileMoneyRequest(),
    "GetIntegrityReport": audit_service_pb2.GetIntegrityReportRequest(),
    "ListAccessRecords": audit_service_pb2.ListAccessRecordsRequest(),
    "ListPlayerSessions": audit_service_pb2.ListPlayerSessionsRequest(),
    "Deposit": cashier_service_pb2.DepositRequest(
        account=ACCOUNT, amount=100, currency_code="USD", payment_reference="pay-1", request_id="r11"
    ),
    "Withdraw": cashier_service_pb2.WithdrawRequest(
        account=ACCOUNT, amount=100, currency_code="USD", payment_reference="pay-2", request_id="r12"
    ),
    "GetAccount": cashier_service_pb2.GetAccountRequest(name=ACCOUNT),
    "ListAccountEntries": cashier_service_pb2.ListAccountEntriesRequest(parent=ACCOUNT),
    "SuspendPlayer": cashier_service_pb2.SuspendPlayerRequest(name="players/p1", reason="review"),
    "ReinstatePlayer": cashier_service_pb2.ReinstatePlayerRequest(name="players/p1"),
    "GetPlayerStanding": cashier_service_pb2.GetPlayerStandingRequest(name="players/p1"),
    "CreateTournament": tournament_service_pb2.CreateTournamentRequest(
        tournament=tournament_pb2.Tournament(play_money=True), tournament_id="cup-new", request_id="r13"),
    "GetTournament": tournament_service_pb2.GetTournamentRequest(name=TOURNAMENT),
    "ListTournaments": tournament_service_pb2.ListTournamentsRequest(),
    "RegisterTournament": tournament_service_pb2.RegisterTournamentRequest(name=TOURNAMENT, request_id="r14"),
    "UnregisterTournament": tournament_service_pb2.UnregisterTournamentRequest(name=TOURNAMENT,
                                                                               request_id="r15"),
    "ReEnterTournament": tournament_service_pb2.ReEnterTournamentRequest(name=TOURNAMENT, request_id="r16"),
    "CancelTournament": tournament_service_pb2.CancelTournamentRequest(name=TOURNAMENT, reason="outage"),
    "GetTournamentView": tournament_service_pb2.GetTournamentViewRequest(name=TOURNAMENT),
    "WatchTournament": tournament_service_pb2.WatchTournamentRequest(name=TOURNAMENT),
}
# Methods that never read or write the store (a heartbeat's answer is checked against this replica's memory).
OFF_THE_STORE = {"AnswerHeartbeat"}
ALL_METHODS = [
    (service, method.name, method.server_streaming)
    for module, service in (
        (table_service_pb2, TABLE_SERVICE_NAME),
        (audit_service_pb2, AUDIT_SERVICE_NAME),
        (cashier_service_pb2, CASHIER_SERVICE_NAME),
        (tournament_service_pb2, TournamentService.SERVICE_NAME),
    )
    for method in module.DESCRIPTOR.services_by_name[service.rsplit(".", 1)[1]].methods
]
METHODS = [method for method in ALL_METHODS if method[1] not in OFF_THE_STORE]
# Words of PostgreSQL's and psycopg's that must never reach a client.
INTERNALS = (
    "postgres",
    "psycopg",
    "connection",
    "127.0.0.1",
    "port",
    "pg_",
    "stud_events",
    "/",
    "socket",
    "pool",
)


@pytest_asyncio.fixture(scope="module", loop_scope="session")
async def outage() -> AsyncIterator[tuple[ServiceHost, grpc.aio.Channel]]:
    """A service whose database is stopped (its pool waits STORE_TIMEOUT for a connection)."""
    async with started_with_database("stud-fault-pg-") as pg:
        host = ServiceHost(
            ServiceOptions(
                token_secret=TOKEN_SECRET,
                database_url=pg.url("stud"),
                listen="127.0.0.1:0",
                metrics_listen="off",
                grace_seconds=0.0,
                store_timeout_seconds=STORE_TIMEOUT,
                web_listen="127.0.0.1:0",
            )
        )
        await host.start()
        async with channel_to(host) as channel:
            await client(channel, "house", Role.OPERATOR).create_table(LOADED, table_spec())
            # A second event, so that a watch resumed after version 1 has something to read from the log.
            await client(channel, "p1").sit_down(LOADED, 1, BUY_IN)
        await asyncio.to_thread(pg.stop)
        try:
            async with channel_to(host) as channel:
                yield host, channel
        finally:
            await host.stop()


def test_every_method_is_in_the_refusal_table() -> None:
    assert sorted([*REQUESTS, *OFF_THE_STORE]) == sorted(name for _, name, _ in ALL_METHODS)


def _assert_store_unavailable(error: grpc.RpcError, elapsed: float, deadline: float) -> None:
    assert error.code() == grpc.StatusCode.UNAVAILABLE, (error.code(), error.details())
    assert error_reason(error) == "STORE_UNAVAILABLE"
    status = rpc_status.from_call(error)
    retry = [detail for detail in status.details if detail.Is(error_details_pb2.RetryInfo.DESCRIPTOR)]
    assert len(retry) == 1
    info = error_details_pb2.RetryInfo()
    retry[0].Unpack(info)
    assert info.retry_delay.seconds > 0
    message = error.details()
    assert not any(word in message.lower() for word in INTERNALS), message
    assert elapsed < deadline


@pytest.mark.parametrize(("service", "method", "streaming"), METHODS, ids=[m for _, m, _ in METHODS])
async def test_with_the_store_down_every_method_is_unavailable_within_the_deadline(
    outage, service, method, streaming
) -> None:
    _, channel = outage
    request = REQUESTS[method]
    call = (channel.unary_stream if streaming else channel.unary_unary)(
        f"/{service}/{method}",
        request_serializer=type(request).SerializeToString,
        response_deserializer=lambda data: data,
    )
    metadata = (("authorization", f"Bearer {mint_token(TOKEN_SECRET, 'house', Role.OPERATOR)}"),)
    for _attempt in range(STARVED_ATTEMPTS):
        started = time.monotonic()
        with pytest.raises(grpc.RpcError) as caught:
            if streaming:
                async for _ in call(request, metadata=metadata, timeout=CALL_DEADLINE):
                    pass
            else:
                await call(request, metadata=metadata, timeout=CALL_DEADLINE)
        elapsed = time.monotonic() - started
        # The server and this client share one process on a machine that may be loaded: a deadline passed
        # once can be a stall of the process itself. The service must answer within it in some attempt; a
        # service that never answers before the deadline fails every attempt.
        if caught.value.code() != grpc.StatusCode.DEADLINE_EXCEEDED and elapsed < CALL_DEADLINE:
            break
    _assert_store_unavailable(caught.value, elapsed, CALL_DEADLINE)


LONG_DEADLINE = 60.0
QUEUED = 3


async def test_calls_queued_at_one_table_are_each_refused_within_the_store_timeout(outage) -> None:
    """Acts at one loaded table with a long deadline: each waits at the table's write lock for the one before,
    whose read of the log waits for a connection. The store timeout bounds each whole call, not each wait:
    no call is refused after two timeouts (before, the n-th Act was refused after n)."""
    _, channel = outage
    player = client(channel, "p1")

    async def act(n: int) -> tuple[grpc.RpcError, float]:
        request = table_service_pb2.ActRequest(
            name=f"tables/{LOADED}", seat=1, action=table_pb2.ACTION_TYPE_FOLD, turn=5,
            request_id=f"queued-{n}",
        )
        started = time.monotonic()
        with pytest.raises(grpc.RpcError) as caught:
            await player.stub.Act(request, metadata=player.metadata, timeout=LONG_DEADLINE)
        return caught.value, time.monotonic() - started

    for error, elapsed in await asyncio.gather(*(act(n) for n in range(QUEUED))):
        _assert_store_unavailable(error, elapsed, 2 * STORE_TIMEOUT)


BURST = 200
BURST_DEADLINE = 3.0


async def test_a_burst_of_calls_during_an_outage_is_refused_unavailable_not_deadline_exceeded(outage) -> None:
    """Many calls at once whose deadlines all come together: the server has their refusals to send at the
    same moment, and each still reaches its client before the deadline does."""
    _, channel = outage
    player = client(channel, "p1")

    async def view(n: int) -> grpc.RpcError:
        request = table_service_pb2.GetTableViewRequest(name=f"tables/t-burst-{n}")
        with pytest.raises(grpc.RpcError) as caught:
            await player.stub.GetTableView(request, metadata=player.metadata, timeout=BURST_DEADLINE)
        return caught.value

    errors = await asyncio.gather(*(view(n) for n in range(BURST)))
    codes = collections.Counter(error.code().name for error in errors)
    assert codes == {"UNAVAILABLE": BURST}, codes


async def test_without_a_deadline_a_call_waits_no_longer_than_the_store_timeout(outage) -> None:
    """No client deadline: the store timeout (not psycopg_pool's 30 s, nor twice it) bounds the call."""
    _, channel = outage
    operator = client(channel, "house", Role.OPERATOR)
    started = time.monotonic()
    with pytest.raises(grpc.RpcError) as caught:
        await operator.view("t-another-unloaded")
    _assert_store_unavailable(caught.value, time.monotonic() - started, STORE_TIMEOUT + 1.0)


async def test_a_watch_that_must_read_the_log_is_unavailable_while_the_store_is_down(outage) -> None:
    """The replica holds the table, but resuming after version 1 means reading the log."""
    _, channel = outage
    spectator = client(channel, "spectator")
    assert (await spectator.view(LOADED)).version >= 2  # served from memory
    started = time.monotonic()
    with pytest.raises(grpc.RpcError) as caught:
        async for _ in spectator.stub.WatchTable(
            table_service_pb2.WatchTableRequest(name=f"tables/{LOADED}", after_version=1),
            metadata=spectator.metadata,
            timeout=STORE_TIMEOUT + 2.0,
        ):
            pass
    _assert_store_unavailable(caught.value, time.monotonic() - started, STORE_TIMEOUT + 1.0)


# -- the same over the web port: Connect and a JSON route, unary and a watch ------------------------------

WEB_CALLS = [("connect", "GetTableView"), ("connect", "WatchTable"), ("route", "GetTableView"),
             ("route", "WatchTable")]


@pytest.mark.parametrize(("form", "method"), WEB_CALLS, ids=[f"{f}-{m}" for f, m in WEB_CALLS])
async def test_with_the_store_down_the_web_port_is_unavailable_within_the_deadline(
    outage, form: str, method: str
) -> None:
    host, _ = outage
    base_url = f"http://127.0.0.1:{host.web_port}"
    request = REQUESTS[method]
    token = f"Bearer {mint_token(TOKEN_SECRET, 'house', Role.OPERATOR)}"
    started = time.monotonic()
    if form == "connect":
        client = ConnectClient(base_url, codec=google_protobuf_json_codec(), http_client=http_client())
        info = method_info(method_named(method))
        with pytest.raises(ConnectError) as caught:
            if method == "WatchTable":
                async for _ in client.execute_server_stream(request=request, method=info, headers={
                        "authorization": token}, timeout_ms=int(CALL_DEADLINE * 1000)):
                    pass
            else:
                await client.execute_unary(request=request, method=info, headers={"authorization": token},
                                           timeout_ms=int(CALL_DEADLINE * 1000))
        error = caught.value
        assert error.code == Code.UNAVAILABLE, error
        details = {d.type_name: d.message_bytes for d in error.details}
        reason = error_details_pb2.ErrorInfo.FromString(details["google.rpc.ErrorInfo"]).reason
        retry = error_details_pb2.RetryInfo.FromString(details["google.rpc.RetryInfo"])
        message = error.message
    else:
        caller = RouteCaller(base_url)
        headers = {"connect-timeout-ms": str(int(CALL_DEADLINE * 1000))}
        with pytest.raises(RouteError) as caught:
            if method == "WatchTable":
                async for _ in caller.stream(method_named(method), request, token, headers):
                    pass
            else:
                await caller.unary(method_named(method), request, token, headers)
        document = caught.value.document
        assert (caught.value.status, document["code"]) == (503, "unavailable"), document
        reason = web_error_info(document).reason
        found = [d for d in document["details"] if d["type"] == "google.rpc.RetryInfo"]
        retry = error_details_pb2.RetryInfo.FromString(base64.b64decode(found[0]["value"] + "=="))
        message = document["message"]
    assert reason == "STORE_UNAVAILABLE" and retry.retry_delay.seconds > 0
    assert not any(word in message.lower() for word in INTERNALS), message
    assert time.monotonic() - started < CALL_DEADLINE


def test_a_call_waits_on_the_store_at_most_four_fifths_of_its_time_and_not_into_its_last_half_second():
    """A busy machine was seen to take more than a quarter second to send a refusal due at 2.7 s of 3."""
    assert store_wait_limit(None) is None
    assert store_wait_limit(10.0) == pytest.approx(8.0)  # a long deadline: the share decides
    assert store_wait_limit(3.0) == pytest.approx(2.4)
    assert store_wait_limit(2.0) == pytest.approx(1.5)  # a shorter one: the margin does
    assert store_wait_limit(0.4) == pytest.approx(0.2)  # a very short one still leaves the store half
    assert store_wait_limit(-1.0) == 0.0  # past its deadline: refused at once
