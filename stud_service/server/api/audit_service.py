"""``stud.v1.AuditService``: hand histories, replays, verification and client seeds over gRPC.

Who may see what (``stud_service.audit.history``): auditors and operators every card of every finished
hand; a player only the hands they were dealt into, as they saw them.  Refusals are rich statuses like
TableService's: NOT_FOUND/NO_HAND, FAILED_PRECONDITION/HAND_RUNNING, PERMISSION_DENIED/NOT_YOUR_HAND or
AUDITOR_ONLY, INVALID_ARGUMENT/MALFORMED_REQUEST.

Every read here may be served by a hot standby (``runtime.reads``, :mod:`stud_service.store.standby`), as
current as the primary was when the call began; SetClientSeed, a write, goes to the table like any command.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

import grpc

from stud_service.audit.catalog import BadPageToken, HandSummary, list_hands
from stud_service.audit.fairness import check_shuffle, client_seeds_from_extra
from stud_service.audit.history import FULL, PUBLIC, Render, hand_events, replay_steps, shuffle_evidence
from stud_service.audit.money_log import audit_money
from stud_service.audit.phh import to_phh
from stud_service.audit.pokerstars import to_pokerstars
from stud_service.audit.records import HandRecord, load_hand
from stud_service.audit.tournament_log import TournamentInfo, tournament_info_for
from stud_service.audit.verify import verify_hand
from stud_service.auth import Principal, Role
from stud_service.engine import SetClientSeed
from stud_service.engine.events import started_game
from stud_service.engine.state import TableState
from stud_service.server.api.access import recorded, roles_only
from stud_service.server.api.audit_listings import (
    AUDITORS,
    DEFAULT_PAGE_SIZE,
    SESSION_AUDITORS,
    access_records_page,
    access_records_resource,
    page_request,
    player_sessions_page,
    player_sessions_resource,
    time_filter,
)
from stud_service.server.api.call import Call
from stud_service.server.api.caller import CallerKeys, principal_of
from stud_service.server.api.convert import (
    VARIANT_PROTOS,
    timestamp,
    timestamp_ms,
    view_to_proto,
)
from stud_service.server.api.errors import RequestError, malformed, refusals_as_statuses
from stud_service.server.api.events_proto import event_proto
from stud_service.server.api.integrity_replies import integrity_reply
from stud_service.server.api.money_replies import CURRENCY_CODE, reconciliation_proto
from stud_service.server.api.names import HANDS, PLAYER_ID, TABLES
from stud_service.server.api.page_tokens import PageTokens
from stud_service.server.api.request_ids import request_key
from stud_service.server.api.sessions import in_session, named_table
from stud_service.server.proto_gen import audit_pb2, audit_service_pb2, table_pb2
from stud_service.server.tables.live import now_ms
from stud_service.server.tables.runtime import TableRuntime
from stud_service.store import EventStore

ALL_TABLES = "tables/-"
_NOT_AUDITORS = roles_only((Role.PLAYER, Role.OPERATOR), lambda: RequestError(
    grpc.StatusCode.PERMISSION_DENIED, "AUDITOR_READ_ONLY", "an auditor token cannot take part in a game"
))


def _listed(request: Any) -> tuple[str | None, str | None]:
    """ListHands' filters: the table (None: every table) and the player (None: everyone's hands)."""
    table_id = None
    if request.parent and request.parent != ALL_TABLES:
        table_id = TABLES.parse(request.parent, "parent")
    player_id = PLAYER_ID.check(request.player_id, "player_id") if request.player_id else None
    return table_id, player_id


def _listed_hands(request: Any) -> str:
    """The resource a ListHands names, for its access record: its filters checked first."""
    _listed(request)
    return request.parent or ALL_TABLES


def _replay_views(record: HandRecord, mode: str) -> Render:
    """Renders each replay step as the TableView ``mode``'s viewer was shown live (FULL: every card)."""
    viewer = None if mode in (FULL, PUBLIC) else mode
    commitment = record.started["commitment"]
    ended: list[dict[str, Any]] = []

    def render(state: TableState, version: int, shown: dict[str, Any]) -> table_pb2.TableView:
        if shown.get("type") == "HandEnded":
            ended.append(shown)
        last_result = ended[-1] if ended else None
        return view_to_proto(record.table_id, state, version, viewer, last_result, commitment,
                             every_card=mode == FULL)

    return render


def _hand_players(rows: Iterable[tuple[int, str, int]]) -> list[audit_pb2.HandPlayer]:
    """HandStarted's (seat, player_id, starting stack) rows as the hand's players."""
    return [audit_pb2.HandPlayer(seat=seat, player_id=pid, starting_stack=stack) for seat, pid, stack in rows]


