"""The auditors' listings of the records of who called: the access log (ListAccessRecords) and player
sessions (ListPlayerSessions), and the paging every AuditService listing shares (times, page tokens bound
to their filters).

Both listings are for auditors only: an operator's or a player's token is PERMISSION_DENIED / AUDITOR_ONLY
(the gates below, which the access log also records as refused).
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

import grpc

from stud_service.access import BadPosition, Outcome, StoredAccessRecord, list_access_records
from stud_service.auth import Role
from stud_service.record_text import MAX_FIELD_CHARS
from stud_service.server.api.access import roles_only
from stud_service.server.api.convert import checked_timestamp, timestamp_ms
from stud_service.server.api.errors import RequestError, malformed
from stud_service.server.api.names import PLAYER_ID
from stud_service.server.api.page_tokens import PageTokens
from stud_service.server.proto_gen import audit_pb2, audit_service_pb2
from stud_service.sessions import EndReason, PlayerSession, check_device_id, parse_network
from stud_service.sessions.networks import IPNetwork
from stud_service.sessions.reading import BadPosition as BadSessionPosition
from stud_service.sessions.reading import list_sessions
from stud_service.store import EventStore

DEFAULT_PAGE_SIZE = 50
_OUTCOMES = {
    Outcome.ALLOWED: audit_pb2.ACCESS_OUTCOME_ALLOWED,
    Outcome.REFUSED: audit_pb2.ACCESS_OUTCOME_REFUSED,
}
AUDITORS = roles_only((Role.AUDITOR,), lambda: RequestError(
    grpc.StatusCode.PERMISSION_DENIED, "AUDITOR_ONLY", "the access log is for auditors"
))
SESSION_AUDITORS = roles_only((Role.AUDITOR,), lambda: RequestError(
    grpc.StatusCode.PERMISSION_DENIED, "AUDITOR_ONLY", "player sessions are for auditors"
))
_SESSION_ENDS = {
    EndReason.CLOSED: audit_pb2.SESSION_END_CLOSED,
    EndReason.IDLE: audit_pb2.SESSION_END_IDLE,
    EndReason.SHUTDOWN: audit_pb2.SESSION_END_SHUTDOWN,
    EndReason.REPLICA_LOST: audit_pb2.SESSION_END_REPLICA_LOST,
}


# -- paging ----------------------------------------------------------------------------------------

def time_filter(request: Any, field: str) -> datetime | None:
    """A request's optional Timestamp field as a datetime; MALFORMED_REQUEST outside Timestamp's range."""
    if not request.HasField(field):
        return None
    return checked_timestamp(getattr(request, field), field).ToDatetime(tzinfo=UTC)


def page_request(
    request: Any, tokens: PageTokens, filters: tuple[str | None, ...]
) -> tuple[datetime | None, datetime | None, tuple[str | None, ...], str]:
    """A listing's page_size, start_time, end_time and page_token checked: the times, the token's binding
    and the position it holds. A token continues its listing only: same filters and times (AIP-158)."""
    if request.page_size < 0:
        raise malformed("page_size must not be negative", "page_size")
    since, until = time_filter(request, "start_time"), time_filter(request, "end_time")
    binding = (*filters, *(when.isoformat() if when else None for when in (since, until)))
    position = tokens.open(request.page_token, binding) if request.page_token else ""
    return since, until, binding, position


def ms(when: datetime | None) -> int | None:
    return None if when is None else int(when.timestamp() * 1000)


# -- the access log --------------------------------------------------------------------------------

def _access_records_of(request: Any) -> str | None:
    """ListAccessRecords' principal filter (None: everyone's records)."""
    return PLAYER_ID.check(request.principal_id, "principal_id") if request.principal_id else None


def access_records_resource(request: Any) -> str:
    """The resource a ListAccessRecords names, for its access record: its principal filter checked first."""
    _access_records_of(request)
    return "accessRecords"


def access_record_proto(stored: StoredAccessRecord) -> audit_pb2.AccessRecord:
    record = stored.record
    return audit_pb2.AccessRecord(
        principal_id=record.principal_id,
        role=record.role,
        method=record.method,
        resource=record.resource,
        time=timestamp_ms(record.at_ms),
        peer=record.peer,
        outcome=_OUTCOMES[record.outcome],
        refusal_reason=record.reason,
        log_stream=stored.stream_id,
        log_version=stored.version,
    )


async def access_records_page(store: EventStore, request: Any, tokens: PageTokens) -> Any:
    """A page of ListAccessRecords, its filters and token checked."""
    principal_id = _access_records_of(request)
    if len(request.method) > MAX_FIELD_CHARS or not request.method.isprintable():
        raise malformed(f"method must be at most {MAX_FIELD_CHARS} printable characters", "method")
    filters = (principal_id, request.method or None)
    since, until, binding, position = page_request(request, tokens, filters)
    try:
        page = await list_access_records(
            store,
            since_ms=ms(since),
            until_ms=ms(until),
            principal_id=principal_id,
            method=request.method or None,
            page_size=request.page_size or DEFAULT_PAGE_SIZE,
            position=position,
        )
    except BadPosition as error:
        raise malformed(str(error), "page_token") from None
    next_token = tokens.issue(page.next_position, binding) if page.next_position else ""
    return audit_service_pb2.ListAccessRecordsResponse(
        access_records=[access_record_proto(stored) for stored in page.records],
        next_page_token=next_token,
    )


# -- player sessions -------------------------------------------------------------------------------

def _session_filters(request: Any) -> tuple[str | None, str | None, IPNetwork | None]:
    """ListPlayerSessions' player, device and network filters (None: any), checked."""
    player_id = PLAYER_ID.check(request.player_id, "player_id") if request.player_id else None
    device = None
    if request.device_id:
        try:
            device = check_device_id(request.device_id)
        except ValueError as error:
            raise malformed(str(error).replace("x-stud-device-id", "device_id"), "device_id") from None
    network = None
    if request.address:
        try:
            network = parse_network(request.address)
        except ValueError:
            raise malformed("address must be an IP address or a network in CIDR form (10.0.0.0/24),"
                            " without host bits", "address") from None
    return player_id, device, network


