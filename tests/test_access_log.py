"""The access log over a real gRPC server and PostgreSQL: every privileged call is recorded, before it
does its work, in the hash-chained event log, and an auditor lists the records (docs/access-log.md).

The service runs on a database of this module's own, so every access record in it is one of ours.
"""

from __future__ import annotations

import asyncio
import json
import uuid
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any

import grpc
import psycopg
import pytest
import pytest_asyncio
from connectrpc.code import Code
from connectrpc.errors import ConnectError
from google.protobuf import timestamp_pb2
from google.rpc import error_details_pb2
from grpc_fixtures import TOKEN_SECRET, ServiceUnderTest, service_under_test, table_spec
from web_fixtures import ConnectCaller, method_named

from stud_service.access import AccessLog, AccessRecord, Outcome
from stud_service.audit.checkpoint import make_checkpoint
from stud_service.audit.simulate import simulate_table, store_table
from stud_service.auth import Role, mint_token
from stud_service.bots import StudClient
from stud_service.bots.client import account_name, error_reason
from stud_service.cli import main
from stud_service.engine import Variant
from stud_service.server.proto_gen import (
    audit_pb2,
    audit_service_pb2,
    cashier_service_pb2,
    table_service_pb2,
    tournament_pb2,
    tournament_service_pb2,
)
from stud_service.server.tables.settings import RuntimeSettings

pytestmark = pytest.mark.asyncio(loop_scope="session")

SEED = "my-own-client-seed-that-is-secret"
PLAY_MONEY_CUP = tournament_pb2.Tournament(play_money=True, max_entrants=4, seats_per_table=4)


@dataclass
class World:
    service: ServiceUnderTest
    table_id: str  # a table with finished hands in the log
    hand: str  # tables/{table}/hands/1 of it
    live_table: str  # a table created through the API
    web_url: str  # the service's web port
    tournament: str  # tournaments/{id}: a play-money sit & go created through the API


@pytest_asyncio.fixture(scope="module")
async def world(make_database: Callable[..., Awaitable[str]]) -> Any:
    url = await make_database(migrated=True)
    async with service_under_test(url, RuntimeSettings(next_hand_pause=0.05)) as service:
        table = simulate_table(f"acc-{uuid.uuid4().hex[:8]}", Variant.STUD, 2, seed=5)
        await store_table(service.store, table)
        live = f"t-{uuid.uuid4().hex[:10]}"
        operator = service.client("house", Role.OPERATOR)
        await operator.create_table(live, table_spec())
        create = tournament_service_pb2.CreateTournamentRequest(tournament=PLAY_MONEY_CUP)
        created = await operator.tournaments.CreateTournament(create, metadata=operator.metadata)
        yield World(service, table.table_id, f"tables/{table.table_id}/hands/1", live, service.web_url,
                    created.name)


async def access_rows(store: Any) -> list[tuple[str, int, dict[str, Any]]]:
    async with store.pool.connection() as conn:
        cursor = await conn.execute(
            "SELECT stream_id, version, payload::text FROM events WHERE starts_with(stream_id, 'access/')"
            " ORDER BY (payload->>'at_ms')::bigint, stream_id, version"
        )
        return [(stream, version, json.loads(text)) for stream, version, text in await cursor.fetchall()]


async def new_rows(world: World, call: Callable[[], Awaitable[Any]]) -> tuple[list[dict[str, Any]], Any]:
    """The access records ``call`` appended, and its reply (or the RpcError or ConnectError it raised)."""
    before = len(await access_rows(world.service.store))
    try:
        outcome: Any = await call()
    except (grpc.aio.AioRpcError, ConnectError) as error:
        outcome = error
    rows = await access_rows(world.service.store)
    return [payload for _stream, _version, payload in rows[before:]], outcome


def client(world: World, who: str, role: Role) -> StudClient:
    return world.service.client(who, role)


