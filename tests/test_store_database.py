"""Schema migrations, settings and the embedded PostgreSQL (DESIGN.md "Persistence")."""

from __future__ import annotations

import asyncio
import socket
from pathlib import Path

import psutil
import psycopg
import pytest

from stud_service.db import DatabaseSettings, DatabaseUnavailable, describe_url, open_database, redact_url
from stud_service.db.connect import check_reachable
from stud_service.store import EventStore, MigrationError, apply_migrations, canonical_json, chain_hash
from stud_service.store.eventlog import HEAD_SQL, HEADS_STATEMENT, LIST_STREAMS_SQL
from stud_service.store.migrate import available_migrations
from stud_service.store.subscribe import HEADS_SQL


async def fetch(url: str, query: str, params: tuple = ()) -> list[tuple]:
    async with await psycopg.AsyncConnection.connect(url) as conn:
        cur = await conn.execute(query, params or None)
        return await cur.fetchall()


async def test_migrations_apply_once_and_rerun_is_a_no_op(make_database) -> None:
    url = await make_database()
    first = await apply_migrations(url)
    assert [m.number for m in first] == [m.number for m in available_migrations()]
    assert await apply_migrations(url) == []
    recorded = await fetch(url, "SELECT number, name FROM schema_migrations ORDER BY number")
    assert recorded == [(m.number, m.name) for m in available_migrations()]


async def test_replicas_migrating_at_once_apply_each_migration_once(make_database) -> None:
    url = await make_database()
    results = await asyncio.gather(*(apply_migrations(url) for _ in range(4)))
    assert sorted(len(r) for r in results) == [0, 0, 0, len(available_migrations())]


async def test_catalog_indexes_built_concurrently_by_hand_are_taken_over(make_database) -> None:
    """docs/deployment.md: on a large table an operator builds migration 0009's indexes first with
    CREATE INDEX CONCURRENTLY; the migration then finds them and only records itself."""
    url = await make_database(migrated=True)
    indexes = ("events_hand_started_time_idx", "events_hand_started_seats_idx")
    async with await psycopg.AsyncConnection.connect(url, autocommit=True) as conn:
        for name in indexes:  # back to a database that has not run 0009
            await conn.execute(f"DROP INDEX {name}")
        await conn.execute("DELETE FROM schema_migrations WHERE number = 9")
        await conn.execute(
            "CREATE INDEX CONCURRENTLY IF NOT EXISTS events_hand_started_time_idx"
            " ON events (recorded_at, stream_id, hand) WHERE type = 'HandStarted'"
        )
        await conn.execute(
            "CREATE INDEX CONCURRENTLY IF NOT EXISTS events_hand_started_seats_idx"
            " ON events USING gin ((payload -> 'seats') jsonb_path_ops) WHERE type = 'HandStarted'"
        )
    assert [m.number for m in await apply_migrations(url)] == [9]
    rows = await fetch(
        url,
        "SELECT c.relname, i.indisvalid FROM pg_index i JOIN pg_class c ON c.oid = i.indexrelid"
        " WHERE c.relname LIKE 'events_hand_started_%' ORDER BY 1",
    )
    assert rows == [(name, True) for name in sorted(indexes)]


async def test_an_edited_applied_migration_is_refused(make_database) -> None:
    url = await make_database(migrated=True)
    async with await psycopg.AsyncConnection.connect(url, autocommit=True) as conn:
        await conn.execute("UPDATE schema_migrations SET checksum = 'edited' WHERE number = 1")
    with pytest.raises(MigrationError, match="0001"):
        await apply_migrations(url)


async def test_every_unique_key_starts_with_the_stream_id(database_url: str) -> None:
    """So the tables can be distributed by stream id (DESIGN.md "Persistence")."""
    rows = await fetch(
        database_url,
        "SELECT c.relname, i.indexrelid::regclass::text, a.attname FROM pg_index i"
        " JOIN pg_class c ON c.oid = i.indrelid"
        " JOIN pg_attribute a ON a.attrelid = i.indrelid AND a.attnum = i.indkey[0]"
        " WHERE i.indisunique AND c.relname IN ('streams', 'events', 'snapshots')",
    )
    assert {table for table, _, _ in rows} == {"streams", "events", "snapshots"}
    assert all(first_column == "stream_id" for _, _, first_column in rows), rows


