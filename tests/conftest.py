"""Shared fixtures: a real PostgreSQL for the whole test session.

- ``STUD_TEST_DATABASE_URL`` set: that server is used (the role must be allowed to create databases).
- not set: one embedded PostgreSQL (``pgserver``) is started in a temporary directory for the session
  and deleted at the end (servers orphaned by killed sessions are cleaned up at the next start).

Either way the session works in a database of its own, created fresh and migrated, so concurrent
test runs on one server do not see each other. Fixtures:

``pg_server_url``      URL of the server's maintenance database (for creating databases)
``database_url``       URL of the session's migrated database
``db_pool``            an open AsyncConnectionPool (autocommit) on it
``event_store``        an EventStore on that pool, sealing with the session's keyring (sealing_keys.py)
``make_database``      factory: ``await make_database(migrated=False)`` -> URL of a new empty database
``stream_id``          a stream id no other test uses

Every async test runs in the session's event loop (the pool lives there too).
Other test plugins are listed in ``pytest_plugins`` below.
"""

from __future__ import annotations

import contextlib
import json
import os

# As in stud_service/cli.py: no gRPC fork handlers in a child forked only to exec (they have crashed one).
os.environ.setdefault("GRPC_ENABLE_FORK_SUPPORT", "false")

import shutil
import signal
import tempfile
import time
import uuid
from collections.abc import AsyncIterator, Awaitable, Callable, Iterator
from pathlib import Path

import psutil
import psycopg
import pytest
import pytest_asyncio
from hypothesis import settings
from psycopg.conninfo import make_conninfo
from psycopg_pool import AsyncConnectionPool
from pytest_asyncio import is_async_test
from sealing_keys import keyring_file, sealed_store

from stud_service.db import EmbeddedPostgres, open_pool
from stud_service.sealing.keyring import KEYS_ENV, KEYS_FILE_ENV
from stud_service.store import EventStore, apply_migrations

pytest_plugins: list[str] = [
    "grpc_fixtures", "web_fixtures", "browser_fixtures", "citus_cluster", "ha_fixtures",
]

# Commands run in-process (``stud_service.cli.main``) and child processes read the session's keyring too.
os.environ[KEYS_FILE_ENV] = str(keyring_file())
os.environ.pop(KEYS_ENV, None)
# Child ``serve`` processes bind no web port unless a test asks for one: two would collide on 8080.
os.environ["STUD_WEB_LISTEN"] = "off"

TEST_DATABASE_URL_ENV = "STUD_TEST_DATABASE_URL"

# No property test has a deadline: on a loaded machine one example can take a second, which says nothing of
# the property (hypothesis' 200 ms default failed tests at random there). Speed is the benchmarks' business.
settings.register_profile("suite", deadline=None)
settings.load_profile("suite")


BASETEMP_PREFIX = "stud-pytest-"
_OWN_BASETEMP = pytest.StashKey[Path]()  # the base temporary directory this run made (and removes)


@pytest.hookimpl(tryfirst=True)  # before pytest's own tmp_path factory reads the option
def pytest_configure(config: pytest.Config) -> None:
    """Each run gets a base temporary directory of its own (unless ``--basetemp`` names one): pytest's
    default, numbered directories under one parent, lets a run remove the directories of older runs still
    going beside it (an embedded PostgreSQL's data among them). xdist workers get subdirectories of it."""
    if hasattr(config, "workerinput") or config.option.basetemp:
        return
    config.option.basetemp = tempfile.mkdtemp(prefix=BASETEMP_PREFIX)
    config.stash[_OWN_BASETEMP] = Path(config.option.basetemp)


def pytest_unconfigure(config: pytest.Config) -> None:
    basetemp = config.stash.get(_OWN_BASETEMP, None)
    if basetemp is not None:
        shutil.rmtree(basetemp, ignore_errors=True)

BROWSER_GROUP = "browser"


@pytest.hookimpl(tryfirst=True)  # before xdist's own, which reads the groups off the markers set here
def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    session_loop = pytest.mark.asyncio(loop_scope="session")
    groups: dict[str, list[pytest.Item]] = {}
    for item in items:
        if is_async_test(item):
            item.add_marker(session_loop, append=False)
        group = _run_group(item)
        item.add_marker(pytest.mark.xdist_group(group))
        groups.setdefault(group, []).append(item)
    if config.getoption("dist", "no") == "loadgroup":
        items[:] = _long_groups_first(groups)


def _long_groups_first(groups: dict[str, list[pytest.Item]]) -> list[pytest.Item]:
    """The order in which the workers are handed the groups (pyproject's ``--no-loadscope-reorder`` keeps
    it): groups holding tests marked ``long`` first, most such tests first, then the others, larger groups
    first (xdist's own order). A minute-long group handed out last ran alone while the other worker idled;
    handed out first, the many short groups fill in beside it. A group's tests keep their order."""

    def handed_out(group: list[pytest.Item]) -> tuple[int, int]:
        return -sum(item.get_closest_marker("long") is not None for item in group), -len(group)

    return [item for group in sorted(groups.values(), key=handed_out) for item in group]


