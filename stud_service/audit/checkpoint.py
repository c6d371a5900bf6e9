"""External checkpoints: every table's and money stream's head version and hash, signed, kept outside.

The hash chain proves that no event was changed *unless* the whole chain after it was recomputed.
A checkpoint closes that gap: it records, per table, the head version and the hash of the event there,
signed with HMAC-SHA256 under the server's checkpoint key.  Kept elsewhere (a file, a ticket, a
notary), it later shows that the log still extends what was seen: for each table the event at the
checkpointed version must still carry the checkpointed hash, and the chain up to today's head must be
intact.  A log rewritten and re-hashed after the checkpoint fails at the checkpointed version.

The signed body is the canonical JSON (``stud_service.store.canonical``) of::

    {"format": "stud-service-checkpoint/2", "created_at": ISO-8601 UTC,
     "tables": [{"table": id, "version": n, "hash": hex}, ...],          (tables ordered by id)
     "streams": [{"stream": stream id, "version": n, "hash": hex}, ...]} (accounts/, house/, players/,
                                                                          access/, tournaments/, pools/,
                                                                          sessions/, retention/)

All heads are read in one statement, so a checkpoint is a consistent position of the whole log (money
moves in one transaction across a table, or a tournament and its pool, and the accounts): ``audit money
--checkpoint`` reconciles at it.
Format 1 (tables only, no "streams") is still verified. A checkpointed session stream that was purged since,
under a retention record (``sessions.retention``) naming it at or past the checkpointed version (with the
same hash at that version), is reported as purged, not as a log cut short.

and the file is that body plus ``"signature": {"alg": "HMAC-SHA256", "key_id": first 16 hex of
SHA-256(key), "value": hex}``.
"""

from __future__ import annotations

import hashlib
import hmac
import os
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from stud_service.audit.records import STREAM_PREFIX, fetch, stream_id_for
from stud_service.store import EventStore, canonical_json

FORMAT = "stud-service-checkpoint/2"
FORMAT_V1 = "stud-service-checkpoint/1"
# The fields each format signs.
SIGNED_FIELDS = {
    FORMAT_V1: ("format", "created_at", "tables"),
    FORMAT: ("format", "created_at", "tables", "streams"),
}
# The streams besides tables a checkpoint covers: player accounts, the house's rake, operator controls,
# the access log (a record cut off its stream's tail is then named too), tournaments and their money, player
# sessions and the records of their purges.
OTHER_PREFIXES = ("accounts/", "house/", "players/", "access/", "tournaments/", "pools/", "sessions/",
                  "retention/")
KEY_ENV = "STUD_CHECKPOINT_KEY"
MIN_KEY_BYTES = 32


class CheckpointKeyError(ValueError):
    pass


def key_from(explicit: str | None = None, key_file: str | None = None) -> bytes:
    """The signing key: ``explicit``, else the file's contents, else ``$STUD_CHECKPOINT_KEY``."""
    if key_file:
        with open(key_file, "rb") as handle:
            key = handle.read().strip()
    else:
        key = (explicit or os.environ.get(KEY_ENV, "")).encode()
    if len(key) < MIN_KEY_BYTES:
        raise CheckpointKeyError(
            f"the checkpoint key must be at least {MIN_KEY_BYTES} bytes (set {KEY_ENV} or give a key file)"
        )
    return key


def key_id(key: bytes) -> str:
    return hashlib.sha256(key).hexdigest()[:16]


def _signature(key: bytes, body: dict[str, Any]) -> str:
    return hmac.new(key, canonical_json(body), hashlib.sha256).hexdigest()


