"""RULES.md §12, Stopping a game: each rule as a function (engine/rules/stopping.py) and as the engine applies
it, tested under its name; and a property: a void at any point of any hand gives every chip back."""

from __future__ import annotations

import random
from dataclasses import replace

import pytest
from engine_helpers import T0, Table, deal_table, of_type, play_passively, stacks
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from test_engine_properties import Run, random_config

from stud_service.engine import (
    CLOSED,
    OPEN,
    PAUSED,
    Act,
    ActionKind,
    CloseTable,
    CreateTable,
    DomainError,
    HandEnded,
    HandShown,
    HandVoided,
    JoinWaitingList,
    Leave,
    PauseTable,
    ResumeTable,
    SitDown,
    SitOut,
    StartHand,
    TableConfig,
    Timeout,
    TopUp,
    UpdateTableSettings,
    Viewer,
    VoidHand,
    VoidInterruptedHand,
    action_deadline_ms,
    can_start_hand,
    chips_in_play,
    decide,
    hand_void_deadline_ms,
    legal_actions,
    replay,
    to_act,
    view_event,
)
from stud_service.engine.rules.stopping import (
    MAX_REASON_CHARS,
    hand_interrupted,
    interrupted_hand_deadline_ms,
    leaves_after_hand,
    may_deal,
    may_take_players,
    valid_operator,
    valid_reason,
    void_returns,
)

HANDS = {1: "Ah Kh 2c 3c 4c 5c 6c", 2: "Ad Kd 9s 3d 4d 5d 6d", 3: "As Ks 9h 3h 4h 5h 6h"}
OPS = "ops-1"


def refused(table: Table, command: object, reason: str) -> DomainError:
    """``command`` is refused with ``reason`` and the table is unchanged."""
    before = table.state
    with pytest.raises(DomainError) as caught:
        decide(table.state, command)
    assert caught.value.reason == reason, caught.value
    assert table.state == before
    return caught.value


def seated(config: TableConfig | None = None, players: int = 3, stack: int = 10_000) -> Table:
    return Table(config or TableConfig(min_buy_in=1), stacks=dict.fromkeys(range(1, players + 1), stack))


# -- the rules, one function each ---------------------------------------------------------------------------


def test_may_deal_only_an_open_table() -> None:
    assert may_deal(OPEN) and not may_deal(PAUSED) and not may_deal(CLOSED)


def test_may_take_players_unless_closed() -> None:
    assert may_take_players(OPEN) and may_take_players(PAUSED) and not may_take_players(CLOSED)


def test_leaves_after_hand_at_a_closed_table_or_when_asked() -> None:
    assert leaves_after_hand(True, False) and leaves_after_hand(False, True)
    assert not leaves_after_hand(False, False)


def test_void_returns_what_each_seat_put_in() -> None:
    assert void_returns({3: 400, 1: 150, 2: 0}) == ((1, 150), (3, 400))
    assert void_returns({}) == ()


def test_interrupted_hand_deadline_is_off_by_default() -> None:
    assert interrupted_hand_deadline_ms(T0, 0) is None
    assert interrupted_hand_deadline_ms(T0, 90) == T0 + 90_000
    assert not hand_interrupted(T0, 0, T0 + 10**9)
    assert not hand_interrupted(T0, 90, T0 + 89_999) and hand_interrupted(T0, 90, T0 + 90_000)


def test_valid_reason_and_operator_are_plain_text() -> None:
    assert valid_reason("dealer fault on table 4") and valid_reason("x" * MAX_REASON_CHARS)
    for bad in ("", "   ", "x" * (MAX_REASON_CHARS + 1), "nul\x00", "bell\x07", None, 7):
        assert not valid_reason(bad), bad
    assert valid_operator("ops-1") and not valid_operator("") and not valid_operator("a\nb")


# -- pausing ----------------------------------------------------------------------------------------------


def test_a_paused_table_deals_no_new_hand_and_resuming_deals_again() -> None:
    table = seated()
    assert can_start_hand(table.state)
    (paused,) = table.run(PauseTable(OPS, "server maintenance", T0))
    assert (paused.operator, paused.reason) == (OPS, "server maintenance")
    assert table.state.control.status == PAUSED and table.state.control.reason == "server maintenance"
    assert not can_start_hand(table.state)
    refused(table, StartHand(tuple(range(52)), "00" * 32, T0), "TABLE_PAUSED")
    refused(table, PauseTable(OPS, "again", T0), "TABLE_PAUSED")
    table.run(ResumeTable(OPS, "maintenance done", T0 + 1))
    assert table.state.control.status == OPEN and can_start_hand(table.state)
    refused(table, ResumeTable(OPS, "again", T0), "TABLE_NOT_PAUSED")


