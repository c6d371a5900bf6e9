from google.api import annotations_pb2 as _annotations_pb2
from google.api import field_behavior_pb2 as _field_behavior_pb2
from google.api import resource_pb2 as _resource_pb2
from . import table_service_pb2 as _table_service_pb2
from . import tournament_pb2 as _tournament_pb2
from google.protobuf.internal import containers as _containers
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from collections.abc import Iterable as _Iterable, Mapping as _Mapping
from typing import ClassVar as _ClassVar, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor

class CreateTournamentRequest(_message.Message):
    __slots__ = ("tournament", "tournament_id", "request_id")
    TOURNAMENT_FIELD_NUMBER: _ClassVar[int]
    TOURNAMENT_ID_FIELD_NUMBER: _ClassVar[int]
    REQUEST_ID_FIELD_NUMBER: _ClassVar[int]
    tournament: _tournament_pb2.Tournament
    tournament_id: str
    request_id: str
    def __init__(self, tournament: _Optional[_Union[_tournament_pb2.Tournament, _Mapping]] = ..., tournament_id: _Optional[str] = ..., request_id: _Optional[str] = ...) -> None: ...

class GetTournamentRequest(_message.Message):
    __slots__ = ("name",)
    NAME_FIELD_NUMBER: _ClassVar[int]
    name: str
    def __init__(self, name: _Optional[str] = ...) -> None: ...

class ListTournamentsRequest(_message.Message):
    __slots__ = ("page_size", "page_token")
    PAGE_SIZE_FIELD_NUMBER: _ClassVar[int]
    PAGE_TOKEN_FIELD_NUMBER: _ClassVar[int]
    page_size: int
    page_token: str
    def __init__(self, page_size: _Optional[int] = ..., page_token: _Optional[str] = ...) -> None: ...

class ListTournamentsResponse(_message.Message):
    __slots__ = ("tournaments", "next_page_token")
    TOURNAMENTS_FIELD_NUMBER: _ClassVar[int]
    NEXT_PAGE_TOKEN_FIELD_NUMBER: _ClassVar[int]
    tournaments: _containers.RepeatedCompositeFieldContainer[_tournament_pb2.Tournament]
    next_page_token: str
    def __init__(self, tournaments: _Optional[_Iterable[_Union[_tournament_pb2.Tournament, _Mapping]]] = ..., next_page_token: _Optional[str] = ...) -> None: ...

class RegisterTournamentRequest(_message.Message):
    __slots__ = ("name", "request_id")
    NAME_FIELD_NUMBER: _ClassVar[int]
    REQUEST_ID_FIELD_NUMBER: _ClassVar[int]
    name: str
    request_id: str
    def __init__(self, name: _Optional[str] = ..., request_id: _Optional[str] = ...) -> None: ...

class RegisterTournamentResponse(_message.Message):
    __slots__ = ("view",)
    VIEW_FIELD_NUMBER: _ClassVar[int]
    view: _tournament_pb2.TournamentView
    def __init__(self, view: _Optional[_Union[_tournament_pb2.TournamentView, _Mapping]] = ...) -> None: ...

class UnregisterTournamentRequest(_message.Message):
    __slots__ = ("name", "request_id")
    NAME_FIELD_NUMBER: _ClassVar[int]
    REQUEST_ID_FIELD_NUMBER: _ClassVar[int]
    name: str
    request_id: str
    def __init__(self, name: _Optional[str] = ..., request_id: _Optional[str] = ...) -> None: ...

class UnregisterTournamentResponse(_message.Message):
    __slots__ = ("view",)
    VIEW_FIELD_NUMBER: _ClassVar[int]
    view: _tournament_pb2.TournamentView
    def __init__(self, view: _Optional[_Union[_tournament_pb2.TournamentView, _Mapping]] = ...) -> None: ...

class ReEnterTournamentRequest(_message.Message):
    __slots__ = ("name", "request_id")
    NAME_FIELD_NUMBER: _ClassVar[int]
    REQUEST_ID_FIELD_NUMBER: _ClassVar[int]
    name: str
    request_id: str
    def __init__(self, name: _Optional[str] = ..., request_id: _Optional[str] = ...) -> None: ...

class ReEnterTournamentResponse(_message.Message):
    __slots__ = ("view",)
    VIEW_FIELD_NUMBER: _ClassVar[int]
    view: _tournament_pb2.TournamentView
    def __init__(self, view: _Optional[_Union[_tournament_pb2.TournamentView, _Mapping]] = ...) -> None: ...

class CancelTournamentRequest(_message.Message):
    __slots__ = ("name", "reason")
    NAME_FIELD_NUMBER: _ClassVar[int]
    REASON_FIELD_NUMBER: _ClassVar[int]
    name: str
    reason: str
    def __init__(self, name: _Optional[str] = ..., reason: _Optional[str] = ...) -> None: ...

class GetTournamentViewRequest(_message.Message):
    __slots__ = ("name",)
    NAME_FIELD_NUMBER: _ClassVar[int]
    name: str
    def __init__(self, name: _Optional[str] = ...) -> None: ...

class WatchTournamentRequest(_message.Message):
    __slots__ = ("name", "after_version", "include_views", "heartbeat_seconds")
    NAME_FIELD_NUMBER: _ClassVar[int]
    AFTER_VERSION_FIELD_NUMBER: _ClassVar[int]
    INCLUDE_VIEWS_FIELD_NUMBER: _ClassVar[int]
    HEARTBEAT_SECONDS_FIELD_NUMBER: _ClassVar[int]
    name: str
    after_version: int
    include_views: bool
    heartbeat_seconds: int
    def __init__(self, name: _Optional[str] = ..., after_version: _Optional[int] = ..., include_views: _Optional[bool] = ..., heartbeat_seconds: _Optional[int] = ...) -> None: ...

class WatchTournamentResponse(_message.Message):
    __slots__ = ("event", "view", "heartbeat")
    EVENT_FIELD_NUMBER: _ClassVar[int]
    VIEW_FIELD_NUMBER: _ClassVar[int]
    HEARTBEAT_FIELD_NUMBER: _ClassVar[int]
    event: _tournament_pb2.TournamentEvent
    view: _tournament_pb2.TournamentView
    heartbeat: _table_service_pb2.WatchHeartbeat
    def __init__(self, event: _Optional[_Union[_tournament_pb2.TournamentEvent, _Mapping]] = ..., view: _Optional[_Union[_tournament_pb2.TournamentView, _Mapping]] = ..., heartbeat: _Optional[_Union[_table_service_pb2.WatchHeartbeat, _Mapping]] = ...) -> None: ...