async def make_checkpoint(
    store: EventStore, key: bytes, now: datetime | None = None, table_ids: list[str] | None = None
) -> dict[str, Any]:
    """Sign the heads of every table and money stream (or of the tables ``table_ids`` only)."""
    streams = [stream_id_for(table_id) for table_id in table_ids] if table_ids is not None else None
    rows = await fetch(
        store,
        "SELECT s.stream_id, h.version, h.hash FROM streams s"
        " CROSS JOIN LATERAL (SELECT version, hash FROM events e WHERE e.stream_id = s.stream_id"
        " ORDER BY version DESC LIMIT 1) h"
        " WHERE (%s::text[] IS NULL AND s.stream_id LIKE ANY(%s) OR s.stream_id = ANY(%s))"
        " ORDER BY s.stream_id",
        (streams, [prefix + "%" for prefix in (STREAM_PREFIX, *OTHER_PREFIXES)], streams),
    )
    heads = [(stream, int(version), bytes(digest).hex()) for stream, version, digest in rows]
    body = {
        "format": FORMAT,
        "created_at": (now or datetime.now(UTC)).isoformat(),
        "tables": [
            {"table": stream[len(STREAM_PREFIX) :], "version": version, "hash": digest}
            for stream, version, digest in heads
            if stream.startswith(STREAM_PREFIX)
        ],
        "streams": [
            {"stream": stream, "version": version, "hash": digest}
            for stream, version, digest in heads
            if not stream.startswith(STREAM_PREFIX)
        ],
    }
    return {
        **body,
        "signature": {"alg": "HMAC-SHA256", "key_id": key_id(key), "value": _signature(key, body)},
    }


@dataclass(frozen=True)
class TableFinding:
    """``table_id``: the table, or for another stream its whole id (``accounts/USD/p1``); "" = the file."""

    table_id: str
    version: int | None
    message: str


@dataclass(frozen=True)
class CheckpointReport:
    signature_ok: bool
    tables_checked: int  # streams checked: the tables and, from format 2, the other streams
    findings: tuple[TableFinding, ...]
    purged: tuple[TableFinding, ...] = ()  # streams gone under a retention record: not findings

    @property
    def ok(self) -> bool:
        return self.signature_ok and not self.findings


def signed_body(checkpoint: dict[str, Any]) -> dict[str, Any]:
    """The fields its format signs: anything else in the file is not to be trusted."""
    fields = SIGNED_FIELDS.get(str(checkpoint.get("format")), SIGNED_FIELDS[FORMAT])
    return {name: checkpoint.get(name) for name in fields}


def signature_ok(checkpoint: dict[str, Any], key: bytes) -> bool:
    """Whether the checkpoint is of a known format and signed under ``key``."""
    body = signed_body(checkpoint)
    signature = checkpoint.get("signature") or {}
    return (
        isinstance(signature, dict)
        and body["format"] in SIGNED_FIELDS
        and hmac.compare_digest(str(signature.get("value", "")), _signature(key, body))
    )


async def verify_checkpoint(store: EventStore, checkpoint: dict[str, Any], key: bytes) -> CheckpointReport:
    """Check the signature, then that every checkpointed stream still extends its checkpointed head."""
    body = signed_body(checkpoint)
    if not signature_ok(checkpoint, key):
        return CheckpointReport(
            False, 0, (TableFinding("", None, "the checkpoint's signature is not valid under this key"),)
        )
    from stud_service.sessions.retention import purge_records

    findings, purged = [], []
    retention = await purge_records(store)
    entries = [(str(e["table"]), stream_id_for(str(e["table"])), e) for e in body["tables"] or ()]
    entries += [(str(e["stream"]), str(e["stream"]), e) for e in body.get("streams") or ()]
    for table_id, stream_id, entry in entries:
        version, digest = int(entry["version"]), str(entry["hash"])
        rows = await fetch(
            store, "SELECT hash FROM events WHERE stream_id = %s AND version = %s", (stream_id, version)
        )
        if not rows:
            record = retention.get(stream_id)
            if record is not None and (record[0] > version or (record[0] == version and record[1] == digest)):
                purged.append(TableFinding(table_id, version, f"purged at version {record[0]} under the"
                                           f" retention record {record[2]} version {record[3]}"))
            else:
                findings.append(
                    TableFinding(table_id, version, "the checkpointed event is gone (log truncated)"))
            continue
        if bytes(rows[0][0]).hex() != digest:
            findings.append(
                TableFinding(
                    table_id,
                    version,
                    "the event at the checkpointed version no longer"
                    " has the checkpointed hash: the log was rewritten at or before it",
                )
            )
            continue
        chain = await store.verify(stream_id)
        if not chain.ok:
            findings.append(TableFinding(table_id, chain.first_bad_version, chain.reason or "chain broken"))
    return CheckpointReport(True, len(entries), tuple(findings), tuple(purged))
