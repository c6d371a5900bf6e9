"""Appending to the event log (DESIGN.md "Persistence"): expected version, request-id idempotency,
one command = one transaction, canonical JSON only."""

from __future__ import annotations

import asyncio
import contextlib
import time
from typing import Any

import pytest
from psycopg.conninfo import make_conninfo

from stud_service.db import open_pool
from stud_service.store import ConcurrencyError, EventStore, InvalidEvent, StoreUnavailable, _writer
from stud_service.store._writer import KEEP_CONNECTIONS


def ev(kind: str, n: int, hand: int | None = None) -> dict:
    event: dict = {"type": kind, "v": 1, "n": n}
    if hand is not None:
        event["hand"] = hand
    return event


async def test_first_append_starts_stream_at_version_one(event_store: EventStore, stream_id: str) -> None:
    result = await event_store.append(stream_id, 0, [ev("A", 1), ev("B", 2)], "req-1")
    assert (result.first_version, result.version, result.duplicate) == (1, 2, False)
    assert await event_store.head(stream_id) == 2
    stored = await event_store.read_stream(stream_id)
    assert [(e.version, e.type, e.payload) for e in stored] == [(1, "A", ev("A", 1)), (2, "B", ev("B", 2))]
    assert stored[0].request_id == "req-1" and stored[1].request_id is None


async def test_wrong_expected_version_raises_and_writes_nothing(
    event_store: EventStore, stream_id: str
) -> None:
    await event_store.append(stream_id, 0, [ev("A", 1)])
    for stale in (0, 2, 7):
        with pytest.raises(ConcurrencyError) as info:
            await event_store.append(stream_id, stale, [ev("X", 9)])
        assert (info.value.stream_id, info.value.expected_version, info.value.actual_version) == (
            stream_id, stale, 1,
        )
        assert stream_id in str(info.value)
    assert [e.type for e in await event_store.read_stream(stream_id)] == ["A"]


async def test_expecting_a_version_of_a_missing_stream_is_a_conflict(
    event_store: EventStore, stream_id: str
) -> None:
    with pytest.raises(ConcurrencyError) as info:
        await event_store.append(stream_id, 3, [ev("A", 1)])
    assert info.value.actual_version == 0
    assert await event_store.head(stream_id) == 0


async def test_retry_with_same_request_id_returns_original_result(
    event_store: EventStore, stream_id: str
) -> None:
    first = await event_store.append(stream_id, 0, [ev("A", 1)], "r1")
    second = await event_store.append(stream_id, 1, [ev("B", 2), ev("C", 3)], "r2")
    # The client never saw the answer to r2 and retries it — even with a now stale expected version.
    retried = await event_store.append(stream_id, 1, [ev("B", 2), ev("C", 3)], "r2")
    assert (retried.first_version, retried.version, retried.duplicate) == (2, 3, True)
    assert (second.first_version, second.version) == (2, 3)
    again = await event_store.append(stream_id, 0, [ev("A", 1)], "r1")
    assert (again.first_version, again.version, again.duplicate) == (first.first_version, first.version, True)
    assert await event_store.head(stream_id) == 3


async def test_request_ids_are_scoped_to_their_stream(event_store: EventStore, stream_id: str) -> None:
    await event_store.append(stream_id + "-a", 0, [ev("A", 1)], "same")
    other = await event_store.append(stream_id + "-b", 0, [ev("A", 1)], "same")
    assert not other.duplicate and other.version == 1


async def test_a_request_ids_fingerprint_is_kept_on_either_path(
    event_store: EventStore, stream_id: str
) -> None:
    """The fingerprint goes in with the command's first event whether the batch statement writes it
    or the checked path does (here: a batch with a retry in it), and comes back with its versions."""
    await event_store.append(stream_id + "-a", 0, [ev("A", 1), ev("B", 2)], "r1", b"\x01" * 32)
    await event_store.append(stream_id + "-a", 2, [ev("C", 3)], None, b"\x09" * 32)  # no id: not kept
    retried, checked = await asyncio.gather(
        event_store.append(stream_id + "-a", 0, [ev("A", 1), ev("B", 2)], "r1", b"\x01" * 32),
        event_store.append(stream_id + "-b", 0, [ev("A", 1)], "r2", b"\x02" * 32),
    )
    assert retried.duplicate and not checked.duplicate
    found = await event_store.find_request(stream_id + "-a", "r1")
    assert (found.first_version, found.last_version, found.fingerprint) == (1, 2, b"\x01" * 32)
    found = await event_store.find_request(stream_id + "-b", "r2")
    assert (found.first_version, found.last_version, found.fingerprint) == (1, 1, b"\x02" * 32)
    assert await event_store.find_request(stream_id + "-b", "r1") is None
    async with event_store.pool.connection() as conn:
        cur = await conn.execute(
            "SELECT count(*) FROM events WHERE stream_id = %s AND request_fingerprint IS NOT NULL",
            (stream_id + "-a",),
        )
        assert await cur.fetchone() == (1,)


