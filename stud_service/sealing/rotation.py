"""Key rotation over the log: which hands each key seals, re-wrapping a key's data keys, retiring a key.

Append-only: re-wrapped data keys are events in ``keys/{old}`` (the sealed events themselves never change,
so the hash chain stays whole); once every hand sealed with ``old`` has one, ``old`` may be retired and
removed from the keyring.
"""

from __future__ import annotations

import time
from collections import defaultdict
from dataclasses import dataclass
from typing import Any

from stud_service.sealing.cipher import Undecryptable, dek_aad, unwrap_key, wrap_key
from stud_service.sealing.errors import SealingError, UndecryptableKey
from stud_service.sealing.keyring import Keyring, check_value
from stud_service.sealing.registry import (
    REGISTERED,
    RETIRED,
    REWRAPPED,
    KeyRecord,
    check_keys,
    key_stream,
    read_registry,
    register,
)
from stud_service.store import EventStore

REWRAP_BATCH = 500  # data keys per DataKeysRewrapped event
_SEALED_SQL = (
    "SELECT DISTINCT payload->'sealed'->>'kid', stream_id, coalesce(hand, (payload->>'next_hand')::bigint,"
    " (payload->>'draw')::bigint),"
    " payload->'sealed'->>'key' FROM events WHERE payload ? 'sealed'"
)


@dataclass(frozen=True, order=True)
class SealedKey:
    """One wrapped data key as the sealed events carry it."""

    kid: str
    stream_id: str
    hand: int
    wrapped: str


async def sealed_keys(store: EventStore, kid: str | None = None) -> list[SealedKey]:
    query, params = (
        (_SEALED_SQL, ()) if kid is None else (_SEALED_SQL + " AND payload->'sealed'->>'kid' = %s", (kid,))
    )
    async with store.pool.connection() as conn:
        cur = await conn.execute(query, params)
        rows = await cur.fetchall()
    return sorted(SealedKey(*row) for row in rows)


@dataclass(frozen=True)
class KeyStatus:
    kid: str
    hands: int  # hands with events sealed with this key
    rewrapped: int  # of those, hands whose data key is re-wrapped with another key
    in_keyring: bool
    active: bool
    registered: bool
    retired: bool

    def as_json(self) -> dict[str, Any]:
        return dict(self.__dict__)


async def key_status(store: EventStore, keyring: Keyring | None) -> list[KeyStatus]:
    records = await read_registry(store)
    by_kid: dict[str, list[SealedKey]] = defaultdict(list)
    for sealed in await sealed_keys(store):
        by_kid[sealed.kid].append(sealed)
    kids = set(records) | set(by_kid) | (set(keyring.keys) if keyring else set())
    statuses = []
    for kid in sorted(kids):
        record = records.get(kid, KeyRecord(kid))
        hands = {(s.stream_id, s.hand) for s in by_kid.get(kid, [])}
        done = record.rewrapped()
        rewrapped = {(s.stream_id, s.hand) for s in by_kid.get(kid, []) if s.wrapped in done}
        statuses.append(
            KeyStatus(
                kid,
                len(hands),
                len(rewrapped),
                keyring is not None and kid in keyring.keys,
                keyring is not None and keyring.active == kid,
                record.check is not None,
                record.retired,
            )
        )
    return statuses


async def rewrap(store: EventStore, keyring: Keyring, old: str, new: str | None = None) -> int:
    """Wrap every data key sealed with ``old`` again with ``new`` (default: the active key), as events in
    ``keys/{old}``. Returns how many data keys were re-wrapped now (those already done are skipped)."""
    new = new or keyring.active
    if new == old:
        raise SealingError(f"key {old!r} is the key to re-wrap with: make another key active, or give --to")
    old_kek, new_kek = keyring.key(old), keyring.key(new)
    records = await read_registry(store)
    check_keys({kid: r for kid, r in records.items() if kid in (old, new)}, keyring)
    await register(store, Keyring(new, keyring.keys, keyring.source), records)  # its check, for startup
    record = records.get(old, KeyRecord(old))
    if record.retired:
        raise SealingError(f"key {old!r} is retired already")
    done = record.rewrapped()
    entries: list[dict[str, Any]] = []
    for sealed in await sealed_keys(store, old):
        if sealed.wrapped in done:
            continue
        try:
            dek = unwrap_key(old_kek, sealed.wrapped, dek_aad(old, sealed.stream_id, sealed.hand))
        except Undecryptable:
            raise UndecryptableKey(
                f"{sealed.stream_id} hand {sealed.hand}: the data key wrapped with key"
                f" {old!r} does not decrypt (forged wrapped key, or a wrong key)"
            ) from None
        entries.append(
            {
                "stream": sealed.stream_id,
                "hand": sealed.hand,
                "from": sealed.wrapped,
                "key": wrap_key(new_kek, dek, dek_aad(new, sealed.stream_id, sealed.hand)),
            }
        )
        done.add(sealed.wrapped)
    version = record.version
    if version == 0 and entries:  # a key never registered (sealed by a server before the registry existed)
        await store.append(key_stream(old), 0, [_registered(old, check_value(old_kek))])
        version = 1
    for start in range(0, len(entries), REWRAP_BATCH):
        event = {
            "type": REWRAPPED,
            "v": 1,
            "kid": old,
            "to": new,
            "keys": entries[start : start + REWRAP_BATCH],
            "at_ms": _now_ms(),
        }
        version = (await store.append(key_stream(old), version, [event])).version
    return len(entries)


async def retire(store: EventStore, keyring: Keyring | None, old: str) -> None:
    """Record that ``old`` is no longer needed; refused while a hand sealed with it has no re-wrap."""
    if keyring is not None and keyring.active == old:
        raise SealingError(f"key {old!r} is the active key: make another key active first")
    records = await read_registry(store)
    record = records.get(old, KeyRecord(old))
    if record.retired:
        return
    done = record.rewrapped()
    missing = {(s.stream_id, s.hand) for s in await sealed_keys(store, old) if s.wrapped not in done}
    if missing:
        stream_id, hand = min(missing)
        raise SealingError(
            f"key {old!r} still seals {len(missing)} hand(s) without a re-wrap (first:"
            f" {stream_id} hand {hand}): run 'stud-service keys rewrap --from {old}' first"
        )
    events = [] if record.version else [_registered(old, None)]
    events.append({"type": RETIRED, "v": 1, "kid": old, "at_ms": _now_ms()})
    await store.append(key_stream(old), record.version, events)


def _registered(kid: str, check: str | None) -> dict[str, Any]:
    return {"type": REGISTERED, "v": 1, "kid": kid, "check": check, "at_ms": _now_ms()}


def _now_ms() -> int:
    return int(time.time() * 1000)
