"""Uncalled bets and side pots (RULES.md §5)."""

from __future__ import annotations

from collections.abc import Mapping


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


def side_pots(committed: Mapping[int, int], live: set[int]) -> list[tuple[int, tuple[int, ...]]]:
    """§5: split the chips into the main pot and side pots, [(amount, eligible seats), ...] main first.

    Each live (not folded) player is eligible for the layers up to what they put in; folded players'
    chips fill the layers but win nothing.  Layers with the same eligible players are merged.
    """
    levels = sorted({committed[seat] for seat in live if committed[seat] > 0})
    pots: list[tuple[int, tuple[int, ...]]] = []
    previous = 0
    for level in levels:
        amount = sum(min(c, level) - min(c, previous) for c in committed.values())
        eligible = tuple(sorted(seat for seat in live if committed[seat] >= level))
        if pots and pots[-1][1] == eligible:
            pots[-1] = (pots[-1][0] + amount, eligible)
        elif amount:
            pots.append((amount, eligible))
        previous = level
    # Dead chips above every live player's contribution (only possible if the uncalled bet was not
    # returned) join the last pot so no chip is lost.
    leftover = sum(committed.values()) - sum(amount for amount, _ in pots)
    if leftover and not pots:
        pots.append((leftover, tuple(sorted(live))))
    elif leftover:
        pots[-1] = (pots[-1][0] + leftover, pots[-1][1])
    return pots
