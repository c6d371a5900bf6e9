"""The tournament API's conversions, on states built with the domain's own decide/evolve: a CreateTournament's
structure in (defaults, bounds named by the request's field), the lobby's ``Tournament`` and a player's
``TournamentView`` out, every event as a typed ``TournamentEvent``, and no draw's seed sent before it is
used."""

from __future__ import annotations

from dataclasses import replace

import pytest
from google.protobuf import duration_pb2, json_format, timestamp_pb2
from tournament_helpers import T0, Tourney, of_type

from stud_service.engine import Variant
from stud_service.server.api.convert import table_to_proto
from stud_service.server.api.errors import RequestError
from stud_service.server.api.tournament_convert import (
    proto_field,
    structure_from_proto,
    structure_to_proto,
    tournament_to_proto,
    view_to_proto,
)
from stud_service.server.api.tournament_events import BUILDERS, EVENT_FIELDS, tournament_event_proto
from stud_service.server.proto_gen import table_pb2, tournament_pb2
from stud_service.tournaments import (
    AdvanceLevel,
    CancellationPayout,
    Level,
    ReEnter,
    StartTournament,
    TournamentConfig,
    TournamentConfigError,
    TournamentKind,
    replay,
)
from stud_service.tournaments.events import EVENT_TYPES
from stud_service.tournaments.simulate import simulate_tournament
from stud_service.tournaments.structure import DEFAULT_LEVELS

FAST = (Level(5, 10, 20, 40, 10), Level(minutes=5, is_break=True), Level(10, 20, 40, 80, 10))
SIX = TournamentConfig(levels=FAST, starting_stack=1_000, max_entrants=6, seats_per_table=6, buy_in=1_010,
                       fee=90)
PLAYERS = ("ann", "bob", "cy", "dee", "eve", "fay")


def six_handed(config: TournamentConfig = SIX) -> Tourney:
    tourney = Tourney(config)
    tourney.register(*PLAYERS)
    return tourney


# --- the structure in ----------------------------------------------------------------------------------

@pytest.mark.parametrize("config", [
    SIX,
    TournamentConfig(),
    TournamentConfig(name="Sunday", variant=Variant.RAZZ, kind=TournamentKind.SCHEDULED, start_ms=T0,
                     min_entrants=3, max_entrants=100, late_registration_levels=2, re_entries=2,
                     re_entry_until_level=2, currency="EUR", payouts=(6_000, 4_000),
                     cancellation_payout=CancellationPayout.EQUAL, action_clock_seconds=45),
    TournamentConfig(currency="", buy_in=0, fee=0),
])
def test_a_structure_goes_out_and_comes_back_the_same(config: TournamentConfig) -> None:
    assert structure_from_proto(structure_to_proto("spring", config)) == config


def test_unset_fields_take_the_documented_defaults() -> None:
    config = structure_from_proto(tournament_pb2.Tournament(buy_in=1_000, fee=100), 20)
    assert config == TournamentConfig(action_clock_seconds=20)
    assert config.levels == DEFAULT_LEVELS and config.kind is TournamentKind.SIT_AND_GO
    assert config.currency == "USD" and config.max_entrants == 8 and config.starting_stack == 1_500
    play = structure_from_proto(tournament_pb2.Tournament(play_money=True))
    assert play.currency == "" and play.buy_in == play.fee == 0


def _level(ante: int, bring_in: int, small: int, big: int, seconds: int = 600,
           is_break: bool = False) -> tournament_pb2.TournamentLevel:
    return tournament_pb2.TournamentLevel(
        stakes=table_pb2.Stakes(ante=ante, bring_in=bring_in, small_bet=small, big_bet=big),
        duration=duration_pb2.Duration(seconds=seconds), is_break=is_break)


def _tournament(**fields: object) -> tournament_pb2.Tournament:
    """A $10 + $1 sit & go with ``fields`` set."""
    tournament = tournament_pb2.Tournament(buy_in=1_000, fee=100)
    for name, value in fields.items():
        if isinstance(value, list):
            getattr(tournament, name).extend(value)
        elif hasattr(value, "CopyFrom"):
            getattr(tournament, name).CopyFrom(value)
        else:
            setattr(tournament, name, value)
    return tournament


