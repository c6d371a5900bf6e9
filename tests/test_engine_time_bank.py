"""RULES.md §7's time bank at a table: the reserve runs when the action clock has run out, only what is
used is spent, it refills as the player is dealt hands, and everything about it is in the log (a replica
taking the table over, or an audit replaying one hand alone, finds the same reserves and deadlines)."""

from __future__ import annotations

import random

import pytest
from engine_helpers import T0, Table, deal_table, of_type, options, play_passively, stacked_deck
from hypothesis import given, settings
from hypothesis import strategies as st

from stud_service.audit.replay_check import replay_hand
from stud_service.engine import (
    Act,
    ActionKind,
    InvalidConfig,
    PlayerActed,
    PlayerSatOut,
    SendChat,
    TableConfig,
    Timeout,
    TimeoutNotDue,
    Viewer,
    action_deadline_ms,
    decide,
    event_to_json,
    legal_actions,
    replay,
    running_clock,
    state_from_json,
    state_to_json,
    time_bank_reserve_ms,
    to_act,
    view_state,
)
from stud_service.engine.events import TimeBankRefilled, TimeBanksAtStart, TimeBankStarted, TimeBankUsed

BANK = TableConfig(min_buy_in=1, action_clock_seconds=30, time_bank_seconds=60)
HANDS = {1: "Ah Kh 2c 3c 4c 5c 6c", 2: "Ad Kd 9s 9c 8d 7d 6d"}
CLOCK_END = T0 + 30_000


def bank_table(config: TableConfig = BANK) -> Table:
    return deal_table(HANDS, config=config)


def test_a_hand_starts_with_every_dealt_in_seats_reserve() -> None:
    """The hand's own events hold the reserves it started with (TimeBanksAtStart), so it replays alone."""
    table = bank_table()
    assert of_type(table.log, "TimeBanksAtStart") == [TimeBanksAtStart(1, ((1, 60_000, 0), (2, 60_000, 0)))]
    assert time_bank_reserve_ms(table.state, 1) == 60_000


def test_a_table_without_a_time_bank_records_none() -> None:
    table = deal_table(HANDS, config=TableConfig(min_buy_in=1))
    assert not of_type(table.log, "TimeBanksAtStart")
    assert time_bank_reserve_ms(table.state, 1) == 0
    table.run(Timeout(CLOCK_END))  # §7 as before: the clock runs out, the bring-in is posted
    assert not of_type(table.log, "TimeBankStarted")


def test_the_reserve_starts_when_the_action_clock_runs_out() -> None:
    """§7: when the action clock runs out the reserve starts running for that decision: the clock's
    deadline moves to the reserve's end, and the view says which clock runs."""
    table = bank_table()
    assert running_clock(table.state) == "ACTION" and action_deadline_ms(table.state) == CLOCK_END
    with pytest.raises(TimeoutNotDue):
        decide(table.state, Timeout(CLOCK_END - 1))
    events = table.run(Timeout(CLOCK_END + 250))  # the owner's clock fires a little late
    assert events == [TimeBankStarted(1, 1, 60_000, CLOCK_END + 60_000, CLOCK_END + 250)]
    assert running_clock(table.state) == "TIME_BANK"
    assert action_deadline_ms(table.state) == CLOCK_END + 60_000  # from the clock's end, not the firing
    assert to_act(table.state) == 1
    view = view_state(table.state, Viewer.seat("p1"))
    assert view["clock"] == "TIME_BANK" and view["deadline_ms"] == CLOCK_END + 60_000
    assert [seat["time_bank_ms"] for seat in view["seats"]] == [60_000, 60_000]
    with pytest.raises(TimeoutNotDue):
        decide(table.state, Timeout(CLOCK_END + 59_999))


def test_only_what_is_used_is_spent() -> None:
    """§7: a decision 12.5 s into the reserve spends 12.5 s; the next player's turn starts on its clock."""
    table = bank_table()
    table.run(Timeout(CLOCK_END))
    table.now = CLOCK_END + 12_500
    events = table.act(1, "BRING_IN", 100)
    assert isinstance(events[0], PlayerActed)
    assert events[1] == TimeBankUsed(1, 1, 12_500, 47_500, CLOCK_END + 12_500)
    assert time_bank_reserve_ms(table.state, 1) == 47_500
    assert running_clock(table.state) == "ACTION"
    assert action_deadline_ms(table.state) == table.now + 30_000


