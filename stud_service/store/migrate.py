"""Numbered schema migrations: ``migrations/NNNN_name.sql``, applied in order, each exactly once.

Applied migrations are recorded in ``schema_migrations`` with a checksum of their text; changing a
migration that has already run is an error (write a new one instead). The whole run holds a
transaction-scoped advisory lock, so replicas starting at the same moment apply each migration once.
"""

from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass
from importlib import resources

import psycopg

# Arbitrary constant identifying "stud-service schema migrations" among advisory locks.
MIGRATION_LOCK_KEY = 0x5354_5544_4D49_47  # "STUDMIG"

_NAME = re.compile(r"^(\d{4})_([a-z0-9_]+)\.sql$")


class MigrationError(RuntimeError):
    pass


@dataclass(frozen=True, slots=True)
class Migration:
    number: int
    name: str
    sql: str

    @property
    def checksum(self) -> str:
        return hashlib.sha256(self.sql.encode("utf-8")).hexdigest()


def available_migrations() -> list[Migration]:
    """The migrations shipped with the package, in order."""
    found = []
    for entry in resources.files("stud_service.store.migrations").iterdir():
        match = _NAME.match(entry.name)
        if match:
            found.append(Migration(int(match.group(1)), match.group(2), entry.read_text("utf-8")))
    found.sort(key=lambda m: m.number)
    numbers = [m.number for m in found]
    if numbers != list(range(1, len(found) + 1)):
        raise MigrationError(f"migrations must be numbered 0001, 0002, ... without gaps; found {numbers}")
    return found


async def apply_migrations(url: str) -> list[Migration]:
    """Apply the pending migrations to the database at ``url``; return the ones applied now."""
    async with await psycopg.AsyncConnection.connect(url) as conn:
        return await apply_migrations_on(conn)


async def apply_migrations_on(conn: psycopg.AsyncConnection) -> list[Migration]:
    applied_now: list[Migration] = []
    async with conn.transaction():
        await conn.execute("SELECT pg_advisory_xact_lock(%s)", (MIGRATION_LOCK_KEY,))
        await conn.execute(
            """
            CREATE TABLE IF NOT EXISTS schema_migrations (
                number     integer     PRIMARY KEY,
                name       text        NOT NULL,
                checksum   text        NOT NULL,
                applied_at timestamptz NOT NULL DEFAULT now()
            )
            """
        )
        cur = await conn.execute("SELECT number, name, checksum FROM schema_migrations")
        recorded = {number: (name, checksum) for number, name, checksum in await cur.fetchall()}
        for migration in available_migrations():
            if migration.number in recorded:
                name, checksum = recorded[migration.number]
                if checksum != migration.checksum:
                    raise MigrationError(
                        f"migration {migration.number:04d}_{name} was changed after it was applied"
                    )
                continue
            await conn.execute(migration.sql)
            await conn.execute(
                "INSERT INTO schema_migrations (number, name, checksum) VALUES (%s, %s, %s)",
                (migration.number, migration.name, migration.checksum),
            )
            applied_now.append(migration)
    return applied_now