async def test_concurrent_retries_of_one_request_write_once(event_store: EventStore, stream_id: str) -> None:
    """Many copies of one request racing: one writes, the others get the same result as duplicates."""
    results = await asyncio.gather(
        *(event_store.append(stream_id, 0, [ev("A", 1), ev("B", 2)], "only-once") for _ in range(8))
    )
    assert {(r.first_version, r.version) for r in results} == {(1, 2)}
    assert sum(not r.duplicate for r in results) == 1
    assert await event_store.head(stream_id) == 2


async def test_racing_writers_exactly_one_wins_each_round(event_store: EventStore, stream_id: str) -> None:
    """Two writers with the same expected version, many rounds: one wins, one conflicts,
    nothing lost or doubled."""
    rounds = 60
    for round_no in range(rounds):
        outcomes = await asyncio.gather(
            event_store.append(stream_id, round_no, [ev("W1", round_no)]),
            event_store.append(stream_id, round_no, [ev("W2", round_no)]),
            return_exceptions=True,
        )
        wins = [o for o in outcomes if not isinstance(o, BaseException)]
        losses = [o for o in outcomes if isinstance(o, ConcurrencyError)]
        assert len(wins) == 1 and len(losses) == 1, outcomes
        assert wins[0].version == round_no + 1 and losses[0].actual_version in (round_no, round_no + 1)
    stored = await event_store.read_stream(stream_id)
    assert [e.version for e in stored] == list(range(1, rounds + 1))
    assert [e.payload["n"] for e in stored] == list(range(rounds))
    assert (await event_store.verify(stream_id)).ok


async def test_many_writers_on_one_stream_each_event_once(event_store: EventStore, stream_id: str) -> None:
    """Writers that reload and retry on conflict: every command lands exactly once, in a gapless stream."""

    async def writer(name: str, commands: int) -> None:
        for n in range(commands):
            while True:
                version = await event_store.head(stream_id)
                try:
                    await event_store.append(stream_id, version, [ev(name, n)])
                    break
                except ConcurrencyError:
                    continue

    await asyncio.gather(*(writer(f"w{i}", 15) for i in range(6)))
    stored = await event_store.read_stream(stream_id)
    assert [e.version for e in stored] == list(range(1, 91))
    assert sorted((e.type, e.payload["n"]) for e in stored) == sorted(
        (f"w{i}", n) for i in range(6) for n in range(15)
    )


@pytest.mark.parametrize(
    "bad",
    [
        {"v": 1},
        {"type": "", "v": 1},
        {"type": "A", "stack": 1.5},
        {"type": "A", "x": float("nan")},
        {"type": "A", "hand": "3"},
        {"type": "A", "hand": True},
        {"type": "A", "name": "nul\x00here"},
        {"type": "A", 1: "non-string key"},
    ],
)
async def test_invalid_events_are_refused_before_writing(
    event_store: EventStore, stream_id: str, bad: dict
) -> None:
    with pytest.raises(InvalidEvent):
        await event_store.append(stream_id, 0, [ev("A", 1), bad])
    assert await event_store.head(stream_id) == 0


async def test_empty_command_is_refused(event_store: EventStore, stream_id: str) -> None:
    with pytest.raises(InvalidEvent):
        await event_store.append(stream_id, 0, [])


async def test_unicode_and_big_integers_round_trip(event_store: EventStore, stream_id: str) -> None:
    event = {"type": "Chat", "v": 1, "text": "Ünïcode ♠♥ \u2028 \"quoted\" \\ two\nlines\r\t", "chips": 2**62}
    await event_store.append(stream_id, 0, [event])
    (stored,) = await event_store.read_stream(stream_id)
    assert stored.payload == event
    assert (await event_store.verify(stream_id)).ok


