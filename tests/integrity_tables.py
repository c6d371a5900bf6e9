"""Seeded tables for the integrity audit: a soft-play pair at one table, a chip-dumping pair at another,
honest players at both (two of them sit at both tables), played through the engine by
``stud_service.audit.simulate.play_table`` with the policies of ``stud_service.bots.colluders``."""

from __future__ import annotations

import random
from typing import Any

from stud_service.audit.simulate import SimulatedTable, play_table
from stud_service.bots.colluders import chip_dumper, chip_receiver, honest, soft_play
from stud_service.engine import TableConfig, Variant

SOFT_PLAY = ("soft-1", "soft-2")
CHIP_DUMPING = ("dumper", "receiver")
COLLUDING = {SOFT_PLAY, CHIP_DUMPING}  # as the report orders a pair's players (by id)


def collusion_tables(seed: int, hands: int, prefix: str = "integrity") -> list[SimulatedTable]:
    """The two tables of seeded run ``seed``, ``hands`` hands each; the variant turns with the seed."""
    rng = random.Random(seed)
    variant = list(Variant)[seed % len(Variant)]
    config = TableConfig(variant=variant, ante=10, bring_in=25, small_bet=50, big_bet=100, min_buy_in=500,
                         max_buy_in=5000, seats=8)
    rosters: list[dict[str, Any]] = [
        {"honest-1": honest, "soft-1": soft_play("soft-2"), "honest-2": honest, "soft-2": soft_play("soft-1"),
         "honest-3": honest, "honest-4": honest},
        {"honest-3": honest, "dumper": chip_dumper("receiver"), "honest-5": honest,
         "receiver": chip_receiver("dumper"), "honest-6": honest, "honest-4": honest},
    ]
    tables = []
    for index, roster in enumerate(rosters):
        seats = list(roster.items())
        rng.shuffle(seats)
        tables.append(play_table(f"{prefix}-{seed}-{index}", config, dict(seats), hands, seed * 10 + index))
    return tables


def log_rows(tables: list[SimulatedTable]) -> list[tuple[str, int, dict[str, Any]]]:
    """The tables' events as ``(stream_id, version, payload)`` rows, as ``store_table`` appends them."""
    rows = []
    for table in tables:
        version = 0
        for payloads in table.payloads():
            for payload in payloads:
                version += 1
                rows.append((f"tables/{table.table_id}", version, payload))
    return rows
