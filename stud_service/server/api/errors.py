"""Refusals as gRPC statuses: a canonical code plus ``google.rpc.Status`` details with an ``ErrorInfo``.

Every refusal the service sends has ``ErrorInfo(domain="stud-service", reason=...)`` in the
``grpc-status-details-bin`` trailer, so clients switch on the reason rather than parse messages.
Every reason is a value of ``stud.v1.ErrorReason`` (proto/stud/v1/errors.proto), which documents
its status code (the value's ``grpc_code`` option), when it is sent and its metadata keys; the
table in docs/clients.md is generated from it and tests/test_error_reasons.py fails on a reason the code can
raise that the enum lacks. Reasons come from six places: the engine's ``DomainError``, the ledger's
``LedgerError``, the audit's ``AuditError`` and the tournaments' ``TournamentError`` (``reason``,
``grpc_code_name`` and ``metadata`` attributes), ``AuthError``
(always UNAUTHENTICATED) and :class:`RequestError` here, for what the service checks before the
engine sees a command; the store's faults are STORE_UNAVAILABLE, or OUTCOME_UNKNOWN for a write that may have
committed and whose outcome the store could not learn before the call's deadline.

A store fault reaches the client as one plain sentence: PostgreSQL's own text (paths, channel names,
hosts) goes to the log only, and at most once per ``STORE_LOG_INTERVAL`` seconds, however many calls
fail while the database is away.

While the database is away a call is refused once it has run for the store timeout (the pool's wait for a
connection, ``--store-timeout-seconds``), or at :func:`store_wait_limit` of its deadline, whichever comes
first. The store timeout bounds the whole call, not each wait: a call queued behind another one's append (the
table's write lock, the writer's batches in flight) would otherwise wait its own timeout after theirs. A call
whose append lost its connection while committing is the exception: the store is resolving its outcome (see
``store.outcome``), and the call waits for that until :func:`store_wait_limit` of its deadline.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import logging
from collections.abc import AsyncIterator, Awaitable, Callable, Mapping
from typing import Any, NoReturn, TypeVar

import grpc
from google.protobuf import any_pb2, duration_pb2
from google.rpc import code_pb2, error_details_pb2, status_pb2
from grpc_status import rpc_status

from stud_service.observability.logging import RateLimitedLog
from stud_service.sealing.errors import SealingError
from stud_service.server.api import reasons
from stud_service.server.api.call import Call
from stud_service.store import EventStore
from stud_service.store.errors import OutcomeUnknown, is_store_fault
from stud_service.store.outcome import PendingOutcome, tracking_outcome

DOMAIN = "stud-service"

_log = logging.getLogger(__name__)
Reply = TypeVar("Reply")

STORE_UNAVAILABLE_MESSAGE = "the table store is unavailable; retry shortly"
OUTCOME_UNKNOWN_MESSAGE = (
    "the table store went away while this write committed and did not come back within the call's deadline:"
    " whether it took effect is unknown; retry with the same request_id"
)
STORE_RETRY_DELAY_SECONDS = 1  # the RetryInfo hint: about the backoff cap of the service's own loops
STORE_LOG_INTERVAL = 10.0
# A call with a deadline is answered this share of its remaining time in at the latest, and at least
# DEADLINE_MARGIN_SECONDS before it, so the refusal reaches the client before the deadline does even when
# a busy machine is slow to run the timer and send the reply (a quarter second was seen to fall short).
# A short deadline still leaves the store DEADLINE_FLOOR_SHARE of it: a healthy store answers in
# milliseconds, and a call that is refused at once whatever the store does would be no use.
DEADLINE_SHARE = 0.8
DEADLINE_MARGIN_SECONDS = 0.5
DEADLINE_FLOOR_SHARE = 0.5
# How often a call that has run for the store timeout looks again whether the store is failing.
STORE_WATCH_SECONDS = 0.25


def store_wait_limit(remaining: float | None) -> float | None:
    """How long a call with ``remaining`` seconds to its deadline may wait on the store (None: no limit)."""
    if remaining is None:
        return None
    remaining = max(0.0, remaining)
    with_margin = min(remaining * DEADLINE_SHARE, remaining - DEADLINE_MARGIN_SECONDS)
    return max(remaining * DEADLINE_FLOOR_SHARE, with_margin)


class RequestError(Exception):
    """A request the service refuses before (or instead of) asking the engine."""

    def __init__(self, code: grpc.StatusCode, reason: str, message: str,
                 metadata: Mapping[str, str] | None = None) -> None:
        super().__init__(message)
        self.code = code
        self.reason = reason
        self.message = message
        self.metadata = dict(metadata or {})


# Bad input is quoted in a message by at most this many characters: a client sending a megabyte must
# not get it back in the trailer (which would then be too big: RESOURCE_EXHAUSTED).
QUOTED_CHARS = 40


def quoted(value: str) -> str:
    """``value`` as a message may quote it: its repr, cut to a short prefix when long."""
    if len(value) <= QUOTED_CHARS:
        return repr(value)
    return f"{value[:QUOTED_CHARS]!r}... ({len(value)} characters)"


def malformed(message: str, field: str | None = None) -> RequestError:
    return RequestError(grpc.StatusCode.INVALID_ARGUMENT, "MALFORMED_REQUEST", message,
                        {"field": field} if field else None)


def status_code_named(name: str) -> grpc.StatusCode:
    """``"NOT_FOUND"`` -> ``grpc.StatusCode.NOT_FOUND``; an unknown name is INTERNAL (our bug)."""
    return grpc.StatusCode.__members__.get(name, grpc.StatusCode.INTERNAL)


def rich_refusal(code: grpc.StatusCode, reason: str, message: str,
            metadata: Mapping[str, str] | None = None, retry_after: int | None = None) -> status_pb2.Status:
    """A ``google.rpc.Status`` whose details carry an ErrorInfo naming ``reason`` (and a RetryInfo when
    ``retry_after`` seconds are given): the transport-neutral form of a refusal, which the gRPC port sends in
    its ``grpc-status-details-bin`` trailer and the web port as Connect error details. ``reason`` must be a
    stud.v1.ErrorReason sent with ``code`` (ValueError otherwise)."""
    reasons.check(code, reason)
    info = error_details_pb2.ErrorInfo(reason=reason, domain=DOMAIN, metadata=dict(metadata or {}))
    detail = any_pb2.Any()
    detail.Pack(info)
    details = [detail]
    if retry_after is not None:
        retry = any_pb2.Any()
        retry.Pack(error_details_pb2.RetryInfo(retry_delay=duration_pb2.Duration(seconds=retry_after)))
        details.append(retry)
    return status_pb2.Status(code=getattr(code_pb2, code.name), message=message, details=details)


def rich_status(code: grpc.StatusCode, reason: str, message: str,
                metadata: Mapping[str, str] | None = None, retry_after: int | None = None) -> grpc.Status:
    """:func:`rich_refusal` as a grpc.Status, its details in the trailer."""
    return rpc_status.to_status(rich_refusal(code, reason, message, metadata, retry_after))


class Refused(Exception):
    """How a service method refuses a call, on any transport: the status to send (:func:`rich_refusal`)."""

    def __init__(self, status: status_pb2.Status) -> None:
        super().__init__(status.message)
        self.status = status

    def grpc_status(self) -> grpc.Status:
        return rpc_status.to_status(self.status)


class StoreTimeout(Exception):
    """The store did not answer within the call's deadline (``outcome_unknown``: while resolving a write that
    may have committed)."""

    def __init__(self, message: str, outcome_unknown: bool = False) -> None:
        super().__init__(message)
        self.outcome_unknown = outcome_unknown


def is_store_refusal(error: BaseException) -> bool:
    """A call the store could not serve: answered STORE_UNAVAILABLE, its detail logged (rate-limited)."""
    return isinstance(error, StoreTimeout) or is_store_fault(error)


def store_unavailable_status(error: BaseException | None = None) -> status_pb2.Status:
    """STORE_UNAVAILABLE, or OUTCOME_UNKNOWN when ``error`` is a write whose outcome is unknown."""
    if isinstance(error, OutcomeUnknown) or (isinstance(error, StoreTimeout) and error.outcome_unknown):
        return rich_refusal(grpc.StatusCode.UNAVAILABLE, "OUTCOME_UNKNOWN", OUTCOME_UNKNOWN_MESSAGE,
                            {"retry_after": str(STORE_RETRY_DELAY_SECONDS)},
                            retry_after=STORE_RETRY_DELAY_SECONDS)
    return rich_refusal(grpc.StatusCode.UNAVAILABLE, "STORE_UNAVAILABLE", STORE_UNAVAILABLE_MESSAGE,
                   {"retry_after": str(STORE_RETRY_DELAY_SECONDS)}, retry_after=STORE_RETRY_DELAY_SECONDS)


_store_faults = RateLimitedLog(_log, STORE_LOG_INTERVAL)


def log_store_fault(error: BaseException) -> None:
    """The detail of a store fault, for the operator (the client gets only a plain sentence)."""
    _store_faults.warning("the store could not serve a call: %s: %s", type(error).__name__,
                          " ".join(str(error).split()) or "no detail")


def refusal_for(error: Exception) -> status_pb2.Status:
    """The refusal for any error this service knows how to explain; INTERNAL for anything else."""
    from stud_service.audit.errors import AuditError
    from stud_service.auth import AuthError
    from stud_service.engine.errors import DomainError
    from stud_service.ledger.errors import LedgerError
    from stud_service.tournaments.errors import TournamentError

    if isinstance(error, RequestError):
        return rich_refusal(error.code, error.reason, error.message, error.metadata)
    if isinstance(error, (DomainError, AuditError, LedgerError, TournamentError)):
        # e.g. InvalidConfig's field, IllegalAmount's amounts: clients need not parse the message
        return rich_refusal(status_code_named(error.grpc_code_name), error.reason, error.message,
                           getattr(error, "metadata", None))
    if isinstance(error, AuthError):
        return rich_refusal(grpc.StatusCode.UNAUTHENTICATED, error.reason, str(error))
    if is_store_refusal(error):
        return store_unavailable_status(error)
    if isinstance(error, SealingError):  # its message names the stream, hand and key id, never a secret
        return rich_refusal(grpc.StatusCode.DATA_LOSS, "SEALED_DATA_UNREADABLE", str(error))
    return rich_refusal(grpc.StatusCode.INTERNAL, "INTERNAL", "internal error")


def status_for(error: Exception) -> grpc.Status:
    """:func:`refusal_for` as a grpc.Status."""
    return rpc_status.to_status(refusal_for(error))


def is_refusal(error: Exception) -> bool:
    """A refusal the service explains to the caller, as opposed to a fault of its own."""
    from stud_service.audit.errors import AuditError
    from stud_service.auth import AuthError
    from stud_service.engine.errors import DomainError
    from stud_service.ledger.errors import LedgerError
    from stud_service.tournaments.errors import TournamentError

    explained = (RequestError, DomainError, AuthError, AuditError, LedgerError, TournamentError)
    return isinstance(error, explained) or is_store_refusal(error)


async def answer(method: Callable[..., Awaitable[Reply]], service: Any, request: Any, call: Call) -> Reply:
    """Run a unary method of ``service`` (whose ``runtime.store`` is the store it uses): a refusal is raised
    as :class:`Refused` with its status; anything unexpected is logged and refused INTERNAL."""
    try:
        async with within_deadline(call, method.__name__, service.runtime.store):
            return await method(service, request, call)
    except Exception as error:
        if is_store_refusal(error):
            log_store_fault(error)
        elif isinstance(error, SealingError):
            _log.error("%s: a sealed secret does not open: %s", method.__name__, error)
        elif not is_refusal(error):
            _log.exception("%s failed", method.__name__)
        raise Refused(refusal_for(error)) from None


def refusals_as_statuses(method: Callable[..., Awaitable[Reply]]) -> Callable[..., Awaitable[Reply]]:
    """A servicer's unary method, answered through :func:`answer`."""

    @functools.wraps(method)
    async def wrapper(self: Any, request: Any, call: Call) -> Reply:
        return await answer(method, self, request, call)

    return wrapper


