"""What a viewer sees of an earlier hand after its seat changed players (DESIGN.md "Hidden information":
a down card is shown only to the player it was dealt to, decided by player id as of that hand)."""

from __future__ import annotations

from engine_helpers import COMMITMENT, Table, deal_table, of_type, play_passively, stacked_deck

from stud_service.engine import (
    CardDealt,
    HandStarted,
    Leave,
    SitDown,
    StartHand,
    TableConfig,
    Viewer,
    view_event,
)

HANDS = {1: "Ah Kh 2c 3c 4c 5c 6c", 2: "Ad Kd 9s 9h 8c 8d 7d"}


def _seat_two_changes_players():
    """Hand 1 dealt to p1 (seat 1) and p2 (seat 2); then p2 leaves and newcomer takes seat 2."""
    table = deal_table(HANDS)
    play_passively(table)
    started = of_type(table.log, "HandStarted")[0]
    table.run(Leave("p2", table.now))
    table.run(SitDown("newcomer", 2, 10_000, table.now))
    assert table.state.seats[2].player_id == "newcomer"
    downs = [e for e in table.log if isinstance(e, CardDealt) and not e.face_up and e.seat == 2]
    assert isinstance(started, HandStarted) and downs
    return table, started, downs


def test_a_new_occupant_of_a_seat_never_sees_the_old_occupants_down_cards() -> None:
    table, started, downs = _seat_two_changes_players()
    dealt_in = {seat: player for seat, player, *_ in started.seats}
    for event in downs:
        for hand_seats in (None, dealt_in):
            shown = view_event(table.state, event, Viewer.seat("newcomer"), hand_seats)
            assert shown["card"] is None and shown["hidden"] is True


def test_the_player_dealt_into_the_seat_still_sees_their_cards_when_the_hand_seating_is_given() -> None:
    table, started, downs = _seat_two_changes_players()
    dealt_in = {seat: player for seat, player, *_ in started.seats}
    for event in downs:
        assert view_event(table.state, event, Viewer.seat("p2"), dealt_in)["card"] == event.card
        # Without the hand's seating, nothing attributes the card to p2: hidden, never guessed.
        assert view_event(table.state, event, Viewer.seat("p2"))["card"] is None


def test_the_running_hand_goes_by_who_was_dealt_in_not_by_who_sits_now() -> None:
    table = deal_table(HANDS)
    down = next(e for e in table.log if isinstance(e, CardDealt) and not e.face_up and e.seat == 1)
    assert view_event(table.state, down, Viewer.seat("p1"))["card"] == down.card
    assert view_event(table.state, down, Viewer.seat("p2"))["card"] is None


def test_the_server_seed_of_a_running_hand_is_shown_to_no_one() -> None:
    """The seed fixes the deck: before the hand ends it stays in the log (HandEnded reveals it)."""
    table = Table(TableConfig(min_buy_in=1), stacks={1: 10_000, 2: 10_000})
    extra = {"server_seed": "ab" * 32, "client_seeds": {}}
    (started,) = of_type(table.run(StartHand(stacked_deck([]), COMMITMENT, table.now, extra)), "HandStarted")
    for viewer in (Viewer.seat("p1"), Viewer.observer(), Viewer.auditor()):
        shown = view_event(table.state, started, viewer)
        assert shown["deck"] is None and shown["extra"] == {"client_seeds": {}}
    play_passively(table)
    assert view_event(table.state, started, Viewer.auditor())["extra"] == extra
