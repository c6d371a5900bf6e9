"""Tables live on this replica: cached state, commands, the dealer, action clocks and watcher fan-out.

The event log is the only truth. Each replica keeps, per table it has touched, the state folded from
the log and follows the stream (the store's NOTIFY subscription), so writes made by any replica reach
every replica's cache, clocks and watchers. A replica applies its own appends as they commit and
tells the subscription the version it holds, so only other replicas' writes cost it a read.

Writing (``execute``) is optimistic: decide against the cached state and append with the cached
version as the expected one. If another writer got there first, the append is refused; the replica
catches up from the log and decides again (a few times, then ABORTED/CONFLICT). A client's own
``turn`` (the turn it clicked in, ``turn_number``) is checked first: if that turn is over, the
request is refused with STALE_TURN, unless its request id was already recorded, in which case
it is a retry of a request that succeeded and is answered as such: with the first call's result,
the table as of the versions that call appended (folded again from the log when the table has moved
on since), or REQUEST_ID_REUSED when the id was recorded for a different request
(:mod:`stud_service.server.api.request_ids`).

Every event is applied exactly once per replica, in version order, by :meth:`TableRuntime._apply`,
whichever path (own write or followed stream) brings it first. After each event:

- the **action clock** is re-armed from the state (``action_deadline_ms``): when it passes, the
  replica submits ``Timeout`` with the version it armed at, so a player who acted in time turns the
  timeout into a refused append and nothing happens;
- the **seat offers** of the waiting list are armed the same way (``seat_offer_deadline_ms``): when
  the first runs out, the replica submits ``ExpireSeatOffers`` with the version it armed at, so a
  player who took the seat in time (or another replica passing the offer on first) wins;
- the **dealer** starts the next hand ``next_hand_pause`` seconds after the table became ready
  (``can_start_hand``), again with an expected version: of several replicas only one deals. The pause
  counts from when the event that left the table ready was recorded, not from when a dealer was armed:
  a dealer armed again later (the lease taken again after a database outage, a table taken over from
  another replica) deals at once if the pause has already run out;
- every watcher's queue gets the event and the state after it;
- log lines about the table carry its id, and the hand's id (``{table}/h-{n}``) while a hand runs:
  each table's work runs inside :meth:`LiveTable.log_scope`.

Clocks, seat offers and the dealer run only on the table's **owner** (:mod:`~.tables.ownership`):
with :meth:`TableRuntime.keep_ownership` a replica loads and arms the tables whose leases it takes, and
its own commands (the deals, timeouts, expired offers, suspended players' leaving) are fenced by the lease's
epoch in the append's transaction: a replica that lost a lease (paused past its expiry) writes none of them
and drops the table's work. Any other table is loaded on first use by this replica's clients, and followed
for their watchers and reads; their commands are written here, serialised by the expected version. How much
its clients use each table (watch streams, recent calls) is the replica's interest: the tables they clearly
use most come to be owned here (``_interest``; a table handed over is released before its next deal). Without
``keep_ownership`` (a single replica, tests) the replica owns every table it loads.

While the database is away, none of this stops for good: the dealer, the action clocks, the followers
and the lease rounds each retry with capped backoff (:mod:`stud_service.backoff`) until it is back, and
stop only when the table has changed under them (a refused append) or the runtime closes.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

import grpc

from stud_service.access import AccessLog
from stud_service.backoff import Backoff
from stud_service.engine import (
    Command,
    CommitShuffle,
    DomainError,
    ExpireSeatOffers,
    Leave,
    NoTable,
    NotYourTurn,
    OfferNotDue,
    StartHand,
    TableExists,
    TableState,
    Timeout,
    TimeoutNotDue,
    action_deadline_ms,
    can_start_hand,
    decide,
    event_from_json,
    event_to_json,
    evolve,
    execute,
    initial_state,
    seat_offer_deadline_ms,
    turn_number,
)
from stud_service.engine.state import hands_ended, players_ready
from stud_service.ledger.accounts import TableRake
from stud_service.ledger.book import Ledger
from stud_service.ledger.errors import LedgerError
from stud_service.ledger.transfers import table_transfers
from stud_service.observability.logging import log_context
from stud_service.observability.metrics import Metrics
from stud_service.server.api.errors import RequestError
from stud_service.server.api.replies import ReplyCache
from stud_service.server.api.request_ids import RequestKey, check_same_request
from stud_service.server.tables.ownership import Leases, OwnershipEvents, OwnershipKeeper
from stud_service.shuffle import new_commitment, prepare_deal, seed_from_secret, seed_secret
from stud_service.store import AppendResult, ConcurrencyError, EventStore, Fence, LeaseLost, spans
from stud_service.store.errors import is_store_fault

_log = logging.getLogger(__name__)

STREAM_PREFIX = "tables/"
WRITE_ATTEMPTS = 5
# Events logged at INFO (one line each per hand); every other event is logged at DEBUG.
_LOGGED_EVENTS = frozenset({"HandStarted", "HandEnded"})
# Replicas' clocks differ a little: a Timeout refused as not yet due is tried again this much later.
TIMEOUT_RETRY_SECONDS = 0.05
# A background task that failed for another reason than the store is tried again, at most this far apart.
TASK_FAILURE_BACKOFF_CAP = 30.0
# An action clock this long past its deadline has not fired: the table waits on this replica.
PAST_DEADLINE_GRACE_SECONDS = 10.0


def stream_id_for(table_id: str) -> str:
    """A table's stream id is its resource name, ``tables/{table}``."""
    return STREAM_PREFIX + table_id


