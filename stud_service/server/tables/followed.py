"""Streams loaded on first use and followed as other replicas write them: what a replica's cache of tables
(:mod:`.cache`) and of tournaments (:mod:`stud_service.server.tournaments.cache`) share.

A followed stream's live object (a :class:`Followed`) holds the version applied so far; the cache folds the
stream into it on first lookup (one caller loads, the others wait for it), then follows the stream through
the store's subscription, applying each event other writers append. The writer's own appends are applied
as they commit (``position`` tells the subscription so: their announcements cost no read). What applying an
event means is the subclass's :meth:`FollowedStreams.apply_stored`. A write's request id is looked up here
too (:meth:`FollowedStreams.retry_of`): a retry is answered with the version its first call appended.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable
from contextlib import AbstractContextManager
from dataclasses import dataclass, field
from typing import Generic, Protocol, TypeVar

import grpc

from stud_service.backoff import Backoff
from stud_service.server.api.errors import RequestError
from stud_service.server.api.request_ids import RequestKey, check_same_request
from stud_service.server.tables.tasks import TableTasks, wait_for_store
from stud_service.store import AppendResult, EventStore, StoredEvent
from stud_service.store.errors import is_store_fault

_log = logging.getLogger(__name__)


def kept_conflicting(what: str) -> RequestError:
    """The refusal of a write that lost to other writers every time it tried (ABORTED: the client retries)."""
    return RequestError(grpc.StatusCode.ABORTED, "CONFLICT", f"other writers kept changing the {what}; retry")


class Followed(Protocol):
    """A stream's live object: the version applied, the task following the stream, its log identity."""

    version: int
    follower: asyncio.Task[None] | None

    @property
    def stream_id(self) -> str: ...

    @property
    def log_extra(self) -> dict[str, str]: ...

    def log_scope(self) -> AbstractContextManager[None]: ...


F = TypeVar("F", bound=Followed)


@dataclass(eq=False, slots=True)
class _Loading:
    """The first lookups of one name: they load it one at a time (the first does the work)."""

    lock: asyncio.Lock = field(default_factory=asyncio.Lock)
    callers: int = 0


class FollowedStreams(Generic[F]):
    """The live objects of one kind of stream on this replica, by name. ``new(name)`` makes an empty one;
    ``missing(name)`` is the refusal for a name whose stream has no event."""

    def __init__(
        self,
        store: EventStore,
        tasks: TableTasks,
        new: Callable[[str], F],
        missing: Callable[[str], Exception],
    ) -> None:
        self.store = store
        self.tasks = tasks
        self._new = new
        self._missing = missing
        self._live: dict[str, F] = {}
        self._loading: dict[str, _Loading] = {}

    async def lookup(self, name: str) -> F:
        """The live object, loaded from the log on first use; ``missing(name)`` if the stream is empty."""
        live = self._live.get(name)
        if live is not None:
            return live
        # The first lookups of a name queue on one lock, so one of them loads it. The entry goes with its
        # last caller: names are the caller's to choose, and nothing may stay behind for one that does not
        # exist.
        loading = self._loading.get(name)
        if loading is None:
            loading = self._loading[name] = _Loading()
        loading.callers += 1
        try:
            async with loading.lock:
                live = self._live.get(name)  # loaded while this caller queued
                return live if live is not None else await self._load(name)
        finally:
            loading.callers -= 1
            if loading.callers == 0:
                del self._loading[name]

    async def _load(self, name: str) -> F:
        live = self._new(name)
        await self.catch_up(live)
        if live.version == 0:
            raise self._missing(name)
        self._live[name] = live
        live.follower = self.tasks.spawn(self._follow(live))
        self.opened(live)
        return live

    def opened(self, live: F) -> None:
        """Called when a stream is loaded (and followed from now on)."""

    def get(self, name: str) -> F | None:
        """The live object if it is loaded here; never loads it."""
        return self._live.get(name)

    def forget(self, name: str) -> F | None:
        """Stop following ``name``; a later lookup loads it again from the log."""
        live = self._live.pop(name, None)
        if live is not None and live.follower is not None:
            live.follower.cancel()
        return live

    def loading_count(self) -> int:
        """Names being looked up for the first time right now; none are kept once their callers are done."""
        return len(self._loading)

    def loaded(self) -> list[F]:
        return list(self._live.values())

    # -- following the log ---------------------------------------------------------------------

    async def catch_up(self, live: F) -> None:
        """Apply what the stream holds beyond the live object's version."""
        for stored in await self.store.read_stream(live.stream_id, after_version=live.version):
            self.apply_stored(live, stored)

    def apply_stored(self, live: F, stored: StoredEvent) -> None:
        """Apply one stored event (the next version, or one already applied by the other path)."""
        raise NotImplementedError

    async def retry_of(self, live: F, request_id: RequestKey | None) -> int | None:
        """The last version a request's first call appended if ``request_id`` is recorded in the stream (this
        call is a retry); None if it is not; REQUEST_ID_REUSED if it was recorded for a different request.
        The live object has caught up to that version when this returns."""
        if request_id is None:
            return None
        recorded = await self.store.find_request(live.stream_id, request_id.key)
        if recorded is None:
            return None
        check_same_request(recorded, request_id)
        if recorded.last_version > live.version:
            await self.catch_up(live)  # another replica wrote it
        return recorded.last_version

    async def appended(
        self, live: F, result: AppendResult, request_id: RequestKey | None, apply: Callable[[], None]
    ) -> int:
        """The version a write answers with once its append returned ``result``: ``apply()`` applies its
        events (it appended them); a duplicate is a retry of ``request_id``'s first call (its version), or
        another writer's (caught up to)."""
        if not result.duplicate:
            apply()
        elif (retry := await self.retry_of(live, request_id)) is not None:
            return retry
        else:
            await self.catch_up(live)
        return live.version

    async def _follow(self, live: F) -> None:
        """Apply what other writers append to the stream."""
        backoff = Backoff()
        while True:
            try:
                stream = self.store.subscribe(live.stream_id, live.version, position=lambda: live.version)
                async for stored in stream:
                    backoff.reset()
                    if stored.version > live.version:
                        with live.log_scope():
                            self.apply_stored(live, stored)
            except asyncio.CancelledError:
                raise
            except Exception as error:
                # The subscription retries its own reads; a store fault that still gets here is retried
                # too, from the version we hold. Anything else is a bug worth a trace.
                if not is_store_fault(error):
                    _log.exception("following %s stopped", live.stream_id, extra=live.log_extra)
                    return
                await wait_for_store(live, backoff, "following", error)
