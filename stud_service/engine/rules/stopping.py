"""RULES.md §12, Stopping a game: pausing, closing, voiding a hand, and voiding an interrupted hand.

Each rule is a short function named for what it decides; the decider (``engine.decide``) applies them.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Final

from stud_service.engine.config import plain_text
from stud_service.engine.control import CLOSED, OPEN

# The longest reason an operator's command (or the service's automatic void) records: a sentence or two.
MAX_REASON_CHARS: Final = 500
# The longest operator id a command records: a token's ``sub`` is at most 64 characters.
MAX_OPERATOR_CHARS: Final = 64


def may_deal(status: str) -> bool:
    """§12: a paused table deals no new hand, nor does a closed one; resuming deals again."""
    return status == OPEN


def may_take_players(status: str) -> bool:
    """§12: a closed table takes no one: no sitting down, no waiting list, no top-up."""
    return status != CLOSED


def leaves_after_hand(table_closed: bool, asked_to_leave: bool) -> bool:
    """§12: closing a table is pausing it, then every player leaves and is paid out: at once when no hand
    runs, else each seat when the running hand (which plays on to its end) is over; as a player who asked
    to leave during the hand does (§7)."""
    return table_closed or asked_to_leave


def void_returns(committed: Mapping[int, int]) -> tuple[tuple[int, int], ...]:
    """§12: a voided hand pays nothing: every chip each player put into it (antes, bring-in, bets, less any
    uncalled bet already returned) goes back to that player. ``committed``: seat -> chips in the hand;
    the result: ``((seat, chips), ...)`` by seat, the seats that put something in."""
    return tuple((seat, chips) for seat, chips in sorted(committed.items()) if chips > 0)


def interrupted_hand_deadline_ms(last_activity_ms: int, void_seconds: int) -> int | None:
    """§12: when a hand in which no action or deal has happened since ``last_activity_ms`` is voided, at a
    table set to (``interrupted_hand_void_seconds`` > 0); None at a table that is not (the default)."""
    if void_seconds <= 0:
        return None
    return last_activity_ms + void_seconds * 1000


def hand_interrupted(last_activity_ms: int, void_seconds: int, now_ms: int) -> bool:
    """§12: the hand has stood still longer than the table allows: it is to be voided, not played on."""
    deadline = interrupted_hand_deadline_ms(last_activity_ms, void_seconds)
    return deadline is not None and now_ms >= deadline


def valid_reason(reason: object) -> bool:
    """§12: every command is recorded with why, in free text: 1..MAX_REASON_CHARS characters, not only
    spaces, no control characters (the log cannot store a NUL)."""
    return (isinstance(reason, str) and 0 < len(reason) <= MAX_REASON_CHARS and bool(reason.strip())
            and plain_text(reason))


def valid_operator(operator: object) -> bool:
    """§12: and who: the operator's id, 1..MAX_OPERATOR_CHARS characters without control characters."""
    return (isinstance(operator, str) and 0 < len(operator) <= MAX_OPERATOR_CHARS and bool(operator.strip())
            and plain_text(operator))
