"""Player sessions over real servers: one per player per connection on both ports, how each ends (the web
port's connection closing, gRPC's idle time-out, a stop, a crash closed by another replica), the device id's
refusal, AuditService.ListPlayerSessions, and the retention purge with the hash chain still verifiable."""

from __future__ import annotations

import asyncio
import io
import json
import os
import signal
from datetime import datetime

import grpc
import pytest
from grpc_fixtures import TOKEN_SECRET, TRANSPORTS, table_spec, whole_service
from sealing_keys import TEST_KEYRING
from test_audit_grpc import auth
from test_same_network_seating import BUY_IN, client_at, refusal, service_client, someone

from stud_service.access import list_access_records
from stud_service.auth import Role, mint_token
from stud_service.bots import StudClient
from stud_service.bots.client import OWN_CONNECTION
from stud_service.cli import main
from stud_service.db import open_pool
from stud_service.server.api.audit_service import AuditService
from stud_service.server.api.cashier_service import CashierService
from stud_service.server.api.protection_service import PlayerProtectionService
from stud_service.server.api.table_service import TableService
from stud_service.server.api.tournament_service import TournamentService
from stud_service.server.proto_gen import (
    audit_pb2,
    audit_service_pb2,
    audit_service_pb2_grpc,
    table_service_pb2,
)
from stud_service.sessions import SESSION_STARTED, PlayerSessions, Transport
from stud_service.sessions.reading import list_sessions
from stud_service.sessions.records import STREAM_CLOSED
from stud_service.store import EventStore

AUDITOR = auth("auditor-1", Role.AUDITOR)
WAIT_SECONDS = 30.0


async def sessions_of(channel, player: str, **filters) -> list[audit_pb2.PlayerSession]:
    audit = audit_service_pb2_grpc.AuditServiceStub(channel)
    reply = await audit.ListPlayerSessions(
        audit_service_pb2.ListPlayerSessionsRequest(player_id=player, page_size=1000, **filters),
        metadata=AUDITOR)
    return list(reply.player_sessions)


async def listed(channel, player: str, count: int = 1, **filters) -> list[audit_pb2.PlayerSession]:
    """The player's sessions once at least ``count`` are in the log (their records are written in the
    background)."""
    async def enough():
        found = await sessions_of(channel, player, **filters)
        return found if len(found) >= count else None

    return await until(enough, f"{count} sessions of {player}")


async def until(condition, what: str):
    """Poll ``condition()`` (a coroutine function) until it returns something true; that."""
    deadline = asyncio.get_running_loop().time() + WAIT_SECONDS
    while True:
        found = await condition()
        if found:
            return found
        if asyncio.get_running_loop().time() > deadline:
            raise TimeoutError(f"{what} did not happen within {WAIT_SECONDS:.0f} s")
        await asyncio.sleep(0.05)


async def last_type(store: EventStore, stream: str) -> str:
    """The type of ``stream``'s last event."""
    async with store.pool.connection() as conn:
        cursor = await conn.execute(
            "SELECT type FROM events WHERE stream_id = %s ORDER BY version DESC LIMIT 1", (stream,))
        return (await cursor.fetchone())[0]


async def started_events(store: EventStore, player: str) -> int:
    async with store.pool.connection() as conn:
        cursor = await conn.execute(
            "SELECT count(*) FROM events WHERE type = %s AND payload->>'player' = %s",
            (SESSION_STARTED, player))
        return (await cursor.fetchone())[0]