# (method, role, request, expected refusal reason or None when allowed)
def privileged_calls(world: World, player: str) -> list[tuple[str, Role, Any, str | None]]:
    account = account_name(player)
    deposit = cashier_service_pb2.DepositRequest(
        account=account, amount=500, currency_code="USD", payment_reference=f"psp-{uuid.uuid4().hex[:6]}"
    )
    withdraw = cashier_service_pb2.WithdrawRequest(
        account=account, amount=100, currency_code="USD", payment_reference=f"psp-{uuid.uuid4().hex[:6]}"
    )
    new_table = f"t-{uuid.uuid4().hex[:10]}"
    hand = world.hand
    op, aud = Role.OPERATOR, Role.AUDITOR
    return [
        ("TableService/CreateTable",
         op, table_service_pb2.CreateTableRequest(table_id=new_table, table=table_spec()), None),
        ("TableService/CreateTable",
         aud, table_service_pb2.CreateTableRequest(table_id=new_table, table=table_spec()), "OPERATOR_ONLY"),
        ("TableService/GetTableView",
         aud, table_service_pb2.GetTableViewRequest(name=f"tables/{world.live_table}"), None),
        ("CashierService/Deposit", op, deposit, None),
        ("CashierService/Deposit", aud, deposit, "OPERATOR_ONLY"),
        ("CashierService/Withdraw", op, withdraw, None),
        ("CashierService/GetAccount", aud, cashier_service_pb2.GetAccountRequest(name=account), None),
        ("CashierService/ListAccountEntries",
         op, cashier_service_pb2.ListAccountEntriesRequest(parent=account), None),
        ("CashierService/SuspendPlayer",
         op, cashier_service_pb2.SuspendPlayerRequest(name=f"players/{player}", reason="review"), None),
        ("CashierService/SuspendPlayer",
         aud, cashier_service_pb2.SuspendPlayerRequest(name=f"players/{player}"), "OPERATOR_ONLY"),
        ("CashierService/ReinstatePlayer",
         op, cashier_service_pb2.ReinstatePlayerRequest(name=f"players/{player}"), None),
        ("CashierService/GetPlayerStanding",
         aud, cashier_service_pb2.GetPlayerStandingRequest(name=f"players/{player}"), None),
        ("AuditService/ListHands", aud, audit_service_pb2.ListHandsRequest(parent="tables/-"), None),
        ("AuditService/GetHand", op, audit_service_pb2.GetHandRequest(name=hand), None),
        ("AuditService/ReplayHand", aud, audit_service_pb2.ReplayHandRequest(name=hand), None),
        ("AuditService/VerifyHand", aud, audit_service_pb2.VerifyHandRequest(name=hand), None),
        ("AuditService/VerifyShuffle", op, audit_service_pb2.VerifyShuffleRequest(name=hand), None),
        ("AuditService/ExportHandHistory", aud, audit_service_pb2.ExportHandHistoryRequest(name=hand), None),
        ("AuditService/ReconcileMoney", aud, audit_service_pb2.ReconcileMoneyRequest(), None),
        ("AuditService/GetIntegrityReport", op, audit_service_pb2.GetIntegrityReportRequest(), None),
        ("AuditService/SetClientSeed",
         aud, audit_service_pb2.SetClientSeedRequest(name=f"tables/{world.live_table}", seed=SEED),
         "AUDITOR_READ_ONLY"),
        ("AuditService/ListAccessRecords", aud, audit_service_pb2.ListAccessRecordsRequest(), None),
        ("AuditService/ListAccessRecords", op, audit_service_pb2.ListAccessRecordsRequest(), "AUDITOR_ONLY"),
        ("TournamentService/CreateTournament", op, tournament_service_pb2.CreateTournamentRequest(
            tournament=PLAY_MONEY_CUP, tournament_id=f"acc-{uuid.uuid4().hex[:10]}"), None),
        ("TournamentService/CreateTournament", aud, tournament_service_pb2.CreateTournamentRequest(
            tournament=PLAY_MONEY_CUP, tournament_id=f"acc-{uuid.uuid4().hex[:10]}"), "OPERATOR_ONLY"),
        ("TournamentService/CancelTournament", aud, tournament_service_pb2.CancelTournamentRequest(
            name=world.tournament, reason="not mine"), "OPERATOR_ONLY"),
    ]


