"""Every player's call in its session (``stud_service.sessions``): the service methods' decorators.

A method decorated with :func:`in_session` (a unary one) or :func:`watched_in_session` (WatchTable) finds
the caller first: a player's call is placed in its session before it does its work (its records are written
in the background; a SitDown waits until its session's start is in the log), naming the table the request
names, if any. Every
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


def no_table(request: Any) -> str | None:
    """A request that names no table (for a session's record)."""
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


# The hot path: every player call goes through here. A connection's calls share its peer string, and a client
# sends one device id: both are read once and kept (each cache cleared whenever it fills).
_addresses: dict[str, tuple[IPAddress | None, str]] = {}  # peer -> its address, and as text
_valid_devices: set[str] = set()
_TRANSPORTS = {"grpc": Transport.GRPC, "web": Transport.WEB}


def _peer_address(peer: str) -> tuple[IPAddress | None, str]:
    found = _addresses.get(peer)
    if found is None:
        if len(_addresses) >= _MAX_PEERS:
            _addresses.clear()
        address = peer_address(peer)
        found = _addresses[peer] = (address, "" if address is None else str(address))
    return found


def device_of(call: Call) -> str:
    """The call's device id ("" when none); DEVICE_ID_INVALID when malformed."""
    device = ""
    for key, value in call.invocation_metadata() or ():
        if key == DEVICE_ID_HEADER:
            if value in _valid_devices and not device:
                device = value  # type: ignore[assignment]  # only str values are ever kept
                continue
            return _checked_device(call)
    return device


def _checked_device(call: Call) -> str:
    try:
        device = device_id_of(call.invocation_metadata())
    except DeviceIdError as error:
        raise RequestError(grpc.StatusCode.INVALID_ARGUMENT, "DEVICE_ID_INVALID", str(error),
                           {"header": DEVICE_ID_HEADER}) from None
    if len(_valid_devices) >= _MAX_PEERS:
        _valid_devices.clear()
    _valid_devices.add(device)
    return device


def _client(call: Call, peer: str, sessions: PlayerSessions) -> tuple[IPAddress | None, str]:
    """The client's address (and as text): the peer's, or behind a trusted proxy the one it forwarded."""
    address, text = _peer_address(peer)
    proxies = sessions.proxies
    if proxies and address is not None and proxies.trusts(address):
        forwarded = [value for key, value in call.invocation_metadata() or () if key == FORWARDED_FOR_HEADER]
        address = proxies.client(address, [str(value) for value in forwarded])
        text = "" if address is None else str(address)
    return address, text


def caller_of(call: Call, sessions: PlayerSessions) -> Caller:
    """The call's transport, connection, client address and device."""
    peer = call.peer() or ""
    return Caller(_TRANSPORTS[getattr(call, "transport", "grpc")], peer, _client(call, peer, sessions)[0],
                  device_of(call))


async def enter_session(call: Call, principal: Principal | None, sessions: PlayerSessions,
                        table: str | None, durable: bool = False) -> OpenSession | None:
    """Check the call's device id and, for a player's call, place it in its session; ``durable``: wait until
    the session's start is in the log."""
    device = device_of(call)
    if principal is None or principal.role is not Role.PLAYER or not sessions.enabled:
        return None
    peer = call.peer() or ""
    session = sessions.touch(principal.player_id, _TRANSPORTS[getattr(call, "transport", "grpc")], peer,
                             _client(call, peer, sessions)[1], device, table)
    if durable and not session.durable:
        await sessions.durable(session)
    return session


Unary = Callable[..., Awaitable[Reply]]


def in_session(*, table: TableOf = no_table, optional_token: bool = False,
               durable: bool = False) -> Callable[[Unary[Reply]], Unary[Reply]]:
    """A unary servicer method whose player calls are placed in their sessions first; ``table`` reads the
    table a request names; ``optional_token``: a public method (a call without a token has no session);
    ``durable``: the call waits until its session's start is in the log (SitDown: another replica checking
    a table's same-network rule must find the players seated there)."""

    def decorate(method: Unary[Reply]) -> Unary[Reply]:
        @functools.wraps(method)
        async def wrapper(self: Any, request: Any, call: Call) -> Reply:
            principal = (optional_principal_of if optional_token else principal_of)(call, self._tokens)
            await enter_session(call, principal, self.runtime.sessions, table(request), durable)
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
