"""Tables live on this replica: cached state, commands, the dealer, action clocks and watcher fan-out.

The event log is the only truth. Each replica keeps, per table it has touched, the state folded from
the log and follows the stream, so writes made by any replica reach every replica's cache, clocks and
watchers. :class:`TableRuntime` is what the services use; it delegates each job to a part of its own:

``cache``   a TableCache (:mod:`.cache`): tables loaded on first use, followed, each event applied once
``writes``  a TableWrites (:mod:`.writes`): the optimistic write path, turns, request ids, conflicts
``clocks``  a DeadlineClocks (:mod:`.deadlines`): the action clock, the seat offers, interrupted hands
``dealer``  a Dealer (:mod:`.dealer`): the next hand after the pause, suspended players leaving first
``protection``  a ProtectionKeeper (:mod:`.protection`): exclusions, limits and reality checks at the tables
``owned``   an OwnedTables (:mod:`.owned`): leases kept, interest, fences, unloading what is not used
``rake``    a RakeSweeper (:mod:`.rake`): the house's rake swept into its accounts
``tasks``   a TableTasks (:mod:`.tasks`): the background tasks, retried until done
``tournaments``  a TournamentRuntime (:mod:`stud_service.server.tournaments`): the tournaments, sharing
            the store, the ledger and the tasks
``tournament_tables``  a TournamentTables (:mod:`.tournament_tables`): the level clocks of the tournaments
            this replica owns, the tables they open, their tables driven between hands by their dealers

Every event is applied exactly once per replica, in version order, whichever path (own write or followed
stream) brings it first. After each event:

- every watcher's queue gets the event and the state after it (:mod:`.fanout`);
- on the table's owner, the **action clock** and the **seat offers** are armed again from the state
  (:mod:`.deadlines`), and the **dealer** if the table is ready to deal (:mod:`.dealer`): each submits its
  command with the version it was armed at, so of several replicas, or against a player who acted in
  time, only one write wins.

While the database is away, none of this stops for good: the dealer, the action clocks, the followers
and the lease rounds each retry with capped backoff (:mod:`stud_service.backoff`) until it is back, and
stop only when the table has changed under them (a refused append) or the runtime closes.
"""

from __future__ import annotations

from collections.abc import Callable

from stud_service.access import AccessLog
from stud_service.access.writer import writer_id
from stud_service.engine import Command, TableState
from stud_service.ledger.book import Ledger
from stud_service.observability.metrics import Metrics
from stud_service.server.api.request_ids import RequestKey
from stud_service.server.tables.cache import TableCache
from stud_service.server.tables.deadlines import (
    PAST_DEADLINE_GRACE_SECONDS,
    DeadlineClocks,
    tables_past_deadline,
)
from stud_service.server.tables.dealer import Dealer
from stud_service.server.tables.fanout import AppliedEvent, Watcher, end_watches, fan_out
from stud_service.server.tables.live import LiveTable, TableAt
from stud_service.server.tables.owned import OwnedTables
from stud_service.server.tables.ownership import Leases, OwnershipKeeper
from stud_service.server.tables.protection import ProtectionKeeper
from stud_service.server.tables.rake import RakeSweeper
from stud_service.server.tables.settings import RuntimeSettings
from stud_service.server.tables.tasks import TableTasks
from stud_service.server.tables.tournament_tables import TournamentTables
from stud_service.server.tables.writes import Commands, TableWrites
from stud_service.server.tournaments.runtime import TournamentRuntime
from stud_service.sessions import PlayerSessions
from stud_service.store import EventStore
from stud_service.store.standby import StandbyReads
from stud_service.tournaments import TournamentState