def _summary_proto(summary: HandSummary) -> audit_pb2.HandSummary:
    return audit_pb2.HandSummary(
        name=summary.name,
        hand_number=summary.hand,
        start_time=timestamp(summary.started_at),
        variant=VARIANT_PROTOS.get(summary.variant, 0),
        players=_hand_players(summary.players),
        complete=summary.complete,
        pot=summary.pot,
    )


def _record_summary(record: HandRecord) -> audit_pb2.HandSummary:
    started = record.started
    ended = record.ended
    return audit_pb2.HandSummary(
        name=f"tables/{record.table_id}/hands/{record.hand}",
        hand_number=record.hand,
        start_time=timestamp(record.started_at),
        variant=VARIANT_PROTOS.get(started_game(started), 0),  # the hand's game (RULES.md §13)
        players=_hand_players(record.seats),
        complete=ended is not None,
        pot=sum(pot["amount"] for pot in ended["pots"]) if ended else 0,
    )


async def _hand_for_export(
    store: EventStore, table_id: str, hand: int
) -> tuple[HandRecord, TournamentInfo | None]:
    """A finished hand and, at a tournament table, its tournament's (the buy-in): in one read."""
    record = (await load_hand(store, table_id, hand)).require_complete()
    return record, await tournament_info_for(store, record)


