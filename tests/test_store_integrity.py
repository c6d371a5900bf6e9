"""The hash chain and its verification (DESIGN.md "Persistence": verify recomputes the chain),
and faults: a connection killed mid-append leaves all or nothing."""

from __future__ import annotations

import asyncio
import hashlib

import psycopg
import pytest
from psycopg.conninfo import make_conninfo

from stud_service.db import open_pool
from stud_service.store import GENESIS_HASH, EventStore, canonical_json, chain_hash


def ev(kind: str, n: int, hand: int | None = None) -> dict:
    event: dict = {"type": kind, "v": 1, "n": n}
    if hand is not None:
        event["hand"] = hand
    return event


async def fill(store: EventStore, stream_id: str, hands: int = 3) -> None:
    """A table stream: a seat event, then ``hands`` hands of four events each."""
    version = (await store.append(stream_id, 0, [ev("SitDown", 0)])).version
    for hand in range(1, hands + 1):
        events = [ev(kind, n, hand) for n, kind in enumerate(["HandStarted", "Bet", "Call", "HandEnded"], 1)]
        version = (await store.append(stream_id, version, events[:2])).version
        version = (await store.append(stream_id, version, events[2:])).version


async def terminate_backends(admin_pool, application_name: str) -> int:
    """Terminate every backend of ``application_name`` and wait until they have really exited
    (pg_terminate_backend only signals). Returns how many there were."""
    async with admin_pool.connection() as conn:
        cur = await conn.execute(
            "SELECT array_agg(pid) FROM pg_stat_activity WHERE application_name = %s", (application_name,)
        )
        pids = (await cur.fetchone())[0] or []
        await conn.execute("SELECT pg_terminate_backend(pid) FROM unnest(%s::int[]) AS pid", (pids,))
        for _ in range(1500):
            cur = await conn.execute("SELECT count(*) FROM pg_stat_activity WHERE pid = ANY(%s)", (pids,))
            if (await cur.fetchone())[0] == 0:
                return len(pids)
            await asyncio.sleep(0.02)
    raise AssertionError(f"backends of {application_name} still alive")


async def sql(pool, query: str, *params) -> None:
    async with pool.connection() as conn:
        await conn.execute(query, params)


def test_canonical_json_is_sorted_compact_utf8() -> None:
    assert canonical_json({"b": 1, "a": [True, None, "é"]}) == '{"a":[true,null,"é"],"b":1}'.encode()
    assert canonical_json({"text": "a\u2028\"b"}) == '{"text":"a\u2028\\"b"}'.encode()
    assert chain_hash(GENESIS_HASH, b"{}") == hashlib.sha256(bytes(32) + b"{}").digest()


async def test_stored_hashes_follow_the_documented_formula(event_store: EventStore, stream_id: str) -> None:
    await fill(event_store, stream_id, hands=1)
    prev = GENESIS_HASH
    for stored in await event_store.read_stream(stream_id):
        assert stored.prev_hash == prev
        assert stored.hash == chain_hash(prev, canonical_json(stored.payload))
        prev = stored.hash


async def test_untouched_stream_verifies(event_store: EventStore, stream_id: str) -> None:
    await fill(event_store, stream_id)
    report = await event_store.verify(stream_id)
    assert report.ok and report.checked == 13 and report.first_bad_version is None
    assert (await event_store.verify(stream_id, hand=2)).ok


async def test_edited_payload_is_named_by_verify(event_store: EventStore, stream_id: str) -> None:
    await fill(event_store, stream_id)
    await sql(
        event_store.pool,
        "UPDATE events SET payload = jsonb_set(payload, '{n}', '99') WHERE stream_id = %s AND version = 7",
        stream_id,
    )
    report = await event_store.verify(stream_id)
    assert (report.ok, report.first_bad_version) == (False, 7)
    assert "hash" in report.reason
    hand_report = await event_store.verify(stream_id, hand=2)  # hand 2 is versions 6..9
    assert (hand_report.ok, hand_report.first_bad_version) == (False, 7)
    assert (await event_store.verify(stream_id, hand=1)).ok


async def test_deleted_row_is_named_by_verify(event_store: EventStore, stream_id: str) -> None:
    await fill(event_store, stream_id)
    await sql(event_store.pool, "DELETE FROM events WHERE stream_id = %s AND version = 5", stream_id)
    report = await event_store.verify(stream_id)
    assert (report.ok, report.first_bad_version, report.reason) == (False, 5, "event missing")
    hand_report = await event_store.verify(stream_id, hand=1)  # hand 1 is versions 2..5: its last event
    assert (hand_report.ok, hand_report.first_bad_version) == (False, 5)


