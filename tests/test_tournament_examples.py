"""Worked examples of RULES.md §11: two players out in one hand (different and equal chips), the bubble
with hand for hand at three tables, a table broken with its players drawn into the others, late
registration and re-entry.  Hands end with the chips each example chooses (tests/tournament_helpers.py)."""

from __future__ import annotations

from dataclasses import replace

import pytest
from tournament_helpers import T0, Tourney, of_type

from stud_service.tournaments import (
    AdvanceLevel,
    Level,
    ReEnter,
    Register,
    StartTournament,
    TournamentConfig,
    TournamentError,
    TournamentKind,
    decide,
    replay,
)
from stud_service.tournaments.draws import Draw
from stud_service.tournaments.rules.balancing import break_table
from stud_service.tournaments.state import players_left

SIX = TournamentConfig(levels=(Level(5, 10, 20, 40, 10),), starting_stack=1_000, max_entrants=6,
                       seats_per_table=6, buy_in=1_010, fee=90)
PLAYERS = ("ann", "bob", "cy", "dee", "eve", "fay")


def six_handed() -> Tourney:
    tourney = Tourney(SIX)
    tourney.register(*PLAYERS)
    return tourney


# --- two players out in the same hand --------------------------------------------------------------------

def test_two_players_out_in_one_hand_with_different_chips_finish_in_the_order_of_those_chips() -> None:
    """§11 Eliminations and places: more chips at the start of the hand place higher."""
    tourney = six_handed()
    tourney.shift("spring-t1", "ann", "bob", 400)  # ann 600, cy 1,000
    events = tourney.hand("spring-t1", {"ann": 0, "cy": 0, "bob": 1_400 + 1_600})
    assert of_type(events, "PlayersEliminated")[0].players == (("cy", 1_000), ("ann", 600))
    (fixed,) = of_type(events, "PlacesFixed")
    assert fixed.places == (("cy", 5, 5, 0), ("ann", 6, 6, 0))


def test_two_players_out_in_one_hand_with_equal_chips_share_their_places() -> None:
    """§11: players who started the hand with equal chips share those places."""
    tourney = six_handed()
    events = tourney.hand("spring-t1", {"ann": 0, "cy": 0, "bob": 3_000})
    (fixed,) = of_type(events, "PlacesFixed")
    assert fixed.places == (("ann", 5, 6, 0), ("cy", 5, 6, 0))
    assert tourney.state.places["ann"] == tourney.state.places["cy"] == (5, 6)


def test_players_sharing_paid_places_divide_their_prizes_and_the_odd_unit_is_drawn() -> None:
    """§11 Payouts: shared places add their prizes and divide them equally; the unit left over goes by a
    committed random draw among them.  Six players pay two places, 65/35 of 6,060: 3,939 and 2,121."""
    tourney = six_handed()
    assert tourney.state.prizes == (3_939, 2_121)
    for loser in ("dee", "eve", "fay"):
        tourney.bust("spring-t1", [loser], "cy")
    events = tourney.hand("spring-t1", {"ann": 0, "bob": 0, "cy": 6_000})  # equal 1,000 each at its start
    revealed = of_type(events, "DrawRevealed")
    fixed = of_type(events, "PlacesFixed")[0].places
    places = {player: (place, last, prize) for player, place, last, prize in fixed}
    assert {player: place[:2] for player, place in places.items()} == {"ann": (2, 3), "bob": (2, 3)}
    assert sorted(prize for _, _, prize in places.values()) == [1_060, 1_061]  # 2,121 + 0 shared
    lucky = Draw(bytes.fromhex(revealed[0].seed)).shuffled(["ann", "bob"])[0]  # an auditor's recomputation
    assert places[lucky][2] == 1_061
    assert tourney.state.winner == "cy" and tourney.state.prizes_won["cy"] == 3_939
    assert sum(tourney.state.prizes_won.values()) == 6_060


# --- the bubble with hand for hand at three tables --------------------------------------------------------

