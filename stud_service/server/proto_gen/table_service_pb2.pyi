import datetime

from google.api import annotations_pb2 as _annotations_pb2
from google.api import field_behavior_pb2 as _field_behavior_pb2
from google.api import resource_pb2 as _resource_pb2
from google.protobuf import duration_pb2 as _duration_pb2
from . import events_pb2 as _events_pb2
from . import table_pb2 as _table_pb2
from google.protobuf.internal import containers as _containers
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from collections.abc import Iterable as _Iterable, Mapping as _Mapping
from typing import ClassVar as _ClassVar, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor

class SendChatRequest(_message.Message):
    __slots__ = ("name", "text", "request_id")
    NAME_FIELD_NUMBER: _ClassVar[int]
    TEXT_FIELD_NUMBER: _ClassVar[int]
    REQUEST_ID_FIELD_NUMBER: _ClassVar[int]
    name: str
    text: str
    request_id: str
    def __init__(self, name: _Optional[str] = ..., text: _Optional[str] = ..., request_id: _Optional[str] = ...) -> None: ...

class SendChatResponse(_message.Message):
    __slots__ = ("number", "version")
    NUMBER_FIELD_NUMBER: _ClassVar[int]
    VERSION_FIELD_NUMBER: _ClassVar[int]
    number: int
    version: int
    def __init__(self, number: _Optional[int] = ..., version: _Optional[int] = ...) -> None: ...

class MuteChatPlayerRequest(_message.Message):
    __slots__ = ("name", "player_id", "muted", "reason", "request_id")
    NAME_FIELD_NUMBER: _ClassVar[int]
    PLAYER_ID_FIELD_NUMBER: _ClassVar[int]
    MUTED_FIELD_NUMBER: _ClassVar[int]
    REASON_FIELD_NUMBER: _ClassVar[int]
    REQUEST_ID_FIELD_NUMBER: _ClassVar[int]
    name: str
    player_id: str
    muted: bool
    reason: str
    request_id: str
    def __init__(self, name: _Optional[str] = ..., player_id: _Optional[str] = ..., muted: _Optional[bool] = ..., reason: _Optional[str] = ..., request_id: _Optional[str] = ...) -> None: ...

class MuteChatPlayerResponse(_message.Message):
    __slots__ = ("version",)
    VERSION_FIELD_NUMBER: _ClassVar[int]
    version: int
    def __init__(self, version: _Optional[int] = ...) -> None: ...

class DeleteChatMessageRequest(_message.Message):
    __slots__ = ("name", "number", "reason", "request_id")
    NAME_FIELD_NUMBER: _ClassVar[int]
    NUMBER_FIELD_NUMBER: _ClassVar[int]
    REASON_FIELD_NUMBER: _ClassVar[int]
    REQUEST_ID_FIELD_NUMBER: _ClassVar[int]
    name: str
    number: int
    reason: str
    request_id: str
    def __init__(self, name: _Optional[str] = ..., number: _Optional[int] = ..., reason: _Optional[str] = ..., request_id: _Optional[str] = ...) -> None: ...

class DeleteChatMessageResponse(_message.Message):
    __slots__ = ("version",)
    VERSION_FIELD_NUMBER: _ClassVar[int]
    version: int
    def __init__(self, version: _Optional[int] = ...) -> None: ...

class AnswerHeartbeatRequest(_message.Message):
    __slots__ = ("name", "ping")
    NAME_FIELD_NUMBER: _ClassVar[int]
    PING_FIELD_NUMBER: _ClassVar[int]
    name: str
    ping: str
    def __init__(self, name: _Optional[str] = ..., ping: _Optional[str] = ...) -> None: ...

class AnswerHeartbeatResponse(_message.Message):
    __slots__ = ("round_trip",)
    ROUND_TRIP_FIELD_NUMBER: _ClassVar[int]
    round_trip: _table_pb2.RoundTrip
    def __init__(self, round_trip: _Optional[_Union[_table_pb2.RoundTrip, _Mapping]] = ...) -> None: ...

class CreateTableRequest(_message.Message):
    __slots__ = ("table", "table_id", "request_id")
    TABLE_FIELD_NUMBER: _ClassVar[int]
    TABLE_ID_FIELD_NUMBER: _ClassVar[int]
    REQUEST_ID_FIELD_NUMBER: _ClassVar[int]
    table: _table_pb2.Table
    table_id: str
    request_id: str
    def __init__(self, table: _Optional[_Union[_table_pb2.Table, _Mapping]] = ..., table_id: _Optional[str] = ..., request_id: _Optional[str] = ...) -> None: ...