class _StoreWatch:
    """Ends a call's ``limit`` once the call has run for the store timeout while the store is failing (a
    call that is merely long, on a store that answers, goes on)."""

    def __init__(self, limit: asyncio.Timeout, store: EventStore, outcome: PendingOutcome) -> None:
        self._limit = limit
        self._outcome = outcome
        self._health = store.health
        self._loop = asyncio.get_running_loop()
        self._handle = self._loop.call_later(store.wait_timeout, self._check)

    def _check(self) -> None:
        if self._limit.expired():
            return
        if self._health.failing() and not self._outcome.unknown:
            self._limit.reschedule(self._loop.time())
        else:
            self._handle = self._loop.call_later(STORE_WATCH_SECONDS, self._check)

    def cancel(self) -> None:
        self._handle.cancel()


@contextlib.asynccontextmanager
async def within_deadline(call: Call, what: str, store: EventStore | None = None) -> AsyncIterator[None]:
    """Finish the block before the call's deadline (if it has one) and, while ``store`` is failing, within
    its timeout: work still waiting on the store by then is cancelled and :class:`StoreTimeout` raised, so
    the caller is told STORE_UNAVAILABLE rather than DEADLINE_EXCEEDED. An append it was waiting for may
    still commit; a retry with the same request id is safe."""
    limit = asyncio.timeout(store_wait_limit(call.time_remaining()))
    with tracking_outcome() as outcome:
        try:
            async with limit:
                watch = None if store is None else _StoreWatch(limit, store, outcome)
                try:
                    yield
                finally:
                    if watch is not None:
                        watch.cancel()
        except TimeoutError:
            if limit.expired():
                raise StoreTimeout(f"{what}: no answer within the call's deadline", outcome.unknown) from None
            raise


