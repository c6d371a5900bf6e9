"""RULES.md §13 in tournaments: a mixed tournament's tables each keep their own count of the rotation, a level
change moves the stakes and not the game, and a player moved by balancing (or a broken table) plays the game
of the table they join.  Played to the end by the pure tournament and table engines together
(``tournaments.simulate``); the structure in CreateTournament checked as a table's rotation is."""

from __future__ import annotations

from collections import defaultdict
from dataclasses import replace
from typing import Any

import pytest

from stud_service.audit.pokerstars import to_pokerstars
from stud_service.audit.records import HandRecord
from stud_service.audit.tournament_summary import tournament_summary
from stud_service.engine import Variant, event_to_json
from stud_service.engine.events import HandEnded, HandStarted
from stud_service.engine.rules.rotation import game_of_next_hand
from stud_service.server.api.tournament_convert import structure_from_proto, structure_to_proto
from stud_service.server.proto_gen import table_pb2, tournament_pb2
from stud_service.tournaments import event_to_json as tournament_event_to_json
from stud_service.tournaments.errors import TournamentConfigError
from stud_service.tournaments.events import PlayerMoved
from stud_service.tournaments.orders import table_config
from stud_service.tournaments.simulate import simulate_tournament
from stud_service.tournaments.structure import Level, TournamentConfig, config_from_json, config_to_json

ROTATION = (Variant.RAZZ, Variant.STUD, Variant.STUD_HI_LO)
# Short levels and small stacks: a tournament of two or three tables that balances, breaks a table and
# changes level many times before it ends.
MIXED = TournamentConfig(
    variant=Variant.RAZZ, rotation=ROTATION, hands_per_game=2, starting_stack=400, max_entrants=12,
    seats_per_table=4,
    levels=tuple(Level(ante, 2 * ante, 4 * ante, 8 * ante, 3) for ante in (5, 10, 20, 40, 80, 160, 320)),
)


def hands_by_table(sim: Any) -> dict[str, list[HandStarted]]:
    out: dict[str, list[HandStarted]] = {}
    for table_id, log in sim.table_logs.items():
        out[table_id] = [event for event in log if isinstance(event, HandStarted)]
    return out


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_each_table_counts_its_own_hands_and_the_levels_change_only_the_stakes(seed: int) -> None:
    sim = simulate_tournament(MIXED, seed=seed)
    tables = hands_by_table(sim)
    assert len(tables) >= 3  # the draw's tables, and hand after hand at each
    stakes_seen: dict[Variant, set[int]] = defaultdict(set)
    config = table_config(MIXED, sim.tournament_id, "sim-t1")
    for table_id, started in tables.items():
        ended = {event.hand for event in sim.table_logs[table_id] if isinstance(event, HandEnded)}
        for counted, event in enumerate(started):
            assert event.game is game_of_next_hand(config, counted), (table_id, event.hand)
            assert event.hand in ended or event is started[-1]
            stakes_seen[event.game].add(event.config.small_bet)
    # every game was played at more than one level's stakes: the levels do not move the rotation
    assert all(len(stakes_seen[game]) >= 2 for game in ROTATION), stakes_seen


def test_a_moved_player_plays_the_game_of_the_table_they_join() -> None:
    """Across seeds, players moved between tables whose games differ: their first hand at the new table is
    that table's game, whatever they were playing before."""
    crossed = 0
    for seed in range(1, 8):
        sim = simulate_tournament(MIXED, seed=seed)
        tables = hands_by_table(sim)
        for move in (event for event in sim.log if isinstance(event, PlayerMoved)):
            before = [event for event in tables[move.from_table] if event.at_ms <= move.at_ms
                      and any(player == move.player_id for _, player, _ in event.seats)]
            after = [event for event in tables[move.to_table] if event.at_ms >= move.at_ms
                     and any(player == move.player_id for _, player, _ in event.seats)]
            if not before or not after:
                continue
            index = tables[move.to_table].index(after[0])
            config = table_config(MIXED, sim.tournament_id, move.to_table)
            assert after[0].game is game_of_next_hand(config, index)
            crossed += after[0].game is not before[-1].game
    assert crossed >= 3


