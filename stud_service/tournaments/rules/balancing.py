"""Balancing and breaking tables (RULES.md §11).  Only a table between hands gives players: the one
whose hand just ended."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING

from stud_service.tournaments.rules.seating import Seating, Tables, draw_empty_seat

if TYPE_CHECKING:
    from stud_service.tournaments.draws import Draw


def fits_in_one_table_fewer(players: int, tables: int, seats_per_table: int) -> bool:
    """§11 Balancing: the players left fit in one table fewer."""
    return tables > 1 and players <= (tables - 1) * seats_per_table


def breaks_table(counts: Mapping[str, int], table: str, seats_per_table: int) -> bool:
    """§11 Balancing: whenever the players left fit in one table fewer, the table with the fewest players
    is broken: ``table`` (between hands) is, when it is one of the fewest."""
    return fits_in_one_table_fewer(sum(counts.values()), len(counts), seats_per_table) \
        and counts[table] == min(counts.values())


def moves_a_player(counts: Mapping[str, int], table: str) -> bool:
    """§11 Balancing: when a table has two or more players more than the shortest, the longest table
    gives one: ``table`` (between hands) does, when it is one of the longest."""
    shortest, longest = min(counts.values()), max(counts.values())
    return counts[table] == longest and longest - shortest >= 2


def player_to_move(players: Sequence[str], draw: Draw) -> str:
    """§11 Balancing: the player to move is drawn at random among the players of the longest table."""
    return draw.choice(sorted(players))


def break_table(table: str, tables: Tables, seats_per_table: int, draw: Draw) -> list[Seating]:
    """§11 Balancing: a broken table's players are drawn into the empty seats of the others: in a drawn
    order, each into a drawn empty seat of the tables then shortest, so the tables stay within one."""
    others = {table_id: dict(seats) for table_id, seats in tables.items() if table_id != table}
    moves: list[Seating] = []
    for player in draw.shuffled(sorted(tables[table].values())):
        seat = draw_empty_seat(others, seats_per_table, draw)
        assert seat is not None, "the players fit in one table fewer"
        others[seat[0]][seat[1]] = player
        moves.append((player, *seat))
    return moves
