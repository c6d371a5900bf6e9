"""A tournament of bots played to the end at full speed on one replica, against the same bots at cash tables.

1. **Registration burst**: ``--entrants`` funded players register for a sit & go of that size, spread evenly
   over one second; every registration must be served (a refusal is counted with its reason). The last one
   starts the tournament: its ``--tables`` tables open and their dealers drive them between hands.
2. **Tournament**: the bots act at once for whoever is to act at its tables, the next hand is dealt after the
   shortest pause (``HAND_PAUSE``), levels last a minute (the shortest a structure has); until it finishes.
   Hands/s, and the tournament's balancing work per hand (players moved, tables broken: its own log).
   The bots mostly check and call, bet and raise the most allowed 40% of the time, and fold half of the
   calls they are asked for on third street (``--third-street-folds``), as players fold most starting
   hands: bots that never fold (``--third-street-folds 0``) make every hand a capped showdown of the whole
   table, so the field falls from 1,000 to about 160 in the first half-minute and the final table, alone
   in play, takes most of the run and about 40% of its actions: a shape no tournament of players has.
3. **Cash tables**: on a fresh database, the same bots at ``--tables`` money tables of as many seats, dealt
   by the same dealer after the same pause, for ``--cash-seconds``: half of it before the tournament and
   half after, on a fresh database each, their CPU and actions summed. The host's speed drifts over the
   minutes a tournament takes (the two halves of one run have differed by 17–36%); the peer brackets the
   tournament, and both halves are printed, so a run shows its own drift.

4. **Cash tables at the tournament's occupancy**: the tournament ends short-handed (heads-up at one table
   for its last minutes), where the cash tables of step 3 stay full. Each tournament action is counted by
   the players at its table (and the tables in play then); for each such size, on a fresh database, as many
   cash tables of that many players as the tournament had on average, for a share of ``--cash-seconds``
   (at least ``OCCUPANCY_MIN_SECONDS``); their CPU per action weighted by the tournament's actions at
   that size. Printed beside the figure of step 3, which stays the goal's peer.

Server CPU per action: this process's CPU time over the window, less the bots' own (their loop's between its
awaits: looking over the tables, passing those with nobody to act, choosing an action): the bots call the
table runtime in process, as the tournament tests' bots do, so no transport is measured on either side.
The tournament's window is its play, from the last registration answered (the start: its tables opened and
seated, every hand, every move and break) to its end; the registrations' CPU is the burst's, reported with
it (and the figure with it added beside the play's), as the cash tables' setup (creating them, seating the
players) is not in their window.
Goal: the tournament's ≤ 1.2× the cash tables' (step 3, full), the ratio printed with them. Both sides'
stores wait for their commits as ``serve`` does (asleep: ``--append-spin-us`` 0); ``--append-spin-us N``
lets every batch spin up to N µs for its commit, which an idle loop (a table or two left) pays per commit
in CPU.

Run: ``.venv/bin/python benchmarks/bench_tournament.py [--entrants 1000] [--tables 125]`` (the issue's size);
``--entrants 48 --tables 6 --cash-seconds 20`` for a smoke run. ``DATABASE_URL`` as for ``bench_service.py``.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import math
import random
import sys
import time
from collections import Counter
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

import headline  # noqa: E402  (benchmarks/headline.py)
from bench_service import Database, percentile  # noqa: E402

from stud_service.db import open_pool  # noqa: E402
from stud_service.engine import Act, ActionKind, DomainError, legal_actions, to_act  # noqa: E402
from stud_service.engine.commands import CreateTable, SitDown  # noqa: E402
from stud_service.engine.config import TableConfig  # noqa: E402
from stud_service.ledger.names import account_stream  # noqa: E402
from stud_service.sealing import EventSealer, Keyring  # noqa: E402
from stud_service.sealing.keyring import new_key  # noqa: E402
from stud_service.server.api.errors import RequestError  # noqa: E402
from stud_service.server.host import ServiceOptions  # noqa: E402
from stud_service.server.tables.runtime import TableRuntime  # noqa: E402
from stud_service.server.tables.settings import RuntimeSettings  # noqa: E402
from stud_service.server.tournaments.live import stream_id_for  # noqa: E402
from stud_service.store import EventStore  # noqa: E402
from stud_service.tournaments import (  # noqa: E402
    Level,
    Status,
    TournamentConfig,
    TournamentError,
    TournamentKind,
    event_from_json,
)
from stud_service.tournaments.events import PlayerMoved, TableBroken, TableHandDealt  # noqa: E402

ENTRANTS, TABLES = 1_000, 125  # the size
HAND_PAUSE = 0.02  # seconds: the shortest next-hand pause the tournament tests run with
# One-minute levels doubling from 5/10/20/40: a starting stack of 50 small bets lasts a few levels.
LEVELS = tuple(Level(5 * k, 10 * k, 20 * k, 40 * k, 1) for k in (2 ** n for n in range(16)))
STARTING_STACK = 1_000
BUY_IN, FEE = 1_000, 100
CASH_BUY_IN = 40_000  # the most a default table takes: 100 big bets, nobody busts in the window
GOAL = 1.2
THIRD_STREET_FOLDS = 0.5  # a bot asked to call on third street folds this often
OCCUPANCY_MIN_SECONDS = 4.0  # the shortest cash run of one table size (step 4)
TOURNAMENT_LIMIT_SECONDS = 4 * 3600


@dataclass
class Bots:
    """Bots acting at once for whoever is to act at the tables this replica holds; their own CPU (looking over
    the tables, choosing actions) apart."""

    seed: int
    folds: float = THIRD_STREET_FOLDS  # how often one asked to call on third street folds
    actions: int = 0
    cpu: float = 0.0  # seconds spent choosing actions (not the service's)
    refused: Counter[str] = field(default_factory=Counter)
    # Actions by the players seated at their table; and the tables in play then, summed over those actions.
    by_size: Counter[int] = field(default_factory=Counter)
    tables_by_size: Counter[int] = field(default_factory=Counter)
    final_table: int = 0  # actions while one table was in play

    async def play(self, runtime: TableRuntime, wanted: Callable[[TableConfig], bool]) -> None:
        rng = random.Random(self.seed)
        # The bots' CPU is all of this loop's own between its awaits: looking over every table loaded (all
        # 125 of the tournament's to its end, most broken by then), passing over those with nobody to act,
        # choosing. Timed from each resume to the next await, so the pass over the tables the bots skip
        # (and the clock reads themselves) is theirs too, not counted as the service's.
        resumed = time.process_time()
        while True:
            acted = False
            tables = [live for live in runtime.loaded_tables()
                      if live.state.config is not None and wanted(live.state.config)]
            in_play = sum(len(live.state.seats) >= 2 for live in tables)
            for live in tables:
                state = live.state
                seat = to_act(state)
                if seat is None:
                    continue
                player = state.seats[seat].player_id
                act = partial(Act, player, *choice(state, player, rng, self.folds))
                self.cpu += time.process_time() - resumed
                try:
                    await runtime.execute(live.table_id, lambda _state, now, act=act: act(now))
                except (DomainError, RequestError) as error:
                    resumed = time.process_time()
                    self.refused[type(error).__name__] += 1  # the table moved on first: nothing done
                except Exception as error:  # noqa: BLE001  (a bot keeps playing; the run prints what it met)
                    resumed = time.process_time()
                    self.refused[f"unexpected {type(error).__name__}: {error}"[:120]] += 1
                else:
                    resumed = time.process_time()
                    self.actions += 1
                    self.by_size[len(state.seats)] += 1
                    self.tables_by_size[len(state.seats)] += in_play
                    self.final_table += in_play == 1
                    acted = True
            if not acted:
                self.cpu += time.process_time() - resumed
                await asyncio.sleep(0.005)
                resumed = time.process_time()


def choice(state: Any, player: str, rng: random.Random, folds: float) -> tuple[ActionKind, int | None]:
    """Mostly checks and calls (bring-ins); bets and raises the most allowed 40% of the time; on third street,
    asked to call, folds ``folds`` of the time (as players fold most starting hands: a bot that never folds
    makes every hand a showdown of the whole table, and a tournament of them loses most of its field in its
    first hands and plays most of its actions at its final table)."""
    options = dict(legal_actions(state, player).options)
    if (folds and ActionKind.CALL in options and ActionKind.FOLD in options and state.hand.street == 3
            and rng.random() < folds):  # no draw at 0: the bots' choices as they were before the folds
        return ActionKind.FOLD, None
    calls = [kind for kind in (ActionKind.CHECK, ActionKind.CALL, ActionKind.BRING_IN) if kind in options]
    raises = [kind for kind in (ActionKind.BET, ActionKind.RAISE, ActionKind.COMPLETE) if kind in options]
    kinds = raises if raises and rng.random() < 0.4 else calls
    kind = kinds[0] if kinds else next(iter(options))
    return kind, max(options[kind]) if options[kind] else None


# Seconds a batch of appends may spin for its commit: as ``serve`` runs (``--append-spin-us``, 0: asleep).
SERVE_SPIN_SECONDS = ServiceOptions().append_spin_seconds


@contextlib.asynccontextmanager
async def replica(url: str, spin: float) -> AsyncIterator[TableRuntime]:
    """One replica's runtime on ``url``: a sealed store waiting for its commits as ``serve`` does, dealing
    after the shortest pause, no rake sweeps; ``spin``: seconds a batch may spin for its commit."""
    pool = await open_pool(url, max_size=8)
    keyring = Keyring("bench-1", {"bench-1": new_key()}, "the bench keyring")
    store = EventStore(pool, sealer=EventSealer(keyring), spin_wait=spin)
    runtime = TableRuntime(store, RuntimeSettings(next_hand_pause=HAND_PAUSE, rake_sweep_interval=0))
    try:
        yield runtime
    finally:
        await runtime.close()
        await store.close()
        await pool.close()


async def fund(runtime: TableRuntime, players: list[str], amount: int) -> None:
    for start in range(0, len(players), 50):
        await asyncio.gather(*(
            runtime.ledger.cashier("deposit", account_stream(player, "USD"), amount, f"pay-{player}", 0)
            for player in players[start:start + 50]
        ))


@dataclass
class Burst:
    served: int
    refused: Counter[str]
    last_served_seconds: float  # from the first registration sent to the last one answered
    latencies: list[float]
    server_cpu: float = 0.0  # the process's CPU over the burst, less the bots'


async def register_burst(runtime: TableRuntime, tournament_id: str, players: list[str]) -> Burst:
    """Every player registers, the sends spread evenly over one second."""
    began = time.monotonic()
    latencies: list[float] = []
    refused: Counter[str] = Counter()

    async def one(index: int, player: str) -> None:
        await asyncio.sleep(max(0.0, began + index / len(players) - time.monotonic()))
        sent = time.monotonic()
        try:
            await runtime.tournaments.register(tournament_id, player, request_key=None)
        except TournamentError as error:
            refused[error.reason] += 1
        except Exception as error:  # noqa: BLE001  (counted, not hidden: any refusal fails the burst)
            refused[type(error).__name__] += 1
        else:
            latencies.append(time.monotonic() - sent)

    await asyncio.gather(*(one(index, player) for index, player in enumerate(players)))
    return Burst(len(latencies), refused, time.monotonic() - began, latencies)


@dataclass
class Run:
    seconds: float
    actions: int
    server_cpu: float  # the process's CPU less the bots'
    hands: int = 0
    moved: int = 0
    broken: int = 0
    by_size: Counter[int] = field(default_factory=Counter)  # actions by the players at their table
    tables_by_size: Counter[int] = field(default_factory=Counter)  # tables in play, summed as in Bots
    final_table: int = 0  # actions while one table was in play

    @property
    def cpu_ms(self) -> float:
        return self.server_cpu / max(self.actions, 1) * 1000

    @property
    def actions_per_hand(self) -> float:
        """Over the window: a hand's fixed work (deal, seed, standings) is spread over this many actions."""
        return self.actions / max(self.hands, 1)

    def __add__(self, other: Run) -> Run:
        """Two cash windows as one (their sums; the cash side has no sizes or moves)."""
        return Run(self.seconds + other.seconds, self.actions + other.actions,
                   self.server_cpu + other.server_cpu, self.hands + other.hands)


