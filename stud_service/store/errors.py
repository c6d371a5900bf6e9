"""Errors raised by the event store.

::

    StoreError
    ├── ConcurrencyError        the stream is not at the expected version (another writer won); reload, retry
    ├── LeaseLost               a fenced append's lease is no longer the writer's (expired, taken);
    │                           nothing written
    ├── InvalidEvent            an event cannot be stored (missing type, float, NUL, ...); nothing written
    ├── CorruptStream           a stored event cannot be decoded or replayed; names stream and version
    └── StoreUnavailable        the database connection failed; for an append the outcome is unknown,
                                so retry with the same request id (that is safe: see ``append``)
"""

from __future__ import annotations

import psycopg


class StoreError(Exception):
    """Base of every error the store raises."""


class ConcurrencyError(StoreError):
    def __init__(self, stream_id: str, expected_version: int, actual_version: int) -> None:
        super().__init__(
            f"stream {stream_id!r} is at version {actual_version}, not the expected {expected_version}"
        )
        self.stream_id = stream_id
        self.expected_version = expected_version
        self.actual_version = actual_version


class LeaseLost(StoreError):
    def __init__(self, lease: str, owner: str, epoch: int) -> None:
        super().__init__(f"the lease of {lease!r} is no longer {owner!r}'s at epoch {epoch}")
        self.lease = lease
        self.owner = owner
        self.epoch = epoch


class InvalidEvent(StoreError):
    pass


class CorruptStream(StoreError):
    def __init__(self, stream_id: str, version: int, reason: str) -> None:
        super().__init__(f"stream {stream_id!r} version {version}: {reason}")
        self.stream_id = stream_id
        self.version = version
        self.reason = reason


class StoreUnavailable(StoreError):
    pass


def is_store_fault(error: BaseException) -> bool:
    """Whether ``error`` means the database could not serve the request (down, unreachable, out of
    connections, out of disk, shutting down): worth retrying later, unlike a refusal or a bug.
    psycopg's OperationalError covers them all, the pool's timeout included."""
    return isinstance(error, (StoreUnavailable, psycopg.OperationalError))
