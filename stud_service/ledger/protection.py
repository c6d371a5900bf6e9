"""Player protection's rules: limits, their windows and cooling-off, exclusions, sessions, reality checks.

Pure functions over plain data (no I/O, no clock: every function takes ``now_ms``). The state is folded from
the player's ``players/{player}`` stream (:mod:`stud_service.ledger.players`); the money figures come from
the moves an account keeps (:class:`Move`, folded in :mod:`stud_service.ledger.accounts`).
docs/player-protection.md maps each rule to the clause it serves.

Windows are rolling (RTS 12B): a limit "per day" counts what happened in the last 24 hours before ``now``
(``now - period < at_ms <= now``), per week the last 7 × 24 hours, per month the last 30 × 24 hours.

Limits: a player's own limit takes effect at once when it is lower (stricter) than the one in force, and
after ``cooling_off_ms`` when it is higher or removed (a raise waits; a lower one set meanwhile cancels it).
An operator's floor takes effect at once; the stricter of the two is the limit in force. 0 means "none".
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field, replace
from typing import Any

HOUR_MS = 3_600_000
DAY_MS = 24 * HOUR_MS
PERIOD_MS = {"day": DAY_MS, "week": 7 * DAY_MS, "month": 30 * DAY_MS}
LONGEST_PERIOD_MS = max(PERIOD_MS.values())
MONEY_LIMITS = ("deposit", "loss")
SESSION_LIMIT = "session"  # seconds of play per session; no currency, no period
DEFAULT_COOLING_OFF_MS = DAY_MS

# Self-exclusion: 24 hours to 5 years, or for ever; a time-out: 24 hours to 6 weeks.
EXCLUSION_MIN_MS = DAY_MS
EXCLUSION_MAX_MS = 5 * 365 * DAY_MS + DAY_MS  # five years, a leap day included
TIME_OUT_MIN_MS = DAY_MS
TIME_OUT_MAX_MS = 42 * DAY_MS
# A play session goes on across tables; it ends once the player has sat at no table for this long.
SESSION_GAP_MS = 15 * 60_000
REALITY_CHECK_MIN_S = 5 * 60
REALITY_CHECK_MAX_S = 24 * 3600
MAX_SESSION_LIMIT_S = 24 * 3600

Event = dict[str, Any]


@dataclass(frozen=True, slots=True)
class LimitKey:
    """What a limit is on: ``kind`` "deposit" / "loss" (``currency`` and ``period`` set) or "session"."""

    kind: str
    currency: str = ""
    period: str = ""


@dataclass(frozen=True, slots=True)
class Limit:
    """One limit's state: the player's own (``own``; a change waiting for its cooling-off in ``pending``,
    effective at ``pending_at_ms``) and the operator's ``floor``. Amounts in the currency's smallest unit,
    or seconds for a session limit; 0: none."""

    own: int = 0
    pending: int | None = None
    pending_at_ms: int = 0
    floor: int = 0

    def own_at(self, now_ms: int) -> int:
        """The player's own limit in force at ``now_ms`` (a pending change counts once its time has come)."""
        if self.pending is not None and now_ms >= self.pending_at_ms:
            return self.pending
        return self.own

    def in_force(self, now_ms: int) -> int:
        """The limit in force: the stricter of the player's own and the operator's floor (0: none)."""
        return stricter(self.own_at(now_ms), self.floor)

    def settled(self, now_ms: int) -> Limit:
        """The same limit with a pending change whose time has come made the player's own."""
        if self.pending is not None and now_ms >= self.pending_at_ms:
            return replace(self, own=self.pending, pending=None, pending_at_ms=0)
        return self


def stricter(a: int, b: int) -> int:
    """The stricter of two limits where 0 means none."""
    if a == 0 or b == 0:
        return a or b
    return min(a, b)


def is_lower(new: int, current: int) -> bool:
    """Whether ``new`` is at least as strict as ``current`` (0: none): such a change needs no cooling-off."""
    return new != 0 and (current == 0 or new <= current)


