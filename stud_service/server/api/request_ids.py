"""Request ids as Google's AIP-155 has them: scoped to the caller and the method, and bound to the request.

A client's ``request_id`` is its own name for one request. The store dedupes on a key derived from
it (within the table's stream, as every key is), so one caller's id never meets another's:

    key          hex SHA-256 of (the token's role, its subject, the method, the client's id)
    fingerprint  SHA-256 of the method and the request's fields other than ``request_id``

Both are fixed-size whatever the client sent, and the store stays generic: it keeps the key and the
fingerprint with the command's first event and hands them back (``EventStore.find_request``). A
request whose key is already recorded is a retry when the fingerprints match (it gets the first
call's result) and a reuse of the id for something else when they do not (INVALID_ARGUMENT /
REQUEST_ID_REUSED). An empty ``request_id`` means no deduplication: every such call is new.

The method is named by the request's message type (each method has its own).
"""

from __future__ import annotations

import hashlib
import json
import secrets
from dataclasses import dataclass

import grpc
from google.protobuf.message import Message

from stud_service.auth import Principal
from stud_service.server.api.convert import checked_request_id
from stud_service.server.api.errors import RequestError
from stud_service.store import RecordedRequest


@dataclass(frozen=True, slots=True)
class RequestKey:
    """One request id as the store records it (see the module docstring)."""

    key: str
    fingerprint: bytes


def request_key(principal: Principal, request: Message) -> RequestKey | None:
    """The scoped key and fingerprint of ``request`` (which has a ``request_id`` field); None for an
    empty id. A malformed id is refused with MALFORMED_REQUEST."""
    client_id = checked_request_id(request.request_id)  # type: ignore[attr-defined]
    if client_id is None:
        return None
    method = request.DESCRIPTOR.full_name
    # A JSON list keeps the parts apart whatever characters they hold.
    scope = json.dumps([principal.role.value, principal.player_id, method, client_id])
    fields = type(request)()
    fields.CopyFrom(request)
    fields.ClearField("request_id")
    fingerprint = hashlib.sha256(method.encode() + b"\0" + fields.SerializeToString(deterministic=True))
    return RequestKey(hashlib.sha256(scope.encode()).hexdigest(), fingerprint.digest())


def check_same_request(recorded: RecordedRequest, key: RequestKey) -> None:
    """``key`` is recorded: a retry, or REQUEST_ID_REUSED when the recorded fingerprint says the id was
    used for a different request. A row without a fingerprint (an older release's) counts as a retry."""
    if recorded.fingerprint is not None and recorded.fingerprint != key.fingerprint:
        raise RequestError(
            grpc.StatusCode.INVALID_ARGUMENT,
            "REQUEST_ID_REUSED",
            "this request_id was already used by the caller for a different request to this method",
            {"field": "request_id"},
        )


def derived_id(prefix: str, key: RequestKey | None) -> str:
    """An id for a resource a Create call left the client to name: ``prefix`` and 12 hex digits derived from
    the request id as scoped to the caller, so a retry names the same resource and two callers' same id two
    resources; random without a request id."""
    source = key.key.encode() if key else secrets.token_bytes(16)
    return prefix + hashlib.sha256(source).hexdigest()[:12]