def test_a_mixed_structure_round_trips_through_json_and_the_api() -> None:
    assert config_from_json(config_to_json(MIXED)) == MIXED
    assert "rotation" not in config_to_json(TournamentConfig())  # a single game's reads as it always did
    message = structure_to_proto("t", MIXED)
    assert list(message.rotation) == [table_pb2.VARIANT_RAZZ, table_pb2.VARIANT_SEVEN_CARD_STUD,
                                      table_pb2.VARIANT_STUD_HI_LO] and message.hands_per_game == 2
    message.ClearField("variant")  # the first game of the rotation, unset
    assert structure_from_proto(message) == MIXED
    tables = table_config(MIXED, "t", "t-t1")
    assert (tables.rotation, tables.hands_per_game, tables.game_stakes) == (ROTATION, 2, ())


@pytest.mark.parametrize("change, field", [
    ({"rotation": [table_pb2.VARIANT_RAZZ, table_pb2.VARIANT_RAZZ]}, "tournament.rotation"),
    ({"hands_per_game": 0, "rotation": []}, None),
    ({"hands_per_game": 101}, "tournament.hands_per_game"),
    ({"variant": table_pb2.VARIANT_STUD_HI_LO}, "tournament.variant"),
])
def test_a_bad_mixed_structure_is_refused_naming_the_field(change: dict[str, Any], field: str | None) -> None:
    message = structure_to_proto("t", MIXED)
    for name, value in change.items():
        if isinstance(value, list):
            message.ClearField(name)
            getattr(message, name).extend(value)
        else:
            setattr(message, name, value)
    if field is None:
        assert structure_from_proto(message).rotation == ()
        return
    with pytest.raises(TournamentConfigError) as refused:
        structure_from_proto(message)
    assert refused.value.field == field
    with pytest.raises(TournamentConfigError):
        replace(MIXED, hands_per_game=0).validate()


def test_a_tournament_proto_without_a_rotation_is_a_single_game() -> None:
    message = structure_to_proto("t", TournamentConfig(variant=Variant.RAZZ))
    assert not message.rotation
    config = structure_from_proto(message)
    assert (config.variant, config.rotation) == (Variant.RAZZ, ())
    assert isinstance(message, tournament_pb2.Tournament)


def test_a_mixed_tournaments_histories_name_the_mix_and_each_hands_game() -> None:
    """The tournament's summary names the mix and its games; each table's hand, exported, the mix and the
    game of that hand within it, with the level (as rooms write a HORSE tournament's hands)."""
    sim = simulate_tournament(MIXED, seed=2)
    summary = tournament_summary([tournament_event_to_json(event) for event in sim.log])
    assert summary.to_text().splitlines()[0].endswith(
        ", RSE (Limit Razz, Limit 7 Card Stud, Limit 7 Card Stud Hi/Lo)")
    assert summary.to_json()["rotation"] == ["RAZZ", "STUD", "STUD_HI_LO"]
    names = {"RAZZ": "Razz Limit", "STUD": "7 Card Stud Limit", "STUD_HI_LO": "7 Card Stud Hi/Lo Limit"}
    table_id, log = next(iter(sim.table_logs.items()))
    payloads = [event_to_json(event) for event in log]
    for started in [payload for payload in payloads if payload["type"] == "HandStarted"][:7]:
        hand = [payload for payload in payloads if payload.get("hand") == started["hand"]]
        if hand[-1]["type"] != "HandEnded":
            continue
        header = to_pokerstars(HandRecord.from_payloads(table_id, started["hand"], hand)).splitlines()[0]
        assert f" RSE ({names[started['game']]}) - Level " in header, header
