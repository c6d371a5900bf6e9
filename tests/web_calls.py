"""One valid call of every API method, with the right token, checking a real answer: ``CALLS[name]`` is
``async (world, caller) -> None``. Whatever a call needs first (a table, a seated player, a deposit) is
set up over the gRPC port; only the call under test goes through ``caller`` (Connect, gRPC-Web or a JSON
route), so a transport that loses a field or a header fails here.
"""

from __future__ import annotations

import asyncio
import uuid
from collections.abc import Awaitable, Callable

from connectrpc.errors import ConnectError
from google.protobuf import duration_pb2
from grpc_fixtures import table_spec, wait_for_turn
from web_fixtures import Caller, RouteError, WebWorld, bearer, error_info, method_named

from stud_service.auth import Role
from stud_service.bots.client import account_name, error_reason, new_request_id
from stud_service.bots.connect_stub import rpc_error
from stud_service.server.proto_gen import audit_service_pb2 as a
from stud_service.server.proto_gen import cashier_service_pb2 as c
from stud_service.server.proto_gen import table_pb2, tournament_pb2
from stud_service.server.proto_gen import table_service_pb2 as t
from stud_service.server.proto_gen import tournament_service_pb2 as tr

BUY_IN = 5_000
OPERATOR = bearer("house", Role.OPERATOR)
AUDITOR = bearer("auditor", Role.AUDITOR)
Scenario = Callable[[WebWorld, Caller], Awaitable[None]]


async def call(caller: Caller, method: str, request, token: str):  # type: ignore[no-untyped-def]
    return await caller.unary(method_named(method), request, token)


def seat_of(view: table_pb2.TableView, player: str) -> table_pb2.SeatView | None:
    return next((seat for seat in view.seats if seat.player_id == player), None)


async def seated(world: WebWorld, *players: str) -> str:
    """A new table with ``players`` in seats 1, 2 ... (over gRPC)."""
    table_id = await world.new_table(max_seats=max(2, len(players)))
    for number, player in enumerate(players, start=1):
        await world.grpc_client(player).sit_down(table_id, number, BUY_IN)
    return table_id


def fresh(prefix: str) -> str:
    return f"{prefix}-{uuid.uuid4().hex[:8]}"


# -- TableService -------------------------------------------------------------------------------------------


async def create_table(world: WebWorld, caller: Caller) -> None:
    table_id = fresh("t")
    reply = await call(caller, "CreateTable", t.CreateTableRequest(
        table=table_spec(), table_id=table_id, request_id=new_request_id()), OPERATOR)
    assert reply.name == f"tables/{table_id}" and reply.stakes.small_bet == 200
    assert await world.head(table_id) >= 1


async def get_table(world: WebWorld, caller: Caller) -> None:
    table_id = await world.new_table()
    reply = await call(caller, "GetTable", t.GetTableRequest(name=f"tables/{table_id}"), bearer("alice"))
    assert reply.name == f"tables/{table_id}" and reply.min_buy_in == 2_000


async def list_tables(world: WebWorld, caller: Caller) -> None:
    table_id = await world.new_table()
    reply = await call(caller, "ListTables", t.ListTablesRequest(page_size=1000), bearer("alice"))
    assert f"tables/{table_id}" in [table.name for table in reply.tables]


async def sit_down(world: WebWorld, caller: Caller) -> None:
    table_id = await world.new_table()
    reply = await call(caller, "SitDown", t.SitDownRequest(
        name=f"tables/{table_id}", seat=3, buy_in=BUY_IN, request_id=new_request_id()), bearer("alice"))
    seat = seat_of(reply.view, "alice")
    assert seat is not None and seat.seat == 3 and seat.stack == BUY_IN


async def leave(world: WebWorld, caller: Caller) -> None:
    table_id = await seated(world, "alice")
    reply = await call(caller, "Leave", t.LeaveRequest(
        name=f"tables/{table_id}", request_id=new_request_id()), bearer("alice"))
    assert seat_of(reply.view, "alice") is None


async def sit_out(world: WebWorld, caller: Caller) -> None:
    table_id = await seated(world, "alice")
    reply = await call(caller, "SitOut", t.SitOutRequest(
        name=f"tables/{table_id}", request_id=new_request_id()), bearer("alice"))
    assert seat_of(reply.view, "alice").sitting_out  # type: ignore[union-attr]


