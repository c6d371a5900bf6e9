"""Eliminations and places (RULES.md §11)."""

from __future__ import annotations

from collections.abc import Sequence
from itertools import groupby

Place = tuple[str, int, int]  # (player, place, last place shared: the same when not shared)


def is_eliminated(chips_after_hand: int) -> bool:
    """§11 Eliminations: a player with no chips after a hand is out."""
    return chips_after_hand == 0


def places_for_hand(out: Sequence[tuple[str, int]], players_left: int) -> list[Place]:
    """§11 Eliminations and places: players out in the same hand (``out``: each with the chips they held
    at its start) finish in the order of those chips, more chips placing higher; players who started it
    with equal chips share those places.  ``players_left``: the players still in after the hand, who hold
    the places above.  Best place first."""
    ranked = sorted(out, key=lambda entry: (-entry[1], entry[0]))
    places: list[Place] = []
    place = players_left + 1
    for _chips, group in groupby(ranked, key=lambda entry: entry[1]):
        players = [player for player, _ in group]
        last = place + len(players) - 1
        places.extend((player, place, last) for player in players)
        place = last + 1
    return places


def places_for_hands(hands: Sequence[Sequence[tuple[str, int]]], players_left: int) -> list[Place]:
    """§11 Eliminations and places, for several hands in the order they ended (players out while entries
    were still open, placed when they close): a later hand's players place above an earlier hand's."""
    places: list[Place] = []
    for out in reversed(hands):
        places.extend(places_for_hand(out, players_left))
        players_left += len(out)
    return places
