"""Tables: the one place where the event log meets the engine.

A table's state is the fold of its stream's events with the engine. Snapshots, taken after hands
end, only shorten that fold: ``load_table`` starts from the newest snapshot that this code's
``STATE_FORMAT_VERSION`` can read and that still matches the hash of the event it was taken at, then
applies the events after it. It gives exactly the state a full replay gives (tested on long streams).

A stored event that the engine cannot decode or apply stops the load with :class:`CorruptStream`
naming the stream and version: a table is never loaded into a silently wrong state.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from stud_service.engine import (
    STATE_FORMAT_VERSION,
    EventDecodeError,
    StateDecodeError,
    TableState,
    event_from_json,
    event_to_json,
    initial_state,
    replay,
    state_from_json,
    state_to_json,
)
from stud_service.store.errors import CorruptStream
from stud_service.store.eventlog import EventStore
from stud_service.store.models import AppendResult

_log = logging.getLogger(__name__)

HAND_END_EVENT = "HandEnded"  # the snapshot point


@dataclass(frozen=True, slots=True)
class LoadedTable:
    """A table's state after ``version`` events; ``snapshot_version`` is where the fold started."""

    stream_id: str
    state: TableState
    version: int
    snapshot_version: int = 0


def decode_event(stream_id: str, version: int, payload: dict[str, Any]) -> Any:
    try:
        return event_from_json(payload)
    except EventDecodeError as exc:
        raise CorruptStream(stream_id, version, f"cannot decode event: {exc}") from exc


async def fold_stream(
    store: EventStore, stream_id: str, state: TableState | None, after_version: int
) -> tuple[TableState, int]:
    """Apply the events after ``after_version`` to ``state`` (None: the initial state), a slice at a time."""
    current = initial_state() if state is None else state
    version = after_version
    async for versions, payloads in store.iter_payload_slices(stream_id, after_version):
        # Versions only increase: the slice has no gap when its ends are where its length says.
        if versions[0] != version + 1 or versions[-1] != version + len(versions):
            missing = next(expected for expected, found in enumerate(versions, version + 1)
                           if found != expected)
            raise CorruptStream(stream_id, missing, "event missing from the log")
        try:
            events = [event_from_json(payload) for payload in payloads]
        except EventDecodeError:
            for event_version, payload in zip(versions, payloads, strict=True):  # name the first one
                decode_event(stream_id, event_version, payload)
            raise
        current = _apply(stream_id, current, events, version)
        version += len(versions)
    return current, version


def _apply(stream_id: str, state: TableState, events: list[Any], before_version: int) -> TableState:
    try:
        return replay(events, state)
    except Exception:
        # Find which event the engine refused, so the error can name it.
        current = state
        for offset, event in enumerate(events, 1):
            try:
                current = replay([event], current)
            except Exception as exc:
                raise CorruptStream(
                    stream_id, before_version + offset, f"the engine cannot apply it: {exc!r}"
                ) from exc
        raise


async def replay_table(store: EventStore, stream_id: str) -> LoadedTable:
    """The table folded from its first event, ignoring snapshots (the reference for ``load_table``)."""
    state, version = await fold_stream(store, stream_id, None, 0)
    return LoadedTable(stream_id, state, version, 0)


async def load_table(store: EventStore, stream_id: str) -> LoadedTable:
    """The table's current state: newest usable snapshot, then the events after it."""
    snapshot = await store.latest_snapshot(stream_id, STATE_FORMAT_VERSION)
    if snapshot is not None:
        try:
            start = state_from_json(snapshot.state)
        except (StateDecodeError, KeyError, TypeError, ValueError) as exc:
            _log.warning("ignoring unreadable snapshot of %r at %d: %s", stream_id, snapshot.version, exc)
        else:
            state, version = await fold_stream(store, stream_id, start, snapshot.version)
            return LoadedTable(stream_id, state, version, snapshot.version)
    return await replay_table(store, stream_id)


async def save_snapshot(store: EventStore, stream_id: str, version: int, state: TableState) -> None:
    """Record ``state`` as the table after ``version`` events."""
    await store.save_snapshot(stream_id, version, STATE_FORMAT_VERSION, state_to_json(state))


async def append_events(
    store: EventStore,
    stream_id: str,
    expected_version: int,
    events: Sequence[Any],
    request_id: str | None = None,
    state_after: TableState | None = None,
) -> AppendResult:
    """Append engine events as one command; if they end a hand and ``state_after`` (the state after
    them) is given, snapshot it. A failed snapshot is logged, never fatal: it is only an optimisation."""
    payloads = [event_to_json(event) for event in events]
    result = await store.append(stream_id, expected_version, payloads, request_id)
    if (
        state_after is not None
        and not result.duplicate
        and any(payload["type"] == HAND_END_EVENT for payload in payloads)
    ):
        try:
            await save_snapshot(store, stream_id, result.version, state_after)
        except Exception as exc:  # noqa: BLE001 - the events are committed; the snapshot is optional
            _log.warning("snapshot of %r at %d failed: %s", stream_id, result.version, exc)
    return result
