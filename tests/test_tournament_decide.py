"""A tournament's commands (RULES.md §11): what each causes, each refusal with its typed error, the events
as JSON, and the draws an auditor recomputes from the revealed seeds."""

from __future__ import annotations

import hashlib
from dataclasses import replace

import pytest
from tournament_helpers import T0, Tourney, next_draw, of_type

from stud_service.engine import CreateTable, EventDecodeError, Leave, SitDown
from stud_service.engine import decide as decide_table
from stud_service.engine import initial_state as initial_table
from stud_service.engine import replay as replay_table
from stud_service.tournaments import (
    AdvanceLevel,
    CancelTournament,
    CreateTournament,
    DealTableHand,
    EndTableHand,
    Hold,
    Level,
    NextDraw,
    ReEnter,
    Register,
    StartTournament,
    Status,
    TournamentConfig,
    TournamentError,
    TournamentKind,
    Unregister,
    decide,
    event_from_json,
    event_to_json,
    execute_then,
    initial_state,
    replay,
)
from stud_service.tournaments.draws import Draw
from stud_service.tournaments.events import EVENT_TYPES, EVENT_VERSIONS
from stud_service.tournaments.orders import TableOrders, table_commands, table_config
from stud_service.tournaments.rules.seating import seating_draw

LEVELS = (Level(5, 10, 20, 40, 10), Level(minutes=5, is_break=True), Level(10, 20, 40, 80, 10))
SIT_AND_GO = TournamentConfig(name="Spring", levels=LEVELS, starting_stack=1_000, max_entrants=6,
                              seats_per_table=6, buy_in=1_000, fee=100)
SCHEDULED = replace(SIT_AND_GO, kind=TournamentKind.SCHEDULED, start_ms=T0 + 60_000, min_entrants=3,
                    max_entrants=20, late_registration_levels=1)


def refused(state: object, command: object, reason: str) -> TournamentError:
    with pytest.raises(TournamentError) as error:
        decide(state, command)  # type: ignore[arg-type]
    assert error.value.reason == reason, error.value
    return error.value


def started_sit_and_go() -> Tourney:
    tourney = Tourney(SIT_AND_GO)
    tourney.register("ann", "bob", "cy", "dee", "eve", "fay")
    return tourney


# --- creation and registration --------------------------------------------------------------------------

def test_create_commits_the_first_draw_with_the_tournament() -> None:
    tourney = Tourney(SIT_AND_GO)
    created, committed = tourney.log
    assert created.tournament_id == "spring" and created.config == SIT_AND_GO
    assert committed.draw == 1 and committed.commitment == next_draw(1).commitment
    refused(tourney.state, CreateTournament("spring", SIT_AND_GO, next_draw(9)), "TOURNAMENT_EXISTS")


@pytest.mark.parametrize(("command", "field"), [
    (CreateTournament("Spring!", SIT_AND_GO, next_draw(1)), "tournament_id"),
    (CreateTournament("s" * 57, SIT_AND_GO, next_draw(1)), "tournament_id"),
    (CreateTournament("spring", replace(SIT_AND_GO, seats_per_table=9), next_draw(1)), "seats_per_table"),
    (CreateTournament("spring", SIT_AND_GO, NextDraw("ab" * 32, {"seed": "00" * 32})), "first_draw"),
    (CreateTournament("spring", SIT_AND_GO, NextDraw("xyz", {})), "first_draw"),
])
def test_create_refuses_a_bad_id_structure_or_draw_naming_the_field(command: CreateTournament,
                                                                    field: str) -> None:
    reason = "MALFORMED_REQUEST" if field == "first_draw" else "INVALID_CONFIG"
    error = refused(initial_state(), command, reason)
    assert error.metadata == {"field": field}


