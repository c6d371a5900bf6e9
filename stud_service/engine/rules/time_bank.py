"""The time bank (RULES.md §7): a reserve of seconds each seated player holds for decisions that outlast
their action clock.

Amounts are milliseconds (the table's options are whole seconds): "only what is used is spent" is exact to
the millisecond the command was made at.  A reserve is never negative and never above the table's maximum.
"""

from __future__ import annotations

from typing import Final

MS_PER_SECOND: Final = 1000


def time_bank_maximum_ms(time_bank_seconds: int) -> int:
    """§7: the reserve's maximum, ``time_bank_seconds`` (0: the table has no time bank)."""
    return time_bank_seconds * MS_PER_SECOND


def time_bank_on_sitting_down(time_bank_seconds: int) -> int:
    """§7: each seated player holds a reserve; a player sitting down starts with a full one."""
    return time_bank_maximum_ms(time_bank_seconds)


def time_bank_starts(reserve_ms: int, running: bool) -> bool:
    """§7: when the action clock runs out, the reserve starts running for that decision (if any is left and
    it is not running already)."""
    return reserve_ms > 0 and not running


def time_bank_deadline(action_deadline_ms: int, reserve_ms: int) -> int:
    """§7: a running reserve lasts from the moment the action clock ran out for as long as it holds."""
    return action_deadline_ms + reserve_ms


def time_bank_spent(action_deadline_ms: int, now_ms: int, reserve_ms: int) -> int:
    """§7: only what is used is spent: the time past the action clock's end, at most the whole reserve
    (nothing when the decision came in time)."""
    return min(max(0, now_ms - action_deadline_ms), max(0, reserve_ms))


def time_bank_after_use(reserve_ms: int, spent_ms: int) -> int:
    """§7: the reserve left after a decision that used ``spent_ms`` of it (never below nothing)."""
    return max(0, reserve_ms - spent_ms)


def time_bank_refill_due(hands_dealt: int, refill_hands: int) -> bool:
    """§7: the reserve grows after every ``refill_hands`` hands the player was dealt (0: never)."""
    return refill_hands > 0 and hands_dealt > 0 and hands_dealt % refill_hands == 0


def time_bank_refill(reserve_ms: int, refill_ms: int, maximum_ms: int) -> int:
    """§7: what a refill adds: ``refill_ms``, up to the reserve's maximum (never taking any away)."""
    return max(0, min(refill_ms, maximum_ms - reserve_ms))