def raise_if_store_refusal(error: BaseException) -> None:
    """For streaming methods (``answer`` does this for unary ones): a store refusal ends the call
    STORE_UNAVAILABLE, its detail logged; a sealed secret that does not open, SEALED_DATA_UNREADABLE;
    anything else is left to the caller."""
    if is_store_refusal(error):
        log_store_fault(error)
        raise Refused(store_unavailable_status(error)) from None
    if isinstance(error, SealingError):
        _log.error("a watch: a sealed secret does not open: %s", error)
        raise Refused(refusal_for(error)) from None


async def abort_with(context: grpc.aio.ServicerContext, status: grpc.Status) -> NoReturn:
    """The native gRPC port's way to end a call with ``status`` (see server.grpc.handlers)."""
    await context.abort(status.code, status.details, status.trailing_metadata)
    raise AssertionError("unreachable: context.abort raises")


def error_info(error: grpc.RpcError) -> error_details_pb2.ErrorInfo | None:
    """Client side: the ErrorInfo of a failed call, if it carried one."""
    status = rpc_status.from_call(error)
    if status is None:
        return None
    for detail in status.details:
        if detail.Is(error_details_pb2.ErrorInfo.DESCRIPTOR):
            info = error_details_pb2.ErrorInfo()
            detail.Unpack(info)
            return info
    return None