def test_a_decision_in_time_spends_nothing() -> None:
    table = bank_table()
    table.now = CLOCK_END  # the last moment of the action clock
    events = table.act(1, "BRING_IN", 100)
    assert not of_type(events, "TimeBankUsed")
    assert time_bank_reserve_ms(table.state, 1) == 60_000


def test_a_decision_after_the_clock_is_charged_before_the_reserve_was_started() -> None:
    """The owner's clock may not have recorded the reserve's start yet: the decision still spends what it
    used past the action clock (any replica decides the same from the log)."""
    table = bank_table()
    table.now = CLOCK_END + 4_000
    events = table.act(1, "BRING_IN", 100)
    assert of_type(events, "TimeBankUsed") == [TimeBankUsed(1, 1, 4_000, 56_000, CLOCK_END + 4_000)]


def test_when_the_reserve_runs_out_the_player_is_timed_out() -> None:
    """§7: when the reserve has run out too, the clock acts as ever (check if free, else fold; a due bring-in
    is posted) and the player sits out; the whole reserve is spent."""
    table = bank_table()
    table.run(Timeout(CLOCK_END))
    events = table.run(Timeout(CLOCK_END + 60_000))
    end = CLOCK_END + 60_000
    assert events[0] == PlayerActed(1, 1, ActionKind.BRING_IN, 100, 100, False, end, timeout=True)
    assert events[1] == TimeBankUsed(1, 1, 60_000, 0, CLOCK_END + 60_000)
    assert events[2] == PlayerSatOut("p1", 1, "timeout", CLOCK_END + 60_000)
    assert time_bank_reserve_ms(table.state, 1) == 0


def test_a_timeout_after_the_reserve_would_have_run_out_does_both_at_once() -> None:
    """An owner that comes back late (a failover) finds the reserve ran from the clock's end and is gone."""
    table = bank_table()
    events = table.run(Timeout(CLOCK_END + 90_000))
    assert [type(e).__name__ for e in events[:4]] == ["TimeBankStarted", "PlayerActed", "TimeBankUsed",
                                                       "PlayerSatOut"]
    assert events[2].used_ms == 60_000


def test_an_empty_reserve_means_the_action_clock_alone() -> None:
    table = bank_table()
    table.run(Timeout(CLOCK_END))
    table.run(Timeout(CLOCK_END + 60_000))  # seat 1 spent it all
    while to_act(table.state) != 1:
        seat = to_act(table.state)
        table.act(seat, "CALL" if "CALL" in options(table, seat) else "CHECK")
    deadline = action_deadline_ms(table.state)
    events = table.run(Timeout(deadline))
    assert not of_type(events, "TimeBankStarted") and events[0].timeout


def test_the_reserve_refills_after_every_n_hands_dealt_up_to_its_maximum() -> None:
    """§7: the reserve grows by time_bank_refill_seconds after every time_bank_refill_hands hands dealt."""
    config = TableConfig(min_buy_in=1, action_clock_seconds=30, time_bank_seconds=60,
                         time_bank_refill_seconds=10, time_bank_refill_hands=2)
    table = Table(config, stacks={1: 10_000, 2: 10_000})
    refills = []
    for hand in range(1, 5):
        table.now += 1_000
        table.start(stacked_deck([]))
        if hand == 1:  # seat 1's bring-in takes 25 s of its reserve
            seat = to_act(table.state)
            table.now = action_deadline_ms(table.state) + 25_000
            table.act(seat, "BRING_IN", options(table, seat)["BRING_IN"][0])
            spender = seat
        refills += of_type(play_passively(table), "TimeBankRefilled")
    # After hand 2: +10 s (35 -> 45); after hand 4: +10 s (45 -> 55); the other seat is full: nothing.
    assert refills == [TimeBankRefilled(2, spender, 10_000, 45_000),
                       TimeBankRefilled(4, spender, 10_000, 55_000)]
    ended = of_type(table.log, "HandEnded")
    assert table.log.index(refills[0]) == table.log.index(ended[1]) - 1  # just before HandEnded


def test_a_player_who_leaves_and_a_newcomer_in_the_seat_starts_full() -> None:
    table = bank_table()
    table.run(Timeout(CLOCK_END))
    table.now = CLOCK_END + 20_000
    table.act(1, "BRING_IN", 100)
    play_passively(table, fold=[1])
    assert time_bank_reserve_ms(table.state, 1) == 40_000
    from stud_service.engine import Leave, SitDown

    table.run(Leave("p1", table.now))
    table.run(SitDown("newcomer", 1, 5_000, table.now))
    assert time_bank_reserve_ms(table.state, 1) == 60_000