class AuditService:
    DESCRIPTOR = audit_service_pb2.DESCRIPTOR.services_by_name["AuditService"]  # both ports serve its methods
    SERVICE_NAME = DESCRIPTOR.full_name  # every call by an operator or auditor is recorded (api.access)

    def __init__(
        self, runtime: TableRuntime, keys: CallerKeys | str, *, reveal_seeds_after: float | None = None
    ) -> None:
        self.runtime = runtime
        # Seconds after a hand's end when its seed (and so its whole deck) is public; None: auditors only.
        self.reveal_seeds_after = reveal_seeds_after
        self.reads = runtime.reads
        keys = CallerKeys.of(keys)
        self._tokens = keys.tokens
        self._page_tokens = PageTokens(keys.page_token_key, "ListHands")
        self._access_tokens = PageTokens(keys.page_token_key, "ListAccessRecords")
        self._session_tokens = PageTokens(keys.page_token_key, "ListPlayerSessions")

    # -- helpers -------------------------------------------------------------------------------

    def _principal(self, call: Call) -> Principal:
        return principal_of(call, self._tokens)

    @staticmethod
    def _sees_everything(principal: Principal) -> bool:
        return principal.role in (Role.AUDITOR, Role.OPERATOR)

    async def _finished_hand(self, name: str) -> HandRecord:
        table_id, hand = HANDS.parse(name)
        return (await self.reads.read(lambda store: load_hand(store, table_id, hand))).require_complete()

    def _public_reveal_ms(self, record: HandRecord) -> int | None:
        """When the hand's server seed becomes public (ms since the epoch); None: never, as for a voided hand,
        whose cards are never shown (RULES.md §12): its seed would give them all away."""
        ended = record.ended
        if self.reveal_seeds_after is None or ended is None or record.voided is not None:
            return None
        return int(ended["at_ms"]) + int(self.reveal_seeds_after * 1000)

    def _seed_for(self, principal: Principal, record: HandRecord) -> bytes | None:
        """The hand's server seed if the caller may have it: auditors and operators, everyone once the
        operator's delayed public reveal has passed; else None (it would give away every unseen card)."""
        if not self._sees_everything(principal):
            public_at = self._public_reveal_ms(record)
            if public_at is None or public_at > now_ms():
                return None
        return record.server_seed()

    def _mode(self, principal: Principal, record: HandRecord) -> str:
        """FULL for auditors and operators; the player's own view, if they played the hand."""
        if self._sees_everything(principal):
            return FULL
        hand_events(record, principal.player_id)  # raises NotYourHand for a stranger
        return principal.player_id

    # -- reading -------------------------------------------------------------------------------

    @refusals_as_statuses
    @recorded(resource=_listed_hands)
    @in_session()
    async def ListHands(self, request: Any, call: Call) -> Any:
        principal = self._principal(call)
        table_id, player_id = _listed(request)
        if not self._sees_everything(principal):
            if player_id not in (None, principal.player_id):
                raise RequestError(
                    grpc.StatusCode.PERMISSION_DENIED,
                    "NOT_YOUR_HAND",
                    "a player may list only their own hands",
                )
            player_id = principal.player_id
        since, until, binding, position = page_request(request, self._page_tokens, (table_id, player_id))
        try:
            page = await self.reads.read(lambda store: list_hands(
                store,
                table_id=table_id,
                player_id=player_id,
                since=since,
                until=until,
                page_size=request.page_size or DEFAULT_PAGE_SIZE,
                page_token=position,
            ))
        except BadPageToken as error:
            raise malformed(str(error), "page_token") from None
        next_token = self._page_tokens.issue(page.next_page_token, binding) if page.next_page_token else ""
        return audit_service_pb2.ListHandsResponse(
            hands=[_summary_proto(summary) for summary in page.hands], next_page_token=next_token
        )

    @refusals_as_statuses
    @recorded(resource=HANDS.checked("name"))
    @in_session()
    async def GetHand(self, request: Any, call: Call) -> Any:
        principal = self._principal(call)
        record = await self._finished_hand(request.name)
        mode = self._mode(principal, record)
        recorded_at = {stored.version: stored.recorded_at for stored in record.events}
        events = [
            event_proto(version, payload, recorded_at[version])
            for version, payload in hand_events(record, mode)
        ]
        seed = self._seed_for(principal, record)
        extra = record.started.get("extra")
        return audit_pb2.Hand(
            name=request.name,
            summary=_record_summary(record),
            events=events,
            deck_commitment=record.started["commitment"],
            server_seed=seed.hex() if seed is not None else "",
            client_seeds=client_seeds_from_extra(extra),
            deck_root=str(extra.get("deck_root") or "") if isinstance(extra, dict) else "",
        )

    @refusals_as_statuses
    @recorded(resource=HANDS.checked("name"))
    @in_session()
    async def ReplayHand(self, request: Any, call: Call) -> Any:
        principal = self._principal(call)
        record = await self._finished_hand(request.name)
        own_view = self._mode(principal, record)
        view = request.view
        if view == audit_service_pb2.REPLAY_VIEW_UNSPECIFIED:
            mode = own_view
        elif view == audit_service_pb2.REPLAY_VIEW_FULL:
            if not self._sees_everything(principal):
                raise RequestError(
                    grpc.StatusCode.PERMISSION_DENIED,
                    "AUDITOR_ONLY",
                    "the full replay is for auditors and operators",
                )
            mode = FULL
        elif view == audit_service_pb2.REPLAY_VIEW_PUBLIC:
            mode = PUBLIC
        elif view == audit_service_pb2.REPLAY_VIEW_PLAYER:
            if self._sees_everything(principal):
                raise malformed("PLAYER view is a player's own; use FULL or PUBLIC", "view")
            mode = own_view
        else:
            raise malformed(f"unknown view {view}", "view")
        recorded_at = {stored.version: stored.recorded_at for stored in record.events}
        steps = [
            audit_pb2.ReplayStep(
                event=event_proto(step.version, step.event, recorded_at[step.version]), state=step.state
            )
            for step in replay_steps(record, mode, _replay_views(record, mode))
        ]
        return audit_service_pb2.ReplayHandResponse(steps=steps)

    @refusals_as_statuses
    @recorded(resource=HANDS.checked("name"))
    @in_session()
    async def VerifyHand(self, request: Any, call: Call) -> Any:
        principal = self._principal(call)
        if not self._sees_everything(principal):
            raise RequestError(
                grpc.StatusCode.PERMISSION_DENIED,
                "AUDITOR_ONLY",
                "verifying hands is for auditors and operators",
            )
        table_id, hand = HANDS.parse(request.name)
        report = await self.reads.read(lambda store: verify_hand(store, table_id, hand))
        checks = [
            audit_pb2.VerificationCheck(
                check=c.name,
                passed=c.ok,
                version=(c.problem.version or 0) if c.problem else 0,
                message=c.problem.message if c.problem else "",
            )
            for c in report.checks
        ]
        reply = audit_service_pb2.VerifyHandResponse(name=request.name, passed=report.ok, checks=checks)
        first = report.first_problem
        if first is not None:
            reply.first_problem.CopyFrom(
                audit_pb2.VerificationCheck(
                    check=first.check, passed=False, version=first.version or 0, message=first.message
                )
            )
        return reply

    @refusals_as_statuses
    @recorded(resource=HANDS.checked("name"))
    @in_session()
    async def VerifyShuffle(self, request: Any, call: Call) -> Any:
        principal = self._principal(call)
        record = await self._finished_hand(request.name)
        # Auditors and operators may see every card of a finished hand: every card dealt is checked against
        # the seed. Anyone else checks the public evidence (the proofs of the face-up and shown cards), and a
        # player who played their own down cards too; the seed only when the caller may have it (older hands
        # logged it openly).
        revealed = self._seed_for(principal, record) is not None
        if self._sees_everything(principal):
            mode = FULL
        else:
            mode = principal.player_id if record.seat_of(principal.player_id) is not None else PUBLIC
        evidence = shuffle_evidence(record, mode, reveal_seed=revealed)
        problem = check_shuffle(evidence)
        order = evidence.order
        reply = audit_service_pb2.VerifyShuffleResponse(
            name=request.name,
            passed=problem is None,
            message=problem.message if problem else "",
            deck_commitment=evidence.commitment,
            server_seed=evidence.server_seed or "",
            client_seeds=evidence.client_seeds,
            cards_checked=len(evidence.seen),
            deck_root=evidence.deck_root or "",
            proofs=[audit_pb2.CardProof(position=p.position, card=p.card, salt=p.salt.hex(),
                                        path=[node.hex() for node in p.path]) for p in evidence.proofs],
            commitment_version=order.commitment_version if order else 0,
            client_seed_versions=[v or 0 for _s, v in sorted(order.seed_versions.items())] if order else [],
            hand_started_version=order.started_version if order else 0,
        )
        public_at = self._public_reveal_ms(record)
        if public_at is not None:
            reply.public_reveal_time.CopyFrom(timestamp_ms(public_at))
        return reply

    @refusals_as_statuses
    @recorded(resource=HANDS.checked("name"))
    @in_session()
    async def ExportHandHistory(self, request: Any, call: Call) -> Any:
        principal = self._principal(call)
        table_id, hand = HANDS.parse(request.name)
        record, tournament = await self.reads.read(lambda store: _hand_for_export(store, table_id, hand))
        mode = self._mode(principal, record)
        viewer = None if mode == FULL else mode
        fmt = request.format or audit_service_pb2.HISTORY_FORMAT_PHH
        if fmt == audit_service_pb2.HISTORY_FORMAT_PHH:
            text = to_phh(record, viewer, tournament)
        elif fmt == audit_service_pb2.HISTORY_FORMAT_POKERSTARS:
            text = to_pokerstars(record, viewer, tournament)
        else:
            raise malformed(f"unknown format {fmt}", "format")
        return audit_service_pb2.ExportHandHistoryResponse(name=request.name, format=fmt, text=text)

    # -- money -----------------------------------------------------------------------------------

    @refusals_as_statuses
    @recorded(resource=lambda request: "money")
    @in_session()
    async def ReconcileMoney(self, request: Any, call: Call) -> Any:
        if not self._sees_everything(self._principal(call)):
            raise RequestError(
                grpc.StatusCode.PERMISSION_DENIED,
                "AUDITOR_ONLY",
                "reconciling money is for auditors and operators",
            )
        as_of = time_filter(request, "as_of")
        if request.currency and not CURRENCY_CODE.fullmatch(request.currency):
            raise malformed("currency must be an ISO 4217 code: three capital letters", "currency")
        if request.view not in audit_service_pb2.MoneyReconciliationView.values():
            raise malformed(f"unknown view {request.view}", "view")
        report = await self.reads.read(
            lambda store: audit_money(store, as_of=as_of, currency=request.currency or None)
        )
        return reconciliation_proto(report, request.view == audit_service_pb2.MONEY_RECONCILIATION_VIEW_FULL)

    @refusals_as_statuses
    @recorded(resource=lambda request: "integrityReport")
    @in_session()
    async def GetIntegrityReport(self, request: Any, call: Call) -> Any:
        if not self._sees_everything(self._principal(call)):
            raise RequestError(
                grpc.StatusCode.PERMISSION_DENIED,
                "AUDITOR_ONLY",
                "the integrity report is for auditors and operators",
            )
        since, until = time_filter(request, "start_time"), time_filter(request, "end_time")
        return await self.reads.read(lambda store: integrity_reply(store, request, since, until))

    # -- the shuffle's client seeds --------------------------------------------------------------

    @refusals_as_statuses
    @recorded(gate=_NOT_AUDITORS, resource=TABLES.checked("name"))
    @in_session(table=named_table)
    async def SetClientSeed(self, request: Any, call: Call) -> Any:
        principal = self._principal(call)
        _NOT_AUDITORS(principal)
        table_id = TABLES.parse(request.name)
        request_id = request_key(principal, request)
        player, seed = principal.player_id, request.seed
        written = await self.runtime.execute(
            table_id, lambda state, now: SetClientSeed(player, seed, now_ms=now), request_id=request_id
        )
        return audit_service_pb2.SetClientSeedResponse(version=written.version)

    # -- the access log --------------------------------------------------------------------------

    @refusals_as_statuses
    @recorded(gate=AUDITORS, resource=access_records_resource)
    @in_session()
    async def ListAccessRecords(self, request: Any, call: Call) -> Any:
        AUDITORS(self._principal(call))  # a player's call is not recorded, but refused all the same
        return await self.reads.read(lambda store: access_records_page(store, request, self._access_tokens))

    # -- player sessions -------------------------------------------------------------------------

    @refusals_as_statuses
    @recorded(gate=SESSION_AUDITORS, resource=player_sessions_resource)
    @in_session()
    async def ListPlayerSessions(self, request: Any, call: Call) -> Any:
        SESSION_AUDITORS(self._principal(call))  # a player's call is not recorded, but refused all the same
        return await self.reads.read(
            lambda store: player_sessions_page(store, request, self._session_tokens)
        )