def hand_log_id(table_id: str, hand: int) -> str:
    """The hand id on log lines about a hand: ``{table}/h-{number}``."""
    return f"{table_id}/h-{hand}"


def now_ms() -> int:
    return int(time.time() * 1000)


def _where_the_turn_is(live: LiveTable) -> dict[str, str]:
    """The ErrorInfo metadata of a click refused for its turn (STALE_TURN, NOT_YOUR_TURN): the current turn
    (0: nobody is to act) and the table's version, so the client decides again on a view at least as new."""
    return {"turn": str(turn_number(live.state)), "version": str(live.version)}


def _stored(request_id: RequestKey | None) -> tuple[str | None, bytes | None]:
    """The request id and fingerprint as the store records them."""
    return (request_id.key, request_id.fingerprint) if request_id is not None else (None, None)


class TableMoved(Exception):
    """The table changed since the replica's own task (clock, dealer) read it: its command is moot.
    Never a client's refusal (a client's click is checked by its turn instead)."""


@dataclass(frozen=True, slots=True)
class AppliedEvent:
    """One event as a watcher needs it: the stored JSON, when it was recorded, and the state after it."""

    version: int
    payload: dict[str, Any]
    recorded_at: datetime
    state: TableState


# Events a watcher may have waiting before it is switched to catching up from the log: a client that
# stops reading must not make the server hold the table's whole history in memory.
WATCH_BUFFER = 1_000
LAGGING = "lagging"  # queued once when a watcher's buffer is full; it then reads what it missed from the log


@dataclass(eq=False)
class Watcher:
    """One watch stream's inbox: applied events, LAGGING, or None (the server is shutting down)."""

    queue: asyncio.Queue[AppliedEvent | str | None] = field(default_factory=asyncio.Queue)
    lagging: bool = False


@dataclass(eq=False)
class DeadlineTimer:
    """A deadline kept in a table's state (an action clock, a seat offer) and the work it fires: a timer
    until the deadline (cheap to re-arm after every event), then a task that submits the command."""

    timer: asyncio.TimerHandle | None = None
    task: asyncio.Task[None] | None = None
    key: tuple[int, int] | None = None  # (version, deadline_ms) it is armed for

    def disarm(self) -> None:
        self.key = None
        if self.timer is not None:
            self.timer.cancel()
            self.timer = None
        if self.task is not None:
            self.task.cancel()
            self.task = None


@dataclass(frozen=True)
class _Deadline:
    """One kind of deadline: where to find it in the state, the command it fires and the refusal that
    says it is not due yet (clocks of replicas differ a little: that one is tried again soon)."""

    name: str
    due_ms: Callable[[TableState], int | None]
    command: Callable[[int], Command]
    not_due: type[DomainError]
    timer: Callable[[LiveTable], DeadlineTimer]


@dataclass(frozen=True, slots=True)
class SeedCommitment:
    """The next hand's committed server seed (its ShuffleCommitted, at ``version``): the seed the dealer must
    deal that hand with. The seed stays in this replica's memory and, sealed, in the log."""

    hand: int
    commitment: str
    server_seed: bytes
    version: int


Commands = Command | tuple[Command, ...]  # several: decided in turn, appended together


def _commit_next_hand(now: int) -> CommitShuffle:
    """A fresh server seed for the next hand, committed to (README "The provably fair shuffle")."""
    server_seed, commitment = new_commitment()
    return CommitShuffle(commitment, seed_secret(server_seed), now)


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


