"""A player's standing with the operator: suspended or not (AGCO 4.23), one ``players/{player}`` stream.

A suspended player cannot sit down, top up or be dealt a new hand; a seated one plays no further decision
of the hand they are in (they are treated as having asked to leave: checked when free, else folded) and is
then removed, their stack credited to their account. Withdrawals stay open. Reinstating lifts all of that.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

MAX_REASON_CHARS = 500


@dataclass
class PlayerStanding:
    player_id: str
    version: int = 0
    suspended: bool = False
    reason: str = ""
    changed_ms: int | None = None


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
    standing.version += 1
    kind = event["type"]
    if kind == "PlayerSuspended":
        standing.suspended, standing.reason = True, event["reason"]
    elif kind == "PlayerReinstated":
        standing.suspended, standing.reason = False, ""
    standing.changed_ms = event["at_ms"]
