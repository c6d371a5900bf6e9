"""HTTP/2 keepalive: which client pings the server accepts, and how it notices dead connections itself.

grpc's server defaults suit nobody here: a client ping more often than every 5 minutes counts as a strike
(and without a call in flight, more often than every 2 hours), the third strike ends the connection with
GOAWAY ``too_many_pings``, and the server never pings, so a peer that vanished without closing its
socket (a suspended laptop, a dropped NAT entry) holds its watch streams forever.
"""

from __future__ import annotations

from dataclasses import dataclass

DEFAULT_MIN_CLIENT_PING_SECONDS = 10.0
DEFAULT_PING_SECONDS = 60.0
DEFAULT_PING_TIMEOUT_SECONDS = 20.0
# Pings sooner than the minimum a connection may send before it is closed (grpc's own default).
MAX_PING_STRIKES = 2
# A client pinging exactly at the allowed interval sees some pings arrive a little early (timers, the
# network), and a quiet connection forgives no strike: the server takes pings up to a tenth early.
ARRIVAL_SLACK = 0.9


@dataclass(frozen=True)
class KeepalivePolicy:
    # Clients may ping this often (or less), with or without calls in flight.
    min_client_ping_seconds: float = DEFAULT_MIN_CLIENT_PING_SECONDS
    # The server pings a connection that has been quiet this long ...
    ping_seconds: float = DEFAULT_PING_SECONDS
    # ... and closes it (cancelling its calls) if the ping is not answered within this.
    ping_timeout_seconds: float = DEFAULT_PING_TIMEOUT_SECONDS

    def __post_init__(self) -> None:
        for name in ("min_client_ping_seconds", "ping_seconds", "ping_timeout_seconds"):
            value = getattr(self, name)
            if not 0.001 <= value <= 86_400:
                raise ValueError(f"{name} must be between 0.001 and 86400 seconds, not {value}")

    def server_options(self) -> list[tuple[str, int]]:
        """The ``grpc.aio.server`` channel arguments for this policy."""
        return [
            ("grpc.keepalive_time_ms", _ms(self.ping_seconds)),
            ("grpc.keepalive_timeout_ms", _ms(self.ping_timeout_seconds)),
            # What grpc core (1.6x and later) waits for a ping's ack before closing the connection;
            # its default, a minute, would override the keepalive timeout above.
            ("grpc.http2.ping_timeout_ms", _ms(self.ping_timeout_seconds)),
            # The server pings idle connections too, and accepts client pings on them.
            ("grpc.keepalive_permit_without_calls", 1),
            # On the server this is the minimum interval between *received* pings while it sends no data.
            (
                "grpc.http2.min_ping_interval_without_data_ms",
                _ms(self.min_client_ping_seconds * ARRIVAL_SLACK),
            ),
            ("grpc.http2.max_ping_strikes", MAX_PING_STRIKES),
            # The server's own pings go out even while it has nothing else to send (a quiet watch).
            ("grpc.http2.max_pings_without_data", 0),
        ]


def _ms(seconds: float) -> int:
    return max(1, round(seconds * 1000))
