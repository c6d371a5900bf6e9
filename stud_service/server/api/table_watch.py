"""WatchTable's stream: the table's events as the caller may see them, from where it asks, as they happen.

A stream starts with the caller's view (or, resuming at ``after_version``, with the events after it,
read from the log a page at a time), then follows the table: each event the runtime applies reaches the
stream's queue (its watcher, :mod:`stud_service.server.tables.fanout`), and is sent redacted for the
viewer, one to a message or, with ``batch_events``, every event that was waiting in one. A watcher whose
queue filled up (a client that stopped reading) reads what it missed from the log. With a heartbeat
interval, a silent table sends a heartbeat with the version the stream is at, a ping the client answers for
the latency meter, and the meter's latest measure, which every view the stream sends carries too.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator
from dataclasses import dataclass
from typing import Any

from stud_service.auth import Principal, Role
from stud_service.engine.state import hands_ended
from stud_service.server.api.events_proto import event_proto
from stud_service.server.api.redact import EventRedactor
from stud_service.server.api.round_trips import CallerRoundTrips
from stud_service.server.api.table_views import table_view
from stud_service.server.proto_gen import events_pb2, table_pb2, table_service_pb2
from stud_service.server.tables.fanout import LAGGING, AppliedEvent
from stud_service.server.tables.live import LiveTable
from stud_service.server.tables.runtime import TableRuntime

# With batch_events, at most this many events go in one message (a few hundred KB), so a long catch-up
# from the log never builds one huge message; a single command causes far fewer.
MAX_EVENTS_PER_MESSAGE = 500
# Events read from the log at a time for a watch's catch-up (a multiple of MAX_EVENTS_PER_MESSAGE).
LOG_PAGE = 2_000


class TableWatches:
    """The watch streams of one TableService on ``runtime``'s tables."""

    def __init__(self, runtime: TableRuntime) -> None:
        self.runtime = runtime

    async def stream(
        self,
        live: LiveTable,
        principal: Principal,
        request: table_service_pb2.WatchTableRequest,
        heartbeat: float | None,
        round_trips: CallerRoundTrips,
    ) -> AsyncIterator[table_service_pb2.WatchTableResponse]:
        viewer = None if principal.role is Role.AUDITOR else principal.player_id
        stream = _WatchStream(
            principal,
            EventRedactor(viewer, auditor=principal.role is Role.AUDITOR),
            request.include_views,
            MAX_EVENTS_PER_MESSAGE if request.batch_events else 1,
            round_trips,
        )
        watcher = self.runtime.add_watcher(live)
        try:
            if request.after_version == 0:
                sent = live.version
                first = table_service_pb2.WatchTableResponse(view=table_view(live, principal))
                round_trips.stamp(first.view)
                yield first
                _know_live_hand(stream.redactor, live)
            else:
                sent = request.after_version
                if sent >= live.version:  # nothing to read first: the hand in play is the live one
                    _know_live_hand(stream.redactor, live)
                async for reply in self._from_log(live, stream, sent):
                    yield reply
                    sent = _last_version(reply)
            async with contextlib.aclosing(_arrivals(watcher.queue, stream.most, heartbeat)) as arrivals:
                async for arrived in arrivals:
                    if arrived is None:
                        return  # the server is shutting down
                    if arrived is _SILENT:
                        # Each heartbeat asks for an answer (the latency meter) and tells the latest measure.
                        beat = table_service_pb2.WatchHeartbeat(
                            version=sent, ping=round_trips.ping(), round_trip=round_trips.latest()
                        )
                        yield table_service_pb2.WatchTableResponse(heartbeat=beat)
                        continue
                    if arrived is LAGGING:
                        # The buffer filled up: buffer again, then read what was skipped from the log.
                        watcher.lagging = False
                        async for reply in self._from_log(live, stream, sent):
                            yield reply
                            sent = _last_version(reply)
                        continue
                    burst = [applied for applied in arrived if applied.version > sent]
                    if not burst:
                        continue
                    # One command's events arrive together. Unbatched, the view goes with the last of them
                    # only (nothing more waiting); a batch holds all that was waiting, so it always ends one.
                    last = burst[-1]
                    with_view = stream.include_views and (stream.most > 1 or watcher.queue.empty())
                    yield self._reply(
                        live,
                        stream,
                        [(applied.version, applied.payload, applied.recorded_at) for applied in burst],
                        table_view(live, principal, last.state, last.version) if with_view else None,
                    )
                    sent = last.version
        finally:
            self.runtime.remove_watcher(live, watcher)

    async def _from_log(
        self, live: LiveTable, stream: _WatchStream, after_version: int
    ) -> AsyncIterator[table_service_pb2.WatchTableResponse]:
        """Events after ``after_version`` up to the live version, read from the log (resume, catch-up),
        ``stream.most`` to a message. The log is read a page at a time: a watch resumed at the start of a
        long table holds one page in memory, not the table's history."""
        target = live.version  # later events reach the watcher's queue
        read = after_version
        while read < target:
            history = await self.runtime.store.read_stream(
                live.stream_id, after_version=read, limit=min(LOG_PAGE, target - read)
            )
            if not history:
                return
            if read == after_version:
                await self._seed_redactor(live, stream.redactor, history)
            read = history[-1].version
            for start in range(0, len(history), stream.most):
                page = history[start : start + stream.most]
                # Only the live version's view is at hand: it goes with the last page if that reaches it.
                reaches_live = page[-1].version == live.version
                view = table_view(live, stream.principal) if stream.include_views and reaches_live else None
                yield self._reply(
                    live,
                    stream,
                    [(stored.version, stored.payload, stored.recorded_at) for stored in page],
                    view,
                )

    async def _seed_redactor(self, live: LiveTable, redactor: EventRedactor, history: list[Any]) -> None:
        """A watch resumed mid-hand starts after that hand's HandStarted: learn who sat where."""
        first_hand = next(
            (stored.payload.get("hand") for stored in history if stored.payload.get("hand")), None
        )
        if first_hand is None or history[0].payload.get("type") == "HandStarted":
            return
        for stored in await self.runtime.store.read_hand(live.stream_id, first_hand):
            if stored.payload.get("type") == "HandStarted":
                redactor.know_hand(first_hand, {seat: player for seat, player, *_ in stored.payload["seats"]})
                return

    def _reply(
        self,
        live: LiveTable,
        stream: _WatchStream,
        events: list[tuple[int, dict[str, Any], Any]],
        view: table_pb2.TableView | None,
    ) -> table_service_pb2.WatchTableResponse:
        """One message: ``events`` (version, payload, recorded_at) as the viewer may see them, in
        ``event`` when the stream sends one per message, else in ``events``; ``view`` when given."""
        hand = events[0][1].get("hand")
        if isinstance(hand, int) and not stream.redactor.knows_hand(hand):
            # A watch resumed mid-hand with nothing to read first (or on a replica behind the resume point)
            # saw neither the hand's start nor the log before it: the hand in play is the live one.
            _know_live_hand(stream.redactor, live, hand)
        messages = [
            self._event_message(live, stream.redactor, version, payload, recorded_at)
            for version, payload, recorded_at in events
        ]
        if stream.most == 1:
            reply = table_service_pb2.WatchTableResponse(event=messages[0])
        else:
            reply = table_service_pb2.WatchTableResponse(events=messages)
        if view is not None:
            reply.view.CopyFrom(view)
            stream.round_trips.stamp(reply.view)
        return reply

    @staticmethod
    def _event_message(
        live: LiveTable, redactor: EventRedactor, version: int, payload: dict[str, Any], recorded_at: Any
    ) -> events_pb2.TableEvent:
        shown = redactor.redact(payload, hands_ended(live.state), live.state.chat.deleted)
        if shown is payload:  # the whole event: one message for every watcher allowed all of it
            return live.replies.public_event(version, payload, recorded_at)
        return event_proto(version, shown, recorded_at)