TEN_PAID = (2_500, 1_800, 1_300, 1_000, 800, 700, 600, 500, 400, 400)
BUBBLE = TournamentConfig(levels=(Level(5, 10, 20, 40, 10),), starting_stack=1_000, max_entrants=20,
                          min_entrants=10, seats_per_table=4, buy_in=100, fee=10, payouts=TEN_PAID)


def down_to(tourney: Tourney, players: int) -> None:
    """Bust players one hand at a time at the longest table until ``players`` are left."""
    while players_left(tourney.state) > players:
        table = max(sorted(tourney.state.tables), key=lambda t: len(tourney.state.tables[t]))
        loser, winner = tourney.players_at(table)[:2]
        tourney.bust(table, [loser], winner)


def test_the_bubble_plays_hand_for_hand_at_three_tables() -> None:
    """§11 Hand for hand: when the next elimination would reach the paid places, each table deals its next
    hand only when every table has finished its current one; players out at different tables in one
    round count as out in one hand, in the order of their chips at its start."""
    tourney = Tourney(BUBBLE)
    tourney.register(*(f"p{n:02}" for n in range(20)))
    down_to(tourney, 12)
    assert sorted(len(seats) for seats in tourney.state.tables.values()) == [4, 4, 4]
    t1, t2, t3 = sorted(tourney.state.tables)
    tourney.deal(t2)
    tourney.deal(t3)
    loser, winner = tourney.players_at(t1)[:2]
    events = tourney.bust(t1, [loser], winner)  # 11 left: the bubble, 10 are paid
    assert of_type(events, "HandForHandStarted")[0].players_left == 11
    with pytest.raises(TournamentError) as held:
        tourney.deal(t1)  # t2 and t3 have not finished their hands
    assert held.value.reason == "TABLE_ON_HOLD" and held.value.metadata == {"hold": "hand_for_hand"}
    tourney.end(t2)
    tourney.end(t3)
    # The round: every table deals once; two players go out, at t1 and at t2.
    a, a_winner = tourney.players_at(t1)[:2]
    b, b_winner = tourney.players_at(t2)[:2]
    tourney.hand(t3)  # t3 plays its hand of the round first: nobody out
    assert tourney.state.round_dealt == frozenset({t3})
    tourney.deal(t1)
    tourney.deal(t2)
    chips_a, chips_b = tourney.state.chips[a], tourney.state.chips[b]
    assert chips_a != chips_b
    events = tourney.end(t1, {a: 0, a_winner: tourney.state.chips[a_winner] + chips_a})
    assert not of_type(events, "PlacesFixed")  # t2 is still playing its hand of the round
    with pytest.raises(TournamentError):
        tourney.deal(t1)
    events = tourney.end(t2, {b: 0, b_winner: tourney.state.chips[b_winner] + chips_b})
    (fixed,) = of_type(events, "PlacesFixed")
    richer, poorer = (a, b) if chips_a > chips_b else (b, a)
    assert fixed.places == ((richer, 10, 10, 80), (poorer, 11, 11, 0))  # 4% of the pool of 2,000
    assert of_type(events, "HandForHandEnded")[0].players_left == 9
    assert tourney.deal(t1)  # hand for hand is over: tables deal as they please


def test_players_out_at_two_tables_in_the_bubble_round_with_equal_chips_share_the_places() -> None:
    tourney = Tourney(BUBBLE)
    tourney.register(*(f"p{n:02}" for n in range(20)))
    down_to(tourney, 11)
    assert tourney.state.hand_for_hand
    tables = sorted(tourney.state.tables)
    losers = {}
    for table in tables:
        tourney.deal(table)
    for table in tables[:2]:
        candidates = [p for p in tourney.players_at(table) if tourney.state.chips[p] == 1_000]
        losers[table] = candidates[0]
    for table in tables:
        if table in losers:
            loser = losers[table]
            winner = next(p for p in tourney.players_at(table) if p != loser)
            tourney.end(table, {loser: 0, winner: tourney.state.chips[winner] + 1_000})
        else:
            tourney.end(table)
    fixed = of_type(tourney.log, "PlacesFixed")[-1]
    assert {(place, last, prize) for _, place, last, prize in fixed.places} == {(10, 11, 40)}  # 80 + 0 shared