@pytest.mark.parametrize(("fields", "field"), [
    ({"levels": [_level(5, 20, 20, 40)]}, "tournament.levels[0].stakes.bring_in"),
    ({"levels": [_level(5, 10, 20, 40), _level(5, 10, 20, 40, 0)]}, "tournament.levels[1].duration"),
    ({"levels": [_level(5, 10, 20, 40), _level(5, 0, 0, 0, 300, True), _level(5, 10, 20, 40)]},
     "tournament.levels[1].stakes.ante"),
    ({"levels": [_level(0, 0, 0, 0, 300, True)]}, "tournament.levels"),
    ({"display_name": "x" * 81}, "tournament.display_name"),
    ({"start_time": timestamp_pb2.Timestamp(seconds=T0 // 1000)}, "tournament.start_time"),
    ({"kind": tournament_pb2.TOURNAMENT_KIND_SCHEDULED}, "tournament.start_time"),
    ({"currency_code": "XYZ"}, "tournament.currency_code"),
    ({"play_money": True, "currency_code": "USD"}, "tournament.currency_code"),
    ({"play_money": True, "buy_in": 10}, "tournament.buy_in"),
    ({"payouts": [5_000, 4_000]}, "tournament.payouts"),
    ({"max_entrants": 10_001}, "tournament.max_entrants"),
    ({"min_entrants": 9}, "tournament.min_entrants"),
    ({"seats_per_table": 9}, "tournament.seats_per_table"),
    ({"late_registration_levels": 1}, "tournament.late_registration_levels"),
    ({"re_entries": 1}, "tournament.re_entry_until_level"),
    ({"starting_stack": -5}, "tournament.starting_stack"),
    ({"action_clock": duration_pb2.Duration(seconds=86_401)}, "tournament.action_clock"),
])
def test_a_structure_out_of_bounds_is_invalid_config_naming_the_field(fields: dict, field: str) -> None:
    with pytest.raises(TournamentConfigError) as refused:
        structure_from_proto(_tournament(**fields))
    assert refused.value.metadata == {"field": field}
    assert refused.value.reason == "INVALID_CONFIG"


@pytest.mark.parametrize(("fields", "field"), [
    ({"kind": 7}, "tournament.kind"),
    ({"variant": 9}, "tournament.variant"),
    ({"cancellation_payout": 5}, "tournament.cancellation_payout"),
    ({"levels": [_level(5, 10, 20, 40, 90)]}, "tournament.levels[0].duration"),
    ({"action_clock": duration_pb2.Duration(seconds=1, nanos=5)}, "tournament.action_clock"),
    ({"start_time": timestamp_pb2.Timestamp(seconds=2**62)}, "tournament.start_time"),  # no Timestamp at all
    ({"start_time": timestamp_pb2.Timestamp(seconds=T0 // 1000, nanos=-1)}, "tournament.start_time"),
])
def test_a_value_no_structure_takes_is_malformed_naming_the_field(fields: dict, field: str) -> None:
    with pytest.raises(RequestError) as refused:
        structure_from_proto(_tournament(**fields))
    assert (refused.value.reason, refused.value.metadata) == ("MALFORMED_REQUEST", {"field": field})


def test_the_domain_fields_are_named_as_the_request_names_them() -> None:
    assert proto_field("levels[12].minutes") == "tournament.levels[12].duration"
    assert proto_field("levels[0].big_bet") == "tournament.levels[0].stakes.big_bet"
    assert proto_field("levels[0].is_break") == "tournament.levels[0].is_break"
    assert proto_field("action_clock_seconds") == "tournament.action_clock"
    assert proto_field("buy_in") == "tournament.buy_in"


# --- the lobby and a player's view --------------------------------------------------------------------

def test_a_tournament_taking_registrations_shows_its_entrants_pool_and_prizes_so_far() -> None:
    tourney = Tourney(SIX)
    tourney.register("ann", "bob")
    lobby = tournament_to_proto(tourney.state, 7)
    assert lobby.name == "tournaments/spring" and lobby.version == 7
    assert lobby.state == tournament_pb2.TOURNAMENT_STATE_REGISTERING
    assert (lobby.entrants, lobby.entries, lobby.players_left, lobby.average_stack) == (2, 2, 0, 0)
    assert lobby.prize_pool == 2 * 1_010 and list(lobby.payout_table) == [10_000]
    assert list(lobby.prizes) == [2_020] and not lobby.prizes_fixed
    assert lobby.registration_open and not lobby.HasField("clock") and not lobby.tables
    view = view_to_proto(tourney.state, 7, "ann")
    assert view.registered and view.entries == 1 and not view.table and view.rank == 0
    assert view.tournament == lobby
    assert not view_to_proto(tourney.state, 7, "zed").registered


def test_a_running_tournament_shows_its_clock_tables_and_each_players_place_in_it() -> None:
    tourney = six_handed()
    tourney.shift("spring-t1", "ann", "bob", 400)
    state = tourney.state
    lobby = tournament_to_proto(state, 40)
    assert lobby.state == tournament_pb2.TOURNAMENT_STATE_RUNNING and not lobby.registration_open
    assert lobby.clock.index == 0 and lobby.clock.level == 1 and not lobby.clock.is_break
    assert lobby.clock.stakes == table_pb2.Stakes(ante=5, bring_in=10, small_bet=20, big_bet=40)
    assert lobby.clock.start_time.ToMilliseconds() == T0
    assert lobby.clock.end_time.ToMilliseconds() == T0 + 10 * 60_000  # the client counts down to it
    assert [(table.table, table.players) for table in lobby.tables] == [("tables/spring-t1", 6)]
    assert (lobby.players_left, lobby.average_stack) == (6, 1_000)
    assert lobby.prizes_fixed and list(lobby.prizes) == [3_939, 2_121] and lobby.prize_pool == 6_060
    bob, ann, cy = (view_to_proto(state, 40, player, lobby) for player in ("bob", "ann", "cy"))
    assert (bob.stack, bob.rank, ann.stack, ann.rank, cy.rank) == (1_400, 1, 600, 6, 2)
    table, seat = state.seat_of["ann"]
    assert (ann.table, ann.seat) == (f"tables/{table}", seat)
    assert not ann.may_re_enter and not ann.HasField("place")


def test_a_break_has_no_stakes_and_ends_when_the_next_level_starts() -> None:
    tourney = six_handed()
    tourney.now = T0 + 10 * 60_000
    tourney.run(AdvanceLevel(tourney.now, tourney.next_draw()))
    clock = tournament_to_proto(tourney.state, 50).clock
    assert clock.is_break and clock.level == 1 and not clock.HasField("stakes")
    assert clock.end_time.ToMilliseconds() == T0 + 15 * 60_000
    tourney.now = T0 + 15 * 60_000
    tourney.run(AdvanceLevel(tourney.now, tourney.next_draw()))
    last = tournament_to_proto(tourney.state, 51).clock
    assert last.level == 2 and not last.HasField("end_time")  # the last level lasts to the end


def test_a_player_out_sees_their_place_and_prize_and_whether_they_may_re_enter() -> None:
    config = replace(SIX, kind=TournamentKind.SCHEDULED, start_ms=T0, re_entries=1, re_entry_until_level=1,
                     min_entrants=2)
    tourney = Tourney(config)
    tourney.register(*PLAYERS)
    tourney.run(StartTournament(T0, tourney.next_draw()))
    tourney.bust("spring-t1", ["ann"], "bob")
    view = view_to_proto(tourney.state, 60, "ann")
    assert view.registered and not view.table and view.rank == 0 and view.may_re_enter
    assert not tournament_to_proto(tourney.state, 60).prizes_fixed  # entries still open: no place yet
    tourney.run(ReEnter("ann", tourney.now, tourney.next_draw()))
    view = view_to_proto(tourney.state, 61, "ann")
    assert view.entries == 2 and view.table and view.stack == 1_000 and not view.may_re_enter


def test_a_finished_tournament_shows_its_winner_places_and_prizes() -> None:
    tourney = six_handed()
    for loser in ("dee", "eve", "fay", "ann", "bob"):
        tourney.bust("spring-t1", [loser], "cy")
    lobby = tournament_to_proto(tourney.state, 99)
    assert lobby.state == tournament_pb2.TOURNAMENT_STATE_FINISHED and lobby.winner == "cy"
    assert not lobby.HasField("clock") and not lobby.registration_open
    assert [(p.player_id, p.place, p.prize) for p in lobby.places][:3] == [
        ("cy", 1, 3_939), ("bob", 2, 2_121), ("ann", 3, 0)]
    cy = view_to_proto(tourney.state, 99, "cy", lobby)
    assert cy.place.place == 1 and cy.prize == 3_939


def test_a_tournament_table_says_whose_it_is_and_at_which_level() -> None:
    two_levels = (Level(5, 10, 20, 40, 1), Level(10, 20, 40, 80, 1))
    sim = simulate_tournament(replace(SIX, levels=two_levels), seed=5)
    levels_seen = set()
    for table_id, table in {**sim.tables, **sim.closed}.items():
        message = table_to_proto(table_id, table, 9)
        assert message.tournament.tournament == "tournaments/sim"
        levels_seen.add(message.tournament.level)
        assert message.stakes.small_bet == (20, 40)[message.tournament.level - 1]
    assert levels_seen <= {1, 2}


# --- the events -----------------------------------------------------------------------------------------

def test_every_event_type_has_a_message_and_a_builder() -> None:
    assert set(EVENT_TYPES) == set(EVENT_FIELDS) == set(BUILDERS)


def _whole_log() -> tuple[list, list]:
    """A simulated tournament's log with late entries and re-entries, and the state after each event."""
    config = TournamentConfig(levels=(Level(5, 10, 20, 40, 1), Level(minutes=1, is_break=True),
                                      Level(10, 20, 40, 80, 1)),
                              starting_stack=300, kind=TournamentKind.SCHEDULED, start_ms=1, min_entrants=4,
                              max_entrants=12, seats_per_table=4, late_registration_levels=1, re_entries=1,
                              re_entry_until_level=1)
    sim = simulate_tournament(config, seed=11, players=9, late=3)
    states, state = [], None
    for event in sim.log:
        state = replay([event], state)
        states.append(state)
    return sim.log, states


def test_a_whole_tournament_converts_and_no_unused_seed_ever_leaves() -> None:
    """A committed seed is never copied into a message (the facade's events hold none anyway); a used one
    goes to everyone, to check the draws with."""
    log, states = _whole_log()
    kinds = {type(event).__name__ for event in log}
    assert {"PlayerMoved", "TableBroken", "PlacesFixed", "PrizesFixed", "BreakStarted",
            "TournamentFinished"} <= kinds
    secrets = {event.secret["seed"] for event in log if type(event).__name__ == "DrawCommitted"}
    revealed = {event.seed for event in log if type(event).__name__ == "DrawRevealed"}
    assert secrets and revealed <= secrets and secrets - revealed  # the last seed is never used
    sent = [tournament_event_proto(version, event, state)  # the log's events, secrets and all
            for version, (event, state) in enumerate(zip(log, states, strict=True), 1)]
    assert [message.type for message in sent] == [type(event).__name__ for event in log]
    assert all(message.WhichOneof("event") == EVENT_FIELDS[message.type] for message in sent)
    wire = b"".join(message.SerializeToString() for message in sent)
    text = "".join(json_format.MessageToJson(message) for message in sent)
    for seed in secrets - revealed:
        assert seed.encode() not in wire and seed not in text
    for seed in revealed:
        assert seed in text


def test_each_event_carries_what_a_client_follows_the_tournament_by() -> None:
    tourney = six_handed()
    states = [replay(tourney.log[:n]) for n in range(1, len(tourney.log) + 1)]
    pairs = enumerate(zip(tourney.log, states, strict=True), 1)
    sent = {message.type: message for message in (tournament_event_proto(n, e, s) for n, (e, s) in pairs)}
    assert sent["PlayerRegistered"].player_registered.entrants == 6  # the last one
    assert sent["TournamentCreated"].tournament_created.config.max_entrants == 6
    level = sent["LevelStarted"].level_started
    assert (level.level, level.stakes.small_bet, level.end_time.ToMilliseconds()) == (1, 20, T0 + 600_000)
    assert sent["PlayerSeated"].player_seated.table == "tables/spring-t1"
    assert list(sent["PrizesFixed"].prizes_fixed.prizes) == [3_939, 2_121]
    assert len(sent["DrawCommitted"].draw_committed.commitment) == 64
    events = tourney.bust("spring-t1", ["ann"], "bob")
    after = replay(tourney.log)
    eliminated = tournament_event_proto(1, of_type(events, "PlayersEliminated")[0], after)
    assert [p.player_id for p in eliminated.players_eliminated.players] == ["ann"]
    placed = tournament_event_proto(2, of_type(events, "PlacesFixed")[0], after).places_fixed.places
    assert [(p.player_id, p.place, p.prize) for p in placed] == [("ann", 6, 0)]
