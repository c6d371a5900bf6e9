"""The event log spread over a Citus cluster: where each table of the schema goes (``citus.sql``).

``stud-service migrate --citus`` applies the layout on the coordinator after the migrations. Each statement
places one table; a table Citus already has in ``pg_dist_partition`` is skipped, so the command is safe to
repeat (the migration Job runs it at every rollout). docs/deployment.md, "Beyond one database", says why
each table goes where it goes and what was and was not run.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from importlib import resources

import psycopg

EXTENSION_SQL = "CREATE EXTENSION IF NOT EXISTS citus"
_PLACES = re.compile(r"SELECT\s+(create_distributed_table|create_reference_table)\('([a-z_]+)'")


class CitusUnavailable(RuntimeError):
    """The server has no Citus extension to create: nothing was changed."""


@dataclass(frozen=True, slots=True)
class Placement:
    table: str
    statement: str  # one create_distributed_table / create_reference_table call


def layout_text() -> str:
    return resources.files("stud_service.store").joinpath("citus.sql").read_text("utf-8")


def layout() -> list[Placement]:
    """The layout's placements, in order (a colocated table after the one it is colocated with)."""
    code = "\n".join(line for line in layout_text().splitlines() if not line.lstrip().startswith("--"))
    statements = [s.strip() for s in code.split(";") if s.strip()]
    if statements[0] != EXTENSION_SQL:
        raise ValueError("the Citus layout must begin by creating the extension")
    placements = []
    for statement in statements[1:]:
        match = _PLACES.match(statement)
        if match is None:
            raise ValueError(f"not a placement: {statement}")
        placements.append(Placement(match.group(2), statement))
    return placements


async def require_citus(conn: psycopg.AsyncConnection) -> None:
    """Raise :class:`CitusUnavailable` unless the server can create the citus extension."""
    cur = await conn.execute("SELECT 1 FROM pg_available_extensions WHERE name = 'citus'")
    if await cur.fetchone() is None:
        raise CitusUnavailable(
            "this PostgreSQL server has no citus extension (install Citus on the coordinator and every"
            " worker first); nothing was changed"
        )


async def check_citus(url: str) -> None:
    async with await psycopg.AsyncConnection.connect(url, autocommit=True) as conn:
        await require_citus(conn)


async def apply_layout(url: str) -> list[str]:
    """Create the extension and place the tables not yet placed, each in a statement of its own (a run cut
    short is finished by the next); the tables placed now."""
    async with await psycopg.AsyncConnection.connect(url, autocommit=True) as conn:
        await require_citus(conn)
        await conn.execute(EXTENSION_SQL)
        cur = await conn.execute("SELECT logicalrelid::regclass::text FROM pg_dist_partition")
        already = {name for (name,) in await cur.fetchall()}
        placed = []
        for placement in layout():
            if placement.table not in already:
                await conn.execute(placement.statement)
                placed.append(placement.table)
        return placed