class GetTableRequest(_message.Message):
    __slots__ = ("name",)
    NAME_FIELD_NUMBER: _ClassVar[int]
    name: str
    def __init__(self, name: _Optional[str] = ...) -> None: ...

class ListTablesRequest(_message.Message):
    __slots__ = ("page_size", "page_token")
    PAGE_SIZE_FIELD_NUMBER: _ClassVar[int]
    PAGE_TOKEN_FIELD_NUMBER: _ClassVar[int]
    page_size: int
    page_token: str
    def __init__(self, page_size: _Optional[int] = ..., page_token: _Optional[str] = ...) -> None: ...

class ListTablesResponse(_message.Message):
    __slots__ = ("tables", "next_page_token")
    TABLES_FIELD_NUMBER: _ClassVar[int]
    NEXT_PAGE_TOKEN_FIELD_NUMBER: _ClassVar[int]
    tables: _containers.RepeatedCompositeFieldContainer[_table_pb2.Table]
    next_page_token: str
    def __init__(self, tables: _Optional[_Iterable[_Union[_table_pb2.Table, _Mapping]]] = ..., next_page_token: _Optional[str] = ...) -> None: ...

class SitDownRequest(_message.Message):
    __slots__ = ("name", "seat", "buy_in", "request_id")
    NAME_FIELD_NUMBER: _ClassVar[int]
    SEAT_FIELD_NUMBER: _ClassVar[int]
    BUY_IN_FIELD_NUMBER: _ClassVar[int]
    REQUEST_ID_FIELD_NUMBER: _ClassVar[int]
    name: str
    seat: int
    buy_in: int
    request_id: str
    def __init__(self, name: _Optional[str] = ..., seat: _Optional[int] = ..., buy_in: _Optional[int] = ..., request_id: _Optional[str] = ...) -> None: ...

class SitDownResponse(_message.Message):
    __slots__ = ("view",)
    VIEW_FIELD_NUMBER: _ClassVar[int]
    view: _table_pb2.TableView
    def __init__(self, view: _Optional[_Union[_table_pb2.TableView, _Mapping]] = ...) -> None: ...

class LeaveRequest(_message.Message):
    __slots__ = ("name", "request_id")
    NAME_FIELD_NUMBER: _ClassVar[int]
    REQUEST_ID_FIELD_NUMBER: _ClassVar[int]
    name: str
    request_id: str
    def __init__(self, name: _Optional[str] = ..., request_id: _Optional[str] = ...) -> None: ...

class LeaveResponse(_message.Message):
    __slots__ = ("view",)
    VIEW_FIELD_NUMBER: _ClassVar[int]
    view: _table_pb2.TableView
    def __init__(self, view: _Optional[_Union[_table_pb2.TableView, _Mapping]] = ...) -> None: ...

class JoinWaitingListRequest(_message.Message):
    __slots__ = ("name", "request_id")
    NAME_FIELD_NUMBER: _ClassVar[int]
    REQUEST_ID_FIELD_NUMBER: _ClassVar[int]
    name: str
    request_id: str
    def __init__(self, name: _Optional[str] = ..., request_id: _Optional[str] = ...) -> None: ...

class JoinWaitingListResponse(_message.Message):
    __slots__ = ("view",)
    VIEW_FIELD_NUMBER: _ClassVar[int]
    view: _table_pb2.TableView
    def __init__(self, view: _Optional[_Union[_table_pb2.TableView, _Mapping]] = ...) -> None: ...

class LeaveWaitingListRequest(_message.Message):
    __slots__ = ("name", "request_id")
    NAME_FIELD_NUMBER: _ClassVar[int]
    REQUEST_ID_FIELD_NUMBER: _ClassVar[int]
    name: str
    request_id: str
    def __init__(self, name: _Optional[str] = ..., request_id: _Optional[str] = ...) -> None: ...

class LeaveWaitingListResponse(_message.Message):
    __slots__ = ("view",)
    VIEW_FIELD_NUMBER: _ClassVar[int]
    view: _table_pb2.TableView
    def __init__(self, view: _Optional[_Union[_table_pb2.TableView, _Mapping]] = ...) -> None: ...

class SitOutRequest(_message.Message):
    __slots__ = ("name", "request_id")
    NAME_FIELD_NUMBER: _ClassVar[int]
    REQUEST_ID_FIELD_NUMBER: _ClassVar[int]
    name: str
    request_id: str
    def __init__(self, name: _Optional[str] = ..., request_id: _Optional[str] = ...) -> None: ...