def stub_method(caller: StudClient, method: str) -> Any:
    service, name = method.split("/")
    stubs = {"TableService": caller.stub, "CashierService": caller.cashier, "AuditService": caller.audit,
             "TournamentService": caller.tournaments}
    return getattr(stubs[service], name)


def expected_resource(request: Any) -> str:
    if isinstance(request, table_service_pb2.CreateTableRequest):
        return f"tables/{request.table_id}"
    if isinstance(request, tournament_service_pb2.CreateTournamentRequest):
        return f"tournaments/{request.tournament_id}"
    if isinstance(request, audit_service_pb2.ReconcileMoneyRequest):
        return "money"
    if isinstance(request, audit_service_pb2.ListAccessRecordsRequest):
        return "accessRecords"
    if isinstance(request, audit_service_pb2.GetIntegrityReportRequest):
        return "integrityReport"
    return getattr(request, "name", "") or getattr(request, "parent", "") or request.account


def over_the_web(world: World, who: str, role: Role, method: str) -> Callable[[Any], Awaitable[Any]]:
    """``method`` called over the web port's Connect with ``who``'s token."""
    descriptor = method_named(method.split("/")[1])
    token = f"Bearer {mint_token(TOKEN_SECRET, who, role)}"
    return lambda request: ConnectCaller(world.web_url, "proto").unary(descriptor, request, token)


@pytest.mark.parametrize("port", ["grpc", "web"])
async def test_each_privileged_call_appends_exactly_one_record_with_its_fields(world, port: str) -> None:
    player = f"p-{uuid.uuid4().hex[:8]}"
    for method, role, request, refusal in privileged_calls(world, player):
        who = f"{role.value}-{uuid.uuid4().hex[:6]}"
        caller = client(world, who, role)
        if port == "web":
            call = over_the_web(world, who, role, method)
        else:
            call = lambda request, caller=caller, method=method: stub_method(caller, method)(  # noqa: E731
                request, metadata=caller.metadata)
        rows, outcome = await new_rows(world, lambda call=call, request=request: call(request))
        assert len(rows) == 1, (method, role, rows)
        (row,) = rows
        assert row["type"] == "AccessRecorded"
        assert (row["principal"], row["role"], row["method"]) == (who, role.value, f"/stud.v1.{method}")
        assert row["resource"] == expected_resource(request), method
        assert row["peer"].startswith(("ipv4:127.0.0.1:", "ipv6:")), row["peer"]
        if refusal is None:
            assert not isinstance(outcome, (grpc.aio.AioRpcError, ConnectError)), (method, role, outcome)
            assert (row["outcome"], row["reason"]) == ("allowed", "")
        elif port == "web":
            assert isinstance(outcome, ConnectError), (method, role)
            assert outcome.code == Code.PERMISSION_DENIED
            infos = [d.message_bytes for d in outcome.details if d.type_name == "google.rpc.ErrorInfo"]
            assert error_details_pb2.ErrorInfo.FromString(infos[0]).reason == refusal
            assert (row["outcome"], row["reason"]) == ("refused", refusal)
        else:
            assert isinstance(outcome, grpc.aio.AioRpcError), (method, role)
            assert outcome.code() == grpc.StatusCode.PERMISSION_DENIED
            assert error_reason(outcome) == refusal
            assert (row["outcome"], row["reason"]) == ("refused", refusal)
        text = json.dumps(row)
        assert SEED not in text and "Bearer" not in text and "eyJ" not in text  # no seed, no token


async def test_an_auditors_watch_is_recorded_once_before_the_first_message(world) -> None:
    auditor = client(world, "eve", Role.AUDITOR)

    async def first_message() -> Any:
        async for reply in auditor.watch(world.live_table):
            return reply
        return None

    rows, reply = await new_rows(world, first_message)
    assert reply is not None and reply.view.version >= 1
    assert [(r["principal"], r["method"], r["resource"], r["outcome"]) for r in rows] == [
        ("eve", "/stud.v1.TableService/WatchTable", f"tables/{world.live_table}", "allowed")
    ]


