"""RULES.md §5, side pots: each pot is contested only by its eligible players, no player wins from an
opponent more than they put in against them, and a pot whose eligible players all folded goes to the
last of them to fold (issue 28's worked cases)."""

from __future__ import annotations

from engine_helpers import T0, Table, check_side_pots, deal_sequence, of_type, stacked_deck
from hypothesis import given
from hypothesis import strategies as st

from stud_service.engine import (
    ActionKind,
    HandEnded,
    Leave,
    PlayerActed,
    TableConfig,
    decide,
    evolve,
    to_act,
)
from stud_service.engine.rules.pots import side_pots

# $1/$2 Seven Card Stud in cents: ante $0.10, bring-in $0.50.
ONE_TWO = TableConfig(ante=10, bring_in=50, small_bet=100, big_bet=200, min_buy_in=50, max_buy_in=4_000)
A, B, C = 1, 2, 3
WORKED_CASE_HANDS = {
    A: "Ac Ad 2c Ah As 3d 4d",   # four aces: the best hand
    B: "Jc Jd Ks Kh",
    C: "7c 8d Qd 9h 5s Tc 2d",
}


def short_all_in_bring_in_table(hands: dict[int, str]) -> Table:
    """Seat a buys in for $0.60, b and c for $20; a brings in all-in, b and c raise to $4 (the cap)."""
    table = Table(ONE_TWO, stacks={A: 60, B: 2_000, C: 2_000})
    table.start(stacked_deck(deal_sequence([A, B, C], hands)))
    table.act(A, "BRING_IN", 50)  # all it has behind its ante
    table.act(B, "COMPLETE", 100)
    table.act(C, "RAISE", 200)
    table.act(B, "RAISE", 300)
    table.act(C, "RAISE", 400)
    table.act(B, "CALL")
    assert table.state.hand.street == 4 and to_act(table.state) == B  # a pair of kings showing
    return table


def play_the_worked_case() -> Table:
    """Issue 28's $1/$2 hand: a, all-in on the bring-in, holds the best hand; b folds a free check on
    fourth street."""
    table = short_all_in_bring_in_table(WORKED_CASE_HANDS)
    table.act(B, "FOLD")
    return table


def test_an_all_in_player_wins_only_what_they_matched_and_the_side_pot_stays_with_its_players() -> None:
    """§5 (issue 28's $1/$2 case): a is all-in for $0.60, b and c put in $4.10 each; on fourth street b
    folds with no bet.  §4: c, the only player left with chips, has matched: nobody is asked to act.  a
    wins the main pot of $1.80 with the best hand, never the $7.00 that only b and c put in: c's."""
    table = play_the_worked_case()
    ended = table.log[-1]
    assert isinstance(ended, HandEnded)
    # No more betting after b's fold: the cards are run out.
    assert [e.street for e in of_type(table.log, "BettingRoundStarted")] == [3, 4]
    assert [(pot["pot"], pot["amount"], pot["eligible"]) for pot in ended.pots] == [
        (1, 700, (C,)), (0, 180, (A, C))]
    paid = {award["seat"]: award["amount"] for pot in ended.pots for award in pot["awards"]}
    assert paid == {C: 700, A: 180}
    assert dict(ended.stacks) == {A: 180, B: 2_000 - 410, C: 2_000 - 410 + 700}


def test_a_side_pot_whose_players_all_folded_goes_to_the_last_of_them_to_fold() -> None:
    """§5: if every player eligible for a pot folded, it goes to the last of them to fold, never to a
    player who was not eligible.  With §4 enforced, play no longer gets there (c is not asked after b's
    fold), so the hand is as a log written before then holds it: c was asked and folded too.  When it
    next moves on (here b, out of it, asks to leave), a is paid the $1.80 it matched, c the $7.00."""
    state = short_all_in_bring_in_table(WORKED_CASE_HANDS).state
    for seat in (B, C):
        state = evolve(state, PlayerActed(1, seat, ActionKind.FOLD, 0, 0, False, T0))
    ended = of_type(decide(state, Leave("p2", T0)), "HandEnded")[0]
    assert [(pot["pot"], pot["amount"], pot["eligible"]) for pot in ended.pots] == [
        (1, 700, (C,)), (0, 180, (A,))]
    assert [award["seat"] for pot in ended.pots for award in pot["awards"]] == [C, A]
    assert dict(ended.stacks) == {A: 180, B: 2_000 - 410, C: 2_000 - 410 + 700}


