"""Following one tournament: its events after a version, each with the state after it, as they happen.

A watch registers a watcher (:mod:`stud_service.server.tables.fanout`) on the live tournament first, then
reads what the log holds after the version asked for, then takes events from its queue, skipping what the
log already gave: nothing is missed and nothing is given twice. A watcher whose queue filled up (a reader
that stopped reading) reads what it missed from the log. The stream ends when the runtime closes.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any

from stud_service.server.tables.fanout import LAGGING, Watcher
from stud_service.server.tournaments.cache import shown_event
from stud_service.server.tournaments.live import Applied, LiveTournament, shown_state
from stud_service.store import EventStore
from stud_service.tournaments import TournamentState, evolve, initial_state
from stud_service.tournaments.codec import event_from_json

LOG_PAGE = 2_000  # events read from the log at a time while catching up


async def watch(
    store: EventStore, live: LiveTournament, from_version: int
) -> AsyncIterator[tuple[int, Any, TournamentState]]:
    """``(version, event, state after it)`` for every event after ``from_version``, then as they come."""
    watcher = Watcher()
    live.watchers.add(watcher)
    try:
        sent = from_version
        async for applied in _from_log(store, live, sent):
            yield applied.version, applied.event, applied.state
            sent = applied.version
        while True:
            item = await watcher.queue.get()
            if item is None:
                return  # the runtime is closing
            if item is LAGGING:
                watcher.lagging = False
                async for applied in _from_log(store, live, sent):
                    yield applied.version, applied.event, applied.state
                    sent = applied.version
                continue
            assert isinstance(item, Applied)
            if item.version > sent:
                yield item.version, item.event, item.state
                sent = item.version
    finally:
        live.watchers.discard(watcher)


async def _from_log(store: EventStore, live: LiveTournament, after_version: int) -> AsyncIterator[Applied]:
    """The events after ``after_version`` up to the live version, each with the state after it: the log is
    folded from the start a page at a time (the states need it), the events before it given to nobody."""
    target = live.version  # later events reach the watcher's queue
    if after_version >= target:
        return
    state, read = initial_state(), 0
    while read < target:
        page = await store.read_stream(live.stream_id, after_version=read, limit=min(LOG_PAGE, target - read))
        if not page:
            return
        for stored in page:
            event = event_from_json(stored.payload)
            state = evolve(state, event)
            if stored.version > after_version:
                yield Applied(stored.version, shown_event(event), shown_state(state))
        read = page[-1].version
