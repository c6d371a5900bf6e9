"""Listing access records: by time, principal and method, oldest first, a page at a time.

Records are ordered by the service's time of the call, then stream and version (a total order over
every replica's streams), and a page's position is the last record's (time, stream, version), so pages
stay stable while new records arrive. One query reads every ``access/`` stream.
"""

from __future__ import annotations

import json
from dataclasses import dataclass

from stud_service.access.records import ACCESS_RECORDED, STREAM_PREFIX, AccessRecord, StoredAccessRecord
from stud_service.store import EventStore
from stud_service.store.positions import BadPosition, parse_position, position_of
from stud_service.store.reads import fetch

__all__ = ["AccessPage", "BadPosition", "list_access_records"]

MAX_PAGE_SIZE = 1000
_AT = "(payload->>'at_ms')::bigint"
_LIST_QUERY = f"""
SELECT stream_id, version, payload::text FROM events
 WHERE starts_with(stream_id, %(prefix)s) AND type = %(type)s
   AND (%(principal)s::text IS NULL OR payload->>'principal' = %(principal)s)
   AND (%(method)s::text IS NULL OR payload->>'method' = %(method)s
        OR split_part(payload->>'method', '/', 3) = %(method)s)
   AND (%(since)s::bigint IS NULL OR {_AT} >= %(since)s)
   AND (%(until)s::bigint IS NULL OR {_AT} < %(until)s)
   AND ({_AT}, stream_id, version) > (%(after_ms)s, %(after_stream)s, %(after_version)s)
 ORDER BY {_AT}, stream_id, version
 LIMIT %(limit)s
"""


@dataclass(frozen=True)
class AccessPage:
    records: tuple[StoredAccessRecord, ...]
    next_position: str  # "" on the last page


async def list_access_records(
    store: EventStore,
    *,
    since_ms: int | None = None,
    until_ms: int | None = None,
    principal_id: str | None = None,
    method: str | None = None,
    page_size: int = 50,
    position: str = "",
) -> AccessPage:
    """Records with ``since_ms <= at_ms < until_ms`` (either bound optional), of ``principal_id`` and
    ``method`` (a full name ``/stud.v1.AuditService/GetHand`` or the bare ``GetHand``) if given, after
    ``position`` (a previous page's ``next_position``)."""
    size = max(1, min(page_size, MAX_PAGE_SIZE))
    after_ms, after_stream, after_version = parse_position(position, STREAM_PREFIX)
    rows = await fetch(
        store,
        _LIST_QUERY,
        {
            "prefix": STREAM_PREFIX,
            "type": ACCESS_RECORDED,
            "principal": principal_id,
            "method": method,
            "since": since_ms,
            "until": until_ms,
            "after_ms": after_ms,
            "after_stream": after_stream,
            "after_version": after_version,
            "limit": size + 1,
        },
    )
    records = tuple(
        StoredAccessRecord(AccessRecord.from_event(json.loads(text)), stream, version)
        for stream, version, text in rows[:size]
    )
    more = len(rows) > size
    last = records[-1] if more else None
    return AccessPage(records, position_of(last.record.at_ms, last.stream_id, last.version) if last else "")