def test_a_sit_and_go_starts_when_its_last_seat_is_taken() -> None:
    """§11 Kinds: the last registration starts it: level 1, its tables, the seating draw, the prizes."""
    tourney = Tourney(SIT_AND_GO)
    tourney.register("ann", "bob", "cy", "dee", "eve")
    assert tourney.state.status is Status.REGISTERING
    events = tourney.register("fay")
    names = [type(event).__name__ for event in events]
    assert names == ["PlayerRegistered", "TournamentStarted", "LevelStarted", "TableOpened", "DrawRevealed",
                     *["PlayerSeated"] * 6, "PrizesFixed", "DrawCommitted"]
    assert of_type(events, "TableOpened")[0].table_id == "spring-t1"
    assert of_type(events, "PrizesFixed")[0].prizes == (3_900, 2_100)  # 65/35 of 6,000
    assert all(seated.chips == 1_000 for seated in of_type(events, "PlayerSeated"))


def test_an_auditor_recomputes_the_seating_from_the_revealed_seed() -> None:
    """§11 Seating: a draw committed before it is revealed, verifiable afterwards."""
    tourney = Tourney(replace(SIT_AND_GO, max_entrants=20, seats_per_table=8))
    players = [f"p{n:02}" for n in range(20)]
    tourney.register(*players)
    revealed = of_type(tourney.log, "DrawRevealed")[0]
    committed = of_type(tourney.log, "DrawCommitted")[0]
    assert hashlib.sha256(bytes.fromhex(revealed.seed)).hexdigest() == committed.commitment
    tables = [opened.table_id for opened in of_type(tourney.log, "TableOpened")]
    assert tables == ["spring-t1", "spring-t2", "spring-t3"]
    recomputed = seating_draw(players, tables, 8, Draw(bytes.fromhex(revealed.seed)))
    assert recomputed == [(seated.player_id, seated.table_id, seated.seat)
                          for seated in of_type(tourney.log, "PlayerSeated")]
    assert sorted(len(seats) for seats in tourney.state.tables.values()) == [6, 7, 7]


def test_registration_refusals() -> None:
    tourney = Tourney(SIT_AND_GO)
    tourney.register("ann")
    refused(tourney.state, Register("ann", T0, next_draw(5)), "ALREADY_REGISTERED")
    assert refused(tourney.state, Register("", T0), "MALFORMED_REQUEST").metadata == {"field": "player_id"}
    refused(tourney.state, Register("bob", T0, NextDraw("00" * 32, {"seed": "11" * 32})), "MALFORMED_REQUEST")
    refused(initial_state(), Register("ann", T0), "NO_TOURNAMENT")
    tourney.register("bob", "cy", "dee", "eve", "fay")
    refused(tourney.state, Register("gus", T0, next_draw(5)), "TOURNAMENT_FULL")


def test_a_command_that_draws_must_commit_the_next_draw() -> None:
    tourney = Tourney(SIT_AND_GO)
    tourney.register("ann", "bob", "cy", "dee", "eve")
    error = refused(tourney.state, Register("fay", T0), "MALFORMED_REQUEST")
    assert error.metadata == {"field": "next_draw"}


def test_unregistering_before_the_start_and_not_after() -> None:
    """§11 Entry: unregistering before the start refunds both (the ledger's part)."""
    tourney = Tourney(SIT_AND_GO)
    tourney.register("ann", "bob")
    assert tourney.run(Unregister("ann", T0))[0].player_id == "ann"
    assert tourney.state.registered == ("bob",)
    refused(tourney.state, Unregister("ann", T0), "NOT_REGISTERED")
    tourney.register("ann", "cy", "dee", "eve", "fay")
    refused(tourney.state, Unregister("ann", T0), "TOURNAMENT_STARTED")


# --- the scheduled start ---------------------------------------------------------------------------------

def test_a_scheduled_tournament_starts_at_its_start_time() -> None:
    """§11 Kinds: a scheduled tournament starts at its start time if at least its minimum registered."""
    tourney = Tourney(SCHEDULED)
    tourney.register("ann", "bob", "cy")
    refused(tourney.state, StartTournament(T0 + 59_999, next_draw(9)), "START_NOT_DUE")
    events = tourney.run(StartTournament(T0 + 60_000, tourney.next_draw()))
    assert of_type(events, "TournamentStarted")[0].entrants == 3
    assert not of_type(events, "PrizesFixed")  # late registration is open through level 1
    refused(tourney.state, StartTournament(T0 + 60_000, next_draw(9)), "TOURNAMENT_STARTED")


