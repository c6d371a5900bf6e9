"""The latency meter in replies: a view, a heartbeat or an answer carries the round trip the replica
measured to its caller (:mod:`stud_service.server.latency`), as ``stud.v1.RoundTrip``."""

from __future__ import annotations

import functools

from stud_service.auth import Principal
from stud_service.server.api.call import Call
from stud_service.server.latency.meter import RoundTrip, RoundTripMeter
from stud_service.server.proto_gen import table_pb2

SOURCES = {"tcp": table_pb2.ROUND_TRIP_SOURCE_TCP, "heartbeat": table_pb2.ROUND_TRIP_SOURCE_HEARTBEAT}


@functools.lru_cache(maxsize=4096)
def round_trip_proto(measure: RoundTrip) -> table_pb2.RoundTrip:
    """``measure`` as a message, built once for every view that carries it (shared: copy it, never change
    it): a connection's measure changes at most once a second."""
    message = table_pb2.RoundTrip(source=SOURCES[measure.source])
    message.time.FromMicroseconds(measure.micros)
    message.measure_time.FromMilliseconds(measure.measured_ms)
    return message


def on_web_port(call: Call) -> bool:
    """Whether the call came through the web port (which measures by heartbeats) rather than gRPC's."""
    return bool(getattr(call, "web", False))


class CallerRoundTrips:
    """One caller's round trips at one table, for the replies of one call (or one watch)."""

    def __init__(self, meter: RoundTripMeter, table_id: str, principal: Principal, call: Call) -> None:
        self.meter = meter
        self.table_id = table_id
        self.principal = principal
        self.peer = call.peer() or ""
        self.web = on_web_port(call)

    def latest(self) -> table_pb2.RoundTrip | None:
        measure = self.meter.for_call(self.table_id, self.principal, self.peer, self.web)
        return round_trip_proto(measure) if measure is not None else None

    def ping(self) -> str:
        return self.meter.ping(self.table_id, self.principal)

    def stamp(self, view: table_pb2.TableView) -> None:
        """Put the latest measure in ``view`` (the caller's own copy, never a shared one)."""
        latest = self.latest()
        if latest is not None:
            view.round_trip.CopyFrom(latest)

    def stamped(self, shared: table_pb2.TableView) -> table_pb2.TableView:
        """A copy of the shared ``view`` with the latest measure in it."""
        view = table_pb2.TableView()
        view.CopyFrom(shared)
        self.stamp(view)
        return view
