"""Reads on a hot standby (``serve --read-database-url``): a PostgreSQL 15 primary and one hot standby made
from it by ``pg_basebackup``, streaming, each on a free loopback port, and the whole service on the pair.

History, replays, exports, audits and the lobby's listing are served by the standby (its own
``pg_stat_statements`` counts their queries; the primary's does not); a player's own hand that has just ended
is in their history at once while the standby's replay is paused (the primary answers); a standby stopped,
even before the service starts, fails no call: the primary answers until it is back, and then the standby
serves again; and the primary's own hosts with ``target_session_attrs=prefer-standby`` read the standby.
"""

from __future__ import annotations

import asyncio
import contextlib
import shutil
import tempfile
import time
import urllib.request
import uuid
from collections.abc import AsyncIterator, Awaitable, Callable
from pathlib import Path

import pytest
import pytest_asyncio
from grpc_fixtures import TOKEN_SECRET, WholeService, table_spec, whole_service
from own_postgres import OwnPostgres
from prometheus_client.parser import text_string_to_metric_families
from standby_pair import StandbyPair, missing
from test_audit_grpc import play_out

from stud_service.auth import Role, mint_token
from stud_service.bots.client import StudClient
from stud_service.server.proto_gen import (
    audit_service_pb2,
    audit_service_pb2_grpc,
    tournament_service_pb2,
    tournament_service_pb2_grpc,
)

pytestmark = pytest.mark.skipif(bool(missing()), reason=missing() or "-")

BUY_IN = 5_000
# What each kind of read runs, as pg_stat_statements keeps it (constants in the text become $n).
HISTORY_QUERY = "LEFT JOIN events e ON e.stream_id = s.stream_id AND e.hand = s.hand"  # ListHands' catalog
HAND_QUERY = "SELECT min(version), max(version), (SELECT jsonb_build_array("  # load_hand: GetHand, replays...
MONEY_QUERY = '"money_events"'  # audit.money_log's cursor: ReconcileMoney
LOBBY_QUERY = "CROSS JOIN LATERAL (SELECT version, recorded_at FROM events e"  # the store's list_streams
AUDIT_QUERIES = (HISTORY_QUERY, HAND_QUERY, MONEY_QUERY)


@pytest_asyncio.fixture(scope="module")
async def pair() -> AsyncIterator[StandbyPair]:
    workdir = Path(tempfile.mkdtemp(prefix="stud-standby-pg-"))
    started: StandbyPair | None = None
    try:
        started = await asyncio.to_thread(StandbyPair.start, workdir)
        yield started
    finally:
        if started is not None:
            await asyncio.to_thread(started.destroy)
        shutil.rmtree(workdir, ignore_errors=True)


@pytest_asyncio.fixture
async def service(
    pair: StandbyPair, tmp_path: Path
) -> AsyncIterator[Callable[..., Awaitable[WholeService]]]:
    """``await service(read_database_url=None)``: the whole service on the pair, reading from the standby
    (or that URL)."""
    async with contextlib.AsyncExitStack() as stack:
        log = stack.enter_context((tmp_path / "service.log").open("w"))

        async def start(read_database_url: str | None = None) -> WholeService:
            return await stack.enter_async_context(whole_service(
                pair.url(pair.primary), TOKEN_SECRET, log,
                read_database_url=read_database_url or pair.url(pair.standby),
                hand_pause_seconds=0.5, grace_seconds=0.0, store_timeout_seconds=5.0,
            ))

        yield start


def client(service: WholeService, player: str, role: Role = Role.PLAYER) -> StudClient:
    return StudClient(service.channel, mint_token(TOKEN_SECRET, player, role))


def auth(player: str, role: Role = Role.PLAYER) -> list[tuple[str, str]]:
    return [("authorization", f"Bearer {mint_token(TOKEN_SECRET, player, role)}")]


async def hand_played(service: WholeService) -> tuple[str, str, str]:
    """A new table whose first hand two players played to its end: (table id, the hand's name, a player)."""
    table_id = f"t-{uuid.uuid4().hex[:10]}"
    await client(service, "op", Role.OPERATOR).create_table(table_id, table_spec())
    players = [client(service, player) for player in ("alice", "bob")]
    for seat, player in enumerate(players, 1):
        await player.sit_down(table_id, seat, BUY_IN)
    await play_out(players, table_id, 1)
    return table_id, f"tables/{table_id}/hands/1", "alice"


