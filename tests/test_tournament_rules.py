"""RULES.md §11, rule by rule: each rule function of ``stud_service.tournaments.rules`` under the name of its
rule, and the committed draws they read."""

from __future__ import annotations

import hashlib
from collections import Counter

import pytest
from hypothesis import given
from hypothesis import strategies as st

from stud_service.tournaments.draws import Draw, draw_secret, is_commitment, opens, seed_of
from stud_service.tournaments.rules.balancing import (
    break_table,
    breaks_table,
    fits_in_one_table_fewer,
    moves_a_player,
    player_to_move,
)
from stud_service.tournaments.rules.cancellation import cancellation_payouts, largest_remainder
from stud_service.tournaments.rules.hand_for_hand import (
    hand_for_hand_due,
    hand_for_hand_over,
    hand_for_hand_round_over,
    may_deal_hand_for_hand,
)
from stud_service.tournaments.rules.levels import (
    late_registration_open,
    level_ends_ms,
    level_for_next_hand,
    level_number,
    re_entry_open,
)
from stud_service.tournaments.rules.payouts import (
    default_payout_table,
    paid_places,
    prizes_by_place,
    shared_place_prizes,
)
from stud_service.tournaments.rules.places import is_eliminated, places_for_hand, places_for_hands
from stud_service.tournaments.rules.seating import (
    draw_empty_seat,
    empty_seats_of_shortest,
    seating_draw,
    table_sizes,
    tables_needed,
)
from stud_service.tournaments.structure import DEFAULT_LEVELS, Level


def seed(n: int) -> bytes:
    return hashlib.sha256(f"seed {n}".encode()).digest()


def draw(n: int = 0) -> Draw:
    return Draw(seed(n))


# --- the draws ----------------------------------------------------------------------------------------

def test_a_draw_is_a_function_of_its_committed_seed() -> None:
    """§11 Seating: drawn by a draw committed before it is revealed and verifiable afterwards."""
    assert [draw(1).below(1000) for _ in range(3)] == [draw(1).below(1000)] * 3
    assert draw(1).shuffled(range(20)) != draw(2).shuffled(range(20))
    secret = draw_secret(seed(1))
    assert seed_of(secret) == seed(1) and opens(seed(1), hashlib.sha256(seed(1)).hexdigest())
    assert not opens(seed(2), hashlib.sha256(seed(1)).hexdigest())
    assert is_commitment(hashlib.sha256(b"").hexdigest()) and not is_commitment("AB" * 32)


def test_a_draw_below_n_is_uniform() -> None:
    stream = draw(3)
    counts = Counter(stream.below(6) for _ in range(6_000))
    assert set(counts) == set(range(6)) and all(800 < count < 1200 for count in counts.values())


# --- seating -----------------------------------------------------------------------------------------

def test_seating_tables_are_filled_as_evenly_as_possible() -> None:
    """§11 Seating: tables are filled as evenly as possible."""
    assert tables_needed(17, 8) == 3 and table_sizes(17, 8) == [6, 6, 5]
    assert table_sizes(16, 8) == [8, 8] and table_sizes(9, 8) == [5, 4] and table_sizes(3, 2) == [2, 1]
    assert table_sizes(1000, 8) == [8] * 125


@given(st.integers(2, 200), st.integers(2, 8), st.integers(0, 10**6))
def test_seating_draw_seats_every_entrant_once_at_random(players: int, seats: int, n: int) -> None:
    """§11 Seating: every entrant's table and seat are drawn at random; tables as even as possible."""
    names = [f"p{i}" for i in range(players)]
    table_ids = [f"t{i}" for i in range(1, tables_needed(players, seats) + 1)]
    seating = seating_draw(names, table_ids, seats, draw(n))
    assert sorted(player for player, _, _ in seating) == sorted(names)
    assert len({(table, seat) for _, table, seat in seating}) == players
    assert all(1 <= seat <= seats for _, _, seat in seating)
    sizes = Counter(table for _, table, _ in seating)
    assert max(sizes.values()) - min(sizes.values()) <= 1 and set(sizes) == set(table_ids)
    # A function of the entrants, not of the order they registered in:
    assert seating == seating_draw(list(reversed(names)), table_ids, seats, draw(n))


def test_seating_draw_gives_every_player_every_table_and_seat_over_many_seeds() -> None:
    """§11 Seating: random: over many seeds each player sits at each table and in each seat."""
    names = [f"p{i}" for i in range(10)]
    seen = Counter()
    for n in range(400):
        for player, table, seat in seating_draw(names, ["t1", "t2"], 8, draw(n)):
            if player == "p0":
                seen[(table, seat)] += 1
    assert len(seen) == 16


