"""Dealing (RULES.md §2)."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Final

FIRST_STREET: Final = 3
LAST_STREET: Final = 7


def ante_for_player(ante: int, stack: int) -> tuple[int, bool]:
    """§2: every player posts the ante; one with less posts what they have and is all-in.
    Returns (amount posted, all-in)."""
    amount = min(ante, stack)
    return amount, amount == stack


def dealing_order(seats: Iterable[int]) -> list[int]:
    """§1/§2: one card at a time, clockwise from seat 1's side, i.e. ascending seat number."""
    return sorted(seats)


def third_street_faces() -> tuple[bool, bool, bool]:
    """§2: two cards face down, then the door card face up (True = face up)."""
    return (False, False, True)


def later_street_face_up(street: int) -> bool:
    """§2: fourth to sixth street face up, seventh face down."""
    return street != LAST_STREET


def needs_community_card(cards_left: int, players_needing: int) -> bool:
    """§2: fewer undealt cards than players who need one -> one community card face up instead."""
    return cards_left < players_needing
