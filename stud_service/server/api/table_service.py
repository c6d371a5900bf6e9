"""``stud.v1.TableService``: each method authenticates, maps the request to an engine command and
answers with what the caller may see: views and the table resource from :mod:`.table_views`; WatchTable's
stream, once the call is checked, from :mod:`.table_watch`.

Refusals leave through :mod:`stud_service.server.api.errors` (a canonical code and an ErrorInfo reason);
nothing is appended for a refused request. Never log a request or a view: they hold tokens and cards.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import logging
from collections.abc import AsyncIterator, Awaitable, Callable
from typing import Any, TypeVar

import grpc

from stud_service.auth import AuthError, Principal, Role
from stud_service.engine import (
    Act,
    CreateTable,
    DomainError,
    InvalidConfig,
    JoinWaitingList,
    Leave,
    LeaveWaitingList,
    SameNetworkRule,
    SitDown,
    SitIn,
    SitOut,
    TableState,
    TopUp,
)
from stud_service.engine.errors import TournamentTable
from stud_service.observability.logging import log_context
from stud_service.server.api import table_control
from stud_service.server.api.access import operator_only, record_access, recorded
from stud_service.server.api.call import Call, heartbeat_seconds
from stud_service.server.api.caller import CallerKeys, optional_principal_of, playing, principal_of
from stud_service.server.api.convert import (
    ACTIONS,
    AMOUNT_ACTIONS,
    config_from_proto,
)
from stud_service.server.api.errors import (
    Refused,
    RequestError,
    answer,
    malformed,
    raise_if_store_refusal,
    refusal_for,
    within_deadline,
)
from stud_service.server.api.money_gate import check_real_money
from stud_service.server.api.names import HANDS, TABLE_ID, TABLES
from stud_service.server.api.page_tokens import PageTokens
from stud_service.server.api.request_ids import derived_id, request_key
from stud_service.server.api.resuming import check_after_head, check_watch_request
from stud_service.server.api.round_trips import CallerRoundTrips
from stud_service.server.api.seating import (
    CHECK_ATTEMPTS,
    SeatedMeanwhile,
    check_seating,
    others_seated,
    still_checked,
)
from stud_service.server.api.sessions import caller_of, in_session, named_table, watched_in_session
from stud_service.server.api.table_chat import (
    answer_heartbeat,
    delete_chat_message,
    mute_chat_player,
    send_chat,
)
from stud_service.server.api.table_views import table_resource, table_view, view_at
from stud_service.server.api.table_watch import TableWatches
from stud_service.server.latency.meter import RoundTripMeter
from stud_service.server.proto_gen import table_pb2, table_service_pb2
from stud_service.server.tables.live import now_ms
from stud_service.server.tables.runtime import TableRuntime

_log = logging.getLogger(__name__)

DEFAULT_PAGE_SIZE = 50
MAX_PAGE_SIZE = 1000

Reply = TypeVar("Reply")


def _refusals_as_statuses(method: Callable[..., Awaitable[Reply]]) -> Callable[..., Awaitable[Reply]]:
    """Unary methods: turn a refusal into its rich status; anything unexpected into INTERNAL."""

    @functools.wraps(method)
    async def wrapper(self: TableService, request: Any, call: Call) -> Reply:
        name = getattr(request, "name", "")
        table = name[len("tables/") :] if name.startswith("tables/") else None
        with log_context(table=table):  # a failure's line names the table the call was about
            return await answer(method, self, request, call)

    return wrapper


_CREATE_TABLE = operator_only("creating tables")
_STOP_GAME = operator_only("stopping a game (pausing, resuming, closing, voiding, changing settings)")
_MODERATE_CHAT = operator_only("moderating the chat")
# An auditor's look at a running table is recorded, as every privileged read is (the view itself is a
# spectator's: no one but its owner sees a down card of a running hand). Operators see what a player would.
_EVERY_CARD = frozenset({Role.AUDITOR})


def _created_table(request: table_service_pb2.CreateTableRequest) -> str:
    """The table a CreateTable names, for its access record: its table_id checked first."""
    return f"tables/{TABLE_ID.check(request.table_id, 'table_id') if request.table_id else '-'}"


class TableService:
    DESCRIPTOR = table_service_pb2.DESCRIPTOR.services_by_name["TableService"]  # both ports serve its methods
    SERVICE_NAME = DESCRIPTOR.full_name  # operators' and auditors' calls named in the access log

    def __init__(
        self, runtime: TableRuntime, keys: CallerKeys | str, default_action_clock_seconds: int = 30
    ) -> None:
        self.runtime = runtime
        keys = CallerKeys.of(keys)
        self._tokens = keys.tokens
        self._default_clock = default_action_clock_seconds
        self._closing = asyncio.Event()
        self._page_tokens = PageTokens(keys.page_token_key, "ListTables")
        self._watches = TableWatches(runtime)
        self._meter = RoundTripMeter()  # the latency meter: this replica's measures of its callers

    # -- helpers -------------------------------------------------------------------------------

    def _principal(self, call: Call) -> Principal:
        return principal_of(call, self._tokens)

    def _round_trips(self, table_id: str, principal: Principal, call: Call) -> CallerRoundTrips:
        return CallerRoundTrips(self._meter, table_id, principal, call)

    async def _seat_command(
        self, request: Any, call: Call, make: Callable[[str, TableState, int], Any],
        at_tournament_tables: bool = False,
    ) -> table_pb2.TableView:
        """``make``'s command for the caller at the request's table; only SitOut and SitIn
        (``at_tournament_tables``) at a tournament's, whose seats and chips are the tournament's to move."""
        principal = self._principal(call)
        player = playing(principal)
        table_id = TABLES.parse(request.name)
        request_id = request_key(principal, request)

        def command(state: TableState, now: int) -> Any:
            if not at_tournament_tables and state.config is not None and state.config.tournament:
                raise TournamentTable(f"tables/{table_id} is tournaments/{state.config.tournament_id}'s: the "
                                      "tournament seats and moves its players")
            return make(player, state, now)

        written = await self.runtime.execute(table_id, command, request_id=request_id)
        return self._round_trips(table_id, principal, call).stamped(view_at(written, principal))

    # -- tables --------------------------------------------------------------------------------

    @_refusals_as_statuses
    @recorded(gate=_CREATE_TABLE, resource=_created_table)
    @in_session()
    async def CreateTable(
        self, request: table_service_pb2.CreateTableRequest, call: Call
    ) -> table_pb2.Table:
        principal = self._principal(call)
        _CREATE_TABLE(principal)
        request_id = request_key(principal, request)
        if not request.HasField("table"):
            raise malformed("table is required", "table")
        table_id = TABLE_ID.check(request.table_id, "table_id") if request.table_id \
            else derived_id("t-", request_id)
        config = config_from_proto(request.table, self._default_clock)
        if config.currency:
            check_real_money(self.runtime.settings)
        created = await self.runtime.create(
            table_id, CreateTable(table_id=table_id, config=config, now_ms=now_ms()), request_id
        )
        return table_resource(created.live, created.state, created.version)

    @_refusals_as_statuses
    @in_session(table=named_table, optional_token=True)
    async def GetTable(
        self, request: table_service_pb2.GetTableRequest, call: Call
    ) -> table_pb2.Table:
        optional_principal_of(call, self._tokens)  # public: a token is optional, but checked if sent
        live = await self.runtime.table(TABLES.parse(request.name))
        return table_resource(live, live.state, live.version)

    @_refusals_as_statuses
    @in_session(optional_token=True)
    async def ListTables(
        self, request: table_service_pb2.ListTablesRequest, call: Call
    ) -> table_service_pb2.ListTablesResponse:
        optional_principal_of(call, self._tokens)  # the lobby is public: see the proto
        if request.page_size < 0:
            raise malformed("page_size must not be negative", "page_size")
        size = min(request.page_size or DEFAULT_PAGE_SIZE, MAX_PAGE_SIZE)
        after = self._page_tokens.open(request.page_token, ()) if request.page_token else None
        if after is not None and not after.startswith("tables/"):
            raise malformed("page_token is not one this service issued", "page_token")
        # The listing may be a standby's (store.standby); each table's state is the live one.
        page = await self.runtime.reads.read(
            lambda store: store.list_streams(prefix="tables/", after=after, limit=size + 1)
        )
        reply = table_service_pb2.ListTablesResponse()
        for info in page[:size]:
            live = await self.runtime.table(info.stream_id.removeprefix("tables/"), client=False)
            reply.tables.append(table_resource(live, live.state, live.version))
        if len(page) > size:
            reply.next_page_token = self._page_tokens.issue(page[size - 1].stream_id, ())
        return reply

    # -- seats ---------------------------------------------------------------------------------

    @_refusals_as_statuses
    @in_session(table=named_table, durable=True)
    async def SitDown(
        self, request: table_service_pb2.SitDownRequest, call: Call
    ) -> table_service_pb2.SitDownResponse:
        def sit_down(player: str, state: TableState, now: int) -> SitDown:
            return SitDown(player, request.seat, request.buy_in, now_ms=now)

        live = await self.runtime.table(TABLES.parse(request.name))
        config = live.state.config
        rule = config.same_network if config is not None else SameNetworkRule.OFF
        if rule is SameNetworkRule.OFF:
            return table_service_pb2.SitDownResponse(view=await self._seat_command(request, call, sit_down))
        player = playing(self._principal(call))
        caller = caller_of(call, self.runtime.sessions)
        for _attempt in range(CHECK_ATTEMPTS):
            checked = others_seated(live.state, player)
            if live.state.seat_of(player) is None:  # a seated caller's SitDown is refused or a retry anyway
                await check_seating(self.runtime.store, self.runtime.sessions, rule, caller, checked)

            def guarded(player: str, state: TableState, now: int,
                        checked: frozenset[str] = checked) -> SitDown:
                if state.seat_of(player) is None:
                    still_checked(state, player, checked)
                return sit_down(player, state, now)

            try:
                view = await self._seat_command(request, call, guarded)
            except SeatedMeanwhile:
                continue
            return table_service_pb2.SitDownResponse(view=view)
        raise RequestError(grpc.StatusCode.ABORTED, "CONFLICT",
                           "players kept sitting down at the table; retry")

    @_refusals_as_statuses
    @in_session(table=named_table)
    async def Leave(
        self, request: table_service_pb2.LeaveRequest, call: Call
    ) -> table_service_pb2.LeaveResponse:
        view = await self._seat_command(
            request, call, lambda player, state, now: Leave(player, now_ms=now)
        )
        return table_service_pb2.LeaveResponse(view=view)

    @_refusals_as_statuses
    @in_session(table=named_table)
    async def JoinWaitingList(
        self, request: table_service_pb2.JoinWaitingListRequest, call: Call
    ) -> table_service_pb2.JoinWaitingListResponse:
        view = await self._seat_command(
            request, call, lambda player, state, now: JoinWaitingList(player, now_ms=now)
        )
        return table_service_pb2.JoinWaitingListResponse(view=view)

    @_refusals_as_statuses
    @in_session(table=named_table)
    async def LeaveWaitingList(
        self, request: table_service_pb2.LeaveWaitingListRequest, call: Call
    ) -> table_service_pb2.LeaveWaitingListResponse:
        view = await self._seat_command(
            request, call, lambda player, state, now: LeaveWaitingList(player, now_ms=now)
        )
        return table_service_pb2.LeaveWaitingListResponse(view=view)

    @_refusals_as_statuses
    @in_session(table=named_table)
    async def SitOut(
        self, request: table_service_pb2.SitOutRequest, call: Call
    ) -> table_service_pb2.SitOutResponse:
        view = await self._seat_command(
            request, call, lambda player, state, now: SitOut(player, now_ms=now), at_tournament_tables=True
        )
        return table_service_pb2.SitOutResponse(view=view)

    @_refusals_as_statuses
    @in_session(table=named_table)
    async def SitIn(
        self, request: table_service_pb2.SitInRequest, call: Call
    ) -> table_service_pb2.SitInResponse:
        view = await self._seat_command(
            request, call, lambda player, state, now: SitIn(player, now_ms=now), at_tournament_tables=True
        )
        return table_service_pb2.SitInResponse(view=view)

    @_refusals_as_statuses
    @in_session(table=named_table)
    async def TopUp(
        self, request: table_service_pb2.TopUpRequest, call: Call
    ) -> table_service_pb2.TopUpResponse:
        view = await self._seat_command(
            request, call, lambda player, state, now: TopUp(player, request.amount, now_ms=now)
        )
        return table_service_pb2.TopUpResponse(view=view)

    # -- the game ------------------------------------------------------------------------------

    @_refusals_as_statuses
    @recorded(roles=_EVERY_CARD, resource=TABLES.checked("name"))
    @in_session(table=named_table)
    async def GetTableView(
        self, request: table_service_pb2.GetTableViewRequest, call: Call
    ) -> table_pb2.TableView:
        principal = self._principal(call)
        live = await self.runtime.table(TABLES.parse(request.name))
        return self._round_trips(live.table_id, principal, call).stamped(table_view(live, principal))

    @_refusals_as_statuses
    @in_session(table=named_table)
    async def Act(
        self, request: table_service_pb2.ActRequest, call: Call
    ) -> table_service_pb2.ActResponse:
        principal = self._principal(call)
        player = playing(principal)
        table_id = TABLES.parse(request.name)
        request_id = request_key(principal, request)
        kind = ACTIONS.get(request.action)
        if kind is None:
            raise malformed(
                "action must be one of FOLD, CHECK, CALL, BRING_IN, COMPLETE, BET, RAISE", "action"
            )
        if request.turn <= 0:
            raise malformed("turn is required (the TableView.turn acted in)", "turn")
        if kind in AMOUNT_ACTIONS and request.amount <= 0:
            raise malformed(f"{kind} needs a positive amount", "amount")
        amount = request.amount if kind in AMOUNT_ACTIONS else None

        def command(state: TableState, now: int) -> Act:
            if state.seat_of(player) != request.seat:
                raise RequestError(
                    grpc.StatusCode.PERMISSION_DENIED,
                    "NOT_YOUR_SEAT",
                    f"seat {request.seat} is not the caller's",
                )
            return Act(player, kind, amount, now_ms=now)

        metrics = self.runtime.metrics
        timing = metrics.time_action(str(kind).lower()) if metrics is not None else contextlib.nullcontext()
        with timing:
            written = await self.runtime.execute(
                table_id, command, request_id=request_id, turn=request.turn
            )
        reply = table_service_pb2.ActResponse(view=view_at(written, principal))
        self._round_trips(table_id, principal, call).stamp(reply.view)
        return reply

    @watched_in_session()
    async def WatchTable(
        self, request: table_service_pb2.WatchTableRequest, call: Call
    ) -> AsyncIterator[table_service_pb2.WatchTableResponse]:
        try:
            principal = self._principal(call)
            table_id = TABLES.parse(request.name)
            check_watch_request(request)
            async with within_deadline(call, "WatchTable", self.runtime.store):
                if principal.role in _EVERY_CARD:
                    method = f"/{self.SERVICE_NAME}/WatchTable"
                    await record_access(self.runtime.access, principal, method, request.name, call)
                live = await self.runtime.table(table_id)
                if request.after_version > live.version:  # asked of the log: this replica may lag
                    await check_after_head(self.runtime.store, live.stream_id, request.after_version, "table")
        except (RequestError, DomainError, AuthError) as error:
            raise Refused(refusal_for(error)) from None
        except Exception as error:
            raise_if_store_refusal(error)
            raise
        metrics = self.runtime.metrics
        with metrics.track_watcher() if metrics is not None else contextlib.nullcontext():
            try:
                heartbeat = request.heartbeat_seconds or heartbeat_seconds(call)
                round_trips = self._round_trips(table_id, principal, call)
                async for reply in self._watches.stream(live, principal, request, heartbeat, round_trips):
                    yield reply
            except Exception as error:  # a read from the log (resuming, lagging) the store cannot serve
                raise_if_store_refusal(error)
                raise

    # -- stopping a game (RULES.md §12): the operator's controls, in server.api.table_control -------------

    async def _operator_command(
        self, request: Any, call: Call, target: Callable[[], tuple[str, table_control.MakeCommand]]
    ) -> table_pb2.Table:
        """The operator's command ``target()`` names (the table, and how to make the command), checked after
        the caller's role (a player is refused OPERATOR_ONLY whatever the request holds)."""
        principal = self._principal(call)
        _STOP_GAME(principal)
        request_id = request_key(principal, request)
        table_id, make = target()
        written = await self.runtime.execute(
            table_id, lambda state, now: make(principal.player_id, now), request_id=request_id
        )
        return table_resource(written.live, written.state, written.version)

    @_refusals_as_statuses
    @recorded(gate=_STOP_GAME, resource=TABLES.checked("name"))
    @in_session(table=named_table)
    async def PauseTable(
        self, request: table_service_pb2.PauseTableRequest, call: Call
    ) -> table_pb2.Table:
        return await self._operator_command(
            request, call, lambda: (TABLES.parse(request.name), table_control.pause(request))
        )

    @_refusals_as_statuses
    @recorded(gate=_STOP_GAME, resource=TABLES.checked("name"))
    @in_session(table=named_table)
    async def ResumeTable(
        self, request: table_service_pb2.ResumeTableRequest, call: Call
    ) -> table_pb2.Table:
        return await self._operator_command(
            request, call, lambda: (TABLES.parse(request.name), table_control.resume(request))
        )

    @_refusals_as_statuses
    @recorded(gate=_STOP_GAME, resource=TABLES.checked("name"))
    @in_session(table=named_table)
    async def CloseTable(
        self, request: table_service_pb2.CloseTableRequest, call: Call
    ) -> table_pb2.Table:
        return await self._operator_command(
            request, call, lambda: (TABLES.parse(request.name), table_control.close(request))
        )

    @_refusals_as_statuses
    @recorded(gate=_STOP_GAME, resource=HANDS.checked("name"))
    @in_session(table=named_table)
    async def VoidHand(
        self, request: table_service_pb2.VoidHandRequest, call: Call
    ) -> table_pb2.Table:
        def target() -> tuple[str, table_control.MakeCommand]:
            table_id, hand = HANDS.parse(request.name)
            return table_id, table_control.void(request, hand)

        return await self._operator_command(request, call, target)

    @_refusals_as_statuses
    @recorded(gate=_STOP_GAME, resource=TABLES.checked("name"))
    @in_session(table=named_table)
    async def UpdateTableSettings(
        self, request: table_service_pb2.UpdateTableSettingsRequest, call: Call
    ) -> table_pb2.Table:
        try:
            return await self._operator_command(
                request, call, lambda: (TABLES.parse(request.name), table_control.update_settings(request))
            )
        except InvalidConfig as error:
            raise table_control.setting_error(error) from None
    # -- the table chat and the latency meter (docs/chat.md) ------------------------------------------

    @_refusals_as_statuses
    @in_session(table=named_table)
    async def SendChat(
        self, request: table_service_pb2.SendChatRequest, call: Call
    ) -> table_service_pb2.SendChatResponse:
        principal = self._principal(call)
        return await send_chat(self.runtime, playing(principal), principal, request)

    @_refusals_as_statuses
    @recorded(gate=_MODERATE_CHAT, resource=TABLES.checked("name"))
    @in_session(table=named_table)
    async def MuteChatPlayer(
        self, request: table_service_pb2.MuteChatPlayerRequest, call: Call
    ) -> table_service_pb2.MuteChatPlayerResponse:
        principal = self._principal(call)
        _MODERATE_CHAT(principal)
        return await mute_chat_player(self.runtime, principal, request)

    @_refusals_as_statuses
    @recorded(gate=_MODERATE_CHAT, resource=TABLES.checked("name"))
    @in_session(table=named_table)
    async def DeleteChatMessage(
        self, request: table_service_pb2.DeleteChatMessageRequest, call: Call
    ) -> table_service_pb2.DeleteChatMessageResponse:
        principal = self._principal(call)
        _MODERATE_CHAT(principal)
        return await delete_chat_message(self.runtime, principal, request)

    @_refusals_as_statuses
    @in_session(table=named_table)
    async def AnswerHeartbeat(
        self, request: table_service_pb2.AnswerHeartbeatRequest, call: Call
    ) -> table_service_pb2.AnswerHeartbeatResponse:
        return answer_heartbeat(self._meter, self._principal(call), request)