def test_entry_seat_is_drawn_among_the_empty_seats_of_the_shortest_tables() -> None:
    """§11 Entry and Balancing: a joining player takes an empty seat of the shortest table."""
    tables = {"t1": {1: "a", 2: "b", 3: "c"}, "t2": {1: "d", 5: "e"}, "t3": {2: "f", 3: "g"}}
    assert empty_seats_of_shortest(tables, 4) == [("t2", 2), ("t2", 3), ("t2", 4), ("t3", 1), ("t3", 4)]
    drawn = {draw_empty_seat(tables, 4, draw(n)) for n in range(200)}
    assert drawn == set(empty_seats_of_shortest(tables, 4))
    assert draw_empty_seat({"t1": {1: "a", 2: "b"}}, 2, draw()) is None  # all full: a table opens


# --- balancing -----------------------------------------------------------------------------------------

def test_balancing_breaks_the_table_with_the_fewest_players_when_the_rest_fit_in_one_table_fewer() -> None:
    """§11 Balancing: whenever the players left fit in one table fewer, the table with the fewest players
    is broken."""
    assert fits_in_one_table_fewer(16, 3, 8) and not fits_in_one_table_fewer(17, 3, 8)
    assert not fits_in_one_table_fewer(5, 1, 8)
    counts = {"t1": 6, "t2": 5, "t3": 5}
    assert breaks_table(counts, "t2", 8) and breaks_table(counts, "t3", 8)
    assert not breaks_table(counts, "t1", 8)  # not the fewest: it waits for a table that is
    assert not breaks_table({"t1": 6, "t2": 6, "t3": 5}, "t3", 8)  # 17 do not fit in two tables


def test_balancing_moves_one_when_a_table_has_two_or_more_more_than_the_shortest() -> None:
    """§11 Balancing: when a table has two or more players more than the shortest, the longest gives one."""
    assert moves_a_player({"t1": 8, "t2": 6}, "t1")
    assert not moves_a_player({"t1": 8, "t2": 7}, "t1")
    assert not moves_a_player({"t1": 7, "t2": 8, "t3": 5}, "t1")  # the longest (t2) gives, between its hands
    assert moves_a_player({"t1": 8, "t2": 8, "t3": 6}, "t2")


def test_balancing_player_to_move_is_drawn_among_the_players_of_the_longest_table() -> None:
    """§11 Balancing: the player to move is drawn at random among the players of the longest table."""
    players = ["a", "b", "c", "d"]
    assert {player_to_move(players, draw(n)) for n in range(100)} == set(players)
    assert player_to_move(players, draw(7)) == player_to_move(list(reversed(players)), draw(7))


def test_balancing_a_broken_tables_players_are_drawn_into_empty_seats_of_the_others() -> None:
    """§11 Balancing: its players are drawn into the empty seats of the others (which stay within one)."""
    tables = {"t1": {1: "a", 2: "b", 3: "c"}, "t2": {1: "d", 2: "e", 3: "f", 4: "g"},
              "t3": {1: "h", 2: "i", 3: "j"}}
    moves = break_table("t1", tables, 6, draw(4))
    assert sorted(player for player, _, _ in moves) == ["a", "b", "c"]
    after = {table: dict(seats) for table, seats in tables.items() if table != "t1"}
    for player, table, seat in moves:
        assert seat not in after[table]
        after[table][seat] = player
    assert sorted(len(seats) for seats in after.values()) == [5, 5]
    firsts = {tuple(break_table("t1", tables, 6, draw(n))[0][:2]) for n in range(100)}
    assert firsts == {("a", "t3"), ("b", "t3"), ("c", "t3")}  # t3 is the shorter of the others


# --- eliminations and places ---------------------------------------------------------------------------

def test_eliminations_a_player_with_no_chips_after_a_hand_is_out() -> None:
    """§11 Eliminations: a player with no chips after a hand is out."""
    assert is_eliminated(0) and not is_eliminated(1)


def test_places_players_out_in_the_same_hand_finish_in_the_order_of_their_chips_at_its_start() -> None:
    """§11 Eliminations and places: more chips at the start of the hand place higher."""
    assert places_for_hand([("a", 300), ("b", 900)], players_left=4) == [("b", 5, 5), ("a", 6, 6)]


def test_places_players_who_started_the_hand_with_equal_chips_share_those_places() -> None:
    """§11 Eliminations and places: equal chips at the start share those places."""
    out = [("a", 500), ("b", 500), ("c", 200)]
    assert places_for_hand(out, players_left=2) == [("a", 3, 4), ("b", 3, 4), ("c", 5, 5)]


