"""Seating (RULES.md §11): the draw at the start, and the empty seat a player joining the tables takes."""

from __future__ import annotations

from collections.abc import Collection, Mapping, Sequence
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from stud_service.tournaments.draws import Draw

Tables = Mapping[str, Mapping[int, str]]  # table id -> seat -> player
Seating = tuple[str, str, int]  # (player, table id, seat)


def tables_needed(players: int, seats_per_table: int) -> int:
    """§11 Seating: as few tables as hold every player."""
    return -(-players // seats_per_table)


def table_sizes(players: int, seats_per_table: int) -> list[int]:
    """§11 Seating: tables are filled as evenly as possible: their sizes differ by one at most, the first
    tables taking the larger."""
    tables = tables_needed(players, seats_per_table)
    size, larger = divmod(players, tables)
    return [size + 1 if index < larger else size for index in range(tables)]


def seating_draw(players: Collection[str], table_ids: Sequence[str], seats_per_table: int,
                 draw: Draw) -> list[Seating]:
    """§11 Seating: every entrant's table and seat are drawn at random.  Each table in turn draws which of
    its seats are taken (the first of a shuffle of its seats, for its size); then the players, sorted and
    shuffled, take those seats in table order, seats ascending.  A function of the seed alone: an auditor
    recomputes it from the revealed seed, the entrants and the structure."""
    slots: list[tuple[str, int]] = []
    for table_id, size in zip(table_ids, table_sizes(len(players), seats_per_table), strict=True):
        seats = sorted(draw.shuffled(range(1, seats_per_table + 1))[:size])
        slots.extend((table_id, seat) for seat in seats)
    order = draw.shuffled(sorted(players))
    return [(player, table_id, seat) for player, (table_id, seat) in zip(order, slots, strict=True)]


def empty_seats_of_shortest(tables: Tables, seats_per_table: int,
                            excluding: Collection[str] = ()) -> list[tuple[str, int]]:
    """The empty seats of the tables with the fewest players (not ``excluding``), table then seat order."""
    open_tables = {table_id: seats for table_id, seats in tables.items()
                   if table_id not in excluding and len(seats) < seats_per_table}
    if not open_tables:
        return []
    fewest = min(len(seats) for seats in open_tables.values())
    return [(table_id, seat) for table_id, seats in sorted(open_tables.items()) if len(seats) == fewest
            for seat in range(1, seats_per_table + 1) if seat not in seats]


def draw_empty_seat(tables: Tables, seats_per_table: int, draw: Draw,
                    excluding: Collection[str] = ()) -> tuple[str, int] | None:
    """§11 Entry and Balancing: a player joining the tables (late, again, moved or from a broken table)
    takes an empty seat of the shortest table, drawn at random among the empty seats of the tables with
    the fewest players.  None when every table is full (a new one opens)."""
    seats = empty_seats_of_shortest(tables, seats_per_table, excluding)
    return draw.choice(seats) if seats else None