async def sit_in(world: WebWorld, caller: Caller) -> None:
    table_id = await seated(world, "alice")
    await world.grpc_client("alice").sit_out(table_id)
    reply = await call(caller, "SitIn", t.SitInRequest(
        name=f"tables/{table_id}", request_id=new_request_id()), bearer("alice"))
    assert not seat_of(reply.view, "alice").sitting_out  # type: ignore[union-attr]


async def top_up(world: WebWorld, caller: Caller) -> None:
    table_id = await seated(world, "alice")  # alone: no hand runs, so the chips come at once
    reply = await call(caller, "TopUp", t.TopUpRequest(
        name=f"tables/{table_id}", amount=1_000, request_id=new_request_id()), bearer("alice"))
    assert seat_of(reply.view, "alice").stack == BUY_IN + 1_000  # type: ignore[union-attr]


async def join_waiting_list(world: WebWorld, caller: Caller) -> None:
    table_id = await seated(world, "alice", "bob")
    reply = await call(caller, "JoinWaitingList", t.JoinWaitingListRequest(
        name=f"tables/{table_id}", request_id=new_request_id()), bearer("carol"))
    assert reply.view.waiting_place == 1


async def leave_waiting_list(world: WebWorld, caller: Caller) -> None:
    table_id = await seated(world, "alice", "bob")
    await world.grpc_client("carol").join_waiting_list(table_id)
    reply = await call(caller, "LeaveWaitingList", t.LeaveWaitingListRequest(
        name=f"tables/{table_id}", request_id=new_request_id()), bearer("carol"))
    assert reply.view.waiting_place == 0


async def get_table_view(world: WebWorld, caller: Caller) -> None:
    table_id = await seated(world, "alice")
    request = t.GetTableViewRequest(name=f"tables/{table_id}")
    reply = await call(caller, "GetTableView", request, bearer("alice"))
    assert reply.version == await world.head(table_id) and reply.viewer_seat == 1


async def act(world: WebWorld, caller: Caller) -> None:
    table_id = await seated(world, "alice", "bob")
    players = [world.grpc_client("alice"), world.grpc_client("bob")]
    client, view = await wait_for_turn(players, table_id)
    player = next(seat.player_id for seat in view.seats if seat.seat == view.viewer_seat)
    legal = view.legal_actions[0]
    reply = await call(caller, "Act", t.ActRequest(
        name=f"tables/{table_id}", seat=view.viewer_seat, action=legal.type, amount=legal.amount,
        turn=view.turn, request_id=new_request_id()), bearer(player))
    assert reply.view.version > view.version and reply.view.turn != view.turn


async def watch_table(world: WebWorld, caller: Caller) -> None:
    table_id = await seated(world, "alice")
    head = await world.head(table_id)
    replies = caller.stream(method_named("WatchTable"), t.WatchTableRequest(name=f"tables/{table_id}"),
                            bearer("alice")).__aiter__()
    async with asyncio.timeout(15):
        first = await replies.__anext__()
        assert first.view.version == head and first.view.viewer_seat == 1
        await world.grpc_client("bob").sit_down(table_id, 2, BUY_IN)
        second = await replies.__anext__()
        assert second.event.version == head + 1 and second.event.WhichOneof("event") == "player_seated"
    await replies.aclose()  # type: ignore[attr-defined]


# -- TableService: an operator's controls (RULES.md §12) -----------------------------------------------------


async def pause_table(world: WebWorld, caller: Caller) -> None:
    table_id = await world.new_table()
    reply = await call(caller, "PauseTable", t.PauseTableRequest(
        name=f"tables/{table_id}", reason="maintenance", request_id=new_request_id()), OPERATOR)
    assert reply.status == table_pb2.TABLE_STATUS_PAUSED and reply.status_reason == "maintenance"
    assert reply.status_time.seconds > 0


async def resume_table(world: WebWorld, caller: Caller) -> None:
    table_id = await world.new_table()
    await world.grpc_client("house", Role.OPERATOR).pause_table(table_id, "maintenance")
    reply = await call(caller, "ResumeTable", t.ResumeTableRequest(
        name=f"tables/{table_id}", reason="done", request_id=new_request_id()), OPERATOR)
    assert reply.status == table_pb2.TABLE_STATUS_OPEN and reply.status_reason == "done"


async def close_table(world: WebWorld, caller: Caller) -> None:
    table_id = await seated(world, "alice")
    reply = await call(caller, "CloseTable", t.CloseTableRequest(
        name=f"tables/{table_id}", reason="retired", request_id=new_request_id()), OPERATOR)
    assert reply.status == table_pb2.TABLE_STATUS_CLOSED and reply.seated_players == 0


