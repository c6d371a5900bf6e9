"""A tournament's tables driven between hands, and its level clock (docs/tournaments.md, "The running
tournament").

The tables of a tournament are ordinary table streams (``orders.table_config``): each is owned, dealt and
timed as any table is, by the replica holding its lease. Between hands its dealer does not simply deal: it
brings the table in line with the tournament (:meth:`TournamentTables.between_hands`), one step at a time
(``orders.next_step``) and each step derived again from the two logs, so that a replica that died between
two appends (the tournament's and the table's) leaves nothing the next owner cannot finish:

1. REPORT: a hand the table ended and the tournament has not folded (``in_hand`` still names it) is
   reported (``EndTableHand`` with ``hand_chips``; the hand number makes it once only);
2. START: a hand the tournament let it deal (``DealTableHand`` appended, ``in_hand`` names the next hand)
   and the table has not started is started at the level it was let deal at, before any seat changes:
   players moved there since are dealt in from the next hand, so the hand's players are those the
   tournament dealt in (an excluded player dealt in as present is sat out first:
   :func:`~stud_service.server.tables.protection.sit_out_excluded`);
3. SEAT: the table's seating is brought in line with ``table_orders`` (``table_commands``: players moved
   in sit down with their chips, players moved away or out leave; a tournament table moves no money);
4. DEAL: if the orders say it may deal, ``DealTableHand`` naming the players it seats is appended to the
   tournament (refused if the tournament moved players there meanwhile: step 3 again), then step 2.
   When the tournament, the report folded, lets the table deal as it seats already (no one out, moved
   away or in: most hands), the deal is decided with the report and appended with it, one transaction
   (``execute_then``): the same events as steps 1 and 4 one after the other, in one append instead of two.
   The table's hand (step 2) goes into that transaction too (``along``) unless money moves with the
   tournament's events (a prize): then it is a second append, as after a crash.

Other tables change the tournament while a table takes its steps, and players change the table (sitting
out and in): either makes the dealer at work look again (``LiveTable.look_again``) rather than stop.

The tournament's appends the table's owner makes are fenced by the table's lease; its level clock (the
scheduled start, each level's or break's end) runs on the owner of the tournament's own lease and is fenced
by it. Both clocks derive from the log (a level starts when the last one ended, ``level_ends_ms``), so a
replica that takes over after a crash carries on without drift. Whenever a tournament changes, every table
of it this replica owns looks at its orders again (an idle one only if they give it a step to take), and
its owner opens the tables it has opened.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Callable
from dataclasses import replace
from functools import partial
from typing import Any

from stud_service.engine import CreateTable, StartHand, TableExists
from stud_service.engine import event_from_json as table_event_from_json
from stud_service.engine.events import HandStarted
from stud_service.server.tables.cache import TableCache
from stud_service.server.tables.live import LiveTable, TableMoved, now_ms
from stud_service.server.tables.owned import OwnedTables
from stud_service.server.tables.protection import sit_out_excluded
from stud_service.server.tables.seeds import deal_commands
from stud_service.server.tables.tasks import TableTasks
from stud_service.server.tables.writes import TableWrites
from stud_service.server.tournaments.runtime import (
    Along,
    AlongConflict,
    FollowUp,
    TournamentRuntime,
    new_draw,
)
from stud_service.store import AppendResult, Fence, LeaseLost, StreamAppend
from stud_service.tournaments import AdvanceLevel, DealTableHand, EndTableHand, StartTournament, Status
from stud_service.tournaments import event_from_json as tournament_event_from_json
from stud_service.tournaments.errors import TournamentError
from stud_service.tournaments.events import TableHandDealt
from stud_service.tournaments.orders import (
    Step,
    dealt_stakes,
    hand_chips,
    next_step,
    seated_players,
    table_commands,
    table_config,
    table_orders,
)
from stud_service.tournaments.rules.levels import level_ends_ms
from stud_service.tournaments.state import TournamentState, table_id_for
from stud_service.tournaments.structure import TournamentKind

_log = logging.getLogger(__name__)

TOURNAMENT_PREFIX = "tournaments/"
# A clock refused as not yet due (replicas' clocks differ a little) is tried again this much later.
CLOCK_RETRY_SECONDS = 0.2
# Steps of one look at a table's orders: each appends something; far more than any one look needs.
MAX_STEPS = 50
# How far back a hand's start (or its deal) is looked for in a log before reading it from the start.
EVENTS_BACK = 600


def is_tournament_stream(stream_id: str) -> bool:
    return stream_id.startswith(TOURNAMENT_PREFIX)


class TournamentTables:
    """The tournaments' side of one replica's tables. ``arm_table(live)`` arms a table's dealer."""

    def __init__(
        self,
        tournaments: TournamentRuntime,
        cache: TableCache,
        writes: TableWrites,
        owned: OwnedTables,
        tasks: TableTasks,
        arm_table: Callable[[LiveTable], None],
    ) -> None:
        self.tournaments = tournaments
        self.cache = cache
        self.writes = writes
        self.owned = owned
        self.tasks = tasks
        self.arm_table = arm_table
        self._clocks: dict[str, tuple[int, asyncio.Task[None]]] = {}  # tournament -> (due, its timer)
        self._opened: set[str] = set()  # tables this replica created or found created
        # Per tournament: its tables that may still have something to do (in order), and how many of its
        # opened tables are in that record.
        self._unfinished: dict[str, dict[str, None]] = {}
        self._numbered: dict[str, int] = {}

    # -- a tournament changed ----------------------------------------------------------------------

    def changed(self, tournament_id: str, state: TournamentState) -> None:
        """After every change of a tournament this replica follows: its owner opens its tables and arms its
        clock; every table of it owned here with something to do looks at its orders again."""
        if self.tasks.closed:
            return
        stream_id = TOURNAMENT_PREFIX + tournament_id
        if self.owned.owns_stream(stream_id):
            self._arm_clock(tournament_id, state)
            for table_id in state.tables:
                if table_id not in self._opened:
                    self._opened.add(table_id)
                    self.tasks.spawn(self._open(tournament_id, state, table_id))
        for live in self._tables_between_hands(tournament_id, state):
            if self.owned.owns(live) and _has_work(live, state):
                self.arm_table(live)  # a dealer at work looks again (look_again)

    def _tables_between_hands(self, tournament_id: str, state: TournamentState) -> list[LiveTable]:
        """The tables of the tournament loaded here that are between hands and may still have something to
        do: not those in a hand (most, at any time: their dealers are armed when their hands end), nor
        those closed with everyone gone, which never have again (most of a large tournament's tables by
        its end, where a look over every loaded table each change cost more than the change)."""
        ids = self._unfinished.setdefault(tournament_id, {})
        for number in range(self._numbered.get(tournament_id, 0) + 1, state.tables_opened + 1):
            ids[table_id_for(tournament_id, number)] = None
        self._numbered[tournament_id] = max(state.tables_opened, self._numbered.get(tournament_id, 0))
        tables = []
        for table_id in list(ids):
            live = self.cache.get(table_id)
            if live is None:
                continue  # not loaded here: loaded (and armed) when its lease is taken
            if live.state.hand is not None:
                continue  # its dealer is armed when the hand ends
            config = live.state.config
            if config is None or config.tournament_id != tournament_id:
                continue
            if table_id not in state.tables and not live.state.seats and live.state.hand is None:
                del ids[table_id]  # closed, everyone gone: nothing more, ever
                continue
            tables.append(live)
        return tables

    async def _open(self, tournament_id: str, state: TournamentState, table_id: str) -> None:
        """Create a table the tournament opened (another replica may have: then it exists)."""
        assert state.config is not None
        config = table_config(state.config, tournament_id, table_id)
        with contextlib.suppress(TableExists):
            await self.writes.create(table_id, CreateTable(table_id, config, now_ms()), None)
            _log.info("tournament table opened", extra={"tournament": tournament_id, "table": table_id})
        await self._load(table_id)

    async def _load(self, table_id: str) -> None:
        with contextlib.suppress(Exception):  # its lease's owner loads it when it takes the lease
            live = await self.cache.table(table_id, client=False)
            if self.owned.owns(live):
                self.arm_table(live)

    async def lease_gained(self, stream_id: str) -> bool:
        """This replica took a tournament's lease: its clock runs here from now on (False: not loadable,
        the lease is given back)."""
        tournament_id = stream_id[len(TOURNAMENT_PREFIX):]
        try:
            live = await self.tournaments.live(tournament_id)
        except Exception:
            _log.warning("could not load %s after taking its lease", stream_id, exc_info=True)
            return False
        self.changed(tournament_id, live.state)
        return True

    def lease_lost(self, stream_id: str) -> None:
        tournament_id = stream_id[len(TOURNAMENT_PREFIX):]
        clock = self._clocks.pop(tournament_id, None)
        if clock is not None:
            clock[1].cancel()

    # -- the level clock -----------------------------------------------------------------------------

    def _arm_clock(self, tournament_id: str, state: TournamentState) -> None:
        due = clock_due_ms(state)
        armed = self._clocks.get(tournament_id)
        if armed is not None and armed[0] == due and not armed[1].done():
            return
        if armed is not None:
            armed[1].cancel()
            del self._clocks[tournament_id]
        if due is not None:
            self._clocks[tournament_id] = (due, self.tasks.spawn(self._tick(tournament_id, due)))

    async def _tick(self, tournament_id: str, due: int) -> None:
        live = await self.tournaments.live(tournament_id)

        async def fire() -> None:
            while True:
                await asyncio.sleep(max(0.0, (due - now_ms()) / 1000))
                if clock_due_ms(live.state) != due:
                    return  # the tournament moved on (another replica's clock, a cancellation)
                fence = self.owned.fence_of(live.stream_id)
                starting = live.state.status is Status.REGISTERING
                if starting:  # no excluded player in its draw (server/tournaments/exclusions.py)
                    await self.tournaments.exclusions.before_start(tournament_id)
                command: Any = (StartTournament if starting else AdvanceLevel)(now_ms(), new_draw())
                try:
                    await self.tournaments.execute(tournament_id, command, fence=fence)
                    return
                except TournamentError as error:
                    if type(error).__name__ not in ("LevelNotDue", "StartNotDue"):
                        return
                    await asyncio.sleep(CLOCK_RETRY_SECONDS)

        await self.tasks.until_done(live, "level clock", fire)

    # -- a table between hands -----------------------------------------------------------------------

    async def between_hands(self, live: LiveTable) -> bool:
        """Bring a tournament's table in line with its tournament (the module's steps), as its owner, up to
        the start of its next hand; whether it started one. A hand started ends the work even if it is over
        already (players all absent are dealt out at once): the next comes after the dealer's pause."""
        config = live.state.config
        assert config is not None and config.tournament_id
        tournament = await self.tournaments.live(config.tournament_id)
        for _step in range(MAX_STEPS):
            live.look_again = False
            hands_before = live.state.hand_number
            try:
                stepped = await self._step(live, tournament.state)
            except TableMoved:
                if not live.look_again:
                    raise
                continue  # the table changed under the step (a player sat out): look again
            if live.state.hand_number > hands_before:
                return True
            if not stepped and not live.look_again:
                return False  # in line, and neither the tournament nor the table changed meanwhile
        # Every step appends or follows a change: this many means a fault, and the table waits for the
        # tournament's next change to look again.
        _log.error("table %s: its orders did not settle", live.table_id)
        return False

    async def _step(self, live: LiveTable, state: TournamentState) -> bool:
        """One step towards the orders (``next_step``); whether it appended anything (then look again)."""
        table = live.state
        table_id, tournament_id = live.table_id, state.tournament_id
        assert tournament_id is not None
        step = next_step(state, table_id, table)
        table_fence = self.owned.fence(live)
        if step in (Step.REPORT, Step.START, Step.DEAL) and await sit_out_excluded(
                self.writes.ledger, self.writes, live):
            return True  # an excluded player is not dealt in as if present (docs/player-protection.md)
        if step is Step.REPORT:
            chips = await self._last_hand_chips(live)
            command = EndTableHand(table_id, table.hand_number, chips, now_ms(), new_draw())
            deal_next = partial(self._deal_next, live)
            executed = await self._tournament(live, state, command, table_fence, deal_next)
            if executed is not None:
                await self._start_dealt(live, state, executed)
            return executed is not None
        if step is Step.START:
            hand = table.hand_number + 1
            await self._start_hand(live, state, await self._dealt_index(tournament_id, table_id, hand))
            return True
        if step is Step.SEAT:
            orders = table_orders(state, table_id)

            def in_line(now_state: Any, now: int) -> Any:
                return tuple(table_commands(orders, now_state, now))

            await self.writes.write(live, in_line, None, live.version)
            return True
        if step is Step.DEAL:
            deal = DealTableHand(table_id, table.hand_number + 1, now_ms(), seated_players(table))
            executed = await self._tournament(live, state, deal, table_fence)
            if executed is None:
                return False  # refused: the change that refused it makes this table look again
            await self._start_dealt(live, state, executed)
            return True
        return False

    @staticmethod
    def _deal_next(live: LiveTable, after: TournamentState, now: int) -> DealTableHand | None:
        """The DEAL step decided with the hand's report, in its append, when the tournament after the
        report lets the table deal as it seats now (no one out, moved or moved in): one transaction, so
        a crash leaves both or neither (the steps then go on from either)."""
        table = live.state
        if next_step(after, live.table_id, table) is not Step.DEAL:
            return None
        return DealTableHand(live.table_id, table.hand_number + 1, now, seated_players(table))

    async def _start_dealt(self, live: LiveTable, state: TournamentState, executed: list[Any]) -> None:
        """Start the hand the tournament's events ``executed`` let the table deal, if they did and it was
        not started in their append (then it may be over already: its players all absent)."""
        dealt = next((event for event in executed if isinstance(event, TableHandDealt)), None)
        if dealt is not None and live.state.hand is None and live.state.hand_number < dealt.hand:
            await self._start_hand(live, state, dealt.index)

    async def _start_hand(self, live: LiveTable, state: TournamentState, index: int) -> None:
        """Deal the hand the tournament let the table deal, at the level it was let deal at."""
        await self.writes.write(live, _start(live, state, index), None, live.version)

    def _along(self, live: LiveTable, state: TournamentState) -> Along:
        """The table's hand started in the append of the tournament's events that let it deal (if they do)."""

        def along(events: list[Any], now: int) -> tuple[StreamAppend, Callable[[AppendResult], None]] | None:
            dealt = next((event for event in events
                          if isinstance(event, TableHandDealt) and event.table_id == live.table_id), None)
            if dealt is None or live.state.hand is not None or live.state.hand_number + 1 != dealt.hand:
                return None
            return self.writes.along(live, _start(live, state, dealt.index), now)

        return along

    async def _dealt_index(self, tournament_id: str, table_id: str, hand: int) -> int:
        """The level index the tournament let ``table_id`` deal ``hand`` at (its TableHandDealt): after a
        crash between the tournament's append and the table's."""
        stream_id = TOURNAMENT_PREFIX + tournament_id
        version = (await self.tournaments.live(tournament_id)).version
        for after in (max(0, version - EVENTS_BACK), 0):
            for stored in reversed(await self.writes.store.read_stream(stream_id, after_version=after)):
                event = tournament_event_from_json(stored.payload)
                if isinstance(event, TableHandDealt) and (event.table_id, event.hand) == (table_id, hand):
                    return event.index
        raise TableMoved(f"no deal of hand {hand} at {table_id} in {stream_id}")

    async def _tournament(
        self, live: LiveTable, state: TournamentState, command: Any, fence: Fence | None,
        then: FollowUp | None = None,
    ) -> list[Any] | None:
        """Append a command of the table's owner to the tournament (and ``then``'s, in the same append,
        and the table's hand it lets deal: ``_along``); the events appended, None if refused (decided
        against a state another replica's append had changed: its event re-arms the table; or the table
        moved under the append: look again)."""
        tournament_id = state.tournament_id
        assert tournament_id is not None
        try:
            async with live.write_lock:  # the table's hand is decided at its version
                executed = await self.tournaments.execute(
                    tournament_id, command, fence=fence, then=then, along=self._along(live, state))
            return executed.events
        except TournamentError as error:
            _log.info("tournament command refused: %s", error, extra={"tournament": tournament_id})
            return None
        except AlongConflict:
            await self.cache.catch_up(live)
            live.look_again = True
            return None
        except LeaseLost:
            raise TableMoved("the table's lease is lost") from None

    async def _last_hand_chips(self, live: LiveTable) -> tuple[tuple[str, int, int], ...]:
        """``hand_chips`` of the table's last hand: from the HandStarted and HandEnded the table holds, else
        read back from its log."""
        started, ended = live.last_start, live.last_end
        hand = live.state.hand_number
        if started is not None and ended is not None and started.hand == ended.hand == hand:
            return hand_chips([started, ended])
        for after in (max(0, live.version - EVENTS_BACK), 0):
            stored = await self.writes.store.read_stream(live.stream_id, after_version=after)
            events = [table_event_from_json(item.payload) for item in stored]
            starts = [index for index, event in enumerate(events) if isinstance(event, HandStarted)]
            if starts:
                return hand_chips(events[starts[-1]:])
        raise TableMoved(f"{live.stream_id} has no hand to report")