def test_the_stud_hi_lo_example_pays_the_all_in_seat_only_what_it_matched() -> None:
    """§5 (issue 28, Stud Hi-Lo): seats 7 and 8 folded at 584, seat 6 all-in at 384, seat 3 all-in at 46.
    Seat 6 can win at most 1178 of the 1578 above seat 3's level; the 400 that only 7 and 8 put in goes
    to whichever of them folded last."""
    committed = {2: 10, 3: 46, 4: 210, 6: 384, 7: 584, 8: 584}
    assert side_pots(committed, (2, 4, 7, 8)) == [(240, (3, 6)), (1178, (6,)), (400, (8,))]
    assert side_pots(committed, (2, 4, 8, 7)) == [(240, (3, 6)), (1178, (6,)), (400, (7,))]


def test_the_stud_example_pays_the_only_live_seat_only_what_it_matched() -> None:
    """§5 (issue 28, Seven Card Stud): only seat 2 is live, all-in at 603; seats 1 and 4 put in 803.
    Seat 2 wins 2412 at most (603 from each of four seats); the 400 above it is the last folder's."""
    committed = {1: 803, 2: 603, 4: 803, 5: 603}
    assert side_pots(committed, (5, 1, 4)) == [(2412, (2,)), (400, (4,))]
    assert side_pots(committed, (4, 5, 1)) == [(2412, (2,)), (400, (1,))]


def test_the_worked_case_contributions_give_the_side_pot_to_the_last_of_its_players_to_fold() -> None:
    """§5: b and c both folded above a's all-in: the $7.00 side pot is c's, who folded last."""
    assert side_pots({A: 60, B: 410, C: 410}, (B, C)) == [(180, (A,)), (700, (C,))]
    assert side_pots({A: 60, B: 410, C: 410}, (C, B)) == [(180, (A,)), (700, (B,))]


# --- properties -----------------------------------------------------------------------------------

@st.composite
def contributions_and_folds(draw: st.DrawFn) -> tuple[dict[int, int], tuple[int, ...]]:
    """2-8 seats with what each put in (few distinct amounts, so that levels coincide often), and the
    seats that folded, in the order they folded (at least one seat is live)."""
    seats = draw(st.lists(st.integers(1, 8), min_size=2, max_size=8, unique=True))
    committed = {seat: draw(st.integers(0, 12)) * draw(st.sampled_from([1, 25])) for seat in seats}
    folds = draw(st.permutations(seats))[:draw(st.integers(0, len(seats) - 1))]
    return committed, tuple(folds)


@given(contributions_and_folds(), st.data())
def test_no_seat_is_paid_more_than_it_matched_and_no_chip_is_lost(
        case: tuple[dict[int, int], tuple[int, ...]], data: st.DataObject) -> None:
    """§5, whoever wins each pot: the pots add up to every chip put in; each can go only to a seat
    eligible for it (a live one that matched it, or the last of its players to fold when all of them
    folded); and no seat is paid more than its own chips plus, from each opponent, the lesser of the
    two contributions."""
    committed, folds = case
    pots = side_pots(committed, folds)
    paid: dict[int, int] = {}
    for amount, contenders in pots:
        winner = data.draw(st.sampled_from(contenders))
        paid[winner] = paid.get(winner, 0) + amount
    check_side_pots(committed, folds, pots, paid)