async def void_hand(world: WebWorld, caller: Caller) -> None:
    table_id = await seated(world, "alice", "bob")
    _client, view = await wait_for_turn([world.grpc_client("alice"), world.grpc_client("bob")], table_id)
    reply = await call(caller, "VoidHand", t.VoidHandRequest(
        name=view.hand.name, reason="fault", request_id=new_request_id()), OPERATOR)
    assert reply.last_voided_hand.name == view.hand.name and reply.last_voided_hand.reason == "fault"
    assert not reply.last_voided_hand.automatic


async def update_table_settings(world: WebWorld, caller: Caller) -> None:
    table_id = await world.new_table()
    reply = await call(caller, "UpdateTableSettings", t.UpdateTableSettingsRequest(
        name=f"tables/{table_id}", action_clock=duration_pb2.Duration(seconds=45), display_name="Slow",
        reason="beginners", request_id=new_request_id()), OPERATOR)
    assert reply.action_clock.seconds == 45 and reply.display_name == "Slow"


async def send_chat(world: WebWorld, caller: Caller) -> None:
    table_id = await seated(world, "alice")
    reply = await call(caller, "SendChat", t.SendChatRequest(
        name=f"tables/{table_id}", text="hello, table", request_id=new_request_id()), bearer("alice"))
    assert reply.number == 1 and reply.version == await world.head(table_id)


async def mute_chat_player(world: WebWorld, caller: Caller) -> None:
    table_id = await seated(world, "alice")
    reply = await call(caller, "MuteChatPlayer", t.MuteChatPlayerRequest(
        name=f"tables/{table_id}", player_id="alice", muted=True, reason="spam", request_id=new_request_id()),
        OPERATOR)
    assert reply.version == await world.head(table_id)
    assert (await world.grpc_client("alice").view(table_id)).chat_muted


async def delete_chat_message(world: WebWorld, caller: Caller) -> None:
    table_id = await seated(world, "alice")
    said = await world.grpc_client("alice").send_chat(table_id, "oops")
    reply = await call(caller, "DeleteChatMessage", t.DeleteChatMessageRequest(
        name=f"tables/{table_id}", number=said.number, reason="spoiler", request_id=new_request_id()),
        OPERATOR)
    assert reply.version == said.version + 1 == await world.head(table_id)


async def answer_heartbeat(world: WebWorld, caller: Caller) -> None:
    table_id = await seated(world, "alice")
    watch = t.WatchTableRequest(name=f"tables/{table_id}", heartbeat_seconds=1)
    replies = caller.stream(method_named("WatchTable"), watch, bearer("alice")).__aiter__()
    async with asyncio.timeout(15):
        while not (message := await replies.__anext__()).HasField("heartbeat"):
            pass
    await replies.aclose()  # type: ignore[attr-defined]
    reply = await call(caller, "AnswerHeartbeat", t.AnswerHeartbeatRequest(
        name=f"tables/{table_id}", ping=message.heartbeat.ping), bearer("alice"))
    assert reply.round_trip.time.ToMicroseconds() > 0
    assert reply.round_trip.source == table_pb2.ROUND_TRIP_SOURCE_HEARTBEAT


# -- AuditService -------------------------------------------------------------------------------------------


async def list_hands(world: WebWorld, caller: Caller) -> None:
    request = a.ListHandsRequest(parent=f"tables/{world.finished_table}")
    reply = await call(caller, "ListHands", request, AUDITOR)
    assert [hand.name for hand in reply.hands][:1] == [world.hand] and reply.hands[0].complete


async def get_hand(world: WebWorld, caller: Caller) -> None:
    reply = await call(caller, "GetHand", a.GetHandRequest(name=world.hand), AUDITOR)
    assert reply.name == world.hand and reply.events and reply.deck_commitment


async def replay_hand(world: WebWorld, caller: Caller) -> None:
    reply = await call(caller, "ReplayHand", a.ReplayHandRequest(name=world.hand, view=a.REPLAY_VIEW_FULL),
                       AUDITOR)
    assert len(reply.steps) > 10 and reply.steps[0].event.WhichOneof("event") == "hand_started"


async def verify_hand(world: WebWorld, caller: Caller) -> None:
    reply = await call(caller, "VerifyHand", a.VerifyHandRequest(name=world.hand), AUDITOR)
    assert reply.passed and reply.checks


