import datetime

from google.api import annotations_pb2 as _annotations_pb2
from google.api import field_behavior_pb2 as _field_behavior_pb2
from google.protobuf import timestamp_pb2 as _timestamp_pb2
from google.protobuf.internal import containers as _containers
from google.protobuf.internal import enum_type_wrapper as _enum_type_wrapper
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from collections.abc import Iterable as _Iterable, Mapping as _Mapping
from typing import ClassVar as _ClassVar, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor

class LimitKind(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    LIMIT_KIND_UNSPECIFIED: _ClassVar[LimitKind]
    LIMIT_KIND_DEPOSIT: _ClassVar[LimitKind]
    LIMIT_KIND_LOSS: _ClassVar[LimitKind]
    LIMIT_KIND_SESSION_TIME: _ClassVar[LimitKind]

class LimitPeriod(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    LIMIT_PERIOD_UNSPECIFIED: _ClassVar[LimitPeriod]
    LIMIT_PERIOD_DAY: _ClassVar[LimitPeriod]
    LIMIT_PERIOD_WEEK: _ClassVar[LimitPeriod]
    LIMIT_PERIOD_MONTH: _ClassVar[LimitPeriod]

class ExclusionKind(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    EXCLUSION_KIND_UNSPECIFIED: _ClassVar[ExclusionKind]
    EXCLUSION_KIND_SELF_EXCLUSION: _ClassVar[ExclusionKind]
    EXCLUSION_KIND_TIME_OUT: _ClassVar[ExclusionKind]
LIMIT_KIND_UNSPECIFIED: LimitKind
LIMIT_KIND_DEPOSIT: LimitKind
LIMIT_KIND_LOSS: LimitKind
LIMIT_KIND_SESSION_TIME: LimitKind
LIMIT_PERIOD_UNSPECIFIED: LimitPeriod
LIMIT_PERIOD_DAY: LimitPeriod
LIMIT_PERIOD_WEEK: LimitPeriod
LIMIT_PERIOD_MONTH: LimitPeriod
EXCLUSION_KIND_UNSPECIFIED: ExclusionKind
EXCLUSION_KIND_SELF_EXCLUSION: ExclusionKind
EXCLUSION_KIND_TIME_OUT: ExclusionKind

class Limit(_message.Message):
    __slots__ = ("kind", "currency_code", "period", "amount", "own_amount", "floor_amount", "pending_amount", "pending_effective_time", "remaining")
    KIND_FIELD_NUMBER: _ClassVar[int]
    CURRENCY_CODE_FIELD_NUMBER: _ClassVar[int]
    PERIOD_FIELD_NUMBER: _ClassVar[int]
    AMOUNT_FIELD_NUMBER: _ClassVar[int]
    OWN_AMOUNT_FIELD_NUMBER: _ClassVar[int]
    FLOOR_AMOUNT_FIELD_NUMBER: _ClassVar[int]
    PENDING_AMOUNT_FIELD_NUMBER: _ClassVar[int]
    PENDING_EFFECTIVE_TIME_FIELD_NUMBER: _ClassVar[int]
    REMAINING_FIELD_NUMBER: _ClassVar[int]
    kind: LimitKind
    currency_code: str
    period: LimitPeriod
    amount: int
    own_amount: int
    floor_amount: int
    pending_amount: int
    pending_effective_time: _timestamp_pb2.Timestamp
    remaining: int
    def __init__(self, kind: _Optional[_Union[LimitKind, str]] = ..., currency_code: _Optional[str] = ..., period: _Optional[_Union[LimitPeriod, str]] = ..., amount: _Optional[int] = ..., own_amount: _Optional[int] = ..., floor_amount: _Optional[int] = ..., pending_amount: _Optional[int] = ..., pending_effective_time: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ..., remaining: _Optional[int] = ...) -> None: ...

class Exclusion(_message.Message):
    __slots__ = ("kind", "start_time", "end_time", "in_force")
    KIND_FIELD_NUMBER: _ClassVar[int]
    START_TIME_FIELD_NUMBER: _ClassVar[int]
    END_TIME_FIELD_NUMBER: _ClassVar[int]
    IN_FORCE_FIELD_NUMBER: _ClassVar[int]
    kind: ExclusionKind
    start_time: _timestamp_pb2.Timestamp
    end_time: _timestamp_pb2.Timestamp
    in_force: bool
    def __init__(self, kind: _Optional[_Union[ExclusionKind, str]] = ..., start_time: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ..., end_time: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ..., in_force: _Optional[bool] = ...) -> None: ...

class PlayerProtection(_message.Message):
    __slots__ = ("name", "limits", "exclusion", "reality_check_interval_seconds", "session_start_time", "version")
    NAME_FIELD_NUMBER: _ClassVar[int]
    LIMITS_FIELD_NUMBER: _ClassVar[int]
    EXCLUSION_FIELD_NUMBER: _ClassVar[int]
    REALITY_CHECK_INTERVAL_SECONDS_FIELD_NUMBER: _ClassVar[int]
    SESSION_START_TIME_FIELD_NUMBER: _ClassVar[int]
    VERSION_FIELD_NUMBER: _ClassVar[int]
    name: str
    limits: _containers.RepeatedCompositeFieldContainer[Limit]
    exclusion: Exclusion
    reality_check_interval_seconds: int
    session_start_time: _timestamp_pb2.Timestamp
    version: int
    def __init__(self, name: _Optional[str] = ..., limits: _Optional[_Iterable[_Union[Limit, _Mapping]]] = ..., exclusion: _Optional[_Union[Exclusion, _Mapping]] = ..., reality_check_interval_seconds: _Optional[int] = ..., session_start_time: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ..., version: _Optional[int] = ...) -> None: ...

class GetLimitsRequest(_message.Message):
    __slots__ = ("name",)
    NAME_FIELD_NUMBER: _ClassVar[int]
    name: str
    def __init__(self, name: _Optional[str] = ...) -> None: ...

class SetLimitRequest(_message.Message):
    __slots__ = ("name", "kind", "currency_code", "period", "amount")
    NAME_FIELD_NUMBER: _ClassVar[int]
    KIND_FIELD_NUMBER: _ClassVar[int]
    CURRENCY_CODE_FIELD_NUMBER: _ClassVar[int]
    PERIOD_FIELD_NUMBER: _ClassVar[int]
    AMOUNT_FIELD_NUMBER: _ClassVar[int]
    name: str
    kind: LimitKind
    currency_code: str
    period: LimitPeriod
    amount: int
    def __init__(self, name: _Optional[str] = ..., kind: _Optional[_Union[LimitKind, str]] = ..., currency_code: _Optional[str] = ..., period: _Optional[_Union[LimitPeriod, str]] = ..., amount: _Optional[int] = ...) -> None: ...

class SetLimitFloorRequest(_message.Message):
    __slots__ = ("name", "kind", "currency_code", "period", "amount")
    NAME_FIELD_NUMBER: _ClassVar[int]
    KIND_FIELD_NUMBER: _ClassVar[int]
    CURRENCY_CODE_FIELD_NUMBER: _ClassVar[int]
    PERIOD_FIELD_NUMBER: _ClassVar[int]
    AMOUNT_FIELD_NUMBER: _ClassVar[int]
    name: str
    kind: LimitKind
    currency_code: str
    period: LimitPeriod
    amount: int
    def __init__(self, name: _Optional[str] = ..., kind: _Optional[_Union[LimitKind, str]] = ..., currency_code: _Optional[str] = ..., period: _Optional[_Union[LimitPeriod, str]] = ..., amount: _Optional[int] = ...) -> None: ...

class SelfExcludeRequest(_message.Message):
    __slots__ = ("name", "duration_seconds", "forever")
    NAME_FIELD_NUMBER: _ClassVar[int]
    DURATION_SECONDS_FIELD_NUMBER: _ClassVar[int]
    FOREVER_FIELD_NUMBER: _ClassVar[int]
    name: str
    duration_seconds: int
    forever: bool
    def __init__(self, name: _Optional[str] = ..., duration_seconds: _Optional[int] = ..., forever: _Optional[bool] = ...) -> None: ...

class TakeTimeOutRequest(_message.Message):
    __slots__ = ("name", "duration_seconds")
    NAME_FIELD_NUMBER: _ClassVar[int]
    DURATION_SECONDS_FIELD_NUMBER: _ClassVar[int]
    name: str
    duration_seconds: int
    def __init__(self, name: _Optional[str] = ..., duration_seconds: _Optional[int] = ...) -> None: ...

class ExclusionResponse(_message.Message):
    __slots__ = ("protection", "tables", "tournaments")
    PROTECTION_FIELD_NUMBER: _ClassVar[int]
    TABLES_FIELD_NUMBER: _ClassVar[int]
    TOURNAMENTS_FIELD_NUMBER: _ClassVar[int]
    protection: PlayerProtection
    tables: _containers.RepeatedScalarFieldContainer[str]
    tournaments: _containers.RepeatedScalarFieldContainer[str]
    def __init__(self, protection: _Optional[_Union[PlayerProtection, _Mapping]] = ..., tables: _Optional[_Iterable[str]] = ..., tournaments: _Optional[_Iterable[str]] = ...) -> None: ...

class EndExclusionRequest(_message.Message):
    __slots__ = ("name",)
    NAME_FIELD_NUMBER: _ClassVar[int]
    name: str
    def __init__(self, name: _Optional[str] = ...) -> None: ...

class SetRealityCheckRequest(_message.Message):
    __slots__ = ("name", "interval_seconds")
    NAME_FIELD_NUMBER: _ClassVar[int]
    INTERVAL_SECONDS_FIELD_NUMBER: _ClassVar[int]
    name: str
    interval_seconds: int
    def __init__(self, name: _Optional[str] = ..., interval_seconds: _Optional[int] = ...) -> None: ...

class WatchPlayerRequest(_message.Message):
    __slots__ = ("name", "after_version")
    NAME_FIELD_NUMBER: _ClassVar[int]
    AFTER_VERSION_FIELD_NUMBER: _ClassVar[int]
    name: str
    after_version: int
    def __init__(self, name: _Optional[str] = ..., after_version: _Optional[int] = ...) -> None: ...

class NetResult(_message.Message):
    __slots__ = ("currency_code", "amount")
    CURRENCY_CODE_FIELD_NUMBER: _ClassVar[int]
    AMOUNT_FIELD_NUMBER: _ClassVar[int]
    currency_code: str
    amount: int
    def __init__(self, currency_code: _Optional[str] = ..., amount: _Optional[int] = ...) -> None: ...

class RealityCheck(_message.Message):
    __slots__ = ("session_start_time", "session_seconds", "net_results")
    SESSION_START_TIME_FIELD_NUMBER: _ClassVar[int]
    SESSION_SECONDS_FIELD_NUMBER: _ClassVar[int]
    NET_RESULTS_FIELD_NUMBER: _ClassVar[int]
    session_start_time: _timestamp_pb2.Timestamp
    session_seconds: int
    net_results: _containers.RepeatedCompositeFieldContainer[NetResult]
    def __init__(self, session_start_time: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ..., session_seconds: _Optional[int] = ..., net_results: _Optional[_Iterable[_Union[NetResult, _Mapping]]] = ...) -> None: ...

class WatchPlayerResponse(_message.Message):
    __slots__ = ("version", "time", "type", "reality_check", "protection")
    VERSION_FIELD_NUMBER: _ClassVar[int]
    TIME_FIELD_NUMBER: _ClassVar[int]
    TYPE_FIELD_NUMBER: _ClassVar[int]
    REALITY_CHECK_FIELD_NUMBER: _ClassVar[int]
    PROTECTION_FIELD_NUMBER: _ClassVar[int]
    version: int
    time: _timestamp_pb2.Timestamp
    type: str
    reality_check: RealityCheck
    protection: PlayerProtection
    def __init__(self, version: _Optional[int] = ..., time: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ..., type: _Optional[str] = ..., reality_check: _Optional[_Union[RealityCheck, _Mapping]] = ..., protection: _Optional[_Union[PlayerProtection, _Mapping]] = ...) -> None: ...
