"""A tournament's tables (RULES.md §11) in the table engine: stakes set by the level with each deal, absent
players dealt in and acting by the timeout rule at once, tournament chips that are not topped up, and
players who move only between hands.  A cash table behaves (and writes its config) as before."""

from __future__ import annotations

from dataclasses import replace

import pytest
from engine_helpers import COMMITMENT, Table, deal_sequence, of_type, stacked_deck

from stud_service.engine import (
    ActionKind,
    ActionNotAvailable,
    HandRunning,
    InvalidConfig,
    JoinWaitingList,
    Leave,
    PlayerActed,
    PlayerLeft,
    PlayerSatOut,
    SitIn,
    SitOut,
    Stakes,
    StartHand,
    TableConfig,
    Timeout,
    TopUp,
    action_deadline_ms,
    can_start_hand,
    decide,
    event_from_json,
    event_to_json,
    replay,
    state_from_json,
    state_to_json,
    to_act,
)
from stud_service.engine.config import config_from_json, config_to_json

TOURNAMENT = TableConfig(tournament_id="spring-open", tournament_level=1, currency="", ante=10, bring_in=25,
                         small_bet=50, big_bet=100, min_buy_in=1, max_buy_in=10**12, seats=8)
LEVEL_2 = Stakes(ante=20, bring_in=50, small_bet=100, big_bet=200, level=2)
# Three players; seat 1's door card (2c) is the lowest: seat 1 brings in.
HANDS = {1: "Ah Kh 2c 3c 4c 5c 6c", 2: "Ad Kd 9s 9c 8c 7c Tc", 3: "Ac Kc 9h Jc Qc Js Ts"}


def tournament_table(stacks: dict[int, int] | None = None) -> Table:
    return Table(TOURNAMENT, stacks=stacks or {1: 1_000, 2: 1_000, 3: 1_000}, table_id="spring-open-t1")


def deck() -> tuple[int, ...]:
    return stacked_deck(deal_sequence([1, 2, 3], HANDS))


def test_a_tournament_hand_is_dealt_at_the_stakes_of_its_level() -> None:
    """§11: a level change takes effect from the next hand dealt: StartHand carries the level's stakes,
    HandStarted records them, and the antes and bets follow them."""
    table = tournament_table()
    events = table.run(StartHand(deck(), COMMITMENT, table.now, {}, LEVEL_2))
    started = events[0]
    assert (started.config.ante, started.config.bring_in, started.config.small_bet, started.config.big_bet,
            started.config.tournament_level) == (20, 50, 100, 200, 2)
    assert [ante.amount for ante in of_type(events, "AntePosted")] == [20, 20, 20]
    assert table.state.config.small_bet == 100
    table.act(1, "BRING_IN", 50)
    assert of_type(table.act(2, "COMPLETE", 100), "PlayerActed")[0].amount == 100


def test_a_hand_without_stakes_keeps_the_level_of_the_last() -> None:
    table = tournament_table()
    table.run(StartHand(deck(), COMMITMENT, table.now, {}, LEVEL_2))
    for seat in (1, 2, 3):
        if to_act(table.state) == seat:
            table.act(seat, "BRING_IN" if seat == 1 else "FOLD", 50 if seat == 1 else None)
    while to_act(table.state) is not None:
        table.act(to_act(table.state), "FOLD")
    events = table.start(deck())
    assert events[0].config.tournament_level == 2 and events[0].config.ante == 20


def test_stakes_out_of_the_rules_are_invalid_config_naming_the_field() -> None:
    """§1's stakes rules hold at every level: the bring-in below the small bet, the big bet at least it."""
    table = tournament_table()
    for stakes, field in ((replace(LEVEL_2, bring_in=100), "stakes.bring_in"),
                          (replace(LEVEL_2, big_bet=50), "stakes.big_bet"),
                          (replace(LEVEL_2, ante=-1), "stakes.ante"),
                          (replace(LEVEL_2, level=-1), "stakes.tournament_level")):
        with pytest.raises(InvalidConfig) as refused:
            decide(table.state, StartHand(deck(), COMMITMENT, table.now, {}, stakes))
        assert refused.value.field == field


def test_a_hand_at_the_last_hands_stakes_keeps_the_tables_config() -> None:
    """A hand dealt at the stakes the last was dealt at is dealt with the table's config as it is (checked
    when that hand was dealt), not a copy of it checked again each hand."""
    table = tournament_table()
    table.run(StartHand(deck(), COMMITMENT, table.now, {}, LEVEL_2))
    config = table.state.config
    while to_act(table.state) is not None:
        seat = to_act(table.state)
        table.act(seat, "BRING_IN" if table.state.hand.level == 0 else "FOLD",
                  50 if table.state.hand.level == 0 else None)
    events = decide(table.state, StartHand(deck(), COMMITMENT, table.now, {}, LEVEL_2))
    assert events[0].config is config


def test_a_cash_table_refuses_stakes() -> None:
    """Its stakes are fixed when it is created (as before tournaments)."""
    table = Table(TableConfig(min_buy_in=1), stacks={1: 1_000, 2: 1_000})
    with pytest.raises(ActionNotAvailable):
        decide(table.state, StartHand(deck(), COMMITMENT, table.now, {}, LEVEL_2))