async def verify_shuffle(world: WebWorld, caller: Caller) -> None:
    reply = await call(caller, "VerifyShuffle", a.VerifyShuffleRequest(name=world.hand), AUDITOR)
    assert reply.passed and reply.deck_commitment and reply.cards_checked > 0


async def export_hand_history(world: WebWorld, caller: Caller) -> None:
    reply = await call(caller, "ExportHandHistory", a.ExportHandHistoryRequest(
        name=world.hand, format=a.HISTORY_FORMAT_POKERSTARS), AUDITOR)
    assert reply.format == a.HISTORY_FORMAT_POKERSTARS and "*** SHOW DOWN ***" in reply.text


async def reconcile_money(world: WebWorld, caller: Caller) -> None:
    player = fresh("payer")
    await world.grpc_client("house", Role.OPERATOR).deposit(player, 700)
    reply = await call(caller, "ReconcileMoney", a.ReconcileMoneyRequest(
        view=a.MONEY_RECONCILIATION_VIEW_FULL), AUDITOR)
    # Not balanced: the simulated table's buy-ins have no account entries; the books say so.
    books = {books.player_id: books for books in reply.accounts}
    assert books[player].deposits == books[player].balance == 700 and reply.discrepancy_count > 0


async def set_client_seed(world: WebWorld, caller: Caller) -> None:
    table_id = await seated(world, "alice")
    head = await world.head(table_id)
    reply = await call(caller, "SetClientSeed", a.SetClientSeedRequest(
        name=f"tables/{table_id}", seed="ab" * 16, request_id=new_request_id()), bearer("alice"))
    assert reply.version == head + 1 == await world.head(table_id)


async def list_access_records(world: WebWorld, caller: Caller) -> None:
    auditor = fresh("auditor")
    await world.grpc_client(auditor, Role.AUDITOR).view(await world.new_table())
    reply = await call(caller, "ListAccessRecords", a.ListAccessRecordsRequest(principal_id=auditor), AUDITOR)
    assert [record.method for record in reply.access_records] == ["/stud.v1.TableService/GetTableView"]


async def list_player_sessions(world: WebWorld, caller: Caller) -> None:
    player = fresh("sessions")
    await world.grpc_client(player).view(await world.new_table())
    request = a.ListPlayerSessionsRequest(player_id=player)
    for _ in range(600):  # the session's start is written in the background: a moment
        reply = await call(caller, "ListPlayerSessions", request, AUDITOR)
        if reply.player_sessions:
            break
        await asyncio.sleep(0.05)
    found = [(s.player_id, s.transport, s.address) for s in reply.player_sessions]
    assert found == [(player, "grpc", "127.0.0.1")]


# -- CashierService -----------------------------------------------------------------------------------------


async def deposit(world: WebWorld, caller: Caller) -> None:
    player = fresh("payer")
    reply = await call(caller, "Deposit", c.DepositRequest(
        account=account_name(player), amount=500, currency_code="USD", payment_reference=fresh("psp"),
        request_id=new_request_id()), OPERATOR)
    assert reply.account.balance == 500 and reply.entry.amount == 500


async def withdraw(world: WebWorld, caller: Caller) -> None:
    player = fresh("payer")
    await world.grpc_client("house", Role.OPERATOR).deposit(player, 500)
    reply = await call(caller, "Withdraw", c.WithdrawRequest(
        account=account_name(player), amount=100, currency_code="USD", payment_reference=fresh("psp"),
        request_id=new_request_id()), OPERATOR)
    assert reply.account.balance == 400


async def get_account(world: WebWorld, caller: Caller) -> None:
    player = fresh("payer")
    await world.grpc_client("house", Role.OPERATOR).deposit(player, 300)
    reply = await call(caller, "GetAccount", c.GetAccountRequest(name=account_name(player)), bearer(player))
    assert reply.balance == 300 and reply.player_id == player


async def list_account_entries(world: WebWorld, caller: Caller) -> None:
    player = fresh("payer")
    await world.grpc_client("house", Role.OPERATOR).deposit(player, 300)
    reply = await call(caller, "ListAccountEntries", c.ListAccountEntriesRequest(parent=account_name(player)),
                       OPERATOR)
    assert [entry.amount for entry in reply.entries] == [300]