class SitOutResponse(_message.Message):
    __slots__ = ("view",)
    VIEW_FIELD_NUMBER: _ClassVar[int]
    view: _table_pb2.TableView
    def __init__(self, view: _Optional[_Union[_table_pb2.TableView, _Mapping]] = ...) -> None: ...

class SitInRequest(_message.Message):
    __slots__ = ("name", "request_id")
    NAME_FIELD_NUMBER: _ClassVar[int]
    REQUEST_ID_FIELD_NUMBER: _ClassVar[int]
    name: str
    request_id: str
    def __init__(self, name: _Optional[str] = ..., request_id: _Optional[str] = ...) -> None: ...

class SitInResponse(_message.Message):
    __slots__ = ("view",)
    VIEW_FIELD_NUMBER: _ClassVar[int]
    view: _table_pb2.TableView
    def __init__(self, view: _Optional[_Union[_table_pb2.TableView, _Mapping]] = ...) -> None: ...

class TopUpRequest(_message.Message):
    __slots__ = ("name", "amount", "request_id")
    NAME_FIELD_NUMBER: _ClassVar[int]
    AMOUNT_FIELD_NUMBER: _ClassVar[int]
    REQUEST_ID_FIELD_NUMBER: _ClassVar[int]
    name: str
    amount: int
    request_id: str
    def __init__(self, name: _Optional[str] = ..., amount: _Optional[int] = ..., request_id: _Optional[str] = ...) -> None: ...

class TopUpResponse(_message.Message):
    __slots__ = ("view",)
    VIEW_FIELD_NUMBER: _ClassVar[int]
    view: _table_pb2.TableView
    def __init__(self, view: _Optional[_Union[_table_pb2.TableView, _Mapping]] = ...) -> None: ...

class GetTableViewRequest(_message.Message):
    __slots__ = ("name",)
    NAME_FIELD_NUMBER: _ClassVar[int]
    name: str
    def __init__(self, name: _Optional[str] = ...) -> None: ...

class ActRequest(_message.Message):
    __slots__ = ("name", "seat", "action", "amount", "turn", "request_id")
    NAME_FIELD_NUMBER: _ClassVar[int]
    SEAT_FIELD_NUMBER: _ClassVar[int]
    ACTION_FIELD_NUMBER: _ClassVar[int]
    AMOUNT_FIELD_NUMBER: _ClassVar[int]
    TURN_FIELD_NUMBER: _ClassVar[int]
    REQUEST_ID_FIELD_NUMBER: _ClassVar[int]
    name: str
    seat: int
    action: _table_pb2.ActionType
    amount: int
    turn: int
    request_id: str
    def __init__(self, name: _Optional[str] = ..., seat: _Optional[int] = ..., action: _Optional[_Union[_table_pb2.ActionType, str]] = ..., amount: _Optional[int] = ..., turn: _Optional[int] = ..., request_id: _Optional[str] = ...) -> None: ...

class ActResponse(_message.Message):
    __slots__ = ("view",)
    VIEW_FIELD_NUMBER: _ClassVar[int]
    view: _table_pb2.TableView
    def __init__(self, view: _Optional[_Union[_table_pb2.TableView, _Mapping]] = ...) -> None: ...

class WatchTableRequest(_message.Message):
    __slots__ = ("name", "after_version", "include_views", "batch_events", "heartbeat_seconds")
    NAME_FIELD_NUMBER: _ClassVar[int]
    AFTER_VERSION_FIELD_NUMBER: _ClassVar[int]
    INCLUDE_VIEWS_FIELD_NUMBER: _ClassVar[int]
    BATCH_EVENTS_FIELD_NUMBER: _ClassVar[int]
    HEARTBEAT_SECONDS_FIELD_NUMBER: _ClassVar[int]
    name: str
    after_version: int
    include_views: bool
    batch_events: bool
    heartbeat_seconds: int
    def __init__(self, name: _Optional[str] = ..., after_version: _Optional[int] = ..., include_views: _Optional[bool] = ..., batch_events: _Optional[bool] = ..., heartbeat_seconds: _Optional[int] = ...) -> None: ...

class WatchTableResponse(_message.Message):
    __slots__ = ("event", "view", "events", "heartbeat")
    EVENT_FIELD_NUMBER: _ClassVar[int]
    VIEW_FIELD_NUMBER: _ClassVar[int]
    EVENTS_FIELD_NUMBER: _ClassVar[int]
    HEARTBEAT_FIELD_NUMBER: _ClassVar[int]
    event: _events_pb2.TableEvent
    view: _table_pb2.TableView
    events: _containers.RepeatedCompositeFieldContainer[_events_pb2.TableEvent]
    heartbeat: WatchHeartbeat
    def __init__(self, event: _Optional[_Union[_events_pb2.TableEvent, _Mapping]] = ..., view: _Optional[_Union[_table_pb2.TableView, _Mapping]] = ..., events: _Optional[_Iterable[_Union[_events_pb2.TableEvent, _Mapping]]] = ..., heartbeat: _Optional[_Union[WatchHeartbeat, _Mapping]] = ...) -> None: ...

