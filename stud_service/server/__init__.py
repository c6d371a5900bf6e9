"""The gRPC service: protobuf <-> engine commands and views, auth, streaming, action clocks.

Modules:

``proto_gen``   code generated from ``proto/stud/v1`` (``scripts/gen_protos.py``; a test checks it is current)
``errors``      domain and request errors -> gRPC status with ``google.rpc.ErrorInfo`` details
``app``         building, starting and gracefully stopping the ``grpc.aio`` server
"""