async def tournament_run(
    url: str, entrants: int, tables: int, spin: float, folds: float = THIRD_STREET_FOLDS
) -> tuple[Burst, Run]:
    seats = math.ceil(entrants / tables)
    config = TournamentConfig(
        kind=TournamentKind.SIT_AND_GO, name="Benchmark", min_entrants=entrants, max_entrants=entrants,
        seats_per_table=seats, buy_in=BUY_IN, fee=FEE, currency="USD", levels=LEVELS,
        starting_stack=STARTING_STACK, action_clock_seconds=30,
    ).validate()
    players = [f"bot{n}" for n in range(entrants)]
    async with replica(url, spin) as runtime:
        await fund(runtime, players, BUY_IN + FEE)
        tournament_id = "bench-tournament"
        await runtime.tournaments.create(tournament_id, config, by="house", request_key=None)
        bots = Bots(seed=7, folds=folds)
        cpu_before = time.process_time()
        started = time.monotonic()
        playing = asyncio.get_running_loop().create_task(
            bots.play(runtime, lambda table: table.tournament_id == tournament_id))
        try:
            burst = await register_burst(runtime, tournament_id, players)
            burst.server_cpu = time.process_time() - cpu_before - bots.cpu
            play_cpu_before, play_bots_cpu_before = time.process_time(), bots.cpu
            print(f"registration burst: {burst.served} of {entrants} served, refused {dict(burst.refused)},"
                  f" the last answered {burst.last_served_seconds:.2f} s after the first was sent;"
                  f" p50 {percentile(burst.latencies, 0.5) * 1000:.0f} ms,"
                  f" p99 {percentile(burst.latencies, 0.99) * 1000:.0f} ms;"
                  f" {burst.server_cpu:.1f} s server CPU ({burst.server_cpu / entrants * 1000:.2f} ms a"
                  " registration)", flush=True)
            report = time.monotonic()
            while time.monotonic() - started < TOURNAMENT_LIMIT_SECONDS:
                state = await runtime.tournaments.state(tournament_id)
                if state.status is not Status.RUNNING and state.status is not Status.REGISTERING:
                    break
                if time.monotonic() - report > 30:
                    report = time.monotonic()
                    print(f"  {report - started:.0f} s: level {state.level_index + 1},"
                          f" {len(state.seat_of)} players left, {bots.actions} actions", flush=True)
                await asyncio.sleep(0.5)
        finally:
            playing.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await playing
        seconds = time.monotonic() - started
        run = Run(seconds, bots.actions,
                  time.process_time() - play_cpu_before - (bots.cpu - play_bots_cpu_before),
                  by_size=bots.by_size, tables_by_size=bots.tables_by_size, final_table=bots.final_table)
        if state.status is not Status.FINISHED:
            raise SystemExit(f"the tournament is {state.status.value} after {seconds:.0f} s")
        for item in await runtime.store.read_stream(stream_id_for(tournament_id)):
            event = event_from_json(item.payload)
            run.hands += isinstance(event, TableHandDealt)
            run.moved += isinstance(event, PlayerMoved)
            run.broken += isinstance(event, TableBroken)
    print(f"bots' refused actions: {dict(bots.refused)}", flush=True)
    return burst, run


