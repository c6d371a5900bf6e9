"""Tables played by random legal players: a fast source of real hands for tests and benchmarks.

Everything goes through the engine (``decide`` + ``evolve``) and the real provably fair shuffle, as the
service's dealer does it: each hand's server seed is committed (ShuffleCommitted, with TableCreated for
hand 1 and with each HandStarted for the next hand) before any client seed for it, and the hand is
dealt by ``shuffle.prepare_deal``: HandStarted carries the commitment, the client seeds, the deck root
and the commitment's version.  Players pick uniformly weighted legal actions and amounts, sometimes time
out, leave mid-hand, sit out, send client seeds or top up, so the log holds every kind of event; with
``voids``, an operator now and then pauses the table during a hand and voids it (or, at a table with
``interrupted_hand_void_seconds``, the hand stands still until it is voided), then resumes (RULES.md §12).

>>> table = simulate_table("t-doc", Variant.RAZZ, hands=3, seed=7)
>>> [type(e).__name__ for e in table.commands[0]]
['TableCreated', 'ShuffleCommitted']
>>> sum(type(e).__name__ == "HandEnded" for events in table.commands for e in events)
3
"""

from __future__ import annotations

import random
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from stud_service.audit.records import SEED_LOOKBACK, HandRecord
from stud_service.audit.tournament_log import tournament_stream_id
from stud_service.engine import (
    Act,
    ActionKind,
    CommitShuffle,
    CreateTable,
    Leave,
    LegalActions,
    PauseTable,
    ResumeTable,
    SetClientSeed,
    SitDown,
    SitIn,
    SitOut,
    StartHand,
    TableConfig,
    TableState,
    Timeout,
    TopUp,
    Variant,
    VoidHand,
    VoidInterruptedHand,
    action_deadline_ms,
    can_start_hand,
    decide,
    event_to_json,
    execute,
    hand_void_deadline_ms,
    initial_state,
    legal_actions,
    replay,
    to_act,
)
from stud_service.shuffle import SERVER_SEED_BYTES, commitment, prepare_deal, seed_secret
from stud_service.tournaments import event_to_json as tournament_event_json
from stud_service.tournaments import table_config as tournament_table_config
from stud_service.tournaments.simulate import SimulatedTournament

T0_MS = 1_767_225_600_000  # 2026-01-01T00:00:00Z


@dataclass
class SimulatedTable:
    table_id: str
    config: TableConfig
    commands: list[list[Any]] = field(default_factory=list)  # each command's events, in order
    state: TableState = field(default_factory=initial_state)

    def payloads(self) -> list[list[dict[str, Any]]]:
        return [[event_to_json(event) for event in events] for events in self.commands]

    def hand_records(self) -> list[HandRecord]:
        """Each finished hand's events as the log holds them (``store_table`` appends them from version
        1): HandStarted to the end of the command that ended it (so table events that command caused
        ride along), with the hand's ShuffleCommitted and the ClientSeedSet events before it, and at a
        tournament table the seats sitting out when it started (as ``load_hand`` reads them)."""
        records: list[HandRecord] = []
        current: list[dict[str, Any]] | None = None
        first = version = 0
        commitments: dict[int, tuple[int, dict[str, Any]]] = {}
        seeds: list[tuple[int, dict[str, Any]]] = []
        sat_out: set[int] = set()
        sitting_out: tuple[int, ...] = ()
        for payloads in self.payloads():
            if payloads[0]["type"] == "HandStarted":
                current, first = [], version + 1
                tournament = payloads[0]["config"].get("tournament_id")
                sitting_out = tuple(sorted(sat_out)) if tournament else ()
            for payload in payloads:
                version += 1
                if payload["type"] == "ShuffleCommitted":
                    commitments[payload["next_hand"]] = (version, payload)
                elif payload["type"] == "ClientSeedSet":
                    seeds.append((version, payload))
                elif payload["type"] == "PlayerSatOut":
                    sat_out.add(payload["seat"])
                elif payload["type"] in ("PlayerSatIn", "PlayerSeated", "PlayerLeft"):
                    sat_out.discard(payload["seat"])
            if current is not None:
                current.extend(payloads)
                if any(payload["type"] == "HandEnded" for payload in payloads):
                    hand = current[0]["hand"]
                    committed = commitments.get(hand)
                    low = committed[0] - SEED_LOOKBACK if committed else first
                    records.append(HandRecord.from_payloads(
                        self.table_id, hand, current, first_version=first, commitment=committed,
                        seed_events=tuple((v, p) for v, p in seeds if low < v < first),
                        sitting_out=sitting_out,
                    ))
                    current = None
        return records


