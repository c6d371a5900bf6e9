"""Listing access records: by time, principal and method, oldest first, a page at a time.

Records are ordered by the service's time of the call, then stream and version (a total order over
every replica's streams), and a page's position is the last record's (time, stream, version), so pages
stay stable while new records arrive. One query reads every ``access/`` stream.
"""

from __future__ import annotations

import json
from dataclasses import dataclass

from stud_service.access.records import ACCESS_RECORDED, STREAM_PREFIX, AccessRecord, StoredAccessRecord
from stud_service.audit.records import fetch
from stud_service.store import EventStore

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


class BadPosition(ValueError):
    """A page position this module did not make."""


@dataclass(frozen=True)
class AccessPage:
    records: tuple[StoredAccessRecord, ...]
    next_position: str  # "" on the last page


def _position(stored: StoredAccessRecord) -> str:
    return f"{stored.record.at_ms}|{stored.version}|{stored.stream_id}"


def _parse_position(position: str) -> tuple[int, str, int]:
    at_ms, _, rest = position.partition("|")
    version, _, stream = rest.partition("|")
    if not (at_ms.lstrip("-").isdigit() and version.isdigit() and stream.startswith(STREAM_PREFIX)):
        raise BadPosition("the page token is not one this service issued")
    return int(at_ms), stream, int(version)


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
    after_ms, after_stream, after_version = _parse_position(position) if position else (-(2**63), "", 0)
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
    return AccessPage(records, _position(records[-1]) if more else "")
