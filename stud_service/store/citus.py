"""The event log spread over a Citus cluster: where each table of the schema goes (``citus.sql``).

``stud-service migrate --citus`` checks the cluster first (:func:`require_citus`: nothing is changed unless
the layout can be applied), then applies the layout on the coordinator after the migrations. Each statement
places one table or function; one Citus already has placed so is skipped, so the command is safe to repeat
(the migration Job runs it at every rollout). docs/deployment.md, "Beyond one database", says why each goes
where it goes, and what was measured.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from importlib import resources

import psycopg

EXTENSION_SQL = "CREATE EXTENSION IF NOT EXISTS citus"
_PLACES = re.compile(
    r"SELECT\s+(create_distributed_table|create_reference_table|create_distributed_function)\('([a-z_]+)"
)


# What is placed already: the tables Citus has, and the functions it has with their distribution argument
# if they have one (Citus copies a function created after the extension to the workers by itself, with
# none: only the layout's create_distributed_function gives it one).
_PLACED_SQL = """
SELECT logicalrelid::regclass::text FROM pg_dist_partition
UNION ALL
SELECT p.proname || CASE WHEN o.distribution_argument_index IS NULL THEN '' ELSE '/'
                         || p.proargnames[o.distribution_argument_index + 1] END
  FROM pg_dist_object o JOIN pg_proc p ON o.classid = 'pg_proc'::regclass AND o.objid = p.oid
"""
_ARGUMENT = re.compile(r"\)',\s*'([a-z_]+)'")


class CitusUnavailable(RuntimeError):
    """The server has no Citus extension to create: nothing was changed."""


@dataclass(frozen=True, slots=True)
class Placement:
    table: str  # or function
    statement: str  # one create_distributed_table / create_reference_table / create_distributed_function call

    @property
    def name(self) -> str:
        """The table's name; a function's, with "/" and its distribution argument if it has one."""
        function = "create_distributed_function" in self.statement
        argument = _ARGUMENT.search(self.statement) if function else None
        return self.table if argument is None else f"{self.table}/{argument.group(1)}"


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
    """Raise :class:`CitusUnavailable` unless the server is a Citus coordinator the layout can be applied on:
    the extension installed and preloaded, and at least one worker registered that answers."""
    cur = await conn.execute("SELECT 1 FROM pg_available_extensions WHERE name = 'citus'")
    if await cur.fetchone() is None:
        raise CitusUnavailable(
            "this PostgreSQL server has no citus extension (install Citus on the coordinator and every"
            " worker first); nothing was changed"
        )
    cur = await conn.execute("SELECT current_setting('shared_preload_libraries')")
    row = await cur.fetchone()
    preloaded = [name.strip() for name in str(row[0] if row else "").split(",")]
    if "citus" not in preloaded:
        raise CitusUnavailable(
            "Citus is installed but not preloaded on this server (add citus to shared_preload_libraries"
            " on the coordinator and every worker, and restart them); nothing was changed"
        )
    cur = await conn.execute("SELECT 1 FROM pg_extension WHERE extname = 'citus'")
    if await cur.fetchone() is None:
        raise CitusUnavailable(
            "the citus extension is not created on this server, so it has no workers (CREATE EXTENSION"
            " citus on the coordinator and every worker, then citus_add_node for each worker); nothing"
            " was changed"
        )
    cur = await conn.execute(
        "SELECT nodename, nodeport, success, result FROM run_command_on_workers('SELECT 1')")
    workers = await cur.fetchall()
    if not workers:
        raise CitusUnavailable(
            "this Citus coordinator has no workers (add each with citus_add_node); nothing was changed"
        )
    silent = [f"{host}:{port} ({result})" for host, port, success, result in workers if not success]
    if silent:
        raise CitusUnavailable(f"Citus workers do not answer: {', '.join(silent)}; nothing was changed")


async def check_citus(url: str) -> None:
    async with await psycopg.AsyncConnection.connect(url, autocommit=True) as conn:
        await require_citus(conn)


async def apply_layout(url: str) -> list[str]:
    """Create the extension and place the tables not yet placed, each in a statement of its own (a run cut
    short is finished by the next); the tables placed now."""
    async with await psycopg.AsyncConnection.connect(url, autocommit=True) as conn:
        await require_citus(conn)
        await conn.execute(EXTENSION_SQL)
        cur = await conn.execute(_PLACED_SQL)
        already = {name for (name,) in await cur.fetchall()}
        placed = []
        for placement in layout():
            if placement.name not in already:
                await conn.execute(placement.statement)
                placed.append(placement.table)
        return placed
