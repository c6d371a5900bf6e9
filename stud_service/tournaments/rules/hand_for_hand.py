"""Hand for hand at the bubble (RULES.md §11)."""

from __future__ import annotations

from collections.abc import Collection


def hand_for_hand_due(players_left: int, paid_places: int, tables: int) -> bool:
    """§11 Hand for hand: when the next elimination would reach the paid places (the bubble: one player
    more than are paid), tables play hand for hand; with one table left every hand is one anyway."""
    return tables > 1 and players_left == paid_places + 1


def hand_for_hand_over(players_left: int, paid_places: int, tables: int) -> bool:
    """§11 Hand for hand ends once the bubble has burst (no more players than places paid) or one table
    is left."""
    return players_left <= paid_places or tables <= 1


def may_deal_hand_for_hand(table: str, dealt_this_round: Collection[str], in_hand: Collection[str]) -> bool:
    """§11 Hand for hand: each table deals its next hand only when every table has finished its current
    one: a round begins when no table is in a hand, and each table deals once in it."""
    if table in dealt_this_round:
        return False
    return bool(dealt_this_round) or not in_hand


def hand_for_hand_round_over(can_deal: Collection[str], dealt_this_round: Collection[str],
                             in_hand: Collection[str]) -> bool:
    """§11 Hand for hand: the round is over when every table that can deal (two players or more) has
    dealt its hand in it and every one of those hands has ended; its eliminations count as one hand."""
    return bool(dealt_this_round) and not in_hand and all(table in dealt_this_round for table in can_deal)
