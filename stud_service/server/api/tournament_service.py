"""``stud.v1.TournamentService``: the lobby, registration and following a tournament, on the runtime's
tournaments (:class:`~stud_service.server.tournaments.runtime.TournamentRuntime`).

Each method authenticates, checks the request (the name, the request id, the page token, the structure) and
hands the work to the facade, which decides the tournament's command and moves its money; a refusal (the
domain's ``TournamentError``, the ledger's, or the API's own) leaves through
:mod:`stud_service.server.api.errors` and changes nothing. Replies are built from the states the facade
shows (without a committed seed) by :mod:`.tournament_convert`; the watch stream is :mod:`.tournament_watch`.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any

import grpc

from stud_service.auth import AuthError, Principal
from stud_service.engine import DomainError
from stud_service.engine.config import SameNetworkRule
from stud_service.ledger.errors import LedgerError
from stud_service.server.api.access import operator_only, recorded
from stud_service.server.api.call import Call, heartbeat_seconds
from stud_service.server.api.caller import CallerKeys, optional_principal_of, playing, principal_of
from stud_service.server.api.errors import (
    Refused,
    RequestError,
    malformed,
    raise_if_store_refusal,
    refusal_for,
    refusals_as_statuses,
    within_deadline,
)
from stud_service.server.api.money_gate import check_real_money
from stud_service.server.api.names import TOURNAMENT_ID, TOURNAMENTS
from stud_service.server.api.page_tokens import PageTokens
from stud_service.server.api.request_ids import derived_id, request_key
from stud_service.server.api.resuming import check_after_head, check_watch_request
from stud_service.server.api.seating import (
    CHECK_ATTEMPTS,
    SeatedMeanwhile,
    check_seating,
    others_entered,
    still_entered,
)
from stud_service.server.api.sessions import caller_of, in_session, no_table, watched_in_session
from stud_service.server.api.tournament_convert import structure_from_proto
from stud_service.server.api.tournament_watch import TournamentReplies, viewer_of, watch_stream
from stud_service.server.proto_gen import tournament_pb2, tournament_service_pb2
from stud_service.server.tables.runtime import TableRuntime
from stud_service.tournaments import TournamentError, TournamentState

DEFAULT_PAGE_SIZE = 50
MAX_PAGE_SIZE = 1000

_CREATING = operator_only("creating tournaments")
_CANCELLING = operator_only("cancelling tournaments")


def _created_tournament(request: tournament_service_pb2.CreateTournamentRequest) -> str:
    """The tournament a CreateTournament names, for its access record: its tournament_id checked first."""
    given = request.tournament_id
    return f"tournaments/{TOURNAMENT_ID.check(given, 'tournament_id') if given else '-'}"


class TournamentService:
    DESCRIPTOR = tournament_service_pb2.DESCRIPTOR.services_by_name["TournamentService"]  # both ports
    SERVICE_NAME = DESCRIPTOR.full_name  # operators' and auditors' calls named in the access log

    def __init__(
        self, runtime: TableRuntime, keys: CallerKeys | str, default_action_clock_seconds: int = 30
    ) -> None:
        self.runtime = runtime
        self.tournaments = runtime.tournaments
        keys = CallerKeys.of(keys)
        self._tokens = keys.tokens
        self._default_clock = default_action_clock_seconds
        self._page_tokens = PageTokens(keys.page_token_key, "ListTournaments")
        self.replies = TournamentReplies()

    def _principal(self, call: Call) -> Principal:
        return principal_of(call, self._tokens)

    # -- operators -----------------------------------------------------------------------------

    @refusals_as_statuses
    @recorded(gate=_CREATING, resource=_created_tournament)
    @in_session()
    async def CreateTournament(
        self, request: tournament_service_pb2.CreateTournamentRequest, call: Call
    ) -> tournament_pb2.Tournament:
        principal = self._principal(call)
        _CREATING(principal)
        key = request_key(principal, request)
        if not request.HasField("tournament"):
            raise malformed("tournament is required", "tournament")
        tournament_id = TOURNAMENT_ID.check(request.tournament_id, "tournament_id") if request.tournament_id \
            else derived_id("tr-", key)
        config = structure_from_proto(request.tournament, self._default_clock)
        if config.currency:
            check_real_money(self.runtime.settings)
        written = await self.tournaments.create(
            tournament_id, config, by=principal.player_id, request_key=key)
        return await self.replies.resource_at(self.tournaments, tournament_id, written)

    @refusals_as_statuses
    @recorded(gate=_CANCELLING, resource=TOURNAMENTS.checked("name"))
    @in_session()
    async def CancelTournament(
        self, request: tournament_service_pb2.CancelTournamentRequest, call: Call
    ) -> tournament_pb2.Tournament:
        principal = self._principal(call)
        _CANCELLING(principal)
        tournament_id = TOURNAMENTS.parse(request.name)
        written = await self.tournaments.cancel(tournament_id, by=principal.player_id, reason=request.reason)
        return await self.replies.resource_at(self.tournaments, tournament_id, written)

    # -- the lobby -----------------------------------------------------------------------------

    @refusals_as_statuses
    @in_session(optional_token=True)
    async def GetTournament(
        self, request: tournament_service_pb2.GetTournamentRequest, call: Call
    ) -> tournament_pb2.Tournament:
        optional_principal_of(call, self._tokens)  # public: a token is optional, but checked if sent
        return self.replies.resource(await self.tournaments.live(TOURNAMENTS.parse(request.name)))

    @refusals_as_statuses
    @in_session(optional_token=True)
    async def ListTournaments(
        self, request: tournament_service_pb2.ListTournamentsRequest, call: Call
    ) -> tournament_service_pb2.ListTournamentsResponse:
        optional_principal_of(call, self._tokens)  # the lobby is public: see the proto
        if request.page_size < 0:
            raise malformed("page_size must not be negative", "page_size")
        size = min(request.page_size or DEFAULT_PAGE_SIZE, MAX_PAGE_SIZE)
        after = self._page_tokens.open(request.page_token, ()) if request.page_token else None
        if after is not None and not TOURNAMENT_ID.holds(after):
            raise malformed("page_token is not one this service issued", "page_token")
        page = await self.tournaments.lobby.page(size + 1, after)
        reply = tournament_service_pb2.ListTournamentsResponse()
        for tournament_id in page[:size]:
            reply.tournaments.append(self.replies.resource(await self.tournaments.live(tournament_id)))
        if len(page) > size:
            reply.next_page_token = self._page_tokens.issue(page[size - 1], ())
        return reply

    # -- players -------------------------------------------------------------------------------

    async def _entry(self, request: Any, call: Call, what: str) -> tournament_pb2.TournamentView:
        """Register, unregister or re-enter (``what``: the facade's method) the caller."""
        principal = self._principal(call)
        player = playing(principal)
        tournament_id = TOURNAMENTS.parse(request.name)
        key = request_key(principal, request)
        written = await getattr(self.tournaments, what)(tournament_id, player, request_key=key)
        return await self.replies.view_at(self.tournaments, tournament_id, written, player)

    @refusals_as_statuses
    @in_session(durable=True)
    async def RegisterTournament(
        self, request: tournament_service_pb2.RegisterTournamentRequest, call: Call
    ) -> tournament_service_pb2.RegisterTournamentResponse:
        tournament_id = TOURNAMENTS.parse(request.name)
        config = (await self.tournaments.live(tournament_id)).state.config
        rule = config.same_network if config is not None else SameNetworkRule.OFF
        if rule is SameNetworkRule.OFF:
            view = await self._entry(request, call, "register")
            return tournament_service_pb2.RegisterTournamentResponse(view=view)
        return tournament_service_pb2.RegisterTournamentResponse(
            view=await self._register_apart(request, call, tournament_id, rule))

    async def _register_apart(self, request: Any, call: Call, tournament_id: str,
                              rule: SameNetworkRule) -> tournament_pb2.TournamentView:
        """RegisterTournament in a tournament that keeps one household's players apart (api.seating): the
        caller's session checked against the players registered, and again if others registered meanwhile."""
        principal = self._principal(call)
        player = playing(principal)
        key = request_key(principal, request)
        caller = caller_of(call, self.runtime.sessions)
        live = await self.tournaments.live(tournament_id)
        for _attempt in range(CHECK_ATTEMPTS):
            checked = others_entered(live.state, player)
            if player not in live.state.entries:  # a registered caller's is refused or a retry anyway
                await check_seating(self.runtime.store, self.runtime.sessions, rule, caller, checked,
                                    "tournament")

            def guard(state: TournamentState, checked: frozenset[str] = checked) -> None:
                if player not in state.entries:
                    still_entered(state, player, checked)

            try:
                written = await self.tournaments.register(tournament_id, player, request_key=key, guard=guard)
            except SeatedMeanwhile:
                continue
            return await self.replies.view_at(self.tournaments, tournament_id, written, player)
        raise RequestError(grpc.StatusCode.ABORTED, "CONFLICT", "players kept registering; retry")

    @refusals_as_statuses
    @in_session()
    async def UnregisterTournament(
        self, request: tournament_service_pb2.UnregisterTournamentRequest, call: Call
    ) -> tournament_service_pb2.UnregisterTournamentResponse:
        view = await self._entry(request, call, "unregister")
        return tournament_service_pb2.UnregisterTournamentResponse(view=view)

    @refusals_as_statuses
    @in_session()
    async def ReEnterTournament(
        self, request: tournament_service_pb2.ReEnterTournamentRequest, call: Call
    ) -> tournament_service_pb2.ReEnterTournamentResponse:
        view = await self._entry(request, call, "re_enter")
        return tournament_service_pb2.ReEnterTournamentResponse(view=view)

    @refusals_as_statuses
    @in_session()
    async def GetTournamentView(
        self, request: tournament_service_pb2.GetTournamentViewRequest, call: Call
    ) -> tournament_pb2.TournamentView:
        principal = self._principal(call)
        live = await self.tournaments.live(TOURNAMENTS.parse(request.name))
        return self.replies.view(live, viewer_of(principal))

    # -- watching ------------------------------------------------------------------------------

    @watched_in_session(table=no_table)
    async def WatchTournament(
        self, request: tournament_service_pb2.WatchTournamentRequest, call: Call
    ) -> AsyncIterator[tournament_service_pb2.WatchTournamentResponse]:
        try:
            principal = self._principal(call)
            tournament_id = TOURNAMENTS.parse(request.name)
            check_watch_request(request)
            async with within_deadline(call, "WatchTournament", self.runtime.store):
                live = await self.tournaments.live(tournament_id)
                if request.after_version > live.version:  # asked of the log: this replica may lag
                    await check_after_head(self.runtime.store, live.stream_id, request.after_version,
                                           "tournament")
        except (RequestError, TournamentError, DomainError, LedgerError, AuthError) as error:
            raise Refused(refusal_for(error)) from None
        except Exception as error:
            raise_if_store_refusal(error)
            raise
        heartbeat = request.heartbeat_seconds or heartbeat_seconds(call)
        try:
            stream = watch_stream(self.tournaments, self.replies, live, principal, request, heartbeat)
            async for reply in stream:
                yield reply
        except Exception as error:  # a read from the log (resuming, lagging) the store cannot serve
            raise_if_store_refusal(error)
            raise
