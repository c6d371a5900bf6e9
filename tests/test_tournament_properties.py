"""Property tests over whole simulated tournaments (RULES.md §11): random structures, fields, late entries,
re-entries, absent players and cancellations, played by random players at real engine tables
(``stud_service.tournaments.simulate``).

At every step: chips are conserved across all the tournament's tables (a moved player counted once, where
the tournament seats them), every table between hands with nothing left to seat seats exactly the players
the tournament says with the chips it says, and every hand deals in exactly the players the tournament
dealt in.  After every balancing: the table
that gave players is within one of the shortest (or was broken, or a longer table in a hand gives next), and
every table that took one is.  At the end: places are a permutation of
1..players with ties only among players out in one hand with equal chips; the payouts add up to the pool;
each hand was dealt at the level the tournament let it deal at; replaying the events gives the state; and
every state a step left is as it was after the steps that followed (a state is a value: its copies share
its containers until they change one).
"""

from __future__ import annotations

import copy
import doctest
from collections import Counter, defaultdict
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from stud_service.engine import chips_in_play
from stud_service.engine.events import HandStarted
from stud_service.tournaments import (
    CancellationPayout,
    Level,
    Status,
    TournamentConfig,
    TournamentKind,
    event_from_json,
    event_to_json,
    replay,
)
from stud_service.tournaments.orders import Step, next_step
from stud_service.tournaments.rules.levels import level_number
from stud_service.tournaments.simulate import T0_MS, SimulatedTournament, simulate_tournament
from stud_service.tournaments.state import entries_total, table_counts

STEEP = (Level(5, 10, 20, 40, 2), Level(10, 20, 40, 80, 2), Level(minutes=1, is_break=True),
         Level(25, 50, 100, 200, 2), Level(50, 100, 200, 400, 2), Level(100, 200, 400, 800, 2))


@st.composite
def structures(draw: Any) -> tuple[TournamentConfig, int, int]:
    """A structure, how many register before the start, and how many late entries to try."""
    seats = draw(st.integers(2, 8))
    entrants = draw(st.integers(2, 40))
    scheduled = draw(st.booleans())
    re_entries = draw(st.integers(0, 2))
    explicit = entrants >= 3 and draw(st.booleans())
    config = TournamentConfig(
        kind=TournamentKind.SCHEDULED if scheduled else TournamentKind.SIT_AND_GO,
        start_ms=T0_MS + 60_000 if scheduled else 0,
        levels=draw(st.sampled_from((STEEP, STEEP[3:], (STEEP[0], STEEP[-1])))),
        starting_stack=draw(st.sampled_from((150, 400, 1_000))), seats_per_table=seats,
        min_entrants=3 if explicit else 2, max_entrants=entrants,
        late_registration_levels=draw(st.integers(0, 2)) if scheduled else 0,
        re_entries=re_entries, re_entry_until_level=draw(st.integers(1, 2)) if re_entries else 0,
        buy_in=draw(st.sampled_from((1, 100, 1_001))), fee=10,
        payouts=(5_000, 3_000, 2_000) if explicit else (),
        cancellation_payout=draw(st.sampled_from(list(CancellationPayout))),
    )
    registered = draw(st.integers(2, entrants)) if scheduled else entrants
    return config, registered, draw(st.integers(0, 10))


