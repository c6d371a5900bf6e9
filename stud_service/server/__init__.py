"""The service: protobuf <-> engine commands and views, auth, streaming, action clocks, on two transports.

Modules, from the wire inwards:

``proto_gen``   code generated from ``proto/stud/v1`` (``scripts/gen_protos.py``; a test checks it is current)
``app``         the ``grpc.aio`` server: TableService, health checking, reflection, TLS, graceful shutdown
``handlers``    the gRPC transport: method handlers from the descriptors, a ``Refused`` as the call's status
``web``         the web port: Connect, gRPC-Web, the JSON routes, CORS and the web table (hypercorn)
``call``        what a method knows of its call on either transport (metadata, deadline, peer)
``reflection``  server reflection as ``grpc.reflection.v1`` and ``v1alpha``
``host``        one service process wired together (database, event log, tables, gRPC, metrics)
``service``     ``stud.v1.TableService``: authenticate, map requests to engine commands, answer with views
``convert``     protobuf <-> engine: table configs in, tables and per-viewer table views out
``redact``      what one viewer may see of an event
``events_proto`` an event's JSON (as redacted for the viewer) as the typed ``TableEvent``
``replies``     reply parts built once per table version and shared (views per viewer, public events)
``runtime``     live tables on this replica: optimistic writes, the dealer, action clocks, watcher fan-out
``errors``      refusals as ``google.rpc.Status`` with ``google.rpc.ErrorInfo`` reasons (``Refused``)
``reasons``     the reasons a refusal may give: ``stud.v1.ErrorReason``, with each one's status code

Bearer tokens are checked with :mod:`stud_service.auth`; the deck is shuffled by :mod:`stud_service.shuffle`.
"""
