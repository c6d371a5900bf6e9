"""Levels, breaks and entries by level (RULES.md §11)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from stud_service.tournaments.structure import Level


def level_number(levels: Sequence[Level], index: int) -> int:
    """§11 Levels: levels of play are numbered from 1 in order; a break keeps the number of the level
    before it (registration that is open "through level 4" stays open in the break after it)."""
    return sum(not level.is_break for level in levels[:index + 1])


def level_ends_ms(levels: Sequence[Level], index: int, started_ms: int) -> int | None:
    """§11 Levels: a level lasts its whole number of minutes; the last one lasts to the end (None)."""
    if index + 1 >= len(levels):
        return None
    return started_ms + levels[index].minutes * 60_000


def level_for_next_hand(levels: Sequence[Level], index: int) -> Level | None:
    """§11 Levels: a level change takes effect from the next hand dealt at each table (a running hand keeps
    its stakes): the next hand is dealt at the level running when it is dealt.  Breaks are levels with
    no play: None, no hand is dealt (a hand running when the break starts is finished first)."""
    level = levels[index]
    return None if level.is_break else level


def late_registration_open(level: int, late_registration_levels: int) -> bool:
    """§11 Entry: late registration while a level number is at most ``late_registration_levels``."""
    return 0 < level <= late_registration_levels


def re_entry_open(level: int, re_entry_until_level: int, re_entries_used: int, re_entries: int) -> bool:
    """§11 Entry: a re-entry, if the tournament allows it: while the level number is at most its last
    level for them, and the player has re-entries left."""
    return 0 < level <= re_entry_until_level and re_entries_used < re_entries