class TableRuntime:
    """All tables of one replica. Create one per server; ``close`` stops its tasks."""

    def __init__(
        self, store: EventStore, settings: RuntimeSettings | None = None, metrics: Metrics | None = None,
        sessions: PlayerSessions | None = None, reads: StandbyReads | None = None,
    ) -> None:
        self.store = store
        # History, audits and listings, which a standby may serve (store.standby); the tables never read it.
        self.reads = reads or StandbyReads(store)
        self.ledger = Ledger(store)
        self.access = AccessLog(store)  # privileged calls' records (server.api.access)
        # Players' sessions (server.api.sessions); a replica's writer id is its replica id (ServiceHost).
        self.sessions = sessions or PlayerSessions(store, writer_id())
        settings = settings or RuntimeSettings()
        self._settings = settings
        self.metrics = metrics
        self.tasks = TableTasks(metrics, lease_lost=self._lease_lost)
        self.cache = TableCache(store, self.tasks, metrics, after_event=self._after_event)
        self.owned = OwnedTables(self.cache, self.tasks, settings, arm=self._arm, disarm=self._disarm)
        self.writes = TableWrites(store, self.ledger, self.cache, self.owned, metrics)
        self.clocks = DeadlineClocks(self.tasks, self.writes, metrics)
        self.protection = ProtectionKeeper(
            self.ledger, self.writes, self.cache, self.owned, self.tasks, settings
        )
        self.dealer = Dealer(self.tasks, self.writes, self.protection, self.owned, settings)
        self.rake = RakeSweeper(self.ledger, self.cache, self.tasks, settings)
        self.tournaments = TournamentRuntime(store, self.ledger, self.tasks, self.reads)
        self.tournament_tables = TournamentTables(
            self.tournaments, self.cache, self.writes, self.owned, self.tasks, self.dealer.arm
        )
        self.tournaments.cache.changed = self._tournament_changed
        self.owned.tournament_gained = self.tournament_tables.lease_gained
        self.owned.tournament_lost = self.tournament_tables.lease_lost
        self.dealer.between_tournament_hands = self.tournament_tables.between_hands
        if metrics is not None:
            metrics.tables_past_deadline.set_function(self.tables_past_deadline)

    @property
    def settings(self) -> RuntimeSettings:
        return self._settings

    @settings.setter
    def settings(self, settings: RuntimeSettings) -> None:
        """New settings, from now on: the parts that use them read them as they go."""
        self._settings = settings
        self.owned.settings = self.dealer.settings = self.rake.settings = self.protection.settings = settings

    # -- what follows each event, and a lease taken or lost ----------------------------------------

    def _after_event(self, live: LiveTable, applied: AppliedEvent) -> None:
        fan_out(live.watchers, applied)
        self.protection.note_activity(live, applied.payload)
        if not self.tasks.closed and self.owned.owns(live):
            self._arm(live)

    def _arm(self, live: LiveTable) -> None:
        self.clocks.arm(live)
        self.dealer.arm(live)

    def _disarm(self, live: LiveTable) -> None:
        self.clocks.disarm(live)
        self.dealer.disarm(live)

    def _tournament_changed(self, tournament_id: str, state: TournamentState) -> None:
        if self.settings.auto_deal:  # tests that drive tournaments themselves turn dealing off
            self.tournament_tables.changed(tournament_id, state)

    def _lease_lost(self, stream_id: str) -> None:
        self.owned.drop(stream_id)

    # -- tables ------------------------------------------------------------------------------------

    async def table(self, table_id: str, *, client: bool = True) -> LiveTable:
        """The live table, loaded from the log on first use; NoTable if it was never created. ``client``:
        a client's call that plays or watches it (not the lobby's listing, not a lease taken here)."""
        return await self.cache.table(table_id, client=client)

    def loading_count(self) -> int:
        """Names being looked up for the first time right now; none are kept once their callers are done."""
        return self.cache.loading_count()

    def loaded_tables(self) -> list[LiveTable]:
        return self.cache.loaded_tables()

    async def execute(
        self,
        table_id: str,
        make_command: Callable[[TableState, int], Commands],
        *,
        request_id: RequestKey | None = None,
        turn: int | None = None,
    ) -> TableAt:
        """Decide ``make_command(state, now_ms)`` against the table and append its events
        (:meth:`TableWrites.execute <stud_service.server.tables.writes.TableWrites.execute>`)."""
        return await self.writes.execute(table_id, make_command, request_id=request_id, turn=turn)

    async def create(self, table_id: str, command: Command, request_id: RequestKey | None) -> TableAt:
        """Append a table's first event; TableExists if it has one (unless ``request_id`` created it)."""
        return await self.writes.create(table_id, command, request_id)

    async def table_at(self, live: LiveTable, version: int) -> TableAt:
        """The table as of ``version``: the live one, or folded again from the log."""
        return await self.writes.table_at(live, version)

    # -- ownership ---------------------------------------------------------------------------------

    def keep_ownership(self, leases: Leases) -> OwnershipKeeper:
        """From now on own only the tables whose leases this replica holds (:meth:`OwnedTables.keep
        <stud_service.server.tables.owned.OwnedTables.keep>`)."""
        return self.owned.keep(leases)

    def owns(self, live: LiveTable) -> bool:
        return self.owned.owns(live)

    def unload_unused(self, used_before: float) -> int:
        """Stop following the tables not owned here that nobody here watches or has used since ``used_before``
        (a monotonic time); how many."""
        return self.owned.unload_unused(used_before)

    def tables_past_deadline(self, grace_seconds: float = PAST_DEADLINE_GRACE_SECONDS) -> int:
        """Tables whose action clock runs on this replica and ran out over ``grace_seconds`` ago: a clock
        that cannot fire (``stud_tables_past_deadline``; docs/deployment.md has the alert)."""
        # Read from the metrics thread: a snapshot of the tables.
        return tables_past_deadline(self.cache.loaded_tables(), grace_seconds)

    # -- the house's rake --------------------------------------------------------------------------

    def sweep_rake_periodically(self) -> None:
        """From now on, sweep the rake of this replica's tables into the house's accounts every
        ``rake_sweep_interval`` seconds (0: never)."""
        self.rake.sweep_periodically()

    async def sweep_rake(self) -> int:
        """Move the rake the loaded tables have taken since their last sweep into the house's accounts; the
        amount moved (:meth:`RakeSweeper.sweep <stud_service.server.tables.rake.RakeSweeper.sweep>`)."""
        return await self.rake.sweep()

    # -- watchers ----------------------------------------------------------------------------------

    def add_watcher(self, live: LiveTable) -> Watcher:
        watcher = Watcher()
        live.watchers.add(watcher)
        return watcher

    def remove_watcher(self, live: LiveTable, watcher: Watcher) -> None:
        live.watchers.discard(watcher)

    def watcher_count(self) -> int:
        return sum(len(live.watchers) for live in self.cache.loaded_tables())

    # -- lifecycle ---------------------------------------------------------------------------------

    async def end_watches(self) -> None:
        """Tell every watch stream to finish (graceful shutdown)."""
        for live in self.cache.loaded_tables():
            end_watches(live.watchers)
        self.tournaments.end_watches()

    async def close(self) -> None:
        """Stop clocks, dealers and followers; end watches; end the players' sessions; hand the leases over
        at once (the sessions' ends are written while this replica still counts as alive)."""
        self.tasks.closed = True
        for live in self.cache.loaded_tables():
            self.clocks.disarm(live)
        await self.end_watches()
        await self.sessions.close()
        await self.owned.close()
        await self.tasks.close()
