import datetime

from google.api import field_behavior_pb2 as _field_behavior_pb2
from google.api import resource_pb2 as _resource_pb2
from google.protobuf import timestamp_pb2 as _timestamp_pb2
from google.protobuf.internal import containers as _containers
from google.protobuf.internal import enum_type_wrapper as _enum_type_wrapper
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from collections.abc import Iterable as _Iterable, Mapping as _Mapping
from typing import ClassVar as _ClassVar, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor

class AccountEntryKind(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    ACCOUNT_ENTRY_KIND_UNSPECIFIED: _ClassVar[AccountEntryKind]
    ACCOUNT_ENTRY_KIND_DEPOSIT: _ClassVar[AccountEntryKind]
    ACCOUNT_ENTRY_KIND_WITHDRAWAL: _ClassVar[AccountEntryKind]
    ACCOUNT_ENTRY_KIND_BUY_IN: _ClassVar[AccountEntryKind]
    ACCOUNT_ENTRY_KIND_TOP_UP: _ClassVar[AccountEntryKind]
    ACCOUNT_ENTRY_KIND_CASH_OUT: _ClassVar[AccountEntryKind]
    ACCOUNT_ENTRY_KIND_RAKE: _ClassVar[AccountEntryKind]
    ACCOUNT_ENTRY_KIND_TOURNAMENT_ENTRY: _ClassVar[AccountEntryKind]
    ACCOUNT_ENTRY_KIND_TOURNAMENT_REFUND: _ClassVar[AccountEntryKind]
    ACCOUNT_ENTRY_KIND_TOURNAMENT_PRIZE: _ClassVar[AccountEntryKind]
ACCOUNT_ENTRY_KIND_UNSPECIFIED: AccountEntryKind
ACCOUNT_ENTRY_KIND_DEPOSIT: AccountEntryKind
ACCOUNT_ENTRY_KIND_WITHDRAWAL: AccountEntryKind
ACCOUNT_ENTRY_KIND_BUY_IN: AccountEntryKind
ACCOUNT_ENTRY_KIND_TOP_UP: AccountEntryKind
ACCOUNT_ENTRY_KIND_CASH_OUT: AccountEntryKind
ACCOUNT_ENTRY_KIND_RAKE: AccountEntryKind
ACCOUNT_ENTRY_KIND_TOURNAMENT_ENTRY: AccountEntryKind
ACCOUNT_ENTRY_KIND_TOURNAMENT_REFUND: AccountEntryKind
ACCOUNT_ENTRY_KIND_TOURNAMENT_PRIZE: AccountEntryKind

class Account(_message.Message):
    __slots__ = ("name", "player_id", "currency_code", "balance", "version", "at_tables", "create_time")
    NAME_FIELD_NUMBER: _ClassVar[int]
    PLAYER_ID_FIELD_NUMBER: _ClassVar[int]
    CURRENCY_CODE_FIELD_NUMBER: _ClassVar[int]
    BALANCE_FIELD_NUMBER: _ClassVar[int]
    VERSION_FIELD_NUMBER: _ClassVar[int]
    AT_TABLES_FIELD_NUMBER: _ClassVar[int]
    CREATE_TIME_FIELD_NUMBER: _ClassVar[int]
    name: str
    player_id: str
    currency_code: str
    balance: int
    version: int
    at_tables: _containers.RepeatedCompositeFieldContainer[TableStake]
    create_time: _timestamp_pb2.Timestamp
    def __init__(self, name: _Optional[str] = ..., player_id: _Optional[str] = ..., currency_code: _Optional[str] = ..., balance: _Optional[int] = ..., version: _Optional[int] = ..., at_tables: _Optional[_Iterable[_Union[TableStake, _Mapping]]] = ..., create_time: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ...) -> None: ...

class TableStake(_message.Message):
    __slots__ = ("table", "amount")
    TABLE_FIELD_NUMBER: _ClassVar[int]
    AMOUNT_FIELD_NUMBER: _ClassVar[int]
    table: str
    amount: int
    def __init__(self, table: _Optional[str] = ..., amount: _Optional[int] = ...) -> None: ...

class AccountEntry(_message.Message):
    __slots__ = ("account", "version", "kind", "amount", "balance", "payment_reference", "table", "table_version", "first_hand", "last_hand", "create_time", "description", "tournament", "tournament_version")
    ACCOUNT_FIELD_NUMBER: _ClassVar[int]
    VERSION_FIELD_NUMBER: _ClassVar[int]
    KIND_FIELD_NUMBER: _ClassVar[int]
    AMOUNT_FIELD_NUMBER: _ClassVar[int]
    BALANCE_FIELD_NUMBER: _ClassVar[int]
    PAYMENT_REFERENCE_FIELD_NUMBER: _ClassVar[int]
    TABLE_FIELD_NUMBER: _ClassVar[int]
    TABLE_VERSION_FIELD_NUMBER: _ClassVar[int]
    FIRST_HAND_FIELD_NUMBER: _ClassVar[int]
    LAST_HAND_FIELD_NUMBER: _ClassVar[int]
    CREATE_TIME_FIELD_NUMBER: _ClassVar[int]
    DESCRIPTION_FIELD_NUMBER: _ClassVar[int]
    TOURNAMENT_FIELD_NUMBER: _ClassVar[int]
    TOURNAMENT_VERSION_FIELD_NUMBER: _ClassVar[int]
    account: str
    version: int
    kind: AccountEntryKind
    amount: int
    balance: int
    payment_reference: str
    table: str
    table_version: int
    first_hand: int
    last_hand: int
    create_time: _timestamp_pb2.Timestamp
    description: str
    tournament: str
    tournament_version: int
    def __init__(self, account: _Optional[str] = ..., version: _Optional[int] = ..., kind: _Optional[_Union[AccountEntryKind, str]] = ..., amount: _Optional[int] = ..., balance: _Optional[int] = ..., payment_reference: _Optional[str] = ..., table: _Optional[str] = ..., table_version: _Optional[int] = ..., first_hand: _Optional[int] = ..., last_hand: _Optional[int] = ..., create_time: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ..., description: _Optional[str] = ..., tournament: _Optional[str] = ..., tournament_version: _Optional[int] = ...) -> None: ...

class PlayerStanding(_message.Message):
    __slots__ = ("name", "suspended", "reason", "update_time")
    NAME_FIELD_NUMBER: _ClassVar[int]
    SUSPENDED_FIELD_NUMBER: _ClassVar[int]
    REASON_FIELD_NUMBER: _ClassVar[int]
    UPDATE_TIME_FIELD_NUMBER: _ClassVar[int]
    name: str
    suspended: bool
    reason: str
    update_time: _timestamp_pb2.Timestamp
    def __init__(self, name: _Optional[str] = ..., suspended: _Optional[bool] = ..., reason: _Optional[str] = ..., update_time: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ...) -> None: ...
