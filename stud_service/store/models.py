"""What the store hands back: stored events, append results, verification reports, snapshots."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any


@dataclass(frozen=True, slots=True)
class StoredEvent:
    """One row of the log. ``payload`` is the event as JSON (``payload["type"] == type``)."""

    stream_id: str
    version: int
    type: str
    payload: dict[str, Any]
    hand: int | None
    recorded_at: datetime
    request_id: str | None
    prev_hash: bytes
    hash: bytes


@dataclass(frozen=True, slots=True)
class StreamAppend:
    """One stream's part of a command for :meth:`EventStore.append_all`: ``events`` appended to
    ``stream_id`` if it is at ``expected_version``. The first part's ``request_id`` tells a retry
    from a new command; any part's request id (and ``fingerprint``) is recorded in its stream."""

    stream_id: str
    expected_version: int
    events: Sequence[dict[str, Any]]
    request_id: str | None = None
    fingerprint: bytes | None = None


@dataclass(frozen=True, slots=True)
class Fence:
    """An append only the owner of a lease may make: written only if ``owner`` still holds the lease of
    ``lease`` (a stream id) at ``epoch``, unexpired by the database's clock, in the same transaction
    (server.tables.ownership). Refused: :class:`~stud_service.store.errors.LeaseLost`, nothing written."""

    lease: str
    owner: str
    epoch: int


@dataclass(frozen=True, slots=True)
class AppendResult:
    """Versions ``first_version..version`` hold the command's events; ``version`` is the new head.

    ``duplicate`` is true when the request id had been used before: nothing was written and these
    are the versions the original append wrote. (In a duplicate of a command over several streams,
    a part without a recorded request id of its own has ``first_version = version + 1``, an empty
    range, with ``version`` its stream's head.)
    """

    stream_id: str
    first_version: int
    version: int
    duplicate: bool = False


@dataclass(frozen=True, slots=True)
class RecordedRequest:
    """What one request id caused in a stream: versions ``first_version..last_version``, and the
    fingerprint stored with it (None when it was appended without one)."""

    first_version: int
    last_version: int
    fingerprint: bytes | None


@dataclass(frozen=True, slots=True)
class VerifyReport:
    """Result of walking a hash chain: ``first_bad_version`` is None when ``ok``."""

    stream_id: str
    ok: bool
    checked: int
    first_bad_version: int | None = None
    reason: str | None = None


@dataclass(frozen=True, slots=True)
class Snapshot:
    stream_id: str
    version: int
    format_version: int
    event_hash: bytes
    state: dict[str, Any]


@dataclass(frozen=True, slots=True)
class StreamInfo:
    stream_id: str
    version: int
    created_at: datetime
    updated_at: datetime
