"""Payouts (RULES.md §11): the prize of each place, shared places, and the default payout table.

Integer arithmetic only: amounts in the currency's smallest unit, shares in basis points.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from functools import lru_cache
from typing import TYPE_CHECKING

from stud_service.engine.rules.rake import BASIS_POINTS

if TYPE_CHECKING:
    from stud_service.tournaments.draws import Draw

# The default table's shares for up to four paid places, as sit & gos pay them.
_SMALL_TABLES: Mapping[int, tuple[int, ...]] = {
    1: (10_000,), 2: (6_500, 3_500), 3: (5_000, 3_000, 2_000), 4: (4_000, 3_000, 2_000, 1_000)}
_WEIGHT_SCALE = 10**12  # place p weighs 10^12 // (p + 1): a harmonic fall, exact in integers


def paid_places(players: int) -> int:
    """§11 Payouts, the default table (the rule book leaves the table to the tournament): one place paid
    for 2-5 players, two for 6-8, three for 9-17, four for 18-26, then 15% of the players rounded up."""
    if players <= 5:
        return 1
    if players <= 8:
        return 2
    if players <= 17:
        return 3
    if players <= 26:
        return 4
    return -(-players * 15 // 100)


@lru_cache(maxsize=64)  # a pure function of the players, asked after every hand while entries are open
def default_payout_table(players: int) -> tuple[int, ...]:
    """§11 Payouts, the default table: up to four places as sit & gos pay (100; 65/35; 50/30/20;
    40/30/20/10), more places falling as 1/(place + 1) does; basis points adding to 10,000, never more
    for a worse place."""
    places = paid_places(players)
    if places in _SMALL_TABLES:
        return _SMALL_TABLES[places]
    return tuple(split_to_best_places(BASIS_POINTS, [_WEIGHT_SCALE // (place + 1) for place in
                                                     range(1, places + 1)]))


def split_to_best_places(total: int, weights: Sequence[int]) -> list[int]:
    """``total`` split in proportion to ``weights`` (best place first), each part rounded down; the units
    left over go one each to the best places."""
    weight = sum(weights)
    parts = [total * w // weight for w in weights]
    for place in range(total - sum(parts)):
        parts[place] += 1
    return parts


def prizes_by_place(pool: int, payout_table: Sequence[int]) -> tuple[int, ...]:
    """§11 Payouts: each place's prize is pool x share / 10,000 rounded down; the units left over go one
    each to the best places."""
    return tuple(split_to_best_places(pool, payout_table))


def prize_of_places(prizes: Sequence[int], place: int, last_place: int) -> int:
    """The prizes of places ``place``..``last_place`` together (a place beyond the table pays nothing)."""
    return sum(prizes[place - 1:last_place])


def shared_place_prizes(prizes: Sequence[int], place: int, last_place: int, players: Sequence[str],
                        draw: Draw | None) -> dict[str, int]:
    """§11 Payouts: players who share places add those places' prizes and divide them equally, rounding
    down; the units left over go one each, by a committed random draw among them (``draw`` is read only
    when units are left over)."""
    total = prize_of_places(prizes, place, last_place)
    each, left = divmod(total, len(players))
    shares = {player: each for player in players}
    if left:
        assert draw is not None, "odd units need a draw"
        for player in draw.shuffled(sorted(players))[:left]:
            shares[player] += 1
    return shares
