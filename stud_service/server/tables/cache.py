"""The tables this replica has loaded: folded from the log on first use, followed, each event applied once.

The event log is the only truth. Each replica keeps, per table it has touched, the state folded from
the log and follows the stream (the store's NOTIFY subscription), so writes made by any replica reach
every replica's cache, clocks and watchers. A replica applies its own appends as they commit and
tells the subscription the version it holds, so only other replicas' writes cost it a read.

Every event is applied exactly once per replica, in version order, by :meth:`TableCache.apply`,
whichever path (own write or followed stream) brings it first; what follows each event (the watchers,
the clocks, the dealer) is the runtime's ``after_event``. Log lines about the table carry its id, and the
hand's id (``{table}/h-{n}``) while a hand runs: each table's work runs inside
:meth:`~stud_service.server.tables.live.LiveTable.log_scope`.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

from stud_service.backoff import Backoff
from stud_service.engine import NoTable, event_from_json, evolve
from stud_service.observability.metrics import Metrics
from stud_service.server.tables import seeds
from stud_service.server.tables.fanout import AppliedEvent
from stud_service.server.tables.live import LiveTable, hand_log_id
from stud_service.server.tables.tasks import TableTasks, wait_for_store
from stud_service.store import EventStore
from stud_service.store.errors import is_store_fault

_log = logging.getLogger(__name__)

# Events logged at INFO (one line each per hand); every other event is logged at DEBUG.
_LOGGED_EVENTS = frozenset({"HandStarted", "HandEnded"})


@dataclass(eq=False, slots=True)
class _Loading:
    """The first lookups of one table name: they load it one at a time (the first does the work)."""

    lock: asyncio.Lock = field(default_factory=asyncio.Lock)
    callers: int = 0


class TableCache:
    """The loaded tables of one replica, kept current from the log. ``after_event(live, applied)`` runs
    after each event is applied."""

    def __init__(
        self,
        store: EventStore,
        tasks: TableTasks,
        metrics: Metrics | None,
        after_event: Callable[[LiveTable, AppliedEvent], None],
    ) -> None:
        self.store = store
        self.tasks = tasks
        self.metrics = metrics
        self.after_event = after_event
        self._tables: dict[str, LiveTable] = {}
        self._loading: dict[str, _Loading] = {}

    # -- loading -------------------------------------------------------------------------------

    async def table(self, table_id: str, *, client: bool = True) -> LiveTable:
        """The live table, loaded from the log on first use; NoTable if it was never created. ``client``:
        a client's call that plays or watches it (not the lobby's listing, not a lease taken here)."""
        live = self._tables.get(table_id)
        if live is not None:
            if client:
                live.used_at = time.monotonic()
            return live
        # The first lookups of a name queue on one lock, so one of them loads the table. The entry goes
        # with its last caller: names are the caller's to choose, and nothing may stay behind for a
        # table that does not exist.
        loading = self._loading.get(table_id)
        if loading is None:
            loading = self._loading[table_id] = _Loading()
        loading.callers += 1
        try:
            async with loading.lock:
                live = self._tables.get(table_id)  # loaded while this caller queued
                live = live if live is not None else await self._load(table_id)
                if client:
                    live.used_at = time.monotonic()
                return live
        finally:
            loading.callers -= 1
            if loading.callers == 0:
                del self._loading[table_id]

    async def _load(self, table_id: str) -> LiveTable:
        live = LiveTable(table_id)
        await self.catch_up(live)
        if live.version == 0:
            raise NoTable(f"no table {table_id!r}")
        self._tables[table_id] = live
        live.follower = self.tasks.spawn(self._follow(live))
        if self.metrics is not None:
            self.metrics.table_opened()
        return live

    def get(self, table_id: str) -> LiveTable | None:
        """The table if it is loaded here; never loads it."""
        return self._tables.get(table_id)

    def unload(self, live: LiveTable) -> None:
        """Forget the table and stop following it; a later lookup loads it again from the log."""
        del self._tables[live.table_id]
        if live.follower is not None:
            live.follower.cancel()
        if self.metrics is not None:
            self.metrics.table_closed()

    def loading_count(self) -> int:
        """Names being looked up for the first time right now; none are kept once their callers are done."""
        return len(self._loading)

    def loaded_tables(self) -> list[LiveTable]:
        return list(self._tables.values())

    # -- following the log ---------------------------------------------------------------------

    async def catch_up(self, live: LiveTable) -> None:
        for stored in await self.store.read_stream(live.stream_id, after_version=live.version):
            self._apply_stored(live, stored.version, stored.payload, stored.recorded_at)

    async def _follow(self, live: LiveTable) -> None:
        """Apply what other writers append to the stream (our own appends are applied as they commit,
        and ``position`` tells the subscription so: their announcements cost no read)."""
        backoff = Backoff()
        while True:
            try:
                stream = self.store.subscribe(live.stream_id, live.version, position=lambda: live.version)
                async for stored in stream:
                    backoff.reset()
                    if stored.version > live.version:
                        with live.log_scope():
                            self._apply_stored(live, stored.version, stored.payload, stored.recorded_at)
            except asyncio.CancelledError:
                raise
            except Exception as error:
                # The subscription retries its own reads; a store fault that still gets here is retried
                # too, from the version we hold. Anything else is a bug worth a trace.
                if not is_store_fault(error):
                    _log.exception("following %s stopped", live.stream_id, extra={"table": live.table_id})
                    return
                await wait_for_store(live, backoff, "following", error)

    # -- applying ------------------------------------------------------------------------------

    def _apply_stored(
        self, live: LiveTable, version: int, payload: dict[str, Any], recorded_at: datetime
    ) -> None:
        event = event_from_json(payload)
        self.apply(live, version, event, payload, recorded_at)

    def apply_appended(
        self, live: LiveTable, events: list[Any], payloads: list[dict[str, Any]], first_version: int
    ) -> None:
        """Apply this replica's own append as it committed (``first_version``: its first event's)."""
        recorded_at = datetime.now(UTC)
        for offset, (event, payload) in enumerate(zip(events, payloads, strict=True)):
            self.apply(live, first_version + offset, event, payload, recorded_at)

    def apply(
        self, live: LiveTable, version: int, event: Any, payload: dict[str, Any], recorded_at: datetime
    ) -> None:
        if version != live.version + 1:
            return  # already applied by the other path
        live.state = evolve(live.state, event)
        live.version = version
        live.last_event_at = recorded_at.timestamp()
        kind = payload.get("type")
        if kind == "HandEnded":
            live.last_result = payload
        elif kind == "TableCreated":
            live.created_ms = int(payload["at_ms"])
        if kind == "HandStarted":
            live.commitment = str(payload.get("commitment", ""))
            live.client_seeds.clear()
        elif kind == "ShuffleCommitted":
            live.next_seed = seeds.committed_seed(payload, version)
            live.client_seeds.clear()  # a seed counts only once the hand's seed is committed
        if kind in _LOGGED_EVENTS or _log.isEnabledFor(logging.DEBUG):
            _log_event(live, version, kind, payload)
        if kind == "ClientSeedSet":
            live.client_seeds[str(payload["player_id"])] = str(payload["seed"])
        if (
            self.metrics is not None
            and kind in ("HandStarted", "HandEnded")
            and live.state.config is not None
        ):
            variant = str(live.state.config.variant).lower()
            if kind == "HandStarted":
                self.metrics.hand_started(variant)
            else:
                self.metrics.hand_finished(variant)
        self.after_event(live, AppliedEvent(version, payload, recorded_at, live.state))


def _log_event(live: LiveTable, version: int, kind: Any, payload: dict[str, Any]) -> None:
    # The ids are given explicitly: the task applying the event may have entered its log scope
    # before this event started (or ended) the hand.
    hand = payload.get("hand")
    if hand is None and live.state.hand is not None:  # a table event while a hand runs (a commitment)
        hand = live.state.hand.number
    hand_id = hand_log_id(live.table_id, hand) if isinstance(hand, int) else None
    ids = {"table": live.table_id, "hand": hand_id}
    if kind == "HandStarted":
        seats = len(payload.get("seats", ()))
        _log.info("hand started", extra={**ids, "version": version, "seats": seats})
    elif kind == "HandEnded":
        _log.info("hand ended", extra={**ids, "version": version})
    else:
        _log.debug("event applied", extra={**ids, "version": version, "type": kind})
