"""One command across several streams (``EventStore.append_all``, as a buy-in appends a table event
and an account entry together): every part or none, each checked against its expected version,
request-id retries, hash chains, group commit with other commands, concurrent writers of
overlapping streams, and a connection killed mid-commit."""

from __future__ import annotations

import asyncio
import random
from typing import Any

import psycopg
import pytest
from psycopg.conninfo import make_conninfo

from stud_service.db import open_pool
from stud_service.store import (
    ConcurrencyError,
    EventStore,
    InvalidEvent,
    StoreUnavailable,
    StreamAppend,
    canonical_json,
    chain_hash,
)
from stud_service.store._types import NOTIFY_CHANNEL


def ev(kind: str, n: int, **fields: Any) -> dict:
    return {"type": kind, "v": 1, "n": n, **fields}


async def types_of(store: EventStore, stream_id: str) -> list[str]:
    return [e.type for e in await store.read_stream(stream_id)]


async def seed(store: EventStore, *streams: str) -> None:
    for name in streams:
        await store.append(name, 0, [ev("Opened", 0)])


async def wait_for_lock(watcher: psycopg.AsyncConnection, pid: int) -> None:
    for _ in range(1500):
        cur = await watcher.execute("SELECT wait_event_type FROM pg_stat_activity WHERE pid = %s", (pid,))
        if (await cur.fetchone())[0] == "Lock":
            return
        await asyncio.sleep(0.02)
    pytest.fail("the append never waited on the lock")


async def test_parts_land_together_in_one_transaction(event_store: EventStore, stream_id: str) -> None:
    table, account = f"{stream_id}/table", f"{stream_id}/account"
    await seed(event_store, table)
    results = await event_store.append_all(
        [
            StreamAppend(
                table, 1, [ev("PlayerSeated", 1), ev("Note", 2)], request_id="sit-1", fingerprint=b"\x07" * 32
            ),
            StreamAppend(account, 0, [ev("BuyInDebited", 1)]),
        ]
    )
    assert [(r.stream_id, r.first_version, r.version, r.duplicate) for r in results] == [
        (table, 2, 3, False),
        (account, 1, 1, False),
    ]
    assert await types_of(event_store, table) == ["Opened", "PlayerSeated", "Note"]
    assert await types_of(event_store, account) == ["BuyInDebited"]
    found = await event_store.find_request(table, "sit-1")
    assert (found.first_version, found.last_version, found.fingerprint) == (2, 3, b"\x07" * 32)
    async with event_store.pool.connection() as conn:
        cur = await conn.execute(
            "SELECT count(DISTINCT xmin::text) FROM events WHERE stream_id = ANY(%s) AND type <> 'Opened'",
            ([table, account],),
        )
        assert await cur.fetchone() == (1,)  # one transaction wrote both
    listed = await event_store.list_streams(prefix=stream_id + "/")
    assert [s.stream_id for s in listed] == [account, table]


@pytest.mark.parametrize("company", ["alone", "in a batch"])
@pytest.mark.parametrize("stale", ["behind", "ahead"])
async def test_a_stale_second_part_writes_nothing_on_the_first(
    event_store: EventStore, stream_id: str, company: str, stale: str
) -> None:
    """The conflict names the part whose stream moved (its id, its actual version); nothing of the
    command is written anywhere, whether the command is alone or shares its transaction with
    other commands (which keep their own outcomes), and whether it is behind or ahead."""
    table, account = f"{stream_id}/table", f"{stream_id}/account"
    others = [f"{stream_id}/other-{i}" for i in range(4)]
    await seed(event_store, table, account, *others)
    await event_store.append(account, 1, [ev("FundsDeposited", 1)])  # the account is at 2
    command = event_store.append_all(
        [
            StreamAppend(table, 1, [ev("PlayerSeated", 1)]),
            StreamAppend(account, 1 if stale == "behind" else 3, [ev("BuyInDebited", 1)]),
        ]
    )
    if company == "alone":
        outcome = await asyncio.gather(command, return_exceptions=True)
    else:
        outcome = await asyncio.gather(
            *(event_store.append(name, 1, [ev("Other", 1)]) for name in others[:2]),
            command,
            *(event_store.append_all([StreamAppend(name, 1, [ev("Other", 1)])]) for name in others[2:]),
            return_exceptions=True,
        )
        assert [r.version for r in outcome[:2]] == [2, 2]
        assert [[r.version for r in rs] for rs in outcome[3:]] == [[2], [2]]
        outcome = outcome[2:3]
    (error,) = outcome
    assert isinstance(error, ConcurrencyError)
    assert (error.stream_id, error.expected_version, error.actual_version) == (
        account,
        1 if stale == "behind" else 3,
        2,
    )
    assert await types_of(event_store, table) == ["Opened"]
    assert await types_of(event_store, account) == ["Opened", "FundsDeposited"]
    for name in others if company != "alone" else []:
        assert await types_of(event_store, name) == ["Opened", "Other"]
    for name in (table, account, *others):
        assert (await event_store.verify(name)).ok
    # The command carries on from the versions it now reads.
    results = await event_store.append_all(
        [
            StreamAppend(table, 1, [ev("PlayerSeated", 1)]),
            StreamAppend(account, 2, [ev("BuyInDebited", 1)]),
        ]
    )
    assert [r.version for r in results] == [2, 3]


