"""Fixtures for the failover tests (marked ``ha``): a Patroni cluster of three PostgreSQL 15 nodes
(``patroni_cluster.py``), skipped with the reason when Patroni, etcd or PostgreSQL 15 are not installed.

``ha_cluster``    the module's cluster, strict synchronous mode, healthy (a leader and a synchronous
                  standby); stopped by PID and deleted when the module's tests are done
``ha_database``   a migrated database on it; its URL names the three hosts with
                  ``target_session_attrs=read-write``
"""

from __future__ import annotations

import tempfile
from collections.abc import AsyncIterator, Iterator
from pathlib import Path

import psycopg
import pytest
import pytest_asyncio
from patroni_cluster import PatroniCluster, missing_tools

from stud_service.store import apply_migrations


@pytest.fixture(scope="module")
def ha_cluster() -> Iterator[PatroniCluster]:
    reason = missing_tools()
    if reason is not None:
        pytest.skip(reason)
    cluster = PatroniCluster(Path(tempfile.mkdtemp(prefix="stud-ha-")))
    try:
        cluster.start()
        yield cluster
    finally:
        cluster.destroy()


@pytest_asyncio.fixture(scope="module", loop_scope="session")
async def ha_database(ha_cluster: PatroniCluster) -> AsyncIterator[str]:
    async with await psycopg.AsyncConnection.connect(ha_cluster.url(), autocommit=True) as conn:
        await conn.execute("CREATE DATABASE stud")
    url = ha_cluster.url("stud")
    await apply_migrations(url)
    yield url