def player_sessions_resource(request: Any) -> str:
    """The resource a ListPlayerSessions names, for its access record: its filters checked first."""
    _session_filters(request)
    return "playerSessions"


def session_proto(session: PlayerSession) -> audit_pb2.PlayerSession:
    start, end = session.start, session.end
    reply = audit_pb2.PlayerSession(
        session_id=start.session_id, player_id=start.player_id, transport=start.transport.value,
        connection=start.connection, address=start.address, device_id=start.device,
        start_time=timestamp_ms(start.at_ms), tables=list(session.tables),
        log_stream=session.stream_id, log_version=session.version,
    )
    if end is not None:
        reply.end_time.CopyFrom(timestamp_ms(end.at_ms))
        reply.end = _SESSION_ENDS[end.reason]
        reply.calls = end.calls
    return reply


async def player_sessions_page(store: EventStore, request: Any, tokens: PageTokens) -> Any:
    """A page of ListPlayerSessions, its filters and token checked."""
    player_id, device, network = _session_filters(request)
    filters = (player_id, device, str(network) if network is not None else None)
    since, until, binding, position = page_request(request, tokens, filters)
    try:
        page = await list_sessions(
            store, player_id=player_id, device=device, network=network, since_ms=ms(since),
            until_ms=ms(until), page_size=request.page_size or DEFAULT_PAGE_SIZE, position=position,
        )
    except BadSessionPosition as error:
        raise malformed(str(error), "page_token") from None
    next_token = tokens.issue(page.next_position, binding) if page.next_position else ""
    return audit_service_pb2.ListPlayerSessionsResponse(
        player_sessions=[session_proto(session) for session in page.sessions], next_page_token=next_token,
    )
