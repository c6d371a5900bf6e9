"""The native gRPC port: the services on ``grpc.aio``, with health checking and reflection.

``app``         the server: binding (TLS when given), health, graceful shutdown, the waiting-call limit
``handlers``    method handlers built from the services' descriptors; a ``Refused`` becomes the call's status
``keepalive``   which client pings the server accepts, and how it notices dead connections
``reflection``  server reflection as ``grpc.reflection.v1`` and ``v1alpha``
``readiness``   the health service's readiness, following the store

The methods it serves are the application services' (:mod:`stud_service.server.api`), the same ones the web
port (:mod:`stud_service.server.web`) calls.
"""