def test_a_scheduled_tournament_short_of_its_minimum_is_cancelled_and_refunded() -> None:
    """§11 Kinds: else it is cancelled and every entry and fee is refunded."""
    tourney = Tourney(SCHEDULED)
    tourney.register("ann", "bob")
    (cancelled,) = tourney.run(StartTournament(T0 + 60_000, tourney.next_draw()))
    assert cancelled.refunds == (("ann", 1_100), ("bob", 1_100)) and cancelled.payouts == ()
    assert tourney.state.status is Status.CANCELLED
    refused(tourney.state, Register("cy", T0), "TOURNAMENT_OVER")


def test_a_sit_and_go_is_not_started_by_the_clock() -> None:
    tourney = Tourney(SIT_AND_GO)
    refused(tourney.state, StartTournament(T0, next_draw(9)), "START_NOT_DUE")


# --- the level clock ------------------------------------------------------------------------------------

def test_the_level_clock_moves_at_the_end_of_each_level_and_stops_at_the_last() -> None:
    """§11 Levels: a level lasts a whole number of minutes; breaks are levels; the last lasts to the end."""
    tourney = started_sit_and_go()
    refused(tourney.state, AdvanceLevel(T0 + 599_999), "LEVEL_NOT_DUE")
    (brk,) = tourney.run(AdvanceLevel(T0 + 600_500))
    assert (type(brk).__name__, brk.index, brk.starts_ms) == ("BreakStarted", 1, T0 + 600_000)
    refused(tourney.state, DealTableHand("spring-t1", 1, T0), "TABLE_ON_HOLD")
    (level,) = tourney.run(AdvanceLevel(T0 + 900_000))
    assert (level.index, level.level, level.starts_ms) == (2, 2, T0 + 900_000)
    refused(tourney.state, AdvanceLevel(T0 + 10**9), "LEVEL_NOT_DUE")
    refused(Tourney(SIT_AND_GO).state, AdvanceLevel(T0), "TOURNAMENT_NOT_STARTED")


# --- the tables -----------------------------------------------------------------------------------------

def test_dealing_and_reporting_a_hand() -> None:
    tourney = started_sit_and_go()
    (dealt,) = tourney.deal("spring-t1")
    assert (dealt.hand, dealt.index) == (1, 0)
    refused(tourney.state, DealTableHand("spring-t1", 2, T0), "HAND_RUNNING")
    refused(tourney.state, DealTableHand("spring-t9", 1, T0), "NO_TOURNAMENT_TABLE")
    events = tourney.end("spring-t1", {"ann": 900, "bob": 1_100})
    assert of_type(events, "TableHandEnded")[0].chips[0] == ("ann", 1_000, 900)
    assert tourney.state.chips["ann"] == 900
    refused(tourney.state, DealTableHand("spring-t1", 1, T0), "HAND_REPORT_MISMATCH")  # hand 1 was dealt


def test_a_table_is_let_deal_only_to_the_players_the_tournament_seats_there() -> None:
    """A table names the players it seats when it asks to deal: the hand it starts deals them in, so they
    must be the tournament's there (players moved there since it looked sit down first)."""
    tourney = started_sit_and_go()
    players = tuple(tourney.players_at("spring-t1"))
    error = refused(tourney.state, DealTableHand("spring-t1", 1, T0, players[:-1]), "TABLE_ON_HOLD")
    assert error.metadata == {"hold": "seating"}
    refused(tourney.state, DealTableHand("spring-t1", 1, T0, (*players, "zed")), "TABLE_ON_HOLD")
    refused(tourney.state, DealTableHand("spring-t1", 1, T0, (1, 2)), "MALFORMED_REQUEST")  # type: ignore[arg-type]
    (dealt,) = tourney.run(DealTableHand("spring-t1", 1, T0, tuple(reversed(players))))
    assert tourney.state.dealt_in["spring-t1"] == players