def table_config(variant: Variant, rng: random.Random, raked: bool = False) -> TableConfig:
    """A random table; ``raked``: with a rake rule (RULES.md §10) of 1% to 10% whose caps, from a
    small bet's worth down to a few units, bind in some hands and not in others."""
    small = rng.choice((100, 200, 400))
    rake: dict[str, int] = {}
    if raked:
        rake = {
            "rake_basis_points": rng.choice((100, 250, 500, 1000)),
            "rake_cap_2": rng.choice((3, small // 2)),
            "rake_cap_3_4": rng.choice((7, small)),
            "rake_cap_5_plus": rng.choice((11, 2 * small)),
        }
    return TableConfig(
        variant=variant,
        ante=rng.choice((0, small // 10, small // 4)),
        bring_in=small // 2,
        small_bet=small,
        big_bet=2 * small,
        min_buy_in=small * 3,
        max_buy_in=small * 40,
        seats=8,
        uncapped_heads_up=rng.random() < 0.2,
        **rake,
    )


class _Driver:
    def __init__(self, table: SimulatedTable, rng: random.Random) -> None:
        self.table = table
        self.rng = rng
        self.now = T0_MS
        self.pending_seeds: dict[str, str] = {}  # client seeds for the next deal, by player
        self.version = 0  # of the table's last event, as store_table appends them
        self.committed: tuple[bytes, int] | None = None  # the next hand's seed, its ShuffleCommitted version

    def run(self, command: Any, *more: Any) -> list[Any]:
        """Decide ``command`` (and ``more`` in turn), appended as one command."""
        if not more:
            events = decide(self.table.state, command)
            if events:
                self.table.state = replay(events, self.table.state)
        else:
            events, state = [], self.table.state
            for each in (command, *more):
                produced, state = execute(state, each)
                events.extend(produced)
            self.table.state = state
        if events:
            self.table.commands.append(events)
            for index, event in enumerate(events):
                if type(event).__name__ == "ShuffleCommitted":
                    assert self.committed is not None
                    self.committed = (self.committed[0], self.version + index + 1)
            self.version += len(events)
        return events

    def commit_next(self) -> CommitShuffle:
        """The next hand's seed, from the driver's seeded generator (not the CSPRNG, unlike the
        service's dealer) so that a simulated table is reproducible from its seed."""
        server_seed = self.rng.randbytes(SERVER_SEED_BYTES)
        self.committed = (server_seed, 0)  # its version is known once run() appends it
        return CommitShuffle(commitment(server_seed), seed_secret(server_seed), self.now)

    def tick(self, ms: int = 1500) -> int:
        self.now += self.rng.randint(1, ms)
        return self.now

    def fill_seats(self) -> None:
        config = self.table.config
        state = self.table.state
        for seat in range(1, config.seats + 1):
            if seat not in state.seats and self.rng.random() < 0.5:
                player = f"p{seat}-{self.rng.randrange(1000)}"
                if state.seat_of(player) is None:
                    buy_in = self.rng.randint(config.min_buy_in, config.max_buy_in // 4)
                    self.run(SitDown(player, seat, buy_in, self.tick()))
                    state = self.table.state

    def between_hands(self) -> None:
        config = self.table.config
        for _seat, seated in sorted(self.table.state.seats.items()):
            roll = self.rng.random()
            if seated.stack == 0:
                self.run(TopUp(seated.player_id, self.rng.randint(1, config.min_buy_in * 2), self.tick()))
            if seated.sitting_out and roll < 0.8:
                self.run(SitIn(seated.player_id, self.tick()))
            elif not seated.sitting_out and roll > 0.97:
                self.run(SitOut(seated.player_id, self.tick()))
            if roll < 0.15:
                seed = f"seed-{self.rng.getrandbits(40):x}"
                if self.run(SetClientSeed(seated.player_id, seed, self.tick())):
                    self.pending_seeds[seated.player_id] = seed
        if len(self.table.state.seats) < 2 or self.rng.random() < 0.1:
            self.fill_seats()

    def start_hand(self) -> None:
        state = self.table.state
        seeds = {}
        for seat, seated in state.seats.items():
            pending = self.pending_seeds.get(seated.player_id)
            if pending is not None and not seated.sitting_out and seated.stack > 0:
                seeds[seat] = pending
        assert self.committed is not None
        server_seed, committed_at = self.committed
        self.pending_seeds.clear()
        deal = prepare_deal(server_seed, seeds, committed_at)
        start = StartHand(deal.cards, deal.commitment, self.tick(), deal.extra)
        self.run(start, self.commit_next())

    def act(self) -> None:
        state = self.table.state
        seat = to_act(state)
        assert seat is not None
        player = state.seats[seat].player_id
        roll = self.rng.random()
        if roll < 0.02:
            deadline = action_deadline_ms(state)
            assert deadline is not None
            self.now = max(self.now, deadline)
            self.run(Timeout(self.now))
            return
        if roll < 0.03:
            self.run(Leave(player, self.tick()))
            return
        legal = legal_actions(state, player)
        weights = {
            ActionKind.FOLD: 1,
            ActionKind.CHECK: 4,
            ActionKind.CALL: 4,
            ActionKind.BRING_IN: 3,
            ActionKind.COMPLETE: 2,
            ActionKind.BET: 2,
            ActionKind.RAISE: 2,
        }
        kinds = legal.kinds()
        kind = self.rng.choices(kinds, [weights[k] for k in kinds])[0]
        amounts = legal.amounts(kind)
        amount = self.rng.choice(amounts) if amounts else None
        self.run(Act(player, kind, amount, self.tick()))

    def void(self) -> None:
        """RULES.md §12: the running hand stopped: voided as interrupted once it stood still long enough at
        a table set for it, else paused and voided by an operator, and the table resumed."""
        state = self.table.state
        assert state.hand is not None
        deadline = hand_void_deadline_ms(state)
        if deadline is not None:
            self.now = max(self.now, deadline + self.rng.randint(0, 5_000))
            self.run(VoidInterruptedHand(self.now))
            return
        self.run(PauseTable("ops", "a fault at the table", self.tick()))
        self.run(VoidHand(state.hand.number, "ops", "the fault spoilt the hand", self.tick()))
        self.run(ResumeTable("ops", "fixed", self.tick()))


def simulate_table(
    table_id: str,
    variant: Variant,
    hands: int,
    seed: int = 0,
    config: TableConfig | None = None,
    raked: bool = False,
    voids: float = 0.0,
) -> SimulatedTable:
    """Play ``hands`` hands at a new table; every command's events are in ``commands``.  The table is
    ``config``, else a random one (with a random rake rule if ``raked``); ``voids``: the chance, at each
    decision, that the hand is voided there instead (RULES.md §12)."""
    rng = random.Random(seed)
    table = SimulatedTable(table_id, config or table_config(variant, rng, raked))
    driver = _Driver(table, rng)
    driver.run(CreateTable(table_id, table.config, driver.now), driver.commit_next())
    played = 0
    while played < hands:
        driver.between_hands()
        if not can_start_hand(table.state):
            driver.fill_seats()
            continue
        driver.start_hand()
        while table.state.hand is not None:
            if voids and rng.random() < voids:
                driver.void()
            else:
                driver.act()
        played += 1
    return table


# A seated player's choice: (state, seat, legal actions, rng) -> (kind, amount or None); the state is the
# engine's, which a policy reads only as its player may (stud_service.bots.colluders).
Policy = Callable[[TableState, int, LegalActions, random.Random], tuple[ActionKind, int | None]]


class _RosterDriver(_Driver):
    """The same players all along, each acting by its own policy; a player below half the buy-in is topped
    back up to it between hands (a busted one sits back in), so everyone plays every hand."""

    def __init__(self, table: SimulatedTable, rng: random.Random, players: Mapping[str, Policy],
                 buy_in: int, think_ms: tuple[int, int]) -> None:
        super().__init__(table, rng)
        self.players = dict(players)
        self.buy_in = buy_in
        self.think_ms = think_ms

    def seat_everyone(self) -> None:
        for seat, player in enumerate(self.players, start=1):
            self.run(SitDown(player, seat, self.buy_in, self.tick()))

    def between_hands(self) -> None:
        for _seat, seated in sorted(self.table.state.seats.items()):
            if seated.stack < self.buy_in // 2:
                self.run(TopUp(seated.player_id, self.buy_in - seated.stack, self.tick()))
        for _seat, seated in sorted(self.table.state.seats.items()):
            if seated.sitting_out:
                self.run(SitIn(seated.player_id, self.tick()))

    def act(self) -> None:
        state = self.table.state
        seat = to_act(state)
        assert seat is not None
        player = state.seats[seat].player_id
        kind, amount = self.players[player](state, seat, legal_actions(state, player), self.rng)
        self.now += self.rng.randint(*self.think_ms)
        self.run(Act(player, kind, amount, self.now))


def play_table(
    table_id: str,
    config: TableConfig,
    players: Mapping[str, Policy],
    hands: int,
    seed: int = 0,
    think_ms: tuple[int, int] = (300, 4000),
) -> SimulatedTable:
    """Play ``hands`` hands at a new table where ``players`` (in seat order, from seat 1) sit with the
    maximum buy-in and act by their policies; think times drawn uniformly from ``think_ms``."""
    rng = random.Random(seed)
    table = SimulatedTable(table_id, config)
    driver = _RosterDriver(table, rng, players, config.max_buy_in, think_ms)
    driver.run(CreateTable(table_id, config, driver.now), driver.commit_next())
    driver.seat_everyone()
    for _hand in range(hands):
        driver.between_hands()
        driver.start_hand()
        while table.state.hand is not None:
            driver.act()
    return table


async def store_table(store: Any, table: SimulatedTable) -> int:
    """Append the table's events to ``tables/{table_id}`` through the real event log, one append per
    hand (everything from the end of the previous hand to this hand's end); returns the head version."""
    stream_id = f"tables/{table.table_id}"
    version = 0
    batch: list[dict[str, Any]] = []
    for events in table.commands:
        batch.extend(event_to_json(event) for event in events)
        if any(type(event).__name__ == "HandEnded" for event in events):
            version = (await store.append(stream_id, version, batch)).version
            batch = []
    if batch:
        version = (await store.append(stream_id, version, batch)).version
    return version


def as_logged_before_proofs(record: HandRecord) -> HandRecord:
    """``record`` as a hand dealt before seeds were committed ahead was logged (HandEnded v2/v3): the
    server seed in HandStarted.extra and revealed by HandEnded, no deck root, no ShuffleCommitted."""
    seed = record.server_seed()
    assert seed is not None
    payloads: list[dict[str, Any]] = []
    for stored in record.events:
        payload = dict(stored.payload)
        if payload["type"] == "ShuffleCommitted":
            continue
        if payload["type"] == "HandStarted":
            seeds = payload["extra"].get("client_seeds", {})
            payload["extra"] = {"server_seed": seed.hex(), "client_seeds": seeds}
        elif payload["type"] == "HandEnded":
            payload["server_seed"] = seed.hex()
        payloads.append(payload)
    return HandRecord.from_payloads(
        record.table_id, record.hand, payloads, first_version=record.first_version
    )


async def store_tournament(store: Any, sim: SimulatedTournament) -> None:
    """Append a simulated tournament through the real event log: each command's events to
    ``tournaments/{id}``, each table's to ``tables/{table id}`` one append per hand, as ``store_table``
    does (deal it with ``committed_shuffle`` for hands whose shuffle verifies)."""
    version = 0
    stream_id = tournament_stream_id(sim.tournament_id)
    for events in sim.commands:
        if events:
            payloads = [tournament_event_json(event) for event in events]
            version = (await store.append(stream_id, version, payloads)).version
    for table_id, log in sim.table_logs.items():
        version = 0
        batch: list[dict[str, Any]] = []
        for event in log:
            batch.append(event_to_json(event))
            if type(event).__name__ == "HandEnded":
                version = (await store.append(f"tables/{table_id}", version, batch)).version
                batch = []
        if batch:
            await store.append(f"tables/{table_id}", version, batch)


def tournament_hand_records(sim: SimulatedTournament) -> dict[tuple[str, int], HandRecord]:
    """Every finished hand of the tournament's tables by (table id, hand), as ``store_tournament`` logs
    them (no database)."""
    records: dict[tuple[str, int], HandRecord] = {}
    for table_id in sim.table_logs:
        config = tournament_table_config(sim.config, sim.tournament_id, table_id)
        table = SimulatedTable(table_id, config, commands=sim.table_commands[table_id])
        records.update(((table_id, record.hand), record) for record in table.hand_records())
    return records
