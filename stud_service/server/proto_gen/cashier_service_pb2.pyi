from google.api import annotations_pb2 as _annotations_pb2
from google.api import field_behavior_pb2 as _field_behavior_pb2
from google.api import resource_pb2 as _resource_pb2
from . import account_pb2 as _account_pb2
from google.protobuf.internal import containers as _containers
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from collections.abc import Iterable as _Iterable, Mapping as _Mapping
from typing import ClassVar as _ClassVar, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor

class DepositRequest(_message.Message):
    __slots__ = ("account", "amount", "currency_code", "payment_reference", "request_id")
    ACCOUNT_FIELD_NUMBER: _ClassVar[int]
    AMOUNT_FIELD_NUMBER: _ClassVar[int]
    CURRENCY_CODE_FIELD_NUMBER: _ClassVar[int]
    PAYMENT_REFERENCE_FIELD_NUMBER: _ClassVar[int]
    REQUEST_ID_FIELD_NUMBER: _ClassVar[int]
    account: str
    amount: int
    currency_code: str
    payment_reference: str
    request_id: str
    def __init__(self, account: _Optional[str] = ..., amount: _Optional[int] = ..., currency_code: _Optional[str] = ..., payment_reference: _Optional[str] = ..., request_id: _Optional[str] = ...) -> None: ...

class DepositResponse(_message.Message):
    __slots__ = ("entry", "account")
    ENTRY_FIELD_NUMBER: _ClassVar[int]
    ACCOUNT_FIELD_NUMBER: _ClassVar[int]
    entry: _account_pb2.AccountEntry
    account: _account_pb2.Account
    def __init__(self, entry: _Optional[_Union[_account_pb2.AccountEntry, _Mapping]] = ..., account: _Optional[_Union[_account_pb2.Account, _Mapping]] = ...) -> None: ...

class WithdrawRequest(_message.Message):
    __slots__ = ("account", "amount", "currency_code", "payment_reference", "request_id")
    ACCOUNT_FIELD_NUMBER: _ClassVar[int]
    AMOUNT_FIELD_NUMBER: _ClassVar[int]
    CURRENCY_CODE_FIELD_NUMBER: _ClassVar[int]
    PAYMENT_REFERENCE_FIELD_NUMBER: _ClassVar[int]
    REQUEST_ID_FIELD_NUMBER: _ClassVar[int]
    account: str
    amount: int
    currency_code: str
    payment_reference: str
    request_id: str
    def __init__(self, account: _Optional[str] = ..., amount: _Optional[int] = ..., currency_code: _Optional[str] = ..., payment_reference: _Optional[str] = ..., request_id: _Optional[str] = ...) -> None: ...

class WithdrawResponse(_message.Message):
    __slots__ = ("entry", "account")
    ENTRY_FIELD_NUMBER: _ClassVar[int]
    ACCOUNT_FIELD_NUMBER: _ClassVar[int]
    entry: _account_pb2.AccountEntry
    account: _account_pb2.Account
    def __init__(self, entry: _Optional[_Union[_account_pb2.AccountEntry, _Mapping]] = ..., account: _Optional[_Union[_account_pb2.Account, _Mapping]] = ...) -> None: ...

class GetAccountRequest(_message.Message):
    __slots__ = ("name",)
    NAME_FIELD_NUMBER: _ClassVar[int]
    name: str
    def __init__(self, name: _Optional[str] = ...) -> None: ...

class ListAccountEntriesRequest(_message.Message):
    __slots__ = ("parent", "page_size", "page_token")
    PARENT_FIELD_NUMBER: _ClassVar[int]
    PAGE_SIZE_FIELD_NUMBER: _ClassVar[int]
    PAGE_TOKEN_FIELD_NUMBER: _ClassVar[int]
    parent: str
    page_size: int
    page_token: str
    def __init__(self, parent: _Optional[str] = ..., page_size: _Optional[int] = ..., page_token: _Optional[str] = ...) -> None: ...

class ListAccountEntriesResponse(_message.Message):
    __slots__ = ("entries", "next_page_token")
    ENTRIES_FIELD_NUMBER: _ClassVar[int]
    NEXT_PAGE_TOKEN_FIELD_NUMBER: _ClassVar[int]
    entries: _containers.RepeatedCompositeFieldContainer[_account_pb2.AccountEntry]
    next_page_token: str
    def __init__(self, entries: _Optional[_Iterable[_Union[_account_pb2.AccountEntry, _Mapping]]] = ..., next_page_token: _Optional[str] = ...) -> None: ...

class SuspendPlayerRequest(_message.Message):
    __slots__ = ("name", "reason")
    NAME_FIELD_NUMBER: _ClassVar[int]
    REASON_FIELD_NUMBER: _ClassVar[int]
    name: str
    reason: str
    def __init__(self, name: _Optional[str] = ..., reason: _Optional[str] = ...) -> None: ...

class SuspendPlayerResponse(_message.Message):
    __slots__ = ("standing", "tables")
    STANDING_FIELD_NUMBER: _ClassVar[int]
    TABLES_FIELD_NUMBER: _ClassVar[int]
    standing: _account_pb2.PlayerStanding
    tables: _containers.RepeatedScalarFieldContainer[str]
    def __init__(self, standing: _Optional[_Union[_account_pb2.PlayerStanding, _Mapping]] = ..., tables: _Optional[_Iterable[str]] = ...) -> None: ...

class ReinstatePlayerRequest(_message.Message):
    __slots__ = ("name",)
    NAME_FIELD_NUMBER: _ClassVar[int]
    name: str
    def __init__(self, name: _Optional[str] = ...) -> None: ...

class GetPlayerStandingRequest(_message.Message):
    __slots__ = ("name",)
    NAME_FIELD_NUMBER: _ClassVar[int]
    name: str
    def __init__(self, name: _Optional[str] = ...) -> None: ...