async def test_deleted_first_event_of_a_hand_is_named(event_store: EventStore, stream_id: str) -> None:
    await fill(event_store, stream_id)
    await sql(event_store.pool, "DELETE FROM events WHERE stream_id = %s AND version = 6", stream_id)
    hand_report = await event_store.verify(stream_id, hand=2)
    assert (hand_report.ok, hand_report.first_bad_version) == (False, 6)


async def test_truncated_tail_leaves_a_whole_shorter_chain(event_store: EventStore, stream_id: str) -> None:
    """Heads live in the events alone, so a cut tail is a shorter, intact chain: ``verify`` passes
    and the head moves back. A signed checkpoint of the old head is what names the cut (see
    test_audit_tamper)."""
    await fill(event_store, stream_id)
    head = await event_store.head(stream_id)
    await sql(event_store.pool, "DELETE FROM events WHERE stream_id = %s AND version >= 12", stream_id)
    assert (await event_store.verify(stream_id)).ok
    assert await event_store.head(stream_id) == 11 < head


async def test_swapped_rows_are_named_by_verify(event_store: EventStore, stream_id: str) -> None:
    await fill(event_store, stream_id)
    # Rows 3 and 4 trade places: each keeps its own content, hashes and links.
    await sql(
        event_store.pool,
        "UPDATE events e SET type = o.type, payload = o.payload, hand = o.hand, prev_hash = o.prev_hash,"
        " hash = o.hash FROM events o WHERE e.stream_id = %s AND o.stream_id = e.stream_id"
        " AND ((e.version = 3 AND o.version = 4) OR (e.version = 4 AND o.version = 3))",
        stream_id,
    )
    report = await event_store.verify(stream_id)
    assert (report.ok, report.first_bad_version) == (False, 3)


async def test_recomputed_hash_still_breaks_the_next_link(event_store: EventStore, stream_id: str) -> None:
    """A forger who edits an event and fixes its own hash is caught by the next event's prev_hash."""
    await fill(event_store, stream_id)
    (row,) = [e for e in await event_store.read_stream(stream_id) if e.version == 4]
    forged = dict(row.payload, n=1000)
    await sql(
        event_store.pool,
        "UPDATE events SET payload = %s::jsonb, hash = %s WHERE stream_id = %s AND version = 4",
        canonical_json(forged).decode(), chain_hash(row.prev_hash, canonical_json(forged)), stream_id,
    )
    report = await event_store.verify(stream_id)
    assert (report.ok, report.first_bad_version) == (False, 5)
    assert "prev_hash" in report.reason


async def test_killed_connection_mid_append_leaves_all_or_nothing(
    event_store: EventStore, stream_id: str
) -> None:
    """pg_terminate_backend while a command's transaction is open: none of its events remain."""
    await event_store.append(stream_id, 0, [ev("SitDown", 0)])
    async with event_store.pool.connection() as admin, event_store.pool.connection() as victim:
        victim_pid = victim.info.backend_pid
        # The admin side writes version 3 and holds its transaction open, so the victim's append
        # blocks mid-transaction (version 2 written, waiting to learn whether 3 is taken); then the
        # victim is killed while it waits, and the admin's row is rolled back.
        async with admin.transaction():
            await admin.execute(
                "INSERT INTO events (stream_id, version, type, payload, prev_hash, hash)"
                " VALUES (%s, 3, 'Blocker', '{}', '', '')",
                (stream_id,),
            )
            victim_append = asyncio.ensure_future(
                victim.execute(
                    "SELECT * FROM stud_append_commands(ARRAY[%s], '{1}', '{NULL}', %s)",
                    (stream_id, "\n".join(canonical_json(ev(k, 1)).decode() for k in "ABC")),
                )
            )
            for _ in range(1500):
                cur = await admin.execute(
                    "SELECT wait_event_type FROM pg_stat_activity WHERE pid = %s", (victim_pid,)
                )
                if (await cur.fetchone())[0] == "Lock":
                    break
                await asyncio.sleep(0.02)
            else:
                pytest.fail("the victim's append never reached the lock")
            await admin.execute("SELECT pg_terminate_backend(%s)", (victim_pid,))
            with pytest.raises(psycopg.OperationalError):
                await victim_append
            raise psycopg.Rollback
    assert [e.type for e in await event_store.read_stream(stream_id)] == ["SitDown"]
    assert await event_store.head(stream_id) == 1
    # The stream carries on normally afterwards.
    assert (await event_store.append(stream_id, 1, [ev("A", 1), ev("B", 2)])).version == 3
    assert (await event_store.verify(stream_id)).ok


