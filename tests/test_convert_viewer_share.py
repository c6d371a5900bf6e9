"""A player's view is the observers' view of the same version plus that player's own share (DESIGN.md
"Hidden information"): built from a shared observers' view, it must equal the view built on its own,
show the player's down cards and nobody else's, and leave the shared view as it was."""

from __future__ import annotations

from engine_helpers import deal_table, options

from stud_service.engine import SitOut, event_to_json, to_act
from stud_service.server.api.convert import view_to_proto
from stud_service.server.proto_gen import table_pb2

HANDS = {1: "Kc Kd Kh Qs Jc 9d 9h", 2: "Ac 2d 4h 7s 5c Qd Jh", 3: "2h 3s 6h 8d Td Js Ts"}


def down_cards_by_seat(view: table_pb2.TableView) -> dict[int, list[int]]:
    return {seat.seat: list(seat.down_cards) for seat in view.seats if seat.down_cards}


def check_every_viewer(table, last_result=None) -> None:
    state, version = table.state, len(table.log)
    public = view_to_proto("t1", state, version, None, last_result, "commitment")
    public_bytes = public.SerializeToString(deterministic=True)
    viewers = [table.pid(seat) for seat in sorted(state.seats)] + ["outsider"]
    for viewer in viewers:
        shared = view_to_proto("t1", state, version, viewer, public=public)
        alone = view_to_proto("t1", state, version, viewer, last_result, "commitment")
        assert shared == alone
        own_seat = next((seat for seat, seated in state.seats.items() if seated.player_id == viewer), 0)
        assert shared.viewer_seat == own_seat
        if state.hand is not None:  # only the viewer's own down cards are there, all of them
            mine = state.hand.players.get(own_seat)
            assert down_cards_by_seat(shared) == ({own_seat: list(mine.down)} if mine else {})
            hidden = {seat.seat: seat.hidden_down_cards for seat in shared.seats if seat.in_hand}
            assert hidden == {seat: 0 if seat == own_seat else len(player.down)
                              for seat, player in state.hand.players.items()}
            assert bool(shared.legal_actions) == (own_seat != 0 and to_act(state) == own_seat)
    assert public.SerializeToString(deterministic=True) == public_bytes  # the shared view is untouched
    assert public.viewer_seat == 0 and not public.legal_actions
    if state.hand is not None:
        assert down_cards_by_seat(public) == {}


def test_each_players_view_is_the_observers_view_plus_their_own_share() -> None:
    table = deal_table(HANDS)
    check_every_viewer(table)
    for _ in range(40):  # through the streets: more down cards, bets, the turn moving
        seat = to_act(table.state)
        if seat is None:
            break
        legal = options(table, seat)
        kind = next(kind for kind in ("BRING_IN", "CHECK", "CALL") if kind in legal)
        table.act(seat, kind, legal[kind][0] if legal[kind] else None)
        check_every_viewer(table)
    assert table.state.hand is None  # the hand ended: shown hands are everyone's
    ended = next(event for event in reversed(table.log) if type(event).__name__ == "HandEnded")
    check_every_viewer(table, event_to_json(ended))


def test_a_sitting_out_players_share_is_their_seat_only() -> None:
    table = deal_table({1: HANDS[1], 2: HANDS[2]})
    table.run(SitOut(table.pid(2), table.now))
    check_every_viewer(table)


def test_an_auditors_replay_shows_every_card_and_a_players_share_adds_none() -> None:
    table = deal_table({1: HANDS[1], 2: HANDS[2]})
    state, version = table.state, len(table.log)
    every = view_to_proto("t1", state, version, None, every_card=True)
    dealt = state.hand.players.items()
    assert down_cards_by_seat(every) == {seat: list(player.down) for seat, player in dealt}
    as_player = view_to_proto("t1", state, version, table.pid(1), every_card=True)
    assert down_cards_by_seat(as_player) == down_cards_by_seat(every)
    assert as_player.viewer_seat == 1
