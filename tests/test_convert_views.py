"""Views as the protos document them, from hands the engine plays (no server needed): which part of a
pot an award is from (``Award.pot_half``) and why a seat sits out (``SeatView.sit_out_reason``)."""

from __future__ import annotations

import pytest
from engine_helpers import deal_table, play_passively
from test_rules_side_pots import WORKED_CASE_HANDS, short_all_in_bring_in_table

from stud_service.engine import SitIn, SitOut, TableConfig, TopUp, Variant, event_to_json
from stud_service.server.api.convert import view_to_proto
from stud_service.server.proto_gen import table_pb2

WHOLE, HIGH, LOW = table_pb2.POT_HALF_WHOLE, table_pb2.POT_HALF_HIGH, table_pb2.POT_HALF_LOW
TINY_STAKES = {"min_buy_in": 1, "ante": 1, "bring_in": 2, "small_bet": 4, "big_bet": 8}


def finished_view(hands: dict[int, str], variant: Variant, fold: tuple[int, ...] = ()) -> table_pb2.TableView:
    table = deal_table(hands, config=TableConfig(variant=variant, **TINY_STAKES))
    ended = play_passively(table, fold=fold)[-1]
    return view_to_proto("t1", table.state, len(table.log), None, event_to_json(ended))


@pytest.mark.parametrize(
    ("variant", "hands", "halves"),
    [
        (Variant.STUD, {1: "Kc Kd Kh Qs Jc 9d 9h", 2: "Ac 2d 4h 7s 5c Qd Jh"}, [(1, WHOLE)]),
        (Variant.RAZZ, {1: "Kc Kd Kh Qs Jc 9d 9h", 2: "Ac 2d 4h 7s 5c Qd Jh"}, [(2, WHOLE)]),
        # No qualifying low: the high hand takes the whole pot.
        (Variant.STUD_HI_LO, {1: "Kc Kd Kh Qs Jc 9d 9h", 2: "Ac 2d 4h 9s Tc Qd Jh"}, [(1, WHOLE)]),
        (Variant.STUD_HI_LO, {1: "Kc Kd Kh Qs Jc 9d 9h", 2: "Ac 2d 4h 7s 5c Qd Jh"}, [(1, HIGH), (2, LOW)]),
        # One hand scoops both halves: still a split pot, one award per half.
        (Variant.STUD_HI_LO, {1: "Ac 2d 3h 4s 5c Kd Kh", 2: "Qc Qd Jh Js 9c 9d 8s"}, [(1, HIGH), (1, LOW)]),
    ],
)
def test_an_award_is_a_half_only_of_a_split_hi_lo_pot(variant, hands, halves):
    view = finished_view(hands, variant)
    assert [(award.seat, award.pot_half) for award in view.hand.awards] == halves


def test_a_pot_won_by_everyone_else_folding_is_whole():
    view = finished_view({1: "Kc Kd Kh Qs Jc", 2: "Ac 2d 4h 7s 5c"}, Variant.STUD_HI_LO, fold=(2,))
    assert [award.pot_half for award in view.hand.awards] == [WHOLE]


def pots_of(view: table_pb2.TableView) -> list[tuple[int, list[int]]]:
    return [(pot.amount, list(pot.eligible_seats)) for pot in view.hand.pots]


def test_the_pots_shown_pay_an_all_in_player_only_what_they_matched():
    """RULES.md §5 (issue 28's $1/$2 hand): while it runs, the view shows the $1.80 main pot all three
    seats are in and the $7.00 side pot of seats 2 and 3; once seat 2 folded and the hand ended, the
    side pot is seat 3's alone and seat 1, all-in, is paid the main pot only."""
    table = short_all_in_bring_in_table(WORKED_CASE_HANDS)
    running = view_to_proto("t1", table.state, len(table.log), None)
    assert pots_of(running) == [(180, [1, 2, 3]), (700, [2, 3])]
    ended = table.act(2, "FOLD")[-1]
    view = view_to_proto("t1", table.state, len(table.log), None, event_to_json(ended))
    assert pots_of(view) == [(180, [1, 3]), (700, [3])]
    assert sorted((award.seat, award.amount) for award in view.hand.awards) == [(1, 180), (3, 700)]


def reason(table, seat: int) -> int:
    view = view_to_proto("t1", table.state, len(table.log), None)
    return next(s.sit_out_reason for s in view.seats if s.seat == seat)


def test_a_busted_seat_must_top_up_then_sit_in():
    # Seat 2's 3 chips go in as the ante and the bring-in (its door card is the lowest): all in, and it
    # loses to trip kings.
    table = deal_table(
        {1: "Kc Kd Kh Qs Jc 9d 9h", 2: "2c 3d 7h 8s Tc Qd Jh"}, stacks={1: 1_000, 2: 3},
        config=TableConfig(**TINY_STAKES),
    )
    play_passively(table)
    assert table.state.seats[2].stack == 0 and reason(table, 2) == table_pb2.SIT_OUT_REASON_BUSTED
    table.run(TopUp(table.pid(2), 100, table.now))
    assert reason(table, 2) == table_pb2.SIT_OUT_REASON_BUSTED  # still out: SitIn brings it back
    table.run(SitIn(table.pid(2), table.now))
    assert reason(table, 2) == table_pb2.SIT_OUT_REASON_UNSPECIFIED


def test_a_seat_that_sat_out_and_lost_its_chips_shows_busted():
    """However a seat came to sit out, no chips means TopUp first."""
    table = deal_table(
        {1: "Kc Kd Kh Qs Jc 9d 9h", 2: "2c 3d 7h 8s Tc Qd Jh"}, stacks={1: 1_000, 2: 3},
        config=TableConfig(**TINY_STAKES),
    )
    table.run(SitOut(table.pid(2), table.now))  # during the hand: still dealt in
    assert reason(table, 2) == table_pb2.SIT_OUT_REASON_REQUESTED
    play_passively(table)
    assert reason(table, 2) == table_pb2.SIT_OUT_REASON_BUSTED
