"""An HTTP request as a service method sees it: a :class:`stud_service.server.api.call.Call`."""

from __future__ import annotations

import time
from collections.abc import Iterable, Sequence


class WebCall:
    """The headers, deadline and peer of one HTTP request, and the web port's heartbeat interval."""

    __slots__ = ("_deadline", "_metadata", "_peer", "heartbeat_seconds")
    web = True  # the latency meter measures this port by its heartbeats (server.api.round_trips)
    transport = "web"  # player sessions tell the ports apart (server.api.sessions)

    def __init__(
        self,
        headers: Iterable[tuple[str, str]],
        timeout_seconds: float | None,
        client: tuple[str, int] | None,
        heartbeat_seconds: float | None,
    ) -> None:
        self._metadata = [(key.lower(), value) for key, value in headers]
        self._deadline = None if timeout_seconds is None else time.monotonic() + timeout_seconds
        self._peer = peer_name(client)
        self.heartbeat_seconds = heartbeat_seconds

    def invocation_metadata(self) -> Sequence[tuple[str, str]]:
        return self._metadata

    def time_remaining(self) -> float | None:
        return None if self._deadline is None else max(0.0, self._deadline - time.monotonic())

    def peer(self) -> str:
        return self._peer


def peer_name(client: tuple[str, int] | None) -> str:
    """The peer as gRPC names it, so the access log and the sessions read the same for both ports."""
    if client is None:
        return ""
    host, port = client
    return f"ipv6:[{host}]:{port}" if ":" in host else f"ipv4:{host}:{port}"
