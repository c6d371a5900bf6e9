"""Why an audit request is refused.

::

    AuditError
    ├── HandNotFound        NOT_FOUND            the table or hand does not exist
    ├── HandStillRunning    FAILED_PRECONDITION  a running hand is neither exported nor revealed
    └── NotYourHand         PERMISSION_DENIED    a player asked for a hand they were not dealt into

Each carries ``reason`` (for ErrorInfo) and ``grpc_code_name``, as the engine's errors do.
"""

from __future__ import annotations


class AuditError(Exception):
    reason = "AUDIT_ERROR"
    grpc_code_name = "FAILED_PRECONDITION"

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message


class HandNotFound(AuditError):
    reason = "NO_HAND"
    grpc_code_name = "NOT_FOUND"


class HandStillRunning(AuditError):
    reason = "HAND_RUNNING"
    grpc_code_name = "FAILED_PRECONDITION"


class NotYourHand(AuditError):
    reason = "NOT_YOUR_HAND"
    grpc_code_name = "PERMISSION_DENIED"
