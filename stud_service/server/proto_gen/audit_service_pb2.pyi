import datetime

from google.api import annotations_pb2 as _annotations_pb2
from google.api import field_behavior_pb2 as _field_behavior_pb2
from google.api import resource_pb2 as _resource_pb2
from google.protobuf import timestamp_pb2 as _timestamp_pb2
from . import audit_pb2 as _audit_pb2
from google.protobuf.internal import containers as _containers
from google.protobuf.internal import enum_type_wrapper as _enum_type_wrapper
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from collections.abc import Iterable as _Iterable, Mapping as _Mapping
from typing import ClassVar as _ClassVar, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor

class ReplayView(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    REPLAY_VIEW_UNSPECIFIED: _ClassVar[ReplayView]
    REPLAY_VIEW_FULL: _ClassVar[ReplayView]
    REPLAY_VIEW_PUBLIC: _ClassVar[ReplayView]
    REPLAY_VIEW_PLAYER: _ClassVar[ReplayView]

class HistoryFormat(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    HISTORY_FORMAT_UNSPECIFIED: _ClassVar[HistoryFormat]
    HISTORY_FORMAT_PHH: _ClassVar[HistoryFormat]
    HISTORY_FORMAT_POKERSTARS: _ClassVar[HistoryFormat]

class MoneyReconciliationView(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    MONEY_RECONCILIATION_VIEW_UNSPECIFIED: _ClassVar[MoneyReconciliationView]
    MONEY_RECONCILIATION_VIEW_BASIC: _ClassVar[MoneyReconciliationView]
    MONEY_RECONCILIATION_VIEW_FULL: _ClassVar[MoneyReconciliationView]
REPLAY_VIEW_UNSPECIFIED: ReplayView
REPLAY_VIEW_FULL: ReplayView
REPLAY_VIEW_PUBLIC: ReplayView
REPLAY_VIEW_PLAYER: ReplayView
HISTORY_FORMAT_UNSPECIFIED: HistoryFormat
HISTORY_FORMAT_PHH: HistoryFormat
HISTORY_FORMAT_POKERSTARS: HistoryFormat
MONEY_RECONCILIATION_VIEW_UNSPECIFIED: MoneyReconciliationView
MONEY_RECONCILIATION_VIEW_BASIC: MoneyReconciliationView
MONEY_RECONCILIATION_VIEW_FULL: MoneyReconciliationView

class ListHandsRequest(_message.Message):
    __slots__ = ("parent", "player_id", "start_time", "end_time", "page_size", "page_token")
    PARENT_FIELD_NUMBER: _ClassVar[int]
    PLAYER_ID_FIELD_NUMBER: _ClassVar[int]
    START_TIME_FIELD_NUMBER: _ClassVar[int]
    END_TIME_FIELD_NUMBER: _ClassVar[int]
    PAGE_SIZE_FIELD_NUMBER: _ClassVar[int]
    PAGE_TOKEN_FIELD_NUMBER: _ClassVar[int]
    parent: str
    player_id: str
    start_time: _timestamp_pb2.Timestamp
    end_time: _timestamp_pb2.Timestamp
    page_size: int
    page_token: str
    def __init__(self, parent: _Optional[str] = ..., player_id: _Optional[str] = ..., start_time: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ..., end_time: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ..., page_size: _Optional[int] = ..., page_token: _Optional[str] = ...) -> None: ...

class ListHandsResponse(_message.Message):
    __slots__ = ("hands", "next_page_token")
    HANDS_FIELD_NUMBER: _ClassVar[int]
    NEXT_PAGE_TOKEN_FIELD_NUMBER: _ClassVar[int]
    hands: _containers.RepeatedCompositeFieldContainer[_audit_pb2.HandSummary]
    next_page_token: str
    def __init__(self, hands: _Optional[_Iterable[_Union[_audit_pb2.HandSummary, _Mapping]]] = ..., next_page_token: _Optional[str] = ...) -> None: ...

class GetHandRequest(_message.Message):
    __slots__ = ("name",)
    NAME_FIELD_NUMBER: _ClassVar[int]
    name: str
    def __init__(self, name: _Optional[str] = ...) -> None: ...

class ReplayHandRequest(_message.Message):
    __slots__ = ("name", "view")
    NAME_FIELD_NUMBER: _ClassVar[int]
    VIEW_FIELD_NUMBER: _ClassVar[int]
    name: str
    view: ReplayView
    def __init__(self, name: _Optional[str] = ..., view: _Optional[_Union[ReplayView, str]] = ...) -> None: ...

class ReplayHandResponse(_message.Message):
    __slots__ = ("steps",)
    STEPS_FIELD_NUMBER: _ClassVar[int]
    steps: _containers.RepeatedCompositeFieldContainer[_audit_pb2.ReplayStep]
    def __init__(self, steps: _Optional[_Iterable[_Union[_audit_pb2.ReplayStep, _Mapping]]] = ...) -> None: ...

class VerifyHandRequest(_message.Message):
    __slots__ = ("name",)
    NAME_FIELD_NUMBER: _ClassVar[int]
    name: str
    def __init__(self, name: _Optional[str] = ...) -> None: ...

class VerifyHandResponse(_message.Message):
    __slots__ = ("name", "passed", "checks", "first_problem")
    NAME_FIELD_NUMBER: _ClassVar[int]
    PASSED_FIELD_NUMBER: _ClassVar[int]
    CHECKS_FIELD_NUMBER: _ClassVar[int]
    FIRST_PROBLEM_FIELD_NUMBER: _ClassVar[int]
    name: str
    passed: bool
    checks: _containers.RepeatedCompositeFieldContainer[_audit_pb2.VerificationCheck]
    first_problem: _audit_pb2.VerificationCheck
    def __init__(self, name: _Optional[str] = ..., passed: _Optional[bool] = ..., checks: _Optional[_Iterable[_Union[_audit_pb2.VerificationCheck, _Mapping]]] = ..., first_problem: _Optional[_Union[_audit_pb2.VerificationCheck, _Mapping]] = ...) -> None: ...

class VerifyShuffleRequest(_message.Message):
    __slots__ = ("name",)
    NAME_FIELD_NUMBER: _ClassVar[int]
    name: str
    def __init__(self, name: _Optional[str] = ...) -> None: ...

class VerifyShuffleResponse(_message.Message):
    __slots__ = ("name", "passed", "message", "deck_commitment", "server_seed", "client_seeds", "cards_checked", "deck_root", "proofs", "commitment_version", "client_seed_versions", "hand_started_version", "public_reveal_time")
    class ClientSeedsEntry(_message.Message):
        __slots__ = ("key", "value")
        KEY_FIELD_NUMBER: _ClassVar[int]
        VALUE_FIELD_NUMBER: _ClassVar[int]
        key: int
        value: str
        def __init__(self, key: _Optional[int] = ..., value: _Optional[str] = ...) -> None: ...
    NAME_FIELD_NUMBER: _ClassVar[int]
    PASSED_FIELD_NUMBER: _ClassVar[int]
    MESSAGE_FIELD_NUMBER: _ClassVar[int]
    DECK_COMMITMENT_FIELD_NUMBER: _ClassVar[int]
    SERVER_SEED_FIELD_NUMBER: _ClassVar[int]
    CLIENT_SEEDS_FIELD_NUMBER: _ClassVar[int]
    CARDS_CHECKED_FIELD_NUMBER: _ClassVar[int]
    DECK_ROOT_FIELD_NUMBER: _ClassVar[int]
    PROOFS_FIELD_NUMBER: _ClassVar[int]
    COMMITMENT_VERSION_FIELD_NUMBER: _ClassVar[int]
    CLIENT_SEED_VERSIONS_FIELD_NUMBER: _ClassVar[int]
    HAND_STARTED_VERSION_FIELD_NUMBER: _ClassVar[int]
    PUBLIC_REVEAL_TIME_FIELD_NUMBER: _ClassVar[int]
    name: str
    passed: bool
    message: str
    deck_commitment: str
    server_seed: str
    client_seeds: _containers.ScalarMap[int, str]
    cards_checked: int
    deck_root: str
    proofs: _containers.RepeatedCompositeFieldContainer[_audit_pb2.CardProof]
    commitment_version: int
    client_seed_versions: _containers.RepeatedScalarFieldContainer[int]
    hand_started_version: int
    public_reveal_time: _timestamp_pb2.Timestamp
    def __init__(self, name: _Optional[str] = ..., passed: _Optional[bool] = ..., message: _Optional[str] = ..., deck_commitment: _Optional[str] = ..., server_seed: _Optional[str] = ..., client_seeds: _Optional[_Mapping[int, str]] = ..., cards_checked: _Optional[int] = ..., deck_root: _Optional[str] = ..., proofs: _Optional[_Iterable[_Union[_audit_pb2.CardProof, _Mapping]]] = ..., commitment_version: _Optional[int] = ..., client_seed_versions: _Optional[_Iterable[int]] = ..., hand_started_version: _Optional[int] = ..., public_reveal_time: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ...) -> None: ...

class ExportHandHistoryRequest(_message.Message):
    __slots__ = ("name", "format")
    NAME_FIELD_NUMBER: _ClassVar[int]
    FORMAT_FIELD_NUMBER: _ClassVar[int]
    name: str
    format: HistoryFormat
    def __init__(self, name: _Optional[str] = ..., format: _Optional[_Union[HistoryFormat, str]] = ...) -> None: ...

class ExportHandHistoryResponse(_message.Message):
    __slots__ = ("name", "format", "text")
    NAME_FIELD_NUMBER: _ClassVar[int]
    FORMAT_FIELD_NUMBER: _ClassVar[int]
    TEXT_FIELD_NUMBER: _ClassVar[int]
    name: str
    format: HistoryFormat
    text: str
    def __init__(self, name: _Optional[str] = ..., format: _Optional[_Union[HistoryFormat, str]] = ..., text: _Optional[str] = ...) -> None: ...

class SetClientSeedRequest(_message.Message):
    __slots__ = ("name", "seed", "request_id")
    NAME_FIELD_NUMBER: _ClassVar[int]
    SEED_FIELD_NUMBER: _ClassVar[int]
    REQUEST_ID_FIELD_NUMBER: _ClassVar[int]
    name: str
    seed: str
    request_id: str
    def __init__(self, name: _Optional[str] = ..., seed: _Optional[str] = ..., request_id: _Optional[str] = ...) -> None: ...

class SetClientSeedResponse(_message.Message):
    __slots__ = ("version",)
    VERSION_FIELD_NUMBER: _ClassVar[int]
    version: int
    def __init__(self, version: _Optional[int] = ...) -> None: ...

class ReconcileMoneyRequest(_message.Message):
    __slots__ = ("as_of", "currency", "view")
    AS_OF_FIELD_NUMBER: _ClassVar[int]
    CURRENCY_FIELD_NUMBER: _ClassVar[int]
    VIEW_FIELD_NUMBER: _ClassVar[int]
    as_of: _timestamp_pb2.Timestamp
    currency: str
    view: MoneyReconciliationView
    def __init__(self, as_of: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ..., currency: _Optional[str] = ..., view: _Optional[_Union[MoneyReconciliationView, str]] = ...) -> None: ...

class GetIntegrityReportRequest(_message.Message):
    __slots__ = ("start_time", "end_time", "player_id", "page_size")
    START_TIME_FIELD_NUMBER: _ClassVar[int]
    END_TIME_FIELD_NUMBER: _ClassVar[int]
    PLAYER_ID_FIELD_NUMBER: _ClassVar[int]
    PAGE_SIZE_FIELD_NUMBER: _ClassVar[int]
    start_time: _timestamp_pb2.Timestamp
    end_time: _timestamp_pb2.Timestamp
    player_id: str
    page_size: int
    def __init__(self, start_time: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ..., end_time: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ..., player_id: _Optional[str] = ..., page_size: _Optional[int] = ...) -> None: ...

class ListAccessRecordsRequest(_message.Message):
    __slots__ = ("start_time", "end_time", "principal_id", "method", "page_size", "page_token")
    START_TIME_FIELD_NUMBER: _ClassVar[int]
    END_TIME_FIELD_NUMBER: _ClassVar[int]
    PRINCIPAL_ID_FIELD_NUMBER: _ClassVar[int]
    METHOD_FIELD_NUMBER: _ClassVar[int]
    PAGE_SIZE_FIELD_NUMBER: _ClassVar[int]
    PAGE_TOKEN_FIELD_NUMBER: _ClassVar[int]
    start_time: _timestamp_pb2.Timestamp
    end_time: _timestamp_pb2.Timestamp
    principal_id: str
    method: str
    page_size: int
    page_token: str
    def __init__(self, start_time: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ..., end_time: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ..., principal_id: _Optional[str] = ..., method: _Optional[str] = ..., page_size: _Optional[int] = ..., page_token: _Optional[str] = ...) -> None: ...

class ListAccessRecordsResponse(_message.Message):
    __slots__ = ("access_records", "next_page_token")
    ACCESS_RECORDS_FIELD_NUMBER: _ClassVar[int]
    NEXT_PAGE_TOKEN_FIELD_NUMBER: _ClassVar[int]
    access_records: _containers.RepeatedCompositeFieldContainer[_audit_pb2.AccessRecord]
    next_page_token: str
    def __init__(self, access_records: _Optional[_Iterable[_Union[_audit_pb2.AccessRecord, _Mapping]]] = ..., next_page_token: _Optional[str] = ...) -> None: ...

class ListPlayerSessionsRequest(_message.Message):
    __slots__ = ("start_time", "end_time", "player_id", "address", "device_id", "page_size", "page_token")
    START_TIME_FIELD_NUMBER: _ClassVar[int]
    END_TIME_FIELD_NUMBER: _ClassVar[int]
    PLAYER_ID_FIELD_NUMBER: _ClassVar[int]
    ADDRESS_FIELD_NUMBER: _ClassVar[int]
    DEVICE_ID_FIELD_NUMBER: _ClassVar[int]
    PAGE_SIZE_FIELD_NUMBER: _ClassVar[int]
    PAGE_TOKEN_FIELD_NUMBER: _ClassVar[int]
    start_time: _timestamp_pb2.Timestamp
    end_time: _timestamp_pb2.Timestamp
    player_id: str
    address: str
    device_id: str
    page_size: int
    page_token: str
    def __init__(self, start_time: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ..., end_time: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ..., player_id: _Optional[str] = ..., address: _Optional[str] = ..., device_id: _Optional[str] = ..., page_size: _Optional[int] = ..., page_token: _Optional[str] = ...) -> None: ...

class ListPlayerSessionsResponse(_message.Message):
    __slots__ = ("player_sessions", "next_page_token")
    PLAYER_SESSIONS_FIELD_NUMBER: _ClassVar[int]
    NEXT_PAGE_TOKEN_FIELD_NUMBER: _ClassVar[int]
    player_sessions: _containers.RepeatedCompositeFieldContainer[_audit_pb2.PlayerSession]
    next_page_token: str
    def __init__(self, player_sessions: _Optional[_Iterable[_Union[_audit_pb2.PlayerSession, _Mapping]]] = ..., next_page_token: _Optional[str] = ...) -> None: ...