async def test_read_hand_and_paging(event_store: EventStore, stream_id: str) -> None:
    await event_store.append(stream_id, 0, [ev("SitDown", 0)])
    await event_store.append(stream_id, 1, [ev("HandStarted", 1, hand=1), ev("Bet", 2, hand=1)])
    await event_store.append(stream_id, 3, [ev("HandEnded", 3, hand=1), ev("HandStarted", 4, hand=2)])
    assert [e.version for e in await event_store.read_hand(stream_id, 1)] == [2, 3, 4]
    assert [e.version for e in await event_store.read_hand(stream_id, 2)] == [5]
    assert await event_store.hand_numbers(stream_id) == [1, 2]
    assert [e.version for e in await event_store.read_stream(stream_id, after_version=2, limit=2)] == [3, 4]
    assert [v for v, _ in [x async for x in event_store.iter_payloads(stream_id, 1, page=2)]] == [2, 3, 4, 5]


async def test_payload_slices_carry_each_event_s_own_version_across_a_gap(
    event_store: EventStore, stream_id: str
) -> None:
    """A page is read as one row when its versions have no gap; one with a gap is read row by row,
    so each payload still comes with its own version (the fold then names the missing one)."""
    await event_store.append(stream_id, 0, [ev("E", n) for n in range(1, 8)])
    async with event_store.pool.connection() as conn:
        await conn.execute("DELETE FROM events WHERE stream_id = %s AND version = 4", (stream_id,))
    slices = [(list(versions), payloads)
              async for versions, payloads in event_store.iter_payload_slices(stream_id, 0, page=2)]
    assert [versions for versions, _ in slices] == [[1, 2], [3, 5], [6, 7]]
    assert [p["n"] for _, payloads in slices for p in payloads] == [1, 2, 3, 5, 6, 7]
    assert [v async for v, _ in event_store.iter_payloads(stream_id, 5, page=3)] == [6, 7]


async def test_list_streams_pages_by_id(event_store: EventStore, stream_id: str) -> None:
    names = [f"{stream_id}/{i}" for i in range(5)]
    for name in names:
        await event_store.append(name, 0, [ev("A", 1)])
    first = await event_store.list_streams(prefix=stream_id + "/", limit=3)
    rest = await event_store.list_streams(prefix=stream_id + "/", after=first[-1].stream_id, limit=3)
    assert [s.stream_id for s in first + rest] == names
    assert all(s.version == 1 for s in first + rest)


async def test_concurrent_commands_on_many_streams_each_keep_their_outcome(
    event_store: EventStore, stream_id: str
) -> None:
    """Appends waiting together share a transaction (group commit) without sharing fates:
    each command is appended, refused as a conflict or answered as a duplicate on its own."""
    streams = [f"{stream_id}/{i}" for i in range(10)]
    for name in streams:
        await event_store.append(name, 0, [ev("Seed", 0)], request_id="seed")
    calls = []
    for i, name in enumerate(streams):
        calls.append(event_store.append(name, 1, [ev("Good", i), ev("Good", i + 100)]))  # wins
        calls.append(event_store.append(name, 5, [ev("Stale", i)]))  # conflict
        calls.append(event_store.append(name, 0, [ev("Seed", 0)], request_id="seed"))  # duplicate
    outcomes = await asyncio.gather(*calls, return_exceptions=True)
    for i, name in enumerate(streams):
        good, stale, dup = outcomes[3 * i : 3 * i + 3]
        assert (good.first_version, good.version, good.duplicate) == (2, 3, False)
        assert isinstance(stale, ConcurrencyError) and stale.stream_id == name
        assert (dup.first_version, dup.version, dup.duplicate) == (1, 1, True)
        stored = await event_store.read_stream(name)
        assert [(e.type, e.payload["n"]) for e in stored] == [("Seed", 0), ("Good", i), ("Good", i + 100)]
        assert (await event_store.verify(name)).ok


