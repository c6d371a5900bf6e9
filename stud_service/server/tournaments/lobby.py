"""The lobby's order of tournaments: scheduled ones by their start, sit & gos by when they were created (a sit
& go starts as soon as it fills), ties by id; every tournament, running, finished and cancelled ones too.

Each tournament's place is fixed at its creation (its ``TournamentCreated``), so the lobby reads it once per
tournament and keeps it; a listing reads the tournaments' stream ids (new ones may come anywhere in the id
order) and then the states of the page's tournaments only. Those reads may be a standby's
(:mod:`stud_service.store.standby`): a tournament's place never changes, and a standby current as of the
listing's start has every tournament created before it.
"""

from __future__ import annotations

from bisect import bisect_right

from stud_service.server.tournaments.live import STREAM_PREFIX
from stud_service.store import EventStore
from stud_service.store.standby import StandbyReads
from stud_service.tournaments import TournamentKind, event_from_json
from stud_service.tournaments.errors import NoTournament
from stud_service.tournaments.events import TournamentCreated

LIST_PAGE = 1_000  # stream ids read at a time
LobbyKey = tuple[int, str]  # (start or creation time in ms, tournament id)


class Lobby:
    def __init__(self, reads: StandbyReads) -> None:
        self.reads = reads
        self._keys: dict[str, LobbyKey] = {}

    async def page(self, page_size: int, after: str | None) -> list[str]:
        """The ids of up to ``page_size`` tournaments in lobby order, after the tournament ``after`` (None:
        from the first); NO_TOURNAMENT if ``after`` names none."""
        await self.reads.read(self._read_new)
        order = sorted(self._keys.values())
        start = 0
        if after is not None:
            if after not in self._keys:
                raise NoTournament(f"no tournament {after!r} to list after")
            start = bisect_right(order, self._keys[after])
        return [tournament_id for _key, tournament_id in order[start : start + max(1, page_size)]]

    async def _read_new(self, store: EventStore) -> None:
        """The lobby places of tournaments created since the last listing."""
        last: str | None = None
        while True:
            streams = await store.list_streams(prefix=STREAM_PREFIX, after=last, limit=LIST_PAGE)
            for info in streams:
                tournament_id = info.stream_id[len(STREAM_PREFIX) :]
                if tournament_id not in self._keys:
                    first = await store.read_stream(info.stream_id, limit=1)
                    created = event_from_json(first[0].payload) if first else None
                    if isinstance(created, TournamentCreated):
                        self._keys[tournament_id] = (_lobby_time(created), tournament_id)
            if len(streams) < LIST_PAGE:
                return
            last = streams[-1].stream_id


def _lobby_time(created: TournamentCreated) -> int:
    scheduled = created.config.kind is TournamentKind.SCHEDULED
    return created.config.start_ms if scheduled else created.at_ms
