"""The ``grpc.aio`` server: our TableService plus standard health checking and reflection.

Lifecycle: :func:`start_server` binds (TLS when a certificate and key are given) and starts;
:meth:`RunningServer.shutdown` is the graceful stop used on SIGTERM: health reports NOT_SERVING,
no new calls are accepted, watch streams are told to end, and in-flight calls get ``grace`` seconds
to finish before they are cancelled.
"""

from __future__ import annotations

import asyncio
import logging
import signal
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import grpc
from grpc_health.v1 import health, health_pb2, health_pb2_grpc

from stud_service.server.grpc.handlers import MalformedCounter, add_generated, add_service
from stud_service.server.grpc.keepalive import KeepalivePolicy
from stud_service.server.grpc.readiness import LIVENESS_SERVICE
from stud_service.server.grpc.reflection import enable_reflection
from stud_service.server.proto_gen import (
    audit_service_pb2,
    cashier_service_pb2,
    table_service_pb2,
)

_log = logging.getLogger(__name__)

TABLE_SERVICE_NAME = table_service_pb2.DESCRIPTOR.services_by_name["TableService"].full_name
AUDIT_SERVICE_NAME = audit_service_pb2.DESCRIPTOR.services_by_name["AuditService"].full_name
CASHIER_SERVICE_NAME = cashier_service_pb2.DESCRIPTOR.services_by_name["CashierService"].full_name
DEFAULT_LISTEN = "127.0.0.1:50051"
DEFAULT_GRACE_SECONDS = 5.0
# Calls the server has received but not yet started, the most it keeps waiting (see waiting_call_options).
DEFAULT_MAX_WAITING_CALLS = 10_000
# Past the limit gRPC refuses new calls at random, the more the longer the queue; past this many times
# it, every one (gRPC's own shape: 1,000 and 3,000).
WAITING_CALLS_HARD_FACTOR = 3


@dataclass(frozen=True)
class TlsFiles:
    cert_file: Path
    key_file: Path

    def credentials(self) -> grpc.ServerCredentials:
        return grpc.ssl_server_credentials([(self.key_file.read_bytes(), self.cert_file.read_bytes())])


@dataclass
class RunningServer:
    """A started server and what is needed to stop it well."""

    server: grpc.aio.Server
    health: health.aio.HealthServicer
    port: int
    tls: bool
    # Health names whose status is readiness ("" and the API services); "liveness" is not among them.
    readiness_services: tuple[str, ...] = ()
    # Called first on shutdown, e.g. to end watch streams and stop background loops.
    on_shutdown: list[Callable[[], Awaitable[None]]] = field(default_factory=list)
    _stopped: bool = False

    async def shutdown(self, grace: float = DEFAULT_GRACE_SECONDS) -> None:
        if self._stopped:
            return
        self._stopped = True
        await self.health.enter_graceful_shutdown()  # every service reports NOT_SERVING from now on
        for hook in self.on_shutdown:
            await hook()
        await self.server.stop(grace)

    async def wait_for_termination(self) -> None:
        await self.server.wait_for_termination()


def waiting_call_options(max_waiting_calls: int) -> list[tuple[str, int]]:
    """The server arguments for how many received calls may wait to be started.

    The asyncio server starts a method's calls one at a time, each once the previous one has reached
    the event loop, so a burst of calls (clients reconnecting after a restart or a failover, each
    reopening its watch streams) waits in gRPC's core. gRPC's default keeps 1,000 there and refuses a
    growing share of the rest, as CANCELLED: of 3,000 watch streams opened at once, a fifth to a quarter
    were lost. A waiting call costs little, and one waiting longer than gRPC's own limit (30 s) is
    dropped anyway."""
    if max_waiting_calls < 1:
        raise ValueError("max_waiting_calls must be at least 1")
    return [
        ("grpc.server.max_pending_requests", max_waiting_calls),
        ("grpc.server.max_pending_requests_hard_limit", max_waiting_calls * WAITING_CALLS_HARD_FACTOR),
    ]


