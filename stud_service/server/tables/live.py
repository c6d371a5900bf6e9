"""One table's live state on this replica, and the names and times every part of the runtime shares.

A :class:`LiveTable` holds what the replica folded from the table's stream (its state, version and the
facts the engine's state leaves out: the last result, the deck commitment, the committed seed and the
client seeds waiting for the next deal), the replies built from it (:class:`ReplyCache`), and the work
that keeps it moving: the follower of its stream, its deadlines' timers, the dealer, its watchers' queues.
A :class:`TableAt` is the table as of one version: what a write's reply shows.
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from dataclasses import dataclass, field
from typing import Any

from stud_service.engine import TableState, initial_state
from stud_service.engine.events import HandEnded, HandStarted
from stud_service.observability.logging import log_context
from stud_service.server.api.replies import ReplyCache
from stud_service.server.tables.fanout import Watcher

STREAM_PREFIX = "tables/"


def stream_id_for(table_id: str) -> str:
    """A table's stream id is its resource name, ``tables/{table}``."""
    return STREAM_PREFIX + table_id


def table_id_of(stream_id: str) -> str:
    """The table a stream id (``tables/{table}``) names."""
    return stream_id[len(STREAM_PREFIX) :]


def hand_log_id(table_id: str, hand: int) -> str:
    """The hand id on log lines about a hand: ``{table}/h-{number}``."""
    return f"{table_id}/h-{hand}"


def now_ms() -> int:
    return int(time.time() * 1000)


class TableMoved(Exception):
    """The table changed since the replica's own task (clock, dealer) read it: its command is moot.
    Never a client's refusal (a client's click is checked by its turn instead)."""


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


@dataclass(frozen=True, slots=True)
class SeedCommitment:
    """The next hand's committed server seed (its ShuffleCommitted, at ``version``): the seed the dealer must
    deal that hand with. The seed stays in this replica's memory and, sealed, in the log."""

    hand: int
    commitment: str
    server_seed: bytes
    version: int


@dataclass(eq=False, kw_only=True)
class LiveStream:
    """What a followed stream's live object holds beside its state (a table's here, a tournament's in
    :mod:`stud_service.server.tournaments.live`): the version applied, the task following the stream, the
    lock its writes take, its watchers' queues."""

    version: int = 0
    follower: asyncio.Task[None] | None = None
    write_lock: asyncio.Lock = field(default_factory=asyncio.Lock)
    watchers: set[Watcher] = field(default_factory=set)


@dataclass(eq=False)
class LiveTable(LiveStream):
    """One table's state on this replica and the tasks that keep it moving."""

    table_id: str
    state: TableState = field(default_factory=initial_state)
    last_result: dict[str, Any] | None = None  # the last HandEnded payload
    # The last HandStarted and HandEnded as applied (a tournament's table reports the hand's chips from them
    # without decoding the payloads again).
    last_start: HandStarted | None = None
    last_end: HandEnded | None = None
    commitment: str = ""  # the deck commitment of the current (or last) hand
    created_ms: int | None = None  # TableCreated's time: every table is folded from its first event
    replies: ReplyCache = field(default_factory=ReplyCache)  # reply parts shared by every call
    # Client seeds sent for the next deal, by player id (from ClientSeedSet; consumed by HandStarted).
    client_seeds: dict[str, str] = field(default_factory=dict)
    next_seed: SeedCommitment | None = None  # from the last ShuffleCommitted
    clock: DeadlineTimer = field(default_factory=DeadlineTimer)  # the action clock
    seat_offers: DeadlineTimer = field(default_factory=DeadlineTimer)  # the waiting list's first offer
    interrupted: DeadlineTimer = field(default_factory=DeadlineTimer)  # voids a hand standing still (§12)
    dealer: asyncio.Task[None] | None = None
    dealer_version: int | None = None
    # A tournament's table: it or its tournament changed while its dealer was at work between hands, which
    # then looks at its orders again before it stops (server.tables.tournament_tables).
    look_again: bool = False
    # Per player, when they last made a call here (ms since the epoch, from the events they caused): the
    # operator's inactivity time-out counts from it (server.tables.protection).
    last_active: dict[str, int] = field(default_factory=dict)
    # Epoch seconds its last event of play (not of the chat) was recorded: the hand pause counts from it.
    last_event_at: float = 0.0
    # time.monotonic() of the last lookup by a client's call (not the lobby's): a table not owned here is
    # unloaded a while after it, and this replica's interest in the table counts it for a lease period.
    used_at: float = float("-inf")

    @property
    def stream_id(self) -> str:
        return stream_id_for(self.table_id)

    @property
    def log_extra(self) -> dict[str, str]:
        """The fields a log line about the table carries."""
        return {"table": self.table_id}

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