# --- a table broken --------------------------------------------------------------------------------------

def test_a_table_is_broken_and_its_players_drawn_into_the_empty_seats_of_the_others() -> None:
    """§11 Balancing: whenever the players left fit in one table fewer, the table with the fewest players is
    broken and its players are drawn into the empty seats of the others."""
    config = replace(SIX, max_entrants=15, buy_in=100, fee=10)
    tourney = Tourney(config)
    tourney.register(*(f"p{n:02}" for n in range(15)))
    assert sorted(len(seats) for seats in tourney.state.tables.values()) == [5, 5, 5]
    t3 = "spring-t3"
    for _ in range(2):
        loser, winner = tourney.players_at(t3)[:2]
        tourney.bust(t3, [loser], winner)
    assert len(tourney.state.tables[t3]) == 3 and players_left(tourney.state) == 13
    loser, winner = tourney.players_at(t3)[:2]
    before = len(tourney.log)
    events = tourney.bust(t3, [loser], winner)  # 12 left: they fit in two tables of six
    moved = of_type(events, "PlayerMoved")
    names = [type(event).__name__ for event in events]
    assert names[-4:] == ["PlayerMoved", "PlayerMoved", "TableBroken", "DrawCommitted"]
    assert {move.from_table for move in moved} == {t3} and of_type(events, "TableBroken")[0].table_id == t3
    assert sorted(len(seats) for seats in tourney.state.tables.values()) == [6, 6]
    assert all(tourney.state.chips[move.player_id] == move.chips for move in moved)
    # An auditor recomputes the moves from the state before them and the revealed seed.
    revealed = of_type(events, "DrawRevealed")[0]
    at_reveal = replay(tourney.log[:before + events.index(revealed)])
    recomputed = break_table(t3, at_reveal.tables, 6, Draw(bytes.fromhex(revealed.seed)))
    assert recomputed == [(move.player_id, move.to_table, move.seat) for move in moved]


def test_balancing_moves_a_player_from_the_longest_table_into_the_shortest() -> None:
    """§11 Balancing: a table two or more players above the shortest gives one, drawn among its players."""
    config = replace(SIX, max_entrants=15, buy_in=100, fee=10)
    tourney = Tourney(config)
    tourney.register(*(f"p{n:02}" for n in range(15)))
    for _ in range(2):
        loser, winner = tourney.players_at("spring-t3")[:2]
        tourney.bust("spring-t3", [loser], winner)
    assert [len(tourney.state.tables[t]) for t in ("spring-t1", "spring-t2", "spring-t3")] == [5, 5, 3]
    events = tourney.hand("spring-t1")
    (moved,) = of_type(events, "PlayerMoved")
    assert (moved.from_table, moved.to_table) == ("spring-t1", "spring-t3")
    assert [len(tourney.state.tables[t]) for t in ("spring-t1", "spring-t2", "spring-t3")] == [4, 5, 4]
    assert not of_type(tourney.hand("spring-t1"), "PlayerMoved")  # t1 is within one now


# --- late registration and re-entry ------------------------------------------------------------------------

LATE = TournamentConfig(
    kind=TournamentKind.SCHEDULED, start_ms=T0 + 60_000,
    levels=(Level(5, 10, 20, 40, 10), Level(10, 20, 40, 80, 10), Level(20, 40, 80, 160, 10)),
    starting_stack=1_000, min_entrants=3, max_entrants=20, seats_per_table=4, late_registration_levels=2,
    re_entries=1, re_entry_until_level=2, buy_in=100, fee=10)


