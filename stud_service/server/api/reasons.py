"""The reasons a refusal may give: the values of ``stud.v1.ErrorReason`` (proto/stud/v1/errors.proto).

The enum is the one list: each value's name is an ``ErrorInfo.reason`` and its ``grpc_code`` option the
status code sent with it. :func:`stud_service.server.api.errors.rich_status` refuses to build a status whose
reason or code disagrees with it, so a new reason is documented in the proto before it can be sent.
"""

from __future__ import annotations

import grpc

from stud_service.server.proto_gen import errors_pb2

UNSPECIFIED = "ERROR_REASON_UNSPECIFIED"
_CODES_BY_NUMBER = {code.value[0]: code for code in grpc.StatusCode}


def _code_option(reason: str) -> grpc.StatusCode:
    options = errors_pb2.ErrorReason.DESCRIPTOR.values_by_name[reason].GetOptions()
    return _CODES_BY_NUMBER[options.Extensions[errors_pb2.grpc_code]]


# Every reason the service may send, with its status code.
CODES: dict[str, grpc.StatusCode] = {
    value.name: _code_option(value.name)
    for value in errors_pb2.ErrorReason.DESCRIPTOR.values if value.name != UNSPECIFIED
}
REASONS: frozenset[str] = frozenset(CODES)


def code_of(reason: str) -> grpc.StatusCode:
    """The status code sent with ``reason``; KeyError for a reason the enum does not have."""
    return CODES[reason]


def check(code: grpc.StatusCode, reason: str) -> None:
    """Raise ValueError unless ``reason`` is an ErrorReason sent with ``code``: a bug, never the caller's."""
    expected = CODES.get(reason)
    if expected is None:
        raise ValueError(f"{reason!r} is not a stud.v1.ErrorReason: add it to proto/stud/v1/errors.proto")
    if expected is not code:
        raise ValueError(f"{reason} is sent with {expected.name}, not {code.name} (stud/v1/errors.proto)")