class WatchHeartbeat(_message.Message):
    __slots__ = ("version", "ping", "round_trip")
    VERSION_FIELD_NUMBER: _ClassVar[int]
    PING_FIELD_NUMBER: _ClassVar[int]
    ROUND_TRIP_FIELD_NUMBER: _ClassVar[int]
    version: int
    ping: str
    round_trip: _table_pb2.RoundTrip
    def __init__(self, version: _Optional[int] = ..., ping: _Optional[str] = ..., round_trip: _Optional[_Union[_table_pb2.RoundTrip, _Mapping]] = ...) -> None: ...

class PauseTableRequest(_message.Message):
    __slots__ = ("name", "reason", "request_id")
    NAME_FIELD_NUMBER: _ClassVar[int]
    REASON_FIELD_NUMBER: _ClassVar[int]
    REQUEST_ID_FIELD_NUMBER: _ClassVar[int]
    name: str
    reason: str
    request_id: str
    def __init__(self, name: _Optional[str] = ..., reason: _Optional[str] = ..., request_id: _Optional[str] = ...) -> None: ...

class ResumeTableRequest(_message.Message):
    __slots__ = ("name", "reason", "request_id")
    NAME_FIELD_NUMBER: _ClassVar[int]
    REASON_FIELD_NUMBER: _ClassVar[int]
    REQUEST_ID_FIELD_NUMBER: _ClassVar[int]
    name: str
    reason: str
    request_id: str
    def __init__(self, name: _Optional[str] = ..., reason: _Optional[str] = ..., request_id: _Optional[str] = ...) -> None: ...

class CloseTableRequest(_message.Message):
    __slots__ = ("name", "reason", "request_id")
    NAME_FIELD_NUMBER: _ClassVar[int]
    REASON_FIELD_NUMBER: _ClassVar[int]
    REQUEST_ID_FIELD_NUMBER: _ClassVar[int]
    name: str
    reason: str
    request_id: str
    def __init__(self, name: _Optional[str] = ..., reason: _Optional[str] = ..., request_id: _Optional[str] = ...) -> None: ...

class VoidHandRequest(_message.Message):
    __slots__ = ("name", "reason", "request_id")
    NAME_FIELD_NUMBER: _ClassVar[int]
    REASON_FIELD_NUMBER: _ClassVar[int]
    REQUEST_ID_FIELD_NUMBER: _ClassVar[int]
    name: str
    reason: str
    request_id: str
    def __init__(self, name: _Optional[str] = ..., reason: _Optional[str] = ..., request_id: _Optional[str] = ...) -> None: ...

class UpdateTableSettingsRequest(_message.Message):
    __slots__ = ("name", "display_name", "action_clock", "seat_offer_time", "interrupted_hand_void_time", "reason", "request_id")
    NAME_FIELD_NUMBER: _ClassVar[int]
    DISPLAY_NAME_FIELD_NUMBER: _ClassVar[int]
    ACTION_CLOCK_FIELD_NUMBER: _ClassVar[int]
    SEAT_OFFER_TIME_FIELD_NUMBER: _ClassVar[int]
    INTERRUPTED_HAND_VOID_TIME_FIELD_NUMBER: _ClassVar[int]
    REASON_FIELD_NUMBER: _ClassVar[int]
    REQUEST_ID_FIELD_NUMBER: _ClassVar[int]
    name: str
    display_name: str
    action_clock: _duration_pb2.Duration
    seat_offer_time: _duration_pb2.Duration
    interrupted_hand_void_time: _duration_pb2.Duration
    reason: str
    request_id: str
    def __init__(self, name: _Optional[str] = ..., display_name: _Optional[str] = ..., action_clock: _Optional[_Union[datetime.timedelta, _duration_pb2.Duration, _Mapping]] = ..., seat_offer_time: _Optional[_Union[datetime.timedelta, _duration_pb2.Duration, _Mapping]] = ..., interrupted_hand_void_time: _Optional[_Union[datetime.timedelta, _duration_pb2.Duration, _Mapping]] = ..., reason: _Optional[str] = ..., request_id: _Optional[str] = ...) -> None: ...
