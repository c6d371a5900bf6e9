"""Appending records of one process to streams it alone writes, a transaction per burst.

The access log and the player sessions each write streams of their own per process (the writer id is in
the stream's name), so an append only conflicts if something else wrote there. Each caller waits for its
event to be durably in the log. Calls are serialised by a lock, and the events that queue while one append
is in flight go in the next append together: a burst of callers costs a few appends, not one each. The
writer keeps the head of the streams it wrote last; on a conflict it reads the head again and tries again.
"""

from __future__ import annotations

import asyncio
from collections import defaultdict
from typing import Any

from stud_service.store.errors import ConcurrencyError, StoreUnavailable
from stud_service.store.eventlog import EventStore
from stud_service.store.models import StreamAppend

# Appends tried per batch when a stream turns out not to be where the writer thought it was.
CONFLICT_ATTEMPTS = 3

Ref = tuple[str, int]  # (stream id, version) of a written event
_Outcome = tuple[Ref | None, BaseException | None]
_Waiting = tuple[str, dict[str, Any], "asyncio.Future[_Outcome]"]  # stream, event, the caller waiting


class BatchedAppends:
    """Appends events to streams of this process's own; one per writer (the access log, the sessions).

    ``keep_heads``: how many heads to remember, those of the streams that sort last (names ending in a
    day's date and a writer: the newest days); a forgotten head is read again when needed."""

    def __init__(self, store: EventStore, keep_heads: int = 2) -> None:
        self.store = store
        self._keep = keep_heads
        self._lock = asyncio.Lock()
        self._pending: list[_Waiting] = []
        self._heads: dict[str, int] = {}

    async def append(self, stream_id: str, event: dict[str, Any]) -> Ref:
        """Append ``event`` to ``stream_id``; its (stream, version) once committed. Store errors are
        raised."""
        done: asyncio.Future[_Outcome] = asyncio.get_running_loop().create_future()
        self._pending.append((stream_id, event, done))
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
            by_stream[item[0]].append(item)
        try:
            results = await self._append(by_stream)
        except BaseException as error:  # cancelled too: the outcome is unknown, so read the heads again
            for stream in by_stream:
                self._heads.pop(stream, None)
            failure = error if isinstance(error, Exception) else StoreUnavailable("append cancelled")
            for _stream, _event, done in batch:
                if not done.done():
                    done.set_result((None, failure))
            raise
        for stream, items in by_stream.items():
            first = results[stream] - len(items) + 1
            for offset, (_stream, _event, done) in enumerate(items):
                done.set_result(((stream, first + offset), None))

    async def _append(self, by_stream: dict[str, list[_Waiting]]) -> dict[str, int]:
        """Append every stream's events in one transaction; each stream's new head."""
        for attempt in range(CONFLICT_ATTEMPTS):
            for stream in by_stream:
                if stream not in self._heads:
                    self._heads[stream] = await self.store.head(stream)
            parts = [StreamAppend(stream, self._heads[stream], [event for _s, event, _d in items])
                     for stream, items in by_stream.items()]
            try:
                written = await self.store.append_all(parts)
            except ConcurrencyError as conflict:
                self._heads.pop(conflict.stream_id, None)
                if attempt + 1 == CONFLICT_ATTEMPTS:
                    raise
                continue
            for result in written:
                self._heads[result.stream_id] = result.version
            self._forget_old_heads()
            return {result.stream_id: result.version for result in written}
        raise AssertionError("unreachable")

    def _forget_old_heads(self) -> None:
        if len(self._heads) > self._keep:
            for stream in sorted(self._heads)[: -self._keep]:
                del self._heads[stream]