async def test_one_writer_chaining_commands_on_a_stream_in_one_burst(
    event_store: EventStore, stream_id: str
) -> None:
    """Commands to one stream queued back to back (each expecting the previous one's version)
    land in order even when they travel in the same batch."""
    results = await asyncio.gather(*(event_store.append(stream_id, n, [ev("Step", n)]) for n in range(30)))
    assert [r.version for r in results] == list(range(1, 31))
    assert [e.payload["n"] for e in await event_store.read_stream(stream_id)] == list(range(30))


async def test_append_commits_synchronously_whatever_the_session_says(event_store: EventStore) -> None:
    """An acknowledged append is durable: the checked append function (the path a refused batch
    takes) turns synchronous_commit on for its own transaction even if the session or server
    default is off."""
    async with event_store.pool.connection() as conn:
        await conn.execute("SET synchronous_commit = off")
        try:
            async with conn.transaction():
                await conn.execute(
                    "SELECT * FROM stud_append_commands(ARRAY[%s], '{0}', '{NULL}', %s)",
                    (f"sync-{id(conn)}", '{"type":"A","v":1}'),
                )
                cur = await conn.execute("SHOW synchronous_commit")
                assert (await cur.fetchone())[0] == "on"
        finally:
            await conn.execute("RESET synchronous_commit")


async def test_burst_over_several_transactions_keeps_each_streams_order(
    db_pool: Any, stream_id: str
) -> None:
    """DESIGN.md "Persistence" (expected version): with several group-commit transactions under
    way at once, a stream's queued commands still reach it in order, never racing each other in
    two transactions; the other streams' commands land beside them."""
    store = EventStore(db_pool)
    store._writer.max_inflight = 8  # room for every wave below to be under way at once
    streams = [f"{stream_id}/{i}" for i in range(6)]
    calls = []
    for n in range(15):  # a wave per turn of the loop: each would start a transaction of its own
        calls += [asyncio.ensure_future(store.append(name, n, [ev("Step", n)])) for name in streams]
        await asyncio.sleep(0)
    results = await asyncio.gather(*calls)
    await store.close()
    assert sorted(r.version for r in results) == sorted(list(range(1, 16)) * len(streams))
    for name in streams:
        assert [e.payload["n"] for e in await store.read_stream(name)] == list(range(15))
        assert (await store.verify(name)).ok


async def test_appends_on_a_one_connection_pool_leave_it_to_reads(database_url: str, stream_id: str) -> None:
    """The writer keeps the connections its batches used only while appends keep coming: on a
    pool of one connection, reads and appends take turns, and a store left idle (even one never
    closed) gives its connection back to the pool."""
    pool = await open_pool(database_url, min_size=1, max_size=1)
    try:
        store = EventStore(pool, announce=False)
        for n in range(5):
            await store.append(stream_id, n, [ev("A", n)])
            assert await asyncio.wait_for(store.head(stream_id), timeout=30) == n + 1
        given_back = time.monotonic()
        while pool.get_stats()["pool_available"] != 1:  # once idle for KEEP_CONNECTIONS
            assert time.monotonic() - given_back < 20, "the idle writer kept its connection"
            await asyncio.sleep(KEEP_CONNECTIONS)
    finally:
        await pool.close()


async def test_two_stores_each_with_a_remembered_head_conflict_cleanly(
    db_pool: Any, stream_id: str
) -> None:
    """DESIGN.md "Persistence" (expected version) across processes: each store's writer remembers
    the last event it wrote on a stream and chains the next command from it. When another store
    has moved the stream on, the stale command is refused as a conflict (nothing written, the
    chain intact), and the store carries on from the version it then reads."""
    first, second = EventStore(db_pool, announce=False), EventStore(db_pool, announce=False)
    try:
        await first.append(stream_id, 0, [ev("A", 1)])
        await second.append(stream_id, 1, [ev("B", 2)])  # `first` still remembers version 1
        with pytest.raises(ConcurrencyError) as info:
            await first.append(stream_id, 1, [ev("X", 9)])
        assert info.value.actual_version == 2
        assert (await first.append(stream_id, 2, [ev("C", 3)], "c")).version == 3
        with pytest.raises(ConcurrencyError):  # ahead of the stream: refused, no gap made
            await second.append(stream_id, 5, [ev("Y", 9)])
        assert (await second.append(stream_id, 3, [ev("D", 4)])).version == 4
    finally:
        await first.close()
        await second.close()
    assert [e.type for e in await first.read_stream(stream_id)] == ["A", "B", "C", "D"]
    assert await first.head(stream_id) == 4
    assert (await first.verify(stream_id)).ok


