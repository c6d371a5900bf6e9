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


def game_hand_of_next(config: TableConfig, counted: int) -> int:
    """The next hand's place in its game's run, 1..hands_per_game (0 at a table without a rotation)."""
    return counted % config.hands_per_game + 1 if config.rotation else 0


def counted_before(config: TableConfig, game: Variant, game_hand: int) -> int:
    """A count of hands that puts the table where a hand of ``game``, ``game_hand`` of its run, is dealt: the
    inverse of the two functions above, within one turn of the rotation (all that matters: it repeats)."""
    if not config.rotation or not game_hand or game not in config.rotation:
        return 0
    return config.rotation.index(game) * config.hands_per_game + game_hand - 1
