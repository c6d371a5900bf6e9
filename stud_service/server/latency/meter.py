"""What one replica knows of its clients' round trips: the kernel's on the gRPC port, the answered
heartbeats' on the web port.

A watch's heartbeat carries a ping (an unguessable token) that the client sends back at once with
``AnswerHeartbeat``; the round trip is from the heartbeat's sending to the answer's arrival, on this
replica's monotonic clock.  A ping is the caller's and the table's: an answer from anyone else, for another
table, a second time or after ``PING_LIFETIME_SECONDS`` finds nothing.  The measure is then the caller's at
that table on this replica, and every view it gets of the table here carries it.
"""

from __future__ import annotations

import secrets
import time
from collections import OrderedDict
from dataclasses import dataclass
from typing import Literal

from stud_service.auth import Principal
from stud_service.server.latency.tcp import TcpRoundTrips

PING_LIFETIME_SECONDS = 60.0
# Pings and measures kept at once: each watch has at most one ping out per heartbeat interval; a replica
# with more watchers than this forgets the oldest first (their meters pause until the next heartbeat).
MAX_PINGS = 100_000
MAX_MEASURES = 100_000

Source = Literal["tcp", "heartbeat"]


@dataclass(frozen=True, slots=True)
class RoundTrip:
    """One measure: how long the round trip took (µs), how, and when (ms since the epoch)."""

    micros: int
    source: Source
    measured_ms: int


@dataclass(frozen=True, slots=True)
class _Ping:
    sent: float  # time.monotonic()
    table_id: str
    caller: tuple[str, str]


class PingNotFound(Exception):
    """An answer to a ping this replica did not send the caller for this table, or no longer waits for."""


def _caller(principal: Principal) -> tuple[str, str]:
    return principal.role.value, principal.player_id


class RoundTripMeter:
    """The round trips this replica measured, by caller and table, and the pings it waits answers for."""

    def __init__(self, tcp: TcpRoundTrips | None = None) -> None:
        self.tcp = tcp or TcpRoundTrips()
        self._pings: OrderedDict[str, _Ping] = OrderedDict()
        self._heard: OrderedDict[tuple[str, tuple[str, str]], RoundTrip] = OrderedDict()
        self._tcp: dict[str, RoundTrip] = {}  # each peer's last kernel measure, one object while it holds

    def ping(self, table_id: str, principal: Principal) -> str:
        """A new ping for a heartbeat to ``principal`` about ``table_id``, its clock started now."""
        self._forget_old_pings()
        token = secrets.token_urlsafe(18)
        self._pings[token] = _Ping(time.monotonic(), table_id, _caller(principal))
        if len(self._pings) > MAX_PINGS:
            self._pings.popitem(last=False)
        return token

    def answer(self, table_id: str, principal: Principal, token: str) -> RoundTrip:
        """The round trip ``token``'s answer completes; PingNotFound when it is not one waited for."""
        ping = self._pings.get(token)
        if ping is None or ping.table_id != table_id or ping.caller != _caller(principal):
            raise PingNotFound("not a heartbeat this server sent you for this table, or answered already")
        del self._pings[token]
        elapsed = time.monotonic() - ping.sent
        if elapsed > PING_LIFETIME_SECONDS:
            raise PingNotFound(f"the heartbeat is older than {PING_LIFETIME_SECONDS:.0f} s")
        measure = RoundTrip(round(elapsed * 1_000_000), "heartbeat", int(time.time() * 1000))
        key = (table_id, _caller(principal))
        self._heard.pop(key, None)
        self._heard[key] = measure
        if len(self._heard) > MAX_MEASURES:
            self._heard.popitem(last=False)
        return measure

    def heard(self, table_id: str, principal: Principal) -> RoundTrip | None:
        """The caller's last answered heartbeat at ``table_id`` on this replica, if any."""
        return self._heard.get((table_id, _caller(principal)))

    def for_call(self, table_id: str, principal: Principal, peer: str, web: bool) -> RoundTrip | None:
        """The measure a view for this call carries: on the web port (``web``) the caller's answered
        heartbeats, on the gRPC port the kernel's measure of the call's connection; each port falls back on
        the other's when it has none (a gRPC client answering heartbeats through a proxy, a web client
        before its first answer)."""
        heard = self.heard(table_id, principal)
        if web and heard is not None:
            return heard
        micros = self.tcp.round_trip_us(peer) if peer else None
        if micros is not None:  # the kernel's measure as of the connections' dump it is read from
            measure = self._tcp.get(peer)
            if measure is None or measure.micros != micros or measure.measured_ms != self.tcp.taken_ms:
                if len(self._tcp) >= MAX_MEASURES:
                    self._tcp.clear()
                measure = self._tcp[peer] = RoundTrip(micros, "tcp", self.tcp.taken_ms)
            return measure
        return heard

    def _forget_old_pings(self) -> None:
        limit = time.monotonic() - PING_LIFETIME_SECONDS
        while self._pings:
            token, ping = next(iter(self._pings.items()))
            if ping.sent >= limit:
                return
            del self._pings[token]
