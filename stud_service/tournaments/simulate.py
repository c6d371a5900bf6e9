"""A tournament played to its end by random players, tournament and tables together, without a server:
the tournament's decide/evolve and the table engine's, driven as the tournament's owner will drive them
(``orders``): each table between hands takes one ``next_step`` at a time, its steps interleaved at random
with the other tables' (a table may deal while another's hand moves players to it).  A fast source of
whole tournaments for tests and benchmarks.

Everything random comes from one seeded generator (seeds of the draws, decks, the players' choices,
the clock), so a run is reproducible from its seed.  Players mostly check and call, sometimes bet or
raise, now and then fold or let their clock run out (then they sit out, are dealt in and act by the
timeout rule, and come back later); the clock moves a few seconds per action and the levels follow it.
``on_step`` is called after every step with the simulation, for invariant checks.  With
``committed_shuffle`` each hand is dealt as the service's dealer deals it: from a server seed committed
(ShuffleCommitted) before the hand, through ``shuffle.prepare_deal``, so that every hand's shuffle
verifies; without it a deck is simply shuffled by the generator (faster, for the rules' tests).
``execute`` decides each tournament command (the pure ``decide.execute`` by default; a server's write
path, to drive a stored tournament the same way).

>>> from stud_service.tournaments.structure import Level, TournamentConfig
>>> fast = TournamentConfig(levels=(Level(5, 10, 20, 40, 1), Level(20, 50, 100, 200, 1)), starting_stack=300,
...                         max_entrants=4, seats_per_table=2)
>>> run = simulate_tournament(fast, seed=3)
>>> run.state.status.value, sorted(place for place, _ in run.state.places.values())
('FINISHED', [1, 2, 3, 4])
"""

from __future__ import annotations

import random
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from stud_service.engine import (
    Act,
    ActionKind,
    CommitShuffle,
    CreateTable,
    SitIn,
    StartHand,
    TableState,
    Timeout,
    action_deadline_ms,
    initial_state,
    legal_actions,
    to_act,
)
from stud_service.engine import execute as execute_table
from stud_service.engine.events import HandStarted
from stud_service.shuffle import SERVER_SEED_BYTES, commitment, prepare_deal, seed_secret
from stud_service.tournaments.commands import (
    AdvanceLevel,
    CancelTournament,
    CreateTournament,
    DealTableHand,
    EndTableHand,
    NextDraw,
    ReEnter,
    Register,
    StartTournament,
)
from stud_service.tournaments.decide import execute as execute_tournament
from stud_service.tournaments.draws import SEED_BYTES, draw_secret
from stud_service.tournaments.errors import TournamentError
from stud_service.tournaments.events import TableHandDealt, TableOpened
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
from stud_service.tournaments.state import Status, TournamentState
from stud_service.tournaments.state import initial_state as initial_tournament
from stud_service.tournaments.structure import TournamentConfig, TournamentKind

T0_MS = 1_767_225_600_000  # 2026-01-01T00:00:00Z
# A bound on a run, so that a tournament that cannot end fails rather than hangs: far more steps than any
# tournament here needs per entrant (a few hundred).
MAX_STEPS_PER_ENTRANT = 5_000
_PASSIVE = (ActionKind.CHECK, ActionKind.CALL, ActionKind.BRING_IN)
_AGGRESSIVE = (ActionKind.BET, ActionKind.RAISE, ActionKind.COMPLETE)


@dataclass
class SimulatedTournament:
    tournament_id: str
    config: TournamentConfig
    state: TournamentState = field(default_factory=initial_tournament)
    log: list[Any] = field(default_factory=list)            # the tournament's events
    commands: list[list[Any]] = field(default_factory=list)  # each tournament command's events
    tables: dict[str, TableState] = field(default_factory=dict)
    table_logs: dict[str, list[Any]] = field(default_factory=dict)
    table_commands: dict[str, list[list[Any]]] = field(default_factory=dict)  # each table command's events
    closed: dict[str, TableState] = field(default_factory=dict)  # broken tables, as they closed
    now: int = T0_MS
    steps: int = 0
    committed_shuffle: bool = False
    # table -> (the server seed committed for its next hand, the version of that ShuffleCommitted)
    committed: dict[str, tuple[bytes, int]] = field(default_factory=dict)
    dealt_at: dict[str, int] = field(default_factory=dict)  # table -> the level index of its last deal


Execute = Callable[[TournamentState, Any], tuple[list[Any], TournamentState]]


