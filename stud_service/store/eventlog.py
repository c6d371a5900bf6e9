"""The event log: append with expected version, read, verify, snapshots — events as JSON dicts.

The store knows nothing of the game: an event is a JSON object with a string ``"type"`` and, for
hand-scoped events, an integer ``"hand"``. ``stud_service.store.tables`` is where the engine comes in.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncIterator, Awaitable, Callable, Sequence
from typing import Any, TypeVar

import psycopg
from psycopg.types.json import Jsonb
from psycopg_pool import AsyncConnectionPool, PoolTimeout

from stud_service.backoff import Backoff
from stud_service.store._json import loads
from stud_service.store._types import AppendRow, EncodedCommand, Part
from stud_service.store._wire import PreparedStatement, text_array
from stud_service.store._writer import DEFAULT_SPIN_WAIT, AppendWriter
from stud_service.store.canonical import GENESIS_HASH, NonCanonicalValue, canonical_json, chain_hash
from stud_service.store.errors import (
    WRITE_FAULTS,
    WRITES_REFUSED,
    ConcurrencyError,
    InvalidEvent,
    LeaseLost,
    OutcomeUnknown,
    StoreUnavailable,
    refuses_every_write,
)
from stud_service.store.health import StoreHealth
from stud_service.store.models import (
    AppendResult,
    Fence,
    RecordedRequest,
    Snapshot,
    StoredEvent,
    StreamAppend,
    StreamInfo,
    VerifyReport,
)
from stud_service.store.outcome import (
    OUTCOME_WAIT_SECONDS,
    RESOLVE_PAUSE_FIRST,
    RESOLVE_PAUSE_MAX,
    outcome_unknown,
)
from stud_service.store.sealing import RECALL_EVENTS, KeyNotInMemory, PayloadSealer
from stud_service.store.subscribe import NotificationHub

T = TypeVar("T")
READ_PAGE = 10_000
PREFETCH_SLICE = 500

_EVENT_COLUMNS = "version, type, payload::text, hand, recorded_at, request_id, prev_hash, hash"
# A stream's head is its last event (nothing else records it): one step back along the primary key.
HEAD_SQL = "SELECT coalesce(max(version), 0) FROM events WHERE stream_id = %s"
# The heads of many streams, in the order asked, as "v1,v2,..." (0: nothing written): one prepared statement
# sent through libpq (the dealer asks before every hand; psycopg's execute cost twice as much CPU).
HEADS_STATEMENT = PreparedStatement(
    "stud_heads",
    "SELECT string_agg(coalesce(stud_stream_head(s.stream_id), 0)::text, ',' ORDER BY s.n)"
    " FROM unnest($1::text[]) WITH ORDINALITY AS s(stream_id, n)",
)
FIND_REQUEST_SQL = (
    "SELECT version, command_size, request_fingerprint FROM events WHERE stream_id = %s AND request_id = %s"
)
LIST_STREAMS_SQL = (
    "SELECT s.stream_id, h.version, s.created_at, h.recorded_at FROM streams s"
    " CROSS JOIN LATERAL (SELECT version, recorded_at FROM events e WHERE e.stream_id = s.stream_id"
    " ORDER BY version DESC LIMIT 1) h"
    " WHERE s.stream_id > %s AND starts_with(s.stream_id, %s) ORDER BY s.stream_id LIMIT %s"
)


PAGE_SQL = (
    "SELECT count(*), max(version), '[' || string_agg(payload::text, ',' ORDER BY version) || ']'"
    " FROM (SELECT version, payload FROM events WHERE stream_id = %s AND version > %s"
    " ORDER BY version LIMIT %s) page"
)
PAGE_ROWS_SQL = (
    "SELECT version, payload::text FROM events WHERE stream_id = %s AND version > %s"
    " ORDER BY version LIMIT %s"
)
# A write that needs a page of its own, as a full disk refuses first: a new relation, extended by its first
# row (temporary, in the database's own tablespace, and rolled back: nothing is left behind).
WRITE_PROBE_TABLE_SQL = "CREATE TEMPORARY TABLE stud_write_probe (probe text) ON COMMIT DROP"
WRITE_PROBE_ROW_SQL = "INSERT INTO stud_write_probe VALUES ('probe')"
RECALL_SQL = (
    "SELECT version, payload::text FROM events WHERE stream_id = %s AND payload ? 'sealed'"
    " ORDER BY version DESC LIMIT %s"
)


def _row_to_event(stream_id: str, row: tuple[Any, ...], sealer: PayloadSealer | None) -> StoredEvent:
    payload = loads(row[2]) if sealer is None else sealer.open(stream_id, row[0], loads(row[2]))
    return StoredEvent(stream_id, row[0], row[1], payload, row[3], row[4], row[5], row[6], row[7])


def _hex(fingerprint: bytes | None, request_id: str | None) -> str | None:
    """A fingerprint as the writer stores it: hex, and only beside a request id."""
    return fingerprint.hex() if fingerprint is not None and request_id is not None else None


def encode_command(events: Sequence[dict[str, Any]]) -> EncodedCommand:
    """Validate one command's events and encode them as canonical JSON (which escapes every control
    character, so the texts can travel joined by newlines). This is the one encoding of the events:
    their hashes cover exactly these bytes."""
    if not events:
        raise InvalidEvent("a command must append at least one event")
    texts: list[bytes] = []
    types: list[str] = []
    hands: list[int | None] = []
    for index, event in enumerate(events):
        if not isinstance(event, dict):
            raise InvalidEvent(f"event {index} is a {type(event).__name__}, not a JSON object")
        event_type = event.get("type")
        if not isinstance(event_type, str) or not event_type:
            raise InvalidEvent(f"event {index} has no string 'type'")
        hand = event.get("hand")
        if hand is not None and (isinstance(hand, bool) or not isinstance(hand, int)):
            raise InvalidEvent(f"event {index} ({event_type}): 'hand' must be an integer")
        try:
            texts.append(canonical_json(event))
        except NonCanonicalValue as exc:
            raise InvalidEvent(f"event {index} ({event_type}): {exc}") from None
        types.append(event_type)
        hands.append(hand)
    return EncodedCommand(texts, types, hands)


class EventStore:
    """Streams of JSON events on PostgreSQL. ``pool`` must hand out autocommit connections.

    ``announce=False`` appends without NOTIFY (subscribers then rely on their poll); tests use it to
    simulate a lost notification. ``spin_wait``: seconds a batch of appends may wait for its commit
    by spinning (yielding the CPU to any other runnable process) rather than sleeping; 0 never spins.
    ``sealer`` (a :class:`~stud_service.store.sealing.PayloadSealer`): seals every payload appended and
    opens every payload read; ``verify`` and checkpoints work on the stored (sealed) JSON.
    """

    def __init__(
        self,
        pool: AsyncConnectionPool,
        *,
        announce: bool = True,
        poll_interval: float = 5.0,
        spin_wait: float = DEFAULT_SPIN_WAIT,
        sealer: PayloadSealer | None = None,
        citus_direct: bool = True,
    ) -> None:
        self.pool = pool
        self.sealer = sealer
        self.announce = announce
        self.poll_interval = poll_interval  # the safety-net poll of followed streams' heads, in seconds
        self._hub: NotificationHub | None = None
        self.health = StoreHealth()  # every read and append reports here (readiness reads it)
        # On Citus: single-stream appends straight to their stream's worker (False: through the coordinator).
        self._writer = AppendWriter(pool, announce=announce, spin_wait=spin_wait, direct=citus_direct)

    @property
    def wait_timeout(self) -> float:
        """Seconds a read or append waits for a database connection (the pool's timeout)."""
        return float(self.pool.timeout)

    # -- writing -------------------------------------------------------------------------------

    async def append(
        self,
        stream_id: str,
        expected_version: int,
        events: Sequence[dict[str, Any]],
        request_id: str | None = None,
        fingerprint: bytes | None = None,
        fence: Fence | None = None,
    ) -> AppendResult:
        """Append one command's events atomically, if the stream is at ``expected_version``.

        Raises :class:`ConcurrencyError` (nothing written) when it is not. A ``request_id`` already
        used in this stream returns the original result and writes nothing, so a client may retry a
        command whose answer it never got. ``fingerprint`` (with a ``request_id``) is stored beside
        it for :meth:`find_request`; the store only keeps it, comparing is the caller's business.
        Returns once the events are durably committed. With a ``fence``, only if its lease is still held
        (:class:`LeaseLost` otherwise, nothing written), checked in the append's transaction.
        Concurrent appends share transactions (group commit, see ``_writer``); each command stays
        all-or-nothing and keeps its own outcome.
        """
        if expected_version < 0:
            raise ValueError("expected_version must be >= 0")
        if self.sealer is not None:
            events = await self._sealed(stream_id, expected_version, events)
        encoded = encode_command(events)
        parts = [
            Part(stream_id, expected_version, request_id, _hex(fingerprint, request_id), encoded, True, fence)
        ]
        # The steps of append_all, written out for one part: the hot path, kept short.
        try:
            rows = await self._writer.append(parts)
        except WRITE_FAULTS as exc:
            rows = await self._resolve(parts, exc)
        self.health.wrote()
        ((outcome, first, last),) = rows
        if outcome == "c":
            raise ConcurrencyError(stream_id, expected_version, last)
        if outcome == "f":
            assert fence is not None
            raise LeaseLost(fence.lease, fence.owner, fence.epoch)
        return AppendResult(stream_id, first, last, duplicate=outcome == "d")

    async def append_all(
        self, parts: Sequence[StreamAppend], fence: Fence | None = None
    ) -> list[AppendResult]:
        """Append one command across several streams: every part or none, in one transaction, each
        part checked against its expected version. One result per part, in the order given.

        Raises :class:`ConcurrencyError` naming the first part (in the order given) whose stream is
        not at its expected version; nothing is written to any stream. When the first part's
        ``request_id`` is already recorded in its stream, nothing is written and every result is a
        duplicate (the first part's carrying the original versions). Stream ids must be distinct.
        Group commit and ``fence`` as for :meth:`append`, which is the one-part case.
        """
        if not parts:
            raise ValueError("append_all needs at least one part")
        if len({part.stream_id for part in parts}) != len(parts):
            raise ValueError("append_all: each stream may appear in one part only")
        if any(part.expected_version < 0 for part in parts):
            raise ValueError("expected_version must be >= 0")
        sealer = self.sealer
        sealed = [
            p.events if sealer is None else await self._sealed(p.stream_id, p.expected_version, p.events)
            for p in parts
        ]
        command = [
            Part(p.stream_id, p.expected_version, p.request_id, _hex(p.fingerprint, p.request_id),
                 encode_command(events), index == 0, fence if index == 0 else None)
            for index, (p, events) in enumerate(zip(parts, sealed, strict=True))
        ]
        try:
            rows = await self._writer.append(command)
        except WRITE_FAULTS as exc:
            rows = await self._resolve(command, exc)
        if fence is not None and rows and rows[0][0] == "f":
            self.health.succeeded()
            raise LeaseLost(fence.lease, fence.owner, fence.epoch)
        return self._append_results(command, rows)

    async def _sealed(
        self, stream_id: str, expected: int, events: Sequence[dict[str, Any]]
    ) -> Sequence[dict[str, Any]]:
        """The events as stored at versions ``expected + 1`` on."""
        assert self.sealer is not None
        seal = self.sealer.seal
        try:
            return [seal(stream_id, expected + index, event) for index, event in enumerate(events, 1)]
        except KeyNotInMemory:
            # Opening the stream's newest sealed events gives the sealer the keys it lacks; then once more.
            for version, text in await self._fetch(RECALL_SQL, (stream_id, RECALL_EVENTS)):
                self.sealer.open(stream_id, version, loads(text))
            self.sealer.recalled(stream_id)
            return [seal(stream_id, expected + index, event) for index, event in enumerate(events, 1)]

    def _append_failed(self, exc: psycopg.Error) -> bool:
        """Note an attempt's failure in ``health``; whether the append may have committed (the connection was
        lost while it ran), as opposed to nothing having been written (no connection, or writes refused)."""
        if refuses_every_write(exc):
            self.health.writes_refused()
            return False
        self.health.failed()
        return not isinstance(exc, PoolTimeout)

    async def _resolve(self, parts: list[Part], exc: psycopg.Error) -> list[AppendRow]:
        """After a failed attempt: an append whose outcome is unknown and that has a request id is tried again
        with it until the database answers (see ``store.outcome``): the original result if it went in, else
        applied once. Anything else raises :class:`StoreUnavailable` (:class:`OutcomeUnknown` when it may have
        committed, or when the wait ran out)."""
        streams = ", ".join([repr(p.stream_id) for p in parts])
        if not self._append_failed(exc):
            raise StoreUnavailable(f"append to {streams} failed, nothing written: {exc}") from exc
        if parts[0].request_id is None:  # retrying is only safe with a request id
            raise OutcomeUnknown(f"append to {streams} failed, outcome unknown: {exc}") from exc
        outcome_unknown(True)
        give_up = time.monotonic() + OUTCOME_WAIT_SECONDS
        pauses = Backoff(RESOLVE_PAUSE_FIRST, RESOLVE_PAUSE_MAX)
        first = True  # a pooled connection found dead: the next one is likely fine, so no pause before it
        while time.monotonic() < give_up:
            if not first:
                await pauses.wait()
            first = False
            try:
                rows = await self._writer.append(parts)
            except WRITE_FAULTS as again:
                self._append_failed(again)
                exc = again
                continue
            outcome_unknown(False)
            return rows
        raise OutcomeUnknown(
            f"append to {streams}: outcome unknown after {OUTCOME_WAIT_SECONDS:.0f} s of retries: {exc}"
        ) from exc

    def _append_results(self, parts: list[Part], rows: list[AppendRow]) -> list[AppendResult]:
        self.health.wrote()
        results = []
        for part, (outcome, first, last) in zip(parts, rows, strict=True):
            if outcome == "c":
                raise ConcurrencyError(part.stream_id, part.expected, last)
            results.append(AppendResult(part.stream_id, first, last, duplicate=outcome == "d"))
        return results

    # -- reading -------------------------------------------------------------------------------

    async def _fetch(self, query: str, params: tuple[Any, ...]) -> list[tuple[Any, ...]]:
        """Run a read (``_read``): its rows."""

        async def rows(conn: psycopg.AsyncConnection[Any]) -> list[tuple[Any, ...]]:
            return await (await conn.execute(query, params)).fetchall()

        return await self._read(rows)

    async def _read(self, read: Callable[[psycopg.AsyncConnection[Any]], Awaitable[T]]) -> T:
        """Run a read on a pooled connection. A connection found dead (server restart, terminated
        backend) is replaced and the read tried once more: reads are safe to repeat."""
        for attempt in range(2):
            try:
                async with self.pool.connection() as conn:
                    result = await read(conn)
                self.health.succeeded()
                return result
            except psycopg.OperationalError as exc:
                self.health.failed()
                if attempt == 1 or isinstance(exc, PoolTimeout):  # a second wait would wait as long
                    raise StoreUnavailable(f"read failed: {exc}") from exc
        raise AssertionError("unreachable")

    async def find_request(self, stream_id: str, request_id: str) -> RecordedRequest | None:
        """The command ``request_id`` caused in the stream (its versions and fingerprint), if any."""
        rows = await self._fetch(FIND_REQUEST_SQL, (stream_id, request_id))
        if not rows:
            return None
        first, size, fingerprint = rows[0]
        return RecordedRequest(first, first + size - 1, None if fingerprint is None else bytes(fingerprint))

    async def ping(self, timeout: float) -> bool:
        """One ``SELECT 1`` within ``timeout`` seconds: whether the database answers (for readiness)."""
        try:
            async with asyncio.timeout(timeout):
                await self._fetch("SELECT 1", ())
        except (StoreUnavailable, TimeoutError):
            self.health.failed()
            return False
        return True

    async def probe_write(self, timeout: float) -> bool:
        """Whether the database takes a write that needs room of its own (a temporary table, written and
        rolled back, so nothing stays): for readiness while appends are refused (out of disk, read-only).
        A refusal of the kind is noted in ``health`` and a success clears it; a database that does not answer
        is :meth:`ping`'s business."""
        try:
            async with (
                asyncio.timeout(timeout),
                self.pool.connection() as conn,
                conn.transaction(force_rollback=True),
            ):
                await conn.execute(WRITE_PROBE_TABLE_SQL)
                await conn.execute(WRITE_PROBE_ROW_SQL)
        except WRITES_REFUSED:
            self.health.writes_refused()
            return False
        except (psycopg.OperationalError, TimeoutError):
            return False
        self.health.wrote()
        return True

    async def head(self, stream_id: str) -> int:
        """The stream's version (the number of its events); 0 for a stream never written."""
        rows = await self._fetch(HEAD_SQL, (stream_id,))
        return rows[0][0]

    async def read_stream(
        self, stream_id: str, after_version: int = 0, limit: int | None = None
    ) -> list[StoredEvent]:
        """Events with version > ``after_version``, in order (at most ``limit`` of them)."""
        rows = await self._fetch(
            f"SELECT {_EVENT_COLUMNS} FROM events WHERE stream_id = %s AND version > %s"
            " ORDER BY version LIMIT %s",
            (stream_id, after_version, limit),
        )
        return [_row_to_event(stream_id, row, self.sealer) for row in rows]

    async def iter_payloads(
        self, stream_id: str, after_version: int = 0, page: int = READ_PAGE
    ) -> AsyncIterator[tuple[int, dict[str, Any]]]:
        """``(version, payload)`` for versions > ``after_version``, read in pages of ``page``."""
        async for versions, payloads in self.iter_payload_slices(stream_id, after_version, page):
            for item in zip(versions, payloads, strict=True):
                yield item

    async def iter_payload_slices(
        self, stream_id: str, after_version: int = 0, page: int = READ_PAGE
    ) -> AsyncIterator[tuple[Sequence[int], list[dict[str, Any]]]]:
        """The payloads after ``after_version`` in order, a slice of at most ``PREFETCH_SLICE`` at a
        time with their versions: the replay path. The next page is read while the caller works
        through this one."""
        sealer = self.sealer
        versions, payloads = await self._read_page(stream_id, after_version, page)
        while versions:
            following = (
                asyncio.ensure_future(self._read_page(stream_id, versions[-1], page))
                if len(versions) == page
                else None
            )
            try:
                for start in range(0, len(versions), PREFETCH_SLICE):
                    # A turn of the event loop between slices: the prefetch sends its query and
                    # reads its answer while we work, not after.
                    await asyncio.sleep(0)
                    chunk = payloads[start:start + PREFETCH_SLICE]
                    if sealer is not None:
                        chunk = [
                            sealer.open(stream_id, version, payload)
                            for version, payload in zip(versions[start:start + PREFETCH_SLICE], chunk,
                                                        strict=True)
                        ]
                    yield versions[start:start + PREFETCH_SLICE], chunk
            except BaseException:
                if following is not None:
                    following.cancel()
                raise
            versions, payloads = await following if following is not None else ((), [])

    async def _read_page(
        self, stream_id: str, after_version: int, page: int
    ) -> tuple[Sequence[int], list[dict[str, Any]]]:
        """Up to ``page`` payloads after ``after_version`` (still sealed) and their versions."""
        # One row per page, the payloads joined into one JSON array by the server: a row per event
        # costs the client more than parsing the event does.
        count, last, text = (await self._fetch(PAGE_SQL, (stream_id, after_version, page)))[0]
        if count == 0:
            return (), []
        if last - after_version == count:  # distinct versions after it, as many as the gap: all of them
            return range(after_version + 1, last + 1), loads(text)
        # A version missing from the log: each row with its own version, for the reader to report.
        rows = await self._fetch(PAGE_ROWS_SQL, (stream_id, after_version, page))
        return [version for version, _ in rows], [loads(payload) for _, payload in rows]

    async def read_hand(self, stream_id: str, hand: int) -> list[StoredEvent]:
        """All events of one hand, in order (read through the hand index, not the whole stream)."""
        rows = await self._fetch(
            f"SELECT {_EVENT_COLUMNS} FROM events WHERE stream_id = %s AND hand = %s ORDER BY version",
            (stream_id, hand),
        )
        return [_row_to_event(stream_id, row, self.sealer) for row in rows]

    async def hand_numbers(self, stream_id: str) -> list[int]:
        """The hand numbers that have events in the stream, ascending."""
        rows = await self._fetch(
            "SELECT DISTINCT hand FROM events WHERE stream_id = %s AND hand IS NOT NULL ORDER BY hand",
            (stream_id,),
        )
        return [row[0] for row in rows]

    async def heads(self, stream_ids: Sequence[str]) -> dict[str, int]:
        """Each stream's version (0 for one never written): one query for all of them."""
        ids = list(stream_ids)
        if not ids:
            return {}
        # Shielded: a caller cancelled mid-read (a dealer re-armed) leaves the read to finish, so that its
        # connection goes back to the pool idle rather than closed as busy (a statement sent through libpq
        # is not cancelled with the task, as psycopg's own are).
        read = asyncio.ensure_future(self._read(lambda conn: HEADS_STATEMENT.run(conn, [text_array(ids)])))
        read.add_done_callback(_retrieved)
        listed = await asyncio.shield(read)
        versions = listed.decode().split(",") if listed else []
        return dict(zip(ids, map(int, versions), strict=True))

    async def list_streams(
        self, *, prefix: str = "", after: str | None = None, limit: int = 100
    ) -> list[StreamInfo]:
        """Streams ordered by id, a page at a time: pass the last id seen as ``after``."""
        rows = await self._fetch(LIST_STREAMS_SQL, (after or "", prefix, limit))
        return [StreamInfo(*row) for row in rows]

    # -- integrity -----------------------------------------------------------------------------

    async def verify(self, stream_id: str, hand: int | None = None) -> VerifyReport:
        """Recompute the hash chain of a stream, or of one hand's part of it.

        Reports the first version whose hash does not match its content, whose ``prev_hash`` does not
        match the previous event's hash, or which is missing (a deleted row leaves a gap).
        For one hand, the walk covers the hand's version range plus the links into the event
        before it and out to the event after it, so deleting its first or last event is seen too.
        A tail cut off the stream leaves a shorter chain that is still whole: a signed checkpoint
        of the head (``stud_service.audit.checkpoint``) is what names that.
        """
        async with self.pool.connection() as conn:
            cur = await conn.execute(HEAD_SQL, (stream_id,))
            (head,) = await cur.fetchone()
            if hand is None:
                low, stop = 1, head
            else:
                cur = await conn.execute(
                    "SELECT min(version), max(version) FROM events WHERE stream_id = %s AND hand = %s",
                    (stream_id, hand),
                )
                low, high = await cur.fetchone()
                if low is None:
                    return VerifyReport(stream_id, False, 0, None, f"hand {hand} has no events")
                stop = min(high + 1, head)  # include the link out to the event after the hand
            prev_hash = GENESIS_HASH
            if low > 1:
                cur = await conn.execute(
                    "SELECT hash FROM events WHERE stream_id = %s AND version = %s", (stream_id, low - 1)
                )
                before = await cur.fetchone()
                if before is None:
                    return VerifyReport(stream_id, False, 0, low - 1, "event missing")
                prev_hash = bytes(before[0])
            expected_version = low
            checked = 0
            while expected_version <= stop:
                cur = await conn.execute(
                    "SELECT version, payload::text, prev_hash, hash FROM events WHERE stream_id = %s"
                    " AND version >= %s AND version <= %s ORDER BY version LIMIT %s",
                    (stream_id, expected_version, stop, READ_PAGE),
                )
                rows = await cur.fetchall()
                if not rows:
                    break
                for version, payload_text, stored_prev, stored_hash in rows:
                    if version != expected_version:
                        return VerifyReport(stream_id, False, checked, expected_version, "event missing")
                    if bytes(stored_prev) != prev_hash:
                        return VerifyReport(
                            stream_id, False, checked, version, "prev_hash does not match the previous event"
                        )
                    if chain_hash(prev_hash, canonical_json(loads(payload_text))) != bytes(stored_hash):
                        return VerifyReport(stream_id, False, checked, version, "hash does not match content")
                    prev_hash = bytes(stored_hash)
                    expected_version += 1
                    checked += 1
        if expected_version <= stop:
            return VerifyReport(stream_id, False, checked, expected_version, "event missing")
        return VerifyReport(stream_id, True, checked)

    # -- snapshots -----------------------------------------------------------------------------

    async def save_snapshot(
        self, stream_id: str, version: int, format_version: int, state: dict[str, Any]
    ) -> None:
        """Store ``state`` as the state after ``version``, tagged with the hash of that event."""
        if self.sealer is not None:
            state = self.sealer.seal_snapshot(stream_id, version, state)
        async with self.pool.connection() as conn:
            await conn.execute(
                "INSERT INTO snapshots (stream_id, format_version, version, event_hash, state)"
                " SELECT e.stream_id, %s, e.version, e.hash, %s FROM events e"
                " WHERE e.stream_id = %s AND e.version = %s"
                " ON CONFLICT (stream_id, format_version, version)"
                " DO UPDATE SET state = excluded.state, event_hash = excluded.event_hash,"
                " created_at = now()",
                (format_version, Jsonb(state), stream_id, version),
            )

    async def latest_snapshot(
        self, stream_id: str, format_version: int, at_or_before: int | None = None
    ) -> Snapshot | None:
        """The newest snapshot in ``format_version`` that still matches the event it was taken at.

        Snapshots of another format (older code) and snapshots whose event hash no longer matches
        the log are never returned.
        """
        rows = await self._fetch(
            "SELECT s.version, s.event_hash, s.state FROM snapshots s"
            " JOIN events e ON e.stream_id = s.stream_id AND e.version = s.version"
            " WHERE s.stream_id = %s AND s.format_version = %s AND e.hash = s.event_hash"
            " AND (%s::bigint IS NULL OR s.version <= %s)"
            " ORDER BY s.version DESC LIMIT 1",
            (stream_id, format_version, at_or_before, at_or_before),
        )
        if not rows:
            return None
        row = rows[0]
        state = row[2] if self.sealer is None else self.sealer.open_snapshot(stream_id, row[0], row[2])
        if state is None:
            return None
        return Snapshot(stream_id, row[0], format_version, bytes(row[1]), state)

    # -- following -----------------------------------------------------------------------------

    def subscribe(
        self, stream_id: str, after_version: int = 0, position: Callable[[], int] | None = None
    ) -> AsyncIterator[StoredEvent]:
        """Events with version > ``after_version``: first those stored, then live ones as they come.

        In order, without gaps or duplicates; survives lost notifications and dropped connections.
        ``position()``, when given, is the version the caller already holds by other means (e.g. it
        applies its own appends): events up to it are skipped, and announcements of them read nothing.
        """
        if self._hub is None:
            self._hub = NotificationHub(self.pool, poll_interval=self.poll_interval, health=self.health)
        return self._hub.subscribe(self, stream_id, after_version, position)

    def appends_sent_to(self, stream_id: str) -> str:
        """Where an append on ``stream_id`` alone goes now: "batch" (one PostgreSQL: with others, in one
        statement), "coordinator" or "worker" (on Citus: handed on by the coordinator to the stream's
        worker, or straight there once the store knows the worker)."""
        return self._writer.sent_to(stream_id)

    def worker_pools(self) -> dict[str, AsyncConnectionPool]:
        """On Citus, the pools this store opened to the workers, by name ("citus-worker host:port")."""
        routes = self._writer.routes
        return {} if routes is None else routes.pools()

    async def close(self) -> None:
        """Finish pending appends and announcements, stop the notification listener (the pool
        belongs to the caller)."""
        await self._writer.close()
        if self._hub is not None:
            await self._hub.close()
            self._hub = None


def _retrieved(task: asyncio.Future[Any]) -> None:
    """Mark a shielded read's outcome as seen (its caller may have stopped waiting for it)."""
    if not task.cancelled():
        task.exception()