async def test_a_wrong_remembered_hash_is_named_by_verify(db_pool: Any, stream_id: str) -> None:
    """The batch statement trusts the hash the writer remembers for the event a command follows
    (its own appends' hashes, or one read from the log: events never change). Should a writer
    ever remember a wrong one, the link it writes is broken, and verify names that event."""
    store = EventStore(db_pool, announce=False)
    try:
        await store.append(stream_id, 0, [ev("A", 1)])
        store._writer._heads[stream_id] = (1, b"\x01" * 32)
        assert (await store.append(stream_id, 1, [ev("B", 2), ev("C", 3)])).version == 3
    finally:
        await store.close()
    assert [e.type for e in await store.read_stream(stream_id)] == ["A", "B", "C"]
    report = await store.verify(stream_id)
    assert (report.ok, report.first_bad_version) == (False, 2)
    assert "prev_hash" in report.reason


async def test_writer_connections_commit_synchronously_whatever_the_server_default(
    database_url: str, stream_id: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """An acknowledged append is durable even on a server (or role) whose default is
    synchronous_commit = off: the writer turns it on for the connections it appends on."""
    # The writer keeps its connection while this test reads it (else it goes back to the pool once idle for
    # KEEP_CONNECTIONS, which a loaded machine can let pass between the append and the read).
    monkeypatch.setattr(_writer, "KEEP_CONNECTIONS", 600.0)
    pool = await open_pool(make_conninfo(database_url, options="-c synchronous_commit=off"), max_size=2)
    try:
        async with pool.connection() as conn:
            cur = await conn.execute("SHOW synchronous_commit")
            assert (await cur.fetchone())[0] == "off"
        store = EventStore(pool, announce=False)
        await store.append(stream_id, 0, [ev("A", 1)])
        (conn,) = store._writer._connections[pool]
        cur = await conn.execute("SHOW synchronous_commit")
        assert (await cur.fetchone())[0] == "on"
        await store.close()
    finally:
        await pool.close()


async def test_append_with_no_connection_to_be_had_fails_instead_of_waiting_forever(
    database_url: str, stream_id: str
) -> None:
    """When the pool cannot hand the writer a connection in time, the waiting append gets a clear
    error (nothing was sent, so nothing is written) and the next append works as usual."""
    pool = await open_pool(database_url, min_size=1, max_size=1)
    pool.timeout = 0.3
    try:
        store = EventStore(pool, announce=False)
        async with pool.connection():  # the only connection, held elsewhere
            with pytest.raises(StoreUnavailable):
                await asyncio.wait_for(store.append(stream_id, 0, [ev("A", 1)], "r"), timeout=20)
        assert (await store.append(stream_id, 0, [ev("A", 1)], "r")).version == 1
        assert [e.type for e in await store.read_stream(stream_id)] == ["A"]
        await store.close()
    finally:
        await pool.close()


async def test_close_ends_the_announcer_even_when_its_cancel_is_swallowed(db_pool, stream_id: str) -> None:
    """Python 3.11's asyncio.wait_for (in the pool checkout) can swallow a cancel that lands as it finishes;
    close() must not then wait for ever on an announcer that never learnt it was cancelled."""
    store = EventStore(db_pool)
    writer = store._writer
    flushing = asyncio.Event()

    async def flush_that_swallows_a_cancel() -> None:
        flushing.set()
        with contextlib.suppress(asyncio.CancelledError):  # a swallowed cancel: the await simply returns
            await asyncio.sleep(1.0)

    writer._flush_announcements = flush_that_swallows_a_cancel  # type: ignore[method-assign]
    await store.append(stream_id, 0, [ev("A", 1)])
    await asyncio.wait_for(flushing.wait(), 30.0)  # the announcer is inside its flush
    closing = asyncio.ensure_future(store.close())
    done, _ = await asyncio.wait({closing}, timeout=30.0)  # not wait_for: close() suppresses a cancel itself
    if not done:  # leave nothing running: the announcer ignored one cancel, a second one ends it
        writer._flusher.cancel()  # type: ignore[union-attr]
        await closing
    assert done, "close() waited for ever on the announcer"
