"""The Citus layout (stud_service/store/citus.sql, applied by ``stud-service migrate --citus``;
docs/deployment.md "Beyond one database") fits the schema the migrations build.

Citus itself is not installed here, so its two placement functions are stood in for by checks of the rules
Citus documents for them, run on the real migrated schema: a distributed table's distribution column exists,
every primary key and unique index of it includes that column, and a table colocated with another is
distributed by a column of the same type. And every table of the schema is placed (distributed, reference,
or the migrations' own bookkeeping, which stays on the coordinator), so a migration that adds a table fails
here until the layout says where the table goes.
"""

from __future__ import annotations

import asyncio
import re
from collections.abc import Awaitable, Callable
from pathlib import Path

import psycopg
import pytest

from stud_service.cli import main
from stud_service.store.citus import layout

ROOT = Path(__file__).resolve().parents[1]
DEPLOYMENT_GUIDE = ROOT / "docs" / "deployment.md"
COORDINATOR_ONLY = {"schema_migrations"}

# Citus's rules for create_distributed_table / create_reference_table, as functions of the same signature.
STAND_IN = """
CREATE TEMP TABLE placed (rel regclass PRIMARY KEY, kind text NOT NULL, col name, coltype regtype);

CREATE FUNCTION pg_temp.create_distributed_table(rel regclass, col text, colocate_with text DEFAULT 'default')
RETURNS void LANGUAGE plpgsql AS $$
DECLARE
    attnum smallint;
    typ regtype;
    bad text;
    other record;
BEGIN
    SELECT a.attnum, a.atttypid::regtype INTO attnum, typ
      FROM pg_attribute a WHERE a.attrelid = rel AND a.attname = col AND NOT a.attisdropped;
    IF attnum IS NULL THEN
        RAISE EXCEPTION '% has no column %', rel, col;
    END IF;
    SELECT string_agg(i.indexrelid::regclass::text, ', ') INTO bad
      FROM pg_index i WHERE i.indrelid = rel AND i.indisunique AND NOT attnum = ANY(i.indkey::smallint[]);
    IF bad IS NOT NULL THEN
        RAISE EXCEPTION 'unique indexes of % without its distribution column %: %', rel, col, bad;
    END IF;
    IF colocate_with <> 'default' THEN
        SELECT * INTO other FROM placed WHERE placed.rel = colocate_with::regclass AND kind = 'distributed';
        IF NOT FOUND THEN
            RAISE EXCEPTION '% is colocated with %, which is not distributed (yet)', rel, colocate_with;
        END IF;
        IF other.coltype <> typ THEN
            RAISE EXCEPTION '% (%) cannot be colocated with % (%)', rel, typ, colocate_with, other.coltype;
        END IF;
    END IF;
    INSERT INTO placed VALUES (rel, 'distributed', col, typ);
END;
$$;

CREATE FUNCTION pg_temp.create_reference_table(rel regclass) RETURNS void LANGUAGE sql AS $$
    INSERT INTO placed VALUES (rel, 'reference', NULL, NULL);
$$;

-- A distributed function: its signature names a function of the schema, its distribution argument one of
-- its parameters, and the table it is colocated with is distributed.
CREATE TEMP TABLE placed_functions (fn regprocedure PRIMARY KEY, arg text);

CREATE FUNCTION pg_temp.create_distributed_function(fn regprocedure, arg text DEFAULT NULL,
                                                    colocate_with text DEFAULT 'default')
RETURNS void LANGUAGE plpgsql AS $$
BEGIN
    IF arg IS NOT NULL
       AND NOT EXISTS (SELECT 1 FROM pg_proc p WHERE p.oid = fn AND arg = ANY(p.proargnames)) THEN
        RAISE EXCEPTION '% has no argument %', fn, arg;
    END IF;
    IF colocate_with <> 'default' AND NOT EXISTS (
        SELECT 1 FROM placed WHERE rel = colocate_with::regclass AND kind = 'distributed') THEN
        RAISE EXCEPTION '% is colocated with %, which is not distributed (yet)', fn, colocate_with;
    END IF;
    INSERT INTO placed_functions VALUES (fn, arg);
END;
$$;
"""

TABLES_SQL = """
SELECT c.relname FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
 WHERE n.nspname = 'public' AND c.relkind IN ('r', 'p')
"""


def on_stand_in(statement: str) -> str:
    return re.sub(r"\b(create_distributed_table|create_reference_table|create_distributed_function)\(",
                  r"pg_temp.\1(", statement)


async def test_every_table_of_the_schema_is_placed_by_the_citus_layout(
    make_database: Callable[..., Awaitable[str]],
) -> None:
    url = await make_database(migrated=True)
    async with await psycopg.AsyncConnection.connect(url, autocommit=True) as conn:
        await conn.execute(STAND_IN)
        for placement in layout():
            await conn.execute(on_stand_in(placement.statement))
        tables = {name for (name,) in await (await conn.execute(TABLES_SQL)).fetchall()}
        placed = {name for (name,) in await (await conn.execute("SELECT rel::text FROM placed")).fetchall()}
    assert tables - COORDINATOR_ONLY == placed


async def test_the_citus_stand_in_refuses_what_citus_refuses(
    make_database: Callable[..., Awaitable[str]],
) -> None:
    url = await make_database(migrated=False)
    async with await psycopg.AsyncConnection.connect(url, autocommit=True) as conn:
        await conn.execute(STAND_IN)
        await conn.execute("CREATE TABLE a (k text PRIMARY KEY, n int UNIQUE)")
        await conn.execute("CREATE TABLE b (k bigint PRIMARY KEY)")
        await conn.execute("CREATE TABLE c (k text PRIMARY KEY)")
        with pytest.raises(psycopg.errors.RaiseException, match="without its distribution column"):
            await conn.execute("SELECT pg_temp.create_distributed_table('a', 'k')")
        with pytest.raises(psycopg.errors.RaiseException, match="has no column"):
            await conn.execute("SELECT pg_temp.create_distributed_table('c', 'nope')")
        with pytest.raises(psycopg.errors.RaiseException, match="not distributed"):
            await conn.execute("SELECT pg_temp.create_distributed_table('c', 'k', colocate_with => 'b')")
        await conn.execute("SELECT pg_temp.create_distributed_table('b', 'k')")
        with pytest.raises(psycopg.errors.RaiseException, match="cannot be colocated"):
            await conn.execute("SELECT pg_temp.create_distributed_table('c', 'k', colocate_with => 'b')")


async def test_migrate_citus_on_a_server_without_citus_says_so_and_changes_nothing(
    make_database: Callable[..., Awaitable[str]], capsys: pytest.CaptureFixture[str]
) -> None:
    url = await make_database(migrated=False)
    status = await asyncio.to_thread(main, ["migrate", "--citus", "--database-url", url])
    assert status == 2
    assert "no citus extension" in capsys.readouterr().err
    async with await psycopg.AsyncConnection.connect(url) as conn:
        tables = await (await conn.execute(TABLES_SQL)).fetchall()
    assert tables == []  # not even the migrations ran


def test_the_deployment_guide_and_the_overlay_apply_the_citus_layout() -> None:
    assert "stud-service migrate --citus" in DEPLOYMENT_GUIDE.read_text()
    overlay = (ROOT / "k8s" / "overlays" / "citus" / "migrate-citus.yaml").read_text()
    assert '"--citus"' in overlay