async def suspend_player(world: WebWorld, caller: Caller) -> None:
    player = fresh("p")
    request = c.SuspendPlayerRequest(name=f"players/{player}", reason="review")
    reply = await call(caller, "SuspendPlayer", request, OPERATOR)
    assert reply.standing.suspended and reply.standing.reason == "review"


async def reinstate_player(world: WebWorld, caller: Caller) -> None:
    player = fresh("p")
    await call_grpc_suspend(world, player)
    request = c.ReinstatePlayerRequest(name=f"players/{player}")
    reply = await call(caller, "ReinstatePlayer", request, OPERATOR)
    assert reply.name == f"players/{player}" and not reply.suspended


async def get_player_standing(world: WebWorld, caller: Caller) -> None:
    player = fresh("p")
    await call_grpc_suspend(world, player)
    reply = await call(caller, "GetPlayerStanding", c.GetPlayerStandingRequest(name=f"players/{player}"),
                       OPERATOR)
    assert reply.suspended


async def call_grpc_suspend(world: WebWorld, player: str) -> None:
    operator = world.grpc_client("house", Role.OPERATOR)
    await operator.cashier.SuspendPlayer(c.SuspendPlayerRequest(name=f"players/{player}", reason="review"),
                                         metadata=operator.metadata)


async def get_integrity_report(world: WebWorld, caller: Caller) -> None:
    # The world's table was stored, not played through the service: a player's call records a session (in the
    # background), so the report has sessions to read.
    await world.grpc_client("p1").view(world.finished_table)
    for _ in range(600):
        reply = await call(caller, "GetIntegrityReport", a.GetIntegrityReportRequest(page_size=3), AUDITOR)
        if reply.sessions_recorded:
            break
        await asyncio.sleep(0.1)
    # The world's played table: its players sat together, so there are pairs, each with its two players.
    assert reply.hands > 0 and reply.pair_count > 0 and reply.sessions_recorded, reply
    assert 0 < len(reply.pairs) <= 3 and all(len(pair.player_ids) == 2 for pair in reply.pairs)


# -- TournamentService -------------------------------------------------------------------------------------


async def tournament(world: WebWorld, *players: str, seats: int = 3) -> str:
    """A new play-money sit & go of ``seats`` (over gRPC) with ``players`` registered: its name."""
    operator = world.grpc_client("house", Role.OPERATOR)
    created = await operator.tournaments.CreateTournament(tr.CreateTournamentRequest(
        tournament=tournament_pb2.Tournament(play_money=True, max_entrants=seats, seats_per_table=seats),
        tournament_id=fresh("cup")), metadata=operator.metadata)
    for player in players:
        client = world.grpc_client(player)
        await client.tournaments.RegisterTournament(tr.RegisterTournamentRequest(
            name=created.name, request_id=new_request_id()), metadata=client.metadata)
    return created.name


async def create_tournament(world: WebWorld, caller: Caller) -> None:
    tournament_id = fresh("cup")
    reply = await call(caller, "CreateTournament", tr.CreateTournamentRequest(
        tournament=tournament_pb2.Tournament(display_name="Web cup", play_money=True),
        tournament_id=tournament_id, request_id=new_request_id()), OPERATOR)
    assert reply.name == f"tournaments/{tournament_id}" and reply.display_name == "Web cup"
    assert reply.state == tournament_pb2.TOURNAMENT_STATE_REGISTERING and len(reply.levels) == 13


async def get_tournament(world: WebWorld, caller: Caller) -> None:
    name = await tournament(world, "alice")
    reply = await call(caller, "GetTournament", tr.GetTournamentRequest(name=name), bearer("bob"))
    assert reply.name == name and reply.entrants == 1 and reply.registration_open


async def list_tournaments(world: WebWorld, caller: Caller) -> None:
    name = await tournament(world)
    reply = await call(caller, "ListTournaments", tr.ListTournamentsRequest(page_size=1000), bearer("alice"))
    assert name in [listed.name for listed in reply.tournaments]


async def register_tournament(world: WebWorld, caller: Caller) -> None:
    name = await tournament(world, "alice")
    reply = await call(caller, "RegisterTournament", tr.RegisterTournamentRequest(
        name=name, request_id=new_request_id()), bearer("bob"))
    assert reply.view.registered and reply.view.tournament.entrants == 2


async def unregister_tournament(world: WebWorld, caller: Caller) -> None:
    name = await tournament(world, "alice", "bob")
    reply = await call(caller, "UnregisterTournament", tr.UnregisterTournamentRequest(
        name=name, request_id=new_request_id()), bearer("bob"))
    assert not reply.view.registered and reply.view.tournament.entrants == 1