class _Driver:
    def __init__(self, sim: SimulatedTournament, rng: random.Random, absent: float,
                 on_step: Callable[[SimulatedTournament], None] | None, cancel_at: int | None,
                 execute: Execute = execute_tournament) -> None:
        self.sim = sim
        self.execute = execute
        self.rng = rng
        self.absent = absent
        self.on_step = on_step
        self.cancel_at = cancel_at
        self.next_player = 1
        self.max_steps = MAX_STEPS_PER_ENTRANT

    # -- the tournament and its tables ------------------------------------------------------------------

    def next_draw(self) -> NextDraw:
        seed = self.rng.randbytes(SEED_BYTES)
        return NextDraw(commitment(seed), draw_secret(seed))

    def tournament(self, command: Any) -> list[Any]:
        sim = self.sim
        events, sim.state = self.execute(sim.state, command)
        sim.log.extend(events)
        sim.commands.append(events)
        for event in events:
            if isinstance(event, TableOpened):
                self.table(event.table_id, CreateTable(
                    event.table_id, table_config(sim.config, sim.tournament_id, event.table_id), sim.now))
                self.commit_shuffle(event.table_id)
            elif isinstance(event, TableHandDealt):
                sim.dealt_at[event.table_id] = event.index
        if sim.state.status is not Status.RUNNING:
            self.follow_orders()  # over: every table closes (one in a hand keeps its players)
        self.close_broken()
        self.step()
        return events

    def table(self, table_id: str, command: Any) -> list[Any]:
        sim = self.sim
        events, sim.tables[table_id] = execute_table(sim.tables.get(table_id, initial_state()), command)
        sim.table_logs.setdefault(table_id, []).extend(events)
        if events:
            sim.table_commands.setdefault(table_id, []).append(events)
        return events

    def commit_shuffle(self, table_id: str) -> None:
        """With committed shuffles: commit the seed of the table's next hand (its version in the table's
        log, counted from 1, is what the deal names)."""
        sim = self.sim
        if not sim.committed_shuffle:
            return
        seed = self.rng.randbytes(SERVER_SEED_BYTES)
        self.table(table_id, CommitShuffle(commitment(seed), seed_secret(seed), sim.now))
        sim.committed[table_id] = (seed, len(sim.table_logs[table_id]))

    def follow_orders(self) -> None:
        """Every table in line with the tournament that is over: leaving players between hands, joining
        ones at once."""
        sim = self.sim
        for table_id in list(sim.tables):
            orders = table_orders(sim.state, table_id)
            table = sim.tables[table_id]
            for command in table_commands(orders, table, sim.now):
                if type(command).__name__ == "Leave" and table.hand is not None:
                    continue  # a table in a hand gives no player (the tournament moves none from it)
                self.table(table_id, command)
                table = sim.tables[table_id]

    def close_broken(self) -> None:
        """Tables the tournament closed that seat nobody any more close."""
        sim = self.sim
        for table_id in list(sim.tables):
            if table_orders(sim.state, table_id).close and not sim.tables[table_id].seats:
                sim.closed[table_id] = sim.tables.pop(table_id)

    def seat(self, table_id: str) -> None:
        """The SEAT step: players leave the table and sit down at it as the tournament says."""
        sim = self.sim
        for command in table_commands(table_orders(sim.state, table_id), sim.tables[table_id], sim.now):
            self.table(table_id, command)
        self.close_broken()
        self.step()

    def step(self) -> None:
        self.sim.steps += 1
        assert self.sim.steps < self.max_steps, "the tournament did not end"
        if self.on_step is not None:
            self.on_step(self.sim)

    # -- what a step does -----------------------------------------------------------------------------------

    def play(self, players: int, late: int) -> None:
        sim = self.sim
        self.max_steps = MAX_STEPS_PER_ENTRANT * (players + late)
        self.tournament(CreateTournament(sim.tournament_id, sim.config, self.next_draw(), sim.now))
        for _ in range(players):
            self.register()
        if sim.config.kind is TournamentKind.SCHEDULED:
            sim.now = max(sim.now, sim.config.start_ms)
            self.tournament(StartTournament(sim.now, self.next_draw()))
        while sim.state.status is Status.RUNNING:
            if self.cancel_at is not None and sim.steps >= self.cancel_at:
                self.tournament(CancelTournament("operator", "a simulated stop", sim.now))
                return
            if late and self.rng.random() < 0.02:
                attempts = [self.register, self.re_enter]
                self.rng.shuffle(attempts)
                late -= any(attempt() for attempt in attempts)
            steps = {table_id: next_step(sim.state, table_id, table)
                     for table_id, table in sim.tables.items()}
            choices = [table_id for table_id, table in sim.tables.items()
                       if table.hand is not None or steps[table_id] is not Step.NONE]
            due = level_ends_ms(sim.config.levels, sim.state.level_index, sim.state.level_starts_ms)
            if due is not None and (sim.now >= due or not choices):
                sim.now = max(sim.now, due)
                self.tournament(AdvanceLevel(sim.now, self.next_draw()))
                continue
            assert choices, "no table can play and no level is due"
            table_id = self.rng.choice(sorted(choices))
            step = steps[table_id]
            if sim.tables[table_id].hand is not None:
                self.act(table_id)
            elif step is Step.REPORT:
                self.report(table_id)
            elif step is Step.START:
                self.start(table_id)
            elif step is Step.SEAT:
                self.seat(table_id)
            else:
                self.deal(table_id)

    def register(self) -> bool:
        sim = self.sim
        player = f"p{self.next_player}"
        try:
            self.tournament(Register(player, sim.now, self.next_draw()))
        except TournamentError:
            return False
        self.next_player += 1
        return True

    def re_enter(self) -> bool:
        sim = self.sim
        out = [player for player in sim.state.registered if player not in sim.state.seat_of]
        if not out:
            return False
        try:
            self.tournament(ReEnter(self.rng.choice(out), sim.now, self.next_draw()))
        except TournamentError:
            return False
        return True

    def deal(self, table_id: str) -> None:
        """The DEAL step: the tournament lets the table deal its next hand (started by a later step)."""
        sim = self.sim
        table = sim.tables[table_id]
        self.tournament(DealTableHand(table_id, table.hand_number + 1, sim.now, seated_players(table)))

    def start(self, table_id: str) -> None:
        """The START step: the hand the tournament let the table deal, at the level it let it deal at."""
        sim = self.sim
        stakes = dealt_stakes(sim.config, sim.dealt_at[table_id])
        table = sim.tables[table_id]
        for _seat, seated in sorted(table.seats.items()):
            if seated.sitting_out and self.rng.random() < 0.5:
                self.table(table_id, SitIn(seated.player_id, sim.now))
        if sim.committed_shuffle:
            seed, version = sim.committed[table_id]
            prepared = prepare_deal(seed, {}, version)
            start = StartHand(prepared.cards, prepared.commitment, sim.now, prepared.extra, stakes)
            events = self.table(table_id, start)
            self.commit_shuffle(table_id)
        else:
            deck = list(range(52))
            self.rng.shuffle(deck)
            events = self.table(table_id, StartHand(tuple(deck), "00" * 32, sim.now, {}, stakes))
        self.after_events(table_id, events)

    def act(self, table_id: str) -> None:
        sim = self.sim
        table = sim.tables[table_id]
        seat = to_act(table)
        assert seat is not None
        sim.now += self.rng.randint(500, 8_000)
        if self.rng.random() < self.absent:
            deadline = action_deadline_ms(table)
            assert deadline is not None
            sim.now = max(sim.now, deadline)
            events = self.table(table_id, Timeout(sim.now))
        else:
            events = self.table(table_id, self.decision(table, seat))
        self.after_events(table_id, events)

    def decision(self, table: TableState, seat: int) -> Act:
        legal = legal_actions(table, table.seats[seat].player_id)
        options = {kind: amounts for kind, amounts in legal.options}
        roll = self.rng.random()
        aggressive = [kind for kind in _AGGRESSIVE if kind in options]
        passive = [kind for kind in _PASSIVE if kind in options]
        if aggressive and roll < 0.3:
            kind = self.rng.choice(aggressive)
        elif ActionKind.CALL in options and roll > 0.85:
            kind = ActionKind.FOLD
        else:
            kind = passive[0] if passive else next(iter(options))
        amount = self.rng.choice(options[kind]) if options[kind] else None
        return Act(table.seats[seat].player_id, kind, amount, self.sim.now)

    def after_events(self, table_id: str, events: list[Any]) -> None:
        """A hand that ended is reported to the tournament at once (the step ends with the report)."""
        if not any(type(event).__name__ == "HandEnded" for event in events):
            self.step()
            return
        self.report(table_id)

    def report(self, table_id: str) -> None:
        """The REPORT step: the table's last hand is reported to the tournament."""
        log = self.sim.table_logs[table_id]
        start = next(index for index in range(len(log) - 1, -1, -1) if isinstance(log[index], HandStarted))
        hand = log[start].hand
        self.tournament(EndTableHand(table_id, hand, hand_chips(log[start:]), self.sim.now, self.next_draw()))


def simulate_tournament(config: TournamentConfig, seed: int, players: int | None = None, late: int = 0,
                        absent: float = 0.03, tournament_id: str = "sim",
                        on_step: Callable[[SimulatedTournament], None] | None = None,
                        cancel_at: int | None = None, committed_shuffle: bool = False,
                        execute: Execute = execute_tournament) -> SimulatedTournament:
    """Play a tournament of ``players`` (default: ``config.max_entrants``) to its end; ``late``: how many late
    registrations and re-entries to try while entries are open; ``absent``: how often a player lets the
    clock run out; ``cancel_at``: the operator cancels it at that step, if it is still running;
    ``committed_shuffle``: deal every hand from a committed seed; ``execute``: what decides each tournament
    command (see the module's docstring)."""
    sim = SimulatedTournament(tournament_id, config.validate(), committed_shuffle=committed_shuffle)
    entrants = config.max_entrants if players is None else players
    _Driver(sim, random.Random(seed), absent, on_step, cancel_at, execute).play(entrants, late)
    return sim

