"""``stud.v1.TableService``: each method authenticates, maps the request to an engine command and
answers with what the caller may see.

Refusals leave through :mod:`stud_service.server.api.errors` (a canonical code and an ErrorInfo reason);
nothing is appended for a refused request. Never log a request or a view: they hold tokens and cards.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import hashlib
import logging
import secrets
from collections.abc import AsyncIterator, Awaitable, Callable
from dataclasses import dataclass
from typing import Any, TypeVar

import grpc

from stud_service.auth import AuthError, Principal, Role
from stud_service.engine import (
    Act,
    CreateTable,
    DomainError,
    JoinWaitingList,
    Leave,
    LeaveWaitingList,
    SitDown,
    SitIn,
    SitOut,
    TableState,
    TopUp,
)
from stud_service.engine.state import hands_ended
from stud_service.observability.logging import log_context
from stud_service.server.api.access import operator_only, record_access, recorded
from stud_service.server.api.call import Call, heartbeat_seconds
from stud_service.server.api.caller import CallerKeys, optional_principal_of, principal_of
from stud_service.server.api.convert import (
    ACTIONS,
    AMOUNT_ACTIONS,
    config_from_proto,
    table_to_proto,
    view_to_proto,
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
from stud_service.server.api.events_proto import event_proto
from stud_service.server.api.money_gate import check_real_money
from stud_service.server.api.names import TABLE_ID, TABLES
from stud_service.server.api.page_tokens import PageTokens
from stud_service.server.api.redact import EventRedactor
from stud_service.server.api.request_ids import RequestKey, request_key
from stud_service.server.proto_gen import events_pb2, table_pb2, table_service_pb2
from stud_service.server.tables.runtime import LAGGING, AppliedEvent, LiveTable, TableAt, TableRuntime, now_ms

_log = logging.getLogger(__name__)

DEFAULT_PAGE_SIZE = 50
MAX_HEARTBEAT_SECONDS = 3600
MAX_PAGE_SIZE = 1000
# With batch_events, at most this many events go in one message (a few hundred KB), so a long catch-up
# from the log never builds one huge message; a single command causes far fewer.
MAX_EVENTS_PER_MESSAGE = 500
# Events read from the log at a time for a watch's catch-up (a multiple of MAX_EVENTS_PER_MESSAGE).
LOG_PAGE = 2_000

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

    # -- helpers -------------------------------------------------------------------------------

    def _principal(self, call: Call) -> Principal:
        return principal_of(call, self._tokens)

    @staticmethod
    def _player(principal: Principal) -> str:
        """The caller's player id for a seat-changing call; auditors only read."""
        if principal.role is Role.AUDITOR:
            raise RequestError(
                grpc.StatusCode.PERMISSION_DENIED,
                "AUDITOR_READ_ONLY",
                "an auditor token cannot take part in a game",
            )
        return principal.player_id

    def _view(
        self,
        live: LiveTable,
        principal: Principal,
        state: TableState | None = None,
        version: int | None = None,
    ) -> table_pb2.TableView:
        """The caller's view of the table (at ``version``, whose state is ``state``; default the
        latest). Shared with other calls: copy it into a reply, never change it."""
        viewer = None if principal.role is Role.AUDITOR else principal.player_id
        state = state if state is not None else live.state
        version = version if version is not None else live.version
        last_result, commitment = live.last_result, live.commitment
        if version != live.version:  # an older version's result and commitment are not kept
            return view_to_proto(
                live.table_id, state, version, viewer, last_result, commitment, created_ms=live.created_ms
            )

        def build_public() -> table_pb2.TableView:
            table = _table(live, state, version)
            return view_to_proto(live.table_id, state, version, None, last_result, commitment, table=table)

        public = live.replies.view(None, version, build_public)
        if viewer is None:
            return public
        # A player's view is the observers' one (built once per version) plus the player's own share.
        return live.replies.view(
            viewer, version, lambda: view_to_proto(live.table_id, state, version, viewer, public=public)
        )

    def _view_at(self, at: TableAt, principal: Principal) -> table_pb2.TableView:
        """The caller's view of the table as a write left it (a retry: as its first call did)."""
        if at.version == at.live.version:
            return self._view(at.live, principal)
        viewer = None if principal.role is Role.AUDITOR else principal.player_id
        return view_to_proto(
            at.live.table_id, at.state, at.version, viewer, at.last_result, at.commitment,
            created_ms=at.live.created_ms,
        )

    async def _seat_command(
        self, request: Any, call: Call, make: Callable[[str, TableState, int], Any]
    ) -> table_pb2.TableView:
        principal = self._principal(call)
        player = self._player(principal)
        table_id = TABLES.parse(request.name)
        request_id = request_key(principal, request)
        written = await self.runtime.execute(
            table_id, lambda state, now: make(player, state, now), request_id=request_id
        )
        return self._view_at(written, principal)

    # -- tables --------------------------------------------------------------------------------

    @_refusals_as_statuses
    @recorded(gate=_CREATE_TABLE, resource=_created_table)
    async def CreateTable(
        self, request: table_service_pb2.CreateTableRequest, call: Call
    ) -> table_pb2.Table:
        principal = self._principal(call)
        _CREATE_TABLE(principal)
        request_id = request_key(principal, request)
        if not request.HasField("table"):
            raise malformed("table is required", "table")
        table_id = TABLE_ID.check(request.table_id, "table_id") if request.table_id \
            else _fresh_table_id(request_id)
        config = config_from_proto(request.table, self._default_clock)
        if config.currency:
            check_real_money(self.runtime.settings)
        created = await self.runtime.create(
            table_id, CreateTable(table_id=table_id, config=config, now_ms=now_ms()), request_id
        )
        return _table(created.live, created.state, created.version)

    @_refusals_as_statuses
    async def GetTable(
        self, request: table_service_pb2.GetTableRequest, call: Call
    ) -> table_pb2.Table:
        optional_principal_of(call, self._tokens)  # public: a token is optional, but checked if sent
        live = await self.runtime.table(TABLES.parse(request.name))
        return _table(live, live.state, live.version)

    @_refusals_as_statuses
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
        page = await self.runtime.store.list_streams(prefix="tables/", after=after, limit=size + 1)
        reply = table_service_pb2.ListTablesResponse()
        for info in page[:size]:
            live = await self.runtime.table(info.stream_id.removeprefix("tables/"), client=False)
            reply.tables.append(_table(live, live.state, live.version))
        if len(page) > size:
            reply.next_page_token = self._page_tokens.issue(page[size - 1].stream_id, ())
        return reply

    # -- seats ---------------------------------------------------------------------------------

    @_refusals_as_statuses
    async def SitDown(
        self, request: table_service_pb2.SitDownRequest, call: Call
    ) -> table_service_pb2.SitDownResponse:
        view = await self._seat_command(
            request,
            call,
            lambda player, state, now: SitDown(player, request.seat, request.buy_in, now_ms=now),
        )
        return table_service_pb2.SitDownResponse(view=view)

    @_refusals_as_statuses
    async def Leave(
        self, request: table_service_pb2.LeaveRequest, call: Call
    ) -> table_service_pb2.LeaveResponse:
        view = await self._seat_command(
            request, call, lambda player, state, now: Leave(player, now_ms=now)
        )
        return table_service_pb2.LeaveResponse(view=view)

    @_refusals_as_statuses
    async def JoinWaitingList(
        self, request: table_service_pb2.JoinWaitingListRequest, call: Call
    ) -> table_service_pb2.JoinWaitingListResponse:
        view = await self._seat_command(
            request, call, lambda player, state, now: JoinWaitingList(player, now_ms=now)
        )
        return table_service_pb2.JoinWaitingListResponse(view=view)

    @_refusals_as_statuses
    async def LeaveWaitingList(
        self, request: table_service_pb2.LeaveWaitingListRequest, call: Call
    ) -> table_service_pb2.LeaveWaitingListResponse:
        view = await self._seat_command(
            request, call, lambda player, state, now: LeaveWaitingList(player, now_ms=now)
        )
        return table_service_pb2.LeaveWaitingListResponse(view=view)

    @_refusals_as_statuses
    async def SitOut(
        self, request: table_service_pb2.SitOutRequest, call: Call
    ) -> table_service_pb2.SitOutResponse:
        view = await self._seat_command(
            request, call, lambda player, state, now: SitOut(player, now_ms=now)
        )
        return table_service_pb2.SitOutResponse(view=view)

    @_refusals_as_statuses
    async def SitIn(
        self, request: table_service_pb2.SitInRequest, call: Call
    ) -> table_service_pb2.SitInResponse:
        view = await self._seat_command(
            request, call, lambda player, state, now: SitIn(player, now_ms=now)
        )
        return table_service_pb2.SitInResponse(view=view)

    @_refusals_as_statuses
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
    async def GetTableView(
        self, request: table_service_pb2.GetTableViewRequest, call: Call
    ) -> table_pb2.TableView:
        principal = self._principal(call)
        live = await self.runtime.table(TABLES.parse(request.name))
        return self._view(live, principal)

    @_refusals_as_statuses
    async def Act(
        self, request: table_service_pb2.ActRequest, call: Call
    ) -> table_service_pb2.ActResponse:
        principal = self._principal(call)
        player = self._player(principal)
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
        return table_service_pb2.ActResponse(view=self._view_at(written, principal))

    async def WatchTable(
        self, request: table_service_pb2.WatchTableRequest, call: Call
    ) -> AsyncIterator[table_service_pb2.WatchTableResponse]:
        try:
            principal = self._principal(call)
            table_id = TABLES.parse(request.name)
            if request.after_version < 0:
                raise malformed("after_version must not be negative", "after_version")
            if not 0 <= request.heartbeat_seconds <= MAX_HEARTBEAT_SECONDS:
                raise malformed(f"heartbeat_seconds must be 0..{MAX_HEARTBEAT_SECONDS}", "heartbeat_seconds")
            async with within_deadline(call, "WatchTable", self.runtime.store):
                if principal.role in _EVERY_CARD:
                    method = f"/{self.SERVICE_NAME}/WatchTable"
                    await record_access(self.runtime.access, principal, method, request.name, call)
                live = await self.runtime.table(table_id)
                if request.after_version > live.version:
                    await self._check_after_head(live, request.after_version)
        except (RequestError, DomainError, AuthError) as error:
            raise Refused(refusal_for(error)) from None
        except Exception as error:
            raise_if_store_refusal(error)
            raise
        metrics = self.runtime.metrics
        with metrics.track_watcher() if metrics is not None else contextlib.nullcontext():
            try:
                heartbeat = request.heartbeat_seconds or heartbeat_seconds(call)
                async for reply in self._watch(live, principal, request, heartbeat):
                    yield reply
            except Exception as error:  # a read from the log (resuming, lagging) the store cannot serve
                raise_if_store_refusal(error)
                raise

    async def _check_after_head(self, live: LiveTable, after_version: int) -> None:
        """A resume point beyond the log's head (asked of the log: this replica may lag) would wait for
        ever: OUT_OF_RANGE, with the head so the client can resume from there."""
        head = await self.runtime.store.head(live.stream_id)
        if after_version > head:
            raise RequestError(
                grpc.StatusCode.OUT_OF_RANGE,
                "VERSION_OUT_OF_RANGE",
                f"after_version {after_version} is beyond the table's version {head}",
                {"version": str(head)},
            )

    async def _watch(
        self,
        live: LiveTable,
        principal: Principal,
        request: table_service_pb2.WatchTableRequest,
        heartbeat: float | None,
    ) -> AsyncIterator[table_service_pb2.WatchTableResponse]:
        viewer = None if principal.role is Role.AUDITOR else principal.player_id
        stream = _WatchStream(
            principal,
            EventRedactor(viewer, auditor=principal.role is Role.AUDITOR),
            request.include_views,
            MAX_EVENTS_PER_MESSAGE if request.batch_events else 1,
        )
        watcher = self.runtime.add_watcher(live)
        try:
            if request.after_version == 0:
                sent = live.version
                yield table_service_pb2.WatchTableResponse(view=self._view(live, principal))
                _know_live_hand(stream.redactor, live)
            else:
                sent = request.after_version
                if sent >= live.version:  # nothing to read first: the hand in play is the live one
                    _know_live_hand(stream.redactor, live)
                async for reply in self._from_log(live, stream, sent):
                    yield reply
                    sent = _last_version(reply)
            async with contextlib.aclosing(_arrivals(watcher.queue, stream.most, heartbeat)) as arrivals:
                async for arrived in arrivals:
                    if arrived is None:
                        return  # the server is shutting down
                    if arrived is _SILENT:
                        beat = table_service_pb2.WatchHeartbeat(version=sent)
                        yield table_service_pb2.WatchTableResponse(heartbeat=beat)
                        continue
                    if arrived is LAGGING:
                        # The buffer filled up: buffer again, then read what was skipped from the log.
                        watcher.lagging = False
                        async for reply in self._from_log(live, stream, sent):
                            yield reply
                            sent = _last_version(reply)
                        continue
                    burst = [applied for applied in arrived if applied.version > sent]
                    if not burst:
                        continue
                    # One command's events arrive together. Unbatched, the view goes with the last of them
                    # only (nothing more waiting); a batch holds all that was waiting, so it always ends one.
                    last = burst[-1]
                    with_view = stream.include_views and (stream.most > 1 or watcher.queue.empty())
                    yield self._reply(
                        live,
                        stream,
                        [(applied.version, applied.payload, applied.recorded_at) for applied in burst],
                        self._view(live, principal, last.state, last.version) if with_view else None,
                    )
                    sent = last.version
        finally:
            self.runtime.remove_watcher(live, watcher)

    async def _from_log(
        self, live: LiveTable, stream: _WatchStream, after_version: int
    ) -> AsyncIterator[table_service_pb2.WatchTableResponse]:
        """Events after ``after_version`` up to the live version, read from the log (resume, catch-up),
        ``stream.most`` to a message. The log is read a page at a time: a watch resumed at the start of a
        long table holds one page in memory, not the table's history."""
        target = live.version  # later events reach the watcher's queue
        read = after_version
        while read < target:
            history = await self.runtime.store.read_stream(
                live.stream_id, after_version=read, limit=min(LOG_PAGE, target - read)
            )
            if not history:
                return
            if read == after_version:
                await self._seed_redactor(live, stream.redactor, history)
            read = history[-1].version
            for start in range(0, len(history), stream.most):
                page = history[start : start + stream.most]
                # Only the live version's view is at hand: it goes with the last page if that reaches it.
                reaches_live = page[-1].version == live.version
                view = self._view(live, stream.principal) if stream.include_views and reaches_live else None
                yield self._reply(
                    live,
                    stream,
                    [(stored.version, stored.payload, stored.recorded_at) for stored in page],
                    view,
                )

    async def _seed_redactor(self, live: LiveTable, redactor: EventRedactor, history: list[Any]) -> None:
        """A watch resumed mid-hand starts after that hand's HandStarted: learn who sat where."""
        first_hand = next(
            (stored.payload.get("hand") for stored in history if stored.payload.get("hand")), None
        )
        if first_hand is None or history[0].payload.get("type") == "HandStarted":
            return
        for stored in await self.runtime.store.read_hand(live.stream_id, first_hand):
            if stored.payload.get("type") == "HandStarted":
                redactor.know_hand(first_hand, {seat: player for seat, player, *_ in stored.payload["seats"]})
                return

    def _reply(
        self,
        live: LiveTable,
        stream: _WatchStream,
        events: list[tuple[int, dict[str, Any], Any]],
        view: table_pb2.TableView | None,
    ) -> table_service_pb2.WatchTableResponse:
        """One message: ``events`` (version, payload, recorded_at) as the viewer may see them, in
        ``event`` when the stream sends one per message, else in ``events``; ``view`` when given."""
        hand = events[0][1].get("hand")
        if isinstance(hand, int) and not stream.redactor.knows_hand(hand):
            # A watch resumed mid-hand with nothing to read first (or on a replica behind the resume point)
            # saw neither the hand's start nor the log before it: the hand in play is the live one.
            _know_live_hand(stream.redactor, live, hand)
        messages = [
            self._event_message(live, stream.redactor, version, payload, recorded_at)
            for version, payload, recorded_at in events
        ]
        if stream.most == 1:
            reply = table_service_pb2.WatchTableResponse(event=messages[0])
        else:
            reply = table_service_pb2.WatchTableResponse(events=messages)
        if view is not None:
            reply.view.CopyFrom(view)
        return reply

    @staticmethod
    def _event_message(
        live: LiveTable, redactor: EventRedactor, version: int, payload: dict[str, Any], recorded_at: Any
    ) -> events_pb2.TableEvent:
        shown = redactor.redact(payload, hands_ended(live.state))
        if shown is payload:  # the whole event: one message for every watcher allowed all of it
            return live.replies.public_event(version, payload, recorded_at)
        return event_proto(version, shown, recorded_at)