def test_places_of_several_hands_a_later_hand_places_above_an_earlier_one() -> None:
    """§11 Eliminations and places, for players out while entries were open (placed when they close)."""
    assert places_for_hands([[("a", 100)], [("b", 50), ("c", 80)]], players_left=3) == [
        ("c", 4, 4), ("b", 5, 5), ("a", 6, 6)]


# --- hand for hand -------------------------------------------------------------------------------------

def test_hand_for_hand_when_the_next_elimination_would_reach_the_paid_places() -> None:
    """§11 Hand for hand: at the bubble (one player more than the places paid), at more than one table."""
    assert hand_for_hand_due(players_left=10, paid_places=9, tables=2)
    assert not hand_for_hand_due(players_left=11, paid_places=9, tables=2)
    assert not hand_for_hand_due(players_left=10, paid_places=9, tables=1)
    assert hand_for_hand_over(players_left=9, paid_places=9, tables=2)
    assert hand_for_hand_over(players_left=10, paid_places=9, tables=1)
    assert not hand_for_hand_over(players_left=10, paid_places=9, tables=2)


def test_hand_for_hand_each_table_deals_only_when_every_table_has_finished_its_current_hand() -> None:
    """§11 Hand for hand: each table deals its next hand only when every table has finished its current
    one."""
    assert not may_deal_hand_for_hand("t1", dealt_this_round=(), in_hand=("t2",))  # t2 finishes first
    assert may_deal_hand_for_hand("t1", dealt_this_round=(), in_hand=())
    assert may_deal_hand_for_hand("t2", dealt_this_round=("t1",), in_hand=("t1",))  # the round has begun
    assert not may_deal_hand_for_hand("t1", dealt_this_round=("t1",), in_hand=())  # once a round
    assert hand_for_hand_round_over(can_deal=("t1", "t2"), dealt_this_round=("t1", "t2"), in_hand=())
    assert not hand_for_hand_round_over(can_deal=("t1", "t2"), dealt_this_round=("t1",), in_hand=())
    assert not hand_for_hand_round_over(can_deal=("t1", "t2"), dealt_this_round=("t1", "t2"), in_hand=("t2",))


# --- payouts -------------------------------------------------------------------------------------------

def test_payouts_default_table_scales_with_the_players() -> None:
    """§11 Payouts: the default table (one paid for 2-5, two for 6-8, three for 9-17, four for 18-26, then
    15%)."""
    players = (2, 5, 6, 8, 9, 17, 18, 26, 27, 100, 1000)
    assert [paid_places(n) for n in players] == [1, 1, 2, 2, 3, 3, 4, 4, 5, 15, 150]
    assert default_payout_table(6) == (6_500, 3_500) and default_payout_table(9) == (5_000, 3_000, 2_000)
    previous = 0
    for players in range(2, 3001):
        table = default_payout_table(players)
        assert sum(table) == 10_000 and len(table) <= players and len(table) >= previous
        assert all(share > 0 for share in table) and list(table) == sorted(table, reverse=True)
        previous = len(table)


def test_payouts_pool_times_share_rounded_down_leftover_units_to_the_best_places() -> None:
    """§11 Payouts: pool x share / 10,000 rounded down; the units left over go one each to the best places."""
    assert prizes_by_place(1_001, (5_000, 3_000, 2_000)) == (501, 300, 200)
    assert prizes_by_place(1_003, (5_000, 3_000, 2_000)) == (502, 301, 200)  # 501.5, 300.9, 200.6
    assert prizes_by_place(0, (10_000,)) == (0,)


@given(st.integers(0, 10**12), st.integers(2, 3000))
def test_payouts_add_up_to_the_pool_exactly(pool: int, players: int) -> None:
    prizes = prizes_by_place(pool, default_payout_table(players))
    assert sum(prizes) == pool and list(prizes) == sorted(prizes, reverse=True)


def test_payouts_shared_places_add_their_prizes_and_divide_them_odd_units_by_a_draw() -> None:
    """§11 Payouts: players who share places add those places' prizes and divide them equally, rounding
    down; the units left over go one each, by a committed random draw among them."""
    prizes = (500, 300, 201)
    shares = shared_place_prizes(prizes, 2, 3, ["a", "b"], draw(1))
    assert sorted(shares.values()) == [250, 251] and sum(shares.values()) == 501
    winners = {max(shared_place_prizes(prizes, 2, 3, ["a", "b"], draw(n)).items(), key=lambda kv: kv[1])[0]
               for n in range(50)}
    assert winners == {"a", "b"}
    assert shared_place_prizes(prizes, 1, 2, ["a", "b"], None) == {"a": 400, "b": 400}  # no odd unit, no draw
    beyond_the_table = shared_place_prizes(prizes, 3, 4, ["a", "b"], draw())  # place 4 pays nothing
    assert beyond_the_table in ({"a": 101, "b": 100}, {"a": 100, "b": 101})