def _run_group(item: pytest.Item) -> str:
    """The group of tests one worker runs together (pytest-xdist ``--dist loadgroup``, see pyproject):
    a module's tests stay together, as its module fixtures and test order expect; the tests that need
    Chromium share one worker, and so one browser and one install of it on a fresh machine."""
    if "chromium_path" in getattr(item, "fixturenames", ()):  # the browser fixture's too
        return BROWSER_GROUP
    return item.nodeid.split("::", 1)[0]


EMBEDDED_PREFIX = "stud-test-pg-"


def _alive(pid: int) -> bool:
    return psutil.pid_exists(pid) and psutil.Process(pid).status() != psutil.STATUS_ZOMBIE


def _reap_orphaned_servers(min_age_seconds: float = 60.0) -> None:
    """Stop and delete embedded test servers left by test sessions that were killed (a killed
    pytest cannot stop its server). A server is orphaned when every process that held it is gone."""
    for workdir in Path(tempfile.gettempdir()).glob(EMBEDDED_PREFIX + "*"):
        pgdata = workdir / "pg"
        try:
            if time.time() - workdir.stat().st_mtime < min_age_seconds:
                continue
            holders = json.loads((pgdata / ".handle_pids.json").read_text() or "[]")
            if any(_alive(pid) for pid in holders):
                continue
            postmaster = int((pgdata / "postmaster.pid").read_text().split()[0])
        except (OSError, ValueError, IndexError):
            continue
        with contextlib.suppress(psutil.Error):
            server = psutil.Process(postmaster)
            if str(pgdata) in " ".join(server.cmdline()):
                server.send_signal(signal.SIGQUIT)  # immediate shutdown: its data is thrown away
                server.wait(10)
        shutil.rmtree(workdir, ignore_errors=True)


@pytest.fixture(scope="session")
def pg_server_url() -> Iterator[str]:
    url = os.environ.get(TEST_DATABASE_URL_ENV)
    if url:
        yield url
        return
    _reap_orphaned_servers()
    workdir = tempfile.mkdtemp(prefix=EMBEDDED_PREFIX)
    server = EmbeddedPostgres(os.path.join(workdir, "pg"), delete_on_stop=True)
    try:
        url = server.start()
        _skip_flushing_to_disk(url)
        yield url
    finally:
        server.stop()
        shutil.rmtree(workdir, ignore_errors=True)


def _skip_flushing_to_disk(url: str) -> None:
    """The session's throwaway server writes without waiting for the disk (as own_postgres.py's do):
    no test survives a crash of this server, and every commit and CREATE DATABASE is cheaper. Commits
    stay synchronous (the writer asks for that itself; its tests check it)."""
    with psycopg.connect(url, autocommit=True) as conn:
        conn.execute("ALTER SYSTEM SET fsync = off")
        conn.execute("ALTER SYSTEM SET full_page_writes = off")
        conn.execute("SELECT pg_reload_conf()")


@pytest_asyncio.fixture(scope="session")
async def make_database(pg_server_url: str) -> AsyncIterator[Callable[..., Awaitable[str]]]:
    created: list[str] = []

    async def create(migrated: bool = False) -> str:
        name = f"stud_test_{uuid.uuid4().hex[:12]}"
        async with await psycopg.AsyncConnection.connect(pg_server_url, autocommit=True) as conn:
            await conn.execute(f'CREATE DATABASE "{name}"')
        created.append(name)
        url = make_conninfo(pg_server_url, dbname=name)
        if migrated:
            await apply_migrations(url)
        return url

    yield create
    async with await psycopg.AsyncConnection.connect(pg_server_url, autocommit=True) as conn:
        for name in created:
            await conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


@pytest_asyncio.fixture(scope="session")
async def database_url(make_database: Callable[..., Awaitable[str]]) -> str:
    return await make_database(migrated=True)


@pytest_asyncio.fixture(scope="session")
async def db_pool(database_url: str) -> AsyncIterator[AsyncConnectionPool]:
    pool = await open_pool(database_url, max_size=20)
    yield pool
    await pool.close()


@pytest_asyncio.fixture(scope="session")
async def event_store(db_pool: AsyncConnectionPool) -> AsyncIterator[EventStore]:
    store = sealed_store(db_pool)
    yield store
    await store.close()


@pytest.fixture
def stream_id(request: pytest.FixtureRequest) -> str:
    return f"{request.node.name[:40]}-{uuid.uuid4().hex[:10]}"
