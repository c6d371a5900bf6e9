"""Group commit for appends, and the announcements that follow them.

Appends made in one turn of the event loop go to PostgreSQL together: one round trip, one
transaction, one WAL flush for the lot, each command keeping its own outcome. Up to
``max_inflight`` such transactions are under way at once on separate connections.

The batch is one statement (``_APPEND_ROWS``, sent straight through libpq by ``_wire``), with no
function and no statement per command: the writer remembers the hash of the last event it saw on
each stream, hashes every new event itself, and lets the keys do the checking. A command goes this
way only when the writer knows the stored event it follows (events never change, so a remembered
hash is never wrong); then a stale expected version collides with the primary key (stream_id,
version) and a used request id with the unique request index, either of which fails the whole
statement, nothing written. Such a batch, or one with a command ahead of its stream, goes through
``stud_append_parts`` instead, which checks every command before writing and gives each its own
outcome (appended, duplicate, conflict). Nothing is updated: a stream's head is its last event.

A command may span several streams (``EventStore.append_all``): its parts, one per stream, are
written in one transaction or not at all; in the batch statement they are rows like any other's,
and the checked path checks every part of a command before writing any. A stream is in at most
one transaction at a time, and has at most one command in a batch: a command with a stream under
way, or named by an earlier queued command, waits and goes in a later batch, so one stream's
commands reach PostgreSQL in the order they were made (a command expecting the version its
predecessor creates finds it there). Batches write their streams' keys in sorted order, on either
path, which keeps batches of several processes on one database free of deadlocks. A command is
acknowledged only after its transaction's durable commit (``synchronous_commit`` is set on for
the writer's connections).

On a Citus cluster a batch's statement on the coordinator would route its rows to the workers: several round
trips from there, and a two-phase commit when the batch spans workers. There each worker is treated as a
PostgreSQL of its own for the streams whose shards it holds (``citus_routes``: learnt from the coordinator's
catalogue in the background): a command on one stream (fenced, if at all, by that stream's own lease) goes in
a batch on a connection to its stream's worker, with the other commands for that worker (its events as one
``INSERT ... VALUES``, which Citus routes as they are; a fenced one alone, as ``stud_append_stream``), and its
commit is that worker's alone. Until a stream's worker is known, or while it cannot be reached, such a command
goes alone as ``stud_append_stream`` through the coordinator, which hands the call to the stream's worker
(docs/deployment.md, "Beyond one database"). Commands spanning streams (money moves) go in batches through the
coordinator. On one PostgreSQL every batch goes there.

Announcements (NOTIFY ``stream:version``) of a batch's appends ride in the next batch's statement,
or, when no batch follows within ``ANNOUNCE_INTERVAL``, go out in a NOTIFY transaction of their
own that does not wait for its WAL flush (on Citus, where a worker's batch or a routed call carries none
(a worker's notifications reach no listener), within ``ROUTED_ANNOUNCE_INTERVAL``, on the coordinator: one
such transaction for many actions, not one for nearly each). A
NOTIFY in an append transaction holds PostgreSQL's notify lock through that commit's flush, so
appending processes that share a database take turns at committing batches that carry announcements
(measured: no loss at 32 writers over two processes); within one process the batches follow one
another anyway. If the process dies before an append is announced, subscribers still see its events
at their next notification or poll.
"""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import logging
import weakref
from collections import OrderedDict, deque
from dataclasses import dataclass
from typing import Any

import psycopg
from psycopg_pool import AsyncConnectionPool

from stud_service.store import spans
from stud_service.store._types import NOTIFY_CHANNEL, AppendRow, Part
from stud_service.store._wire import PreparedStatement, int_array, quoted, text_array
from stud_service.store.canonical import GENESIS_HASH
from stud_service.store.citus_routes import WorkerRoutes
from stud_service.store.connections import check_idle_connection
from stud_service.store.models import Fence

_log = logging.getLogger(__name__)

ANNOUNCE_INTERVAL = 0.002  # seconds an announcement waits for a batch to carry it
# On Citus, where most appends are workers' batches or routed calls, which carry no announcement: the NOTIFY
# transaction (on the coordinator) then follows nearly every action at ANNOUNCE_INTERVAL; waiting longer
# gathers many in one.
# Only other replicas' subscribers wait for it (this one's apply their own appends themselves).
ROUTED_ANNOUNCE_INTERVAL = 0.025
# Seconds a batch waits for its commit by spinning before it sleeps on the socket: about two
# batches' time on an idle server, so a batch is answered while this process's CPU is awake.
DEFAULT_SPIN_WAIT = 0.001
KEEP_CONNECTIONS = 0.05  # seconds idle after which the writer gives its connections back to the pool

