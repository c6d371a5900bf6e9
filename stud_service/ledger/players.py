"""A player's standing: suspended by an operator or not (AGCO 4.23), and the protection they chose (limits,
exclusions, reality checks, docs/player-protection.md), with the play session in progress: one
``players/{player}`` stream.

A suspended player cannot sit down, top up or be dealt a new hand; a seated one plays no further decision
of the hand they are in (they are treated as having asked to leave: checked when free, else folded) and is
then removed, their stack credited to their account. Withdrawals stay open. Reinstating lifts all of that.

The stream's events::

    PlayerSuspended / PlayerReinstated  reason, by                     an operator
    LimitSet        kind, currency, period, amount, effective_at_ms  the player (a raise after cooling-off)
    LimitFloorSet   kind, currency, period, amount, by               an operator
    SelfExcluded / TimeOutTaken         until_ms (None: for ever)      the player
    ExclusionEnded  by                                               an operator, once the period is over
    RealityCheckSet interval_s (0: off)                              the player
    TableJoined / TableLeft             table_id                       with PlayerSeated / PlayerLeft
    RealityCheck    session_start_ms, elapsed_s, net (per currency)  the service, every interval of a session
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Any

from stud_service.ledger import protection
from stud_service.ledger.protection import Exclusion, Limit, LimitKey, Session

MAX_REASON_CHARS = 500


@dataclass
class PlayerStanding:
    player_id: str
    version: int = 0
    suspended: bool = False
    reason: str = ""
    changed_ms: int | None = None  # the suspension's last change
    limits: dict[LimitKey, Limit] = field(default_factory=dict)
    exclusion: Exclusion | None = None
    reality_check_s: int = 0
    last_reality_check_ms: int | None = None
    session: Session = field(default_factory=Session)

    def copy(self) -> PlayerStanding:
        """A copy to fold further, sharing nothing mutable with this one."""
        return replace(self, limits=dict(self.limits), session=self.session.copy())

    def excluded_at(self, now_ms: int) -> Exclusion | None:
        """The exclusion or time-out in force at ``now_ms``, if any."""
        if self.exclusion is not None and self.exclusion.in_force(now_ms):
            return self.exclusion
        return None

    def limit(self, key: LimitKey) -> Limit:
        return self.limits.get(key) or Limit()


def suspend(standing: PlayerStanding, reason: str, by: str, now_ms: int) -> list[dict[str, Any]]:
    """Suspend the player (nothing to record when they already are)."""
    if standing.suspended:
        return []
    return [
        {"type": "PlayerSuspended", "v": 1, "reason": reason[:MAX_REASON_CHARS], "by": by, "at_ms": now_ms}
    ]


def reinstate(standing: PlayerStanding, by: str, now_ms: int) -> list[dict[str, Any]]:
    if not standing.suspended:
        return []
    return [{"type": "PlayerReinstated", "v": 1, "by": by, "at_ms": now_ms}]


def apply(standing: PlayerStanding, event: dict[str, Any]) -> None:
    """Evolve ``standing`` (which the caller owns) by one of its stored events."""
    standing.version += 1
    kind = event["type"]
    at = event["at_ms"]
    if kind == "PlayerSuspended":
        standing.suspended, standing.reason, standing.changed_ms = True, event["reason"], at
    elif kind == "PlayerReinstated":
        standing.suspended, standing.reason, standing.changed_ms = False, "", at
    elif kind in ("LimitSet", "LimitFloorSet"):
        key = protection.key_of(event)
        standing.limits[key] = protection.apply_limit_event(standing.limit(key), event)
    elif kind in ("SelfExcluded", "TimeOutTaken"):
        standing.exclusion = Exclusion(
            "exclusion" if kind == "SelfExcluded" else "time_out", at, event["until_ms"]
        )
    elif kind == "ExclusionEnded" and standing.exclusion is not None:
        standing.exclusion = replace(standing.exclusion, ended_ms=at)
    elif kind == "RealityCheckSet":
        standing.reality_check_s = event["interval_s"]
    elif kind == "TableJoined":
        standing.session.join(event["table_id"], at)
    elif kind == "TableLeft":
        standing.session.leave(event["table_id"], at)
    elif kind == "RealityCheck":
        standing.last_reality_check_ms = at
