"""The table lifecycle: config validation, seating, leaving, sitting out, top-ups, busting, and the
typed errors of rejected commands (which never change the state)."""

from __future__ import annotations

import dataclasses

import pytest
from engine_helpers import Table, deal_table, of_type, play_passively, stacked_deck

from stud_service.cards import FULL_DECK
from stud_service.engine import (
    Act,
    ActionKind,
    ActionNotAvailable,
    AlreadySeated,
    BuyInOutOfLimits,
    CreateTable,
    DomainError,
    HandNotRunning,
    HandRunning,
    IllegalAmount,
    InvalidConfig,
    InvalidDeck,
    InvalidSeat,
    Leave,
    NoTable,
    NotEnoughPlayers,
    NotSeated,
    NotYourTurn,
    PlayerLeft,
    SeatTaken,
    SitDown,
    SitIn,
    SitOut,
    StartHand,
    TableConfig,
    TableExists,
    TableFull,
    TopUp,
    Variant,
    can_start_hand,
    decide,
    initial_state,
    state_to_json,
    to_act,
)
from stud_service.engine import errors as engine_errors


@pytest.mark.parametrize(("change", "field"), [
    ({"ante": -1}, "ante"),
    ({"bring_in": 0}, "bring_in"),
    ({"bring_in": 300}, "bring_in"),
    ({"small_bet": 0}, "small_bet"),
    ({"big_bet": 100}, "big_bet"),
    ({"min_buy_in": 0}, "min_buy_in"),
    ({"max_buy_in": 10}, "max_buy_in"),
    ({"seats": 1}, "seats"),
    ({"seats": 9}, "seats"),
    ({"action_clock_seconds": 0}, "action_clock_seconds"),
    ({"ante": 1.5}, "ante"),
    ({"variant": "OMAHA"}, "variant"),
    ({"bring_in_tiebreak": "COIN"}, "bring_in_tiebreak"),
    ({"uncapped_heads_up": "yes"}, "uncapped_heads_up"),
])
def test_inconsistent_configs_are_rejected_naming_the_field(change: dict, field: str) -> None:
    """§1: 0 < BI < S (BI = S only with the operator's option), B >= S, 2..8 seats, ante >= 0."""
    config = dataclasses.replace(TableConfig(), **change)
    with pytest.raises(InvalidConfig) as error:
        decide(initial_state(), CreateTable("t", config))
    assert error.value.field == field and field in str(error.value)
    assert error.value.reason == "INVALID_CONFIG" and error.value.grpc_code_name == "INVALID_ARGUMENT"


def test_default_config_is_seven_card_stud_and_valid() -> None:
    """§6: Seven Card Stud is the default variant."""
    assert TableConfig().validate().variant is Variant.STUD


def test_a_table_is_created_once() -> None:
    table = Table()
    with pytest.raises(TableExists):
        table.run(CreateTable("t1", TableConfig()))


def test_commands_before_the_table_exists_are_refused() -> None:
    with pytest.raises(NoTable) as error:
        decide(initial_state(), SitDown("a", 1, 5000))
    assert error.value.grpc_code_name == "NOT_FOUND"


def test_seating_rules() -> None:
    """§1: seats 1..seats; a buy-in within the limits; one seat per player."""
    table = Table(TableConfig(seats=2), stacks={1: 5000})
    for command, error in [
        (SitDown("p1", 2, 5000), AlreadySeated),
        (SitDown("b", 1, 5000), SeatTaken),
        (SitDown("b", 3, 5000), InvalidSeat),
        (SitDown("b", 2, 3999), BuyInOutOfLimits),
        (SitDown("b", 2, 40_001), BuyInOutOfLimits),
    ]:
        before = state_to_json(table.state)
        with pytest.raises(error):
            table.run(command)
        assert state_to_json(table.state) == before
    table.run(SitDown("b", 2, 4000))
    with pytest.raises(TableFull):
        table.run(SitDown("c", 1, 5000))


def test_stacks_and_seats_survive_across_hands() -> None:
    table = deal_table({1: "Ah Kh 2c", 2: "Ad Kd 9s"})
    table.act(1, "BRING_IN", 100)
    table.act(2, "FOLD")
    assert {s: x.stack for s, x in table.state.seats.items()} == {1: 10_050, 2: 9_950}
    table.start(FULL_DECK)
    assert of_type(table.log, "HandStarted")[-1].seats == ((1, "p1", 10_050), (2, "p2", 9_950))
    assert of_type(table.log, "HandStarted")[-1].hand == 2


def test_leave_between_hands_cashes_out_at_once() -> None:
    table = Table(stacks={1: 5000, 2: 5000})
    assert table.run(Leave("p1", table.now)) == [PlayerLeft("p1", 1, 5000, table.now)]
    assert 1 not in table.state.seats


def test_leaving_mid_hand_folds_at_the_players_turn_and_removes_them_at_hand_end() -> None:
    """Decision: a leaver stays in the hand until their turn, then checks if free, else folds."""
    table = deal_table({1: "Ah Kh 2c", 2: "Ad Kd 9s", 3: "Ac Kc 9h"})
    events = table.run(Leave("p3"))
    assert [type(e).__name__ for e in events] == ["LeaveRequested"]
    table.act(1, "BRING_IN", 100)
    events = table.act(2, "COMPLETE", 200)
    assert events[1].seat == 3 and events[1].action is ActionKind.FOLD and not events[1].timeout
    table.act(1, "FOLD")
    assert 3 not in table.state.seats
    assert of_type(table.log, "PlayerLeft")[-1].cash_out == 10_000 - 50