def test_a_running_hand_plays_on_to_its_end_during_a_pause() -> None:
    table = deal_table(HANDS)
    table.run(PauseTable(OPS, "end of session", T0))
    assert action_deadline_ms(table.state) is not None  # its clocks run on
    events = play_passively(table)
    assert of_type(events, "HandEnded") and of_type(events, "HandShown")
    assert not can_start_hand(table.state)


# -- closing ----------------------------------------------------------------------------------------------


def test_closing_a_table_between_hands_pays_everyone_out_and_empties_the_waiting_list() -> None:
    table = Table(TableConfig(min_buy_in=1, seats=2), stacks={1: 3_000, 2: 5_000})
    table.run(JoinWaitingList("wanda", T0))
    events = table.run(CloseTable(OPS, "table retired", T0))
    kinds = [type(e).__name__ for e in events]
    assert kinds == ["TableClosed", "WaitingListLeft", "PlayerLeft", "PlayerLeft"]
    assert of_type(events, "WaitingListLeft")[0].reason == "table_closed"
    assert {(e.seat, e.cash_out) for e in of_type(events, "PlayerLeft")} == {(1, 3_000), (2, 5_000)}
    assert table.state.seats == {} and table.state.waiting == () and table.state.control.status == CLOSED
    for command in (SitDown("newcomer", 1, 1_000, T0), JoinWaitingList("newcomer", T0),
                    PauseTable(OPS, "why", T0), ResumeTable(OPS, "why", T0), CloseTable(OPS, "why", T0),
                    UpdateTableSettings(OPS, "why", {"name": "x"}, T0)):
        refused(table, command, "TABLE_CLOSED")


def test_closing_during_a_hand_lets_it_end_then_its_players_leave() -> None:
    table = Table(TableConfig(min_buy_in=1), stacks={1: 10_000, 2: 10_000, 3: 10_000, 4: 7_000})
    table.run(SitOut("p4", T0))  # not dealt in
    table.start(tuple(range(52)))
    # Table.run checks that no chip leaves during a hand: here two do leave, with the players not in it.
    events = decide(table.state, CloseTable(OPS, "closing time", T0))
    table.state = replay(events, table.state)
    table.log.extend(events)
    # The seat not in the hand leaves at once, with its stack.
    assert {(e.seat, e.cash_out) for e in of_type(events, "PlayerLeft")} == {(4, 7_000)}
    refused(table, TopUp("p1", 100, T0), "TABLE_CLOSED")
    ended = play_passively(table)
    left = of_type(ended, "PlayerLeft")
    final = of_type(ended, "HandEnded")[0]
    assert {(e.seat, e.cash_out) for e in left} == set(final.stacks)
    assert table.state.seats == {}


# -- voiding ----------------------------------------------------------------------------------------------


def test_a_voided_hand_returns_every_chip_takes_no_rake_and_shows_no_card() -> None:
    config = TableConfig(min_buy_in=1, rake_basis_points=1000, rake_cap_2=10_000, rake_cap_3_4=10_000,
                         rake_cap_5_plus=10_000)
    table = deal_table(HANDS, config=config)
    started = of_type(table.log, "HandStarted")[-1]
    starting = {seat: stack for seat, _player, stack in started.seats}
    table.act(1, "BRING_IN", 100)
    table.act(2, "COMPLETE", 200)
    table.act(3, "RAISE", 400)
    table.act(1, "FOLD")
    number = table.state.hand.number
    events = table.run(VoidHand(number, OPS, "a card was exposed by a fault", T0))
    voided, ended = events[0], events[1]
    assert isinstance(voided, HandVoided) and isinstance(ended, HandEnded)
    assert (voided.operator, voided.reason, voided.automatic) == (OPS, "a card was exposed by a fault", False)
    assert dict(voided.returned) == {1: 150, 2: 250, 3: 450}  # antes 50, bring-in, completion, raise
    assert ended.pots == () and ended.rake == 0 and ended.shown == () and ended.mucked == ()
    assert ended.server_seed is None
    assert dict(ended.stacks) == starting == stacks(table.state)
    assert not of_type(events, "HandShown") and table.state.rake_taken == 0
    assert table.state.hand is None and table.state.control.voided_hand == number
    assert table.state.control.void_reason == "a card was exposed by a fault"