def test_a_player_seated_again_with_other_chips_leaves_and_sits_down_with_them() -> None:
    """Out at a table, then re-entered into the same seat before the table let them go: the table seats
    them with the tournament's chips (a re-entry's starting stack), not the 0 they were left with."""
    config = table_config(SIT_AND_GO, "spring", "spring-t1")
    created = replay_table(decide_table(initial_table(), CreateTable("spring-t1", config, T0)))
    table = replay_table(decide_table(created, SitDown("ann", 1, 1, T0)), created)
    orders = TableOrders("spring-t1", ((1, "ann", 1_000),), None, False, Hold.PLAYERS, False)
    assert table_commands(orders, table, T0) == [Leave("ann", T0), SitDown("ann", 1, 1_000, T0)]
    in_line = TableOrders("spring-t1", ((1, "ann", 1),), None, False, Hold.PLAYERS, False)
    assert table_commands(in_line, table, T0) == []


@pytest.mark.parametrize("chips", [
    (("ann", 1_000, 0),),                                                                 # players missing
    tuple((p, 1_000, 1_000) for p in ("ann", "bob", "cy", "dee", "eve", "gus")),          # a stranger
    tuple((p, 999 if p == "ann" else 1_000, 1_000) for p in ("ann", "bob", "cy", "dee", "eve", "fay")),
    tuple((p, 1_000, 1_001) for p in ("ann", "bob", "cy", "dee", "eve", "fay")),          # chips made up
])
def test_a_hand_report_that_does_not_match_is_refused(chips: tuple) -> None:
    tourney = started_sit_and_go()
    tourney.deal("spring-t1")
    refused(tourney.state, EndTableHand("spring-t1", 1, chips, T0, next_draw(9)), "HAND_REPORT_MISMATCH")
    refused(tourney.state, EndTableHand("spring-t1", 2, (), T0, next_draw(9)), "HAND_REPORT_MISMATCH")
    refused(tourney.state, EndTableHand("spring-t1", 1, (("ann", "x", 1),), T0), "MALFORMED_REQUEST")


def test_a_hand_report_and_the_next_deal_decided_as_one_change() -> None:
    """``execute_then``: the report, then the deal decided against the state the report leaves, as one
    change (one append): the events of the two decided one after the other and the state their fold
    gives; a deal refused there, or none, leaves the report's alone; the state given is not changed."""
    tourney = started_sit_and_go()
    tourney.deal("spring-t1")
    players = tourney.state.dealt_in["spring-t1"]
    report = EndTableHand("spring-t1", 1, tuple((player, 1_000, 1_000) for player in players), T0,
                          next_draw(9))
    state, kept = tourney.state, tourney.state.copy()
    reported = decide(state, report)
    events, after = execute_then(state, report, lambda now: DealTableHand("spring-t1", 2, T0, players))
    assert events == reported + decide(replay(reported, state), DealTableHand("spring-t1", 2, T0, players))
    assert of_type(events, "TableHandDealt") and after == replay(events, state) and state == kept
    for refused_or_none in (DealTableHand("spring-t1", 1, T0, players), None):  # hand 1 was dealt already
        events, after = execute_then(state, report, lambda now, deal=refused_or_none: deal)
        assert events == reported and after == replay(reported, state) and state == kept


def test_re_entry_refusals() -> None:
    tourney = started_sit_and_go()
    refused(tourney.state, ReEnter("ann", T0, next_draw(9)), "STILL_IN_TOURNAMENT")
    refused(tourney.state, ReEnter("zed", T0, next_draw(9)), "NOT_REGISTERED")
    tourney.bust("spring-t1", ["ann"], "bob")
    refused(tourney.state, ReEnter("ann", T0, next_draw(9)), "RE_ENTRY_NOT_ALLOWED")
    refused(tourney.state, Register("gus", T0, next_draw(9)), "TOURNAMENT_FULL")