async def test_a_players_calls_and_an_operators_own_view_append_none(world) -> None:
    table = simulate_table(f"acc-{uuid.uuid4().hex[:8]}", Variant.RAZZ, 1, seed=3)
    await store_table(world.service.store, table)
    seated = next(iter(table.state.seats.values())).player_id
    player = client(world, seated, Role.PLAYER)
    hand = f"tables/{table.table_id}/hands/1"

    async def calls() -> None:
        await player.audit.ListHands(audit_service_pb2.ListHandsRequest(parent="tables/-"),
                                     metadata=player.metadata)
        await player.audit.GetHand(audit_service_pb2.GetHandRequest(name=hand), metadata=player.metadata)
        await player.audit.VerifyShuffle(audit_service_pb2.VerifyShuffleRequest(name=hand),
                                         metadata=player.metadata)
        await player.view(world.live_table)
        async for _ in player.watch(world.live_table):
            break
        await client(world, "house", Role.OPERATOR).view(world.live_table)  # a player's view: not recorded
        for role in (Role.AUDITOR, Role.OPERATOR):  # a tournament's view and watch show what a player sees
            reader = client(world, f"{role.value}-reader", role)
            await reader.tournaments.GetTournamentView(tournament_service_pb2.GetTournamentViewRequest(
                name=world.tournament), metadata=reader.metadata)
            watch = reader.tournaments.WatchTournament(tournament_service_pb2.WatchTournamentRequest(
                name=world.tournament), metadata=reader.metadata)
            await watch.read()
            watch.cancel()
        await player.tournaments.RegisterTournament(tournament_service_pb2.RegisterTournamentRequest(
            name=world.tournament), metadata=player.metadata)
        stream = player.tournaments.WatchTournament(tournament_service_pb2.WatchTournamentRequest(
            name=world.tournament), metadata=player.metadata)
        await stream.read()
        stream.cancel()
        create = table_service_pb2.CreateTableRequest(table_id="t-nope", table=table_spec())
        for refused in (
            player.stub.CreateTable(create, metadata=player.metadata),
            player.audit.ListAccessRecords(
                audit_service_pb2.ListAccessRecordsRequest(), metadata=player.metadata
            ),
        ):
            with pytest.raises(grpc.aio.AioRpcError) as caught:
                await refused
            assert caught.value.code() == grpc.StatusCode.PERMISSION_DENIED

    rows, _ = await new_rows(world, calls)
    assert rows == []


async def test_a_refused_call_is_recorded_refused_and_does_nothing_else(world) -> None:
    player = f"p-{uuid.uuid4().hex[:8]}"
    auditor = client(world, "eve", Role.AUDITOR)
    request = cashier_service_pb2.DepositRequest(
        account=account_name(player), amount=500, currency_code="USD", payment_reference="psp-refused"
    )
    rows, outcome = await new_rows(world, lambda: auditor.cashier.Deposit(request, metadata=auditor.metadata))
    assert error_reason(outcome) == "OPERATOR_ONLY"
    assert [(r["outcome"], r["reason"]) for r in rows] == [("refused", "OPERATOR_ONLY")]
    assert await world.service.store.head(f"accounts/USD/{player}") == 0


@pytest_asyncio.fixture
async def access_refused(world) -> Any:
    """While it lasts, the database refuses every access record as a full disk would (SQLSTATE 53100)
    and takes every other write."""
    url = world.service.database_url
    async with await psycopg.AsyncConnection.connect(url, autocommit=True) as conn:
        await conn.execute(
            "CREATE FUNCTION refuse_access() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN"
            " RAISE EXCEPTION 'could not extend file: No space left on device' USING ERRCODE = '53100';"
            " END $$"
        )
        await conn.execute(
            "CREATE TRIGGER refuse_access BEFORE INSERT ON events FOR EACH ROW"
            " WHEN (starts_with(NEW.stream_id, 'access/')) EXECUTE FUNCTION refuse_access()"
        )
        try:
            yield
        finally:
            await conn.execute("DROP TRIGGER refuse_access ON events")
            await conn.execute("DROP FUNCTION refuse_access()")


