"""docs/waiting-list.md, the waiting list: each rule as the engine applies it, tested under its name."""

from __future__ import annotations

import pytest
from engine_helpers import T0, Table, deal_table, of_type, play_passively

from stud_service.engine import (
    AlreadySeated,
    AlreadyWaiting,
    ExpireSeatOffers,
    JoinWaitingList,
    Leave,
    LeaveWaitingList,
    NotWaiting,
    OfferNotDue,
    SeatOffered,
    SeatOnOffer,
    SitDown,
    TableConfig,
    TableNotFull,
    WaitingListFull,
    decide,
    seat_offer_deadline_ms,
)
from stud_service.engine.rules.waiting import (
    MAX_WAITING,
    expired_seat_offers,
    may_join_waiting_list,
    offered_seat,
    open_seats,
    seat_held_for_another,
    seat_offer_deadline,
    seat_offers_to_make,
)

CONFIG = TableConfig(seats=2, seat_offer_seconds=60)
BUY_IN = 10_000


def full_table(*waiting: str) -> Table:
    """A two-seat table with p1 and p2 seated and ``waiting`` on its list, in order."""
    table = Table(CONFIG, stacks={1: BUY_IN, 2: BUY_IN})
    for player in waiting:
        table.run(JoinWaitingList(player, table.now))
    return table


# --- the rule functions -------------------------------------------------------------------------

def test_open_seats_are_neither_taken_nor_held() -> None:
    """docs/waiting-list.md."""
    assert open_seats(4, [1, 3], [("w", 2, T0)]) == [4]
    assert open_seats(2, [1, 2], []) == []


def test_may_join_waiting_list_only_when_no_seat_is_open() -> None:
    """docs/waiting-list.md."""
    assert may_join_waiting_list(0)
    assert not may_join_waiting_list(1)


def test_seat_offers_to_make_go_in_order_to_players_without_an_offer() -> None:
    """docs/waiting-list.md."""
    assert seat_offers_to_make(["a", "b", "c"], [("a", 1, T0)], [2, 5]) == [("b", 2), ("c", 5)]
    assert seat_offers_to_make(["a"], [("a", 1, T0)], [2]) == []


def test_seat_offer_deadline_is_the_offer_time_from_now() -> None:
    """docs/waiting-list.md."""
    assert seat_offer_deadline(T0, 60) == T0 + 60_000


def test_expired_seat_offers_are_those_whose_deadline_came() -> None:
    """docs/waiting-list.md."""
    offers = [("a", 1, T0), ("b", 2, T0 + 1)]
    assert expired_seat_offers(offers, T0) == [("a", 1, T0)]


def test_offered_seat_and_seat_held_for_another() -> None:
    """docs/waiting-list.md."""
    offers = [("a", 3, T0)]
    assert offered_seat(offers, "a") == 3 and offered_seat(offers, "b") is None
    assert seat_held_for_another(offers, 3, "b") and not seat_held_for_another(offers, 3, "a")


# --- the rules as commands ----------------------------------------------------------------------

def test_join_waiting_list_of_a_full_table() -> None:
    table = full_table("w1", "w2")
    assert table.state.waiting == ("w1", "w2")
    assert table.state.offers == ()


def test_join_when_not_full_is_refused() -> None:
    table = Table(CONFIG, stacks={1: BUY_IN})
    with pytest.raises(TableNotFull):
        decide(table.state, JoinWaitingList("w1", T0))


def test_join_when_already_seated_is_refused() -> None:
    table = full_table()
    with pytest.raises(AlreadySeated):
        decide(table.state, JoinWaitingList("p1", T0))


def test_join_twice_is_refused() -> None:
    table = full_table("w1")
    with pytest.raises(AlreadyWaiting):
        decide(table.state, JoinWaitingList("w1", T0))


def test_the_waiting_list_is_bounded() -> None:
    table = full_table(*(f"w{i}" for i in range(MAX_WAITING)))
    with pytest.raises(WaitingListFull):
        decide(table.state, JoinWaitingList("late", T0))


def test_leave_waiting_list() -> None:
    table = full_table("w1", "w2")
    table.run(LeaveWaitingList("w1", T0))
    assert table.state.waiting == ("w2",)


def test_leave_waiting_list_when_not_on_it_is_refused() -> None:
    table = full_table("w1")
    with pytest.raises(NotWaiting):
        decide(table.state, LeaveWaitingList("w2", T0))


def test_a_freed_seat_is_offered_to_the_first_player_waiting() -> None:
    table = full_table("w1", "w2")
    events = table.run(Leave("p2", table.now))
    offers = of_type(events, "SeatOffered")
    assert offers == [SeatOffered("w1", 2, table.now + 60_000, table.now)]
    assert table.state.offers == (("w1", 2, table.now + 60_000),)
    assert seat_offer_deadline_ms(table.state) == table.now + 60_000


