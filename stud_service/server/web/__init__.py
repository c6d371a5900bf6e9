"""The web port: the same services to browsers and plain HTTP clients, beside the native gRPC port.

One ASGI application (:mod:`.app`) served by hypercorn (:mod:`.server`), HTTP/1.1 and HTTP/2 on one port:

``connect``  Connect protocol and gRPC-Web at ``/{package.Service}/{Method}`` (the ``connectrpc`` package)
``routes``   the JSON routes the protos declare with ``google.api.http`` (``GET /v1/tables`` ...)
``cors``     CORS for the configured origins
``static``   the web table's files at ``/``
``call``     the HTTP request as the services see it (a :class:`stud_service.server.api.call.Call`)

The services' methods are the very ones the gRPC port calls; only the wire differs.
"""
