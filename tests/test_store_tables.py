"""Loading tables through the engine (DESIGN.md "Persistence" and "The event-sourcing core"):
snapshots after each hand give exactly the state a full replay gives; old or stale snapshots are
ignored; a corrupt or unknown event stops the load naming stream and version."""

from __future__ import annotations

import pytest

from stud_service.audit.simulate import simulate_table
from stud_service.engine import STATE_FORMAT_VERSION, Variant, replay, state_to_json
from stud_service.store import CorruptStream, EventStore
from stud_service.store.tables import append_events, load_table, replay_table, save_snapshot


async def store_with_snapshots(store: EventStore, stream_id: str, variant: Variant, hands: int, seed: int):
    """Append a simulated table hand by hand (one command per hand), snapshotting after each hand."""
    table = simulate_table(stream_id, variant, hands=hands, seed=seed)
    version, state, batch = 0, None, []
    for events in table.commands:
        batch.extend(events)
        if any(type(e).__name__ == "HandEnded" for e in events):
            state = replay(batch, state)
            version = (await append_events(store, stream_id, version, batch, state_after=state)).version
            batch = []
    if batch:
        state = replay(batch, state)
        version = (await append_events(store, stream_id, version, batch, state_after=state)).version
    return table, version


@pytest.mark.parametrize(("variant", "seed"), [(Variant.STUD, 1), (Variant.STUD_HI_LO, 2), (Variant.RAZZ, 3)])
async def test_snapshot_load_equals_full_replay_on_long_streams(
    event_store: EventStore, stream_id: str, variant: Variant, seed: int
) -> None:
    table, head = await store_with_snapshots(event_store, stream_id, variant, hands=120, seed=seed)
    assert head > 5000  # a long stream
    loaded = await load_table(event_store, stream_id)
    replayed = await replay_table(event_store, stream_id)
    assert 0 < loaded.snapshot_version <= head
    assert replayed.snapshot_version == 0
    assert loaded.version == replayed.version == head
    assert loaded.state == replayed.state == table.state
    assert state_to_json(loaded.state) == state_to_json(replayed.state)


async def test_snapshot_in_the_middle_of_a_stream_then_events(
    event_store: EventStore, stream_id: str
) -> None:
    table, head = await store_with_snapshots(event_store, stream_id, Variant.STUD, hands=10, seed=9)
    async with event_store.pool.connection() as conn:  # keep only an early snapshot
        await conn.execute(
            "DELETE FROM snapshots WHERE stream_id = %s AND version > (SELECT min(version) FROM snapshots"
            " WHERE stream_id = %s)", (stream_id, stream_id),
        )
    loaded = await load_table(event_store, stream_id)
    assert 0 < loaded.snapshot_version < head
    assert loaded.state == table.state and loaded.version == head


async def test_snapshot_of_another_format_is_ignored(event_store: EventStore, stream_id: str) -> None:
    table, head = await store_with_snapshots(event_store, stream_id, Variant.RAZZ, hands=4, seed=4)
    good = (await load_table(event_store, stream_id)).snapshot_version
    # Written by other code: a newer format number, and a same-numbered one this code cannot read.
    await event_store.save_snapshot(stream_id, head, STATE_FORMAT_VERSION + 1, {"format": 99, "junk": True})
    async with event_store.pool.connection() as conn:
        await conn.execute("DELETE FROM snapshots WHERE stream_id = %s AND version = %s", (stream_id, good))
    earlier = await event_store.latest_snapshot(stream_id, STATE_FORMAT_VERSION)
    await event_store.save_snapshot(stream_id, earlier.version, STATE_FORMAT_VERSION, {"format": 0})
    loaded = await load_table(event_store, stream_id)
    assert loaded.snapshot_version == 0  # no snapshot it can trust or read: full replay
    assert loaded.state == table.state and loaded.version == head


async def test_snapshot_no_longer_matching_its_event_is_ignored(
    event_store: EventStore, stream_id: str
) -> None:
    table, head = await store_with_snapshots(event_store, stream_id, Variant.STUD, hands=3, seed=5)
    latest = await event_store.latest_snapshot(stream_id, STATE_FORMAT_VERSION)
    async with event_store.pool.connection() as conn:
        await conn.execute(
            "UPDATE snapshots SET event_hash = %s WHERE stream_id = %s AND version = %s",
            (bytes(32), stream_id, latest.version),
        )
    loaded = await load_table(event_store, stream_id)
    assert loaded.snapshot_version < latest.version
    assert loaded.state == table.state


async def test_unknown_event_type_stops_the_load_naming_stream_and_version(
    event_store: EventStore, stream_id: str
) -> None:
    _, head = await store_with_snapshots(event_store, stream_id, Variant.STUD, hands=2, seed=6)
    await event_store.append(stream_id, head, [{"type": "DealerWentHome", "v": 1}])
    for load in (load_table, replay_table):
        with pytest.raises(CorruptStream) as info:
            await load(event_store, stream_id)
        assert (info.value.stream_id, info.value.version) == (stream_id, head + 1)
        assert stream_id in str(info.value) and str(head + 1) in str(info.value)


async def test_corrupt_payload_stops_the_load_naming_its_version(
    event_store: EventStore, stream_id: str
) -> None:
    _, head = await store_with_snapshots(event_store, stream_id, Variant.STUD, hands=2, seed=7)
    async with event_store.pool.connection() as conn:
        await conn.execute("DELETE FROM snapshots WHERE stream_id = %s", (stream_id,))
        await conn.execute(
            "UPDATE events SET payload = payload - 'table_id' WHERE stream_id = %s AND version = 1",
            (stream_id,),
        )
    with pytest.raises(CorruptStream) as info:
        await load_table(event_store, stream_id)
    assert info.value.version == 1


async def test_missing_event_stops_the_load(event_store: EventStore, stream_id: str) -> None:
    _, head = await store_with_snapshots(event_store, stream_id, Variant.STUD, hands=2, seed=8)
    async with event_store.pool.connection() as conn:
        await conn.execute("DELETE FROM events WHERE stream_id = %s AND version = %s", (stream_id, head - 3))
    with pytest.raises(CorruptStream) as info:
        await replay_table(event_store, stream_id)
    assert info.value.version == head - 3


async def test_explicit_snapshot_round_trips(event_store: EventStore, stream_id: str) -> None:
    table, head = await store_with_snapshots(event_store, stream_id, Variant.STUD_HI_LO, hands=2, seed=10)
    await save_snapshot(event_store, stream_id, head, table.state)
    loaded = await load_table(event_store, stream_id)
    assert (loaded.snapshot_version, loaded.version, loaded.state) == (head, head, table.state)
