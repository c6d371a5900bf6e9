"""Appending access records: one stream per writer and UTC day, ``access/{YYYY-MM-DD}/{writer}``.

Why this layout: every append names the version its stream is expected to be at. Replicas sharing one
access stream would refuse each other's appends whenever two privileged calls met, and each refusal
costs a re-read and a retry on the path of a call that waits for its record. With a stream of its own
(the writer id is the host name and a random suffix, new for every process) a replica never meets
another writer, so an append only conflicts if something else wrote there; the writer then re-reads
the head and tries again. The day in the name keeps each stream short and lets retention work a day
at a time (docs/access-log.md).

Records that queue while one append is in flight go in the next append together
(:class:`stud_service.store.batched.BatchedAppends`): a burst of privileged calls costs a few appends, not
one each. A record's call waits until it is durably in the log; if it cannot be written the error reaches
the caller (who then refuses the call: UNAVAILABLE / STORE_UNAVAILABLE).
"""

from __future__ import annotations

import re
import secrets
import socket
from datetime import UTC, datetime

from stud_service.access.records import STREAM_PREFIX, AccessRecord
from stud_service.store import EventStore
from stud_service.store.batched import BatchedAppends

_Ref = tuple[str, int]  # (stream id, version) of a written record


def host_label(host: str | None = None) -> str:
    """The host name (in Kubernetes, the pod's) cut to [a-z0-9-], as stream names carry it."""
    return re.sub(r"[^a-z0-9-]+", "-", (host or socket.gethostname()).lower()).strip("-")[:40] or "host"


def writer_id(host: str | None = None) -> str:
    """A server process's writer id: its host label and a random suffix, so a restarted or second
    process never shares a stream with an earlier one."""
    return f"{host_label(host)}-{secrets.token_hex(4)}"


def stream_for(day: str, writer: str) -> str:
    return f"{STREAM_PREFIX}{day}/{writer}"


def _day(at_ms: int) -> str:
    return datetime.fromtimestamp(at_ms / 1000, UTC).strftime("%Y-%m-%d")


class AccessLog:
    """Writes access records to the event log; one per process (the runtime holds it)."""

    def __init__(self, store: EventStore, writer: str | None = None) -> None:
        self.store = store
        self.writer = writer or writer_id()
        self._appends = BatchedAppends(store)  # the two newest days' heads are kept

    async def record(self, record: AccessRecord) -> _Ref:
        """Append ``record``; its (stream, version) once committed. Store errors are raised."""
        return await self._appends.append(stream_for(_day(record.at_ms), self.writer), record.to_event())