# --- the end --------------------------------------------------------------------------------------------

def test_the_last_player_with_chips_wins_and_every_prize_is_paid() -> None:
    """§11 The winner is the last player with chips; the tournament ends when that player is known."""
    tourney = started_sit_and_go()
    for loser in ("ann", "bob", "cy", "dee", "eve"):
        tourney.bust("spring-t1", [loser], "fay")
    assert tourney.state.status is Status.FINISHED and tourney.state.winner == "fay"
    assert tourney.state.places == {"ann": (6, 6), "bob": (5, 5), "cy": (4, 4), "dee": (3, 3), "eve": (2, 2),
                                    "fay": (1, 1)}
    assert tourney.state.prizes_won["fay"] == 3_900 and tourney.state.prizes_won["eve"] == 2_100
    assert sum(tourney.state.prizes_won.values()) == 6_000
    refused(tourney.state, DealTableHand("spring-t1", 9, T0), "TOURNAMENT_OVER")
    refused(tourney.state, CancelTournament("op", "late", T0), "TOURNAMENT_OVER")


def test_cancelled_before_the_start_refunds_every_entry_and_fee() -> None:
    tourney = Tourney(SIT_AND_GO)
    tourney.register("ann", "bob")
    (cancelled,) = tourney.run(CancelTournament("operator-1", "a fault", T0))
    assert (cancelled.by, cancelled.reason, cancelled.refunds) == ("operator-1", "a fault",
                                                                   (("ann", 1_100), ("bob", 1_100)))
    refused(Tourney(SIT_AND_GO).state, CancelTournament("", "why", T0), "MALFORMED_REQUEST")


def test_cancelled_after_the_start_pays_the_pool_by_chips() -> None:
    """§11 Cancellation: the players still in, by chips at the last completed hand (largest remainder)."""
    tourney = started_sit_and_go()
    tourney.shift("spring-t1", "ann", "bob", 500)
    events = tourney.run(CancelTournament("operator-1", "power cut", T0))
    cancelled = of_type(events, "TournamentCancelled")[0]
    assert dict(cancelled.payouts) == {"ann": 500, "bob": 1_500, "cy": 1_000, "dee": 1_000, "eve": 1_000,
                                       "fay": 1_000}
    assert not of_type(events, "DrawCommitted")  # over: nothing more to draw


# --- the events as JSON ---------------------------------------------------------------------------------

def test_every_event_type_round_trips_and_is_versioned() -> None:
    tourney = started_sit_and_go()
    for loser in ("ann", "bob", "cy", "dee", "eve"):
        tourney.bust("spring-t1", [loser], "fay")
    cancelled = Tourney(SIT_AND_GO)
    cancelled.register("ann")
    cancelled.run(CancelTournament("op", "", T0))
    seen = {type(event).__name__ for event in tourney.log + cancelled.log}
    for event in tourney.log + cancelled.log:
        data = event_to_json(event)
        assert data["v"] == EVENT_VERSIONS[type(event)] and event_from_json(data) == event
    assert set(EVENT_VERSIONS) == set(EVENT_TYPES.values())
    assert {"TournamentCreated", "PlayerSeated", "PlacesFixed", "TournamentFinished"} <= seen


@pytest.mark.parametrize(("data", "says"), [
    ({"type": "Nope", "v": 1}, "unknown"),
    ({"type": "TableOpened", "v": 2, "table_id": "t", "at_ms": 1}, "version"),
    ({"type": "TableOpened", "v": 1, "at_ms": 1}, "missing"),
    ({"type": "TableOpened", "v": 1, "table_id": "t", "at_ms": 1, "x": 2}, "unexpected"),
    ([], "object"),
])
def test_stored_json_that_is_not_an_event_is_refused(data: object, says: str) -> None:
    with pytest.raises(EventDecodeError, match=says):
        event_from_json(data)


def test_an_unknown_command_is_malformed() -> None:
    refused(initial_state(), object(), "MALFORMED_REQUEST")
