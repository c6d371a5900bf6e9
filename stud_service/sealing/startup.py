"""Which keyring a process uses, and a sealed store ready to use (the registry checked)."""

from __future__ import annotations

import logging
from typing import Any

from psycopg_pool import AsyncConnectionPool

from stud_service.db.settings import DatabaseSettings, describe_url
from stud_service.sealing.errors import NoKeyring
from stud_service.sealing.keyring import KEYS_ENV, KEYS_FILE_ENV, Keyring, development_keyring, load_keyring
from stud_service.sealing.registry import start_sealing
from stud_service.sealing.sealer import EventSealer
from stud_service.store import EventStore

_log = logging.getLogger(__name__)


def resolve_keyring(keys_file: str | None, database: DatabaseSettings) -> Keyring:
    """The keyring of ``--keys-file`` / ``STUD_KEYS_FILE`` / ``STUD_KEYS``; with the embedded database and
    none of them, the development keyring kept beside its data directory (generated on first use)."""
    keyring = load_keyring(keys_file)
    if keyring is not None:
        return keyring
    if database.url is None:
        keyring, generated = development_keyring(database.data_dir)
        _log.info(
            "%s the development keyring %s (embedded database only; set %s for a real one)",
            "generated" if generated else "using",
            keyring.source,
            KEYS_FILE_ENV,
        )
        return keyring
    raise NoKeyring(
        f"no keyring: the hands in {describe_url(database.url)} are sealed with keys the service reads from"
        f" ${KEYS_FILE_ENV}, --keys-file or ${KEYS_ENV} (docs/keys.md)"
    )


async def open_sealed_store(
    pool: AsyncConnectionPool, keyring: Keyring, *, register_active: bool = True, **store_options: Any
) -> EventStore:
    """An EventStore that seals and opens with ``keyring``, once the key registry agrees with it."""
    sealer = EventSealer(keyring)
    store = EventStore(pool, sealer=sealer, **store_options)
    try:
        await start_sealing(store, sealer, register_active=register_active)
    except BaseException:
        await store.close()
        raise
    return store


def add_keys_argument(parser: Any) -> None:
    """``--keys-file`` for the commands that read sealed events."""
    parser.add_argument(
        "--keys-file",
        help=f"JSON keyring that opens sealed cards and seeds (default: ${KEYS_FILE_ENV}, then ${KEYS_ENV};"
        " with the embedded database, its development keyring)",
    )
