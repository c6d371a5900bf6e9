"""``stud-service migrate``: bring the database schema up to date (the service also does this at start)."""

from __future__ import annotations

import argparse
import asyncio
import sys

from stud_service.db import DatabaseUnavailable, EmbeddedPostgres, add_database_arguments, settings_from_args
from stud_service.db.connect import check_reachable
from stud_service.store.citus import CitusUnavailable, apply_layout, check_citus
from stud_service.store.migrate import MigrationError, apply_migrations


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "migrate",
        help="apply pending schema migrations",
        description="Apply the numbered schema migrations not yet recorded in the database. Safe to repeat.",
    )
    add_database_arguments(parser)
    parser.add_argument(
        "--citus",
        action="store_true",
        help="then spread the tables over the Citus cluster the database URL names (its coordinator),"
        " as docs/deployment.md 'Beyond one database' describes; safe to repeat",
    )
    parser.set_defaults(func=run)


async def _migrate(url: str | None, pgdata, citus: bool) -> tuple[list[str], list[str]]:
    embedded = None
    if url is None:
        embedded = EmbeddedPostgres(pgdata)
        url = await asyncio.to_thread(embedded.start)
    try:
        await check_reachable(url)
        if citus:  # before any migration, so a server without Citus is left as it was
            await check_citus(url)
        applied = [f"{m.number:04d}_{m.name}" for m in await apply_migrations(url)]
        return applied, (await apply_layout(url) if citus else [])
    finally:
        if embedded is not None:
            await asyncio.to_thread(embedded.stop)


def run(args: argparse.Namespace) -> int:
    settings = settings_from_args(args)
    try:
        applied, placed = asyncio.run(_migrate(settings.url, settings.embedded_pgdata, args.citus))
    except (DatabaseUnavailable, MigrationError, CitusUnavailable) as error:
        print(f"stud-service migrate: {error}", file=sys.stderr)
        return 2
    if applied:
        print("applied " + ", ".join(applied))
    else:
        print("database schema is up to date")
    if args.citus:
        print("distributed " + ", ".join(placed) if placed
              else "every table and function is already placed on Citus")
    return 0