async def test_a_stale_first_part_is_the_one_named(event_store: EventStore, stream_id: str) -> None:
    table, account = f"{stream_id}/table", f"{stream_id}/account"
    await seed(event_store, table, account)
    with pytest.raises(ConcurrencyError) as info:
        await event_store.append_all(
            [
                StreamAppend(table, 0, [ev("PlayerSeated", 1)]),
                StreamAppend(account, 1, [ev("BuyInDebited", 1)]),
            ]
        )
    assert (info.value.stream_id, info.value.actual_version) == (table, 1)
    assert await types_of(event_store, account) == ["Opened"]


async def test_a_retried_command_is_a_duplicate_on_every_part(
    event_store: EventStore, stream_id: str
) -> None:
    """The first part's request id tells a retry: nothing written, every result a duplicate, the
    first part's (and any part's with its own recorded id) the original versions; also after
    the streams have moved on, and for copies racing each other."""
    table, account, house = f"{stream_id}/table", f"{stream_id}/account", f"{stream_id}/house"
    await seed(event_store, table, account, house)

    def command() -> list[StreamAppend]:
        return [
            StreamAppend(table, 1, [ev("PlayerLeft", 1), ev("Note", 2)], request_id="leave-1"),
            StreamAppend(account, 1, [ev("CashOutCredited", 1)], request_id="leave-1/account"),
            StreamAppend(house, 1, [ev("Unrelated", 1)]),
        ]

    copies = await asyncio.gather(*(event_store.append_all(command()) for _ in range(5)))
    originals = [c for c in copies if not c[0].duplicate]
    assert len(originals) == 1
    (original,) = originals
    assert [(r.first_version, r.version) for r in original] == [(2, 3), (2, 2), (2, 2)]
    for copy in copies:
        if copy is not original:
            assert all(r.duplicate for r in copy)
            assert [(r.first_version, r.version) for r in copy[:2]] == [(2, 3), (2, 2)]
    await event_store.append(table, 3, [ev("Later", 3)])
    await event_store.append(house, 2, [ev("Later", 3)])
    retried = await event_store.append_all(command())  # stale versions now: still a retry
    assert [(r.stream_id, r.first_version, r.version, r.duplicate) for r in retried] == [
        (table, 2, 3, True),
        (account, 2, 2, True),
        (house, 4, 3, True),  # house: no id, its head
    ]
    assert await types_of(event_store, table) == ["Opened", "PlayerLeft", "Note", "Later"]
    assert await types_of(event_store, account) == ["Opened", "CashOutCredited"]
    assert await types_of(event_store, house) == ["Opened", "Unrelated", "Later"]


async def test_bad_commands_are_refused_before_anything_is_sent(
    event_store: EventStore, stream_id: str
) -> None:
    with pytest.raises(ValueError):
        await event_store.append_all([])
    with pytest.raises(ValueError):
        await event_store.append_all(
            [StreamAppend(stream_id, 0, [ev("A", 1)]), StreamAppend(stream_id, 0, [ev("B", 1)])]
        )
    with pytest.raises(InvalidEvent):
        await event_store.append_all(
            [
                StreamAppend(stream_id + "/a", 0, [ev("A", 1)]),
                StreamAppend(stream_id + "/b", 0, [{"v": 1}]),
            ]
        )
    with pytest.raises(ValueError):
        await event_store.append_all(
            [
                StreamAppend(stream_id + "/a", 0, [ev("A", 1)]),
                StreamAppend(stream_id + "/b", -1, [ev("A", 1)]),
            ]
        )
    assert await event_store.head(stream_id + "/a") == 0 and await event_store.head(stream_id) == 0