async def realistic_database(make_database) -> str:
    """A database of its own with realistic statistics (many streams, many hands each, analysed), so
    plans do not depend on what other tests happened to write into a shared one."""
    url = await make_database(migrated=True)
    async with await psycopg.AsyncConnection.connect(url, autocommit=True) as conn:
        await conn.execute(
            """
            INSERT INTO events (stream_id, version, type, payload, hand, prev_hash, hash)
            SELECT 'tables/t' || s, v, 'CardDealt', '{"type": "CardDealt"}', v / 25 + 1,
                   '\\x00'::bytea, '\\x00'::bytea
            FROM generate_series(1, 20) AS s, generate_series(1, 1000) AS v
            """
        )
        await conn.execute(
            "INSERT INTO streams (stream_id) SELECT 'tables/t' || s FROM generate_series(1, 20) AS s"
        )
        await conn.execute("ANALYZE events")
        await conn.execute("ANALYZE streams")
    return url


async def plan_of(url: str, query: str, params: tuple = ()) -> str:
    return "\n".join(line for (line,) in await fetch(url, "EXPLAIN (FORMAT TEXT) " + query, params))


async def test_hand_reads_use_the_hand_index(make_database) -> None:
    """One hand's events are read through (stream_id, hand, version), never by scanning a stream."""
    url = await realistic_database(make_database)
    text = await plan_of(
        url, "SELECT * FROM events WHERE stream_id = 'tables/t7' AND hand = 3 ORDER BY version"
    )
    assert "events_stream_hand_idx" in text and "Seq Scan" not in text, text


async def test_heads_are_one_step_back_along_the_primary_key(make_database) -> None:
    """A stream's head is its last event: found by the primary key, never by reading the stream,
    for one stream (head, verify), for the streams a hub follows, and for a page of the listing."""
    url = await realistic_database(make_database)
    # The hub's heads and the store's (the dealer's standings read): stud_stream_head for each stream
    # (migration 0018), whose one query is this.
    assert "stud_stream_head(" in HEADS_SQL and b"stud_stream_head(" in HEADS_STATEMENT.sql
    stream_head = "SELECT max(e.version) FROM events e WHERE e.stream_id = %s"
    queries = [
        (HEAD_SQL, ("tables/t7",)),
        (stream_head, ("tables/t7",)),
        (LIST_STREAMS_SQL, ("", "tables/", 5)),
    ]
    for query, params in queries:
        text = await plan_of(url, query, params)
        assert "events_pkey" in text and "Seq Scan on events" not in text, text


def test_settings_flag_beats_environment_beats_default(tmp_path: Path) -> None:
    env = {"DATABASE_URL": "postgresql://env-host/db", "STUD_DATA_DIR": str(tmp_path / "env")}
    assert DatabaseSettings.resolve(environ=env).url == "postgresql://env-host/db"
    assert DatabaseSettings.resolve(url="postgresql://flag/db", environ=env).url == "postgresql://flag/db"
    assert DatabaseSettings.resolve(environ=env).embedded_pgdata == tmp_path / "env" / "pg"
    assert DatabaseSettings.resolve(data_dir=tmp_path / "f", environ=env).data_dir == tmp_path / "f"
    default = DatabaseSettings.resolve(environ={})
    assert default.url is None and default.embedded_pgdata.name == "pg"


def test_messages_never_show_the_password() -> None:
    url = "postgresql://alice:hunter2@db.internal:6543/stud"
    assert describe_url(url) == "db.internal:6543/stud"
    assert "hunter2" not in redact_url(url) and "db.internal" in redact_url(url)


async def test_unreachable_database_error_names_the_host_not_the_password() -> None:
    with socket.socket() as sock:  # a port on which nothing listens
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    url = f"postgresql://alice:hunter2@127.0.0.1:{port}/stud"
    with pytest.raises(DatabaseUnavailable) as info:
        await check_reachable(url)
    assert f"127.0.0.1:{port}" in str(info.value) and "hunter2" not in str(info.value)
    with pytest.raises(DatabaseUnavailable):
        async with open_database(DatabaseSettings(url=url, data_dir=Path("/nonexistent"))):
            pass


