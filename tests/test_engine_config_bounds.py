"""Every table setting is bounded, so no table the engine accepts can break its views (issue 13, point 5).

Chip settings are at most MAX_CHIPS (10^12), the action clock at most MAX_ACTION_CLOCK_SECONDS (a day):
eight seats at the largest buy-in keep every sum far inside int64 and every deadline a valid Timestamp.
"""

from __future__ import annotations

import os
import random
import subprocess
import sys
from dataclasses import replace
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from test_engine_properties import Run

from stud_service.engine import (
    BuyInOutOfLimits,
    CreateTable,
    InvalidConfig,
    SitDown,
    TableConfig,
)
from stud_service.engine.config import MAX_ACTION_CLOCK_SECONDS, MAX_CHIPS, BringInTiebreak, Variant
from stud_service.server.api.convert import table_to_proto, view_to_proto

CHIP_FIELDS = ["ante", "bring_in", "small_bet", "big_bet", "min_buy_in", "max_buy_in"]
# Every chip setting at its largest at once (bring-in just under the small bet, as the rules want).
LARGEST = TableConfig(
    ante=MAX_CHIPS, bring_in=MAX_CHIPS - 1, small_bet=MAX_CHIPS, big_bet=MAX_CHIPS,
    min_buy_in=MAX_CHIPS, max_buy_in=MAX_CHIPS, action_clock_seconds=MAX_ACTION_CLOCK_SECONDS,
)
NOW_MS = 1_800_000_000_000  # 2027: deadlines are real epoch times, as on a live table


def refused_field(config: TableConfig) -> str:
    with pytest.raises(InvalidConfig) as caught:
        config.validate()
    return caught.value.field


def test_every_chip_setting_may_be_as_large_as_max_chips() -> None:
    assert LARGEST.validate() is LARGEST


@pytest.mark.parametrize("field", CHIP_FIELDS)
@pytest.mark.parametrize("value", [MAX_CHIPS + 1, 2**62, 2**63 - 1, 2**64])
def test_a_chip_setting_above_max_chips_is_invalid_config_naming_it(field: str, value: int) -> None:
    assert refused_field(replace(LARGEST, **{field: value})) == field


def test_the_action_clock_is_at_most_a_day() -> None:
    assert replace(LARGEST, action_clock_seconds=MAX_ACTION_CLOCK_SECONDS).validate()
    for seconds in (MAX_ACTION_CLOCK_SECONDS + 1, 10**12, 2**63 - 1, 0, -1):
        assert refused_field(replace(LARGEST, action_clock_seconds=seconds)) == "action_clock_seconds"


@pytest.mark.parametrize("name", ["a\x00b", "tab\there", "bell\x07", "lone \ud800 surrogate", "x" * 101])
def test_a_display_name_is_short_plain_text(name: str) -> None:
    assert refused_field(TableConfig(name=name)) == "name"


@pytest.mark.parametrize(
    "name", ["", "Main room", "\u05e9\u05d5\u05dc\u05d7\u05df \u200f1", "\U0001f0a1 stud", "x" * 100]
)
def test_a_display_name_may_be_any_printable_text(name: str) -> None:
    assert TableConfig(name=name).validate()


def edgy(low: int, high: int) -> st.SearchStrategy[int]:
    """Integers in low..high, one of the two ends half of the time."""
    return st.one_of(st.sampled_from([low, high]), st.integers(low, high))


@st.composite
def accepted_configs(draw: Any) -> TableConfig:
    """Any config inside the documented bounds, often at their edges."""
    small = draw(edgy(2, MAX_CHIPS))
    largest = draw(edgy(1, MAX_CHIPS))
    return TableConfig(
        variant=draw(st.sampled_from(list(Variant))),
        ante=draw(edgy(0, MAX_CHIPS)),
        bring_in=draw(edgy(1, small - 1)),
        small_bet=small,
        big_bet=draw(edgy(small, MAX_CHIPS)),
        min_buy_in=draw(edgy(1, largest)),
        max_buy_in=largest,
        seats=draw(edgy(2, 8)),
        action_clock_seconds=draw(edgy(1, MAX_ACTION_CLOCK_SECONDS)),
        bring_in_tiebreak=draw(st.sampled_from(list(BringInTiebreak))),
        uncapped_heads_up=draw(st.booleans()),
    )


class ViewedRun(Run):
    """A random session that builds and serialises every viewer's view after each command."""

    def run(self, command: Any) -> list[Any]:
        try:
            events = super().run(command)
        except BuyInOutOfLimits:  # the session's newcomers buy in from 1 chip; this table may want more
            return []
        table_id = "t"
        table_to_proto(table_id, self.state, len(self.log)).SerializeToString()
        for viewer in [None, *(seated.player_id for seated in self.state.seats.values())]:
            view_to_proto(table_id, self.state, len(self.log), viewer).SerializeToString()
        return events


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(config=accepted_configs(), seed=st.integers(0, 2**32))
def test_any_accepted_config_gives_views_for_every_state_reached(config: TableConfig, seed: int) -> None:
    """Whatever the engine accepts, every view of every state reached serialises (no int64 overflow, no
    invalid Timestamp): largest buy-ins at every seat, hands played to the end with random actions."""
    assert config.validate() is config
    rng = random.Random(seed)
    run = ViewedRun(rng)
    run.now = NOW_MS
    run.run(CreateTable("t", config, run.now))
    for seat in range(1, config.seats + 1):
        run.run(SitDown(f"p{seat}", seat, rng.choice([config.max_buy_in, config.min_buy_in]), run.now))
    run.play_hands(2)


@pytest.mark.parametrize("seconds", ["0", str(MAX_ACTION_CLOCK_SECONDS + 1), str(10**12)])
def test_the_servers_default_action_clock_is_bounded_the_same(seconds: str) -> None:
    """A default the engine would refuse would make every CreateTable without a clock fail: serve exits."""
    secret = "config-bounds-test-secret-32-bytes-long"
    env = {**os.environ, "STUD_TOKEN_SECRET": secret, "STUD_TOKEN_HS256": "on"}
    done = subprocess.run(
        [sys.executable, "-m", "stud_service.cli", "serve", "--action-clock-seconds", seconds,
         "--database-url", "postgresql://127.0.0.1:1/none", "--metrics-listen", "off"],
        env=env, capture_output=True, text=True, timeout=60,
    )
    assert done.returncode == 2 and f"1..{MAX_ACTION_CLOCK_SECONDS}" in done.stderr, done.stderr
