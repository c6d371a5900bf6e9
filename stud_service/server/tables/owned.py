"""Which loaded tables this replica owns, how much its clients use each, and which it may unload.

Clocks, seat offers and the dealer run only on the table's **owner**
(:mod:`stud_service.server.tables.ownership`): with :meth:`OwnedTables.keep` a replica loads and arms the
tables whose leases it takes, and its own commands (the deals, timeouts, expired offers, suspended
players' leaving) are fenced by the lease's epoch in the append's transaction: a replica that lost a lease
(paused past its expiry) writes none of them and drops the table's work. Any other table is loaded on
first use by this replica's clients, and followed for their watchers and reads; their commands are written
here, serialised by the expected version. How much its clients use each table (watch streams, recent
calls) is the replica's interest: the tables they clearly use most come to be owned here
(:meth:`OwnedTables.interest`; a table handed over is released before its next deal). A table neither
owned nor used here is unloaded a while after its last use. Without ``keep`` (a single replica, tests) the
replica owns every table it loads.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections.abc import Awaitable, Callable

from stud_service.server.tables.cache import TableCache
from stud_service.server.tables.live import LiveTable, TableMoved, table_id_of
from stud_service.server.tables.ownership import TOURNAMENT_STREAMS, Leases, OwnershipEvents, OwnershipKeeper
from stud_service.server.tables.settings import RuntimeSettings
from stud_service.server.tables.tasks import TableTasks
from stud_service.store import Fence

_log = logging.getLogger(__name__)


class OwnedTables:
    """The ownership side of one replica's tables. ``arm(live)`` starts a table's clocks and dealer (a lease
    taken), ``disarm(live)`` stops them (a lease given up or lost)."""

    def __init__(
        self,
        cache: TableCache,
        tasks: TableTasks,
        settings: RuntimeSettings,
        arm: Callable[[LiveTable], None],
        disarm: Callable[[LiveTable], None],
    ) -> None:
        self.cache = cache
        self.tasks = tasks
        self.settings = settings
        self.arm = arm
        self.disarm = disarm
        self.keeper: OwnershipKeeper | None = None  # None: this replica owns every table it loads
        # A tournament's lease (its level clock) gained or lost: told to the tournaments' tables.
        self.tournament_gained: Callable[[str], Awaitable[bool]] | None = None
        self.tournament_lost: Callable[[str], None] | None = None
        self._keeping: asyncio.Task[None] | None = None

    def keep(self, leases: Leases) -> OwnershipKeeper:
        """From now on own only the tables whose leases this replica holds: take and renew them in rounds,
        load what it takes, arm clocks and dealers for those only."""
        events = OwnershipEvents(self._lease_gained, self._lease_lost, self._between_hands, self.interest)
        keeper = OwnershipKeeper(leases, events)
        self.keeper = keeper
        self._keeping = self.tasks.spawn(keeper.run())
        self.tasks.spawn(self._unload_unused_forever())
        return keeper

    def owns(self, live: LiveTable) -> bool:
        return self.owns_stream(live.stream_id)

    def owns_stream(self, stream_id: str) -> bool:
        """Whether this replica holds the lease of a table's or a tournament's stream."""
        return self.keeper is None or self.keeper.epoch(stream_id) is not None

    def fence(self, live: LiveTable) -> Fence | None:
        """The fence of this replica's own commands at ``live``; TableMoved if it does not own the table."""
        return self.fence_of(live.stream_id)

    def fence_of(self, stream_id: str) -> Fence | None:
        """The fence of the lease of ``stream_id`` (a table's or a tournament's); TableMoved if not held."""
        keeper = self.keeper
        if keeper is None:
            return None
        epoch = keeper.epoch(stream_id)
        if epoch is None:
            raise TableMoved(f"{stream_id} is not owned here")
        return Fence(stream_id, keeper.leases.me, epoch)

    def drop(self, stream_id: str) -> None:
        """A lease found lost by a refused append: forget it (its table's work stops)."""
        if self.keeper is not None:
            self.keeper.drop(stream_id)

    async def take_now(self) -> None:
        """Take what is free and this replica's now (a table was just created here), not at the next round."""
        if self.keeper is not None:
            await self.keeper.take_now()

    async def hand_over_instead_of_dealing(self, stream_id: str) -> bool:
        """Before a deal: whether the table is released to the replica taking it over (which deals next)."""
        return self.keeper is not None and await self.keeper.hand_over_instead_of_dealing(stream_id)

    # -- what the keeper tells the tables and asks them ----------------------------------------

    async def _lease_gained(self, stream_id: str, epoch: int) -> bool:
        """Start the work of a table (or tournament) whose lease was taken: False if it could not load."""
        if stream_id.startswith(TOURNAMENT_STREAMS):
            _log.info("lease taken", extra={"tournament": stream_id, "epoch": epoch})
            return self.tournament_gained is None or await self.tournament_gained(stream_id)
        try:
            live = await self.cache.table(table_id_of(stream_id), client=False)
            await self.cache.catch_up(live)  # what the last owner wrote: the clocks are armed from it
        except Exception:
            # Not loadable now (the store away, a broken stream): the keeper gives the lease back.
            _log.warning("could not load %s after taking its lease", stream_id, exc_info=True)
            return False
        with live.log_scope():
            _log.info("lease taken", extra={"table": live.table_id, "epoch": epoch})
            self.arm(live)
        return True

    def _lease_lost(self, stream_id: str) -> None:
        if stream_id.startswith(TOURNAMENT_STREAMS):
            if self.tournament_lost is not None:
                self.tournament_lost(stream_id)
            return
        live = self.cache.get(table_id_of(stream_id))
        if live is None:
            return
        self.disarm(live)
        _log.info("lease given up or lost", extra={"table": live.table_id})
        if self.keeper is not None:  # no client of ours uses it: following it would be for nobody
            self._unload_if_unused(live, time.monotonic() - self.settings.unload_unused_after)

    def _between_hands(self, streams: list[str]) -> list[str]:
        """Of these owned tables, those that may change owner now: no hand running, no write under way;
        those nobody here watches first."""
        idle = []
        for stream_id in streams:
            if stream_id.startswith(TOURNAMENT_STREAMS):  # its clock goes on at the next owner, from the log
                idle.append((False, stream_id))
                continue
            live = self.cache.get(table_id_of(stream_id))
            if live is None or (live.state.hand is None and not live.write_lock.locked()):
                idle.append((live is not None and bool(live.watchers), stream_id))
        return [stream_id for _watched, stream_id in sorted(idle)]

    def interest(self) -> dict[str, int]:
        """How much this replica's clients use each table (what it claims, server.tables.ownership): its
        watch streams, plus one if a client called it within the last lease period."""
        assert self.keeper is not None
        recently = time.monotonic() - self.keeper.lease_seconds
        interest = {}
        for live in self.cache.loaded_tables():
            clients = len(live.watchers) + (live.used_at >= recently)
            if clients:
                interest[live.stream_id] = clients
        return interest

    # -- unloading -----------------------------------------------------------------------------

    async def _unload_unused_forever(self) -> None:
        after = self.settings.unload_unused_after
        while True:
            await asyncio.sleep(max(after / 4, 0.05))
            self.unload_unused(time.monotonic() - after)

    def unload_unused(self, used_before: float) -> int:
        """Stop following the tables not owned here that nobody here watches or has used since ``used_before``
        (a monotonic time); how many. A later call loads them again from the log."""
        return sum(self._unload_if_unused(live, used_before) for live in self.cache.loaded_tables())

    def _unload_if_unused(self, live: LiveTable, used_before: float) -> bool:
        if self.owns(live) or live.watchers or live.write_lock.locked() or live.used_at >= used_before:
            return False
        self.cache.unload(live)
        return True

    async def close(self) -> None:
        """Stop the lease rounds and hand the leases over at once."""
        if self.keeper is None or self._keeping is None:
            return
        self.keeper.stop()
        self._keeping.cancel()
        with contextlib.suppress(asyncio.CancelledError, Exception):
            await self._keeping
        with contextlib.suppress(Exception):  # leases not released simply expire
            await self.keeper.leave()
        self._keeping = None
