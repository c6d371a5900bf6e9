"""What a service method knows of the call it serves, whatever the transport.

The application services (TableService, AuditService, CashierService) take ``(request, call)``. The native
gRPC port hands them its ``grpc.aio.ServicerContext``, which has these methods; the web port
(:mod:`stud_service.server.web`) hands them a :class:`~stud_service.server.web.connect.WebCall` built from
the HTTP request. A refusal leaves a method as :class:`stud_service.server.api.errors.Refused`, which each
transport writes in its own wire form; no method aborts a call itself.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol


class Call(Protocol):
    def invocation_metadata(self) -> Sequence[tuple[str, str | bytes]] | None:
        """The request's metadata (HTTP headers on the web port), names in lower case."""

    def time_remaining(self) -> float | None:
        """Seconds left before the caller's deadline; None when it set none."""

    def peer(self) -> str:
        """Who is calling, as the transport names it (e.g. ``ipv4:10.0.0.7:51234``)."""


def heartbeat_seconds(call: Call) -> float | None:
    """How long a watch on this call may stay silent before it sends a heartbeat: the web port sets it
    (proxies in front of HTTP/1.1 drop idle streams); native gRPC keeps streams alive with HTTP/2 pings."""
    return getattr(call, "heartbeat_seconds", None)
