"""The write path: decide a command against the cached table, append its events, retry on a conflict.

Writing (:meth:`TableWrites.execute`) is optimistic: decide against the cached state and append with the
cached version as the expected one. If another writer got there first, the append is refused; the replica
catches up from the log and decides again (a few times, then ABORTED/CONFLICT). A client's own ``turn``
(the turn it clicked in, ``turn_number``) is checked first: if that turn is over, the request is refused
with STALE_TURN, unless its request id was already recorded, in which case it is a retry of a request that
succeeded and is answered as such: with the first call's result, the table as of the versions that call
appended (folded again from the log when the table has moved on since), or REQUEST_ID_REUSED when the id
was recorded for a different request (:mod:`stud_service.server.api.request_ids`).

The replica's own commands (the deals, timeouts, expired offers, suspended players' leaving) give the
version they were decided at instead of a turn, and are fenced by the table's lease
(:mod:`stud_service.server.tables.owned`). Money a command moves (a buy-in, a top-up, a cash-out) moves
between the player's account and the table in the same transaction as its events (docs/money.md).
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable
from functools import partial
from typing import Any

import grpc

from stud_service.engine import (
    Command,
    DomainError,
    NotYourTurn,
    TableExists,
    TableState,
    decide,
    event_from_json,
    event_to_json,
    evolve,
    execute,
    initial_state,
    turn_number,
)
from stud_service.ledger.book import Ledger
from stud_service.ledger.errors import LedgerError
from stud_service.ledger.transfers import table_effects
from stud_service.observability.metrics import Metrics
from stud_service.server.api.errors import RequestError
from stud_service.server.api.request_ids import RequestKey
from stud_service.server.tables.cache import TableCache
from stud_service.server.tables.followed import kept_conflicting
from stud_service.server.tables.live import LiveTable, TableAt, TableMoved, now_ms, stream_id_for
from stud_service.server.tables.owned import OwnedTables
from stud_service.server.tables.seeds import commit_next_hand
from stud_service.store import AppendResult, ConcurrencyError, EventStore, Fence, StreamAppend

WRITE_ATTEMPTS = 5

Commands = Command | tuple[Command, ...]  # several: decided in turn, appended together


def decide_all(state: TableState, commands: Commands) -> list[Any]:
    """The events of one command, or of several decided in turn (each against the state the ones before
    it leave), to be appended as one."""
    if not isinstance(commands, tuple):
        return decide(state, commands)
    events: list[Any] = []
    for command in commands:
        more, state = execute(state, command)
        events.extend(more)
    return events


def _where_the_turn_is(live: LiveTable) -> dict[str, str]:
    """The ErrorInfo metadata of a click refused for its turn (STALE_TURN, NOT_YOUR_TURN): the current turn
    (0: nobody is to act) and the table's version, so the client decides again on a view at least as new."""
    return {"turn": str(turn_number(live.state)), "version": str(live.version)}


def _stored(request_id: RequestKey | None) -> tuple[str | None, bytes | None]:
    """The request id and fingerprint as the store records them."""
    return (request_id.key, request_id.fingerprint) if request_id is not None else (None, None)


