"""The tables this replica has loaded: folded from the log on first use, followed, each event applied once.

The event log is the only truth. Each replica keeps, per table it has touched, the state folded from
the log and follows the stream (the store's NOTIFY subscription, :mod:`.followed`), so writes made by any
replica reach every replica's cache, clocks and watchers. A replica applies its own appends as they commit
and tells the subscription the version it holds, so only other replicas' writes cost it a read.

Every event is applied exactly once per replica, in version order, by :meth:`TableCache.apply`,
whichever path (own write or followed stream) brings it first; what follows each event (the watchers,
the clocks, the dealer) is the runtime's ``after_event``. Log lines about the table carry its id, and the
hand's id (``{table}/h-{n}``) while a hand runs: each table's work runs inside
:meth:`~stud_service.server.tables.live.LiveTable.log_scope`.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable
from datetime import UTC, datetime
from typing import Any

from stud_service.engine import NoTable, event_from_json, evolve
from stud_service.engine.events import CHAT_EVENTS
from stud_service.observability.metrics import Metrics
from stud_service.server.tables import seeds
from stud_service.server.tables.fanout import AppliedEvent
from stud_service.server.tables.followed import FollowedStreams
from stud_service.server.tables.live import LiveTable, hand_log_id
from stud_service.server.tables.tasks import TableTasks
from stud_service.store import EventStore, StoredEvent

_log = logging.getLogger(__name__)

# Events logged at INFO (one line each per hand); every other event is logged at DEBUG.
_LOGGED_EVENTS = frozenset({"HandStarted", "HandEnded"})


class TableCache(FollowedStreams[LiveTable]):
    """The loaded tables of one replica, kept current from the log (:mod:`.followed`). ``after_event(live,
    applied)`` runs after each event is applied."""

    def __init__(
        self,
        store: EventStore,
        tasks: TableTasks,
        metrics: Metrics | None,
        after_event: Callable[[LiveTable, AppliedEvent], None],
    ) -> None:
        super().__init__(store, tasks, LiveTable, lambda table_id: NoTable(f"no table {table_id!r}"))
        self.metrics = metrics
        self.after_event = after_event

    # -- loading -------------------------------------------------------------------------------

    async def table(self, table_id: str, *, client: bool = True) -> LiveTable:
        """The live table, loaded from the log on first use; NoTable if it was never created. ``client``:
        a client's call that plays or watches it (not the lobby's listing, not a lease taken here)."""
        live = await self.lookup(table_id)
        if client:
            live.used_at = time.monotonic()
        return live

    def opened(self, live: LiveTable) -> None:
        if self.metrics is not None:
            self.metrics.table_opened()

    def unload(self, live: LiveTable) -> None:
        """Forget the table and stop following it; a later lookup loads it again from the log."""
        if self.forget(live.table_id) is not None and self.metrics is not None:
            self.metrics.table_closed()

    def loaded_tables(self) -> list[LiveTable]:
        return self.loaded()

    # -- applying ------------------------------------------------------------------------------

    def apply_stored(self, live: LiveTable, stored: StoredEvent) -> None:
        self.apply(live, stored.version, event_from_json(stored.payload), stored.payload, stored.recorded_at)

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
        kind = payload.get("type")
        if kind not in CHAT_EVENTS:  # talk does not put off the next hand (the pause counts from play)
            live.last_event_at = recorded_at.timestamp()
        if kind == "HandEnded":
            live.last_result = payload
            live.last_end = event
        elif kind == "TableCreated":
            live.created_ms = int(payload["at_ms"])
        if kind == "HandStarted":
            live.commitment = str(payload.get("commitment", ""))
            live.last_start = event
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
            game = live.last_start.game if live.last_start is not None else None  # §13: the hand's game
            variant = str(game or live.state.config.variant).lower()
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