async def start_server(
    table_service: object,
    listen: str = DEFAULT_LISTEN,
    tls: TlsFiles | None = None,
    audit_service: object | None = None,
    keepalive: KeepalivePolicy | None = None,
    cashier_service: object | None = None,
    interceptors: tuple[object, ...] = (),
    max_waiting_calls: int = DEFAULT_MAX_WAITING_CALLS,
    malformed_requests: MalformedCounter | None = None,
    more_services: tuple[Any, ...] = (),
) -> RunningServer:
    """Register the services, bind ``listen`` ("host:port"; port 0 picks a free one) and start.
    ``interceptors``: ``grpc.aio`` server interceptors (tracing's). ``max_waiting_calls``: see
    :func:`waiting_call_options`. ``malformed_requests`` counts, by method, the requests of any service
    (health and reflection too) that do not parse (server.grpc.handlers). ``more_services``: other servicers
    (PlayerProtectionService), each with its DESCRIPTOR and SERVICE_NAME."""
    keepalive_options = (keepalive or KeepalivePolicy()).server_options()
    server = grpc.aio.server(
        interceptors=list(interceptors) or None,  # type: ignore[arg-type]
        options=[("grpc.so_reuseport", 0), *keepalive_options, *waiting_call_options(max_waiting_calls)],
    )
    # Our own handlers for every service (server.grpc.handlers): a request that does not parse is refused, not
    # UNKNOWN, and counted.
    count = malformed_requests
    add_service(server, table_service, table_service_pb2.DESCRIPTOR.services_by_name["TableService"], count)
    services = [TABLE_SERVICE_NAME]
    if audit_service is not None:
        audit = audit_service_pb2.DESCRIPTOR.services_by_name["AuditService"]
        add_service(server, audit_service, audit, count)
        services.append(AUDIT_SERVICE_NAME)
    if cashier_service is not None:
        cashier = cashier_service_pb2.DESCRIPTOR.services_by_name["CashierService"]
        add_service(server, cashier_service, cashier, count)
        services.append(CASHIER_SERVICE_NAME)
    for servicer in more_services:  # each names itself: DESCRIPTOR and SERVICE_NAME
        add_service(server, servicer, servicer.DESCRIPTOR, count)
        services.append(servicer.SERVICE_NAME)
    health_servicer = health.aio.HealthServicer()
    add_generated(server, health_pb2_grpc.add_HealthServicer_to_server, health_servicer, count)
    enable_reflection((*services, health.SERVICE_NAME), server, count)  # v1 and v1alpha
    port = server.add_secure_port(listen, tls.credentials()) if tls else server.add_insecure_port(listen)
    if port == 0:
        raise OSError(f"cannot listen on {listen}")
    await server.start()
    for service in ("", *services, LIVENESS_SERVICE):
        await health_servicer.set(service, health_pb2.HealthCheckResponse.SERVING)
    _log.info("serving on port %d (%s)", port, "TLS" if tls else "plaintext")
    return RunningServer(
        server=server,
        health=health_servicer,
        port=port,
        tls=tls is not None,
        readiness_services=("", *services),
    )


async def serve_until_signalled(running: RunningServer, grace: float = DEFAULT_GRACE_SECONDS) -> None:
    """Run until SIGTERM or SIGINT, then shut down gracefully."""
    loop = asyncio.get_running_loop()
    stop = asyncio.Event()
    for signum in (signal.SIGTERM, signal.SIGINT):
        loop.add_signal_handler(signum, stop.set)
    try:
        await stop.wait()
        _log.info("signal received: shutting down (grace %.1fs)", grace)
        await running.shutdown(grace)
    finally:
        for signum in (signal.SIGTERM, signal.SIGINT):
            loop.remove_signal_handler(signum)