async def test_a_command_waits_for_every_stream_and_keeps_each_streams_order(
    event_store: EventStore, stream_id: str
) -> None:
    """Commands queued in one burst, each expecting the version the one before it on that stream
    creates: a command spanning a stream that is taken holds back later commands on its other
    streams too, so every stream's commands land in the order they were made."""
    a, b, c = (f"{stream_id}/{name}" for name in "abc")
    results = await asyncio.gather(
        event_store.append(a, 0, [ev("A", 1)]),
        event_store.append_all([StreamAppend(a, 1, [ev("AB", 2)]), StreamAppend(b, 0, [ev("AB", 1)])]),
        event_store.append(b, 1, [ev("B", 2)]),
        event_store.append_all([StreamAppend(c, 0, [ev("C", 1)]), StreamAppend(b, 2, [ev("BC", 3)])]),
        event_store.append(c, 1, [ev("C", 2)]),
    )
    assert [r.version for r in results[:1] + results[2:3] + results[4:]] == [1, 2, 2]
    assert await types_of(event_store, a) == ["A", "AB"]
    assert await types_of(event_store, b) == ["AB", "B", "BC"]
    assert await types_of(event_store, c) == ["C", "C"]


async def test_every_stream_written_is_announced(
    event_store: EventStore, db_pool: Any, stream_id: str
) -> None:
    table, account = f"{stream_id}/table", f"{stream_id}/account"
    async with db_pool.connection() as listener:
        await listener.execute(f"LISTEN {NOTIFY_CHANNEL}")
        await event_store.append_all(
            [
                StreamAppend(table, 0, [ev("PlayerSeated", 1), ev("Note", 2)]),
                StreamAppend(account, 0, [ev("BuyInDebited", 1)]),
            ]
        )
        wanted = {f"{table}:2", f"{account}:1"}
        seen: set[str] = set()
        async with asyncio.timeout(10):
            async for notify in listener.notifies():
                seen.add(notify.payload)
                if wanted <= seen:
                    break
        await listener.execute(f"UNLISTEN {NOTIFY_CHANNEL}")


@pytest.mark.parametrize("same_request", [False, True])
async def test_checked_path_answers_a_writer_that_took_a_part_meanwhile(
    event_store: EventStore, stream_id: str, same_request: bool
) -> None:
    """Another transaction writes the second part's next version (or the command's request id)
    after stud_append_parts has checked but before it writes: the insert waits for it, fails on
    the key, the command's first part is undone, and the command is answered from what was
    committed: a conflict naming the second part, or a duplicate."""
    table, account = f"{stream_id}/table", f"{stream_id}/account"
    await seed(event_store, table, account)
    first = (await event_store.read_stream(account))[0]
    async with event_store.pool.connection() as winner, event_store.pool.connection() as loser:
        async with winner.transaction():
            if same_request:  # the same command, through another process: its lead part
                head = (await event_store.read_stream(table))[0]
                target, prev, request = table, head.hash, "r-1"
            else:
                target, prev, request = account, first.hash, "r-other"
            await winner.execute(
                "INSERT INTO events (stream_id, version, type, payload, request_id, command_size,"
                " prev_hash, hash) VALUES (%s, 2, 'Won', '{\"type\": \"Won\"}', %s, 1, %s, %s)",
                (target, request, prev, chain_hash(prev, canonical_json({"type": "Won"}))),
            )
            losing = asyncio.ensure_future(
                loser.execute(
                    "SELECT outcome, first_version, last_version FROM stud_append_parts("
                    "'{1,1}', '{f,t}', ARRAY[%s, %s], '{1,1}', ARRAY[NULL, 'r-1'], '{NULL,NULL}', %s)",
                    (
                        account,
                        table,
                        "\x1e".join(canonical_json(ev(k, 1)).decode() for k in ("Debit", "Seat")),
                    ),
                )
            )
            await wait_for_lock(winner, loser.info.backend_pid)
        rows = await (await losing).fetchall()
    # Parts are in stream order: account (not the lead, here) then table (the lead).
    if same_request:
        assert rows == [("d", 2, 1), ("d", 2, 2)]
    else:
        assert rows == [("c", None, 2), ("n", None, 1)]
    assert await types_of(event_store, table) == (["Opened", "Won"] if same_request else ["Opened"])
    assert await types_of(event_store, account) == (["Opened"] if same_request else ["Opened", "Won"])
    assert (await event_store.verify(table)).ok and (await event_store.verify(account)).ok