async def cash_run(
    url: str, tables: int, seats: int, seconds: float, spin: float, seated: int | None = None,
    folds: float = THIRD_STREET_FOLDS,
) -> Run:
    """``tables`` cash tables of ``seats`` seats, ``seated`` players at each (all seats by default)."""
    seated = seats if seated is None else seated
    async with replica(url, spin) as runtime:
        players = [f"bot{n}" for n in range(tables * seated)]
        await fund(runtime, players, CASH_BUY_IN)
        config = TableConfig(seats=seats, currency="USD", max_buy_in=CASH_BUY_IN)
        for table in range(tables):
            table_id = f"cash-{table}"
            await runtime.create(table_id, CreateTable(table_id, config, int(time.time() * 1000)), None)
            for seat in range(seated):
                player = players[table * seated + seat]
                await runtime.execute(table_id, lambda _state, now, player=player, seat=seat:
                                      SitDown(player, seat + 1, CASH_BUY_IN, now_ms=now))
        bots = Bots(seed=7, folds=folds)
        hands_before = hands_started(runtime)
        cpu_before = time.process_time()
        started = time.monotonic()
        playing = asyncio.get_running_loop().create_task(
            bots.play(runtime, lambda table: not table.tournament_id))
        await asyncio.sleep(seconds)
        playing.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await playing
        return Run(time.monotonic() - started, bots.actions, time.process_time() - cpu_before - bots.cpu,
                   hands=hands_started(runtime) - hands_before)