def test_leaving_on_your_turn_acts_at_once() -> None:
    table = deal_table({1: "Ah Kh 2c", 2: "Ad Kd 9s", 3: "Ac Kc 9h"})
    table.act(1, "BRING_IN", 100)
    events = table.run(Leave("p2"))
    assert [type(e).__name__ for e in events] == ["LeaveRequested", "PlayerActed"]
    assert to_act(table.state) == 3


def test_sit_out_applies_from_the_next_hand_and_sit_in_brings_the_player_back() -> None:
    table = deal_table({1: "Ah Kh 2c", 2: "Ad Kd 9s", 3: "Ac Kc 9h"})
    table.run(SitOut("p2"))
    assert 2 in table.state.hand.players and not table.state.hand.players[2].folded
    play_passively(table)
    table.start(FULL_DECK)
    assert [s for s, _, _ in of_type(table.log, "HandStarted")[-1].seats] == [1, 3]
    play_passively(table)
    table.run(SitIn("p2"))
    table.start(FULL_DECK)
    assert [s for s, _, _ in of_type(table.log, "HandStarted")[-1].seats] == [1, 2, 3]


def test_top_up_between_hands_up_to_the_maximum() -> None:
    table = deal_table({1: "Ah Kh 2c", 2: "Ad Kd 9s"}, config=TableConfig(min_buy_in=1, max_buy_in=12_000))
    with pytest.raises(HandRunning):
        table.run(TopUp("p1", 100))
    play_passively(table)
    stack = table.state.seats[1].stack
    with pytest.raises(BuyInOutOfLimits):
        table.run(TopUp("p1", 12_001 - stack))
    with pytest.raises(BuyInOutOfLimits):
        table.run(TopUp("p1", 0))
    table.run(TopUp("p1", 12_000 - stack))
    assert table.state.seats[1].stack == 12_000


def test_a_busted_player_is_sat_out_and_must_top_up_to_sit_in() -> None:
    """Decision: a player left with no chips keeps the seat, sitting out."""
    table = deal_table({1: "Ac Ad Ah As 3d 4d 6h", 2: "2c 3c 2d 7c 7d 8s 9s", 3: "Kc Kd Kh 5c 6c 8c Tc"},
                       stacks={1: 9000, 2: 9000, 3: 250})
    table.act(2, "BRING_IN", 100)
    table.act(3, "COMPLETE", 200)  # all-in
    table.act(1, "CALL")
    table.act(2, "CALL")
    play_passively(table)
    assert table.state.seats[3].stack == 0 and table.state.seats[3].sitting_out
    assert of_type(table.log, "PlayerSatOut")[-1].reason == "busted"
    with pytest.raises(ActionNotAvailable):
        table.run(SitIn("p3"))
    table.run(TopUp("p3", 500))
    table.run(SitIn("p3"))
    assert can_start_hand(table.state)


def test_acting_errors_are_typed_and_leave_the_state_unchanged() -> None:
    table = deal_table({1: "Ah Kh 2c", 2: "Ad Kd 9s"})
    before = state_to_json(table.state)
    for command, error, reason in [
        (Act("p2", ActionKind.CALL), NotYourTurn, "NOT_YOUR_TURN"),
        (Act("zed", ActionKind.CALL), NotSeated, "NOT_SEATED"),
        (Act("p1", ActionKind.BRING_IN, 150), IllegalAmount, "ILLEGAL_AMOUNT"),
        (Act("p1", ActionKind.BRING_IN, None), IllegalAmount, "ILLEGAL_AMOUNT"),
        (Act("p1", ActionKind.RAISE, 400), ActionNotAvailable, "ACTION_NOT_AVAILABLE"),
        (StartHand(FULL_DECK, "00"), HandRunning, "HAND_RUNNING"),
    ]:
        with pytest.raises(error) as caught:
            decide(table.state, command)
        assert caught.value.reason == reason and str(caught.value)
    assert state_to_json(table.state) == before


def test_hand_commands_without_a_hand_are_refused() -> None:
    table = Table(stacks={1: 5000, 2: 5000})
    with pytest.raises(HandNotRunning):
        table.run(Act("p1", ActionKind.CHECK))
    with pytest.raises(InvalidDeck):
        table.run(StartHand(tuple(range(51)) + (0,), "00"))
    with pytest.raises(InvalidDeck):
        table.run(StartHand(tuple(range(51)), "00"))
    table.run(SitOut("p2"))
    with pytest.raises(NotEnoughPlayers):
        table.run(StartHand(FULL_DECK, "00"))


def test_start_hand_carries_the_deck_commitment_and_extra_audit_data_verbatim() -> None:
    table = Table(stacks={1: 5000, 2: 5000})
    deck = stacked_deck(["Ah", "Kh"])
    events = table.start(deck, extra={"client_seeds": ["ab", "cd"]})
    started = events[0]
    assert started.deck == deck and started.extra == {"client_seeds": ["ab", "cd"]}
    assert started.config == table.config and started.table_id == "t1"


def test_every_error_class_has_a_reason_and_a_grpc_code() -> None:
    """The error tree of stud_service.engine.errors: reasons are upper snake; codes are gRPC names."""
    codes = {"INVALID_ARGUMENT", "FAILED_PRECONDITION", "ALREADY_EXISTS", "NOT_FOUND", "PERMISSION_DENIED",
             "RESOURCE_EXHAUSTED"}
    classes = [c for c in vars(engine_errors).values() if isinstance(c, type) and issubclass(c, DomainError)]
    assert len(classes) >= 20
    for cls in classes:
        assert cls.reason.isupper() and cls.grpc_code_name in codes
        assert cls.__name__ in (engine_errors.__doc__ or "")
        assert not issubclass(cls, ValueError)
