"""The key registry in the event log: stream ``keys/{kid}`` per key id.

- ``KeyRegistered {kid, check}``: appended the first time a server starts with that key active; ``check`` is
  :func:`~stud_service.sealing.keyring.check_value` of the key, so a wrong key under a known id is caught at
  startup instead of at the first sealed event.
- ``DataKeysRewrapped {kid, to, keys: [{stream, hand, from, key}]}``: data keys of hands sealed with
  ``kid`` wrapped again with ``to`` (``from`` is the wrapped key the events carry), so ``kid`` may leave the
  keyring.
- ``KeyRetired {kid}``: ``kid`` is no longer needed; startup stops asking for it.

Startup (:func:`check_registry`) refuses, naming the key id, when a registered key that is not retired is
missing from the keyring or is not the key registered under its id.
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

from stud_service.sealing.errors import MissingKey, SealingError, WrongKey
from stud_service.sealing.keyring import Keyring, check_value
from stud_service.sealing.sealer import EventSealer
from stud_service.store import ConcurrencyError, EventStore

KEYS_PREFIX = "keys/"
REGISTERED = "KeyRegistered"
REWRAPPED = "DataKeysRewrapped"
RETIRED = "KeyRetired"


def key_stream(kid: str) -> str:
    return f"{KEYS_PREFIX}{kid}"


@dataclass
class KeyRecord:
    kid: str
    version: int = 0
    check: str | None = None
    retired: bool = False
    # (old wrapped, new kid, new wrapped, stream, hand) of every re-wrapped data key
    rewraps: list[tuple[str, str, str, str, int]] = field(default_factory=list)

    def rewrapped(self) -> set[str]:
        return {old for old, *_rest in self.rewraps}


def fold(kid: str, payloads: list[dict[str, Any]]) -> KeyRecord:
    record = KeyRecord(kid, version=len(payloads))
    for payload in payloads:
        kind = payload.get("type")
        if kind == REGISTERED:
            record.check = payload["check"]
        elif kind == REWRAPPED:
            for entry in payload["keys"]:
                record.rewraps.append(
                    (entry["from"], payload["to"], entry["key"], entry["stream"], entry["hand"])
                )
        elif kind == RETIRED:
            record.retired = True
    return record


async def read_registry(store: EventStore) -> dict[str, KeyRecord]:
    records: dict[str, KeyRecord] = {}
    after: str | None = None
    while page := await store.list_streams(prefix=KEYS_PREFIX, after=after, limit=100):
        for info in page:
            kid = info.stream_id.removeprefix(KEYS_PREFIX)
            records[kid] = fold(kid, [event.payload for event in await store.read_stream(info.stream_id)])
        after = page[-1].stream_id
    return records


def rewrap_entries(records: dict[str, KeyRecord]) -> Iterator[tuple[str, str, str, str]]:
    for record in records.values():
        for old, new_kid, new_wrapped, _stream, _hand in record.rewraps:
            yield record.kid, old, new_kid, new_wrapped


def check_keys(records: dict[str, KeyRecord], keyring: Keyring) -> None:
    """Refuse (MissingKey / WrongKey, naming the key id) a keyring unfit for what the database holds."""
    for kid, record in sorted(records.items()):
        if record.retired:
            continue
        if kid not in keyring.keys:
            raise MissingKey(
                kid,
                f"key {kid!r} is registered in the database but missing from the keyring"
                f" ({keyring.source}): add it, or re-wrap its hands and retire it (docs/keys.md)",
            )
        if record.check is not None and check_value(keyring.keys[kid]) != record.check:
            raise WrongKey(
                kid,
                f"key {kid!r} in the keyring ({keyring.source}) is not the key registered under"
                " that id (wrong key)",
            )
    active = records.get(keyring.active)
    if active is not None and active.retired:
        raise SealingError(f"key {keyring.active!r} is retired: make another key active (docs/keys.md)")


async def register(store: EventStore, keyring: Keyring, records: dict[str, KeyRecord]) -> None:
    """Record the active key (with its check value) the first time a server runs with it."""
    kid = keyring.active
    if kid in records and records[kid].check is not None:
        return
    event = {
        "type": REGISTERED,
        "v": 1,
        "kid": kid,
        "check": check_value(keyring.keys[kid]),
        "at_ms": int(time.time() * 1000),
    }
    try:
        await store.append(key_stream(kid), records[kid].version if kid in records else 0, [event])
    except ConcurrencyError:  # another replica registered it just now: check what it wrote
        stream = await store.read_stream(key_stream(kid))
        records[kid] = fold(kid, [e.payload for e in stream])
        check_keys(records, keyring)


async def start_sealing(store: EventStore, sealer: EventSealer, *, register_active: bool = True) -> None:
    """At startup: check the keyring against the registry (refusing with a clear SealingError), give the
    sealer the re-wrapped data keys, and register the active key if it is new."""
    records = await read_registry(store)
    check_keys(records, sealer.keyring)
    sealer.add_rewraps(rewrap_entries(records))
    if register_active:
        await register(store, sealer.keyring, records)
