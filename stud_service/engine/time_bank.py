"""The time bank at a table (RULES.md §7): the events ``decide`` adds for it, and how ``evolve`` applies them.

- A hand's start records each dealt-in seat's reserve and hands dealt (``TimeBanksAtStart``), so the hand
  replays alone; the hand counts as dealt from then on.
- When the action clock of the player to act has run out, ``Timeout`` starts their reserve
  (``TimeBankStarted``, running from the action clock's end) instead of acting for them; when the reserve
  has run out too, ``Timeout`` acts for them as §7 says.
- A decision taken after the action clock's end spends what it used of the reserve (``TimeBankUsed``,
  right after the PlayerActed), whether or not the owner had recorded the reserve's start yet.
- The last command of a hand refills the reserves that are due (``TimeBankRefilled``, before HandEnded).

Every event carries the reserve it leaves, so a state folded from any point of the log (a hand replayed
alone, a replica taking a table over) has the reserves the table had; the deadline of a running reserve is
the action clock's end plus the reserve, both in the state, so a new owner arms the same clock.
"""

from __future__ import annotations

from typing import Any

from stud_service.engine.events import TimeBankRefilled, TimeBanksAtStart, TimeBankStarted, TimeBankUsed
from stud_service.engine.rules.time_bank import (
    time_bank_after_use,
    time_bank_deadline,
    time_bank_maximum_ms,
    time_bank_refill,
    time_bank_refill_due,
    time_bank_spent,
    time_bank_starts,
)
from stud_service.engine.state import (
    HandState,
    TableState,
    time_bank_hands_dealt,
    time_bank_reserve_ms,
    time_bank_running,
)


def has_time_bank(state: TableState) -> bool:
    config = state.config
    return config is not None and config.time_bank_seconds > 0


def action_clock_end_ms(state: TableState, hand: HandState) -> int:
    """When the action clock of the player to act runs out (their reserve, if any, starts then)."""
    assert state.config is not None
    return hand.turn_ms + state.config.action_clock_seconds * 1000


# --- decide ------------------------------------------------------------------------------------------

def banks_at_start(state: TableState, hand: int, seats: list[int]) -> TimeBanksAtStart:
    """The dealt-in seats' reserves and hands dealt as the hand starts."""
    return TimeBanksAtStart(hand, tuple(
        (seat, time_bank_reserve_ms(state, seat), time_bank_hands_dealt(state, seat)) for seat in seats))


def bank_start(state: TableState, hand: HandState, seat: int, now_ms: int) -> TimeBankStarted | None:
    """§7: the action clock has run out: the seat's reserve starts running, if it has one not running."""
    reserve = time_bank_reserve_ms(state, seat)
    if not time_bank_starts(reserve, time_bank_running(state)):
        return None
    end = action_clock_end_ms(state, hand)
    return TimeBankStarted(hand.number, seat, reserve, time_bank_deadline(end, reserve), now_ms)


def bank_used(state: TableState, hand: HandState, seat: int, now_ms: int) -> TimeBankUsed | None:
    """§7: what a decision at ``now_ms`` spent of the seat's reserve (None: nothing); ``state`` is the table
    before the decision's PlayerActed."""
    reserve = time_bank_reserve_ms(state, seat)
    used = time_bank_spent(action_clock_end_ms(state, hand), now_ms, reserve)
    if used <= 0:
        return None
    return TimeBankUsed(hand.number, seat, used, time_bank_after_use(reserve, used), now_ms)


def bank_refills(state: TableState, hand: HandState) -> list[TimeBankRefilled]:
    """§7: the refills due as the hand ends (its seats were dealt it: ``TimeBanksAtStart`` counted it)."""
    config = state.config
    assert config is not None
    refills = []
    for seat in hand.order:
        if not time_bank_refill_due(time_bank_hands_dealt(state, seat), config.time_bank_refill_hands):
            continue
        reserve = time_bank_reserve_ms(state, seat)
        added = time_bank_refill(reserve, config.time_bank_refill_seconds * 1000,
                                 time_bank_maximum_ms(config.time_bank_seconds))
        if added:
            refills.append(TimeBankRefilled(hand.number, seat, added, reserve + added))
    return refills


def banks_before_hand(event: Any) -> dict[int, tuple[int, int]]:
    """The reserves a hand's ``TimeBanksAtStart`` says its seats held before it: what a state built for
    replaying that hand alone (``audit.replay_check``) needs to decide it again."""
    if not isinstance(event, TimeBanksAtStart):
        return {}
    return {seat: (reserve, hands) for seat, reserve, hands in event.banks}


# --- evolve (``evolve`` checks first that the event is the running hand's) ------------------------------

def _set_bank(state: TableState, seat: int, reserve_ms: int, hands: int | None = None) -> None:
    banks = dict(state.banks)  # replaced, never changed: copies of the state share it
    banks[seat] = (reserve_ms, time_bank_hands_dealt(state, seat) if hands is None else hands)
    state.banks = banks


def apply_banks_at_start(state: TableState, e: TimeBanksAtStart) -> None:
    banks = dict(state.banks)
    for seat, reserve, hands in e.banks:
        banks[seat] = (reserve, hands + 1)  # this hand is dealt to them
    state.banks = banks


def apply_bank_started(state: TableState, e: TimeBankStarted) -> None:
    state.bank_turn = state.turns
    _set_bank(state, e.seat, e.reserve_ms)


def apply_bank_used(state: TableState, e: TimeBankUsed) -> None:
    state.bank_turn = 0
    _set_bank(state, e.seat, e.reserve_ms)


def apply_bank_refilled(state: TableState, e: TimeBankRefilled) -> None:
    _set_bank(state, e.seat, e.reserve_ms)


def forget_bank(state: TableState, seat: int) -> None:
    """The seat's player left: whoever sits there next starts with a full reserve."""
    if seat in state.banks:
        state.banks = {other: bank for other, bank in state.banks.items() if other != seat}


TIME_BANK_APPLY: dict[type, Any] = {
    TimeBanksAtStart: apply_banks_at_start,
    TimeBankStarted: apply_bank_started,
    TimeBankUsed: apply_bank_used,
    TimeBankRefilled: apply_bank_refilled,
}
