"""The tournaments of one replica, as the services use them: ``TableRuntime.tournaments``.

Each method decides one command against the tournament this replica folded from ``tournaments/{id}`` and
appends its events, with the money they move, as :mod:`.writes` says; a refusal is the domain's
``TournamentError`` (with its reason) or the ledger's ``LedgerError`` (INSUFFICIENT_FUNDS,
PLAYER_SUSPENDED), and changes nothing. A ``request_key`` (``api.request_ids.request_key``) makes a call
idempotent: a retry is answered with the tournament as the first call left it. Each write answers with what
it did (:class:`Executed`: the version it left the tournament at, its events and the state then). Draw seeds
are drawn here
(the shuffle's CSPRNG) and committed with the command that needs them (``NextDraw``).

The states and events handed out never hold a seed that was committed and not yet drawn from (nobody may
see it); a revealed one (``DrawRevealed.seed``) is public, as everything it draws is (docs/tournaments.md,
"Who sees a draw's seed").
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass
from typing import Any

from stud_service.ledger.book import Ledger
from stud_service.server.api.request_ids import RequestKey
from stud_service.server.tables.fanout import end_watches
from stud_service.server.tables.tasks import TableTasks
from stud_service.server.tournaments import watch as watching
from stud_service.server.tournaments.cache import TournamentCache, shown_event
from stud_service.server.tournaments.exclusions import EXCLUDED, ExcludedEntries
from stud_service.server.tournaments.live import LiveTournament, now_ms, shown_state
from stud_service.server.tournaments.lobby import Lobby
from stud_service.server.tournaments.writes import Along, FollowUp, MakeCommand, TournamentWrites, Written
from stud_service.server.tournaments.writes import AlongConflict as AlongConflict  # the tables' driver's
from stud_service.shuffle import new_commitment
from stud_service.store import EventStore, Fence
from stud_service.store.standby import StandbyReads
from stud_service.tournaments import (
    CancelTournament,
    CreateTournament,
    NextDraw,
    ReEnter,
    Register,
    Status,
    TournamentConfig,
    TournamentKind,
    TournamentState,
    Unregister,
)
from stud_service.tournaments.draws import draw_secret


def _fills_sit_and_go(state: TournamentState, player_id: str) -> bool:
    """Whether ``player_id``'s registration would take a sit & go's last place (and so start it)."""
    config = state.config
    return (config is not None and config.kind is TournamentKind.SIT_AND_GO
            and state.status is Status.REGISTERING and player_id not in state.entries
            and len(state.registered) + 1 >= config.max_entrants)


def new_draw() -> NextDraw:
    """A fresh draw seed from the operating system's CSPRNG, with its commitment (the shuffle's)."""
    seed, commitment = new_commitment()
    return NextDraw(commitment, draw_secret(seed))


@dataclass(frozen=True, slots=True)
class Executed:
    """What :meth:`TournamentRuntime.execute` did: the tournament's version after it, the events appended
    (a committed seed left out) and the state after them."""

    version: int
    events: list[Any]
    state: TournamentState


class TournamentRuntime:
    """All tournaments of one replica, sharing the tables' store, ledger and background tasks."""

    def __init__(
        self, store: EventStore, ledger: Ledger, tasks: TableTasks, reads: StandbyReads | None = None
    ) -> None:
        self.store = store
        self.cache = TournamentCache(store, tasks)
        self.writes = TournamentWrites(store, ledger, self.cache)
        self.lobby = Lobby(reads or StandbyReads(store))  # the lobby's listing may read a standby
        self.exclusions = ExcludedEntries(store, ledger, self.cache, tasks, self._unregister_excluded)

    # -- players and operators -------------------------------------------------------------------

    async def create(
        self, tournament_id: str, config: TournamentConfig, *, by: str, request_key: RequestKey | None = None
    ) -> Executed:
        """A new tournament (its seating seed committed with it); TOURNAMENT_EXISTS if the id is taken."""
        command = CreateTournament(tournament_id, config, new_draw(), now_ms(), by)
        return await self._executed(tournament_id, await self.writes.create(command, request_key))

    async def register(
        self, tournament_id: str, player_id: str, *, request_key: RequestKey | None = None,
        guard: Callable[[TournamentState], None] | None = None,
    ) -> Executed:
        """An entry: buy-in + fee debited with it; a sit & go's last seat starts it (its excluded players'
        entries undone first: none is in its draw). ``guard(state)`` is called with the state the entry is
        decided against and may raise to stop it (the same-network rule's: someone registered since it was
        checked)."""
        if _fills_sit_and_go((await self.cache.tournament(tournament_id)).state, player_id):
            await self.exclusions.before_start(tournament_id)

        def register(state: TournamentState, now: int) -> Register:
            if guard is not None:
                guard(state)
            return Register(player_id, now, new_draw())

        return await self._player(tournament_id, register, request_key)

    async def unregister(
        self, tournament_id: str, player_id: str, *, request_key: RequestKey | None = None,
        reason: str = "request",
    ) -> Executed:
        """Withdraw an entry before the start: buy-in + fee refunded with it (``reason`` "excluded": the
        player's exclusion took them out)."""
        return await self._player(
            tournament_id, lambda state, now: Unregister(player_id, now, reason), request_key)

    async def _unregister_excluded(self, tournament_id: str, player_id: str) -> Executed:
        return await self.unregister(tournament_id, player_id, reason=EXCLUDED)

    async def re_enter(
        self, tournament_id: str, player_id: str, *, request_key: RequestKey | None = None
    ) -> Executed:
        """Buy in again after losing every chip (buy-in + fee debited), seated at once."""
        return await self._player(
            tournament_id, lambda state, now: ReEnter(player_id, now, new_draw()), request_key
        )

    async def cancel(self, tournament_id: str, *, by: str, reason: str) -> Executed:
        """Stop the tournament: before the start every entry refunded, after it the pool paid out (§11)."""
        return await self._player(tournament_id, lambda state, now: CancelTournament(by, reason, now), None)

    async def _player(
        self, tournament_id: str, make: MakeCommand, request_key: RequestKey | None
    ) -> Executed:
        live = await self.cache.tournament(tournament_id)
        return await self._executed(tournament_id, await self.writes.write(live, make, request_key))

    async def _executed(self, tournament_id: str, written: Written) -> Executed:
        """What ``written`` did, as the facade shows it: the state at its version (a retry's: as the first
        call left it), without a committed seed."""
        live = await self.cache.tournament(tournament_id)
        shown = live.shown if written.version == live.version else shown_state(
            await self.writes.state_at(live, written.version))
        return Executed(written.version, [shown_event(event) for event in written.events], shown)

    # -- reading ---------------------------------------------------------------------------------

    async def state(self, tournament_id: str) -> TournamentState:
        """The tournament as this replica holds it; NO_TOURNAMENT if it was never created."""
        return (await self.cache.tournament(tournament_id)).shown

    async def list(self, *, page_size: int, after: str | None = None) -> list[TournamentState]:
        """Up to ``page_size`` tournaments in lobby order (:mod:`.lobby`), after the tournament ``after``."""
        return [await self.state(tournament_id) for tournament_id in await self.lobby.page(page_size, after)]

    async def watch(
        self, tournament_id: str, from_version: int = 0
    ) -> AsyncIterator[tuple[int, Any, TournamentState]]:
        """``(version, event, state after it)`` for each event after ``from_version``, then as they come;
        NO_TOURNAMENT (at the first step) if the tournament was never created."""
        live = await self.cache.tournament(tournament_id)
        async for item in watching.watch(self.store, live, from_version):
            yield item

    async def version(self, tournament_id: str) -> int:
        return (await self.cache.tournament(tournament_id)).version

    # -- the owner's commands (the level clock, the tables) ---------------------------------------

    async def execute(
        self, tournament_id: str, command: Any, *, fence: Fence | None = None, then: FollowUp | None = None,
        along: Along | None = None,
    ) -> Executed:
        """Decide any tournament command as given (its ``now_ms`` and ``next_draw`` are the caller's) and
        append its events with the money they move: the path of the level clock and of the tables' driver
        (StartTournament, AdvanceLevel, DealTableHand, EndTableHand, ...). ``fence``: only while this
        replica holds the tournament's lease; ``then``: a command decided after it in the same append;
        ``along``: another stream's part of that append (:meth:`TournamentWrites.write`)."""
        if isinstance(command, CreateTournament):
            written = await self.writes.create(command, None)
        else:
            live = await self.cache.tournament(tournament_id)
            written = await self.writes.write(live, lambda state, now: command, None, fence, then, along)
        return await self._executed(tournament_id, written)

    async def live(self, tournament_id: str) -> LiveTournament:
        """The live tournament (for the owner's tasks: its state with the committed seed)."""
        return await self.cache.tournament(tournament_id)

    # -- lifecycle -------------------------------------------------------------------------------

    def end_watches(self) -> None:
        """Tell every watch to finish (graceful shutdown)."""
        for live in self.cache.loaded():
            end_watches(live.watchers)
