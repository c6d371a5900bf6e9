"""What TournamentService answers with: the ``Tournament`` resource shared per version, a caller's view, and
WatchTournament's stream.

The resource of a tournament's latest version is built once and shared by every call (the lobby, each view,
each watcher's views): copy it into a reply, never change it. A watch starts with the caller's view (or,
resuming at ``after_version``, with the events after it), then sends each event the facade's watch gives,
typed (:mod:`.tournament_events`), with the caller's view at its version when asked; with a heartbeat
interval, a silent tournament sends a heartbeat with the version reached.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator
from typing import Any, Protocol

from stud_service.auth import Principal, Role
from stud_service.server.api.tournament_convert import tournament_to_proto, view_to_proto
from stud_service.server.api.tournament_events import tournament_event_proto
from stud_service.server.proto_gen import table_service_pb2, tournament_pb2, tournament_service_pb2
from stud_service.tournaments import TournamentState

MAX_CACHED = 256  # tournaments whose latest resource is kept


class Live(Protocol):
    """What a reply reads of a live tournament (``server.tournaments.live.LiveTournament``)."""

    tournament_id: str
    version: int
    shown: TournamentState


class Written(Protocol):
    """What a write answers with: the version it left the tournament at and the state then."""

    version: int
    state: TournamentState


class TournamentReplies:
    """Each tournament's resource at its latest version, built once (see the module docstring)."""

    def __init__(self) -> None:
        self._resources: dict[str, tuple[int, tournament_pb2.Tournament]] = {}

    def resource_of(self, live: Live, version: int, state: TournamentState) -> tournament_pb2.Tournament:
        """The resource of ``live``'s tournament at ``version`` (whose state is ``state``): the shared one, or
        built and kept if it is the newest asked for."""
        tournament_id = live.tournament_id
        cached = self._resources.get(tournament_id)
        if cached is not None and cached[0] == version:
            return cached[1]
        message = tournament_to_proto(state, version)
        if cached is None or cached[0] < version:
            if cached is None and len(self._resources) >= MAX_CACHED:
                self._resources.clear()
            self._resources[tournament_id] = (version, message)
        return message

    def resource(self, live: Live) -> tournament_pb2.Tournament:
        """The resource now."""
        return self.resource_of(live, live.version, live.shown)

    def view(self, live: Live, player: str | None) -> tournament_pb2.TournamentView:
        """``player``'s view of the tournament now (None: nobody's place, an auditor's)."""
        return view_to_proto(live.shown, live.version, player, self.resource(live))

    async def resource_at(self, tournaments: Any, tournament_id: str,
                          written: Written) -> tournament_pb2.Tournament:
        """The resource as a write left it (a retry: as its first call did)."""
        return self.resource_of(await tournaments.live(tournament_id), written.version, written.state)

    async def view_at(self, tournaments: Any, tournament_id: str, written: Written,
                      player: str) -> tournament_pb2.TournamentView:
        resource = await self.resource_at(tournaments, tournament_id, written)
        return view_to_proto(written.state, written.version, player, resource)


def viewer_of(principal: Principal) -> str | None:
    """Whose place a view shows: the caller's, as a player (an auditor has none)."""
    return None if principal.role is Role.AUDITOR else principal.player_id


async def watch_stream(
    tournaments: Any,
    replies: TournamentReplies,
    live: Live,
    principal: Principal,
    request: tournament_service_pb2.WatchTournamentRequest,
    heartbeat: float | None,
) -> AsyncIterator[tournament_service_pb2.WatchTournamentResponse]:
    """The watch of ``request`` (checked) on ``live``, until the runtime closes or the client cancels."""
    viewer = viewer_of(principal)
    if request.after_version == 0:
        sent = live.version  # read with the view, so the events that follow start right after it
        yield tournament_service_pb2.WatchTournamentResponse(view=replies.view(live, viewer))
    else:
        sent = request.after_version
    events = tournaments.watch(live.tournament_id, sent)
    async with contextlib.aclosing(_with_heartbeats(events, heartbeat)) as arrivals:
        async for arrived in arrivals:
            if arrived is _SILENT:
                beat = table_service_pb2.WatchHeartbeat(version=sent)
                yield tournament_service_pb2.WatchTournamentResponse(heartbeat=beat)
                continue
            version, event, state = arrived
            reply = tournament_service_pb2.WatchTournamentResponse(
                event=tournament_event_proto(version, event, state))
            if request.include_views:
                resource = replies.resource_of(live, version, state)
                reply.view.CopyFrom(view_to_proto(state, version, viewer, resource))
            yield reply
            sent = version


_SILENT = object()  # nothing arrived for the heartbeat interval
_END = object()


async def _with_heartbeats(events: AsyncIterator[Any], heartbeat: float | None) -> AsyncIterator[Any]:
    """``events`` as they come, and _SILENT after each ``heartbeat`` seconds in which none came. The events
    are read by a task of their own, so waiting for one never cancels the watch that yields them."""
    if heartbeat is None:
        async with contextlib.aclosing(events):  # type: ignore[type-var]
            async for event in events:
                yield event
        return
    queue: asyncio.Queue[Any] = asyncio.Queue(maxsize=1)

    async def pump() -> None:
        try:
            async for event in events:
                await queue.put(event)
        except Exception as error:  # handed to the stream, which raises it
            await queue.put(error)
        await queue.put(_END)

    reader = asyncio.get_running_loop().create_task(pump())
    try:
        while True:
            try:
                async with asyncio.timeout(heartbeat):
                    item = await queue.get()
            except TimeoutError:
                yield _SILENT
                continue
            if item is _END:
                return
            if isinstance(item, Exception):
                raise item
            yield item
    finally:
        reader.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await reader