@pytest.mark.parametrize("seed_value", [1, 2, 3])
async def test_concurrent_writers_of_overlapping_streams_lose_and_double_nothing(
    db_pool: Any, stream_id: str, seed_value: int
) -> None:
    """Writers in two stores (as two processes on one database) run commands over random sets of
    one to three of five streams, each reloading the heads and trying again on a conflict. Every
    command lands exactly once on each of its streams and nowhere else, every stream is gapless
    with an intact chain, and within a stream one writer's commands keep their order."""
    rng = random.Random(seed_value)
    streams = [f"{stream_id}/{i}" for i in range(5)]
    stores = [EventStore(db_pool, announce=False), EventStore(db_pool, announce=False)]
    plans = {f"w{w}": [rng.sample(streams, rng.randint(1, 3)) for _ in range(8)] for w in range(6)}

    async def writer(name: str, store: EventStore) -> None:
        for n, targets in enumerate(plans[name]):
            while True:
                heads = [await store.head(s) for s in targets]
                parts = [
                    StreamAppend(
                        s, h, [ev("Cmd", n, writer=name)], request_id=f"{name}-{n}" if i == 0 else None
                    )
                    for i, (s, h) in enumerate(zip(targets, heads, strict=True))
                ]
                try:
                    results = await store.append_all(parts)
                    assert [r.stream_id for r in results] == targets
                    break
                except ConcurrencyError as exc:
                    assert exc.stream_id in targets
                await asyncio.sleep(rng.random() * 0.002)

    try:
        await asyncio.gather(*(writer(name, stores[i % 2]) for i, name in enumerate(plans)))
    finally:
        for store in stores:
            await store.close()
    store = stores[0]
    for s in streams:
        stored = await store.read_stream(s)
        assert [e.version for e in stored] == list(range(1, len(stored) + 1))
        landed = [(e.payload["writer"], e.payload["n"]) for e in stored]
        wanted = sorted((w, n) for w, plan in plans.items() for n, targets in enumerate(plan) if s in targets)
        assert sorted(landed) == wanted
        for w in plans:
            assert [n for who, n in landed if who == w] == sorted(n for who, n in landed if who == w)
        assert (await store.verify(s)).ok


async def test_connection_killed_mid_commit_leaves_no_part_written(
    event_store: EventStore, database_url: str, stream_id: str
) -> None:
    """The store's backend is terminated while its two-stream batch statement is under way: the
    account's row is written (streams go in id order) and the table's waits on a key another
    transaction holds. No part remains, the caller hears the outcome is unknown, and the same
    command then lands whole."""
    table, account = f"{stream_id}/table", f"{stream_id}/account"
    await seed(event_store, table)
    app = f"kill-multi-{stream_id[-8:]}"
    pool = await open_pool(make_conninfo(database_url, application_name=app), min_size=1, max_size=2)
    store = EventStore(pool, announce=False)
    try:
        async with event_store.pool.connection() as admin, admin.transaction():
            await admin.execute(
                "INSERT INTO events (stream_id, version, type, payload, prev_hash, hash)"
                " VALUES (%s, 2, 'Blocker', '{}', '', '')",
                (table,),
            )
            command = [
                StreamAppend(table, 1, [ev("PlayerSeated", 1)]),
                StreamAppend(account, 0, [ev("BuyInDebited", 1)]),
            ]
            appending = asyncio.ensure_future(store.append_all(command))
            for _ in range(250):
                cur = await admin.execute(
                    "SELECT pid FROM pg_stat_activity WHERE application_name = %s"
                    " AND wait_event_type = 'Lock'",
                    (app,),
                )
                row = await cur.fetchone()
                if row is not None:
                    break
                await asyncio.sleep(0.02)
            else:
                pytest.fail("the append never waited on the lock")
            await admin.execute("SELECT pg_terminate_backend(%s)", (row[0],))
            with pytest.raises(StoreUnavailable):
                await appending
            raise psycopg.Rollback
        assert await types_of(event_store, table) == ["Opened"]
        assert await types_of(event_store, account) == []
        assert [r.version for r in await store.append_all(command)] == [2, 1]
    finally:
        await store.close()
        await pool.close()
    assert (await event_store.verify(table)).ok and (await event_store.verify(account)).ok