KNOWN_HEADS = 100_000  # streams whose last hash the writer remembers (about 150 bytes each)

_INSERT_EVENTS = f"""
INSERT INTO events (stream_id, version, type, payload, hand, request_id, command_size, request_fingerprint,
                    prev_hash, hash)
SELECT e.stream_id, e.version, e.type, e.payload::jsonb, e.hand, e.request_id, e.command_size,
       decode(e.fingerprint, 'hex'), decode(e.prev, 'hex'), decode(e.hash, 'hex')
  FROM unnest($1::text[], $2::bigint[], $3::text[],
              string_to_array($4, E'\\n'), $5::bigint[], $6::text[],
              $7::integer[], $12::text[], string_to_array($8, ','), string_to_array($9, ','))
       AS e(stream_id, version, type, payload, hand, request_id, command_size, fingerprint, prev, hash)
-- The announcements this batch carries, sent once as a one-time filter (cheaper than a CTE).
WHERE (SELECT count(pg_notify('{NOTIFY_CHANNEL}', a.stream_id || ':' || a.version))
         FROM unnest($10::text[], $11::bigint[]) AS a(stream_id, version)) >= 0
"""
_APPEND_ROWS = PreparedStatement("stud_append_rows", _INSERT_EVENTS)
# A batch that starts streams also lists them in the catalogue.
_APPEND_ROWS_NEW = PreparedStatement(
    "stud_append_rows_new",
    "WITH created AS (INSERT INTO streams (stream_id) SELECT unnest($13::text[]) ON CONFLICT DO NOTHING)"
    + _INSERT_EVENTS,
)
_SESSION_SQL = "SET synchronous_commit = on"
_APPEND_PARTS_SQL = (
    "SELECT * FROM stud_append_parts(%s::integer[], %s::boolean[], %s::text[], %s::bigint[], %s::text[],"
    " %s::text[], %s)"
)
_APPEND_FENCED_SQL = (
    "SELECT * FROM stud_append_fenced(%s, %s, %s, %s::integer[], %s::boolean[], %s::text[], %s::bigint[],"
    " %s::text[], %s::text[], %s)"
)
# One command on one stream (migration 0019): on Citus the coordinator hands the call to the stream's worker;
# called on that worker, it runs there (a fenced command in a worker's batch).
# Sent through _wire too (about 50 µs less client time than psycopg's execute); its answer, a bigint[] of the
# outcome's code, the first and the last version, is read as text ("{97,5,7}", "{102,NULL,7}").
_APPEND_STREAM = PreparedStatement(
    "stud_append_stream", "SELECT stud_append_stream($1, $2, $3, $4, $5, $6, $7)"
)
# Announcements no batch carried (migration 0003: a transaction that does not wait for its WAL flush).
_ANNOUNCE_MANY = PreparedStatement(
    "stud_announce_many", "SELECT stud_announce_many($1::text[], $2::bigint[])"
)
_CITUS_SQL = "SELECT EXISTS (SELECT 1 FROM pg_extension WHERE extname = 'citus')"
# The streams named again as "= ANY": Citus then reads only their shards (a join with unnest alone it
# sends to every shard).
_HEAD_HASHES_SQL = (
    "SELECT e.stream_id, e.hash FROM events e"
    " JOIN unnest(%s::text[], %s::bigint[]) AS c(stream_id, version)"
    " ON e.stream_id = c.stream_id AND e.version = c.version WHERE e.stream_id = ANY(%s::text[])"
)


async def append_stream(conn: psycopg.AsyncConnection[Any], part: Part) -> AppendRow:
    """``part`` appended by ``stud_append_stream`` (alone: no batch), its outcome as the function gave it."""
    fence = part.fence
    owner, epoch = (None, None) if fence is None else (fence.owner, str(fence.epoch))
    answer = await _APPEND_STREAM.run(conn, [
        part.stream_id, owner, epoch, str(part.expected), part.request_id, part.fingerprint,
        b"\n".join(part.events.texts),
    ])
    assert answer is not None
    code, first, last = answer[1:-1].split(b",")
    return chr(int(code)), None if first == b"NULL" else int(first), int(last)


class _Unchained(Exception):
    """A command in the batch expects an event the stream does not have."""


@dataclass(slots=True)
class _Command:
    parts: list[Part]
    streams: tuple[str, ...]
    future: asyncio.Future[list[AppendRow]]
    trace: Any = None  # the caller's trace context, while tracing is on


# A Citus worker's batch of at most this many events goes as one INSERT ... VALUES, prepared per row count.
VALUES_ROWS = 64
_VALUES_ROW = (
    "(${0}, ${1}::bigint, ${2}, ${3}::jsonb, ${4}::bigint, ${5}, ${6}::integer, decode(${7}, 'hex'),"
    " decode(${8}, 'hex'), decode(${9}, 'hex'))"
)
_values_statements: dict[int, PreparedStatement] = {}