def hands_started(runtime: TableRuntime) -> int:
    """Hands dealt so far at the tables loaded here."""
    return sum(live.state.hand_number for live in runtime.loaded_tables())


@dataclass
class Occupancy:
    """The cash tables at the tournament's occupancy: per table size (players), its share of the
    tournament's actions, the cash tables run and their CPU per action."""

    runs: dict[int, tuple[float, int, Run]]  # players at a table -> (share of actions, tables, cash run)

    @property
    def cpu_ms(self) -> float:
        return sum(share * run.cpu_ms for share, _tables, run in self.runs.values())

    def summary(self) -> str:
        return ", ".join(f"{size} players at {tables} tables {share:.0%} of actions: {run.cpu_ms:.2f} ms"
                         for size, (share, tables, run) in sorted(self.runs.items()))


def occupancy_run(
    db: Database, tournament: Run, seats: int, seconds: float, spin: float, folds: float
) -> Occupancy:
    """Step 4: cash tables of each size the tournament played at, as many as it had in play then."""
    total = sum(tournament.by_size.values())
    runs = {}
    for size, actions in sorted(tournament.by_size.items()):
        share = actions / total
        if size < 2 or share < 0.01:
            continue  # a table of one acts only as a hand ends; a size this rare weighs nothing
        tables = max(1, round(tournament.tables_by_size[size] / actions))
        window = max(OCCUPANCY_MIN_SECONDS, seconds * share)
        run = asyncio.run(cash_run(db.another(), tables, seats, window, spin, seated=size, folds=folds))
        runs[size] = (share, tables, run)
    weight = sum(share for share, _tables, _run in runs.values())
    return Occupancy({size: (share / weight, tables, run) for size, (share, tables, run) in runs.items()})


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--entrants", type=int, default=ENTRANTS)
    parser.add_argument("--tables", type=int, default=TABLES)
    parser.add_argument("--cash-seconds", type=float, default=120.0)
    parser.add_argument("--append-spin-us", type=int, default=None,
                        help="µs a batch of appends may spin for its commit (default: serve's)")
    parser.add_argument("--third-street-folds", type=float, default=THIRD_STREET_FOLDS,
                        help="how often a bot asked to call on third street folds (0: never)")
    args = parser.parse_args()
    folds = args.third_street_folds
    spin = SERVE_SPIN_SECONDS if args.append_spin_us is None else args.append_spin_us / 1_000_000
    db = Database()
    db.start()
    seats = math.ceil(args.entrants / args.tables)

    def cash_window() -> Run:
        half = args.cash_seconds / 2
        return asyncio.run(cash_run(db.another(), args.tables, seats, half, spin, folds=folds))

    try:
        cash_before = cash_window()
        burst, tournament = asyncio.run(tournament_run(db.url, args.entrants, args.tables, spin, folds))
        cash_after = cash_window()
        cash = cash_before + cash_after
        occupancy = occupancy_run(db, tournament, seats, args.cash_seconds, spin, folds)
    finally:
        db.stop()
    hands_per_s = tournament.hands / tournament.seconds
    with_registrations_ms = (tournament.server_cpu + burst.server_cpu) / max(tournament.actions, 1) * 1000
    print(f"tournament: {tournament.hands} hands in {tournament.seconds:.0f} s ({hands_per_s:.1f} hands/s),"
          f" {tournament.actions} actions ({tournament.actions / tournament.seconds:.0f}/s),"
          f" {tournament.moved} players moved and {tournament.broken} tables broken"
          f" ({(tournament.moved + tournament.broken) / max(tournament.hands, 1):.3f} a hand);"
          f" {tournament.cpu_ms:.2f} ms server CPU per action"
          f" (with its registrations: {with_registrations_ms:.2f} ms);"
          f" {tournament.actions_per_hand:.0f} actions a hand,"
          f" {tournament.final_table / max(tournament.actions, 1):.0%} of its actions at its final table")
    ratio = tournament.cpu_ms / cash.cpu_ms
    print(f"cash tables: {cash.actions} actions in {cash.seconds:.0f} s"
          f" ({cash.actions / cash.seconds:.0f}/s);"
          f" {cash.cpu_ms:.2f} ms server CPU per action (before the tournament {cash_before.cpu_ms:.2f},"
          f" after it {cash_after.cpu_ms:.2f}), {cash.actions_per_hand:.0f} actions a hand;"
          f" the tournament's {ratio:.2f}× that"
          f" (the goal's comparison: ≤ {GOAL}×)")
    print(f"cash tables at the tournament's occupancy: {occupancy.cpu_ms:.2f} ms server CPU per action"
          f" ({occupancy.summary()}); the tournament's {tournament.cpu_ms / occupancy.cpu_ms:.2f}× that")
    burst_ok = burst.served == args.entrants and not burst.refused
    met = ratio <= GOAL and burst_ok
    headline.record(
        __file__,
        what=f"a sit & go of {args.entrants:,} bots at {args.tables} tables of {seats}, one replica,"
             f" bots acting at once (folding {folds:.0%} of their third-street calls),"
             f" {HAND_PAUSE * 1000:.0f} ms between hands, one-minute levels,"
             f" played to the end ({tournament.seconds / 60:.0f} min);"
             " its registrations sent over one second",
        figure=f"{tournament.cpu_ms:.2f} ms server CPU per action of play"
               f" ({with_registrations_ms:.2f} ms with"
               f" the registrations'); {hands_per_s:.1f} hands/s,"
               f" {tournament.actions_per_hand:.0f} actions a hand,"
               f" {tournament.final_table / max(tournament.actions, 1):.0%} at the final table;"
               f" {(tournament.moved + tournament.broken) / max(tournament.hands, 1):.3f} moves and breaks"
               f" a hand; registrations {burst.served:,} of {args.entrants:,} served,"
               f" the last {burst.last_served_seconds:.2f} s after the first",
        peer=f"the same bots at {args.tables} cash tables of {seats}: {cash.cpu_ms:.2f} ms"
             f" ({cash_before.cpu_ms:.2f} before the tournament, {cash_after.cpu_ms:.2f} after;"
             f" {cash.actions_per_hand:.0f} actions a hand)"
             f" (at the tournament's occupancy: {occupancy.cpu_ms:.2f} ms,"
             f" {tournament.cpu_ms / occupancy.cpu_ms:.2f}×)",
        ratio=f"{ratio:.2f}×",
        goal=f"≤ {GOAL}× the cash tables' CPU per action; every registration served",
        met=met,
    )
    return 0 if met else 1


if __name__ == "__main__":
    sys.exit(main())
