from google.protobuf import descriptor_pb2 as _descriptor_pb2
from google.rpc import code_pb2 as _code_pb2
from google.protobuf.internal import enum_type_wrapper as _enum_type_wrapper
from google.protobuf import descriptor as _descriptor
from typing import ClassVar as _ClassVar

DESCRIPTOR: _descriptor.FileDescriptor

class ErrorReason(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    ERROR_REASON_UNSPECIFIED: _ClassVar[ErrorReason]
    TOKEN_MISSING: _ClassVar[ErrorReason]
    TOKEN_INVALID: _ClassVar[ErrorReason]
    TOKEN_EXPIRED: _ClassVar[ErrorReason]
    OPERATOR_ONLY: _ClassVar[ErrorReason]
    AUDITOR_ONLY: _ClassVar[ErrorReason]
    AUDITOR_READ_ONLY: _ClassVar[ErrorReason]
    NOT_YOUR_SEAT: _ClassVar[ErrorReason]
    NOT_SEATED: _ClassVar[ErrorReason]
    NOT_YOUR_HAND: _ClassVar[ErrorReason]
    NO_TABLE: _ClassVar[ErrorReason]
    NO_HAND: _ClassVar[ErrorReason]
    MALFORMED_REQUEST: _ClassVar[ErrorReason]
    REQUEST_ID_REUSED: _ClassVar[ErrorReason]
    INVALID_CONFIG: _ClassVar[ErrorReason]
    ILLEGAL_AMOUNT: _ClassVar[ErrorReason]
    BUY_IN_OUT_OF_LIMITS: _ClassVar[ErrorReason]
    INVALID_SEAT: _ClassVar[ErrorReason]
    INVALID_DECK: _ClassVar[ErrorReason]
    STALE_TURN: _ClassVar[ErrorReason]
    NOT_YOUR_TURN: _ClassVar[ErrorReason]
    ACTION_NOT_AVAILABLE: _ClassVar[ErrorReason]
    TABLE_FULL: _ClassVar[ErrorReason]
    SEAT_TAKEN: _ClassVar[ErrorReason]
    HAND_NOT_RUNNING: _ClassVar[ErrorReason]
    HAND_RUNNING: _ClassVar[ErrorReason]
    TIMEOUT_NOT_DUE: _ClassVar[ErrorReason]
    NOT_ENOUGH_PLAYERS: _ClassVar[ErrorReason]
    SEAT_OFFERED: _ClassVar[ErrorReason]
    TABLE_NOT_FULL: _ClassVar[ErrorReason]
    WAITING_LIST_FULL: _ClassVar[ErrorReason]
    NOT_WAITING: _ClassVar[ErrorReason]
    OFFER_NOT_DUE: _ClassVar[ErrorReason]
    TABLE_EXISTS: _ClassVar[ErrorReason]
    ALREADY_SEATED: _ClassVar[ErrorReason]
    ALREADY_WAITING: _ClassVar[ErrorReason]
    VERSION_OUT_OF_RANGE: _ClassVar[ErrorReason]
    CONFLICT: _ClassVar[ErrorReason]
    STORE_UNAVAILABLE: _ClassVar[ErrorReason]
    INTERNAL: _ClassVar[ErrorReason]
ERROR_REASON_UNSPECIFIED: ErrorReason
TOKEN_MISSING: ErrorReason
TOKEN_INVALID: ErrorReason
TOKEN_EXPIRED: ErrorReason
OPERATOR_ONLY: ErrorReason
AUDITOR_ONLY: ErrorReason
AUDITOR_READ_ONLY: ErrorReason
NOT_YOUR_SEAT: ErrorReason
NOT_SEATED: ErrorReason
NOT_YOUR_HAND: ErrorReason
NO_TABLE: ErrorReason
NO_HAND: ErrorReason
MALFORMED_REQUEST: ErrorReason
REQUEST_ID_REUSED: ErrorReason
INVALID_CONFIG: ErrorReason
ILLEGAL_AMOUNT: ErrorReason
BUY_IN_OUT_OF_LIMITS: ErrorReason
INVALID_SEAT: ErrorReason
INVALID_DECK: ErrorReason
STALE_TURN: ErrorReason
NOT_YOUR_TURN: ErrorReason
ACTION_NOT_AVAILABLE: ErrorReason
TABLE_FULL: ErrorReason
SEAT_TAKEN: ErrorReason
HAND_NOT_RUNNING: ErrorReason
HAND_RUNNING: ErrorReason
TIMEOUT_NOT_DUE: ErrorReason
NOT_ENOUGH_PLAYERS: ErrorReason
SEAT_OFFERED: ErrorReason
TABLE_NOT_FULL: ErrorReason
WAITING_LIST_FULL: ErrorReason
NOT_WAITING: ErrorReason
OFFER_NOT_DUE: ErrorReason
TABLE_EXISTS: ErrorReason
ALREADY_SEATED: ErrorReason
ALREADY_WAITING: ErrorReason
VERSION_OUT_OF_RANGE: ErrorReason
CONFLICT: ErrorReason
STORE_UNAVAILABLE: ErrorReason
INTERNAL: ErrorReason
GRPC_CODE_FIELD_NUMBER: _ClassVar[int]
grpc_code: _descriptor.FieldDescriptor