async def read_everything(service: WholeService, hand: str, player: str) -> list[str]:
    """A player's history, replay and export, an auditor's verification and reconciliation, the lobby:
    the names of the hands in the player's history."""
    audit, own = audit_service_pb2_grpc.AuditServiceStub(service.channel), auth(player)
    history = await audit.ListHands(audit_service_pb2.ListHandsRequest(parent="tables/-"), metadata=own)
    await audit.GetHand(audit_service_pb2.GetHandRequest(name=hand), metadata=own)
    await audit.ReplayHand(audit_service_pb2.ReplayHandRequest(name=hand), metadata=own)
    await audit.ExportHandHistory(audit_service_pb2.ExportHandHistoryRequest(name=hand), metadata=own)
    auditor = auth("eve", Role.AUDITOR)
    verified = await audit.VerifyHand(audit_service_pb2.VerifyHandRequest(name=hand), metadata=auditor)
    assert verified.passed
    await audit.ReconcileMoney(audit_service_pb2.ReconcileMoneyRequest(), metadata=auditor)
    await audit.GetIntegrityReport(audit_service_pb2.GetIntegrityReportRequest(), metadata=auditor)
    await audit.ListAccessRecords(audit_service_pb2.ListAccessRecordsRequest(), metadata=auditor)
    await audit.ListPlayerSessions(audit_service_pb2.ListPlayerSessionsRequest(), metadata=auditor)
    await client(service, player).list_tables()
    await tournament_service_pb2_grpc.TournamentServiceStub(service.channel).ListTournaments(
        tournament_service_pb2.ListTournamentsRequest())
    return [summary.name for summary in history.hands]


async def served_by(service: WholeService, server: str) -> float:
    """The replica's count of calls ``server`` ("standby" or "primary") answered, from its metrics."""
    text = (await asyncio.to_thread(lambda: urllib.request.urlopen(service.metrics_url, timeout=30).read()))
    for family in text_string_to_metric_families(text.decode()):
        for sample in family.samples:
            if sample.name == "stud_standby_reads_total" and sample.labels == {"served_by": server}:
                return sample.value
    return 0.0


def audit_calls(pair: StandbyPair, server: OwnPostgres) -> dict[str, int]:
    return {fragment: pair.calls(server, fragment) for fragment in AUDIT_QUERIES}


async def test_history_replays_exports_audits_and_the_lobby_are_served_by_the_standby(pair, service):
    running = await service()
    _table_id, hand, player = await hand_played(running)
    primary_before = audit_calls(pair, pair.primary)
    standby_before = {**audit_calls(pair, pair.standby), LOBBY_QUERY: pair.calls(pair.standby, LOBBY_QUERY)}
    assert hand in await read_everything(running, hand, player)
    assert audit_calls(pair, pair.primary) == primary_before  # none of the audit's queries ran there
    standby_after = {**audit_calls(pair, pair.standby), LOBBY_QUERY: pair.calls(pair.standby, LOBBY_QUERY)}
    assert all(standby_after[query] > standby_before[query] for query in standby_before), (
        standby_before, standby_after)
    assert await served_by(running, "standby") >= 11 and await served_by(running, "primary") == 0


async def test_a_players_own_hand_is_in_their_history_at_once_though_the_standby_lags(pair, service):
    running = await service()
    pair.sql(pair.standby, "SELECT pg_wal_replay_pause()")
    try:
        table_id, hand, player = await hand_played(running)
        # The standby has not even the table: only the primary can answer.
        assert pair.sql(pair.standby, "SELECT count(*) FROM events WHERE stream_id = %s",
                        (f"tables/{table_id}",)) == [(0,)]
        primary_before = pair.calls(pair.primary, HISTORY_QUERY)
        assert hand in await read_everything(running, hand, player)
        assert pair.calls(pair.primary, HISTORY_QUERY) > primary_before
        assert await served_by(running, "primary") >= 11 and await served_by(running, "standby") == 0
    finally:
        pair.sql(pair.standby, "SELECT pg_wal_replay_resume()")


async def test_a_stopped_standby_fails_no_call_and_serves_again_once_back(pair, service):
    await asyncio.to_thread(pair.standby.stop, "immediate")
    try:
        running = await service()  # starts with its standby away
        _table_id, hand, player = await hand_played(running)
        async with asyncio.timeout(60):
            assert hand in await read_everything(running, hand, player)
    finally:
        await asyncio.to_thread(pair.start_standby)
    # Back: within the standby's retry interval and a reconnection, the standby serves the reads again.
    deadline = time.monotonic() + 60
    while True:
        before = pair.calls(pair.standby, HISTORY_QUERY)
        assert hand in await read_everything(running, hand, player)
        if pair.calls(pair.standby, HISTORY_QUERY) > before:
            break
        assert time.monotonic() < deadline, "the standby never served reads again"
        await asyncio.sleep(0.5)


async def test_the_primarys_hosts_with_prefer_standby_read_the_standby(pair, service):
    """The read URL may name the primary's hosts (the primary first) with
    ``target_session_attrs=prefer-standby``: libpq picks the standby."""
    hosts = f"127.0.0.1:{pair.primary.port},127.0.0.1:{pair.standby.port}"
    running = await service(f"postgresql://postgres@{hosts}/stud?target_session_attrs=prefer-standby")
    _table_id, hand, player = await hand_played(running)
    primary_before, standby_before = audit_calls(pair, pair.primary), audit_calls(pair, pair.standby)
    assert hand in await read_everything(running, hand, player)
    assert audit_calls(pair, pair.primary) == primary_before
    assert all(count > standby_before[query] for query, count in audit_calls(pair, pair.standby).items())