@pytest.mark.parametrize("transport", TRANSPORTS)
async def test_a_players_calls_on_one_connection_are_one_session(grpc_service, new_table, transport):
    table_id, other_table = await new_table(), await new_table()
    player = someone("alice")
    async with service_client(grpc_service, transport, player, "phone-7") as alice:
        await alice.get_table(table_id)
        await alice.sit_down(table_id, 1, BUY_IN)
        for _ in range(5):
            await alice.view(table_id)
        await alice.stub.ListTables(table_service_pb2.ListTablesRequest(), metadata=alice.metadata)
        await alice.view(other_table)

        async def both_tables():
            (found,) = await sessions_of(grpc_service.channel, player)
            return found if len(found.tables) == 2 else None

        session = await until(both_tables, "the second table's record")
    assert await started_events(grpc_service.store, player) == 1  # recorded once, not per call
    assert (session.player_id, session.address, session.device_id) == (player, "127.0.0.1", "phone-7")
    assert session.transport == ("grpc" if transport == "grpc" else "web")
    assert session.connection.startswith("ipv4:127.0.0.1:") and session.connection != "ipv4:127.0.0.1:0"
    assert list(session.tables) == [f"tables/{table_id}", f"tables/{other_table}"]
    assert session.log_stream.startswith("sessions/") and session.log_version >= 1
    if transport == "grpc":  # gRPC does not say a connection closed: the session ends when idle
        assert session.end == audit_pb2.SESSION_END_UNSPECIFIED and not session.HasField("end_time")
    else:  # the web port sees its HTTP connection close
        async def ended():
            (found,) = await sessions_of(grpc_service.channel, player)
            return found if found.end else None

        closed = await until(ended, "the web session's end")
        assert closed.end == audit_pb2.SESSION_END_CLOSED and closed.calls == 9
        assert closed.end_time.ToMilliseconds() >= closed.start_time.ToMilliseconds()
        assert list(closed.tables) == [f"tables/{table_id}", f"tables/{other_table}"]


@pytest.mark.parametrize("transport", TRANSPORTS)
async def test_a_malformed_device_id_is_refused_with_its_reason_and_starts_no_session(grpc_service, new_table,
                                                                                   transport):
    table_id = await new_table()
    player = someone("mallory")
    for device in ("has space", "x" * 129, "semi;colon"):
        async with service_client(grpc_service, transport, player) as mallory:
            mallory.metadata += (("x-stud-device-id", device),)
            code, reason, metadata = await refusal(mallory.sit_down(table_id, 1, BUY_IN))
            assert (code, reason, metadata) == (grpc.StatusCode.INVALID_ARGUMENT, "DEVICE_ID_INVALID",
                                                {"header": "x-stud-device-id"})
    operator = grpc_service.client("house", Role.OPERATOR, transport, device_id="two words")
    assert (await refusal(operator.get_table(table_id)))[1] == "DEVICE_ID_INVALID"  # whoever sends it
    assert await started_events(grpc_service.store, player) == 0
    assert (await grpc_service.client("house", Role.OPERATOR).get_table(table_id)).seated_players == 0