async def test_a_call_whose_record_cannot_be_written_is_refused_and_does_nothing(
    world, access_refused
) -> None:
    operator = client(world, "house", Role.OPERATOR)
    player = f"p-{uuid.uuid4().hex[:8]}"
    table_id = f"t-{uuid.uuid4().hex[:10]}"
    calls = [
        operator.cashier.Deposit(cashier_service_pb2.DepositRequest(
            account=account_name(player), amount=500, currency_code="USD", payment_reference="psp-down",
        ), metadata=operator.metadata),
        operator.stub.CreateTable(table_service_pb2.CreateTableRequest(table_id=table_id, table=table_spec()),
                                  metadata=operator.metadata),
        operator.cashier.SuspendPlayer(cashier_service_pb2.SuspendPlayerRequest(
            name=f"players/{player}", reason="x"), metadata=operator.metadata),
        operator.audit.GetHand(audit_service_pb2.GetHandRequest(name=world.hand), metadata=operator.metadata),
    ]
    before = await access_rows(world.service.store)
    for call in calls:
        with pytest.raises(grpc.aio.AioRpcError) as caught:
            await call
        assert caught.value.code() == grpc.StatusCode.UNAVAILABLE
        assert error_reason(caught.value) == "STORE_UNAVAILABLE"
    store = world.service.store
    for stream in (f"accounts/USD/{player}", f"tables/{table_id}", f"players/{player}"):
        assert await store.head(stream) == 0, stream
    assert await access_rows(store) == before
    # A player's calls need no record: they go on.
    assert (await client(world, "alice", Role.PLAYER).view(world.live_table)).version >= 1


