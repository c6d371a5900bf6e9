"""Database settings from command-line flags and the environment.

Precedence: an explicit flag, then the environment (``DATABASE_URL``, ``STUD_DATA_DIR``), then the
default. No URL at all means "use the embedded PostgreSQL in the data directory".
"""

from __future__ import annotations

import argparse
import os
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

import platformdirs
from psycopg.conninfo import conninfo_to_dict

DATABASE_URL_ENV = "DATABASE_URL"
DATA_DIR_ENV = "STUD_DATA_DIR"


def default_data_dir() -> Path:
    """The service's data directory when none is given (the embedded PostgreSQL lives in ``pg/`` under it)."""
    return Path(platformdirs.user_data_dir("stud-service"))


@dataclass(frozen=True, slots=True)
class DatabaseSettings:
    """Which PostgreSQL to use: ``url`` if set, otherwise the embedded one under ``data_dir``."""

    url: str | None
    data_dir: Path

    @property
    def embedded_pgdata(self) -> Path:
        return self.data_dir / "pg"

    @classmethod
    def resolve(
        cls,
        url: str | None = None,
        data_dir: str | os.PathLike[str] | None = None,
        environ: Mapping[str, str] | None = None,
    ) -> DatabaseSettings:
        env = os.environ if environ is None else environ
        chosen_url = url or env.get(DATABASE_URL_ENV) or None
        chosen_dir = data_dir or env.get(DATA_DIR_ENV) or default_data_dir()
        return cls(url=chosen_url, data_dir=Path(chosen_dir).expanduser())


def describe_url(url: str) -> str:
    """Where a URL points, for messages: ``host[:port]/dbname`` — never the user's password."""
    try:
        parts = conninfo_to_dict(url)
    except Exception:  # an unparsable URL must still yield a message without secrets
        return "<unparsable database URL>"
    host = str(parts.get("host") or "localhost")
    port = parts.get("port")
    dbname = parts.get("dbname")
    where = f"{host}:{port}" if port else host
    return f"{where}/{dbname}" if dbname else where


def redact_url(url: str) -> str:
    """The URL with any password replaced by ``***`` (for logs)."""
    try:
        parts = conninfo_to_dict(url)
    except Exception:
        return "<unparsable database URL>"
    if "password" in parts:
        parts["password"] = "***"
    return " ".join(f"{key}={value}" for key, value in parts.items())


def add_database_arguments(parser: argparse.ArgumentParser) -> None:
    """The ``--database-url`` and ``--data-dir`` flags, shared by every command that uses the database."""
    parser.add_argument(
        "--database-url",
        help=f"PostgreSQL URL (default: ${DATABASE_URL_ENV}; none: run the embedded PostgreSQL)",
    )
    parser.add_argument(
        "--data-dir",
        help=f"data directory; the embedded PostgreSQL lives in its pg/ (default: ${DATA_DIR_ENV}"
        f" or {default_data_dir()})",
    )


def settings_from_args(args: argparse.Namespace) -> DatabaseSettings:
    return DatabaseSettings.resolve(url=args.database_url, data_dir=args.data_dir)