async def re_enter_tournament(world: WebWorld, caller: Caller) -> None:
    """No player runs out of chips here (no table plays): the refusal travels as over gRPC."""
    name = await tournament(world, "alice", "bob", seats=2)
    try:
        await call(caller, "ReEnterTournament", tr.ReEnterTournamentRequest(
            name=name, request_id=new_request_id()), bearer("alice"))
    except (ConnectError, RouteError) as error:
        assert refused_reason(error) == "STILL_IN_TOURNAMENT", error
    else:
        raise AssertionError("a player with chips re-entered")


def refused_reason(error: ConnectError | RouteError) -> str:
    """The ErrorInfo reason of a refusal, as a Connect client or a JSON route received it."""
    if isinstance(error, RouteError):
        return error_info(error.document).reason
    return error_reason(rpc_error(error)) or ""


async def cancel_tournament(world: WebWorld, caller: Caller) -> None:
    name = await tournament(world, "alice")
    reply = await call(caller, "CancelTournament", tr.CancelTournamentRequest(name=name, reason="web test"),
                       OPERATOR)
    assert reply.state == tournament_pb2.TOURNAMENT_STATE_CANCELLED


async def get_tournament_view(world: WebWorld, caller: Caller) -> None:
    name = await tournament(world, "alice", "bob", seats=2)  # full: it started and seated them
    reply = await call(caller, "GetTournamentView", tr.GetTournamentViewRequest(name=name), bearer("alice"))
    assert reply.registered and reply.table == f"{name.replace('tournaments/', 'tables/')}-t1"
    assert reply.seat in (1, 2) and reply.stack == 1_500 and reply.rank == 1


async def watch_tournament(world: WebWorld, caller: Caller) -> None:
    name = await tournament(world, "alice")
    replies = caller.stream(method_named("WatchTournament"), tr.WatchTournamentRequest(name=name),
                            bearer("alice")).__aiter__()
    async with asyncio.timeout(15):
        first = await replies.__anext__()
        assert first.view.registered and first.view.tournament.entrants == 1
        bob = world.grpc_client("bob")
        await bob.tournaments.RegisterTournament(tr.RegisterTournamentRequest(name=name),
                                                 metadata=bob.metadata)
        second = await replies.__anext__()
        assert second.event.version == first.view.version + 1
        registered = second.event.player_registered
        assert (registered.player_id, registered.entrants) == ("bob", 2)
    await replies.aclose()  # type: ignore[attr-defined]


CALLS: dict[str, Scenario] = {
    "CreateTable": create_table, "GetTable": get_table, "ListTables": list_tables, "SitDown": sit_down,
    "Leave": leave, "SitOut": sit_out, "SitIn": sit_in, "TopUp": top_up, "JoinWaitingList": join_waiting_list,
    "LeaveWaitingList": leave_waiting_list, "GetTableView": get_table_view, "Act": act,
    "WatchTable": watch_table, "PauseTable": pause_table, "ResumeTable": resume_table,
    "CloseTable": close_table, "VoidHand": void_hand, "UpdateTableSettings": update_table_settings,
    "SendChat": send_chat, "MuteChatPlayer": mute_chat_player,
    "DeleteChatMessage": delete_chat_message, "AnswerHeartbeat": answer_heartbeat,
    "ListHands": list_hands, "GetHand": get_hand, "ReplayHand": replay_hand, "VerifyHand": verify_hand,
    "VerifyShuffle": verify_shuffle, "ExportHandHistory": export_hand_history,
    "ReconcileMoney": reconcile_money, "GetIntegrityReport": get_integrity_report,
    "SetClientSeed": set_client_seed,
    "ListAccessRecords": list_access_records, "ListPlayerSessions": list_player_sessions,
    "Deposit": deposit, "Withdraw": withdraw, "GetAccount": get_account,
    "ListAccountEntries": list_account_entries, "SuspendPlayer": suspend_player,
    "ReinstatePlayer": reinstate_player, "GetPlayerStanding": get_player_standing,
    "CreateTournament": create_tournament, "GetTournament": get_tournament,
    "ListTournaments": list_tournaments,
    "RegisterTournament": register_tournament, "UnregisterTournament": unregister_tournament,
    "ReEnterTournament": re_enter_tournament, "CancelTournament": cancel_tournament,
    "GetTournamentView": get_tournament_view, "WatchTournament": watch_tournament,
}
