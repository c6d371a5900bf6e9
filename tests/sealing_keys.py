"""The test session's keyring: every store and server under test seals with it (the suite runs sealed).

``TEST_KEYRING``            one fresh key-encryption key for the session
``keyring_file()``          the same keyring as a 0600 file, for servers started as child processes
``sealed_store(pool, ...)`` an EventStore sealing and opening with it (no key registry: store tests)
"""

from __future__ import annotations

import atexit
import shutil
import tempfile
from pathlib import Path
from typing import Any

from psycopg_pool import AsyncConnectionPool

from stud_service.sealing import EventSealer, Keyring
from stud_service.sealing.keyring import new_key, write_keyring_file
from stud_service.store import EventStore

TEST_KID = "test-1"
TEST_KEYRING = Keyring(TEST_KID, {TEST_KID: new_key()}, "the test keyring")
_files: list[Path] = []


def keyring_file() -> Path:
    if not _files:
        directory = Path(tempfile.mkdtemp(prefix="stud-test-keys-"))
        atexit.register(shutil.rmtree, directory, True)
        path = directory / "keys.json"
        write_keyring_file(path, TEST_KEYRING)
        _files.append(path)
    return _files[0]


def sealed_store(pool: AsyncConnectionPool, **options: Any) -> EventStore:
    return EventStore(pool, sealer=EventSealer(TEST_KEYRING), **options)
