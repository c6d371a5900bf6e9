"""Cancellation (RULES.md §11): how the pool is paid when the operator stops a running tournament."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from stud_service.tournaments.draws import Draw


def largest_remainder(total: int, weights: Mapping[str, int], tie_order: Sequence[str]) -> dict[str, int]:
    """``total`` split in proportion to ``weights``, each part rounded down; the units left over go one
    each to the largest remainders, equal remainders in ``tie_order``.  The parts add up to ``total``."""
    weight = sum(weights.values())
    rank = {player: index for index, player in enumerate(tie_order)}
    parts: dict[str, int] = {}
    remainders = []
    for player, share in weights.items():
        parts[player], remainder = divmod(total * share, weight)
        remainders.append((-remainder, rank[player], player))
    for _remainder, _rank, player in sorted(remainders)[:total - sum(parts.values())]:
        parts[player] += 1
    return parts


def cancellation_payouts(rest_of_pool: int, chips: Mapping[str, int], already_won: int, equal: bool,
                         draw: Draw) -> dict[str, int]:
    """§11 Cancellation: each player still in is paid first the prize already won (``already_won``: the
    prize of the worst place not yet fixed, which every one of them has reached), then the rest of the
    pool in proportion to the chips they held at the last completed hand (largest remainder), or in equal
    shares if the tournament said so; equal remainders by a committed random draw.  Every unit is paid."""
    players = sorted(chips)
    rest = rest_of_pool - already_won * len(players)
    weights = {player: 1 if equal else chips[player] for player in players}
    shares = largest_remainder(rest, weights, draw.shuffled(players))
    return {player: already_won + shares[player] for player in players}