def stamp(ms: int) -> timestamp_pb2.Timestamp:
    return timestamp_pb2.Timestamp(seconds=ms // 1000, nanos=(ms % 1000) * 1_000_000)


async def list_all(auditor: StudClient, page_size: int, **filters: Any) -> list[audit_pb2.AccessRecord]:
    found: list[audit_pb2.AccessRecord] = []
    token = ""
    while True:
        reply = await auditor.audit.ListAccessRecords(
            audit_service_pb2.ListAccessRecordsRequest(page_size=page_size, page_token=token, **filters),
            metadata=auditor.metadata,
        )
        assert len(reply.access_records) <= page_size
        found.extend(reply.access_records)
        token = reply.next_page_token
        if not token:
            return found


async def test_list_pages_and_filters_by_time_principal_and_method(world) -> None:
    tag = uuid.uuid4().hex[:6]
    ana, bo = client(world, f"ana-{tag}", Role.OPERATOR), client(world, f"bo-{tag}", Role.AUDITOR)
    for caller in (ana, bo, ana, bo, ana):
        await caller.audit.ListHands(audit_service_pb2.ListHandsRequest(parent="tables/-"),
                                     metadata=caller.metadata)
    await ana.audit.GetHand(audit_service_pb2.GetHandRequest(name=world.hand), metadata=ana.metadata)
    auditor = client(world, f"aud-{tag}", Role.AUDITOR)

    everything = await list_all(auditor, 1000)
    rows = await access_rows(world.service.store)
    # Oldest first, in the log's order; each row once. (This listing's own record comes before its reply.)
    assert [(r.log_stream, r.log_version) for r in everything] == [(s, v) for s, v, _ in rows]
    paged = await list_all(auditor, 1, principal_id=f"bo-{tag}")
    assert len(paged) == 2 and paged == await list_all(auditor, 1000, principal_id=f"bo-{tag}")

    of_ana = await list_all(auditor, 2, principal_id=f"ana-{tag}")
    assert [r.method for r in of_ana] == ["/stud.v1.AuditService/ListHands"] * 3 + [
        "/stud.v1.AuditService/GetHand"
    ]
    assert all(r.role == "operator" and r.outcome == audit_pb2.ACCESS_OUTCOME_ALLOWED for r in of_ana)
    assert of_ana[3].resource == world.hand and of_ana[3].peer.startswith("ipv4:127.0.0.1:")
    bare = await list_all(auditor, 2, principal_id=f"bo-{tag}", method="ListHands")
    full = await list_all(auditor, 2, principal_id=f"bo-{tag}", method="/stud.v1.AuditService/ListHands")
    assert len(bare) == 2 and bare == full

    times = [r.time.ToMilliseconds() for r in of_ana]
    window = await list_all(auditor, 2, principal_id=f"ana-{tag}", start_time=stamp(times[1]),
                            end_time=stamp(times[3]))
    assert [r.time.ToMilliseconds() for r in window] == [t for t in times if times[1] <= t < times[3]]

    first = await auditor.audit.ListAccessRecords(
        audit_service_pb2.ListAccessRecordsRequest(page_size=1, principal_id=f"ana-{tag}"),
        metadata=auditor.metadata,
    )
    for other in (
        audit_service_pb2.ListAccessRecordsRequest(
            page_token=first.next_page_token, principal_id=f"bo-{tag}"
        ),
        audit_service_pb2.ListAccessRecordsRequest(page_token="v1.made-up.token"),
        audit_service_pb2.ListAccessRecordsRequest(page_size=-1),
        audit_service_pb2.ListAccessRecordsRequest(start_time=timestamp_pb2.Timestamp(seconds=-10**12)),
        # Text PostgreSQL cannot hold or no method name has: refused, not INTERNAL.
        audit_service_pb2.ListAccessRecordsRequest(method="ListHands\x00"),
        audit_service_pb2.ListAccessRecordsRequest(method="List\nHands"),
    ):
        with pytest.raises(grpc.aio.AioRpcError) as caught:
            await auditor.audit.ListAccessRecords(other, metadata=auditor.metadata)
        assert (caught.value.code(), error_reason(caught.value)) == (
            grpc.StatusCode.INVALID_ARGUMENT, "MALFORMED_REQUEST"
        )


async def test_the_access_streams_chain_verifies_and_checkpoints_cover_them(world) -> None:
    store = world.service.store
    streams = sorted({stream for stream, _v, _p in await access_rows(store)})
    assert streams and all(s.startswith("access/") and s.count("/") == 2 for s in streams)
    for stream in streams:
        report = await store.verify(stream)
        assert report.ok and report.checked == await store.head(stream), report
    checkpoint = await make_checkpoint(store, b"k" * 32)
    assert set(streams) <= {entry["stream"] for entry in checkpoint["streams"]}


async def test_concurrent_records_all_land_in_order_and_writers_sharing_a_stream_retry(world) -> None:
    store = world.service.store
    writer = f"test-{uuid.uuid4().hex[:6]}"
    one, two = AccessLog(store, writer=writer), AccessLog(store, writer=writer)  # the same stream

    def record(n: int) -> AccessRecord:
        return AccessRecord(f"who-{n}", "auditor", "/stud.v1.AuditService/GetHand", "x", "test",
                            Outcome.ALLOWED, "", 1_764_600_000_000)

    refs = await asyncio.gather(*(log.record(record(n)) for n in range(30) for log in (one, two)))
    (stream,) = {stream for stream, _ in refs}
    assert stream == f"access/2025-12-01/{writer}"
    assert sorted(version for _, version in refs) == list(range(1, 61))
    stored = await store.read_stream(stream)
    by_version = {event.version: event.payload["principal"] for event in stored}
    assert len(by_version) == 60 and (await store.verify(stream)).ok


async def test_the_cli_records_its_commands_and_lists_the_log(capsys, database_url) -> None:
    table = f"cli-{uuid.uuid4().hex[:8]}"

    async def run(*argv: str) -> int:  # the command runs its own event loop
        return await asyncio.to_thread(main, [*argv, "--database-url", database_url])

    assert await run("hands", "list", "--table", table) == 0
    capsys.readouterr()
    assert await run("audit", "access", "--method", "cli:hands list", "--json") == 0
    records = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    mine = [r for r in records if r["resource"] == f"tables/{table}"]
    assert len(mine) == 1
    assert mine[0]["role"] == "operator" and mine[0]["peer"].startswith("local:")
    assert mine[0]["stream"].startswith("access/") and "/cli-" in mine[0]["stream"]
    assert await run("audit", "access", "--since", "not a time") == 2
