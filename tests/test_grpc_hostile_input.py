"""Hostile input gets a precise refusal, fast, and appends nothing: bytes that are no message, invalid
text, huge input, out-of-range timestamps, forged page tokens, a watch from beyond the head.

(Issue 13, point 4.)
"""

from __future__ import annotations

import logging

import grpc
import pytest

from stud_service.server.errors import error_info
from stud_service.server.proto_gen import audit_service_pb2, table_service_pb2

SERVICES = [
    table_service_pb2.DESCRIPTOR.services_by_name["TableService"],
    audit_service_pb2.DESCRIPTOR.services_by_name["AuditService"],
]
METHODS = [method for service in SERVICES for method in service.methods]


def not_messages(message) -> list[bytes]:
    """Bytes that are not a ``message``: a truncated varint, a field cut short, and each string field
    holding bytes that are not UTF-8."""
    invalid_text = [
        bytes([field.number << 3 | 2, 2]) + b"\xc3\x28"
        for field in message.fields
        if field.type == field.TYPE_STRING and field.number < 16
    ]
    return [b"\xff\xff\xff\xff", b"\x0a\x05ab", *invalid_text]


def raw_call(channel: grpc.aio.Channel, method) -> grpc.aio.UnaryUnaryMultiCallable:
    path = f"/{method.containing_service.full_name}/{method.name}"
    if method.server_streaming:
        return channel.unary_stream(path)
    return channel.unary_unary(path)


async def first_reply_or_error(call) -> grpc.aio.AioRpcError | None:
    try:
        if isinstance(call, grpc.aio.UnaryStreamCall):
            async for _reply in call:
                return None
            return None
        await call
    except grpc.aio.AioRpcError as error:
        return error
    return None


@pytest.mark.parametrize("method", METHODS, ids=lambda method: method.name)
async def test_bytes_that_are_no_message_are_malformed_request_with_at_most_a_log_line(
    both_services, method, caplog
) -> None:
    """Before auth, a request that does not parse is INVALID_ARGUMENT / MALFORMED_REQUEST, not UNKNOWN,
    and logs no traceback: at most one throttled line for any number of them."""
    with caplog.at_level(logging.INFO):
        for _ in range(10):
            for data in not_messages(method.input_type):
                error = await first_reply_or_error(raw_call(both_services, method)(data, timeout=5))
                assert error is not None and error.code() == grpc.StatusCode.INVALID_ARGUMENT, error
                info = error_info(error)
                assert info is not None and info.reason == "MALFORMED_REQUEST"
                assert method.input_type.full_name in error.details()
    assert not [record for record in caplog.records if record.levelno >= logging.ERROR]
    assert len([record for record in caplog.records if "does not parse" in record.getMessage()]) <= 1