@dataclass(eq=False)
class LiveTable:
    """One table's state on this replica and the tasks that keep it moving."""

    table_id: str
    version: int = 0
    state: TableState = field(default_factory=initial_state)
    last_result: dict[str, Any] | None = None  # the last HandEnded payload
    commitment: str = ""  # the deck commitment of the current (or last) hand
    created_ms: int | None = None  # TableCreated's time: every table is folded from its first event
    replies: ReplyCache = field(default_factory=ReplyCache)  # reply parts shared by every call
    # Client seeds sent for the next deal, by player id (from ClientSeedSet; consumed by HandStarted).
    client_seeds: dict[str, str] = field(default_factory=dict)
    next_seed: SeedCommitment | None = None  # from the last ShuffleCommitted
    watchers: set[Watcher] = field(default_factory=set)
    write_lock: asyncio.Lock = field(default_factory=asyncio.Lock)
    follower: asyncio.Task[None] | None = None
    clock: DeadlineTimer = field(default_factory=DeadlineTimer)  # the action clock
    seat_offers: DeadlineTimer = field(default_factory=DeadlineTimer)  # the waiting list's first offer
    dealer: asyncio.Task[None] | None = None
    dealer_version: int | None = None
    last_event_at: float = 0.0  # epoch seconds its last event was recorded: the hand pause counts from it
    # time.monotonic() of the last lookup by a client's call (not the lobby's): a table not owned here is
    # unloaded a while after it, and this replica's interest in the table counts it for a lease period.
    used_at: float = float("-inf")

    @property
    def stream_id(self) -> str:
        return stream_id_for(self.table_id)

    def log_scope(self) -> contextlib.AbstractContextManager[None]:
        """Log lines written inside carry this table's id and, while a hand runs, the hand's."""
        hand = self.state.hand
        return log_context(
            table=self.table_id, hand=hand_log_id(self.table_id, hand.number) if hand is not None else None
        )


@dataclass(frozen=True, slots=True)
class TableAt:
    """A table as of one version: what a write's reply shows. The live version for a new write;
    for a retry, the last version its first call appended."""

    live: LiveTable
    version: int
    state: TableState
    last_result: dict[str, Any] | None
    commitment: str

    @staticmethod
    def now(live: LiveTable) -> TableAt:
        return TableAt(live, live.version, live.state, live.last_result, live.commitment)


@dataclass(eq=False, slots=True)
class _Loading:
    """The first lookups of one table name: they load it one at a time (the first does the work)."""

    lock: asyncio.Lock = field(default_factory=asyncio.Lock)
    callers: int = 0


@dataclass(frozen=True)
class RuntimeSettings:
    # Pause between a hand's end (or the table becoming ready) and the next deal.
    next_hand_pause: float = 3.0
    # Deal hands automatically; turned off only by tests that drive StartHand themselves.
    auto_deal: bool = True
    # How often the rake tables took is swept into the house's accounts (docs/money.md); 0: never (tests).
    rake_sweep_interval: float = 30.0
    # With ownership: how long a table this replica does not own stays loaded (and followed) after its
    # clients' last call, once nobody here watches it.
    unload_unused_after: float = 60.0
    # Why real-currency play (tables with a currency, the cashier's deposits and withdrawals) is refused on
    # this replica; None: it is not (server.api.money_gate).
    real_money_refused: str | None = None


