"""What every watch stream checks of its request before it starts (WatchTable, WatchTournament): where it
resumes and how often it beats.

A resume point (``after_version``) must not be negative, and one beyond the stream's head would wait for ever:
it is refused OUT_OF_RANGE / VERSION_OUT_OF_RANGE with the head in the metadata, so the client resumes from
there. The head is asked of the log, not of this replica's memory, which may lag.
"""

from __future__ import annotations

from typing import Any

import grpc

from stud_service.server.api.errors import RequestError, malformed
from stud_service.store import EventStore

MAX_HEARTBEAT_SECONDS = 3600


def check_watch_request(request: Any) -> None:
    """MALFORMED_REQUEST for a negative ``after_version`` or a ``heartbeat_seconds`` out of 0..3600."""
    if request.after_version < 0:
        raise malformed("after_version must not be negative", "after_version")
    if not 0 <= request.heartbeat_seconds <= MAX_HEARTBEAT_SECONDS:
        raise malformed(f"heartbeat_seconds must be 0..{MAX_HEARTBEAT_SECONDS}", "heartbeat_seconds")


async def check_after_head(store: EventStore, stream_id: str, after_version: int, what: str) -> None:
    """VERSION_OUT_OF_RANGE when ``after_version`` is beyond the head of ``stream_id`` (``what``: "table")."""
    head = await store.head(stream_id)
    if after_version > head:
        raise RequestError(
            grpc.StatusCode.OUT_OF_RANGE,
            "VERSION_OUT_OF_RANGE",
            f"after_version {after_version} is beyond the {what}'s version {head}",
            {"version": str(head)},
        )