def test_a_seat_freed_at_the_end_of_a_hand_is_offered() -> None:
    table = deal_table({1: "Kc Jc Ad", 2: "2c 3c 4d"}, config=TableConfig(seats=2, min_buy_in=1))
    table.run(JoinWaitingList("w1", table.now))
    table.run(Leave("p2", table.now))  # dealt in: leaves when the hand ends
    assert table.state.offers == ()
    events = play_passively(table)
    assert [e.player_id for e in of_type(events, "SeatOffered")] == ["w1"]
    assert table.state.offers[0][:2] == ("w1", 2)


def test_a_full_table_with_a_seat_on_offer_may_still_be_waited_for() -> None:
    table = full_table("w1")
    table.run(Leave("p2", table.now))
    table.run(JoinWaitingList("w2", table.now))  # seat 2 is held for w1: none is open to w2
    assert table.state.waiting == ("w1", "w2")


def test_others_are_refused_the_offered_seat() -> None:
    table = full_table("w1", "w2")
    table.run(Leave("p2", table.now))
    for player in ("w2", "stranger"):
        with pytest.raises(SeatOnOffer):
            decide(table.state, SitDown(player, 2, BUY_IN, table.now))


def test_seat_taken_by_the_offered_player() -> None:
    table = full_table("w1", "w2")
    table.run(Leave("p2", table.now))
    events = table.run(SitDown("w1", 2, BUY_IN, table.now))
    assert [type(e).__name__ for e in events] == ["WaitingListLeft", "PlayerSeated"]
    assert events[0].reason == "seated"
    assert table.state.waiting == ("w2",) and table.state.offers == ()
    assert table.state.seats[2].player_id == "w1"


def test_offer_expiry_passes_it_on() -> None:
    table = full_table("w1", "w2")
    table.run(Leave("p2", table.now))
    deadline = seat_offer_deadline_ms(table.state)
    assert deadline is not None
    with pytest.raises(OfferNotDue):
        decide(table.state, ExpireSeatOffers(deadline - 1))
    events = table.run(ExpireSeatOffers(deadline))
    assert [(type(e).__name__, e.player_id) for e in events] == [
        ("WaitingListLeft", "w1"), ("SeatOffered", "w2")]
    assert events[0].reason == "offer_expired"
    assert table.state.waiting == ("w2",)
    assert table.state.offers == (("w2", 2, deadline + 60_000),)


def test_offer_expiry_with_nobody_left_waiting_opens_the_seat() -> None:
    table = full_table("w1")
    table.run(Leave("p2", table.now))
    table.run(ExpireSeatOffers(seat_offer_deadline_ms(table.state) or 0))
    assert table.state.waiting == () and table.state.offers == ()
    table.run(SitDown("stranger", 2, BUY_IN, table.now))  # open to anyone now


def test_a_player_leaving_the_list_while_offered_passes_the_seat_on() -> None:
    table = full_table("w1", "w2", "w3")
    table.run(Leave("p2", table.now))
    table.now += 5_000
    events = table.run(LeaveWaitingList("w1", table.now))
    assert [(type(e).__name__, e.player_id) for e in events] == [
        ("WaitingListLeft", "w1"), ("SeatOffered", "w2")]
    assert table.state.offers == (("w2", 2, table.now + 60_000),)
    assert table.state.waiting == ("w2", "w3")


def test_a_player_waiting_behind_an_offer_may_leave_without_passing_anything_on() -> None:
    table = full_table("w1", "w2")
    table.run(Leave("p2", table.now))
    events = table.run(LeaveWaitingList("w2", table.now))
    assert [type(e).__name__ for e in events] == ["WaitingListLeft"]
    assert table.state.offers == (("w1", 2, table.now + 60_000),)


def test_two_freed_seats_are_offered_in_order() -> None:
    table = full_table("w1", "w2", "w3")
    table.run(Leave("p2", table.now))
    table.run(Leave("p1", table.now))
    assert [offer[:2] for offer in table.state.offers] == [("w1", 2), ("w2", 1)]
    # w1 sits elsewhere than offered?  seat 1 is w2's: refused; seat 2 is theirs.
    with pytest.raises(SeatOnOffer):
        decide(table.state, SitDown("w1", 1, BUY_IN, table.now))


def test_seat_offer_seconds_is_bounded() -> None:
    from stud_service.engine import InvalidConfig

    for seconds in (0, 3_601):
        with pytest.raises(InvalidConfig, match="seat_offer_seconds"):
            TableConfig(seat_offer_seconds=seconds).validate()