async def test_list_player_sessions_is_for_auditors_paged_and_filtered(grpc_service):
    player = someone("paula")
    for device in ("d-1", "d-2", "d-3"):
        async with service_client(grpc_service, "grpc", player, device) as client:
            await client.stub.ListTables(table_service_pb2.ListTablesRequest(), metadata=client.metadata)
    await listed(grpc_service.channel, player, 3)
    audit = audit_service_pb2_grpc.AuditServiceStub(grpc_service.channel)
    request = audit_service_pb2.ListPlayerSessionsRequest(player_id=player, page_size=2)
    first = await audit.ListPlayerSessions(request, metadata=AUDITOR)
    assert [s.device_id for s in first.player_sessions] == ["d-1", "d-2"] and first.next_page_token
    request.page_token = first.next_page_token
    second = await audit.ListPlayerSessions(request, metadata=AUDITOR)
    assert [s.device_id for s in second.player_sessions] == ["d-3"] and not second.next_page_token
    assert [s.device_id for s in await sessions_of(grpc_service.channel, player, device_id="d-2")] == ["d-2"]
    assert len(await sessions_of(grpc_service.channel, player, address="127.0.0.0/8")) == 3
    assert len(await sessions_of(grpc_service.channel, player, address="::ffff:127.0.0.1")) == 3
    assert await sessions_of(grpc_service.channel, player, address="10.0.0.0/8") == []
    bad = [({"address": "10.0.0.1/8"}, "address"), ({"device_id": "a b"}, "device_id"),
           ({"player_id": player, "page_token": "nonsense"}, "page_token")]
    for fields, field in bad:
        asked = audit_service_pb2.ListPlayerSessionsRequest(**fields)
        call = audit.ListPlayerSessions(asked, metadata=AUDITOR)
        assert (await refusal(call))[1:] == ("MALFORMED_REQUEST", {"field": field})
    reused = audit_service_pb2.ListPlayerSessionsRequest(player_id="someone-else",
                                                         page_token=first.next_page_token)
    assert (await refusal(audit.ListPlayerSessions(reused, metadata=AUDITOR)))[1] == "MALFORMED_REQUEST"
    for caller in (auth(player), auth("house", Role.OPERATOR)):
        code, reason, _ = await refusal(audit.ListPlayerSessions(request, metadata=caller))
        assert (code, reason) == (grpc.StatusCode.PERMISSION_DENIED, "AUDITOR_ONLY")
    page = await list_access_records(grpc_service.store, principal_id="house", method="ListPlayerSessions")
    assert [r.record.outcome.value for r in page.records][-1:] == ["refused"]  # the operator's try, recorded


async def test_list_player_sessions_over_the_web_port(grpc_service):
    player = someone("wendy")
    async with service_client(grpc_service, "connect-json", player, "browser-1") as wendy:
        await wendy.stub.ListTables(table_service_pb2.ListTablesRequest(), metadata=wendy.metadata)
    await listed(grpc_service.channel, player)
    auditor = grpc_service.client("auditor-1", Role.AUDITOR, "connect-json")
    reply = await auditor.audit.ListPlayerSessions(
        audit_service_pb2.ListPlayerSessionsRequest(player_id=player), metadata=auditor.metadata)
    assert [(s.transport, s.device_id) for s in reply.player_sessions] == [("web", "browser-1")]


async def _open_store(url: str) -> tuple[EventStore, object]:
    pool = await open_pool(url, max_size=2)
    return EventStore(pool, announce=False), pool


async def test_a_grpc_session_ends_when_idle_but_never_while_a_watch_is_open(make_database):
    url = await make_database(migrated=True)
    async with whole_service(url, TOKEN_SECRET, io.StringIO(), keyring=TEST_KEYRING,
                             session_idle_seconds=1.0) as service:
        operator = StudClient(service.channel, mint_token(TOKEN_SECRET, "house", Role.OPERATOR))
        await operator.create_table("watched", table_spec())
        channel = grpc.aio.insecure_channel(f"127.0.0.1:{service.host.port}", options=OWN_CONNECTION)
        alice = StudClient(channel, mint_token(TOKEN_SECRET, "alice", Role.PLAYER), "phone")
        watch = alice.stub.WatchTable(table_service_pb2.WatchTableRequest(name="tables/watched"),
                                      metadata=alice.metadata)
        await watch.read()
        await asyncio.sleep(3.0)  # three idle time-outs
        (session,) = await listed(service.channel, "alice")
        assert session.end == audit_pb2.SESSION_END_UNSPECIFIED, "a session with a watch open ended"
        watch.cancel()

        async def ended():
            (found,) = await sessions_of(service.channel, "alice")
            return found if found.end else None

        idle = await until(ended, "the idle end")
        assert idle.end == audit_pb2.SESSION_END_IDLE and idle.calls == 1
        # It ended at its last activity: the watch's end, three seconds after it began.
        assert idle.end_time.ToMilliseconds() >= session.start_time.ToMilliseconds() + 3_000
        await alice.view("watched")  # the same connection again: a new session
        assert len(await listed(service.channel, "alice", 2)) == 2
        await channel.close()