class Checks:
    """The invariants checked after every step of a simulation."""

    def __init__(self) -> None:
        self.commands_seen = 0
        self.balancings = 0
        self.hands_seen: dict[str, int] = {}
        self.steps = 0
        self.kept: list[tuple[Any, Any]] = []  # some states the steps left, with a deep copy of each

    def __call__(self, sim: SimulatedTournament) -> None:
        state = sim.state
        self.steps += 1
        if self.steps % 7 == 1:
            self.kept.append((state, copy.deepcopy(state)))
        if state.status is Status.RUNNING:
            assert chips_held(sim) == sim.config.starting_stack * entries_total(state), \
                "chips are not conserved across the tables"
            for table_id, table in sim.tables.items():
                self.dealt_as_the_tournament_dealt(sim, table_id)
                if table.hand is None and next_step(state, table_id, table) in (Step.NONE, Step.DEAL):
                    seated = {seat: (s.player_id, s.stack) for seat, s in table.seats.items()}
                    wanted = {seat: (player, state.chips[player])
                              for seat, player in state.tables.get(table_id, {}).items()}
                    assert seated == wanted, f"{table_id} does not seat what the tournament says"
        for events in sim.commands[self.commands_seen:]:
            self.after_balancing(sim, events)
        self.commands_seen = len(sim.commands)

    def states_stayed_values(self) -> bool:
        return all(state == snapshot for state, snapshot in self.kept)

    def dealt_as_the_tournament_dealt(self, sim: SimulatedTournament, table_id: str) -> None:
        """A hand started at a table deals in exactly the players the tournament let it deal to."""
        table = sim.tables[table_id]
        if table.hand is None or self.hands_seen.get(table_id) == table.hand_number:
            return
        self.hands_seen[table_id] = table.hand_number
        log = sim.table_logs[table_id]
        started = next(event for event in reversed(log) if isinstance(event, HandStarted))
        players = tuple(sorted(player for _seat, player, _chips in started.seats))
        assert players == sim.state.dealt_in[table_id], f"{table_id} dealt hand {started.hand} to others"

    def after_balancing(self, sim: SimulatedTournament, events: list[Any]) -> None:
        """§11 Balancing: the table that gave players is within one of the shortest, or broken, or no longer
        a longest table (a longer one, in a hand now, gives when its hand ends); every table that took a
        player is within one of the shortest."""
        givers = {event.from_table for event in events if type(event).__name__ == "PlayerMoved"}
        if not givers or sim.state.status is not Status.RUNNING:
            return
        self.balancings += 1
        counts = table_counts(sim.state)
        shortest, longest = min(counts.values()), max(counts.values())
        for table_id in givers & set(counts):
            assert counts[table_id] - shortest <= 1 or counts[table_id] < longest, counts
        receivers = {event.to_table for event in events if type(event).__name__ == "PlayerMoved"}
        assert all(counts[table_id] - shortest <= 1 for table_id in receivers), counts


def chips_held(sim: SimulatedTournament) -> int:
    """The chips at the tournament's tables, a player who left one seat for another counted once: at the
    seat the tournament gives them, or with the chips it says while they are on their way there (a table
    between hands whose hand is reported holds them with those chips, or holds someone else)."""
    state = sim.state
    total = 0
    held: set[str] = set()
    for table_id, table in sim.tables.items():
        total += chips_in_play(table)
        folded = table.hand is None and next_step(state, table_id, table) is not Step.REPORT
        for seat, seated in table.seats.items():
            player = seated.player_id
            stale = folded and seated.stack != state.chips[player]
            if state.seat_of.get(player) == (table_id, seat) and not stale:
                held.add(player)
            else:
                total -= seated.stack
    return total + sum(state.chips[player] for player in state.seat_of if player not in held)


def check_places(sim: SimulatedTournament) -> None:
    """§11: places form a permutation of 1..players, ties only among players out in one hand (or one
    hand-for-hand round) who started it with equal chips."""
    state = sim.state
    players = len(state.registered)
    assert set(state.places) == set(state.registered)
    sharing = Counter(state.places.values())
    for (place, last), count in sharing.items():
        assert count == last - place + 1
    covered = sorted(position for place, last in sharing for position in range(place, last + 1))
    assert covered == list(range(1, players + 1))
    start_chips: dict[str, int] = {}
    fixed_together: dict[str, int] = {}
    for index, event in enumerate(sim.log):
        if type(event).__name__ == "PlayersEliminated":
            start_chips.update(dict(event.players))
        elif type(event).__name__ == "PlacesFixed":
            fixed_together.update({player: index for player, *_ in event.places})
    groups = defaultdict(list)
    for player, place in state.places.items():
        groups[place].append(player)
    for (place, last), members in groups.items():
        if last > place:
            assert len({fixed_together[player] for player in members}) == 1
            assert len({start_chips[player] for player in members}) == 1


