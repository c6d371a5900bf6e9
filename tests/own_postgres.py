"""A PostgreSQL server of a test's own, to stop, restart and starve without touching the suite's.

Run from the Debian PostgreSQL binaries (``/usr/lib/postgresql/*/bin``) or, failing those, pgserver's
own, on a free loopback port with its socket in its own directory. PostgreSQL refuses to run as root,
so as root the server runs as the ``postgres`` (or ``pgserver``) user.
"""

from __future__ import annotations

import asyncio
import atexit
import contextlib
import functools
import glob
import os
import pwd
import shutil
import subprocess
import tempfile
from collections.abc import AsyncIterator
from pathlib import Path

import psycopg
from grpc_fixtures import free_port


def _bin_dir() -> Path:
    for candidate in sorted(glob.glob("/usr/lib/postgresql/*/bin"), reverse=True):
        if (Path(candidate) / "pg_ctl").exists():
            return Path(candidate)
    import pgserver

    return Path(pgserver.__file__).parent / "pginstall" / "bin"


def _server_user() -> str | None:
    if os.geteuid() != 0:
        return None
    for name in ("postgres", "pgserver"):
        with contextlib.suppress(KeyError):
            pwd.getpwnam(name)
            return name
    raise RuntimeError("running as root and there is no postgres user to run PostgreSQL as")


@functools.cache
def _initialised_cluster(bin_dir: Path | None = None) -> Path:
    """One initdb per test run (and binaries); each server starts from a copy (initdb takes seconds, a copy
    does not)."""
    holder = Path(tempfile.mkdtemp(prefix="stud-fault-pg-template-"))
    atexit.register(shutil.rmtree, holder, True)
    template = OwnPostgres(holder, bin_dir)
    template.init()
    return template.data


class OwnPostgres:
    def __init__(
        self, workdir: Path, bin_dir: Path | None = None, settings: dict[str, str] | None = None
    ) -> None:
        self.workdir = workdir
        self.data = workdir / "data"
        self.port = free_port()
        self.bin = bin_dir or _bin_dir()
        self.user = _server_user()
        self.settings = dict(settings or {})  # more -c settings at every start (shared_preload_libraries...)
        self.running = False

    @property
    def maintenance_url(self) -> str:
        return f"postgresql://postgres@127.0.0.1:{self.port}/postgres"

    def url(self, database: str) -> str:
        return f"postgresql://postgres@127.0.0.1:{self.port}/{database}"

    def _run(self, *args: str) -> None:
        command = [str(self.bin / args[0]), *args[1:]]
        if self.user is not None:
            command = ["runuser", "-u", self.user, "--", *command]
        subprocess.run(command, check=True, capture_output=True, timeout=60)

    def own(self, path: Path) -> None:
        """Make ``path`` the server's (as root, the server runs as another user)."""
        if self.user is not None:
            entry = pwd.getpwnam(self.user)
            os.chown(path, entry.pw_uid, entry.pw_gid)

    def init(self) -> None:
        self.workdir.mkdir(parents=True, exist_ok=True)
        self.own(self.workdir)
        self._run("initdb", "-D", str(self.data), "-U", "postgres", "--auth=trust", "-N", "-E", "UTF8")

    def init_from_copy(self) -> None:
        """As :meth:`init`, from a copy of a cluster initialised once per test run."""
        self.workdir.mkdir(parents=True, exist_ok=True)
        self.own(self.workdir)
        template = _initialised_cluster(self.bin)
        subprocess.run(["cp", "-a", str(template), str(self.data)], check=True, timeout=60)

    def start(self, extra_options: str = "") -> None:
        """Start the server; ``extra_options``: more ``-c name=value`` settings."""
        options = (
            f"-p {self.port} -c listen_addresses=127.0.0.1 -k {self.workdir}"
            f" -c fsync=off -c synchronous_commit=off -c full_page_writes=off {extra_options}"
        ) + "".join(f" -c {name}={value}" for name, value in self.settings.items())
        self._run(
            "pg_ctl", "-D", str(self.data), "-l", str(self.workdir / "log"), "-o", options, "-w", "start"
        )
        self.running = True

    def init_standby_of(self, primary: OwnPostgres) -> None:
        """Make this a hot standby streaming from ``primary`` (running): its base backup, with the settings
        that make it follow (``standby.signal``, ``primary_conninfo``)."""
        self.workdir.mkdir(parents=True, exist_ok=True)
        self.own(self.workdir)
        self._run("pg_basebackup", "-h", "127.0.0.1", "-p", str(primary.port), "-U", "postgres",
                  "-D", str(self.data), "-R", "-X", "stream", "-c", "fast")

    def stop(self, mode: str = "fast") -> None:
        self._run("pg_ctl", "-D", str(self.data), "-m", mode, "-w", "stop")
        self.running = False

    def log_text(self) -> str:
        return (self.workdir / "log").read_text(errors="replace")

    def destroy(self) -> None:
        if self.running:
            with contextlib.suppress(subprocess.SubprocessError):
                self.stop("immediate")
        shutil.rmtree(self.workdir, ignore_errors=True)


@contextlib.asynccontextmanager
async def started_with_database(prefix: str, database: str = "stud") -> AsyncIterator[OwnPostgres]:
    """A server of the caller's own in a new directory named from ``prefix``, started, with an empty
    ``database``; destroyed afterwards."""
    pg = OwnPostgres(Path(tempfile.mkdtemp(prefix=prefix)))
    try:
        await asyncio.to_thread(pg.init_from_copy)
        await asyncio.to_thread(pg.start)
        with psycopg.connect(pg.maintenance_url, autocommit=True) as conn:
            conn.execute(f"CREATE DATABASE {database}")
        yield pg
    finally:
        await asyncio.to_thread(pg.destroy)