@dataclass(frozen=True, slots=True)
class _WatchStream:
    """What one WatchTable call asked for, and its viewer's redactor (which remembers who sat where)."""

    principal: Principal
    redactor: EventRedactor
    include_views: bool
    most: int  # events per message: 1, or MAX_EVENTS_PER_MESSAGE with batch_events


_END_OF_BURST = object()
_SILENT = "silent"  # nothing arrived for the heartbeat interval


async def _arrivals(
    queue: asyncio.Queue[AppliedEvent | str | None], most: int, heartbeat: float | None = None
) -> AsyncIterator[list[AppliedEvent] | str | None]:
    """A watcher's queue as it is read: runs of events that were waiting together (at most ``most``
    each, in order), or a marker (LAGGING, None) on its own, after the events queued before it; with a
    ``heartbeat`` interval, _SILENT after each such interval in which nothing arrived."""
    while True:
        burst: list[AppliedEvent] = []
        item: Any
        if heartbeat is None:
            item = await queue.get()
        else:
            try:
                async with asyncio.timeout(heartbeat):
                    item = await queue.get()
            except TimeoutError:
                yield _SILENT
                continue
        while isinstance(item, AppliedEvent):
            burst.append(item)
            item = _END_OF_BURST if len(burst) == most or queue.empty() else queue.get_nowait()
        if burst:
            yield burst
        if item is not _END_OF_BURST:
            yield item


def _know_live_hand(redactor: EventRedactor, live: LiveTable, hand: int | None = None) -> None:
    """Tell ``redactor`` who sits where in the live table's hand in play (only if it is ``hand``, when given):
    the seats are fixed when a hand starts, so any of its events is redacted by them."""
    current = live.state.hand
    if current is not None and hand in (None, current.number):
        redactor.know_hand(current.number, {seat: p.player_id for seat, p in current.players.items()})


def _last_version(reply: table_service_pb2.WatchTableResponse) -> int:
    return reply.events[-1].version if reply.events else reply.event.version


def _fresh_table_id(request_id: RequestKey | None) -> str:
    # A retried CreateTable without a table_id must name the same table: derive it from the request
    # id as scoped to the caller, so two operators' same id names two tables.
    source = request_id.key.encode() if request_id else secrets.token_bytes(16)
    return "t-" + hashlib.sha256(source).hexdigest()[:12]


def _table(live: LiveTable, state: TableState, version: int) -> table_pb2.Table:
    """The table resource at ``version`` (shared: copy it, never change it)."""
    if version != live.version:
        return table_to_proto(live.table_id, state, version, live.created_ms)
    return live.replies.table(version, lambda: table_to_proto(live.table_id, state, version, live.created_ms))
