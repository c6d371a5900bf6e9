"""The event log on PostgreSQL.

Public API (everything else in this package is machinery)::

    store = EventStore(pool, sealer=None)          # pool: psycopg_pool.AsyncConnectionPool, autocommit
    result = await store.append(stream_id, expected_version, [event, ...], request_id, fingerprint)
    results = await store.append_all([StreamAppend(stream_id, expected_version, [event, ...]), ...])
    recorded = await store.find_request(stream_id, request_id)   # versions + fingerprint, or None
    events = await store.read_stream(stream_id, after_version=0)
    events = await store.read_hand(stream_id, hand)
    report = await store.verify(stream_id, hand=None)
    async for stored in store.subscribe(stream_id, after_version): ...
    await store.close()                            # pending announcements, the listener

Events are JSON objects with a string ``"type"`` (and an integer ``"hand"`` when hand-scoped).
A ``sealer`` (:class:`PayloadSealer`, e.g. ``stud_service.sealing.EventSealer``) seals each payload
appended and opens each payload read; the hash chain, ``verify`` and checkpoints cover the stored form.
Loading a table through the engine (snapshot + events after it) lives in
:mod:`stud_service.store.tables`: ``load_table``, ``replay_table``, ``append_events``.

Modules: ``eventlog`` (the EventStore), ``canonical`` (canonical JSON, hash chain), ``subscribe``
(LISTEN fan-out), ``migrate`` + ``migrations/`` (schema), ``tables`` (engine coupling), ``errors``,
``models``, ``sealing`` (what a sealer must do), ``connections`` (the idle-connection check); ``_writer``
(group commit, announcements), ``_types`` (what the store, its writer and its hub share) and ``_json``
(fast parsing) are machinery.
"""

from stud_service.store.canonical import GENESIS_HASH, canonical_json, chain_hash
from stud_service.store.errors import (
    ConcurrencyError,
    CorruptStream,
    InvalidEvent,
    LeaseLost,
    OutcomeUnknown,
    StoreError,
    StoreUnavailable,
)
from stud_service.store.eventlog import DEFAULT_SPIN_WAIT, EventStore
from stud_service.store.migrate import MigrationError, apply_migrations
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
from stud_service.store.sealing import KeyNotInMemory, PayloadSealer
from stud_service.store.subscribe import NotificationHub

__all__ = [
    "DEFAULT_SPIN_WAIT",
    "GENESIS_HASH",
    "AppendResult",
    "ConcurrencyError",
    "CorruptStream",
    "EventStore",
    "Fence",
    "InvalidEvent",
    "KeyNotInMemory",
    "LeaseLost",
    "MigrationError",
    "NotificationHub",
    "PayloadSealer",
    "RecordedRequest",
    "Snapshot",
    "StoreError",
    "OutcomeUnknown",
    "StoreUnavailable",
    "StoredEvent",
    "StreamAppend",
    "StreamInfo",
    "VerifyReport",
    "apply_migrations",
    "canonical_json",
    "chain_hash",
]