async def test_embedded_database_is_started_migrated_reused_and_stopped(tmp_path: Path) -> None:
    """No URL: an embedded PostgreSQL in <data dir>/pg; its data survives a restart."""
    settings = DatabaseSettings(url=None, data_dir=tmp_path / "data")
    async with open_database(settings) as db:
        assert db.embedded is not None
        await EventStore(db.pool).append("embedded-table", 0, [{"type": "A", "v": 1}])
        pid = int((settings.embedded_pgdata / "postmaster.pid").read_text().split()[0])
    assert not (settings.embedded_pgdata / "postmaster.pid").exists()  # stopped cleanly
    assert not psutil.pid_exists(pid) or psutil.Process(pid).status() == psutil.STATUS_ZOMBIE
    async with open_database(settings) as db:
        assert await EventStore(db.pool).head("embedded-table") == 1


# The batch statement of the release before migration 0011, as it was sent: replicas of that release
# keep appending with it while a rollout replaces them. Delete with the columns it writes.
PREVIOUS_RELEASE_APPEND = """
WITH written AS (
    INSERT INTO events (stream_id, version, type, payload, hand, request_id, command_size, prev_hash, hash)
    SELECT e.stream_id, e.version, e.type, e.payload::jsonb, e.hand, e.request_id, e.command_size,
           decode(e.prev, 'hex'), decode(e.hash, 'hex')
      FROM unnest(%s::text[], %s::bigint[], %s::text[], string_to_array(%s, E'\\n'), %s::bigint[],
                  %s::text[], %s::integer[], string_to_array(%s, ','), string_to_array(%s, ','))
           AS e(stream_id, version, type, payload, hand, request_id, command_size, prev, hash)
    RETURNING 1
), heads AS (
    INSERT INTO streams AS s (stream_id, version)
    SELECT c.stream_id,
           CASE WHEN c.expected = 0
                  OR (SELECT p.hash FROM events p WHERE p.stream_id = c.stream_id
                         AND p.version = c.expected) = decode(c.prev, 'hex')
                THEN c.last ELSE stud_broken_link(c.stream_id, c.expected) END
      FROM unnest(%s::text[], %s::bigint[], string_to_array(%s, ','), %s::bigint[])
           AS c(stream_id, expected, prev, last)
    ON CONFLICT (stream_id) DO UPDATE SET version = excluded.version, updated_at = now()
    WHERE s.version < excluded.version
)
SELECT count(*) FROM written
"""


async def test_the_previous_release_keeps_appending_on_the_migrated_schema(
    database_url: str, db_pool, stream_id: str
) -> None:
    """Migration 0011 stops writing streams.version but keeps what the previous release's append
    statement needs, so a rollout can run both releases side by side on one stream."""
    store = EventStore(db_pool, announce=False)
    try:
        await store.append(stream_id, 0, [{"type": "A", "n": 1}])
        (first,) = await store.read_stream(stream_id)
        event = {"type": "B", "n": 2}
        link = chain_hash(first.hash, canonical_json(event))
        async with await psycopg.AsyncConnection.connect(database_url, autocommit=True) as old_replica:
            await old_replica.execute(
                PREVIOUS_RELEASE_APPEND,
                (
                    [stream_id], [2], ["B"], canonical_json(event).decode(), [None], [None], [None],
                    first.hash.hex(), link.hex(), [stream_id], [1], first.hash.hex(), [2],
                ),
            )
        assert (await store.append(stream_id, 2, [{"type": "C", "n": 3}])).version == 3
        assert [e.type for e in await store.read_stream(stream_id)] == ["A", "B", "C"]
        assert (await store.verify(stream_id)).ok
    finally:
        await store.close()


async def test_the_previous_releases_checked_path_keeps_working_after_migration_0012(
    db_pool, stream_id: str
) -> None:
    """Migration 0012 adds the five-argument stud_append_commands beside the four-argument one the
    previous release calls; what that release writes has no fingerprint, and a retry of it made
    through this release is still a duplicate."""
    store = EventStore(db_pool, announce=False)
    try:
        async with db_pool.connection() as old_replica:
            cur = await old_replica.execute(
                "SELECT outcome, first_version, last_version"
                " FROM stud_append_commands(ARRAY[%s], '{0}', ARRAY['r-old'], %s)",
                (stream_id, canonical_json({"type": "A", "n": 1}).decode()),
            )
            assert await cur.fetchone() == ("a", 1, 1)
        recorded = await store.find_request(stream_id, "r-old")
        assert (recorded.first_version, recorded.last_version, recorded.fingerprint) == (1, 1, None)
        again = await store.append(stream_id, 0, [{"type": "A", "n": 1}], "r-old", b"\x01" * 32)
        assert again.duplicate and again.version == 1
        assert (await store.verify(stream_id)).ok
    finally:
        await store.close()