async def test_a_stopping_replica_ends_its_sessions_and_closes_its_streams(make_database):
    url = await make_database(migrated=True)
    async with whole_service(url, TOKEN_SECRET, io.StringIO(), keyring=TEST_KEYRING) as service:
        alice = StudClient(service.channel, mint_token(TOKEN_SECRET, "alice", Role.PLAYER))
        await alice.stub.ListTables(table_service_pb2.ListTablesRequest(), metadata=alice.metadata)
    store, pool = await _open_store(url)
    try:
        (session,) = (await list_sessions(store, player_id="alice")).sessions
        assert session.end is not None and session.end.reason.value == "shutdown" and session.end.calls == 1
        assert await last_type(store, session.stream_id) == STREAM_CLOSED
    finally:
        await pool.close()


async def test_a_crashed_replicas_sessions_are_closed_by_another(make_database, spawn_server):
    url = await make_database(migrated=True)
    server = await spawn_server(url)
    async with grpc.aio.insecure_channel(server.address) as channel:
        alice = StudClient(channel, mint_token(TOKEN_SECRET, "alice", Role.PLAYER), "phone")
        await alice.stub.ListTables(table_service_pb2.ListTablesRequest(), metadata=alice.metadata)
        await listed(channel, "alice")  # its start is in the log
        await asyncio.sleep(2.0)  # a heartbeat or two after the session began
        os.kill(server.process.pid, signal.SIGKILL)
        server.process.wait(timeout=30)
    async with whole_service(url, TOKEN_SECRET, io.StringIO(), keyring=TEST_KEYRING,
                             sessions_lost_after_seconds=2.0, sessions_recovery_seconds=0.2) as service:
        async def ended():
            (found,) = await sessions_of(service.channel, "alice")
            return found if found.end else None

        lost = await until(ended, "the lost replica's session's end")
    assert lost.end == audit_pb2.SESSION_END_REPLICA_LOST and lost.device_id == "phone"
    start, end = lost.start_time.ToMilliseconds(), lost.end_time.ToMilliseconds()
    assert start <= end <= start + 10_000  # the lost replica's last heartbeat, not the time it was noticed
    store, pool = await _open_store(url)
    try:
        assert await last_type(store, lost.log_stream) == STREAM_CLOSED
    finally:
        await pool.close()


# -- retention -------------------------------------------------------------------------------------------


def _old_session(session: str, player: str, day: str, closed: bool) -> list[dict]:
    at_ms = int(datetime.fromisoformat(f"{day}T12:00:00+00:00").timestamp() * 1000)
    events = [{"type": "PlayerSessionStarted", "v": 1, "session": session, "player": player,
               "transport": "grpc", "connection": "ipv4:10.0.0.7:5", "address": "10.0.0.7", "device": "d",
               "writer": "w", "tables": [], "at_ms": at_ms}]
    if closed:
        events += [{"type": "PlayerSessionEnded", "v": 1, "session": session, "reason": "idle", "tables": [],
                    "calls": 3, "at_ms": at_ms + 1},
                   {"type": "SessionStreamClosed", "v": 1, "writer": "w", "at_ms": at_ms + 2}]
    return events