def test_the_bank_survives_a_snapshot_and_a_new_owner() -> None:
    """A replica taking the table over folds the log (or a snapshot) and arms the same deadline."""
    table = bank_table()
    table.run(Timeout(CLOCK_END))
    folded = replay(table.log)
    assert folded == table.state and action_deadline_ms(folded) == CLOCK_END + 60_000
    restored = state_from_json(state_to_json(table.state))
    assert restored == table.state and running_clock(restored) == "TIME_BANK"


def test_the_time_bank_config_is_checked() -> None:
    bank = {"time_bank_seconds": 60}
    for fields, name in [({"time_bank_seconds": 601}, "time_bank_seconds"),
                         ({"time_bank_seconds": -1}, "time_bank_seconds"),
                         ({**bank, "time_bank_refill_seconds": 61, "time_bank_refill_hands": 1},
                          "time_bank_refill_seconds"),
                         ({**bank, "time_bank_refill_seconds": 10}, "time_bank_refill_hands"),
                         ({**bank, "time_bank_refill_hands": 3}, "time_bank_refill_seconds"),
                         ({"time_bank_seconds": True}, "time_bank_seconds"),
                         # RULES.md §12: a player thinking on the clock and the reserve is no interruption
                         ({**bank, "interrupted_hand_void_seconds": 90}, "interrupted_hand_void_seconds"),
                         ({"chat_spectators": 1}, "chat_spectators")]:
        with pytest.raises(InvalidConfig) as error:
            TableConfig(**fields).validate()
        assert error.value.field == name
    TableConfig(**bank, interrupted_hand_void_seconds=91).validate()  # 30 s clock + 60 s reserve


def test_a_config_without_the_new_options_reads_as_before() -> None:
    """The time bank's and the chat's fields are written only when set: older tables' JSON is unchanged."""
    from stud_service.engine.config import config_to_json

    assert "time_bank_seconds" not in config_to_json(TableConfig())
    assert config_to_json(BANK)["time_bank_seconds"] == 60


@settings(max_examples=150, deadline=None)
@given(seed=st.integers(0, 2**32), refill=st.booleans())
def test_random_play_keeps_reserves_in_bounds_and_every_hand_replays_alone(seed: int, refill: bool) -> None:
    """Random decisions at random times (in time, into the reserve, past it), timeouts and chat: after
    every event each reserve is within 0..maximum, and each hand, re-decided from its own events by the
    audit's replay check, gives exactly what was recorded."""
    rng = random.Random(seed)
    config = TableConfig(min_buy_in=1, action_clock_seconds=rng.choice([1, 5]),
                         time_bank_seconds=rng.choice([1, 7, 600]),
                         time_bank_refill_seconds=1 if refill else 0,
                         time_bank_refill_hands=rng.choice([1, 2]) if refill else 0)
    players = rng.randint(2, 5)
    table = Table(config, stacks={seat: rng.choice([150, 2_000, 10_000]) for seat in range(1, players + 1)})
    maximum = config.time_bank_seconds * 1000
    for _ in range(3):
        if len([s for s in table.state.seats.values() if s.stack and not s.sitting_out]) < 2:
            break
        table.now += 1_000
        first = len(table.log)
        deck = list(range(52))
        rng.shuffle(deck)
        table.start(deck)
        while table.state.hand is not None:
            seat = to_act(table.state)
            assert seat is not None
            roll = rng.random()
            if roll < 0.25:
                table.now = max(table.now, action_deadline_ms(table.state) + rng.choice([0, 3]))
                table.run(Timeout(table.now))
            else:
                if roll < 0.35:
                    table.run(SendChat(table.pid(seat), "thinking", table.now))
                table.now += rng.choice([0, 500, config.action_clock_seconds * 1000 + rng.randint(0, 9_000)])
                legal = legal_actions(table.state, table.pid(seat))
                kind, amounts = rng.choice(legal.options)
                table.run(Act(table.pid(seat), kind, rng.choice(amounts) if amounts else None, table.now))
            for other in table.state.seats:
                assert 0 <= time_bank_reserve_ms(table.state, other) <= maximum
        hand_events = [(index, event_to_json(event)) for index, event in enumerate(table.log[first:], 1)]
        assert replay_hand(hand_events, table.state.hand_number) is None
        for seat_state in table.state.seats.values():
            if seat_state.sitting_out and seat_state.stack:
                from stud_service.engine import SitIn

                table.run(SitIn(seat_state.player_id, table.now))