class TableWrites:
    """Commands written to the tables of ``cache``: clients' and this replica's own."""

    def __init__(
        self,
        store: EventStore,
        ledger: Ledger,
        cache: TableCache,
        owned: OwnedTables,
        metrics: Metrics | None,
    ) -> None:
        self.store = store
        self.ledger = ledger
        self.cache = cache
        self.owned = owned
        self.metrics = metrics

    async def execute(
        self,
        table_id: str,
        make_command: Callable[[TableState, int], Commands],
        *,
        request_id: RequestKey | None = None,
        turn: int | None = None,
    ) -> TableAt:
        """Decide ``make_command(state, now_ms)`` against the table and append its events.

        ``turn``: the turn the client acted in (``turn_number``); refused with STALE_TURN if that
        turn is over. Returns the table with the events applied (for a retry of a recorded request,
        as of that request's last version).
        """
        live = await self.cache.table(table_id)
        with live.log_scope():
            version = await self.write(live, make_command, request_id, turn=turn)
            # Folding an old version (a retry) reads the log: outside the write lock write() holds.
            return await self.table_at(live, version)

    async def create(self, table_id: str, command: Command, request_id: RequestKey | None) -> TableAt:
        """Append a table's first event (expected version 0); TableExists if the stream has one
        (unless ``request_id`` created it: a retry, answered with the table as it was created). The first
        hand's seed is committed in the same append, before any player can sit down and send a client seed."""
        events = decide_all(initial_state(), (command, commit_next_hand(now_ms())))
        try:
            result = await self.store.append(
                stream_id_for(table_id), 0, [event_to_json(event) for event in events], *_stored(request_id)
            )
        except ConcurrencyError:
            raise TableExists(f"table {table_id!r} already exists") from None
        live = await self.cache.table(table_id)
        if not result.duplicate:
            with contextlib.suppress(Exception):  # else the next round of some replica takes it
                await self.owned.take_now()
        retry = await self._retry_of(live, request_id) if result.duplicate else None
        return await self.table_at(live, retry if retry is not None else result.version)

    async def write(
        self,
        live: LiveTable,
        make_command: Callable[[TableState, int], Commands],
        request_id: RequestKey | None,
        expected_version: int | None = None,
        *,
        turn: int | None = None,
    ) -> int:
        """Decide and append under the table's write lock; the version the reply is to show (for a
        retry, the last version its first call appended). ``expected_version`` is for the replica's
        own tasks (clock, dealer: any change makes their command moot); clients' clicks give ``turn``."""
        # A request id already recorded is found when its request no longer applies (stale turn,
        # refused, nothing to do) or when the store refuses to record it twice: never at the cost of
        # a read for a request that is new.
        async with live.write_lock:
            for _attempt in range(WRITE_ATTEMPTS):
                if expected_version is not None and expected_version != live.version:
                    raise TableMoved(f"the table is at version {live.version}, not {expected_version}")
                if turn is not None and turn > live.state.turns:
                    await self.cache.catch_up(live)  # the client saw a turn we have not caught up to
                if turn is not None and turn != (current := turn_number(live.state)):
                    if (retry := await self._retry_of(live, request_id)) is not None:
                        return retry
                    raise RequestError(
                        grpc.StatusCode.FAILED_PRECONDITION,
                        "STALE_TURN",
                        f"turn {turn} is over; the current turn is {current or 'none (nobody is to act)'}",
                        _where_the_turn_is(live),
                    )
                now = now_ms()
                try:
                    events = decide_all(live.state, make_command(live.state, now))
                except DomainError as error:
                    if (retry := await self._retry_of(live, request_id)) is not None:
                        return retry
                    if isinstance(error, NotYourTurn):  # handled as STALE_TURN is: decide again from here
                        error.metadata.update(_where_the_turn_is(live))
                    raise
                if not events:
                    # Nothing to do (e.g. sitting in when already in): nothing to record.
                    retry = await self._retry_of(live, request_id)
                    return retry if retry is not None else live.version
                payloads = [event_to_json(event) for event in events]  # appended, then applied as they are
                # The replica's own commands (expected_version given) are the owner's: fenced by its lease.
                fence = self.owned.fence(live) if expected_version is not None else None
                try:
                    result = await self._append(live, events, payloads, request_id, now, fence)
                except LedgerError:
                    if (retry := await self._retry_of(live, request_id)) is not None:
                        return retry
                    raise
                except ConcurrencyError:
                    if self.metrics is not None:
                        self.metrics.append_conflict()
                        self.metrics.append_retry()
                    await self.cache.catch_up(live)
                    continue
                return await self.cache.appended(
                    live, result, request_id,
                    partial(self.cache.apply_appended, live, events, payloads, result.first_version),
                )
        raise kept_conflicting("table")

    async def _append(
        self,
        live: LiveTable,
        events: list[Any],
        payloads: list[dict[str, Any]],
        request_id: RequestKey | None,
        now: int,
        fence: Fence | None = None,
    ) -> AppendResult:
        """Append one command's events (``payloads``: their JSON); money they move (a buy-in, a top-up, a
        cash-out) moves between the player's account and the table in the same transaction (docs/money.md),
        and seats taken or left go into the players' streams, their own calls checked against their
        protection first (docs/player-protection.md)."""
        config = live.state.config
        currency = config.currency if config is not None else ""
        effects = table_effects(events, live.state.seats.values(), money=bool(currency))
        if not effects:
            return await self.store.append(
                live.stream_id, live.version, payloads, *_stored(request_id), fence
            )
        # A tournament seats its own players: its registration is where protection is checked (a hook for
        # the tournaments' wiring), not each table move.
        guard = config is not None and not config.tournament_id
        return await self.ledger.append_table_command(
            live.stream_id, live.table_id, currency, live.version, payloads, effects, now,
            *_stored(request_id), fence, guard=guard,
        )

    def along(
        self, live: LiveTable, make_command: Callable[[TableState, int], Commands], now: int
    ) -> tuple[StreamAppend, Callable[[AppendResult], None]] | None:
        """The table's part of an append another stream's writer makes (a tournament's, letting it deal):
        ``make_command``'s events decided against the table as it stands, at its version, and what applies
        them once appended. None if they move money or seat anyone (their own path: :meth:`write`). The
        caller holds the table's write lock; the other writer's fence is the table's owner's."""
        try:
            events = decide_all(live.state, make_command(live.state, now))
        except (DomainError, TableMoved):
            return None  # refused (or moot: no seed committed yet) on its own path, as it would be
        config = live.state.config
        if not events or table_effects(
                events, live.state.seats.values(), money=bool(config is not None and config.currency)):
            return None
        payloads = [event_to_json(event) for event in events]

        def applied(result: AppendResult) -> None:
            self.cache.apply_appended(live, events, payloads, result.first_version)

        return StreamAppend(live.stream_id, live.version, payloads), applied

    async def _retry_of(self, live: LiveTable, request_id: RequestKey | None) -> int | None:
        return await self.cache.retry_of(live, request_id)

    async def table_at(self, live: LiveTable, version: int) -> TableAt:
        """The table as of ``version``: the live one, or folded again from the log (retries only:
        rare, and correct rather than fast)."""
        if version == live.version:
            return TableAt.now(live)
        state, last_result, commitment = initial_state(), None, ""
        for stored in await self.store.read_stream(live.stream_id, limit=version):
            state = evolve(state, event_from_json(stored.payload))
            kind = stored.payload.get("type")
            if kind == "HandEnded":
                last_result = stored.payload
            elif kind == "HandStarted":
                commitment = str(stored.payload.get("commitment", ""))
        return TableAt(live, version, state, last_result, commitment)