async def test_purging_old_days_keeps_the_log_verifiable(make_database, tmp_path, monkeypatch, capsys):
    url = await make_database(migrated=True)
    store, pool = await _open_store(url)
    try:
        await store.append("sessions/2020-01-01/w", 0, _old_session("a1", "old-alice", "2020-01-01", True))
        await store.append("sessions/2020-01-02/w", 0, _old_session("a2", "old-alice", "2020-01-02", False))
        await store.append("sessions/2099-01-01/w", 0, _old_session("a3", "old-alice", "2099-01-01", True))
    finally:
        await pool.close()
    monkeypatch.setenv("STUD_CHECKPOINT_KEY", "k" * 40)
    checkpoint = tmp_path / "checkpoint.json"

    def cli(*argv: str) -> tuple[int, str]:
        code = main(["audit", *argv, "--database-url", url])
        return code, capsys.readouterr().out

    assert (await asyncio.to_thread(cli, "checkpoint", "-o", str(checkpoint)))[0] == 0
    code, out = await asyncio.to_thread(cli, "purge-sessions", "--before", "2021-01-01", "--dry-run")
    assert code == 0 and "would purge sessions/2020-01-01/w: 1 sessions" in out
    assert "kept sessions/2020-01-02/w" in out
    code, out = await asyncio.to_thread(cli, "purge-sessions", "--before", "2021-01-01")
    assert code == 0 and "purged 1 streams, 1 sessions" in out and "retention/sessions version 1" in out
    code, out = await asyncio.to_thread(cli, "sessions", "--player", "old-alice", "--json")
    assert code == 0 and [json.loads(line)["session"] for line in out.splitlines()] == ["a2", "a3"]
    code, out = await asyncio.to_thread(cli, "verify", "--checkpoint", str(checkpoint))
    assert code == 0, out
    assert "PURGED sessions/2020-01-01/w" in out and "retention/sessions version 1" in out
    store, pool = await _open_store(url)
    try:
        (record,) = await store.read_stream("retention/sessions")
        assert record.payload["before"] == "2021-01-01" and record.payload["streams"][0]["version"] == 3
        assert (await store.verify("retention/sessions")).ok
        assert (await store.verify("sessions/2020-01-02/w")).ok
    finally:
        await pool.close()
    assert (await asyncio.to_thread(cli, "purge-sessions", "--before", "2999-01-01"))[0] == 2  # future
    assert (await asyncio.to_thread(cli, "purge-sessions", "--before", "yesterday"))[0] == 2


async def test_client_at_sees_the_address_it_was_given(grpc_service):
    player = someone("sam")
    address, web_url = grpc_service.address, grpc_service.web_url
    async with client_at(address, web_url, "grpc", player, source="127.0.0.3") as sam:
        await sam.stub.ListTables(table_service_pb2.ListTablesRequest(), metadata=sam.metadata)
    (session,) = await listed(grpc_service.channel, player)
    assert session.address == "127.0.0.3"


async def test_a_day_is_marked_closed_once_it_is_over_and_its_sessions_ended(event_store):
    sessions = PlayerSessions(event_store, f"w-{os.urandom(4).hex()}")
    session = sessions.touch("ann", Transport.GRPC, "ipv4:10.0.0.7:1", "10.0.0.7", "", None)
    await sessions.durable(session)
    stream, day = session.stream_id, 86_400_000

    async def last() -> str:
        return await last_type(event_store, stream)

    sessions.mark_closed_days(now_ms=session.start.at_ms + day)  # the day is over, but ann is still here
    await asyncio.sleep(0.2)
    assert await last() == "PlayerSessionStarted"
    assert sessions.end_idle(now_ms=session.start.at_ms + day) == 1

    async def ended():
        return await last() == "PlayerSessionEnded"

    await until(ended, "the end's record")
    sessions.mark_closed_days(now_ms=session.start.at_ms)  # the same day: it may still get sessions
    await asyncio.sleep(0.2)
    assert await last() == "PlayerSessionEnded"
    sessions.mark_closed_days(now_ms=session.start.at_ms + day)

    async def closed():
        return await last() == STREAM_CLOSED

    await until(closed, "the day's stream marked closed")
    await sessions.close()


@pytest.mark.parametrize("service", [TableService, AuditService, CashierService, PlayerProtectionService,
                                     TournamentService],
                         ids=lambda service: service.__name__)
def test_every_method_of_every_service_places_a_players_call_in_its_session(service):
    """A method added without ``in_session`` would serve players unrecorded: every method the service's
    descriptor has goes through it (the device id checked, the session found)."""
    missing = [method.name for method in service.DESCRIPTOR.methods
               if not getattr(getattr(service, method.name), "in_session", False)]
    assert not missing, f"{service.__name__}: {missing} lack in_session / watched_in_session"
