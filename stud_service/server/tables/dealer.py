"""The dealer: the next hand, a pause after the table became ready, dealt by its owner alone.

The dealer starts the next hand ``next_hand_pause`` seconds after the table became ready
(``can_start_hand``), with an expected version: of several replicas only one deals. The pause counts from
when the event that left the table ready was recorded, not from when a dealer was armed: a dealer armed
again later (the lease taken again after a database outage, a table taken over from another replica)
deals at once if the pause has already run out. Before it deals, players an operator suspended or who
excluded themselves leave, and players at a limit sit out (:mod:`.protection`); a table being handed over is
released instead (its hand is over; the replica taking it deals next).

A tournament's table (its config names the tournament) is armed whenever no hand runs, ready or not: between
its hands it reports the hand that ended, takes the players the tournament seats there, lets go of those
it moved away, and deals when the tournament lets it, at the tournament's level (:mod:`.tournament_tables`).
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Awaitable, Callable

from stud_service.engine import can_start_hand
from stud_service.server.tables.live import LiveTable
from stud_service.server.tables.owned import OwnedTables
from stud_service.server.tables.protection import ProtectionKeeper
from stud_service.server.tables.seeds import commit_next_hand, deal_commands
from stud_service.server.tables.settings import RuntimeSettings
from stud_service.server.tables.tasks import TableTasks
from stud_service.server.tables.writes import TableWrites


class Dealer:
    """Deals the tables this replica owns; none with ``settings.auto_deal`` off (tests that start hands)."""

    def __init__(
        self,
        tasks: TableTasks,
        writes: TableWrites,
        protection: ProtectionKeeper,
        owned: OwnedTables,
        settings: RuntimeSettings,
    ) -> None:
        self.tasks = tasks
        self.writes = writes
        self.protection = protection
        self.owned = owned
        self.settings = settings
        # A tournament's table between hands (TournamentTables.between_hands: whether it started a hand), set
        # by the runtime.
        self.between_tournament_hands: Callable[[LiveTable], Awaitable[bool]] | None = None

    def arm(self, live: LiveTable) -> None:
        """Deal the table's next hand after the pause if it is ready (one armed at this version stays)."""
        if not self.settings.auto_deal or not (can_start_hand(live.state) or _between_tournament_hands(live)):
            return
        if live.dealer is not None and not live.dealer.done() and (
            live.dealer_version == live.version or _between_tournament_hands(live)
        ):
            # A tournament's table: the one at work looks at the table and its orders again before it stops.
            live.look_again = True
            return
        if live.dealer is not None:
            live.dealer.cancel()
        live.dealer_version = live.version
        live.dealer = self.tasks.spawn(self._deal_after_pause(live, live.version))

    @staticmethod
    def disarm(live: LiveTable) -> None:
        if live.dealer is not None:
            if live.dealer is not asyncio.current_task():  # the dealer handing the table over goes on
                live.dealer.cancel()
            live.dealer = None

    async def _deal_after_pause(self, live: LiveTable, version: int) -> None:
        await asyncio.sleep(max(0.0, live.last_event_at + self.settings.next_hand_pause - time.time()))
        if await self.owned.hand_over_instead_of_dealing(live.stream_id):
            return  # between hands: the replica taking it over deals the next one
        with live.log_scope():
            await self._deal(live, version)

    async def _deal(self, live: LiveTable, version: int) -> None:
        between = self.between_tournament_hands
        if between is not None and _between_tournament_hands(live):
            started: list[bool] = []

            async def steps() -> None:
                started.append(await between(live))

            await self.tasks.until_done(live, "dealing", steps)
            if any(started) and _between_tournament_hands(live) and live.dealer is asyncio.current_task():
                # The hand it started is over already (its players all absent): the next one after the
                # pause, as at any table, not at once.
                live.dealer = None
                self.arm(live)
            return

        async def deal() -> None:
            if await self.protection.before_deal(live, version):
                return  # their leaving or sitting out re-arms the dealer
            committed = live.next_seed
            if committed is None or committed.hand != live.state.hand_number + 1:
                # A table from before seeds were committed ahead: commit now, deal after the next pause
                # (client seeds sent before the commitment do not count: they are cleared).
                await self.writes.write(live, lambda state, now: commit_next_hand(now), None, version)
                return
            await self.writes.write(live, lambda state, now: deal_commands(live, state, now), None, version)

        await self.tasks.until_done(live, "dealing", deal)


def _between_tournament_hands(live: LiveTable) -> bool:
    config = live.state.config
    return config is not None and bool(config.tournament_id) and live.state.hand is None