def _start(live: LiveTable, state: TournamentState, index: int) -> Callable[[Any, int], Any]:
    """The commands that start the table's next hand at the stakes of level ``index`` (the level the
    tournament let it deal at)."""
    assert state.config is not None
    stakes = dealt_stakes(state.config, index)

    def start(now_state: Any, now: int) -> Any:
        hand, commit = deal_commands(live, now_state, now)
        assert isinstance(hand, StartHand)
        return replace(hand, stakes=stakes), commit

    return start


def _has_work(live: LiveTable, state: TournamentState) -> bool:
    """Whether a change of the tournament gives its table ``live``, between hands (one in a hand has its
    dealer armed when the hand ends: ``_tables_between_hands``), something to do: its dealer at work looks
    again; an idle one is armed only for a step to take (a table broken or on hold has nothing to do after
    most changes: an idle dealer armed for each would wake after the pause to find nothing, a task and a
    look a table a change)."""
    table = live.state
    if live.dealer is not None and not live.dealer.done():
        return True
    if live.table_id not in state.tables and not table.seats:
        return False  # closed, everyone gone: nothing more, ever
    return next_step(state, live.table_id, table) is not Step.NONE


def clock_due_ms(state: TournamentState) -> int | None:
    """When the tournament's clock next fires: a scheduled start, or the end of the running level."""
    config = state.config
    if config is None:
        return None
    if state.status is Status.REGISTERING:
        return config.start_ms if config.kind is TournamentKind.SCHEDULED else None
    if state.status is not Status.RUNNING:
        return None
    return level_ends_ms(config.levels, state.level_index, state.level_starts_ms)