def test_late_registration_and_re_entry() -> None:
    """§11 Entry: late registration (while the level is at most late_registration_levels) seats the player
    with the starting stack; a re-entry adds a full buy-in to the pool.  Entries close after their last
    level: the pool and prizes are fixed then, and players out before are placed."""
    tourney = Tourney(LATE)
    tourney.register("ann", "bob", "cy", "dee", "eve")
    tourney.run(StartTournament(T0 + 60_000, tourney.next_draw()))
    assert sorted(len(seats) for seats in tourney.state.tables.values()) == [2, 3]
    shortest = min(tourney.state.tables, key=lambda t: len(tourney.state.tables[t]))
    (seated,) = of_type(tourney.register("late"), "PlayerSeated")
    assert (seated.table_id, seated.chips) == (shortest, 1_000)
    table, _seat = tourney.state.seat_of["ann"]
    other = next(p for p in tourney.players_at(table) if p != "ann")
    events = tourney.bust(table, ["ann"], other)
    # Out while entries are open: placed when they close.
    assert of_type(events, "PlayersEliminated") and not of_type(events, "PlacesFixed")
    events = tourney.run(ReEnter("ann", T0, tourney.next_draw()))
    assert of_type(events, "PlayerReEntered")[0].entry == 2
    assert of_type(events, "PlayerSeated")[0].chips == 1_000
    assert tourney.state.unplaced == ()  # back in: the earlier elimination gets no place
    table, _seat = tourney.state.seat_of["ann"]
    other = next(p for p in tourney.players_at(table) if p != "ann")
    tourney.bust(table, ["ann"], other)
    with pytest.raises(TournamentError) as refused:
        decide(tourney.state, ReEnter("ann", T0, tourney.next_draw()))
    assert refused.value.reason == "RE_ENTRY_NOT_ALLOWED"
    tourney.run(AdvanceLevel(T0 + 60_000 + 600_000, tourney.next_draw()))  # level 2: still open
    assert tourney.state.prizes is None
    events = tourney.run(AdvanceLevel(T0 + 60_000 + 1_200_000, tourney.next_draw()))  # level 3: closed
    (prizes,) = of_type(events, "PrizesFixed")
    assert (prizes.entries, prizes.players, prizes.pool) == (7, 6, 700)
    assert of_type(events, "PlacesFixed")[0].places == (("ann", 6, 6, 0),)
    with pytest.raises(TournamentError) as refused:
        decide(tourney.state, Register("latest", T0, tourney.next_draw()))
    assert refused.value.reason == "REGISTRATION_CLOSED"


def test_a_late_entrant_opens_a_table_when_every_table_is_full() -> None:
    tourney = Tourney(replace(LATE, seats_per_table=2))
    tourney.register("ann", "bob", "cy", "dee")
    tourney.run(StartTournament(T0 + 60_000, tourney.next_draw()))
    events = tourney.register("late")
    assert of_type(events, "TableOpened")[0].table_id == "spring-t3"
    assert of_type(events, "PlayerSeated")[0].table_id == "spring-t3"


def test_a_table_broken_in_the_bubble_round_still_plays_its_hand_of_the_round() -> None:
    """§11 Hand for hand: a player out at a table that is then broken waits for the round's other hands;
    the round ends when every table that can deal has dealt its hand in it (found by a property test: the
    broken table once left the round empty, ending hand for hand with that player never placed)."""
    tourney = Tourney(replace(SIX, max_entrants=15, seats_per_table=3, buy_in=100, fee=10))
    tourney.register(*(f"p{n:02}" for n in range(15)))
    down_to(tourney, 4)  # three places are paid
    assert tourney.state.hand_for_hand and sorted(map(len, tourney.state.tables.values())) == [2, 2]
    first, second = sorted(tourney.state.tables)
    loser, winner = tourney.players_at(first)
    events = tourney.bust(first, [loser], winner)  # the first table's hand of the round
    assert of_type(events, "TableBroken") and not of_type(events, "PlacesFixed")
    assert not of_type(events, "HandForHandEnded")
    events = tourney.hand(second)  # the round's other hand, the moved player not in it
    assert of_type(events, "PlacesFixed")[0].places == ((loser, 4, 4, 0),)
    assert of_type(events, "HandForHandEnded")