def test_a_void_names_the_running_hand() -> None:
    table = seated()
    refused(table, VoidHand(1, OPS, "fault", T0), "HAND_NOT_RUNNING")
    table.start(tuple(range(52)))
    refused(table, VoidHand(2, OPS, "fault", T0), "HAND_NOT_RUNNING")
    refused(table, VoidHand(1, OPS, "", T0), "MALFORMED_REQUEST")
    refused(table, VoidHand(1, "", "fault", T0), "MALFORMED_REQUEST")


def test_after_a_void_players_who_asked_to_leave_leave_with_their_whole_stack() -> None:
    table = deal_table(HANDS)
    table.act(1, "BRING_IN", 100)
    table.run(Leave("p3", T0))  # not their turn: they leave when the hand ends
    events = table.run(VoidHand(table.state.hand.number, OPS, "fault", T0))
    (left,) = of_type(events, "PlayerLeft")
    assert (left.seat, left.cash_out) == (3, 10_000)


def test_a_voided_hand_s_down_cards_stay_hidden_from_everyone_but_auditors() -> None:
    table = deal_table(HANDS)
    table.act(1, "BRING_IN", 100)
    table.run(VoidHand(1, OPS, "fault", T0))
    for event in of_type(table.log, "CardDealt"):
        if event.face_up:
            continue
        observer = view_event(table.state, event, Viewer.observer())
        other = view_event(table.state, event, Viewer.seat(f"p{event.seat % 3 + 1}"))
        assert observer["card"] is None and other["card"] is None
        assert view_event(table.state, event, Viewer.auditor())["card"] == event.card


def test_a_void_at_a_tournament_table_but_no_pause_or_close() -> None:
    table = seated(TableConfig(min_buy_in=1, currency="", tournament_id="tour-1", tournament_level=1))
    refused(table, PauseTable(OPS, "why", T0), "TOURNAMENT_TABLE")
    refused(table, CloseTable(OPS, "why", T0), "TOURNAMENT_TABLE")
    table.start(tuple(range(52)))
    assert of_type(table.run(VoidHand(1, OPS, "fault", T0)), "HandVoided")


# -- interrupted hands ------------------------------------------------------------------------------------


def interrupted_table() -> Table:
    return deal_table(HANDS, config=TableConfig(min_buy_in=1, action_clock_seconds=30,
                                                interrupted_hand_void_seconds=120))


def test_an_interrupted_hand_is_voided_once_it_stood_still_that_long() -> None:
    table = interrupted_table()
    table.act(1, "BRING_IN", 100)
    since = table.state.hand.turn_ms
    due = hand_void_deadline_ms(table.state)
    assert due == since + 120_000
    refused(table, VoidInterruptedHand(due - 1), "VOID_NOT_DUE")
    pid = table.pid(to_act(table.state))
    refused(table, Act(pid, ActionKind.CALL, None, due), "HAND_INTERRUPTED")
    refused(table, Timeout(due), "HAND_INTERRUPTED")
    refused(table, Leave(pid, due), "HAND_INTERRUPTED")
    table.act(2, "CALL")  # in time, at T0: the hand goes on and the clock of the void starts again
    events = table.run(VoidInterruptedHand(hand_void_deadline_ms(table.state) + 5_000))
    voided = events[0]
    assert isinstance(voided, HandVoided) and voided.automatic and voided.operator == ""
    assert voided.reason == "interrupted: no action or deal for 125 s"
    assert dict(voided.returned) == {1: 150, 2: 150, 3: 50}


def test_interrupted_hands_are_not_voided_by_default() -> None:
    table = deal_table(HANDS)
    error = refused(table, VoidInterruptedHand(T0 + 10**9), "VOID_NOT_DUE")
    assert "does not void" in str(error)
    assert hand_void_deadline_ms(table.state) is None
    no_hand = seated(TableConfig(min_buy_in=1, interrupted_hand_void_seconds=60))
    refused(no_hand, VoidInterruptedHand(T0 + 10**9), "VOID_NOT_DUE")


@pytest.mark.parametrize("seconds", [-1, 30, 10, 86_401])
def test_interrupted_hand_void_seconds_must_outlast_the_action_clock(seconds: int) -> None:
    with pytest.raises(DomainError) as caught:
        TableConfig(action_clock_seconds=30, interrupted_hand_void_seconds=seconds).validate()
    assert caught.value.reason == "INVALID_CONFIG" and caught.value.metadata["field"] == \
        "interrupted_hand_void_seconds"


