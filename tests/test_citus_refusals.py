"""``stud-service migrate --citus`` refuses, exit 2 with the reason and nothing changed (not even the
migrations), whenever the layout cannot be applied: Citus installed but not preloaded, preloaded but the
extension not created (so no worker can have been added), no worker added, a worker that does not answer.
(A server without Citus at all: tests/test_citus_layout.py.) Real PostgreSQL 15 servers, started here."""

from __future__ import annotations

import asyncio
import shutil
import tempfile
from collections.abc import Iterator
from pathlib import Path

import psycopg
import pytest
from citus_cluster import CITUS_SETTINGS, DATABASE, migrate_citus, require_citus, server
from own_postgres import OwnPostgres

pytestmark = pytest.mark.citus

TABLES_SQL = "SELECT count(*) FROM pg_tables WHERE schemaname = 'public'"


@pytest.fixture(scope="module")
def servers() -> Iterator[tuple[OwnPostgres, OwnPostgres]]:
    """A coordinator started without Citus preloaded, and a worker with it."""
    require_citus()
    root = Path(tempfile.mkdtemp(prefix="stud-citus-refusals-"))
    root.chmod(0o755)  # the servers run as postgres, in folders below
    coordinator = server(root / "coordinator", preload=False)
    try:
        worker = server(root / "worker")
        try:
            yield coordinator, worker
        finally:
            worker.destroy()
    finally:
        coordinator.destroy()
        shutil.rmtree(root, ignore_errors=True)


def tables(node: OwnPostgres) -> int:
    with psycopg.connect(node.url(DATABASE)) as conn:
        row = conn.execute(TABLES_SQL).fetchone()
    assert row is not None
    return int(row[0])


async def refused(node: OwnPostgres, reason: str) -> None:
    status, output = await asyncio.to_thread(migrate_citus, node.url(DATABASE))
    assert status == 2, output
    assert reason in output and "nothing was changed" in output, output
    assert "Traceback" not in output
    assert tables(node) == 0  # no migration ran


def sql(node: OwnPostgres, *statements: str) -> None:
    with psycopg.connect(node.url(DATABASE), autocommit=True) as conn:
        for statement in statements:
            conn.execute(statement)


async def test_migrate_citus_refuses_each_cluster_it_cannot_lay_out_and_changes_nothing(
    servers: tuple[OwnPostgres, OwnPostgres],
) -> None:
    coordinator, worker = servers
    await refused(coordinator, "not preloaded")

    coordinator.settings = dict(CITUS_SETTINGS)
    coordinator.stop()
    coordinator.start()
    await refused(coordinator, "extension is not created")

    sql(coordinator, "CREATE EXTENSION citus",
        f"SELECT citus_set_coordinator_host('127.0.0.1', {coordinator.port})")
    await refused(coordinator, "has no workers")

    sql(worker, "CREATE EXTENSION citus")
    sql(coordinator, f"SELECT citus_add_node('127.0.0.1', {worker.port})")
    worker.stop()
    try:
        await refused(coordinator, "do not answer")
    finally:
        worker.start()
    status, output = await asyncio.to_thread(migrate_citus, coordinator.url(DATABASE))
    assert status == 0, output  # and with its worker back, the layout goes in
    assert tables(coordinator) > 0
