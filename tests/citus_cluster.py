"""A Citus cluster of a test module's own: a coordinator and two workers, PostgreSQL 15 servers on free
loopback ports (as the ``postgres`` user when run as root), each with Citus preloaded.

Tests that need it are marked ``citus`` (``make citus-test`` runs only them) and skip, saying why, where
Citus is not installed for PostgreSQL 15; .ci/run installs it first. One cluster per module: starting one
takes seconds, and the tests of a module share its database (each uses streams of its own).
"""

from __future__ import annotations

import contextlib
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

import psycopg
import pytest
from own_postgres import OwnPostgres

PG15_BIN = Path("/usr/lib/postgresql/15/bin")
DATABASE = "stud"
# The nodes talk over loopback, without TLS.
CITUS_SETTINGS = {
    "shared_preload_libraries": "citus",
    "citus.node_conninfo": "sslmode=disable",
    "max_prepared_transactions": "100",  # two-phase commit of a transaction over several workers
}


def citus_missing_reason() -> str | None:
    """Why no Citus cluster can run here, or None when one can."""
    if not (PG15_BIN / "pg_ctl").exists():
        return f"PostgreSQL 15 is not installed ({PG15_BIN} has no pg_ctl)"
    lib = Path(_pg_config("--pkglibdir")) / "citus.so"
    if not lib.exists():
        return f"Citus is not installed for PostgreSQL 15 ({lib} is missing; .ci/run builds it)"
    return None


def _pg_config(flag: str) -> str:
    return subprocess.run([str(PG15_BIN / "pg_config"), flag], check=True, capture_output=True,
                          text=True).stdout.strip()


def require_citus() -> None:
    reason = citus_missing_reason()
    if reason is not None:
        pytest.skip(reason)


@dataclass
class CitusCluster:
    root: Path
    coordinator: OwnPostgres
    workers: list[OwnPostgres] = field(default_factory=list)

    @property
    def url(self) -> str:
        """The coordinator's database: what the service and ``migrate --citus`` are given."""
        return self.coordinator.url(DATABASE)

    def nodes(self) -> list[OwnPostgres]:
        return [self.coordinator, *self.workers]

    def destroy(self) -> None:
        for node in self.nodes():
            node.destroy()
        shutil.rmtree(self.root, ignore_errors=True)


def server(workdir: Path, preload: bool = True) -> OwnPostgres:
    """A PostgreSQL 15 server started with (or without) Citus preloaded, with an empty ``stud`` database."""
    node = OwnPostgres(workdir, PG15_BIN, CITUS_SETTINGS if preload else {})
    node.init_from_copy()
    node.start()
    with psycopg.connect(node.maintenance_url, autocommit=True) as conn:
        conn.execute(f"CREATE DATABASE {DATABASE}")
    return node


def start_cluster(workers: int = 2) -> CitusCluster:
    """Start the nodes, create the extension on each and register the workers with the coordinator; the
    schema is left to ``stud-service migrate --citus``."""
    root = Path(tempfile.mkdtemp(prefix="stud-citus-"))
    root.chmod(0o755)  # the servers run as postgres, in folders below
    cluster = CitusCluster(root, server(root / "coordinator"))
    try:
        cluster.workers = [server(root / f"worker{i}") for i in range(workers)]
        for node in cluster.workers:
            with psycopg.connect(node.url(DATABASE), autocommit=True) as conn:
                conn.execute("CREATE EXTENSION citus")
        with psycopg.connect(cluster.url, autocommit=True) as conn:
            conn.execute("CREATE EXTENSION citus")
            conn.execute("SELECT citus_set_coordinator_host('127.0.0.1', %s)", (cluster.coordinator.port,))
            for node in cluster.workers:
                conn.execute("SELECT citus_add_node('127.0.0.1', %s)", (node.port,))
    except BaseException:
        cluster.destroy()
        raise
    return cluster


@contextlib.contextmanager
def running_cluster(workers: int = 2) -> Iterator[CitusCluster]:
    require_citus()
    cluster = start_cluster(workers)
    try:
        yield cluster
    finally:
        cluster.destroy()


def migrate_citus(url: str) -> tuple[int, str]:
    """``stud-service migrate --citus`` on ``url``, in a process of its own: its exit status and output."""
    done = subprocess.run(
        [sys.executable, "-m", "stud_service.cli", "migrate", "--citus", "--database-url", url],
        capture_output=True, text=True, timeout=300,
    )
    return done.returncode, done.stdout + done.stderr


@pytest.fixture(scope="module")
def citus() -> Iterator[CitusCluster]:
    """A module's own Citus cluster, migrated and laid out by ``stud-service migrate --citus``."""
    with running_cluster() as cluster:
        status, output = migrate_citus(cluster.url)
        assert status == 0, output
        yield cluster
