"""The web port's limits on a request, and the refusals that say one was passed."""

from __future__ import annotations

import grpc
from google.rpc import status_pb2

from stud_service.server.api.errors import rich_refusal

# As the gRPC port's default largest message.
MAX_REQUEST_BYTES = 4 * 1024 * 1024


def request_too_large(message: str, limit: int = MAX_REQUEST_BYTES) -> status_pb2.Status:
    return rich_refusal(grpc.StatusCode.RESOURCE_EXHAUSTED, "REQUEST_TOO_LARGE", message,
                        {"limit": str(limit)})


def request_timeout(message: str) -> status_pb2.Status:
    """A request that did not arrive in time (answered with HTTP 408 where the protocol has a status)."""
    return rich_refusal(grpc.StatusCode.DEADLINE_EXCEEDED, "REQUEST_TIMEOUT", message)
