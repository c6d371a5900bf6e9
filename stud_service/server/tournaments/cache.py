"""The tournaments this replica has loaded: folded from the log on first use, followed, each event applied
once.

As the tables' cache (:mod:`stud_service.server.tables.followed` does the loading and following): every
event is applied exactly once per replica, in version order, by :meth:`TournamentCache.apply`, whichever
path (this replica's own append or the followed stream) brings it first, and then handed to every watcher
of the tournament.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import replace
from typing import Any

from stud_service.server.tables.fanout import fan_out
from stud_service.server.tables.followed import FollowedStreams
from stud_service.server.tables.tasks import TableTasks
from stud_service.server.tournaments.live import Applied, LiveTournament
from stud_service.store import EventStore, StoredEvent
from stud_service.tournaments import TournamentState, event_from_json, evolve
from stud_service.tournaments.errors import NoTournament
from stud_service.tournaments.events import DrawCommitted

_log = logging.getLogger(__name__)


def _no_tournament(tournament_id: str) -> NoTournament:
    return NoTournament(f"no tournament {tournament_id!r}")


def shown_event(event: Any) -> Any:
    """The event as the facade hands it out: a commitment without its secret seed (a revealed seed is
    public, docs/tournaments.md "Who sees a draw's seed")."""
    return replace(event, secret={}) if isinstance(event, DrawCommitted) else event


class TournamentCache(FollowedStreams[LiveTournament]):
    """The loaded tournaments of one replica, kept current from the log."""

    def __init__(self, store: EventStore, tasks: TableTasks) -> None:
        super().__init__(store, tasks, LiveTournament, _no_tournament)
        # Told after every event applied (the owners of its clock and of its tables look again).
        self.changed: Callable[[str, TournamentState], None] | None = None

    async def tournament(self, tournament_id: str) -> LiveTournament:
        """The live tournament, loaded on first use; NO_TOURNAMENT if it was never created."""
        return await self.lookup(tournament_id)

    def apply_stored(self, live: LiveTournament, stored: StoredEvent) -> None:
        self.apply(live, stored.version, event_from_json(stored.payload))

    def apply_appended(
        self, live: LiveTournament, events: list[Any], first_version: int,
        after: TournamentState | None = None,
    ) -> None:
        """Apply this replica's own append as it committed (``first_version``: its first event's).
        ``after``: the state its decision left (``execute``'s own, the fold of ``events``), taken as it
        is when nothing else applied any of them and no watcher needs the state after each."""
        if after is not None and live.version == first_version - 1 and not live.watchers and events:
            self._now_at(live, first_version + len(events) - 1, after, events)
            return
        for offset, event in enumerate(events):
            self.apply(live, first_version + offset, event)

    def apply(self, live: LiveTournament, version: int, event: Any) -> None:
        if version != live.version + 1:
            return  # already applied by the other path
        self._now_at(live, version, evolve(live.state, event), [event])
        if live.watchers:
            fan_out(live.watchers, Applied(version, shown_event(event), live.shown))  # type: ignore[arg-type]

    def _now_at(self, live: LiveTournament, version: int, state: TournamentState, events: list[Any]) -> None:
        live.state = state
        live.version = version
        if _log.isEnabledFor(logging.DEBUG):
            kinds = ", ".join(type(event).__name__ for event in events)
            _log.debug("events applied", extra={**live.log_extra, "version": version, "type": kinds})
        if self.changed is not None:  # once a change, not once an event: its owners look at the state now
            self.changed(live.tournament_id, state)
