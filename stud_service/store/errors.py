"""Errors raised by the event store.

::

    StoreError
    ├── ConcurrencyError        the stream is not at the expected version (another writer won); reload, retry
    ├── LeaseLost               a fenced append's lease is no longer the writer's (expired, taken);
    │                           nothing written
    ├── InvalidEvent            an event cannot be stored (missing type, float, NUL, ...); nothing written
    ├── CorruptStream           a stored event cannot be decoded or replayed; names stream and version
    └── StoreUnavailable        the database connection failed, or the database refuses every write (out
        │                       of disk, read-only); nothing was written
        └── OutcomeUnknown      an append's connection was lost while it committed and the store could not
                                learn the outcome (no request id, or the database stayed away past the
                                wait, see ``store.outcome``); retry with the same request id (safe: see
                                ``append``)
"""

from __future__ import annotations

import psycopg
import psycopg.errors


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


class OutcomeUnknown(StoreUnavailable):
    pass


# The database refuses these writes whatever they write: it is out of disk, or read-only (a standby, or
# default_transaction_read_only set for maintenance). Retrying later is all a writer can do.
WRITES_REFUSED = (psycopg.errors.DiskFull, psycopg.errors.ReadOnlySqlTransaction)
# What an append may meet that is the database's state rather than the command's: a connection failure or
# one of WRITES_REFUSED.
WRITE_FAULTS = (psycopg.OperationalError, psycopg.errors.ReadOnlySqlTransaction)


def refuses_every_write(error: BaseException) -> bool:
    """Whether ``error`` is the database refusing writes of any kind (:data:`WRITES_REFUSED`)."""
    return isinstance(error, WRITES_REFUSED)


def is_store_fault(error: BaseException) -> bool:
    """Whether ``error`` means the database could not serve the request (down, unreachable, out of
    connections, out of disk, read-only, shutting down): worth retrying later, unlike a refusal or a bug.
    psycopg's OperationalError covers them all but read-only, the pool's timeout included."""
    return isinstance(error, (StoreUnavailable, *WRITE_FAULTS))