# --- cancellation --------------------------------------------------------------------------------------

def test_cancellation_the_rest_of_the_pool_in_proportion_to_chips_by_largest_remainder() -> None:
    """§11 Cancellation: the rest of the pool in proportion to chips held at the last completed hand
    (largest remainder); every unit of the pool is paid."""
    assert largest_remainder(100, {"a": 1, "b": 1, "c": 1}, ["c", "a", "b"]) == {"a": 33, "b": 33, "c": 34}
    assert largest_remainder(10, {"a": 2, "b": 5, "c": 3}, ["a", "b", "c"]) == {"a": 2, "b": 5, "c": 3}
    payouts = cancellation_payouts(1_000, {"a": 6_000, "b": 3_000, "c": 1_000}, 0, False, draw())
    assert payouts == {"a": 600, "b": 300, "c": 100}


def test_cancellation_pays_first_the_prize_already_won() -> None:
    """§11 Cancellation: first the prizes already won: every player still in has reached the worst place not
    yet fixed."""
    payouts = cancellation_payouts(1_000, {"a": 9_000, "b": 1_000}, 350, False, draw())
    assert payouts == {"a": 350 + 270, "b": 350 + 30}


def test_cancellation_equal_shares_when_the_tournament_said_so() -> None:
    """§11 Cancellation: unless the operator chose equal shares when creating it; odd units by a draw."""
    payouts = cancellation_payouts(1_000, {"a": 9_000, "b": 500, "c": 500}, 0, True, draw(2))
    assert sorted(payouts.values()) == [333, 333, 334] and sum(payouts.values()) == 1_000


@given(st.integers(0, 10**9), st.lists(st.integers(1, 10**6), min_size=1, max_size=50), st.booleans())
def test_cancellation_payouts_add_up_to_the_rest_of_the_pool(pool: int, chips: list[int],
                                                              equal: bool) -> None:
    payouts = cancellation_payouts(pool, {f"p{i}": c for i, c in enumerate(chips)}, 0, equal, draw())
    assert sum(payouts.values()) == pool and min(payouts.values()) >= 0


# --- levels and entries --------------------------------------------------------------------------------

def test_levels_are_numbered_from_one_and_a_break_keeps_the_number_before_it() -> None:
    """§11 Levels: breaks are levels with no play."""
    assert [level_number(DEFAULT_LEVELS, index) for index in range(7)] == [1, 2, 3, 4, 5, 5, 6]


def test_levels_last_their_minutes_and_the_last_one_lasts_to_the_end() -> None:
    """§11 Levels: a level lasts a whole number of minutes."""
    assert level_ends_ms(DEFAULT_LEVELS, 0, 1_000) == 1_000 + 10 * 60_000
    assert level_ends_ms(DEFAULT_LEVELS, len(DEFAULT_LEVELS) - 1, 1_000) is None


def test_levels_the_next_hand_is_dealt_at_the_level_running_and_none_during_a_break() -> None:
    """§11 Levels: a level change takes effect from the next hand dealt; a break deals no hand."""
    assert level_for_next_hand(DEFAULT_LEVELS, 1) == DEFAULT_LEVELS[1]
    assert level_for_next_hand(DEFAULT_LEVELS, 5) is None and DEFAULT_LEVELS[5].is_break
    assert level_for_next_hand((Level(5, 10, 20, 40),), 0) == Level(5, 10, 20, 40)


def test_entry_late_registration_while_the_level_is_at_most_late_registration_levels() -> None:
    """§11 Entry: late registration while a level number is at most late_registration_levels."""
    assert late_registration_open(1, 3) and late_registration_open(3, 3)
    assert not late_registration_open(4, 3) and not late_registration_open(1, 0)


def test_entry_re_entry_if_allowed_until_its_level_with_re_entries_left() -> None:
    """§11 Entry: a re-entry, if the tournament allows it, adds a full buy-in to the pool."""
    assert re_entry_open(2, re_entry_until_level=3, re_entries_used=0, re_entries=1)
    assert not re_entry_open(2, re_entry_until_level=3, re_entries_used=1, re_entries=1)
    assert not re_entry_open(4, re_entry_until_level=3, re_entries_used=0, re_entries=2)


@pytest.mark.parametrize("players", [2, 7, 8, 9, 15, 16, 17, 63, 64, 65])
def test_seating_at_any_field_size_is_even(players: int) -> None:
    sizes = table_sizes(players, 8)
    assert sum(sizes) == players and max(sizes) - min(sizes) <= 1 and max(sizes) <= 8
