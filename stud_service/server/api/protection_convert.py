"""Player protection as ``stud.v1`` messages (proto/stud/v1/player_protection_service.proto), and back."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from stud_service.currency import is_currency
from stud_service.ledger import protection
from stud_service.ledger.accounts import Account
from stud_service.ledger.names import player_stream
from stud_service.ledger.players import PlayerStanding
from stud_service.ledger.protection import LimitKey
from stud_service.server.api.convert import timestamp_ms
from stud_service.server.api.errors import malformed
from stud_service.server.proto_gen import player_protection_service_pb2 as pb

KINDS = {pb.LIMIT_KIND_DEPOSIT: "deposit", pb.LIMIT_KIND_LOSS: "loss",
         pb.LIMIT_KIND_SESSION_TIME: protection.SESSION_LIMIT}
PERIODS = {pb.LIMIT_PERIOD_DAY: "day", pb.LIMIT_PERIOD_WEEK: "week", pb.LIMIT_PERIOD_MONTH: "month"}
_KIND_VALUES = {name: value for value, name in KINDS.items()}
_PERIOD_VALUES = {name: value for value, name in PERIODS.items()}
_EXCLUSIONS = {"exclusion": pb.EXCLUSION_KIND_SELF_EXCLUSION, "time_out": pb.EXCLUSION_KIND_TIME_OUT}
MAX_AMOUNT = 2**63 - 1


def limit_key(request: Any) -> tuple[LimitKey, int]:
    """The limit a SetLimit or SetLimitFloor names, and its amount; MALFORMED_REQUEST for a bad one."""
    kind = KINDS.get(request.kind)
    if kind is None:
        raise malformed("kind must be LIMIT_KIND_DEPOSIT, LIMIT_KIND_LOSS or LIMIT_KIND_SESSION_TIME", "kind")
    amount = request.amount
    if kind == protection.SESSION_LIMIT:
        if request.currency_code or request.period:
            raise malformed("a session limit has no currency_code and no period", "currency_code")
        if not 0 <= amount <= protection.MAX_SESSION_LIMIT_S:
            raise malformed(f"a session limit is 0..{protection.MAX_SESSION_LIMIT_S} seconds", "amount")
        return LimitKey(kind), amount
    if not is_currency(request.currency_code):
        raise malformed("currency_code must be an ISO 4217 code, e.g. USD", "currency_code")
    period = PERIODS.get(request.period)
    if period is None:
        raise malformed("period must be LIMIT_PERIOD_DAY, LIMIT_PERIOD_WEEK or LIMIT_PERIOD_MONTH", "period")
    if not 0 <= amount <= MAX_AMOUNT:
        raise malformed(f"amount must be 0..{MAX_AMOUNT} units (0: no limit)", "amount")
    return LimitKey(kind, request.currency_code, period), amount


def protection_to_proto(
    standing: PlayerStanding, accounts: Mapping[str, Account], now_ms: int
) -> pb.PlayerProtection:
    """The player's protection now; ``accounts``: theirs by currency, for what each money limit leaves."""
    reply = pb.PlayerProtection(
        name=player_stream(standing.player_id),
        reality_check_interval_seconds=standing.reality_check_s,
        version=standing.version,
    )
    for key in sorted(standing.limits, key=_order):
        reply.limits.append(_limit(standing, key, accounts, now_ms))
    exclusion = standing.exclusion
    if exclusion is not None:
        reply.exclusion.kind = _EXCLUSIONS[exclusion.kind]
        reply.exclusion.start_time.CopyFrom(timestamp_ms(exclusion.since_ms))
        if exclusion.until_ms is not None:
            reply.exclusion.end_time.CopyFrom(timestamp_ms(exclusion.until_ms))
        reply.exclusion.in_force = exclusion.in_force(now_ms)
    session = standing.session
    if session.started_ms is not None and session.open_at(now_ms):
        reply.session_start_time.CopyFrom(timestamp_ms(session.started_ms))
    return reply


def _order(key: LimitKey) -> tuple[str, str, int]:
    """Limits by kind, currency, then period from the shortest."""
    return key.kind, key.currency, _PERIOD_VALUES.get(key.period, 0)


def _limit(standing: PlayerStanding, key: LimitKey, accounts: Mapping[str, Account], now_ms: int) -> pb.Limit:
    limit = standing.limits[key]
    amount = limit.in_force(now_ms)
    reply = pb.Limit(kind=_KIND_VALUES[key.kind], currency_code=key.currency,
                     period=_PERIOD_VALUES.get(key.period, pb.LIMIT_PERIOD_UNSPECIFIED), amount=amount,
                     own_amount=limit.own_at(now_ms), floor_amount=limit.floor)
    settled = limit.settled(now_ms)
    if settled.pending is not None:
        reply.pending_amount = settled.pending
        reply.pending_effective_time.CopyFrom(timestamp_ms(settled.pending_at_ms))
    if amount:
        if key.kind == protection.SESSION_LIMIT:
            left = protection.session_left_ms(amount, standing.session, now_ms) or 0
            reply.remaining = max(0, left) // 1000
        else:
            account = accounts.get(key.currency)
            moves = account.moves if account is not None else ()
            used = protection.deposited(moves, key.period, now_ms) if key.kind == "deposit" \
                else protection.lost(moves, key.period, now_ms)
            reply.remaining = max(0, amount - used)
    return reply


def reality_check_to_proto(payload: Mapping[str, Any]) -> pb.RealityCheck:
    return pb.RealityCheck(
        session_start_time=timestamp_ms(payload["session_start_ms"]),
        session_seconds=payload["elapsed_s"],
        net_results=[pb.NetResult(currency_code=currency, amount=amount)
                     for currency, amount in sorted(payload["net"].items())],
    )