async def test_killed_connection_after_commit_keeps_the_whole_command(
    event_store: EventStore, stream_id: str, database_url: str
) -> None:
    """The other half of all-or-nothing: once committed, terminating the backend loses nothing, and a retry
    with the same request id reports the original versions."""
    app = f"kill-{stream_id[-10:]}"
    pool = await open_pool(make_conninfo(database_url, application_name=app), min_size=2, max_size=2)
    try:
        store = EventStore(pool)
        first = await store.append(stream_id, 0, [ev("A", 1), ev("B", 2), ev("C", 3)], "cmd")
        assert await terminate_backends(event_store.pool, app) >= 1
        # The pool notices its dead connections at checkout; the retry is answered from the log.
        retried = await store.append(stream_id, 0, [ev("A", 1), ev("B", 2), ev("C", 3)], "cmd")
        assert retried is not None and retried.duplicate
        assert (retried.first_version, retried.version) == (first.first_version, first.version)
    finally:
        await pool.close()
    assert [e.type for e in await event_store.read_stream(stream_id)] == ["A", "B", "C"]


def test_canonical_json_fast_path_writes_the_reference_bytes() -> None:
    """DESIGN.md "Persistence" (hash chain over canonical JSON): the orjson path and the
    json.dumps reference give the same bytes for every shape an event may hold."""
    import json
    import random

    rng = random.Random(7)
    alphabet = ["a", "Z", "é", "♠", "\U0001f600", "\u2028", "\x01", "\n", '"', "\\", "/", "\x7f", ""]

    def text() -> str:
        return "".join(rng.choice(alphabet) for _ in range(rng.randint(0, 4)))

    def value(depth: int) -> object:
        kind = rng.randrange(7 if depth < 3 else 4)
        if kind == 0:
            return rng.choice([-(2**80), -(2**63), -1, 0, 7, 2**63 - 1, 2**64, 2**90])
        if kind == 1:
            return text()
        if kind == 2:
            return rng.choice([True, False, None])
        if kind == 3:
            return rng.randint(-1000, 1000)
        if kind == 4:
            return [value(depth + 1) for _ in range(rng.randint(0, 3))]
        if kind == 5:
            return tuple(value(depth + 1) for _ in range(rng.randint(0, 2)))
        return {text(): value(depth + 1) for _ in range(rng.randint(0, 4))}

    for _ in range(3000):
        event = {"type": "T", "body": value(0)}
        reference = json.dumps(event, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
        assert canonical_json(event) == reference.encode("utf-8"), event


@pytest.mark.parametrize("same_request", [False, True])
async def test_checked_path_answers_a_writer_that_won_the_race_meanwhile(
    event_store: EventStore, stream_id: str, same_request: bool
) -> None:
    """Another transaction writes the stream's next version after the checked path has looked but
    before it inserts: the insert waits for that transaction, fails on the key, and the command is
    answered from what was committed: a conflict, or a duplicate when it was the same request."""
    await event_store.append(stream_id, 0, [ev("SitDown", 0)])
    first = (await event_store.read_stream(stream_id))[0]
    async with event_store.pool.connection() as winner, event_store.pool.connection() as loser:
        async with winner.transaction():
            await winner.execute(
                "INSERT INTO events (stream_id, version, type, payload, request_id, command_size,"
                " prev_hash, hash) VALUES (%s, 2, 'Won', '{\"type\": \"Won\"}', %s, 1, %s, %s)",
                (stream_id, "r-1", first.hash, chain_hash(first.hash, canonical_json({"type": "Won"}))),
            )
            losing = asyncio.ensure_future(
                loser.execute(
                    "SELECT outcome, first_version, last_version"
                    " FROM stud_append_commands(ARRAY[%s], '{1}', ARRAY[%s], %s)",
                    (stream_id, "r-1" if same_request else "r-2", canonical_json(ev("Lost", 1)).decode()),
                )
            )
            for _ in range(1500):
                cur = await winner.execute(
                    "SELECT wait_event_type FROM pg_stat_activity WHERE pid = %s", (loser.info.backend_pid,)
                )
                if (await cur.fetchone())[0] == "Lock":
                    break
                await asyncio.sleep(0.02)
            else:
                pytest.fail("the losing append never waited for the winner")
        assert await (await losing).fetchone() == (("d", 2, 2) if same_request else ("c", None, 2))
    assert [e.type for e in await event_store.read_stream(stream_id)] == ["SitDown", "Won"]
    assert (await event_store.verify(stream_id)).ok
