"""The event log for an operator's command, its access recorded first (``stud_service.access.local``)."""

from __future__ import annotations

import argparse
import contextlib
from collections.abc import AsyncIterator
from typing import Any

from stud_service.db import open_database, settings_from_args


@contextlib.asynccontextmanager
async def recorded_store(
    args: argparse.Namespace, command: str, resource: str, max_size: int = 4, keyring: Any = None
) -> AsyncIterator[Any]:
    """Open the database of ``args``, append the access record of ``stud-service {command}`` about
    ``resource``, and yield the EventStore (opening sealed secrets with ``keyring``, when given); nothing
    is read before the record is in the log."""
    from stud_service.access.local import record_command
    from stud_service.sealing import open_sealed_store
    from stud_service.store import EventStore

    async with open_database(settings_from_args(args), max_size=max_size) as database:
        # Nobody follows the access streams: no announcements.
        if keyring is None:
            store = EventStore(database.pool, announce=False)
        else:
            store = await open_sealed_store(database.pool, keyring, register_active=False, announce=False)
        try:
            await record_command(store, command, resource)
            yield store
        finally:
            await store.close()
