"""Uncalled bets and side pots (RULES.md §5)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence


def uncalled_bet(committed: Mapping[int, int]) -> tuple[int, int] | None:
    """§5: the part of the largest contribution nobody matched goes back to its bettor.
    Returns (seat, amount) or None."""
    if len(committed) < 2:
        raise ValueError("an uncalled bet needs two or more contributions")
    top_seat, top, second = 0, -1, -1
    for seat, amount in committed.items():  # one pass for the two largest (runs at every street's end)
        if amount > top:
            top_seat, top, second = seat, amount, top
        elif amount > second:
            second = amount
    return (top_seat, top - second) if top > second else None


def side_pots(committed: Mapping[int, int], folds: Sequence[int]) -> list[tuple[int, tuple[int, ...]]]:
    """§5: the main pot and the side pots, [(amount, contenders), ...] main pot first.

    ``committed``: what each seat dealt in put in; ``folds``: the seats that folded, in the order they
    folded (the others are live).  The chips form a layer up to each contribution; a seat is eligible
    for a layer if it put in at least the layer's top, so nobody wins from an opponent more than they
    put in against that opponent.  Each pot is contested only by its eligible players and a fold
    forfeits every pot, so a layer's contenders are its live eligible seats; if all of those folded,
    the last of them to fold, its only contender from the moment the others folded (never a seat
    that was not eligible).  Consecutive layers with the same contenders make one pot.
    """
    order = {seat: index for index, seat in enumerate(folds)}
    levels = sorted({amount for amount in committed.values() if amount > 0})
    pots: list[tuple[int, tuple[int, ...]]] = []
    previous = 0
    for level in levels:
        amount = sum(min(c, level) - min(c, previous) for c in committed.values())
        eligible = [seat for seat, c in committed.items() if c >= level]
        contenders = tuple(sorted(seat for seat in eligible if seat not in order))
        if not contenders:
            contenders = (max(eligible, key=order.__getitem__),)
        if pots and pots[-1][1] == contenders:
            pots[-1] = (pots[-1][0] + amount, contenders)
        else:
            pots.append((amount, contenders))
        previous = level
    return pots