# -- settings changed between hands ------------------------------------------------------------------------


def test_settings_change_between_hands_only_and_only_those_that_may() -> None:
    table = seated()
    (changed,) = table.run(UpdateTableSettings(OPS, "slower clock for a beginners' table",
                                               {"action_clock_seconds": 45, "name": "Beginners"}, T0))
    assert changed.settings == {"action_clock_seconds": 45, "name": "Beginners"}
    assert changed.previous == {"action_clock_seconds": 30, "name": ""}
    assert table.state.config.action_clock_seconds == 45 and table.state.config.name == "Beginners"
    assert table.run(UpdateTableSettings(OPS, "same again", {"name": "Beginners"}, T0)) == []
    error = refused(table, UpdateTableSettings(OPS, "why", {"ante": 0}, T0), "INVALID_CONFIG")
    assert error.metadata["field"] == "ante"
    refused(table, UpdateTableSettings(OPS, "why", {"action_clock_seconds": 0}, T0), "INVALID_CONFIG")
    refused(table, UpdateTableSettings(OPS, "why", {}, T0), "MALFORMED_REQUEST")
    table.start(tuple(range(52)))
    refused(table, UpdateTableSettings(OPS, "why", {"name": "x"}, T0), "HAND_RUNNING")
    assert of_type(table.log, "HandStarted")[-1].config.action_clock_seconds == 45


# -- the property -----------------------------------------------------------------------------------------


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 2**64), players=st.integers(2, 8), steps=st.integers(0, 40),
       automatic=st.booleans())
def test_a_void_at_any_point_of_any_hand_gives_every_chip_back(
    seed: int, players: int, steps: int, automatic: bool
) -> None:
    """§12: whatever happened in the hand so far (antes, all-ins, uncalled bets, folds, leavers, streets
    dealt), a void returns each seat exactly its stack as the hand started, takes no rake, shows no card,
    and the table's chips are those it had."""
    rng = random.Random(seed)
    run = Run(rng)
    config = random_config(rng, 8)
    if automatic:
        config = replace(config, interrupted_hand_void_seconds=config.action_clock_seconds
                         + config.time_bank_seconds + 1)  # §7: past the clock and the reserve
    run.run(CreateTable("t", config, run.now))
    for seat in rng.sample(range(1, 9), players):
        short = rng.random() < 0.2  # all-in early: side pots, uncalled bets, run-outs
        buy_in = rng.randint(1, 3 * config.small_bet) if short else rng.randint(config.max_buy_in // 4,
                                                                                config.max_buy_in)
        run.run(SitDown(f"p{seat}", seat, buy_in, run.now))
    if not can_start_hand(run.state):
        return
    deck = list(range(52))
    rng.shuffle(deck)
    run.run(StartHand(tuple(deck), "cafe", run.now))
    (started,) = of_type(run.log, "HandStarted")
    for _ in range(steps):
        if run.state.hand is None:
            return  # the hand ended by itself first
        seat = to_act(run.state)
        pid = run.state.seats[seat].player_id
        options = legal_actions(run.state, pid).options
        # Folds seldom, so that most hands are still running, with all their streets, when the void comes.
        kind, amounts = rng.choices(options, [1 if kind is ActionKind.FOLD else 8 for kind, _ in options])[0]
        run.now += rng.randint(0, 1_000)
        run.run(Act(pid, kind, rng.choice(amounts) if amounts else None, run.now))
    if run.state.hand is None:
        return
    chips = chips_in_play(run.state)
    rake = run.state.rake_taken
    if automatic:
        run.now = hand_void_deadline_ms(run.state) + rng.randint(0, 10_000)
        events = run.run(VoidInterruptedHand(run.now))
    else:
        events = run.run(VoidHand(run.state.hand.number, OPS, "fault", run.now))
    voided = events[0]
    ended = next(e for e in events if isinstance(e, HandEnded))
    assert isinstance(voided, HandVoided) and voided.automatic is automatic
    starting = {seat: stack for seat, _player, stack in started.seats}
    assert dict(ended.stacks) == starting
    assert ended.rake == 0 and run.state.rake_taken == rake and ended.pots == () and ended.shown == ()
    assert not any(isinstance(e, HandShown) for e in events)
    assert chips_in_play(run.state) + sum(e.cash_out for e in of_type(events, "PlayerLeft")) == chips
    assert replay(run.log) == run.state
