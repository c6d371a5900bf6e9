"""Views as the protos document them, from hands the engine plays (no server needed): which part of a
pot an award is from (``Award.pot_half``) and why a seat sits out (``SeatView.sit_out_reason``)."""

from __future__ import annotations

import pytest
from engine_helpers import deal_table, play_passively

from stud_service.engine import SitIn, SitOut, TableConfig, TopUp, Variant, event_to_json
from stud_service.server.convert import view_to_proto
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
