"""Appending access records: one stream per writer and UTC day, ``access/{YYYY-MM-DD}/{writer}``.

Why this layout: every append names the version its stream is expected to be at. Replicas sharing one
access stream would refuse each other's appends whenever two privileged calls met, and each refusal
costs a re-read and a retry on the path of a call that waits for its record. With a stream of its own
(the writer id is the host name and a random suffix, new for every process) a replica never meets
another writer, so an append only conflicts if something else wrote there; the writer then re-reads
the head and tries again. The day in the name keeps each stream short and lets retention work a day
at a time (docs/access-log.md).

Within a process, calls are serialised by a lock, and the records that queue while one append is in
flight go in the next append together: a burst of privileged calls costs a few appends, not one each.
A record's call waits until it is durably in the log; if it cannot be written the error reaches the
caller (who then refuses the call: UNAVAILABLE / STORE_UNAVAILABLE).
"""

from __future__ import annotations

import asyncio
import re
import secrets
import socket
from collections import defaultdict
from datetime import UTC, datetime

from stud_service.access.records import STREAM_PREFIX, AccessRecord
from stud_service.store import ConcurrencyError, EventStore, StoreUnavailable, StreamAppend

# Appends tried per batch when the stream turns out not to be where the writer thought it was.
CONFLICT_ATTEMPTS = 3

_Ref = tuple[str, int]  # (stream id, version) of a written record
_Outcome = tuple[_Ref | None, BaseException | None]
_Waiting = tuple[AccessRecord, "asyncio.Future[_Outcome]"]  # a record and the call waiting for it


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
        self._lock = asyncio.Lock()
        self._pending: list[_Waiting] = []
        self._heads: dict[str, int] = {}  # streams whose head this writer knows (it wrote them last)

    async def record(self, record: AccessRecord) -> _Ref:
        """Append ``record``; its (stream, version) once committed. Store errors are raised."""
        done: asyncio.Future[_Outcome] = asyncio.get_running_loop().create_future()
        self._pending.append((record, done))
        async with self._lock:
            if not done.done():  # no earlier batch took it: this call writes what is waiting
                batch, self._pending = self._pending, []
                await self._write(batch)
        ref, error = done.result()
        if error is not None:
            raise error
        assert ref is not None
        return ref

    async def _write(self, batch: list[_Waiting]) -> None:
        by_stream: dict[str, list[_Waiting]] = defaultdict(list)
        for item in batch:
            by_stream[stream_for(_day(item[0].at_ms), self.writer)].append(item)
        try:
            results = await self._append(by_stream)
        except BaseException as error:  # cancelled too: the outcome is unknown, so read the heads again
            for stream in by_stream:
                self._heads.pop(stream, None)
            failure = error if isinstance(error, Exception) else StoreUnavailable("access append cancelled")
            for _record, done in batch:
                if not done.done():
                    done.set_result((None, failure))
            raise
        for stream, items in by_stream.items():
            first = results[stream] - len(items) + 1
            for offset, (_record, done) in enumerate(items):
                done.set_result(((stream, first + offset), None))

    async def _append(self, by_stream: dict[str, list[_Waiting]]) -> dict[str, int]:
        """Append every stream's records in one transaction; each stream's new head."""
        for attempt in range(CONFLICT_ATTEMPTS):
            for stream in by_stream:
                if stream not in self._heads:
                    self._heads[stream] = await self.store.head(stream)
            parts = [
                StreamAppend(stream, self._heads[stream], [record.to_event() for record, _ in items])
                for stream, items in by_stream.items()
            ]
            try:
                written = await self.store.append_all(parts)
            except ConcurrencyError as conflict:
                self._heads.pop(conflict.stream_id, None)
                if attempt + 1 == CONFLICT_ATTEMPTS:
                    raise
                continue
            for result in written:
                self._heads[result.stream_id] = result.version
            self._forget_old_days()
            return {result.stream_id: result.version for result in written}
        raise AssertionError("unreachable")

    def _forget_old_days(self) -> None:
        """Keep the heads of the two newest days only: older streams are never written again."""
        if len(self._heads) > 2:
            for stream in sorted(self._heads)[:-2]:
                del self._heads[stream]
