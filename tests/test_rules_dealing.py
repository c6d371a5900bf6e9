"""RULES.md §2: antes, the deal and the community card."""

from __future__ import annotations

from engine_helpers import Table, deal_table, of_type, play_passively, stacked_deck

from stud_service.cards import FULL_DECK, card_str, parse_card
from stud_service.engine import AntePosted, CardDealt, SitOut, TableConfig


def test_every_player_posts_the_ante_and_a_short_stack_is_all_in_on_it() -> None:
    """§2: antes before any card; a player with less than the ante posts it all and is all-in."""
    table = deal_table({1: "Ah Kh 2c", 2: "Ad Kd 9s", 3: "Ac Kc 9h"}, stacks={1: 5000, 2: 30, 3: 5000})
    antes = of_type(table.log, "AntePosted")
    assert antes == [AntePosted(1, 1, 50, False), AntePosted(1, 2, 30, True), AntePosted(1, 3, 50, False)]
    assert table.log.index(antes[-1]) < table.log.index(of_type(table.log, "CardDealt")[0])


def test_no_ante_events_when_the_ante_is_zero() -> None:
    """§1: an ante of 0 is allowed."""
    table = deal_table({1: "Ah Kh 2c", 2: "Ad Kd 9s"}, config=TableConfig(min_buy_in=1, ante=0))
    assert not of_type(table.log, "AntePosted")


def test_third_street_two_down_then_door_up_one_at_a_time_from_the_lowest_seat() -> None:
    """§2: cards go out one at a time clockwise from seat 1's side: down, down, then the door card."""
    table = deal_table({2: "Ah Kh 2c", 5: "Ad Kd 9s", 7: "Ac Kc 9h"})
    dealt = [(e.seat, card_str(e.card), e.face_up) for e in of_type(table.log, "CardDealt")]
    assert dealt == [(2, "Ah", False), (5, "Ad", False), (7, "Ac", False),
                     (2, "Kh", False), (5, "Kd", False), (7, "Kc", False),
                     (2, "2c", True), (5, "9s", True), (7, "9h", True)]


def test_fourth_to_sixth_face_up_seventh_face_down() -> None:
    """§2: one card to each player still in on each later street; seventh street face down."""
    table = deal_table({1: "Ah Kh 2c 3c 4c 5c 6c", 2: "Ad Kd 9s 9h 8c 8d 7d"})
    play_passively(table)
    later = [(e.street, e.face_up) for e in of_type(table.log, "CardDealt") if e.street > 3]
    assert later == [(4, True)] * 2 + [(5, True)] * 2 + [(6, True)] * 2 + [(7, False)] * 2


def test_sitting_out_players_are_dealt_no_hand_and_pay_no_ante() -> None:
    """§7: a player sitting out is dealt no new hands; antes are not taken from them."""
    table = Table(TableConfig(min_buy_in=1), stacks={1: 1000, 2: 1000, 3: 1000})
    table.run(SitOut("p2", table.now))
    table.start(FULL_DECK)
    assert {e.seat for e in of_type(table.log, "AntePosted")} == {1, 3}
    assert {e.seat for e in of_type(table.log, "CardDealt")} == {1, 3}
    assert table.state.seats[2].stack == 1000


def test_eight_players_to_seventh_street_share_a_community_card() -> None:
    """§2: with eight players on seventh street 48 cards are out and 4 remain, so seventh street is
    one community card, face up, that every player uses."""
    community = parse_card("As")
    others = [code for code in FULL_DECK if code != community]
    own = {seat: [] for seat in range(1, 9)}
    # Seat 1 holds three aces; the community ace makes four.  Door cards: seat 8 gets the 2c.
    own[1] = [parse_card(c) for c in ("Ac", "Ad", "Ah")]
    pool = [c for c in others if c not in own[1] and c != parse_card("2c")]
    own[8] = [pool.pop(0), pool.pop(0), parse_card("2c")]
    for seat in range(2, 8):
        own[seat] = [pool.pop(0), pool.pop(0), pool.pop()]  # doors from the top: all high cards
    for seat in range(1, 9):
        own[seat] += [pool.pop(0) for _ in range(3)]
    order = [own[seat][i] for i in range(3) for seat in range(1, 9)]
    order += [own[seat][i] for i in range(3, 6) for seat in range(1, 9)]
    table = Table(TableConfig(min_buy_in=1), stacks={seat: 10_000 for seat in range(1, 9)})
    table.start(stacked_deck(order + [community]))
    events = play_passively(table)
    seventh = [e for e in of_type(table.log, "CardDealt") if e.street == 7]
    assert seventh == [CardDealt(1, 7, None, community, True)]
    ended = events[-1]
    assert ended.pots[0]["awards"] == ({"seat": 1, "amount": 8 * 50 + 8 * 100, "half": "high",
                                         "hand": "four of a kind, aces"},)