def check_money(sim: SimulatedTournament) -> None:
    """§11 Payouts and Cancellation: every unit of the pool is paid; before the start, every entry is
    refunded."""
    state, config = sim.state, sim.config
    pool = entries_total(state) * config.buy_in
    if state.status is Status.FINISHED:
        assert state.prizes is not None and sum(state.prizes) == pool
        assert sum(state.prizes_won.values()) == pool
        return
    assert state.status is Status.CANCELLED
    cancelled = sim.log[-1]
    if cancelled.refunds:
        entries = len(state.registered) * (config.buy_in + config.fee)
        assert sum(amount for _, amount in cancelled.refunds) == entries
    else:
        assert sum(state.prizes_won.values()) + sum(state.cancel_payouts.values()) == pool


def check_levels(sim: SimulatedTournament) -> None:
    """§11 Levels: each hand was dealt at the level running when the tournament let it deal."""
    dealt = {(event.table_id, event.hand): event.index for event in sim.log
             if type(event).__name__ == "TableHandDealt"}
    tables = {**sim.closed, **sim.tables}
    for table_id, log in sim.table_logs.items():
        for event in log:
            if isinstance(event, HandStarted):
                index = dealt[(table_id, event.hand)]
                level = sim.config.levels[index]
                assert not level.is_break
                config = event.config
                assert (config.ante, config.bring_in, config.small_bet, config.big_bet) == (
                    level.ante, level.bring_in, level.small_bet, level.big_bet)
                assert config.tournament_level == level_number(sim.config.levels, index)
        assert table_id in tables


@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(structures(), st.integers(0, 2**32), st.sampled_from((0.0, 0.03, 0.2)),
       st.none() | st.integers(1, 400))
def test_simulated_tournaments_keep_every_rule(structure: tuple[TournamentConfig, int, int], seed: int,
                                              absent: float, cancel_at: int | None) -> None:
    config, registered, late = structure
    checks = Checks()
    sim = simulate_tournament(config, seed, players=registered, late=late, absent=absent, on_step=checks,
                              cancel_at=cancel_at)
    assert sim.state.status in (Status.FINISHED, Status.CANCELLED)
    assert replay(sim.log) == sim.state
    assert checks.kept and checks.states_stayed_values(), "a later step changed a state an earlier one left"
    assert [event_from_json(event_to_json(event)) for event in sim.log] == sim.log
    check_money(sim)
    check_levels(sim)
    if sim.state.status is Status.FINISHED:
        check_places(sim)


def test_simulations_reach_every_kind_of_event() -> None:
    """The generators above are worth their salt: hand for hand, breaks, moves, broken tables, shared
    places, late entries and re-entries all happen in a handful of runs."""
    seen: Counter[str] = Counter()
    bubble = TournamentConfig(levels=STEEP, starting_stack=400, max_entrants=40, seats_per_table=6)
    slow_start = (Level(5, 10, 20, 40, 20), Level(10, 20, 40, 80, 20), *STEEP[2:])
    late = TournamentConfig(kind=TournamentKind.SCHEDULED, start_ms=T0_MS + 60_000, levels=slow_start,
                            starting_stack=400, max_entrants=40, seats_per_table=6,
                            late_registration_levels=2, re_entries=2, re_entry_until_level=2)
    for seed in range(6):
        for config, players, more in ((bubble, 40, 0), (late, 20, 12)):
            sim = simulate_tournament(config, seed, players=players, late=more, absent=0.1, on_step=Checks())
            seen.update(type(event).__name__ for event in sim.log)
            shared = any(last > place for place, last in sim.state.places.values())
            seen["shared places"] += shared
    for name in ("HandForHandStarted", "HandForHandEnded", "BreakStarted", "PlayerMoved", "TableBroken",
                 "PlayerReEntered", "PrizesFixed", "TournamentFinished"):
        assert seen[name], f"no {name} in the simulations"
    assert seen["PlayerSeated"] > 6 * 60  # late entrants and re-entries were seated too


def test_the_examples_in_the_docstrings_run() -> None:
    from stud_service.tournaments import draws, simulate

    assert doctest.testmod(draws).failed == 0 and doctest.testmod(simulate).failed == 0
