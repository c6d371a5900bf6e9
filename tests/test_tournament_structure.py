"""A tournament's structure (RULES.md §11): bounded and validated like a table's config, every refusal
naming its field; JSON round trip."""

from __future__ import annotations

from dataclasses import replace

import pytest

from stud_service.engine.config import MAX_CHIPS, SameNetworkRule
from stud_service.tournaments.errors import TournamentConfigError
from stud_service.tournaments.structure import (
    DEFAULT_LEVELS,
    MAX_ENTRANTS,
    MAX_LEVELS,
    CancellationPayout,
    Level,
    TournamentConfig,
    TournamentKind,
    config_from_json,
    config_to_json,
)

SCHEDULED = TournamentConfig(kind=TournamentKind.SCHEDULED, start_ms=1_800_000_000_000, max_entrants=100,
                             min_entrants=10, late_registration_levels=4, re_entries=2,
                             re_entry_until_level=3)
LEVEL_1, LEVEL_2 = DEFAULT_LEVELS[:2]


def refused_field(config: TournamentConfig) -> str:
    with pytest.raises(TournamentConfigError) as refused:
        config.validate()
    assert refused.value.reason == "INVALID_CONFIG" and refused.value.grpc_code_name == "INVALID_ARGUMENT"
    assert refused.value.metadata == {"field": refused.value.field}
    return refused.value.field


def test_the_defaults_and_a_scheduled_structure_are_valid() -> None:
    assert TournamentConfig().validate() == TournamentConfig()
    assert SCHEDULED.validate() is SCHEDULED
    assert replace(SCHEDULED, currency="", buy_in=0, fee=0).validate()  # play money


@pytest.mark.parametrize(("changes", "field"), [
    ({"name": "x" * 81}, "name"),
    ({"name": "a\x00b"}, "name"),
    ({"variant": "POKER"}, "variant"),
    ({"kind": "FREEZEOUT"}, "kind"),
    ({"start_ms": 5}, "start_ms"),                             # a sit & go has no start time
    ({"levels": ()}, "levels"),
    ({"levels": (Level(minutes=5, is_break=True), *DEFAULT_LEVELS)}, "levels"),  # begins with a break
    ({"levels": (*DEFAULT_LEVELS, Level(minutes=5, is_break=True))}, "levels"),  # ends with one
    ({"levels": DEFAULT_LEVELS * 8}, "levels"),                # more than MAX_LEVELS
    ({"levels": (Level(5, 20, 20, 40),)}, "levels[0].bring_in"),  # §1: the bring-in below the small bet
    ({"levels": (Level(5, 10, 20, 10),)}, "levels[0].big_bet"),
    ({"levels": (Level(-1, 10, 20, 40),)}, "levels[0].ante"),
    ({"levels": (Level(5, 10, MAX_CHIPS + 1, MAX_CHIPS + 1),)}, "levels[0].small_bet"),
    ({"levels": (Level(5, 10, 20, 40, minutes=0),)}, "levels[0].minutes"),
    ({"levels": (Level(5, 10, 20, 40, minutes=241),)}, "levels[0].minutes"),
    ({"levels": (LEVEL_1, Level(ante=5, minutes=5, is_break=True), LEVEL_2)}, "levels[1].ante"),
    ({"levels": (LEVEL_1, Level(minutes=61, is_break=True), LEVEL_2)}, "levels[1].minutes"),
    ({"levels": (LEVEL_1, "level 2")}, "levels[1]"),
    ({"starting_stack": 0}, "starting_stack"),
    ({"starting_stack": MAX_CHIPS}, "starting_stack"),         # times the entries beyond a table's bounds
    ({"starting_stack": 1.5}, "starting_stack"),
    ({"seats_per_table": 1}, "seats_per_table"),
    ({"seats_per_table": 9}, "seats_per_table"),
    ({"max_entrants": 1}, "max_entrants"),
    ({"max_entrants": MAX_ENTRANTS + 1}, "max_entrants"),
    ({"min_entrants": 1}, "min_entrants"),
    ({"min_entrants": 9}, "min_entrants"),                     # above max_entrants (8)
    ({"late_registration_levels": 1}, "late_registration_levels"),  # a sit & go starts full
    ({"re_entries": 11}, "re_entries"),
    ({"re_entries": 1}, "re_entry_until_level"),               # re-entry needs its last level
    ({"re_entry_until_level": 2}, "re_entry_until_level"),     # ... and none without re-entries
    ({"buy_in": -1}, "buy_in"),
    ({"buy_in": 0}, "buy_in"),                                 # a real-money tournament's pool
    ({"fee": MAX_CHIPS}, "fee"),
    ({"currency": "usd"}, "currency"),
    ({"currency": ""}, "buy_in"),                              # play money: no buy-in
    ({"payouts": (5_000, 3_000)}, "payouts"),                  # not 10,000
    ({"payouts": (3_000, 7_000)}, "payouts"),                  # a worse place paid more
    ({"payouts": (10_000, 0)}, "payouts"),
    ({"payouts": (4_000, 3_000, 2_000, 500, 500)}, "payouts"),  # more places than min_entrants (2)
    ({"cancellation_payout": "RANDOM"}, "cancellation_payout"),
    ({"action_clock_seconds": 0}, "action_clock_seconds"),
    ({"time_bank_seconds": 601}, "time_bank_seconds"),        # §7: as a table's, 0..600 s
    ({"time_bank_seconds": 60, "time_bank_refill_seconds": 10}, "time_bank_refill_hands"),
    ({"time_bank_seconds": 60, "time_bank_refill_seconds": 61, "time_bank_refill_hands": 2},
     "time_bank_refill_seconds"),
    ({"time_bank_seconds": "60"}, "time_bank_seconds"),
])
def test_a_field_out_of_bounds_is_refused_naming_it(changes: dict, field: str) -> None:
    assert refused_field(replace(TournamentConfig(), **changes)) == field