class TableRuntime:
    """All tables of one replica. Create one per server; ``close`` stops its tasks."""

    def __init__(
        self, store: EventStore, settings: RuntimeSettings | None = None, metrics: Metrics | None = None
    ) -> None:
        self.store = store
        self.ledger = Ledger(store)
        self.access = AccessLog(store)  # privileged calls' records (server.api.access)
        self.settings = settings or RuntimeSettings()
        self.metrics = metrics
        self._tables: dict[str, LiveTable] = {}
        self._loading: dict[str, _Loading] = {}
        self._closed = False
        self._background: set[asyncio.Task[Any]] = set()
        self._ownership: OwnershipKeeper | None = None  # None: this replica owns every table it loads
        self._keeping: asyncio.Task[None] | None = None
        if metrics is not None:
            metrics.tables_past_deadline.set_function(self.tables_past_deadline)

    # -- loading -------------------------------------------------------------------------------

    def keep_ownership(self, leases: Leases) -> OwnershipKeeper:
        """From now on own only the tables whose leases this replica holds: take and renew them in rounds,
        load what it takes, arm clocks and dealers for those only."""
        events = OwnershipEvents(self._lease_gained, self._lease_lost, self._between_hands, self._interest)
        keeper = OwnershipKeeper(leases, events)
        self._ownership = keeper
        self._keeping = self._spawn(keeper.run())
        self._spawn(self._unload_unused_forever())
        return keeper

    async def _unload_unused_forever(self) -> None:
        after = self.settings.unload_unused_after
        while True:
            await asyncio.sleep(max(after / 4, 0.05))
            self.unload_unused(time.monotonic() - after)

    def unload_unused(self, used_before: float) -> int:
        """Stop following the tables not owned here that nobody here watches or has used since ``used_before``
        (a monotonic time); how many. A later call loads them again from the log."""
        return sum(self._unload_if_unused(live, used_before) for live in list(self._tables.values()))

    def _unload_if_unused(self, live: LiveTable, used_before: float) -> bool:
        if self.owns(live) or live.watchers or live.write_lock.locked() or live.used_at >= used_before:
            return False
        del self._tables[live.table_id]
        if live.follower is not None:
            live.follower.cancel()
        if self.metrics is not None:
            self.metrics.table_closed()
        return True

    def owns(self, live: LiveTable) -> bool:
        return self._ownership is None or self._ownership.epoch(live.stream_id) is not None

    def _fence(self, live: LiveTable) -> Fence | None:
        """The fence of this replica's own commands at ``live``; TableMoved if it does not own the table."""
        keeper = self._ownership
        if keeper is None:
            return None
        epoch = keeper.epoch(live.stream_id)
        if epoch is None:
            raise TableMoved(f"{live.stream_id} is not owned here")
        return Fence(live.stream_id, keeper.leases.me, epoch)

    async def _lease_gained(self, stream_id: str, epoch: int) -> None:
        try:
            live = await self.table(stream_id[len(STREAM_PREFIX) :], client=False)
            await self._catch_up(live)  # what the last owner wrote: the clocks are armed from it
        except Exception:
            # Not loadable now (the store away, a broken stream): the lease lapses and is taken again later.
            _log.warning("could not load %s after taking its lease", stream_id, exc_info=True)
            return
        with live.log_scope():
            _log.info("lease taken", extra={"table": live.table_id, "epoch": epoch})
            self._arm_all(live)

    def _lease_lost(self, stream_id: str) -> None:
        live = self._tables.get(stream_id[len(STREAM_PREFIX) :])
        if live is None:
            return
        live.clock.disarm()
        live.seat_offers.disarm()
        if live.dealer is not None:
            if live.dealer is not asyncio.current_task():  # the dealer handing the table over goes on
                live.dealer.cancel()
            live.dealer = None
        _log.info("lease given up or lost", extra={"table": live.table_id})
        if self._ownership is not None:  # no client of ours uses it: following it would be for nobody
            self._unload_if_unused(live, time.monotonic() - self.settings.unload_unused_after)

    def _between_hands(self, streams: list[str]) -> list[str]:
        """Of these owned tables, those that may change owner now: no hand running, no write under way;
        those nobody here watches first."""
        idle = []
        for stream_id in streams:
            live = self._tables.get(stream_id[len(STREAM_PREFIX) :])
            if live is None or (live.state.hand is None and not live.write_lock.locked()):
                idle.append((live is not None and bool(live.watchers), stream_id))
        return [stream_id for _watched, stream_id in sorted(idle)]

    def _interest(self) -> dict[str, int]:
        """How much this replica's clients use each table (what it claims, server.tables.ownership): its watch
        streams, plus one if a client called it within the last lease period."""
        assert self._ownership is not None
        recently = time.monotonic() - self._ownership.lease_seconds
        interest = {}
        for live in self._tables.values():
            clients = len(live.watchers) + (live.used_at >= recently)
            if clients:
                interest[live.stream_id] = clients
        return interest

    async def table(self, table_id: str, *, client: bool = True) -> LiveTable:
        """The live table, loaded from the log on first use; NoTable if it was never created. ``client``:
        a client's call that plays or watches it (not the lobby's listing, not a lease taken here)."""
        live = self._tables.get(table_id)
        if live is not None:
            if client:
                live.used_at = time.monotonic()
            return live
        # The first lookups of a name queue on one lock, so one of them loads the table. The entry goes
        # with its last caller: names are the caller's to choose, and nothing may stay behind for a
        # table that does not exist.
        loading = self._loading.get(table_id)
        if loading is None:
            loading = self._loading[table_id] = _Loading()
        loading.callers += 1
        try:
            async with loading.lock:
                live = self._tables.get(table_id)  # loaded while this caller queued
                live = live if live is not None else await self._load(table_id)
                if client:
                    live.used_at = time.monotonic()
                return live
        finally:
            loading.callers -= 1
            if loading.callers == 0:
                del self._loading[table_id]

    async def _load(self, table_id: str) -> LiveTable:
        live = LiveTable(table_id)
        await self._catch_up(live)
        if live.version == 0:
            raise NoTable(f"no table {table_id!r}")
        self._tables[table_id] = live
        live.follower = self._spawn(self._follow(live))
        if self.metrics is not None:
            self.metrics.table_opened()
        return live

    def loading_count(self) -> int:
        """Names being looked up for the first time right now; none are kept once their callers are done."""
        return len(self._loading)

    def loaded_tables(self) -> list[LiveTable]:
        return list(self._tables.values())

    async def _catch_up(self, live: LiveTable) -> None:
        for stored in await self.store.read_stream(live.stream_id, after_version=live.version):
            self._apply_stored(live, stored.version, stored.payload, stored.recorded_at)

    async def _follow(self, live: LiveTable) -> None:
        """Apply what other writers append to the stream (our own appends are applied as they commit,
        and ``position`` tells the subscription so: their announcements cost no read)."""
        backoff = Backoff()
        while True:
            try:
                stream = self.store.subscribe(live.stream_id, live.version, position=lambda: live.version)
                async for stored in stream:
                    backoff.reset()
                    if stored.version > live.version:
                        with live.log_scope():
                            self._apply_stored(live, stored.version, stored.payload, stored.recorded_at)
            except asyncio.CancelledError:
                raise
            except Exception as error:
                # The subscription retries its own reads; a store fault that still gets here is retried
                # too, from the version we hold. Anything else is a bug worth a trace.
                if not is_store_fault(error):
                    _log.exception("following %s stopped", live.stream_id, extra={"table": live.table_id})
                    return
                await self._wait_for_store(live, backoff, "following", error)

    def _apply_stored(
        self, live: LiveTable, version: int, payload: dict[str, Any], recorded_at: datetime
    ) -> None:
        event = event_from_json(payload)
        self._apply(live, version, event, payload, recorded_at)

    def _apply(
        self, live: LiveTable, version: int, event: Any, payload: dict[str, Any], recorded_at: datetime
    ) -> None:
        if version != live.version + 1:
            return  # already applied by the other path
        live.state = evolve(live.state, event)
        live.version = version
        live.last_event_at = recorded_at.timestamp()
        kind = payload.get("type")
        if kind == "HandEnded":
            live.last_result = payload
        elif kind == "TableCreated":
            live.created_ms = int(payload["at_ms"])
        if kind == "HandStarted":
            live.commitment = str(payload.get("commitment", ""))
            live.client_seeds.clear()
        elif kind == "ShuffleCommitted":
            live.next_seed = _seed_commitment(payload, version)
            live.client_seeds.clear()  # a seed counts only once the hand's seed is committed
        if kind in _LOGGED_EVENTS or _log.isEnabledFor(logging.DEBUG):
            self._log_event(live, version, kind, payload)
        if kind == "ClientSeedSet":
            live.client_seeds[str(payload["player_id"])] = str(payload["seed"])
        if (
            self.metrics is not None
            and kind in ("HandStarted", "HandEnded")
            and live.state.config is not None
        ):
            variant = str(live.state.config.variant).lower()
            if kind == "HandStarted":
                self.metrics.hand_started(variant)
            else:
                self.metrics.hand_finished(variant)
        applied = AppliedEvent(version, payload, recorded_at, live.state)
        for watcher in live.watchers:
            if watcher.lagging:
                continue
            if watcher.queue.qsize() >= WATCH_BUFFER:
                watcher.lagging = True
                watcher.queue.put_nowait(LAGGING)
            else:
                watcher.queue.put_nowait(applied)
        if not self._closed and self.owns(live):
            self._arm_all(live)

    def _arm_all(self, live: LiveTable) -> None:
        for deadline in _DEADLINES:
            self._arm(live, deadline)
        self._arm_dealer(live)

    @staticmethod
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

    # -- writing -------------------------------------------------------------------------------

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
        live = await self.table(table_id)
        with live.log_scope():
            version = await self._execute(live, make_command, request_id, turn=turn)
            # Folding an old version (a retry) reads the log: outside the write lock _execute holds.
            return await self.table_at(live, version)

    async def create(self, table_id: str, command: Command, request_id: RequestKey | None) -> TableAt:
        """Append a table's first event (expected version 0); TableExists if the stream has one
        (unless ``request_id`` created it: a retry, answered with the table as it was created). The first
        hand's seed is committed in the same append, before any player can sit down and send a client seed."""
        events = decide_all(initial_state(), (command, _commit_next_hand(now_ms())))
        try:
            result = await self.store.append(
                stream_id_for(table_id), 0, [event_to_json(event) for event in events], *_stored(request_id)
            )
        except ConcurrencyError:
            raise TableExists(f"table {table_id!r} already exists") from None
        live = await self.table(table_id)
        if self._ownership is not None and not result.duplicate:
            with contextlib.suppress(Exception):  # else the next round of some replica takes it
                await self._ownership.take_now()
        retry = await self._retry_of(live, request_id) if result.duplicate else None
        return await self.table_at(live, retry if retry is not None else result.version)

    async def _execute(
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
                    await self._catch_up(live)  # the client saw a turn we have not caught up to
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
                fence = self._fence(live) if expected_version is not None else None
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
                    await self._catch_up(live)
                    continue
                if result.duplicate:
                    if (retry := await self._retry_of(live, request_id)) is not None:
                        return retry
                    await self._catch_up(live)
                else:
                    self._apply_events(live, events, payloads, result.first_version)
                return live.version
        raise RequestError(
            grpc.StatusCode.ABORTED, "CONFLICT", "other writers kept changing the table; retry"
        )

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
        cash-out) moves between the player's account and the table in the same transaction (docs/money.md)."""
        currency = live.state.config.currency if live.state.config is not None else ""
        transfers = table_transfers(events) if currency else []
        if not transfers:
            return await self.store.append(
                live.stream_id, live.version, payloads, *_stored(request_id), fence
            )
        return await self.ledger.append_with_transfers(
            live.stream_id, live.table_id, currency, live.version, payloads, transfers, now,
            *_stored(request_id), fence,
        )

    def _apply_events(
        self, live: LiveTable, events: list[Any], payloads: list[dict[str, Any]], first_version: int
    ) -> None:
        recorded_at = datetime.now(UTC)
        for offset, (event, payload) in enumerate(zip(events, payloads, strict=True)):
            self._apply(live, first_version + offset, event, payload, recorded_at)

    async def _retry_of(self, live: LiveTable, request_id: RequestKey | None) -> int | None:
        """The last version the first call appended if ``request_id`` is recorded in the stream (this
        is a retry); None if it is not; REQUEST_ID_REUSED if it was recorded for a different request."""
        if request_id is None:
            return None
        recorded = await self.store.find_request(live.stream_id, request_id.key)
        if recorded is None:
            return None
        check_same_request(recorded, request_id)
        if recorded.last_version > live.version:
            await self._catch_up(live)  # another replica wrote it
        return recorded.last_version

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

    # -- action clocks and seat offers ---------------------------------------------------------

    def _arm(self, live: LiveTable, deadline: _Deadline) -> None:
        timer = deadline.timer(live)
        due = deadline.due_ms(live.state)
        key = None if due is None else (live.version, due)
        if key == timer.key:
            return
        timer.disarm()
        timer.key = key
        if key is not None:
            delay = max(0.0, (key[1] - now_ms()) / 1000)
            timer.timer = asyncio.get_running_loop().call_later(delay, self._due, live, deadline, *key)

    def _due(self, live: LiveTable, deadline: _Deadline, version: int, due: int) -> None:
        timer = deadline.timer(live)
        timer.timer = None
        if not self._closed:
            timer.task = self._spawn(self._run_deadline(live, deadline, version, due))

    async def _run_deadline(self, live: LiveTable, deadline: _Deadline, version: int, due: int) -> None:
        with live.log_scope():
            await self._fire_until_done(live, deadline, version, due)

    async def _fire_until_done(self, live: LiveTable, deadline: _Deadline, version: int, due: int) -> None:
        async def fire() -> None:
            while True:
                await asyncio.sleep(max(0.0, (due - now_ms()) / 1000))
                try:
                    await self._execute(live, lambda state, now: deadline.command(now), None, version)
                except deadline.not_due:
                    await asyncio.sleep(TIMEOUT_RETRY_SECONDS)
                    continue
                if self.metrics is not None and deadline is _ACTION_CLOCK:
                    self.metrics.timeout_fired()
                return

        await self._until_done(live, deadline.name, fire)

    # -- the dealer ----------------------------------------------------------------------------

    def _arm_dealer(self, live: LiveTable) -> None:
        if not self.settings.auto_deal or not can_start_hand(live.state):
            return
        if live.dealer is not None and not live.dealer.done() and live.dealer_version == live.version:
            return
        if live.dealer is not None:
            live.dealer.cancel()
        live.dealer_version = live.version
        live.dealer = self._spawn(self._deal_after_pause(live, live.version))

    async def _deal_after_pause(self, live: LiveTable, version: int) -> None:
        await asyncio.sleep(max(0.0, live.last_event_at + self.settings.next_hand_pause - time.time()))
        keeper = self._ownership
        if keeper is not None and await keeper.hand_over_instead_of_dealing(live.stream_id):
            return  # between hands: the replica taking it over deals the next one
        with live.log_scope():
            await self._deal(live, version)

    async def _deal(self, live: LiveTable, version: int) -> None:
        async def deal() -> None:
            if await self._remove_suspended(live, version):
                return  # their leaving re-arms the dealer
            committed = live.next_seed
            if committed is None or committed.hand != live.state.hand_number + 1:
                # A table from before seeds were committed ahead: commit now, deal after the next pause
                # (client seeds sent before the commitment do not count: they are cleared).
                await self._execute(live, lambda state, now: _commit_next_hand(now), None, version)
                return
            await self._execute(live, lambda state, now: deal_commands(live, state, now), None, version)

        await self._until_done(live, "dealing", deal)

    async def _remove_suspended(self, live: LiveTable, version: int) -> bool:
        """Before a deal: players an operator suspended (on any replica) leave, their stacks going back to
        their accounts, so none of them is dealt a new hand. Whether any did."""
        config = live.state.config
        if config is None or not config.currency:
            return False
        suspended = await self.ledger.suspended_among(seat.player_id for seat in live.state.seats.values())
        for player in sorted(suspended):
            await self._execute(live, lambda state, now, who=player: Leave(who, now_ms=now), None, version)
            version = live.version
        return bool(suspended)

    # -- the house's rake ----------------------------------------------------------------------

    def sweep_rake_periodically(self) -> None:
        """From now on, sweep the rake of this replica's tables into the house's accounts every
        ``rake_sweep_interval`` seconds (0: never)."""
        if self.settings.rake_sweep_interval > 0:
            self._spawn(self._sweep_forever())

    async def _sweep_forever(self) -> None:
        interval = self.settings.rake_sweep_interval
        while True:
            await asyncio.sleep(interval)
            try:
                await self.sweep_rake()
            except Exception as error:  # the next sweep takes what this one left
                if not is_store_fault(error):
                    _log.exception("sweeping the rake failed")

    async def sweep_rake(self) -> int:
        """Move the rake the loaded tables have taken since their last sweep into the house's account of each
        currency, one command per currency; the amount moved. Sweeps by several replicas never take a table's
        rake twice: each RakeSwept records the table's rake total it took up to (docs/money.md)."""
        by_currency: dict[str, list[TableRake]] = {}
        for live in list(self._tables.values()):
            state = live.state
            if state.config is not None and state.config.currency and state.rake_taken > 0:
                by_currency.setdefault(state.config.currency, []).append(
                    TableRake(live.table_id, live.version, state.rake_taken, hands_ended(state))
                )
        moved = 0
        for currency, tables in sorted(by_currency.items()):
            moved += await self.ledger.sweep(currency, sorted(tables, key=lambda t: t.table_id), now_ms())
        return moved

    async def _until_done(
        self, live: LiveTable, task: str, attempt: Callable[[], Awaitable[Any]]
    ) -> None:
        """Run a background task's ``attempt`` (a clock firing, a deal) until it is done: it succeeds, or
        the table moved on or refused it (the event that changed the table re-armed what is needed).
        While the store is away it is tried again with backoff. Any other failure is a fault of this
        replica, not of the table: it is counted (``stud_action_clock_failures_total``), logged, and tried
        again with a longer backoff, so a table is never left silent by one bad attempt."""
        backoff = Backoff()
        failing = Backoff(cap=TASK_FAILURE_BACKOFF_CAP)
        while True:
            try:
                await attempt()
                return
            except (TableMoved, RequestError, DomainError, LedgerError):
                return
            except LeaseLost:
                # Another replica owns the table now (this one was paused or cut off past the lease).
                if self._ownership is not None:
                    self._ownership.drop(live.stream_id)
                return
            except Exception as error:
                if is_store_fault(error):
                    await self._wait_for_store(live, backoff, task, error)
                    continue
                if self.metrics is not None:
                    self.metrics.action_clock_failed(task)
                if failing.failures == 0:
                    _log.exception("%s at %s failed; retrying with backoff", task, live.stream_id,
                                   extra={"table": live.table_id})
                else:
                    _log.error("%s at %s failed again (%d times): %s", task, live.stream_id,
                               failing.failures + 1, error, extra={"table": live.table_id})
                await failing.wait()

    def tables_past_deadline(self, grace_seconds: float = PAST_DEADLINE_GRACE_SECONDS) -> int:
        """Tables whose action clock runs on this replica and ran out over ``grace_seconds`` ago: a clock
        that cannot fire (``stud_tables_past_deadline``; docs/deployment.md has the alert)."""
        limit = now_ms() - int(grace_seconds * 1000)
        count = 0
        for live in list(self._tables.values()):  # read from the metrics thread: a snapshot of the tables
            clock = live.clock
            if clock.key is None and clock.task is None:
                continue
            deadline = action_deadline_ms(live.state)
            if deadline is not None and deadline < limit:
                count += 1
        return count

    @staticmethod
    async def _wait_for_store(live: LiveTable, backoff: Backoff, task: str, error: BaseException) -> None:
        """The pause before a background task tries the store again; logged once per outage, no trace."""
        if backoff.failures == 0:
            _log.warning(
                "%s at %s: the store is unavailable; retrying until it is back: %s",
                task, live.stream_id, error, extra={"table": live.table_id},
            )
        await backoff.wait()

    # -- watchers ------------------------------------------------------------------------------

    def add_watcher(self, live: LiveTable) -> Watcher:
        watcher = Watcher()
        live.watchers.add(watcher)
        return watcher

    def remove_watcher(self, live: LiveTable, watcher: Watcher) -> None:
        live.watchers.discard(watcher)

    def watcher_count(self) -> int:
        return sum(len(live.watchers) for live in self._tables.values())

    # -- lifecycle -----------------------------------------------------------------------------

    def _spawn(self, coroutine: Any) -> asyncio.Task[Any]:
        task = asyncio.get_running_loop().create_task(coroutine, context=spans.detached())  # its own traces
        self._background.add(task)
        task.add_done_callback(self._background.discard)
        return task

    async def end_watches(self) -> None:
        """Tell every watch stream to finish (graceful shutdown)."""
        for live in self._tables.values():
            for watcher in live.watchers:
                watcher.queue.put_nowait(None)

    async def close(self) -> None:
        """Stop clocks, dealers and followers; end watches; hand the leases over at once."""
        self._closed = True
        for live in self._tables.values():
            live.clock.disarm()
            live.seat_offers.disarm()
        await self.end_watches()
        if self._ownership is not None and self._keeping is not None:
            self._ownership.stop()
            self._keeping.cancel()
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await self._keeping
            with contextlib.suppress(Exception):  # leases not released simply expire
                await self._ownership.leave()
            self._keeping = None
        tasks = list(self._background)
        for task in tasks:
            task.cancel()
        for task in tasks:
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await task


