import datetime

from google.api import field_behavior_pb2 as _field_behavior_pb2
from google.api import resource_pb2 as _resource_pb2
from google.protobuf import timestamp_pb2 as _timestamp_pb2
from . import events_pb2 as _events_pb2
from . import table_pb2 as _table_pb2
from google.protobuf.internal import containers as _containers
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from collections.abc import Iterable as _Iterable, Mapping as _Mapping
from typing import ClassVar as _ClassVar, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor

class HandSummary(_message.Message):
    __slots__ = ("name", "hand_number", "start_time", "variant", "players", "complete", "pot")
    NAME_FIELD_NUMBER: _ClassVar[int]
    HAND_NUMBER_FIELD_NUMBER: _ClassVar[int]
    START_TIME_FIELD_NUMBER: _ClassVar[int]
    VARIANT_FIELD_NUMBER: _ClassVar[int]
    PLAYERS_FIELD_NUMBER: _ClassVar[int]
    COMPLETE_FIELD_NUMBER: _ClassVar[int]
    POT_FIELD_NUMBER: _ClassVar[int]
    name: str
    hand_number: int
    start_time: _timestamp_pb2.Timestamp
    variant: _table_pb2.Variant
    players: _containers.RepeatedCompositeFieldContainer[HandPlayer]
    complete: bool
    pot: int
    def __init__(self, name: _Optional[str] = ..., hand_number: _Optional[int] = ..., start_time: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ..., variant: _Optional[_Union[_table_pb2.Variant, str]] = ..., players: _Optional[_Iterable[_Union[HandPlayer, _Mapping]]] = ..., complete: _Optional[bool] = ..., pot: _Optional[int] = ...) -> None: ...

class HandPlayer(_message.Message):
    __slots__ = ("seat", "player_id", "starting_stack")
    SEAT_FIELD_NUMBER: _ClassVar[int]
    PLAYER_ID_FIELD_NUMBER: _ClassVar[int]
    STARTING_STACK_FIELD_NUMBER: _ClassVar[int]
    seat: int
    player_id: str
    starting_stack: int
    def __init__(self, seat: _Optional[int] = ..., player_id: _Optional[str] = ..., starting_stack: _Optional[int] = ...) -> None: ...

class Hand(_message.Message):
    __slots__ = ("name", "summary", "events", "deck_commitment", "server_seed", "client_seeds")
    class ClientSeedsEntry(_message.Message):
        __slots__ = ("key", "value")
        KEY_FIELD_NUMBER: _ClassVar[int]
        VALUE_FIELD_NUMBER: _ClassVar[int]
        key: int
        value: str
        def __init__(self, key: _Optional[int] = ..., value: _Optional[str] = ...) -> None: ...
    NAME_FIELD_NUMBER: _ClassVar[int]
    SUMMARY_FIELD_NUMBER: _ClassVar[int]
    EVENTS_FIELD_NUMBER: _ClassVar[int]
    DECK_COMMITMENT_FIELD_NUMBER: _ClassVar[int]
    SERVER_SEED_FIELD_NUMBER: _ClassVar[int]
    CLIENT_SEEDS_FIELD_NUMBER: _ClassVar[int]
    name: str
    summary: HandSummary
    events: _containers.RepeatedCompositeFieldContainer[_events_pb2.TableEvent]
    deck_commitment: str
    server_seed: str
    client_seeds: _containers.ScalarMap[int, str]
    def __init__(self, name: _Optional[str] = ..., summary: _Optional[_Union[HandSummary, _Mapping]] = ..., events: _Optional[_Iterable[_Union[_events_pb2.TableEvent, _Mapping]]] = ..., deck_commitment: _Optional[str] = ..., server_seed: _Optional[str] = ..., client_seeds: _Optional[_Mapping[int, str]] = ...) -> None: ...

class ReplayStep(_message.Message):
    __slots__ = ("event", "state")
    EVENT_FIELD_NUMBER: _ClassVar[int]
    STATE_FIELD_NUMBER: _ClassVar[int]
    event: _events_pb2.TableEvent
    state: _table_pb2.TableView
    def __init__(self, event: _Optional[_Union[_events_pb2.TableEvent, _Mapping]] = ..., state: _Optional[_Union[_table_pb2.TableView, _Mapping]] = ...) -> None: ...

class VerificationCheck(_message.Message):
    __slots__ = ("check", "passed", "version", "message")
    CHECK_FIELD_NUMBER: _ClassVar[int]
    PASSED_FIELD_NUMBER: _ClassVar[int]
    VERSION_FIELD_NUMBER: _ClassVar[int]
    MESSAGE_FIELD_NUMBER: _ClassVar[int]
    check: str
    passed: bool
    version: int
    message: str
    def __init__(self, check: _Optional[str] = ..., passed: _Optional[bool] = ..., version: _Optional[int] = ..., message: _Optional[str] = ...) -> None: ...
