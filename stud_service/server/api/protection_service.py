"""``stud.v1.PlayerProtectionService``: limits, self-exclusion, time-outs, reality checks.

docs/player-protection.md says what each serves.

A service of its own rather than more CashierService methods: the cashier is the operator's back office (its
money calls need an operator token), while these are the player's own decisions, made from the player's
client with the player's token, which an operator may only tighten (a floor) or, after its period, end (an
exclusion). Everything is recorded in the player's ``players/{player}`` stream by the runtime's
:class:`~stud_service.ledger.book.Ledger`; the checks that enforce it are the ledger's
(:mod:`stud_service.ledger.enforce`) and the tables' (:mod:`stud_service.server.tables.protection`).
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any

from stud_service.auth import AuthError, Principal, Role
from stud_service.engine import DomainError
from stud_service.ledger import protection
from stud_service.ledger.errors import ExclusionNotOver, LedgerError, NotYourAccount, PlayerExcluded
from stud_service.ledger.names import account_stream, player_stream
from stud_service.ledger.players import PlayerStanding, apply
from stud_service.server.api.access import operator_only, record_access, recorded
from stud_service.server.api.call import Call
from stud_service.server.api.caller import CallerKeys, principal_of
from stud_service.server.api.convert import timestamp
from stud_service.server.api.errors import (
    Refused,
    RequestError,
    malformed,
    raise_if_store_refusal,
    refusal_for,
    refusals_as_statuses,
)
from stud_service.server.api.names import PLAYERS
from stud_service.server.api.protection_convert import (
    limit_key,
    protection_to_proto,
    reality_check_to_proto,
)
from stud_service.server.api.sessions import in_session, no_table, watched_in_session
from stud_service.server.proto_gen import player_protection_service_pb2 as pb
from stud_service.server.tables.live import now_ms
from stud_service.server.tables.runtime import TableRuntime

_FLOOR = operator_only("setting a limit floor for a player")
_ENDING = operator_only("ending a player's exclusion")
_OWN = "a player's own protection is theirs to set"


class PlayerProtectionService:
    DESCRIPTOR = pb.DESCRIPTOR.services_by_name["PlayerProtectionService"]  # both ports serve it
    SERVICE_NAME = DESCRIPTOR.full_name

    def __init__(self, runtime: TableRuntime, keys: CallerKeys | str) -> None:
        self.runtime = runtime
        self.ledger = runtime.ledger
        self._tokens = CallerKeys.of(keys).tokens

    # -- helpers -------------------------------------------------------------------------------

    def _principal(self, call: Call) -> Principal:
        return principal_of(call, self._tokens)

    def _own(self, request: Any, call: Call) -> tuple[Principal, str]:
        """The caller and the player named, who must be the caller."""
        principal = self._principal(call)
        player = PLAYERS.parse(request.name)
        if principal.role is not Role.PLAYER or principal.player_id != player:
            raise NotYourAccount(f"{_OWN}: only the player may change it")
        return principal, player

    async def _reply(self, standing: PlayerStanding) -> pb.PlayerProtection:
        now = now_ms()
        currencies = {key.currency for key in standing.limits if key.currency}
        accounts = {
            currency: await self.ledger.account(account_stream(standing.player_id, currency))
            for currency in sorted(currencies)
        }
        return protection_to_proto(standing, accounts, now)

    # -- the player's own ------------------------------------------------------------------------

    @refusals_as_statuses
    @recorded(resource=PLAYERS.checked("name"))
    @in_session()
    async def GetLimits(self, request: Any, call: Call) -> Any:
        principal = self._principal(call)
        player = PLAYERS.parse(request.name)
        if principal.role is Role.PLAYER and principal.player_id != player:
            raise NotYourAccount("a player may read only their own protection")
        return await self._reply(await self.ledger.standing(player))

    @refusals_as_statuses
    @in_session()
    async def SetLimit(self, request: Any, call: Call) -> Any:
        principal, player = self._own(request, call)
        key, amount = limit_key(request)
        cooling_off = int(self.runtime.settings.limit_cooling_off * 1000)
        now = now_ms()
        standing, _events = await self.ledger.protect(
            player,
            lambda standing: [protection.own_limit_event(
                key, standing.limit(key), amount, principal.player_id, now, cooling_off
            )],
        )
        return await self._reply(standing)

    @refusals_as_statuses
    @in_session()
    async def SelfExclude(self, request: Any, call: Call) -> Any:
        if request.forever and request.duration_seconds:
            raise malformed("give duration_seconds or forever, not both", "duration_seconds")
        seconds = None if request.forever else request.duration_seconds
        return await self._exclude(request, call, "exclusion", seconds)

    @refusals_as_statuses
    @in_session()
    async def TakeTimeOut(self, request: Any, call: Call) -> Any:
        return await self._exclude(request, call, "time_out", request.duration_seconds)

    async def _exclude(self, request: Any, call: Call, kind: str, seconds: int | None) -> Any:
        principal, player = self._own(request, call)
        low, high = protection.exclusion_bounds(kind)
        if seconds is not None and not low <= seconds * 1000 <= high:
            raise malformed(f"duration_seconds must be {low // 1000}..{high // 1000}", "duration_seconds")
        now = now_ms()
        event = protection.exclusion_event(kind, None if seconds is None else seconds * 1000, player, now)

        def decide(standing: PlayerStanding) -> list[dict[str, Any]]:
            current = standing.excluded_at(now)
            if not protection.ends_no_earlier(event["until_ms"], current, now):
                assert current is not None
                raise PlayerExcluded(
                    "an exclusion in force may be lengthened, never shortened",
                    {"kind": current.kind, "player_id": player,
                     "until_ms": "" if current.until_ms is None else str(current.until_ms)},
                )
            return [event]

        standing, _events = await self.ledger.protect(player, decide)
        tables = await self.runtime.protection.take_off_tables(player)
        tournaments = await self.runtime.tournaments.exclusions.unregister_player(player)
        return pb.ExclusionResponse(
            protection=await self._reply(standing), tables=[f"tables/{table}" for table in tables],
            tournaments=[f"tournaments/{tournament}" for tournament in tournaments],
        )

    @refusals_as_statuses
    @in_session()
    async def SetRealityCheck(self, request: Any, call: Call) -> Any:
        _principal, player = self._own(request, call)
        seconds = request.interval_seconds
        if seconds and not protection.REALITY_CHECK_MIN_S <= seconds <= protection.REALITY_CHECK_MAX_S:
            low, high = protection.REALITY_CHECK_MIN_S, protection.REALITY_CHECK_MAX_S
            raise malformed(f"interval_seconds is 0 (off) or {low}..{high}", "interval_seconds")
        now = now_ms()
        standing, _events = await self.ledger.protect(
            player,
            lambda standing: [] if standing.reality_check_s == seconds
            else [{"type": "RealityCheckSet", "v": 1, "interval_s": seconds, "at_ms": now}],
        )
        return await self._reply(standing)

    # -- the operator's ----------------------------------------------------------------------------

    @refusals_as_statuses
    @recorded(gate=_FLOOR, resource=PLAYERS.checked("name"))
    @in_session()
    async def SetLimitFloor(self, request: Any, call: Call) -> Any:
        principal = self._principal(call)
        _FLOOR(principal)
        player = PLAYERS.parse(request.name)
        key, amount = limit_key(request)
        now = now_ms()
        standing, _events = await self.ledger.protect(
            player, lambda standing: [protection.floor_event(key, amount, principal.player_id, now)]
        )
        return await self._reply(standing)

    @refusals_as_statuses
    @recorded(gate=_ENDING, resource=PLAYERS.checked("name"))
    @in_session()
    async def EndExclusion(self, request: Any, call: Call) -> Any:
        principal = self._principal(call)
        _ENDING(principal)
        player = PLAYERS.parse(request.name)
        now = now_ms()

        def decide(standing: PlayerStanding) -> list[dict[str, Any]]:
            exclusion = standing.excluded_at(now)
            if exclusion is None or exclusion.kind != "exclusion" or not exclusion.period_over(now):
                until = "" if exclusion is None or exclusion.until_ms is None else str(exclusion.until_ms)
                raise ExclusionNotOver(
                    "no self-exclusion whose period is over is in force (one for ever never ends)",
                    {"until_ms": until},
                )
            return [{"type": "ExclusionEnded", "v": 1, "by": principal.player_id, "at_ms": now}]

        standing, _events = await self.ledger.protect(player, decide)
        return await self._reply(standing)

    # -- the player's stream -----------------------------------------------------------------------

    @watched_in_session(table=no_table)
    async def WatchPlayer(self, request: Any, call: Call) -> AsyncIterator[pb.WatchPlayerResponse]:
        try:
            principal = self._principal(call)
            player = PLAYERS.parse(request.name)
            if principal.role is Role.PLAYER and principal.player_id != player:
                raise NotYourAccount("a player may watch only their own stream")
            if request.after_version < 0:
                raise malformed("after_version must not be negative", "after_version")
            if principal.role is not Role.PLAYER:
                method = f"/{self.SERVICE_NAME}/WatchPlayer"
                await record_access(self.runtime.access, principal, method, request.name, call)
            standing = PlayerStanding(player)
            stream_id = player_stream(player)
            for stored in await self.runtime.store.read_stream(stream_id, limit=request.after_version):
                apply(standing, stored.payload)
        except (RequestError, DomainError, AuthError, LedgerError) as error:
            raise Refused(refusal_for(error)) from None
        except Exception as error:
            raise_if_store_refusal(error)
            raise
        async for stored in self.runtime.store.subscribe(stream_id, standing.version):
            apply(standing, stored.payload)
            reply = pb.WatchPlayerResponse(
                version=stored.version, time=timestamp(stored.recorded_at), type=stored.type,
                protection=await self._reply(standing),
            )
            if stored.type == "RealityCheck":
                reply.reality_check.CopyFrom(reality_check_to_proto(stored.payload))
            yield reply
