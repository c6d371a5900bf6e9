"""Who acts first: the bring-in on third street (§3) and the best board later (§4)."""

from __future__ import annotations

from collections.abc import Sequence

from stud_service import native
from stud_service.engine.config import BringInTiebreak


def next_seat_clockwise(order: Sequence[int], seat: int, eligible: set[int]) -> int | None:
    """The first seat of ``eligible`` at or after ``seat`` going clockwise (increasing, wrapping)."""
    n = len(order)
    start = order.index(seat)
    for i in range(n):
        candidate = order[(start + i) % n]
        if candidate in eligible:
            return candidate
    return None


def lowest_door_card_seat(seats: Sequence[int], door_cards: Sequence[int], razz: bool,
                          tiebreak: BringInTiebreak) -> int:
    """§3: the seat whose door card obliges it to bring in, before the all-in pass-on.

    SUIT: lowest card, suits in bridge order (Razz: highest, aces low, spades highest).
    POSITION: ranks only; the tied player first from the dealer's left (lowest seat).
    """
    if tiebreak is BringInTiebreak.SUIT:
        return seats[native.bring_in_index(list(door_cards), razz)]
    strengths = [native.door_card_strength(card, razz, False) for card in door_cards]
    weakest = min(strengths)
    return seats[strengths.index(weakest)]  # seats are ascending, so index() finds the first tied


def bring_in_seat(seats: Sequence[int], door_cards: Sequence[int], can_act: set[int], razz: bool,
                  tiebreak: BringInTiebreak) -> int | None:
    """§3: who brings in.  A player all-in from the ante cannot: the duty passes clockwise to the
    next player with chips, whatever their door card.  None if nobody has chips."""
    obliged = lowest_door_card_seat(seats, door_cards, razz, tiebreak)
    return next_seat_clockwise(seats, obliged, can_act)


def best_board_seat(seats: Sequence[int], up_cards: Sequence[Sequence[int]], razz: bool) -> int:
    """§4: the seat showing the best board (Razz: best low board); ties to the lowest seat."""
    rank = native.board_rank_razz if razz else native.board_rank_high
    ranks = [rank(cards) for cards in up_cards]
    return seats[ranks.index(max(ranks))]


def first_to_act_on_later_street(seats: Sequence[int], up_cards: Sequence[Sequence[int]], can_act: set[int],
                                 razz: bool) -> int | None:
    """§4: the best board among players still in the hand acts first; if that player is all-in,
    the next player clockwise who can still act.  The community card is left out: it is on every
    board and never changes the order."""
    return next_seat_clockwise(seats, best_board_seat(seats, up_cards, razz), can_act)
