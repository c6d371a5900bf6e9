"""Player protection enforced at the command that would break it: each check raises its refusal (with what
is left of the limit in its metadata) or returns. Pure: the standing and the account are folded by the
caller (:mod:`stud_service.ledger.book`), which holds the account's lock.

=================================  ==============================================================
the call                           what is checked
=================================  ==============================================================
Deposit                            exclusion or time-out; the deposit limits of the currency
SitDown                            exclusion; the session limit; the buy-in against the loss limits
TopUp                              exclusion; the amount against the loss limits
SitIn                              exclusion; the session limit; the loss limits not already reached
JoinWaitingList                    exclusion; the session limit
Withdraw                           nothing: an excluded player can always take their money out
=================================  ==============================================================
"""

from __future__ import annotations

from stud_service.ledger import protection
from stud_service.ledger.accounts import Account
from stud_service.ledger.errors import (
    DepositLimitReached,
    LossLimitReached,
    PlayerExcluded,
    PlayerSuspended,
    SessionLimitReached,
)
from stud_service.ledger.players import PlayerStanding


def not_excluded(standing: PlayerStanding, now_ms: int) -> None:
    """PLAYER_EXCLUDED while a self-exclusion or a time-out is in force."""
    exclusion = standing.excluded_at(now_ms)
    if exclusion is None:
        return
    until = "" if exclusion.until_ms is None else str(exclusion.until_ms)
    what = "excluded themselves" if exclusion.kind == "exclusion" else "is taking a time-out"
    ends = "for ever" if exclusion.until_ms is None else f"until {exclusion.until_ms} ms"
    raise PlayerExcluded(
        f"player {standing.player_id!r} {what} ({ends}): only withdrawals are open",
        {"kind": exclusion.kind, "until_ms": until, "player_id": standing.player_id},
    )


def not_suspended(standing: PlayerStanding) -> None:
    if standing.suspended:
        raise PlayerSuspended(
            f"player {standing.player_id!r} is suspended: no buy-in or top-up",
            {"player_id": standing.player_id},
        )


def deposit(standing: PlayerStanding, account: Account, amount: int, now_ms: int) -> None:
    """A deposit of ``amount``: refused while excluded, or beyond what is left of a deposit limit."""
    not_excluded(standing, now_ms)
    room = protection.room(standing.limits, "deposit", account.currency, account.moves, now_ms)
    if room is not None and amount > room.remaining:
        raise DepositLimitReached(
            f"the {room.period}'s deposit limit of {room.limit} leaves {max(0, room.remaining)} to deposit,"
            f" {amount} asked",
            _room_metadata(room, account.currency),
        )


def seating(standing: PlayerStanding, now_ms: int, session_too: bool = True) -> None:
    """A seating call (SitDown, SitIn, JoinWaitingList; TopUp with ``session_too`` False)."""
    not_excluded(standing, now_ms)
    if not session_too:
        return
    limit = standing.limit(protection.LimitKey(protection.SESSION_LIMIT)).in_force(now_ms)
    left = protection.session_left_ms(limit, standing.session, now_ms)
    if left is not None and left <= 0:
        elapsed = standing.session.elapsed_ms(now_ms) // 1000
        raise SessionLimitReached(
            f"this session has lasted {elapsed} s, the session limit is {limit} s: leave every table and"
            f" come back after {protection.SESSION_GAP_MS // 60_000} minutes for a new session",
            {"remaining_seconds": "0", "limit_seconds": str(limit), "session_seconds": str(elapsed)},
        )


def stake(standing: PlayerStanding, account: Account, amount: int, back: int, now_ms: int) -> None:
    """Chips into a table: ``amount`` more (a buy-in, a top-up: every chip bought in counts as lost until it
    comes back), or sitting in again (``amount`` 0) with ``back`` chips there, which count as not lost yet.
    Refused when the loss limits leave less than ``amount`` (for sitting in: nothing)."""
    room = protection.room(standing.limits, "loss", account.currency, account.moves, now_ms, back)
    if room is None:
        return
    if amount > room.remaining or (amount == 0 and room.remaining <= 0):
        raise LossLimitReached(
            f"the {room.period}'s loss limit of {room.limit} leaves {max(0, room.remaining)} to play with,"
            f" {amount} asked",
            _room_metadata(room, account.currency),
        )


def loss_reached(standing: PlayerStanding, account: Account, back: int, now_ms: int) -> bool:
    """Whether a seated player with ``back`` chips at the table has reached a loss limit (then sat out)."""
    room = protection.room(standing.limits, "loss", account.currency, account.moves, now_ms, back)
    return room is not None and room.remaining <= 0


def session_over(standing: PlayerStanding, now_ms: int) -> bool:
    limit = standing.limit(protection.LimitKey(protection.SESSION_LIMIT)).in_force(now_ms)
    left = protection.session_left_ms(limit, standing.session, now_ms)
    return left is not None and left <= 0


def _room_metadata(room: protection.Room, currency: str) -> dict[str, str]:
    return {"remaining": str(max(0, room.remaining)), "period": room.period, "limit": str(room.limit),
            "currency": currency}