def test_a_scheduled_tournament_needs_a_start_time_and_bounded_entry_levels() -> None:
    assert refused_field(replace(SCHEDULED, start_ms=0)) == "start_ms"
    play_levels = SCHEDULED.play_levels
    late = replace(SCHEDULED, late_registration_levels=play_levels + 1)
    assert refused_field(late) == "late_registration_levels"
    assert refused_field(replace(SCHEDULED, re_entry_until_level=play_levels + 1)) == "re_entry_until_level"


def test_levels_are_numbered_without_the_breaks() -> None:
    assert len(DEFAULT_LEVELS) == 13 and TournamentConfig().play_levels == 12
    assert MAX_LEVELS == 100
    assert SCHEDULED.entries_close_level == 4 and SCHEDULED.max_entries == 300


def test_the_structure_round_trips_through_json() -> None:
    for config in (TournamentConfig(), SCHEDULED, replace(SCHEDULED, payouts=(6_000, 4_000),
                                                          cancellation_payout=CancellationPayout.EQUAL)):
        assert config_from_json(config_to_json(config)) == config


def test_a_tournament_sets_its_tables_time_bank() -> None:
    """§7: a tournament may set its own time bank; its tables are created with it."""
    from stud_service.tournaments import table_config

    banked = replace(TournamentConfig(), time_bank_seconds=90, time_bank_refill_seconds=15,
                     time_bank_refill_hands=10).validate()
    assert config_from_json(config_to_json(banked)) == banked
    table = table_config(banked, "tn-1", "tn-1-t1")
    bank = (table.time_bank_seconds, table.time_bank_refill_seconds, table.time_bank_refill_hands)
    assert bank == (90, 15, 10)
    assert "time_bank_seconds" not in config_to_json(TournamentConfig())  # unset: written as before


def test_a_tournament_keeps_one_household_apart_by_its_rule() -> None:
    """The same-network rule (checked by the service at registration): any rule, written only when set, and
    never on its tables, which the tournament seats itself."""
    from stud_service.tournaments import table_config

    for rule in SameNetworkRule:
        config = replace(TournamentConfig(), same_network=rule).validate()
        assert config_from_json(config_to_json(config)) == config
        assert table_config(config, "tn-1", "tn-1-t1").same_network is SameNetworkRule.OFF
    assert "same_network" not in config_to_json(TournamentConfig())  # off: written as before
    assert config_to_json(replace(TournamentConfig(), same_network=SameNetworkRule.PREFIX))["same_network"] \
        == "PREFIX"
    assert refused_field(replace(TournamentConfig(), same_network="HOUSEHOLD")) == "same_network"
    with pytest.raises(TournamentConfigError) as refused:
        config_from_json({**config_to_json(TournamentConfig()), "same_network": "HOUSEHOLD"})
    assert refused.value.field == "same_network"


def test_json_with_an_unknown_field_names_it() -> None:
    with pytest.raises(TournamentConfigError) as refused:
        config_from_json({**config_to_json(TournamentConfig()), "rebuys": 3})
    assert refused.value.field == "rebuys"
    data = config_to_json(TournamentConfig())
    data["levels"][2]["antes"] = 1
    with pytest.raises(TournamentConfigError) as refused:
        config_from_json(data)
    assert refused.value.field == "levels[2].antes"