def _seed_commitment(payload: dict[str, Any], version: int) -> SeedCommitment | None:
    """The committed seed of a ShuffleCommitted as read back (opened) from the log; None without one."""
    seed = seed_from_secret(payload.get("secret"))
    if seed is None:
        return None
    return SeedCommitment(int(payload["next_hand"]), str(payload["commitment"]), seed, version)


def deal_commands(live: LiveTable, state: TableState, now: int) -> tuple[Command, Command]:
    """The next hand, dealt from the seed committed for it and the client seeds sent since, with the
    commitment of the hand after it (so client seeds sent during this hand come after that one's)."""
    committed = live.next_seed
    if committed is None or committed.hand != state.hand_number + 1:
        raise TableMoved("the next hand's seed is not committed yet")
    # Client seeds of the players dealt in, keyed by seat (stud_service.shuffle); JSON keys are text.
    seeds = {
        seat: live.client_seeds[state.seats[seat].player_id]
        for seat in players_ready(state)
        if state.seats[seat].player_id in live.client_seeds
    }
    deal = prepare_deal(committed.server_seed, seeds, committed.version)
    if deal.commitment != committed.commitment:  # the log was altered: never deal from an uncommitted seed
        _log.error(
            "hand %d at %s: the committed seed does not match its commitment (version %d); not dealing",
            committed.hand, live.stream_id, committed.version,
        )
        raise TableMoved("the committed seed does not match its commitment")
    return StartHand(deal.cards, deal.commitment, now, deal.extra), _commit_next_hand(now)


_ACTION_CLOCK = _Deadline(
    "action clock", action_deadline_ms, lambda now: Timeout(now_ms=now), TimeoutNotDue,
    lambda live: live.clock,
)
_SEAT_OFFERS = _Deadline(
    "seat offers", seat_offer_deadline_ms, lambda now: ExpireSeatOffers(now_ms=now), OfferNotDue,
    lambda live: live.seat_offers,
)
_DEADLINES = (_ACTION_CLOCK, _SEAT_OFFERS)