def own_limit_event(
    key: LimitKey, limit: Limit, amount: int, by: str, now_ms: int, cooling_off_ms: int
) -> Event:
    """The player sets their own limit to ``amount`` (0: removes it): at once when it is stricter than the
    own limit in force, else after the cooling-off."""
    current = limit.own_at(now_ms)
    effective = now_ms if is_lower(amount, current) else now_ms + cooling_off_ms
    return {"type": "LimitSet", "v": 1, **_key_fields(key), "amount": amount,
            "effective_at_ms": effective, "by": by, "at_ms": now_ms}


def floor_event(key: LimitKey, amount: int, by: str, now_ms: int) -> Event:
    """The operator's floor for the player (0: removes it): in force at once."""
    return {"type": "LimitFloorSet", "v": 1, **_key_fields(key), "amount": amount, "by": by, "at_ms": now_ms}


def _key_fields(key: LimitKey) -> dict[str, str]:
    return {"kind": key.kind, "currency": key.currency, "period": key.period}


def key_of(event: Mapping[str, Any]) -> LimitKey:
    return LimitKey(event["kind"], event.get("currency", ""), event.get("period", ""))


def apply_limit_event(limit: Limit, event: Mapping[str, Any]) -> Limit:
    """A limit after one of its events (LimitSet or LimitFloorSet), as recorded at ``event["at_ms"]``."""
    at = event["at_ms"]
    limit = limit.settled(at)
    if event["type"] == "LimitFloorSet":
        return replace(limit, floor=event["amount"])
    effective = event["effective_at_ms"]
    if effective <= at:
        return replace(limit, own=event["amount"], pending=None, pending_at_ms=0)
    return replace(limit, pending=event["amount"], pending_at_ms=effective)


# -- money in windows ------------------------------------------------------------------------------

@dataclass(frozen=True, slots=True)
class Move:
    """Money that moved, as a limit counts it: ``kind`` "deposit", "in" (a buy-in, a top-up, an entry) or
    "back" (a cash-out, a prize), ``amount`` > 0, at ``at_ms``."""

    at_ms: int
    kind: str
    amount: int


def recent(moves: Iterable[Move], latest_ms: int) -> tuple[Move, ...]:
    """The moves any window ending at or after ``latest_ms`` may still count (the longest period's)."""
    return tuple(move for move in moves if move.at_ms > latest_ms - LONGEST_PERIOD_MS)


def in_window(moves: Iterable[Move], period: str, now_ms: int) -> list[Move]:
    start = now_ms - PERIOD_MS[period]
    return [move for move in moves if start < move.at_ms <= now_ms]


def deposited(moves: Iterable[Move], period: str, now_ms: int) -> int:
    """What was deposited in the window."""
    return sum(move.amount for move in in_window(moves, period, now_ms) if move.kind == "deposit")


def net_result(moves: Iterable[Move], since_ms: int, now_ms: int) -> int:
    """Money back from tables and tournaments minus money into them, moved in ``(since_ms, now_ms]``: the
    player's net result (negative: a loss). Chips still at a table count as spent until they come back."""
    total = 0
    for move in moves:
        if since_ms < move.at_ms <= now_ms:
            if move.kind == "back":
                total += move.amount
            elif move.kind == "in":
                total -= move.amount
    return total


def lost(moves: Iterable[Move], period: str, now_ms: int) -> int:
    """The loss in the window (0 when the player is ahead)."""
    return max(0, -net_result(moves, now_ms - PERIOD_MS[period], now_ms))


@dataclass(frozen=True, slots=True)
class Room:
    """What is left under the tightest limit of one kind: ``remaining`` (may be negative), under ``period``'s
    limit ``limit``."""

    remaining: int
    period: str
    limit: int


def room(
    limits: Mapping[LimitKey, Limit], kind: str, currency: str, moves: Iterable[Move], now_ms: int,
    back: int = 0,
) -> Room | None:
    """What is left of the ``kind`` ("deposit" or "loss") limits in ``currency`` at ``now_ms``: the
    tightest period's, or None when none is in force. ``back``: chips the player could still take back from
    the table in question (counted off the loss)."""
    moves = tuple(moves)
    tightest: Room | None = None
    for period in PERIOD_MS:
        limit = limits.get(LimitKey(kind, currency, period))
        amount = limit.in_force(now_ms) if limit is not None else 0
        if amount == 0:
            continue
        used = deposited(moves, period, now_ms) if kind == "deposit" else lost(moves, period, now_ms)
        if kind == "loss":
            used = max(0, used - back)
        left = amount - used
        if tightest is None or left < tightest.remaining:
            tightest = Room(left, period, amount)
    return tightest


