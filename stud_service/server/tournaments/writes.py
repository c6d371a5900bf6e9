"""The write path of a tournament: decide against the cached state, append at its version, retry on conflict.

As a table's (:mod:`stud_service.server.tables.writes`): a command is decided against the state this
replica folded, and its events appended with that version as the expected one. If another writer (another
replica) got there first the append is refused; the replica catches up from the log and decides again
(``WRITE_ATTEMPTS`` times, then ABORTED/CONFLICT). Money the events move (entries, refunds, prizes: see
:mod:`.money`) moves in the same transaction (``Ledger.append_with_pool``): a refusal of the ledger
(INSUFFICIENT_FUNDS, PLAYER_SUSPENDED) appends nothing anywhere.

A write may carry another stream's part (``along``: a table's next deal, decided with the tournament's
events that let it deal) in the same transaction, when the events move no money: one append instead of two,
both or neither. A conflict on that part is the caller's (:class:`AlongConflict`): its stream moved.

A request id already recorded in the stream makes a call a retry of the first: it is answered with the
tournament as that call left it (and REQUEST_ID_REUSED for an id recorded for a different request,
:mod:`stud_service.server.api.request_ids`), whatever the tournament refuses now.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from functools import partial
from typing import Any

from stud_service.ledger.book import Ledger
from stud_service.ledger.errors import LedgerError
from stud_service.server.api.request_ids import RequestKey
from stud_service.server.tables.followed import kept_conflicting
from stud_service.server.tournaments.cache import TournamentCache
from stud_service.server.tournaments.live import LiveTournament, now_ms, stream_id_for
from stud_service.server.tournaments.money import pool_transfers
from stud_service.store import AppendResult, ConcurrencyError, EventStore, Fence, StreamAppend
from stud_service.tournaments import (
    CreateTournament,
    TournamentError,
    TournamentState,
    event_from_json,
    event_to_json,
    execute,
    execute_then,
    initial_state,
    replay,
)
from stud_service.tournaments.errors import TournamentExists

# More than a table's: a registration burst from several replicas keeps one tournament's stream busy, and
# each lost attempt is another replica's write that went through.
WRITE_ATTEMPTS = 10

MakeCommand = Callable[[TournamentState, int], Any]  # (state, now_ms) -> the command to decide
# (the state after the first command, now_ms) -> a command to decide after it in the same append, or None
FollowUp = Callable[[TournamentState, int], Any | None]
# (the events decided, now_ms) -> another stream's part of their append and what applies it once
# appended (given its result), or None: the tournament's events alone.
Along = Callable[[list[Any], int], tuple[StreamAppend, Callable[[AppendResult], None]] | None]


class AlongConflict(Exception):
    """The stream of a write's ``along`` part was not at its expected version: nothing was appended."""


@dataclass(frozen=True, slots=True)
class Written:
    """What a write did: the version to answer with (a retry's: the last its first call appended) and
    the events this call appended ([] for a retry or a command with nothing to do)."""

    version: int
    events: list[Any]


def _at(then: FollowUp, now: int) -> Callable[[TournamentState], Any | None]:
    return lambda after: then(after, now)


def _stored(request_id: RequestKey | None) -> tuple[str | None, bytes | None]:
    return (request_id.key, request_id.fingerprint) if request_id is not None else (None, None)


class TournamentWrites:
    def __init__(self, store: EventStore, ledger: Ledger, cache: TournamentCache) -> None:
        self.store = store
        self.ledger = ledger
        self.cache = cache

    async def create(self, command: CreateTournament, request_id: RequestKey | None) -> Written:
        """Append a tournament's first events (expected version 0); TOURNAMENT_EXISTS if its stream has
        any, unless ``request_id`` created it (a retry, answered with the tournament as it was created)."""
        events, _state = execute(initial_state(), command)
        try:
            result = await self.store.append(
                stream_id_for(command.tournament_id), 0, [event_to_json(event) for event in events],
                *_stored(request_id),
            )
        except ConcurrencyError:
            live = await self.cache.tournament(command.tournament_id)
            retry = await self._retry_of(live, request_id)
            if retry is None:
                raise TournamentExists(f"tournament {command.tournament_id!r} already exists") from None
            return Written(retry, [])
        live = await self.cache.tournament(command.tournament_id)
        if result.duplicate:
            return Written(await self._retry_of(live, request_id) or result.version, [])
        self.cache.apply_appended(live, events, result.first_version)
        return Written(result.version, events)

    async def write(
        self,
        live: LiveTournament,
        make_command: MakeCommand,
        request_id: RequestKey | None = None,
        fence: Fence | None = None,
        then: FollowUp | None = None,
        along: Along | None = None,
    ) -> Written:
        """Decide ``make_command(state, now_ms)`` and append its events (with the money they move) under
        the tournament's write lock; ``fence``: only while the replica holds the tournament's lease.
        ``then``: a command to decide after it, against the state its events leave, in the same append
        (``execute_then``: a table's hand report and its next deal, one transaction). ``along``: another
        stream's part of the append (the module's docstring)."""
        async with live.write_lock:
            for _attempt in range(WRITE_ATTEMPTS):
                now = now_ms()
                try:
                    command = make_command(live.state, now)
                    if then is None:
                        events, after = execute(live.state, command)
                    else:
                        events, after = execute_then(live.state, command, _at(then, now))
                except TournamentError:
                    if (retry := await self._retry_of(live, request_id)) is not None:
                        return Written(retry, [])
                    raise
                try:
                    result = await self._append(live, events, request_id, now, fence, along)
                except LedgerError:
                    if (retry := await self._retry_of(live, request_id)) is not None:
                        return Written(retry, [])
                    raise
                except ConcurrencyError as error:
                    if error.stream_id != live.stream_id:
                        raise AlongConflict(str(error)) from None
                    await self.cache.catch_up(live)
                    continue
                version = await self.cache.appended(
                    live, result, request_id,
                    partial(self.cache.apply_appended, live, events, result.first_version, after),
                )
                return Written(version, [] if result.duplicate else events)
        raise kept_conflicting("tournament")

    async def _append(
        self,
        live: LiveTournament,
        events: list[Any],
        request_id: RequestKey | None,
        now: int,
        fence: Fence | None,
        along: Along | None = None,
    ) -> AppendResult:
        payloads = [event_to_json(event) for event in events]
        config = live.state.config
        assert config is not None  # a tournament in the cache was created
        transfers = pool_transfers(config, events)
        if not transfers:
            other = along(events, now) if along is not None else None
            if other is None:
                return await self.store.append(
                    live.stream_id, live.version, payloads, *_stored(request_id), fence
                )
            part, applied = other
            own = StreamAppend(live.stream_id, live.version, payloads, *_stored(request_id))
            result, other_result = await self.store.append_all([own, part], fence)
            if not result.duplicate:
                applied(other_result)  # the other stream's first: its change is what the tournament's shows
            return result
        return await self.ledger.append_with_pool(
            live.stream_id, live.tournament_id, config.currency, live.version, payloads, transfers, now,
            *_stored(request_id), fence,
        )

    async def _retry_of(self, live: LiveTournament, request_id: RequestKey | None) -> int | None:
        return await self.cache.retry_of(live, request_id)

    async def state_at(self, live: LiveTournament, version: int) -> TournamentState:
        """The tournament as of ``version``: the live one, or folded again from the log (retries only)."""
        if version == live.version:
            return live.state
        stored = await self.store.read_stream(live.stream_id, limit=version)
        return replay(event_from_json(event.payload) for event in stored)