@dataclass(frozen=True, slots=True)
class _WatchStream:
    """What one WatchTable call asked for, and its viewer's redactor (which remembers who sat where)."""

    principal: Principal
    redactor: EventRedactor
    include_views: bool
    most: int  # events per message: 1, or MAX_EVENTS_PER_MESSAGE with batch_events
    round_trips: CallerRoundTrips  # the latency meter: what the views and heartbeats carry


_END_OF_BURST = object()
_SILENT = "silent"  # nothing arrived for the heartbeat interval


async def _arrivals(
    queue: asyncio.Queue[AppliedEvent | str | None], most: int, heartbeat: float | None = None
) -> AsyncIterator[list[AppliedEvent] | str | None]:
    """A watcher's queue as it is read: runs of events that were waiting together (at most ``most``
    each, in order), or a marker (LAGGING, None) on its own, after the events queued before it; with a
    ``heartbeat`` interval, _SILENT after each such interval in which nothing arrived."""
    while True:
        burst: list[AppliedEvent] = []
        item: Any
        if heartbeat is None:
            item = await queue.get()
        else:
            try:
                async with asyncio.timeout(heartbeat):
                    item = await queue.get()
            except TimeoutError:
                yield _SILENT
                continue
        while isinstance(item, AppliedEvent):
            burst.append(item)
            item = _END_OF_BURST if len(burst) == most or queue.empty() else queue.get_nowait()
        if burst:
            yield burst
        if item is not _END_OF_BURST:
            yield item


def _know_live_hand(redactor: EventRedactor, live: LiveTable, hand: int | None = None) -> None:
    """Tell ``redactor`` who sits where in the live table's hand in play (only if it is ``hand``, when given):
    the seats are fixed when a hand starts, so any of its events is redacted by them."""
    current = live.state.hand
    if current is not None and hand in (None, current.number):
        redactor.know_hand(current.number, {seat: p.player_id for seat, p in current.players.items()})


def _last_version(reply: table_service_pb2.WatchTableResponse) -> int:
    return reply.events[-1].version if reply.events else reply.event.version

