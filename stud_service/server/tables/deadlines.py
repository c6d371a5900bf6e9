"""The deadlines a table's state keeps: the action clock and the waiting list's seat offers.

Both are armed again after every event the owner applies, from the state:

- the **action clock** (``action_deadline_ms``): when it passes, the replica submits ``Timeout`` with the
  version it armed at, so a player who acted in time turns the timeout into a refused append and nothing
  happens. At a table with a time bank (RULES.md §7) the first ``Timeout`` of a turn starts the player's
  reserve instead (``TimeBankStarted``, recorded from the action clock's end); the state's deadline is then
  the reserve's end, armed again like any other, and the next ``Timeout`` acts for the player. Both are in
  the log, so a replica taking the table over arms the same deadline (``stud_timeouts_fired_total`` counts
  both: a clock ran out each time);
- the **seat offers** of the waiting list (``seat_offer_deadline_ms``): when the first runs out, the
  replica submits ``ExpireSeatOffers`` with the version it armed at, so a player who took the seat in time
  (or another replica passing the offer on first) wins;
- an **interrupted hand** (``hand_void_deadline_ms``, at a table with ``interrupted_hand_void_seconds``,
  RULES.md §12): when the running hand has gone that long without an action or a deal, the replica submits
  ``VoidInterruptedHand`` with the version it armed at. It comes due only when the clock above could not fire
  (this replica stopped, the database was away): then, when the owner can write again, the void is the first
  thing written (an action clock firing late is refused HAND_INTERRUPTED by the engine).

Replicas' clocks differ a little: a command refused as not yet due is tried again shortly after.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Iterable
from dataclasses import dataclass

from stud_service.engine import (
    Command,
    DomainError,
    ExpireSeatOffers,
    OfferNotDue,
    TableState,
    Timeout,
    TimeoutNotDue,
    VoidInterruptedHand,
    VoidNotDue,
    action_deadline_ms,
    hand_void_deadline_ms,
    seat_offer_deadline_ms,
)
from stud_service.observability.metrics import Metrics
from stud_service.server.tables.live import DeadlineTimer, LiveTable, now_ms
from stud_service.server.tables.tasks import TableTasks
from stud_service.server.tables.writes import TableWrites

# Replicas' clocks differ a little: a Timeout refused as not yet due is tried again this much later.
TIMEOUT_RETRY_SECONDS = 0.05
# An action clock this long past its deadline has not fired: the table waits on this replica.
PAST_DEADLINE_GRACE_SECONDS = 10.0


@dataclass(frozen=True)
class Deadline:
    """One kind of deadline: where to find it in the state, the command it fires and the refusal that
    says it is not due yet (clocks of replicas differ a little: that one is tried again soon)."""

    name: str
    due_ms: Callable[[TableState], int | None]
    command: Callable[[int], Command]
    not_due: type[DomainError]
    timer: Callable[[LiveTable], DeadlineTimer]


ACTION_CLOCK = Deadline(
    "action clock", action_deadline_ms, lambda now: Timeout(now_ms=now), TimeoutNotDue,
    lambda live: live.clock,
)
SEAT_OFFERS = Deadline(
    "seat offers", seat_offer_deadline_ms, lambda now: ExpireSeatOffers(now_ms=now), OfferNotDue,
    lambda live: live.seat_offers,
)
INTERRUPTED_HAND = Deadline(
    "interrupted hand", hand_void_deadline_ms, lambda now: VoidInterruptedHand(now_ms=now), VoidNotDue,
    lambda live: live.interrupted,
)
DEADLINES = (ACTION_CLOCK, SEAT_OFFERS, INTERRUPTED_HAND)


class DeadlineClocks:
    """Arms each table's deadlines and fires their commands through ``writes``, as the table's owner."""

    def __init__(self, tasks: TableTasks, writes: TableWrites, metrics: Metrics | None) -> None:
        self.tasks = tasks
        self.writes = writes
        self.metrics = metrics

    def arm(self, live: LiveTable) -> None:
        """Arm (or keep) every deadline of ``live`` as its state now has them."""
        for deadline in DEADLINES:
            self._arm(live, deadline)

    @staticmethod
    def disarm(live: LiveTable) -> None:
        for deadline in DEADLINES:
            deadline.timer(live).disarm()

    def _arm(self, live: LiveTable, deadline: Deadline) -> None:
        timer = deadline.timer(live)
        due = deadline.due_ms(live.state)
        key = None if due is None else (live.version, due)
        if key == timer.key:
            return
        timer.disarm()
        timer.key = key
        if key is not None:
            delay = max(0.0, (key[1] - now_ms()) / 1000)
            timer.timer = asyncio.get_running_loop().call_later(delay, self._due, live, deadline, *key)

    def _due(self, live: LiveTable, deadline: Deadline, version: int, due: int) -> None:
        timer = deadline.timer(live)
        timer.timer = None
        if not self.tasks.closed:
            timer.task = self.tasks.spawn(self._run(live, deadline, version, due))

    async def _run(self, live: LiveTable, deadline: Deadline, version: int, due: int) -> None:
        with live.log_scope():
            await self._fire_until_done(live, deadline, version, due)

    async def _fire_until_done(self, live: LiveTable, deadline: Deadline, version: int, due: int) -> None:
        async def fire() -> None:
            while True:
                await asyncio.sleep(max(0.0, (due - now_ms()) / 1000))
                try:
                    await self.writes.write(live, lambda state, now: deadline.command(now), None, version)
                except deadline.not_due:
                    await asyncio.sleep(TIMEOUT_RETRY_SECONDS)
                    continue
                if self.metrics is not None and deadline is ACTION_CLOCK:
                    self.metrics.timeout_fired()
                return

        await self.tasks.until_done(live, deadline.name, fire)


def tables_past_deadline(
    tables: Iterable[LiveTable], grace_seconds: float = PAST_DEADLINE_GRACE_SECONDS
) -> int:
    """Of ``tables``, those whose action clock runs on this replica and ran out over ``grace_seconds`` ago:
    a clock that cannot fire (``stud_tables_past_deadline``; docs/deployment.md has the alert)."""
    limit = now_ms() - int(grace_seconds * 1000)
    count = 0
    for live in tables:
        clock = live.clock
        if clock.key is None and clock.task is None:
            continue
        deadline = action_deadline_ms(live.state)
        if deadline is not None and deadline < limit:
            count += 1
    return count