def test_an_absent_player_is_dealt_in_pays_the_ante_and_brings_in_at_once() -> None:
    """§11 sitting out: a registered player who is absent is still dealt in: the ante and a forced
    bring-in are taken, and their decisions are made by §7's rule without waiting for the clock."""
    table = tournament_table()
    table.run(SitOut("p1", table.now))
    assert can_start_hand(table.state)
    events = table.run(StartHand(deck(), COMMITMENT, table.now, {}, None))
    assert [ante.seat for ante in of_type(events, "AntePosted")] == [1, 2, 3]
    acted = of_type(events, "PlayerActed")
    assert acted == [PlayerActed(1, 1, ActionKind.BRING_IN, 25, 25, False, table.now, timeout=True)]
    assert to_act(table.state) == 2
    table.act(2, "COMPLETE", 50)
    events = table.act(3, "CALL")
    # Seat 1 owes the completion: not free to check, so it folds at once.
    assert of_type(events, "PlayerActed")[1] == PlayerActed(1, 1, ActionKind.FOLD, 25, 0, False, table.now,
                                                            timeout=True)


def test_an_absent_player_checks_when_it_is_free() -> None:
    table = tournament_table()
    table.run(StartHand(deck(), COMMITMENT, table.now, {}, None))
    table.act(1, "BRING_IN", 25)
    table.act(2, "CALL")
    table.act(3, "CALL")
    first = to_act(table.state)  # fourth street: the best board acts first
    absent = (1, 2, 3)[first % 3]  # the next clockwise
    table.run(SitOut(table.pid(absent), table.now))
    events = table.act(first, "CHECK")
    checks = [event for event in of_type(events, "PlayerActed") if event.seat == absent]
    assert checks and checks[0].action is ActionKind.CHECK and checks[0].timeout


def test_a_timed_out_player_stays_dealt_in_and_is_never_removed() -> None:
    """§11: a timeout sits the player out (§7) but a tournament table deals them the next hands."""
    table = tournament_table()
    table.run(StartHand(deck(), COMMITMENT, table.now, {}, None))
    deadline = action_deadline_ms(table.state)
    events = table.run(Timeout(deadline))
    assert of_type(events, "PlayerSatOut") == [PlayerSatOut("p1", 1, "timeout", deadline)]
    while to_act(table.state) is not None:
        table.act(to_act(table.state), "FOLD")
    assert table.state.hand is None and table.state.seats[1].sitting_out
    events = table.start(deck())
    assert [seat for seat, _player, _stack in events[0].seats] == [1, 2, 3]
    table.run(SitIn("p1", table.now))
    assert not table.state.seats[1].sitting_out


def test_an_all_absent_hand_plays_itself_to_its_end() -> None:
    table = tournament_table()
    for seat in (1, 2, 3):
        table.run(SitOut(f"p{seat}", table.now))
    events = table.start(deck())
    assert of_type(events, "HandEnded") and table.state.hand is None


def test_tournament_chips_are_not_topped_up_and_there_is_no_waiting_list() -> None:
    table = tournament_table()
    with pytest.raises(ActionNotAvailable):
        decide(table.state, TopUp("p1", 100, table.now))
    with pytest.raises(ActionNotAvailable):
        decide(table.state, JoinWaitingList("someone", table.now))


def test_players_move_only_between_hands() -> None:
    """§11 balancing: only tables between hands move players; between hands a player leaves with their
    chips (the tournament seats them, with those chips, at another table)."""
    table = tournament_table()
    table.start(deck())
    with pytest.raises(HandRunning):
        decide(table.state, Leave("p2", table.now))
    while to_act(table.state) is not None:
        seat = to_act(table.state)
        table.act(seat, "BRING_IN" if seat == 1 and table.state.hand.bring_in_due else "FOLD",
                  25 if seat == 1 and table.state.hand.bring_in_due else None)
    stack = table.state.seats[2].stack
    assert table.run(Leave("p2", table.now)) == [PlayerLeft("p2", 2, stack, table.now)]


def test_a_tournament_table_config_is_tournament_chips_without_rake() -> None:
    with pytest.raises(InvalidConfig) as refused:
        replace(TOURNAMENT, currency="USD").validate()
    assert refused.value.field == "currency"
    with pytest.raises(InvalidConfig) as refused:
        replace(TOURNAMENT, rake_basis_points=100, rake_cap_2=1, rake_cap_3_4=1, rake_cap_5_plus=1).validate()
    assert refused.value.field == "rake_basis_points"
    with pytest.raises(InvalidConfig) as refused:
        TableConfig(tournament_level=3).validate()
    assert refused.value.field == "tournament_level"
    with pytest.raises(InvalidConfig) as refused:
        replace(TOURNAMENT, tournament_id="x" * 64).validate()
    assert refused.value.field == "tournament_id"


def test_a_cash_table_config_writes_no_tournament_fields() -> None:
    """Cash tables' events read as they always did (and by code older than tournaments)."""
    assert "tournament_id" not in config_to_json(TableConfig())
    assert config_from_json(config_to_json(TOURNAMENT)) == TOURNAMENT
    assert config_to_json(TOURNAMENT)["tournament_id"] == "spring-open"


def test_a_tournament_table_replays_and_round_trips() -> None:
    table = tournament_table()
    table.run(StartHand(deck(), COMMITMENT, table.now, {}, LEVEL_2))
    assert [event_from_json(event_to_json(event)) for event in table.log] == table.log
    assert replay(table.log) == table.state
    assert state_from_json(state_to_json(table.state)) == table.state
