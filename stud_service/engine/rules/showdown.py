"""Showdown (RULES.md §5, §6): order, mucking, hand values, splitting pots and the odd chip."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from stud_service import native
from stud_service.engine.config import Variant


@dataclass(frozen=True, slots=True)
class ShowdownHand:
    """What one player's seven cards make.  ``high``/``low`` are None when the game or the
    cards give none (Razz has no high; Stud no low; Hi-Lo no low without an eight-or-better)."""

    seat: int
    cards: tuple[int, ...]
    high: native.HighHand | None
    low: native.LowHand | None

    def __init__(self, seat: int, cards: tuple[int, ...], high: native.HighHand | None,
                 low: native.LowHand | None) -> None:
        object.__setattr__(self, "seat", seat)
        object.__setattr__(self, "cards", cards)
        object.__setattr__(self, "high", high)
        object.__setattr__(self, "low", low)


def evaluate_showdown_hand(game: Variant, seat: int, cards: Sequence[int]) -> ShowdownHand:
    """§5/§6: best five of the player's cards (community card included), in the hand's game (§13)."""
    if game is Variant.RAZZ:
        return ShowdownHand(seat, tuple(cards), None, native.evaluate_low(cards))
    high = native.evaluate_high(cards)
    low = native.evaluate_eight_or_better(cards) if game is Variant.STUD_HI_LO else None
    return ShowdownHand(seat, tuple(cards), high, low)


def showdown_order(live_seats: Sequence[int], first: int) -> list[int]:
    """§5: the first shower (last bettor or raiser on seventh street, else the first to act there),
    then clockwise."""
    i = live_seats.index(first)
    return list(live_seats[i:]) + list(live_seats[:i])


def _beats_high(a: ShowdownHand, b: ShowdownHand) -> bool:
    return a.high is not None and b.high is not None and a.high.value > b.high.value


def _beats_low(a: ShowdownHand, b: ShowdownHand) -> bool:
    return a.low is not None and (b.low is None or a.low.value > b.low.value)


def can_muck(game: Variant, hand: ShowdownHand, all_in: bool, shown: Sequence[ShowdownHand],
             pots: Sequence[tuple[int, tuple[int, ...]]]) -> bool:
    """§5: a player not all-in may muck a hand that cannot win any part of any pot they are in,
    because an earlier shown hand (eligible for that pot) beats it.  Ties can win a share: they show."""
    if all_in:
        return False
    for _, eligible in pots:
        if hand.seat not in eligible:
            continue
        rivals = [other for other in shown if other.seat in eligible]
        if game is Variant.RAZZ:
            if not any(_beats_low(other, hand) for other in rivals):
                return False
            continue
        if not any(_beats_high(other, hand) for other in rivals):
            return False
        if game is Variant.STUD_HI_LO and hand.low is not None and not any(
                _beats_low(other, hand) for other in rivals):
            return False
    return True


def _high_card_key(hand: ShowdownHand) -> tuple[int, ...]:
    assert hand.high is not None
    return tuple(sorted(hand.high.cards, reverse=True))  # codes order by rank, then suit (bridge)


def _low_card_key(hand: ShowdownHand) -> tuple[int, ...]:
    assert hand.low is not None
    ace_low = sorted(((card >> 2) + 1) % 13 * 4 + (card & 3) for card in hand.low.cards)
    return tuple(-key for key in ace_low)  # larger = lower cards, so one max() serves both halves


def odd_chip_order(winners: Sequence[ShowdownHand], half: str) -> list[ShowdownHand]:
    """§5: who gets odd chips first: for a high pot the tied winner with the highest single card by
    suit in their winning five (rank first, then clubs < diamonds < hearts < spades); for a low pot
    (Razz, Hi-Lo low half) the one with the lowest card by suit.  Further ties: lowest seat."""
    key = _high_card_key if half == "high" else _low_card_key
    return sorted(winners, key=lambda hand: (tuple(-k for k in key(hand)), hand.seat))


def odd_chip_winner(winners: Sequence[ShowdownHand], half: str) -> int:
    """§5: the seat that receives the odd chip of a split."""
    return odd_chip_order(winners, half)[0].seat


def split_among_winners(amount: int, winners: Sequence[ShowdownHand], half: str) -> list[tuple[int, int]]:
    """§5: equal hands split; odd chips one each in odd-chip order.  [(seat, amount), ...]."""
    if len(winners) == 1:  # the usual case: nothing to split, no odd chip to place
        return [(winners[0].seat, amount)]
    ordered = odd_chip_order(winners, half)
    share, odd = divmod(amount, len(ordered))
    return [(hand.seat, share + (1 if i < odd else 0)) for i, hand in enumerate(ordered)]


def split_hi_lo(amount: int) -> tuple[int, int]:
    """§5/§6: halves of a Hi-Lo pot; the odd unit goes to the high half."""
    low = amount // 2
    return amount - low, low


def best_high(hands: Sequence[ShowdownHand]) -> list[ShowdownHand]:
    top = max(hand.high.value for hand in hands if hand.high is not None)
    return [hand for hand in hands if hand.high is not None and hand.high.value == top]


def best_low(hands: Sequence[ShowdownHand]) -> list[ShowdownHand]:
    """The best low among ``hands`` (empty if none qualifies)."""
    lows = [hand.low.value for hand in hands if hand.low is not None]
    if not lows:
        return []
    top = max(lows)
    return [hand for hand in hands if hand.low is not None and hand.low.value == top]


def award_pot(game: Variant, amount: int, eligible: Sequence[int],
              hands: Mapping[int, ShowdownHand]) -> list[dict]:
    """§5/§6: who wins this pot and how much: [{"seat", "amount", "half", "hand"}, ...].

    Stud: best high takes it.  Razz: best ace-to-five low.  Hi-Lo: half to the best high, half to the
    best eight-or-better low (odd unit to the high half); no qualifying low -> high takes it all."""
    contenders = [hands[seat] for seat in eligible]
    if game is Variant.RAZZ:
        return _awards(amount, best_low(contenders), "low")
    high_winners = best_high(contenders)
    low_winners = best_low(contenders) if game is Variant.STUD_HI_LO else []
    if not low_winners:
        return _awards(amount, high_winners, "high")
    high_half, low_half = split_hi_lo(amount)
    return _awards(high_half, high_winners, "high") + _awards(low_half, low_winners, "low")


def _awards(amount: int, winners: Sequence[ShowdownHand], half: str) -> list[dict]:
    by_seat = {hand.seat: hand for hand in winners}
    awards = []
    for seat, share in split_among_winners(amount, winners, half):
        made = by_seat[seat].high if half == "high" else by_seat[seat].low
        awards.append({"seat": seat, "amount": share, "half": half,
                       "hand": made.description if made is not None else None})
    return awards
