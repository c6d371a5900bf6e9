"""Every player's call in its session (``stud_service.sessions``): the service methods' decorators.

A method decorated with :func:`in_session` (a unary one) or :func:`watched_in_session` (WatchTable) finds
the caller first: a player's call is placed in its session before it does its work (the session's first
call waits for the session's start to be in the log), naming the table the request names, if any. Every
caller's ``x-stud-device-id`` is checked first: a malformed one is refused INVALID_ARGUMENT /
DEVICE_ID_INVALID, whoever sends it. Operators' and auditors' calls have no session (the access log records
them); a public call without a token has none either.

The connection is the call's peer; the address is the peer's, or, when the peer is a trusted proxy
(``--trusted-proxies``), the client's as the proxies forwarded it in ``X-Forwarded-For``
(:class:`stud_service.sessions.networks.TrustedProxies`). The transport says whether it is the gRPC port
or the web port (a :class:`~stud_service.server.web.call.WebCall` says ``transport = "web"``).

    @refusals_as_statuses
    @in_session(table=lambda request: request.name)
    async def SitDown(self, request, call): ...

The servicer provides ``_tokens`` (its TokenVerifier) and ``runtime`` (whose ``sessions`` is the process's
:class:`~stud_service.sessions.PlayerSessions`).
"""

from __future__ import annotations

import functools
from collections.abc import AsyncIterator, Awaitable, Callable
from dataclasses import dataclass
from typing import Any, TypeVar

import grpc

from stud_service.auth import AuthError, Principal, Role
from stud_service.server.api.call import Call
from stud_service.server.api.caller import optional_principal_of, principal_of
from stud_service.server.api.errors import Refused, RequestError, raise_if_store_refusal, refusal_for
from stud_service.server.api.names import TABLE_ID
from stud_service.sessions import (
    DEVICE_ID_HEADER,
    FORWARDED_FOR_HEADER,
    DeviceIdError,
    OpenSession,
    PlayerSessions,
    Transport,
    device_id_of,
    peer_address,
)
from stud_service.sessions.networks import IPAddress

Reply = TypeVar("Reply")
TableOf = Callable[[Any], str | None]
# Peers whose address was parsed: a connection's calls share its peer string. Cleared when this full.
_MAX_PEERS = 10_000
_TABLE_PREFIX = "tables/"


def _no_table(request: Any) -> str | None:
    return None


def named_table(request: Any) -> str | None:
    """The table a request's ``name`` names (``tables/{table}``), as sessions record it; None for a name that
    is not a table's (the method refuses it: nothing of it is recorded)."""
    name = getattr(request, "name", "")
    if not name.startswith(_TABLE_PREFIX) or not TABLE_ID.holds(name[len(_TABLE_PREFIX):]):
        return None
    return name


@dataclass(frozen=True, slots=True)
class Caller:
    """Where a call comes from: its transport, connection (peer), client address and device id."""

    transport: Transport
    connection: str
    address: IPAddress | None
    device: str


_addresses: dict[str, IPAddress | None] = {}


def _peer_address(peer: str) -> IPAddress | None:
    if peer in _addresses:
        return _addresses[peer]
    if len(_addresses) >= _MAX_PEERS:
        _addresses.clear()
    address = _addresses[peer] = peer_address(peer)
    return address


def device_of(call: Call) -> str:
    """The call's device id ("" when none); DEVICE_ID_INVALID when malformed."""
    try:
        return device_id_of(call.invocation_metadata())
    except DeviceIdError as error:
        raise RequestError(grpc.StatusCode.INVALID_ARGUMENT, "DEVICE_ID_INVALID", str(error),
                           {"header": DEVICE_ID_HEADER}) from None


def caller_of(call: Call, sessions: PlayerSessions, device: str | None = None) -> Caller:
    """The call's transport, connection, client address and device (``device``: already read)."""
    peer = call.peer() or ""
    address = _peer_address(peer)
    proxies = sessions.proxies
    if proxies and address is not None and proxies.trusts(address):
        forwarded = [value for key, value in call.invocation_metadata() or () if key == FORWARDED_FOR_HEADER]
        address = proxies.client(address, [str(value) for value in forwarded])
    return Caller(Transport(getattr(call, "transport", Transport.GRPC)), peer, address,
                  device_of(call) if device is None else device)


async def enter_session(call: Call, principal: Principal | None, sessions: PlayerSessions,
                        table: str | None) -> OpenSession | None:
    """Check the call's device id and, for a player's call, place it in its session."""
    device = device_of(call)
    if principal is None or principal.role is not Role.PLAYER or not sessions.enabled:
        return None
    caller = caller_of(call, sessions, device)
    found = sessions.touch(principal.player_id, caller.transport, caller.connection,
                           "" if caller.address is None else str(caller.address), caller.device, table)
    return found if isinstance(found, OpenSession) else await found


def in_session(*, table: TableOf = _no_table, optional_token: bool = False) -> Callable[
        [Callable[..., Awaitable[Reply]]], Callable[..., Awaitable[Reply]]]:
    """A unary servicer method whose player calls are placed in their sessions first; ``table`` reads the
    table a request names; ``optional_token``: a public method (a call without a token has no session)."""

    def decorate(method: Callable[..., Awaitable[Reply]]) -> Callable[..., Awaitable[Reply]]:
        @functools.wraps(method)
        async def wrapper(self: Any, request: Any, call: Call) -> Reply:
            principal = (optional_principal_of if optional_token else principal_of)(call, self._tokens)
            await enter_session(call, principal, self.runtime.sessions, table(request))
            return await method(self, request, call)

        wrapper.in_session = True  # type: ignore[attr-defined]  # tests find every method covered
        return wrapper

    return decorate


def watched_in_session(*, table: TableOf = named_table) -> Callable[
        [Callable[..., AsyncIterator[Reply]]], Callable[..., AsyncIterator[Reply]]]:
    """A server-streaming method whose player calls are placed in their sessions first; the session counts
    the stream as open (it never ends idle while a stream runs) until the stream ends."""

    def decorate(method: Callable[..., AsyncIterator[Reply]]) -> Callable[..., AsyncIterator[Reply]]:
        @functools.wraps(method)
        async def wrapper(self: Any, request: Any, call: Call) -> AsyncIterator[Reply]:
            sessions: PlayerSessions = self.runtime.sessions
            try:
                principal = principal_of(call, self._tokens)
                session = await enter_session(call, principal, sessions, table(request))
            except (RequestError, AuthError) as error:
                raise Refused(refusal_for(error)) from None
            except Exception as error:
                raise_if_store_refusal(error)
                raise
            if session is not None:
                sessions.stream_began(session)
            try:
                async for reply in method(self, request, call):
                    yield reply
            finally:
                if session is not None:
                    sessions.stream_ended(session)

        wrapper.in_session = True  # type: ignore[attr-defined]
        return wrapper

    return decorate