# -- exclusions ------------------------------------------------------------------------------------

@dataclass(frozen=True, slots=True)
class Exclusion:
    """A self-exclusion ("exclusion": in force until an operator ends it once ``until_ms`` has passed; never
    for ever, ``until_ms`` None) or a time-out ("time_out": over at ``until_ms`` by itself)."""

    kind: str
    since_ms: int
    until_ms: int | None
    ended_ms: int | None = None

    def in_force(self, now_ms: int) -> bool:
        if self.ended_ms is not None:
            return False
        if self.kind == "time_out":
            return self.until_ms is not None and now_ms < self.until_ms
        return True

    def period_over(self, now_ms: int) -> bool:
        return self.until_ms is not None and now_ms >= self.until_ms


def exclusion_bounds(kind: str) -> tuple[int, int]:
    return (TIME_OUT_MIN_MS, TIME_OUT_MAX_MS) if kind == "time_out" else (EXCLUSION_MIN_MS, EXCLUSION_MAX_MS)


def exclusion_event(kind: str, duration_ms: int | None, by: str, now_ms: int) -> Event:
    """The player excludes themselves (``kind`` "exclusion"; ``duration_ms`` None: for ever) or takes a
    time-out (``kind`` "time_out"). The caller checked the duration against :func:`exclusion_bounds`."""
    until = None if duration_ms is None else now_ms + duration_ms
    return {"type": "SelfExcluded" if kind == "exclusion" else "TimeOutTaken", "v": 1,
            "until_ms": until, "by": by, "at_ms": now_ms}


def ends_no_earlier(new_until: int | None, current: Exclusion | None, now_ms: int) -> bool:
    """A new exclusion may only lengthen the one in force, never shorten it."""
    if current is None or not current.in_force(now_ms):
        return True
    if current.until_ms is None:
        return new_until is None and current.kind == "exclusion"
    return new_until is None or new_until >= current.until_ms


# -- play sessions and reality checks -------------------------------------------------------------

@dataclass
class Session:
    """The player's play session, folded from TableJoined / TableLeft: ``tables`` sat at now; the session
    began at ``started_ms`` and, once no table is left, ends ``SESSION_GAP_MS`` after ``left_ms``."""

    tables: set[str] = field(default_factory=set)
    started_ms: int | None = None
    left_ms: int | None = None

    def copy(self) -> Session:
        return Session(set(self.tables), self.started_ms, self.left_ms)

    def open_at(self, now_ms: int) -> bool:
        if self.started_ms is None:
            return False
        return bool(self.tables) or (self.left_ms is not None and now_ms - self.left_ms <= SESSION_GAP_MS)

    def elapsed_ms(self, now_ms: int) -> int:
        """How long the session in progress has lasted (0 when none is)."""
        return now_ms - self.started_ms if self.started_ms is not None and self.open_at(now_ms) else 0

    def join(self, table: str, at_ms: int) -> None:
        if not self.tables and not self.open_at(at_ms):
            self.started_ms = at_ms
        self.tables.add(table)
        self.left_ms = None

    def leave(self, table: str, at_ms: int) -> None:
        self.tables.discard(table)
        if not self.tables:
            self.left_ms = at_ms


def session_left_ms(limit_s: int, session: Session, now_ms: int) -> int | None:
    """What is left of a session limit (``limit_s`` seconds; 0: none) at ``now_ms``; None: no limit."""
    if limit_s <= 0:
        return None
    return limit_s * 1000 - session.elapsed_ms(now_ms)


def reality_check_due(interval_s: int, session: Session, last_check_ms: int | None, now_ms: int) -> bool:
    """Whether a reality check is due: every ``interval_s`` of the session in progress (0: off)."""
    if interval_s <= 0 or session.started_ms is None or not session.open_at(now_ms):
        return False
    since = session.started_ms
    if last_check_ms is not None and last_check_ms > since:
        since = last_check_ms
    return now_ms - since >= interval_s * 1000