def _values_statement(rows: int) -> PreparedStatement:
    statement = _values_statements.get(rows)
    if statement is None:
        values = ",".join(_VALUES_ROW.format(*range(row * 10 + 1, row * 10 + 11)) for row in range(rows))
        statement = _values_statements[rows] = PreparedStatement(
            f"stud_append_values_{rows}",
            "INSERT INTO events (stream_id, version, type, payload, hand, request_id, command_size,"
            f" request_fingerprint, prev_hash, hash) VALUES {values}",
        )
    return statement


def _int_or_none(value: int | None) -> str | None:
    return None if value is None else str(value)


# A batch in flight this long is stalled (its commit waits for a synchronous standby, as on a primary just
# promoted in strict synchronous mode, or for a lock): each stalled batch frees its slot for another, so the
# commands made meanwhile begin their transactions now, not when it commits (a deal made as play resumes,
# alone in its batch, waited out the whole stall behind the batches of the calls that waited for the store).
# Commits take milliseconds otherwise. At most half the pool's connections go to batches this way.
STALLED_SECONDS = 0.25


class AppendWriter:
    def __init__(
        self,
        pool: AsyncConnectionPool,
        *,
        announce: bool = True,
        max_batch: int = 256,
        max_inflight: int = 2,
        spin_wait: float = DEFAULT_SPIN_WAIT,
        direct: bool = True,
    ) -> None:
        self.pool = pool
        self.announce = announce
        self.max_batch = max_batch
        self.spin_wait = spin_wait  # seconds a batch may spin for its answer (see _wire)
        self.max_inflight = max_inflight
        self._queue: deque[_Command] = deque()
        self._inflight = 0
        self._inflight_by: dict[AsyncConnectionPool, int] = {}  # batches under way on each pool
        self._stalled = 0  # batches in flight for longer than STALLED_SECONDS: a slot more each
        self.max_stalled_inflight = max(max_inflight, pool.max_size // 2)
        self._busy: set[str] = set()  # streams with a transaction under way
        self._dispatch_soon = False
        # Kept between appends, by the pool each came from (see _take_connection).
        self._connections: dict[AsyncConnectionPool, list[psycopg.AsyncConnection[Any]]] = {}
        self._last_used = 0.0
        self._release_timer: asyncio.TimerHandle | None = None
        self._tasks: set[asyncio.Task[None]] = set()
        self._announcements: dict[str, int] = {}  # stream id -> version, not yet announced
        self._carried = 0  # batch statements sent so far, each taking the pending announcements
        # Armed by the first announcement no batch has taken yet; a batch that takes them disarms it.
        self._announce_timer: asyncio.TimerHandle | None = None
        self._flusher: asyncio.Task[None] | None = None  # the NOTIFY transaction of its own under way
        # stream id -> (version, hash) of its last event as this writer last saw it: the link a
        # next command chains from. Events never change, so an entry can be old but not wrong.
        self._heads: OrderedDict[str, tuple[int, bytes]] = OrderedDict()
        self._configured: weakref.WeakSet[psycopg.AsyncConnection[Any]] = weakref.WeakSet()
        # On Citus (found on the first connection): each single-stream command goes to its stream's worker,
        # not in a batch through the coordinator: in a batch on that worker when the worker is known (and
        # ``direct``), else alone through the coordinator (_commit_routed). None: not known yet.
        self.routed: bool | None = None
        self.direct = direct
        self.routes: WorkerRoutes | None = None
        # Routed commands under way at once, each on a connection of its own: the pool's, less the batches'.
        self.max_routed = max(1, pool.max_size - max_inflight)
        self._routing = 0

    async def append(self, parts: list[Part]) -> list[AppendRow]:
        """Append one command: its ``parts`` on distinct streams, only the first one ``lead``.
        One outcome per part, in the order given."""
        future: asyncio.Future[list[AppendRow]] = asyncio.get_running_loop().create_future()
        streams = (parts[0].stream_id,) if len(parts) == 1 else tuple([p.stream_id for p in parts])
        trace = None if spans.tracer is None else spans.capture()
        self._queue.append(_Command(parts, streams, future, trace))
        if not self._dispatch_soon:
            # Batches form at the end of the loop's turn: the writers woken together by one
            # commit all queue their next command before any of them is sent.
            self._dispatch_soon = True
            asyncio.get_running_loop().call_soon(self._dispatch)
        return await future

    def _spawn(self, coro: Any) -> asyncio.Task[None]:
        task = asyncio.get_running_loop().create_task(coro, context=spans.detached())
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)
        return task

    def _dispatch(self) -> None:
        """Start batches of queued commands while slots are free, leaving queued (in order) those
        with a stream that has a transaction under way or is named by an earlier queued command.
        On Citus a single-stream command whose worker is known goes in a batch on that worker (each worker
        its own slots, as one PostgreSQL), one whose worker is not known yet alone through the coordinator."""
        self._dispatch_soon = False
        busy = self._busy
        slots = min(self.max_inflight + self._stalled, max(self.max_inflight, self.max_stalled_inflight))
        inflight = self._inflight_by
        routes = self.routes if self.routed else None
        started = True
        while self._queue and started:
            started = False
            batches: dict[AsyncConnectionPool, list[_Command]] = {}
            taken: dict[AsyncConnectionPool, set[str]] = {}
            seen: set[str] = set()  # streams of the commands looked at so far, taken or held
            held: deque[_Command] = deque()
            for command in self._queue:
                streams = command.streams
                pool = self.pool
                if self.routed and self._routable(command):
                    (stream_id,) = streams
                    worker = None if routes is None else routes.pool_for(stream_id)
                    if worker is None:  # alone, through the coordinator
                        if stream_id in busy or stream_id in seen or self._routing >= self.max_routed:
                            held.append(command)
                        else:
                            busy.add(stream_id)
                            self._routing += 1
                            self._spawn(self._commit_routed(command))
                        seen.add(stream_id)
                        continue
                    pool = worker
                if inflight.get(pool, 0) >= slots:
                    held.append(command)
                    seen.update(streams)
                    continue
                batch = batches.setdefault(pool, [])
                # A fenced command (an owner's own: rare) takes the checked path in a batch of its own.
                fenced = command.parts[0].fence is not None or (
                    bool(batch) and batch[0].parts[0].fence is not None
                )
                if len(streams) == 1 and not fenced:
                    (stream_id,) = streams
                    if stream_id in busy or stream_id in seen or len(batch) >= self.max_batch:
                        held.append(command)
                    else:
                        batch.append(command)
                        taken.setdefault(pool, set()).add(stream_id)
                    seen.add(stream_id)
                    continue
                # A held command holds back later commands on any of its streams too, so that
                # each stream's commands stay in the order they were made.
                full = len(batch) >= self.max_batch or (fenced and bool(batch))
                if full or any(s in busy or s in seen for s in streams):
                    held.append(command)
                else:
                    batch.append(command)
                    taken.setdefault(pool, set()).update(streams)
                seen.update(streams)
            self._queue = held
            for pool, batch in batches.items():
                if not batch:
                    continue
                streams_taken = taken[pool]
                busy |= streams_taken
                self._inflight += 1
                inflight[pool] = inflight.get(pool, 0) + 1
                started = True
                work = self._commit_batch(batch, streams_taken, pool)
                self._spawn(work if spans.tracer is None else spans.batch(work, [c.trace for c in batch]))

    def sent_to(self, stream_id: str) -> str:
        """Where a single-stream command on ``stream_id`` goes now: "batch" (one PostgreSQL, or not known
        yet), "coordinator" (on Citus, handed on from there) or "worker" (straight to its stream's worker)."""
        if not self.routed:
            return "batch"
        return "worker" if self.routes is not None and self.routes.knows(stream_id) else "coordinator"

    @staticmethod
    def _routable(command: _Command) -> bool:
        """One stream, and if fenced by that stream's own lease (colocated with it): one worker's work."""
        if len(command.parts) != 1:
            return False
        fence = command.parts[0].fence
        return fence is None or fence.lease == command.parts[0].stream_id

    async def _commit_routed(self, command: _Command) -> None:
        """One command on one stream by ``stud_append_stream`` through the coordinator, which hands it to its
        stream's worker: one round trip from there (the stream's worker not known here yet)."""
        (part,) = command.parts
        outcome: list[AppendRow] | BaseException
        try:
            conn = await self._take_connection()
        except psycopg.OperationalError as exc:
            outcome = exc
        else:
            try:
                outcome = [await self._append_alone(conn, part)]
                self._keep_connection(conn)
            except psycopg.OperationalError as exc:
                await self.pool.putconn(conn)  # the pool discards it if broken
                outcome = exc
            except psycopg.Error as exc:
                self._keep_connection(conn)
                outcome = exc
            except BaseException:
                await self.pool.putconn(conn)
                raise
        self._routing -= 1
        self._busy.discard(part.stream_id)
        if not command.future.done():
            if isinstance(outcome, BaseException):
                command.future.set_exception(outcome)
            else:
                command.future.set_result(outcome)
        self._dispatch()

    async def _commit_batch(
        self, batch: list[_Command], streams: set[str], pool: AsyncConnectionPool
    ) -> None:
        stalled = False

        def stall() -> None:
            nonlocal stalled
            stalled = True
            self._stalled += 1
            self._dispatch()

        timer = asyncio.get_running_loop().call_later(STALLED_SECONDS, stall)
        try:
            outcomes = await self._run(batch, pool)
        except Exception as exc:  # noqa: BLE001 - every waiting caller must hear of it
            outcomes = [exc] * len(batch)
        finally:
            timer.cancel()
            if stalled:
                self._stalled -= 1
            self._inflight -= 1
            self._inflight_by[pool] -= 1
            self._busy -= streams
        if outcomes is None:  # the worker gave no connection, nothing was sent: again, the other way
            self._queue.extendleft(reversed(batch))
            self._dispatch()
            return
        for command, outcome in zip(batch, outcomes, strict=True):
            if not command.future.done():  # done: the caller was cancelled
                if isinstance(outcome, BaseException):
                    command.future.set_exception(outcome)
                else:
                    command.future.set_result(outcome)
        self._dispatch()

    async def _run(
        self, batch: list[_Command], pool: AsyncConnectionPool
    ) -> list[list[AppendRow] | BaseException] | None:
        """Commit ``batch`` in one transaction on a connection of ``pool``; each command's outcomes, or the
        error it met. None: ``pool`` is a Citus worker's that gave no connection (nothing was sent)."""
        on_worker = pool is not self.pool
        parts = [part for command in batch for part in command.parts]  # command by command
        # Every batch writes its streams' keys in one order (streams are distinct within a batch).
        order = sorted(range(len(parts)), key=lambda i: parts[i].stream_id)
        ordered = [parts[i] for i in order]
        outcomes: list[list[AppendRow] | BaseException] = [None] * len(batch)  # type: ignore[list-item]
        try:
            conn = await self._take_connection(pool)
        except psycopg.OperationalError as exc:  # no connection (pool timeout, server gone): nothing sent
            if on_worker and self.routes is not None:
                self.routes.unreachable(pool, exc)
                return None
            return [exc] * len(batch)
        try:
            if (fence := batch[0].parts[0].fence) is not None:  # alone in its batch (see _dispatch)
                if on_worker:  # fenced by its own stream's lease (so routed here): the one-stream function
                    (part,) = parts
                    outcomes[0] = [await self._append_alone(conn, part)]
                else:
                    rows = await self._append_parts(conn, ordered, [0] * len(parts), fence)
                    outcomes[0] = [rows[order.index(i)] for i in range(len(parts))]
                self._keep_connection(conn, pool)
                return outcomes
            prevs = await self._prev_hashes(conn, ordered)
            known = [prev for prev in prevs if prev is not None]
            try:
                if len(known) < len(prevs):
                    raise _Unchained
                rows = await self._append_rows(conn, ordered, known, announce=not on_worker)
            except psycopg.OperationalError:
                raise
            except (psycopg.Error, _Unchained):
                # A conflict, a retried request id or a command that does not follow a stored
                # event: the checked path settles each command's own outcome.
                owners = [index for index, command in enumerate(batch) for _ in command.parts]
                rows = await self._append_parts(conn, ordered, [owners[i] for i in order])
        except psycopg.OperationalError as exc:
            # The connection failed: whether the batch committed is unknown to us.
            await pool.putconn(conn)  # the pool discards it if broken
            return [exc] * len(batch)
        except psycopg.Error as exc:
            if len(batch) == 1:
                self._keep_connection(conn, pool)
                return [exc]
            # Something in the batch failed the whole transaction: give each command its own.
            _log.info("batch of %d appends failed (%s); retrying them one by one", len(batch), exc)
            for position, command in enumerate(batch):
                given = command.parts
                by_stream = sorted(range(len(given)), key=lambda i: given[i].stream_id)
                try:
                    rows = await self._append_parts(conn, [given[i] for i in by_stream], [0] * len(given))
                    outcomes[position] = [rows[by_stream.index(i)] for i in range(len(given))]
                except psycopg.OperationalError as one_exc:
                    await pool.putconn(conn)
                    for rest in range(len(batch)):
                        if outcomes[rest] is None:
                            outcomes[rest] = one_exc
                    return outcomes
                except psycopg.Error as one_exc:
                    outcomes[position] = one_exc
            self._keep_connection(conn, pool)
            return outcomes
        except BaseException:
            await pool.putconn(conn)
            raise
        self._keep_connection(conn, pool)
        if len(parts) == len(batch):  # one part each: owners[i] == i
            for position, row in zip(order, rows, strict=True):
                outcomes[position] = [row]
            return outcomes
        by_part: list[AppendRow] = [None] * len(parts)  # type: ignore[list-item]
        for position, row in zip(order, rows, strict=True):
            by_part[position] = row
        start = 0
        for position, command in enumerate(batch):  # parts were listed command by command
            outcomes[position] = by_part[start : start + len(command.parts)]
            start += len(command.parts)
        return outcomes

    async def _append_alone(self, conn: psycopg.AsyncConnection[Any], part: Part) -> AppendRow:
        """``part`` by ``stud_append_stream`` on ``conn``, its outcome."""
        code, first, last = await append_stream(conn, part)
        self._heads.pop(part.stream_id, None)  # hashed by the server: read it when next needed
        return self._done(part, code, first, last)

    def _done(self, part: Part, outcome: str, first: int | None, last: int) -> AppendRow:
        if outcome == "a" and self.announce:
            self._announce(part.stream_id, last)
        return outcome, first, last

    async def _append_rows(
        self, conn: psycopg.AsyncConnection[Any], batch: list[Part], prevs: list[bytes], announce: bool = True
    ) -> list[AppendRow]:
        """The fast path (``_APPEND_ROWS``): every event of every part hashed here from ``prevs``,
        the batch one INSERT. Raises if any part conflicts, nothing written; the caller then takes
        the checked path. ``announce`` false (a Citus worker's batch, whose notifications nobody hears):
        the pending announcements are left for the next batch or the announcer."""
        sha256 = hashlib.sha256
        event_streams: list[str] = []
        versions: list[str] = []
        types: list[str] = []
        hands: list[int | None] = []
        request_ids: list[str | None] = []
        fingerprints: list[str | None] = []
        sizes: list[int | None] = []
        event_prevs: list[str] = []
        hashes: list[str] = []
        payloads: list[bytes] = []
        lasts: list[tuple[int, bytes]] = []
        for part, prev in zip(batch, prevs, strict=True):
            encoded = part.events
            texts = encoded.texts
            count = len(texts)
            prev_hex = prev.hex()
            for text in texts:
                prev = sha256(prev + text).digest()
                event_prevs.append(prev_hex)
                prev_hex = prev.hex()
                hashes.append(prev_hex)
            first = part.expected + 1
            lasts.append((part.expected + count, prev))
            event_streams += [quoted(part.stream_id)] * count
            versions += map(str, range(first, first + count))
            types += encoded.types
            hands += encoded.hands
            payloads += texts
            request_ids.append(part.request_id)
            fingerprints.append(part.fingerprint)
            sizes.append(count if part.request_id is not None else None)
            if count > 1:
                request_ids += [None] * (count - 1)
                fingerprints += [None] * (count - 1)
                sizes += [None] * (count - 1)
        started = [c.stream_id for c in batch if c.expected == 0]
        if not announce and not started and len(payloads) <= VALUES_ROWS:
            # On a Citus worker: rows as VALUES, which Citus routes to their shards as they are (an
            # INSERT ... SELECT it runs as a query of its own and then copies into the shards).
            values: list[str | bytes | None] = []
            row = 0
            for part in batch:
                for _ in part.events.texts:
                    values += [part.stream_id, versions[row], types[row], payloads[row],
                               _int_or_none(hands[row]), request_ids[row], _int_or_none(sizes[row]),
                               fingerprints[row], event_prevs[row], hashes[row]]
                    row += 1
            await _values_statement(row).run(conn, values, self.spin_wait)
            return self._appended(batch, lasts)
        announcing: dict[str, int] = {}
        if announce:
            announcing, self._announcements = self._announcements, {}
            self._carried += 1
            if self._announce_timer is not None:  # this batch carries them all
                self._announce_timer.cancel()
                self._announce_timer = None
        params: list[str | bytes | None] = [
            "{" + ",".join(event_streams) + "}",
            "{" + ",".join(versions) + "}",
            text_array(types),
            b"\n".join(payloads),
            int_array(hands),
            text_array(request_ids),
            int_array(sizes),
            ",".join(event_prevs),
            ",".join(hashes),
            text_array(list(announcing)),
            int_array(announcing.values()),
            text_array(fingerprints),
        ]
        try:
            if started:
                await _APPEND_ROWS_NEW.run(conn, [*params, text_array(started)], self.spin_wait)
            else:
                await _APPEND_ROWS.run(conn, params, self.spin_wait)
        except BaseException:
            self._reannounce(announcing)  # not sent, or not known to be
            raise
        return self._appended(batch, lasts)

    def _appended(self, batch: list[Part], lasts: list[tuple[int, bytes]]) -> list[AppendRow]:
        """The outcomes of a batch the fast path wrote; the new heads remembered."""
        rows: list[AppendRow] = []
        for part, (last, last_hash) in zip(batch, lasts, strict=True):
            self._remember(part.stream_id, last, last_hash)
            rows.append(self._done(part, "a", part.expected + 1, last))
        return rows

    async def _prev_hashes(
        self, conn: psycopg.AsyncConnection[Any], batch: list[Part]
    ) -> list[bytes | None]:
        """The hash of the event each command expects to follow: remembered, or read in one query
        for the streams this writer has not seen at that version. None where the stream has no
        such event (the command is ahead of the stream): only the checked path can answer it."""
        unknown = [
            c for c in batch if c.expected > 0 and self._heads.get(c.stream_id, (0, b""))[0] != c.expected
        ]
        if unknown:
            streams = text_array([c.stream_id for c in unknown])
            cur = await conn.execute(
                _HEAD_HASHES_SQL, (streams, int_array([c.expected for c in unknown]), streams), prepare=True
            )
            expected_of = {c.stream_id: c.expected for c in unknown}
            for stream_id, stored_hash in await cur.fetchall():
                self._remember(stream_id, expected_of[stream_id], bytes(stored_hash))
        prevs: list[bytes | None] = []
        for part in batch:
            if part.expected == 0:
                prevs.append(GENESIS_HASH)
                continue
            version, head_hash = self._heads.get(part.stream_id, (0, GENESIS_HASH))
            prevs.append(head_hash if version == part.expected else None)
        return prevs

    def _remember(self, stream_id: str, version: int, head_hash: bytes) -> None:
        heads = self._heads
        heads[stream_id] = (version, head_hash)
        heads.move_to_end(stream_id)
        if len(heads) > KNOWN_HEADS:
            heads.popitem(last=False)

    async def _append_parts(
        self, conn: psycopg.AsyncConnection[Any], parts: list[Part], commands: list[int],
        fence: Fence | None = None,
    ) -> list[AppendRow]:
        """The checked path (``stud_append_parts``): every part of a command checked before any is
        written, each command with its own outcome. ``parts`` in stream order; ``commands[i]``
        numbers the command of ``parts[i]``. One outcome per part, in the order of ``parts``.
        With a ``fence`` (one command only), ``stud_append_fenced``: outcome 'f' if the lease is lost."""
        fenced = () if fence is None else (fence.lease, fence.owner, fence.epoch)
        cur = await conn.execute(
            _APPEND_PARTS_SQL if fence is None else _APPEND_FENCED_SQL,
            (
                *fenced,
                int_array([c + 1 for c in commands]),
                "{" + ",".join(["t" if p.lead else "f" for p in parts]) + "}",
                text_array([p.stream_id for p in parts]),
                int_array([p.expected for p in parts]),
                text_array([p.request_id for p in parts]),
                text_array([p.fingerprint for p in parts]),
                b"\x1e".join([b"\n".join(p.events.texts) for p in parts]).decode(),
            ),
            prepare=True,
        )
        rows = await cur.fetchall()
        results: list[AppendRow] = []
        for (_, outcome, first, last), part in zip(rows, parts, strict=True):
            # The hash of what was written was computed by the server: read it when next needed.
            self._heads.pop(part.stream_id, None)
            results.append(self._done(part, outcome, first, last))
        return results

    # -- connections ---------------------------------------------------------------------------
    # Checking a connection out of the pool costs more client time than the append itself. While
    # appends keep coming the writer keeps the connections its batches used, and gives them back
    # once it has been idle for KEEP_CONNECTIONS seconds (so an idle or forgotten store holds
    # none, and a batch waiting on a small pool gets them soon).

    async def _take_connection(self, pool: AsyncConnectionPool | None = None) -> psycopg.AsyncConnection[Any]:
        """A connection of ``pool`` (the store's, or on Citus a worker's), kept from before if one is."""
        pool = self.pool if pool is None else pool
        kept = self._connections.get(pool)
        while kept:
            conn = kept.pop()
            try:
                await check_idle_connection(conn)  # as the pool checks it: a select(), no round trip
                return conn
            except psycopg.Error:
                await pool.putconn(conn)
        conn = await pool.getconn()
        if conn not in self._configured:
            try:
                # Durable commits whatever the server's or the role's default (the setting stays
                # with the connection, which matches PostgreSQL's own default for other users).
                await conn.execute(_SESSION_SQL)
                if self.routed is None and pool is self.pool:
                    cur = await conn.execute(_CITUS_SQL)
                    row = await cur.fetchone()
                    self.routed = bool(row and row[0])
                    if self.routed and self.routes is None and self.direct:
                        # A worker takes batches only: at most the slots a pool has (see _dispatch).
                        self.routes = WorkerRoutes(self.pool, max_size=self.max_stalled_inflight)
            except BaseException:
                await pool.putconn(conn)
                raise
            self._configured.add(conn)
        return conn

    def _keep_connection(
        self, conn: psycopg.AsyncConnection[Any], pool: AsyncConnectionPool | None = None
    ) -> None:
        self._connections.setdefault(self.pool if pool is None else pool, []).append(conn)
        self._last_used = asyncio.get_running_loop().time()
        if self._release_timer is None:
            self._release_timer = asyncio.get_running_loop().call_later(
                KEEP_CONNECTIONS, self._release_if_idle
            )

    def _release_if_idle(self) -> None:
        loop = asyncio.get_running_loop()
        idle_for = loop.time() - self._last_used
        if self._inflight or self._queue or idle_for < KEEP_CONNECTIONS:
            wait = max(KEEP_CONNECTIONS - idle_for, 0.001)
            self._release_timer = loop.call_later(wait, self._release_if_idle)
            return
        self._release_timer = None
        self._spawn(self._release_connections())

    async def _release_connections(self) -> None:
        kept, self._connections = self._connections, {}
        for pool, connections in kept.items():
            for conn in connections:
                await pool.putconn(conn)

    # -- announcements -------------------------------------------------------------------------

    # An append's announcement goes out in the next batch's statement, a NOTIFY inside its
    # transaction: under load that costs no transaction of its own and no client time on the
    # cycle's critical path, and by the time it arrives the appending caller has long had its
    # answer (so a subscriber holding its own appends through ``position`` reads nothing). An
    # announcement that no batch carries within ANNOUNCE_INTERVAL goes in a NOTIFY transaction
    # of its own. On Citus a routed call carries none, so there they wait ROUTED_ANNOUNCE_INTERVAL, gathering
    # the announcements of many actions in one such transaction.
    # The wait is a timer, not a task that sleeps: a batch that carries the announcements disarms it, so while
    # batches follow one another no timer fires and the loop is not woken for nothing.

    def _announce(self, stream_id: str, version: int) -> None:
        if version > self._announcements.get(stream_id, 0):
            self._announcements[stream_id] = version
        if self._announce_timer is None:
            self._arm_announce_timer()

    def _arm_announce_timer(self) -> None:
        interval = ROUTED_ANNOUNCE_INTERVAL if self.routed else ANNOUNCE_INTERVAL
        self._announce_timer = asyncio.get_running_loop().call_later(interval, self._announce_due)

    def _reannounce(self, announcing: dict[str, int]) -> None:
        for stream_id, version in announcing.items():
            self._announce(stream_id, version)

    def _announce_due(self) -> None:
        """No batch carried the pending announcements in time: a NOTIFY transaction of their own."""
        self._announce_timer = None
        if not self._announcements:
            return
        if self._flusher is not None and not self._flusher.done():
            # One such transaction at a time, the one close() waits for: these go after it.
            self._arm_announce_timer()
            return
        self._flusher = self._spawn(self._flush_announcements())

    async def _flush_announcements(self) -> None:
        pending, self._announcements = self._announcements, {}
        if not pending:
            return
        params = [text_array(list(pending)), int_array(pending.values())]
        try:
            # On a connection the writer keeps, by libpq (_wire): a pool checkout and psycopg's execute cost
            # more client time than the NOTIFY itself.
            conn = await self._take_connection()
        except psycopg.Error as exc:
            _log.warning("could not announce %d stream(s): %s", len(pending), exc)
            return
        try:
            await _ANNOUNCE_MANY.run(conn, params)
        except psycopg.Error as exc:
            # Lost announcements only delay subscribers until their next notification or poll.
            await self.pool.putconn(conn)  # the pool discards it if broken
            _log.warning("could not announce %d stream(s): %s", len(pending), exc)
        except BaseException:
            await self.pool.putconn(conn)
            raise
        else:
            self._keep_connection(conn)

    async def close(self) -> None:
        """Wait for queued appends, send the last announcements, stop the background tasks."""
        while self._queue or self._inflight:
            await asyncio.sleep(0.001)
        if self._announce_timer is not None:
            self._announce_timer.cancel()
            self._announce_timer = None
        if self._flusher is not None:
            # One NOTIFY transaction, no loop: even a cancel swallowed on Python 3.11 (asyncio.wait_for, in a
            # pool checkout) leaves it to end by itself.
            self._flusher.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._flusher
            self._flusher = None
        await self._flush_announcements()
        if self._release_timer is not None:
            self._release_timer.cancel()
            self._release_timer = None
        await self._release_connections()
        if self.routes is not None:
            await self.routes.close()
            self.routes = None

