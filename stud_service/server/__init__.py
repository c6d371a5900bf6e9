"""The service: the ``stud.v1`` API over the engine and the event log, on two ports, for one replica.

The package is cut by role, from the wire inwards: the ports hand calls to the services, the services
use the tables, and the host wires them together. The services and the tables import no port, the ports
no table (tests/test_import_layers.py checks it, and which few pieces of the services the tables use).

**The ports** take calls off the wire and hand them to the application services; they know the
transport, not the game. :mod:`.grpc` is the native port (``grpc.aio``: handlers built from the
services' descriptors, health checking, reflection, keepalive, readiness that follows the store).
:mod:`.web` serves the very same methods as Connect, gRPC-Web and JSON routes over HTTP/1.1 and HTTP/2,
with CORS and the web table's files (hypercorn). A refusal leaves a method as one ``Refused`` status and
each port writes it in its own wire form: of the services' folder the ports import only that refusal
vocabulary; the servicers themselves reach them from the host.

**The application services** (:mod:`.api`) say what each method does: TableService, AuditService and
CashierService authenticate the caller, check the request (resource names, request ids, page tokens),
record privileged calls, turn requests into engine commands and answer with what the caller may see.
What they share sits beside them: the refusal vocabulary (``errors`` and ``reasons``: a canonical code
and a ``stud.v1.ErrorReason`` for every refusal), and the conversions between the engine's values and
the protobuf messages, redacted per viewer and built once per table version where every caller sees
the same.

**The tables** (:mod:`.tables`) are the live tables of this replica: each table's state folded from
the log and followed as other replicas write, the optimistic write path, the dealer, the action clocks
and seat offers, the fan-out to watch streams, and which replica owns which table (leases in
PostgreSQL, following where the clients are). It raises the API's refusals (a stale turn, a reused
request id) and keeps each table's shared reply parts, so it imports those few pieces of :mod:`.api`;
nothing else of it.

**The tournaments** (:mod:`.tournaments`) are the tournaments of this replica: each one's stream folded
and followed, its commands written with the money they move, the lobby and the watches. The services reach
them as ``TableRuntime.tournaments``; they build on the tables' generic pieces (following a stream, the
watchers' queues, the background tasks) and, of :mod:`.api`, import what the tables do.

**The latency meter** (:mod:`.latency`) is this replica's measure of the round trip to each caller, which
every view carries: the kernel's for a gRPC client's TCP connection, the answered heartbeats' for the web
port. The services use it; it imports none of them.

At the top, :mod:`.host` wires one process together (database, event log, tables, both ports,
metrics) for ``stud-service serve`` and ``demo``, and :mod:`.collector` tunes the garbage collector for
a long-running server. :mod:`.proto_gen` is generated from ``proto/stud/v1`` (``scripts/gen_protos.py``;
a test checks it is current).

Bearer tokens are checked with :mod:`stud_service.auth`; the deck is shuffled by
:mod:`stud_service.shuffle`.
"""
