"""Excluded players out of the tournaments not yet started (docs/player-protection.md, "Self-exclusion and
time-outs"): each of their entries is undone by the tournament's own unregister path (``PlayerUnregistered``
with reason "excluded", buy-in and fee refunded through the ledger in the same transaction).

The exclusion is recorded first, in the player's stream; the unregistrations follow, one tournament at a
time. So that a crash between the two leaves nothing behind, whoever next looks does it again, and doing it
again is harmless (an entry already undone is not there to undo):

- the call that recorded the exclusion, at once, for that player;
- every replica, every ``SWEEP_SECONDS``, for every player registered in a tournament not yet started;
- the start of a tournament, just before it: a sit & go's last registration and a scheduled tournament's
  clock, so that no excluded player is ever in a tournament's seating draw.

A tournament not yet started is one whose stream holds neither ``TournamentStarted`` nor
``TournamentCancelled`` (migration 0017's index finds them without reading any other tournament).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Awaitable, Callable, Iterable

from stud_service.ledger.book import Ledger
from stud_service.server.tables.live import now_ms
from stud_service.server.tables.tasks import TableTasks
from stud_service.server.tournaments.cache import TournamentCache
from stud_service.server.tournaments.live import STREAM_PREFIX
from stud_service.store import EventStore
from stud_service.store.errors import is_store_fault
from stud_service.store.reads import fetch
from stud_service.tournaments import Status, TournamentError

_log = logging.getLogger(__name__)

SWEEP_SECONDS = 30.0
EXCLUDED = "excluded"

_NOT_STARTED = """
SELECT s.stream_id FROM streams s
 WHERE s.stream_id LIKE %s
   AND NOT EXISTS (SELECT 1 FROM events e WHERE e.stream_id = s.stream_id
                      AND e.type IN ('TournamentStarted', 'TournamentCancelled'))
 ORDER BY s.stream_id
"""

async def tournaments_not_started(store: EventStore) -> list[str]:
    """The ids of the tournaments that have neither started nor been cancelled."""
    rows = await fetch(store, _NOT_STARTED, (STREAM_PREFIX.replace("_", r"\_") + "%",))
    return [stream_id[len(STREAM_PREFIX):] for (stream_id,) in rows]


class ExcludedEntries:
    """Finds the entries of excluded players in tournaments not yet started and undoes them."""

    def __init__(self, store: EventStore, ledger: Ledger, cache: TournamentCache, tasks: TableTasks,
                 unregister: Callable[[str, str], Awaitable[object]]) -> None:
        # ``unregister(tournament, player)``: the runtime's unregister path, with reason "excluded".
        self.store = store
        self.ledger = ledger
        self.cache = cache
        self.tasks = tasks
        self._unregister = unregister

    async def unregister_player(self, player: str) -> list[str]:
        """Undo ``player``'s entries in every tournament not yet started, if they are excluded now; the
        tournaments they were taken out of."""
        return [tournament for tournament, _player in await self._sweep(await tournaments_not_started(
            self.store), only=player)]

    async def sweep(self) -> list[tuple[str, str]]:
        """Undo every excluded player's entry in every tournament not yet started; (tournament, player)."""
        return await self._sweep(await tournaments_not_started(self.store))

    async def before_start(self, tournament_id: str) -> list[str]:
        """Just before ``tournament_id`` starts: undo its excluded players' entries; the players."""
        return [player for _tournament, player in await self._sweep([tournament_id])]

    async def _sweep(self, tournament_ids: Iterable[str], only: str | None = None) -> list[tuple[str, str]]:
        entries: list[tuple[str, str]] = []
        for tournament_id in tournament_ids:
            with contextlib.suppress(TournamentError):  # never created (a stream without its first event)
                state = (await self.cache.tournament(tournament_id)).state
                if state.status is Status.REGISTERING:
                    entries += [(tournament_id, player) for player in state.registered
                                if only is None or player == only]
        if not entries:
            return []
        now = now_ms()
        standings = await self.ledger.standings({player for _tournament, player in entries})
        undone = []
        for tournament_id, player in entries:
            if standings[player].excluded_at(now) is None:
                continue
            try:
                await self._unregister(tournament_id, player)
            except TournamentError:  # undone meanwhile (another replica), or the tournament started
                continue
            _log.info("excluded player unregistered", extra={"tournament": tournament_id, "player": player})
            undone.append((tournament_id, player))
        return undone

    def sweep_periodically(self, seconds: float = SWEEP_SECONDS) -> None:
        """From now on, every ``seconds``, undo the entries an exclusion left behind (a crash after it)."""
        if seconds > 0:
            self.tasks.spawn(self._sweep_forever(seconds))

    async def _sweep_forever(self, seconds: float) -> None:
        while True:
            await asyncio.sleep(seconds)
            try:
                await self.sweep()
            except Exception as error:  # the next round does what this one could not
                if not is_store_fault(error):
                    _log.exception("unregistering excluded players failed")
