"""The access log's hook in the servicers: a privileged call is recorded before it does its work.

A method decorated with :func:`recorded` looks at the caller's role first (a token check, no I/O).
A player's call, or a call by a role the method does not record, runs as it is: nothing is written.
An operator's or auditor's call appends one :class:`~stud_service.access.AccessRecord` (method,
resource name, peer, role decision) and only then runs; if the role may not make the call it is
refused with the reason the record names. A record that cannot be written refuses the call
(STORE_UNAVAILABLE, through the servicer's refusals decorator) before anything else happens.

``resource`` reads the name a request carries, and parses it (``server.api.names``): an allowed role's request
whose name is not one is refused MALFORMED_REQUEST before its record, since it touched nothing; a role
refused is recorded whatever its request names.

    @refusals_as_statuses
    @recorded(gate=operator_only("moving money through the cashier"), resource=ACCOUNTS.checked("account"))
    async def Deposit(self, request, call): ...

The servicer provides ``_tokens`` (its TokenVerifier) and ``runtime`` (whose ``access`` is the
process's :class:`~stud_service.access.AccessLog`).
"""

from __future__ import annotations

import functools
from collections.abc import Awaitable, Callable, Collection
from typing import Any, TypeVar

import grpc

from stud_service.access import AccessLog, AccessRecord, Outcome
from stud_service.auth import Principal, Role
from stud_service.server.api.call import Call
from stud_service.server.api.caller import principal_of
from stud_service.server.api.errors import RequestError
from stud_service.server.tables.live import now_ms

Reply = TypeVar("Reply")
Gate = Callable[[Principal], None]  # raises the RequestError a role is refused with
Resource = Callable[[Any], str]

PRIVILEGED: frozenset[Role] = frozenset({Role.OPERATOR, Role.AUDITOR})
_RESOURCE_FIELDS = ("name", "parent", "account")


def operator_only(what: str) -> Gate:
    """The gate of an operator's call: ``what`` needs an operator token (OPERATOR_ONLY)."""

    def gate(principal: Principal) -> None:
        if principal.role is not Role.OPERATOR:
            raise RequestError(
                grpc.StatusCode.PERMISSION_DENIED, "OPERATOR_ONLY", f"{what} needs an operator token"
            )

    return gate


def roles_only(roles: Collection[Role], refusal: Callable[[], RequestError]) -> Gate:
    """The gate of a call only ``roles`` may make; others get ``refusal()``."""

    def gate(principal: Principal) -> None:
        if principal.role not in roles:
            raise refusal()

    return gate


def named_resource(request: Any) -> str:
    """The resource a request names: its ``name``, ``parent`` or ``account``; "" when none."""
    for field in _RESOURCE_FIELDS:
        value = getattr(request, field, "")
        if value:
            return str(value)
    return ""


def _allow(principal: Principal) -> None:
    return None


async def record_access(
    log: AccessLog,
    principal: Principal,
    method: str,
    resource: str,
    call: Call,
    gate: Gate = _allow,
) -> None:
    """Append the call's record; then raise the gate's refusal, if the role is refused."""
    refusal: RequestError | None = None
    try:
        gate(principal)
    except RequestError as error:
        refusal = error
    await log.record(
        AccessRecord(
            principal_id=principal.player_id,
            role=principal.role.value,
            method=method,
            resource=resource,
            peer=call.peer() or "",
            outcome=Outcome.REFUSED if refusal else Outcome.ALLOWED,
            reason=refusal.reason if refusal else "",
            at_ms=now_ms(),
        )
    )
    if refusal is not None:
        raise refusal


def _refuses(gate: Gate, principal: Principal) -> bool:
    try:
        gate(principal)
    except RequestError:
        return True
    return False


def _resource_of(request: Any, resource: Resource, refused: bool) -> str:
    """The resource a record names; for a role that is allowed, a name that does not parse is refused."""
    if not refused:
        return resource(request)
    try:
        return resource(request)
    except RequestError:
        return named_resource(request)  # as sent: the record clips it (access.records.clip)


def recorded(
    *, resource: Resource, gate: Gate = _allow, roles: frozenset[Role] = PRIVILEGED
) -> Callable[[Callable[..., Awaitable[Reply]]], Callable[..., Awaitable[Reply]]]:
    """A unary servicer method whose calls by ``roles`` are recorded first (and refused by ``gate``), naming
    the resource ``resource`` reads from the request (and checks: see the module's comment)."""

    def decorate(method: Callable[..., Awaitable[Reply]]) -> Callable[..., Awaitable[Reply]]:
        @functools.wraps(method)
        async def wrapper(self: Any, request: Any, call: Call) -> Reply:
            principal = principal_of(call, self._tokens)
            if principal.role in roles:
                full_name = f"/{self.SERVICE_NAME}/{method.__name__}"
                access_log = self.runtime.access
                named = _resource_of(request, resource, refused=_refuses(gate, principal))
                await record_access(access_log, principal, full_name, named, call, gate)
            return await method(self, request, call)

        return wrapper

    return decorate
