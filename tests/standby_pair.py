"""A PostgreSQL primary and one hot standby streaming from it (``pg_basebackup``), each on a free loopback
port in a directory of its own, with ``pg_stat_statements`` on both: for the standby reads' tests and
benchmark.

    pair = StandbyPair.start(workdir)     # blocking: from async code use a thread
    pair.sql(pair.standby, "SELECT pg_wal_replay_pause()")
    pair.calls(pair.primary, "FROM events")  # statements holding that text the server ran
    pair.destroy()
"""

from __future__ import annotations

import glob
import time
from dataclasses import dataclass
from pathlib import Path

import psycopg
from own_postgres import OwnPostgres

STATEMENTS = "-c shared_preload_libraries=pg_stat_statements"
DATABASE = "stud"
STREAMING_WITHIN = 60.0  # seconds a standby started may take to stream


def missing() -> str:
    """Why a pair cannot be started here ('' if it can)."""
    if not glob.glob("/usr/lib/postgresql/*/bin/pg_basebackup"):
        return "needs the Debian PostgreSQL server binaries (pg_basebackup): apt-get install postgresql-15"
    if not glob.glob("/usr/share/postgresql/*/extension/pg_stat_statements.control"):
        return "needs PostgreSQL's pg_stat_statements (Debian's postgresql-15 has it)"
    return ""


@dataclass
class StandbyPair:
    primary: OwnPostgres
    standby: OwnPostgres

    @classmethod
    def start(cls, workdir: Path) -> StandbyPair:
        """A primary with the database ``stud`` (and pg_stat_statements in it), and its standby streaming."""
        pair = cls(OwnPostgres(workdir / "primary"), OwnPostgres(workdir / "standby"))
        try:
            pair.primary.own(workdir)  # each server's directory is under it
            pair.primary.init_from_copy()
            pair.primary.start(STATEMENTS)
            with psycopg.connect(pair.primary.maintenance_url, autocommit=True) as conn:
                conn.execute(f"CREATE DATABASE {DATABASE}")
            pair.sql(pair.primary, "CREATE EXTENSION pg_stat_statements")
            pair.standby.init_standby_of(pair.primary)
            pair.start_standby()
        except BaseException:
            pair.destroy()
            raise
        return pair

    def url(self, server: OwnPostgres) -> str:
        return server.url(DATABASE)

    def sql(self, server: OwnPostgres, query: str, params: tuple = ()) -> list[tuple]:
        with psycopg.connect(server.url(DATABASE), autocommit=True) as conn:
            cursor = conn.execute(query, params)
            return cursor.fetchall() if cursor.description else []

    def calls(self, server: OwnPostgres, fragment: str) -> int:
        """How many times ``server`` ran statements holding ``fragment`` (as pg_stat_statements counts; it
        keeps their text with each constant as ``$n``)."""
        rows = self.sql(server, "SELECT coalesce(sum(calls), 0)::bigint FROM pg_stat_statements"
                                " WHERE strpos(query, %s) > 0", (fragment,))
        return rows[0][0]

    def start_standby(self) -> None:
        """Start the standby (again) and wait until the primary streams to it."""
        self.standby.start(STATEMENTS)
        deadline = time.monotonic() + STREAMING_WITHIN
        while not self.sql(self.primary, "SELECT 1 FROM pg_stat_replication WHERE state = 'streaming'"):
            if time.monotonic() > deadline:
                raise RuntimeError(f"the standby did not stream within {STREAMING_WITHIN} s")
            time.sleep(0.1)

    def destroy(self) -> None:
        self.standby.destroy()
        self.primary.destroy()
