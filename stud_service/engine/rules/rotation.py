"""RULES.md §13, Mixed games: which game a hand is dealt in, and how many hands of it remain.

``counted`` is the number of the table's hands that reached their end, voided hands (§12) not counting: the
table keeps it from its log (``TableState.rotation_hands``), so a replay deals every hand in the same game.
"""

from __future__ import annotations

from stud_service.engine.config import TableConfig, Variant


def game_of_next_hand(config: TableConfig, counted: int) -> Variant:
    """The game the next hand is dealt in: each game of the rotation for ``hands_per_game`` counted hands, in
    turn, from the first again after the last; a table without a rotation always plays its variant."""
    if not config.rotation:
        return config.variant
    return config.rotation[(counted // config.hands_per_game) % len(config.rotation)]


def hands_left_in_game(config: TableConfig, counted: int) -> int:
    """How many hands of the current game remain, the next one included (0 at a table without a rotation)."""
    if not config.rotation:
        return 0
    return config.hands_per_game - counted % config.hands_per_game


def hand_counts_toward_rotation(hand: int, voided_hand: int) -> bool:
    """§13: a hand that reached its end counts, a voided one does not."""
    return hand != voided_hand

