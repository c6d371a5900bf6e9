import datetime

from google.api import field_behavior_pb2 as _field_behavior_pb2
from google.api import resource_pb2 as _resource_pb2
from google.protobuf import duration_pb2 as _duration_pb2
from google.protobuf import timestamp_pb2 as _timestamp_pb2
from . import table_pb2 as _table_pb2
from google.protobuf.internal import containers as _containers
from google.protobuf.internal import enum_type_wrapper as _enum_type_wrapper
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from collections.abc import Iterable as _Iterable, Mapping as _Mapping
from typing import ClassVar as _ClassVar, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor

class TournamentKind(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    TOURNAMENT_KIND_UNSPECIFIED: _ClassVar[TournamentKind]
    TOURNAMENT_KIND_SIT_AND_GO: _ClassVar[TournamentKind]
    TOURNAMENT_KIND_SCHEDULED: _ClassVar[TournamentKind]

class TournamentState(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    TOURNAMENT_STATE_UNSPECIFIED: _ClassVar[TournamentState]
    TOURNAMENT_STATE_REGISTERING: _ClassVar[TournamentState]
    TOURNAMENT_STATE_RUNNING: _ClassVar[TournamentState]
    TOURNAMENT_STATE_FINISHED: _ClassVar[TournamentState]
    TOURNAMENT_STATE_CANCELLED: _ClassVar[TournamentState]

class CancellationPayout(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    CANCELLATION_PAYOUT_UNSPECIFIED: _ClassVar[CancellationPayout]
    CANCELLATION_PAYOUT_CHIPS: _ClassVar[CancellationPayout]
    CANCELLATION_PAYOUT_EQUAL: _ClassVar[CancellationPayout]
TOURNAMENT_KIND_UNSPECIFIED: TournamentKind
TOURNAMENT_KIND_SIT_AND_GO: TournamentKind
TOURNAMENT_KIND_SCHEDULED: TournamentKind
TOURNAMENT_STATE_UNSPECIFIED: TournamentState
TOURNAMENT_STATE_REGISTERING: TournamentState
TOURNAMENT_STATE_RUNNING: TournamentState
TOURNAMENT_STATE_FINISHED: TournamentState
TOURNAMENT_STATE_CANCELLED: TournamentState
CANCELLATION_PAYOUT_UNSPECIFIED: CancellationPayout
CANCELLATION_PAYOUT_CHIPS: CancellationPayout
CANCELLATION_PAYOUT_EQUAL: CancellationPayout

class Tournament(_message.Message):
    __slots__ = ("name", "display_name", "variant", "kind", "start_time", "levels", "starting_stack", "seats_per_table", "min_entrants", "max_entrants", "late_registration_levels", "re_entries", "re_entry_until_level", "buy_in", "fee", "currency_code", "play_money", "payouts", "cancellation_payout", "action_clock", "time_bank", "same_network_seating", "rotation", "hands_per_game", "state", "entrants", "entries", "players_left", "average_stack", "prize_pool", "payout_table", "prizes", "prizes_fixed", "registration_open", "clock", "tables", "hand_for_hand", "places", "winner", "cancellation_payouts", "version")
    NAME_FIELD_NUMBER: _ClassVar[int]
    DISPLAY_NAME_FIELD_NUMBER: _ClassVar[int]
    VARIANT_FIELD_NUMBER: _ClassVar[int]
    KIND_FIELD_NUMBER: _ClassVar[int]
    START_TIME_FIELD_NUMBER: _ClassVar[int]
    LEVELS_FIELD_NUMBER: _ClassVar[int]
    STARTING_STACK_FIELD_NUMBER: _ClassVar[int]
    SEATS_PER_TABLE_FIELD_NUMBER: _ClassVar[int]
    MIN_ENTRANTS_FIELD_NUMBER: _ClassVar[int]
    MAX_ENTRANTS_FIELD_NUMBER: _ClassVar[int]
    LATE_REGISTRATION_LEVELS_FIELD_NUMBER: _ClassVar[int]
    RE_ENTRIES_FIELD_NUMBER: _ClassVar[int]
    RE_ENTRY_UNTIL_LEVEL_FIELD_NUMBER: _ClassVar[int]
    BUY_IN_FIELD_NUMBER: _ClassVar[int]
    FEE_FIELD_NUMBER: _ClassVar[int]
    CURRENCY_CODE_FIELD_NUMBER: _ClassVar[int]
    PLAY_MONEY_FIELD_NUMBER: _ClassVar[int]
    PAYOUTS_FIELD_NUMBER: _ClassVar[int]
    CANCELLATION_PAYOUT_FIELD_NUMBER: _ClassVar[int]
    ACTION_CLOCK_FIELD_NUMBER: _ClassVar[int]
    TIME_BANK_FIELD_NUMBER: _ClassVar[int]
    SAME_NETWORK_SEATING_FIELD_NUMBER: _ClassVar[int]
    ROTATION_FIELD_NUMBER: _ClassVar[int]
    HANDS_PER_GAME_FIELD_NUMBER: _ClassVar[int]
    STATE_FIELD_NUMBER: _ClassVar[int]
    ENTRANTS_FIELD_NUMBER: _ClassVar[int]
    ENTRIES_FIELD_NUMBER: _ClassVar[int]
    PLAYERS_LEFT_FIELD_NUMBER: _ClassVar[int]
    AVERAGE_STACK_FIELD_NUMBER: _ClassVar[int]
    PRIZE_POOL_FIELD_NUMBER: _ClassVar[int]
    PAYOUT_TABLE_FIELD_NUMBER: _ClassVar[int]
    PRIZES_FIELD_NUMBER: _ClassVar[int]
    PRIZES_FIXED_FIELD_NUMBER: _ClassVar[int]
    REGISTRATION_OPEN_FIELD_NUMBER: _ClassVar[int]
    CLOCK_FIELD_NUMBER: _ClassVar[int]
    TABLES_FIELD_NUMBER: _ClassVar[int]
    HAND_FOR_HAND_FIELD_NUMBER: _ClassVar[int]
    PLACES_FIELD_NUMBER: _ClassVar[int]
    WINNER_FIELD_NUMBER: _ClassVar[int]
    CANCELLATION_PAYOUTS_FIELD_NUMBER: _ClassVar[int]
    VERSION_FIELD_NUMBER: _ClassVar[int]
    name: str
    display_name: str
    variant: _table_pb2.Variant
    kind: TournamentKind
    start_time: _timestamp_pb2.Timestamp
    levels: _containers.RepeatedCompositeFieldContainer[TournamentLevel]
    starting_stack: int
    seats_per_table: int
    min_entrants: int
    max_entrants: int
    late_registration_levels: int
    re_entries: int
    re_entry_until_level: int
    buy_in: int
    fee: int
    currency_code: str
    play_money: bool
    payouts: _containers.RepeatedScalarFieldContainer[int]
    cancellation_payout: CancellationPayout
    action_clock: _duration_pb2.Duration
    time_bank: _table_pb2.TimeBank
    same_network_seating: _table_pb2.SameNetworkSeating
    rotation: _containers.RepeatedScalarFieldContainer[_table_pb2.Variant]
    hands_per_game: int
    state: TournamentState
    entrants: int
    entries: int
    players_left: int
    average_stack: int
    prize_pool: int
    payout_table: _containers.RepeatedScalarFieldContainer[int]
    prizes: _containers.RepeatedScalarFieldContainer[int]
    prizes_fixed: bool
    registration_open: bool
    clock: TournamentClock
    tables: _containers.RepeatedCompositeFieldContainer[TournamentTable]
    hand_for_hand: bool
    places: _containers.RepeatedCompositeFieldContainer[TournamentPlace]
    winner: str
    cancellation_payouts: _containers.RepeatedCompositeFieldContainer[PlayerAmount]
    version: int
    def __init__(self, name: _Optional[str] = ..., display_name: _Optional[str] = ..., variant: _Optional[_Union[_table_pb2.Variant, str]] = ..., kind: _Optional[_Union[TournamentKind, str]] = ..., start_time: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ..., levels: _Optional[_Iterable[_Union[TournamentLevel, _Mapping]]] = ..., starting_stack: _Optional[int] = ..., seats_per_table: _Optional[int] = ..., min_entrants: _Optional[int] = ..., max_entrants: _Optional[int] = ..., late_registration_levels: _Optional[int] = ..., re_entries: _Optional[int] = ..., re_entry_until_level: _Optional[int] = ..., buy_in: _Optional[int] = ..., fee: _Optional[int] = ..., currency_code: _Optional[str] = ..., play_money: _Optional[bool] = ..., payouts: _Optional[_Iterable[int]] = ..., cancellation_payout: _Optional[_Union[CancellationPayout, str]] = ..., action_clock: _Optional[_Union[datetime.timedelta, _duration_pb2.Duration, _Mapping]] = ..., time_bank: _Optional[_Union[_table_pb2.TimeBank, _Mapping]] = ..., same_network_seating: _Optional[_Union[_table_pb2.SameNetworkSeating, str]] = ..., rotation: _Optional[_Iterable[_Union[_table_pb2.Variant, str]]] = ..., hands_per_game: _Optional[int] = ..., state: _Optional[_Union[TournamentState, str]] = ..., entrants: _Optional[int] = ..., entries: _Optional[int] = ..., players_left: _Optional[int] = ..., average_stack: _Optional[int] = ..., prize_pool: _Optional[int] = ..., payout_table: _Optional[_Iterable[int]] = ..., prizes: _Optional[_Iterable[int]] = ..., prizes_fixed: _Optional[bool] = ..., registration_open: _Optional[bool] = ..., clock: _Optional[_Union[TournamentClock, _Mapping]] = ..., tables: _Optional[_Iterable[_Union[TournamentTable, _Mapping]]] = ..., hand_for_hand: _Optional[bool] = ..., places: _Optional[_Iterable[_Union[TournamentPlace, _Mapping]]] = ..., winner: _Optional[str] = ..., cancellation_payouts: _Optional[_Iterable[_Union[PlayerAmount, _Mapping]]] = ..., version: _Optional[int] = ...) -> None: ...

class TournamentLevel(_message.Message):
    __slots__ = ("stakes", "duration", "is_break")
    STAKES_FIELD_NUMBER: _ClassVar[int]
    DURATION_FIELD_NUMBER: _ClassVar[int]
    IS_BREAK_FIELD_NUMBER: _ClassVar[int]
    stakes: _table_pb2.Stakes
    duration: _duration_pb2.Duration
    is_break: bool
    def __init__(self, stakes: _Optional[_Union[_table_pb2.Stakes, _Mapping]] = ..., duration: _Optional[_Union[datetime.timedelta, _duration_pb2.Duration, _Mapping]] = ..., is_break: _Optional[bool] = ...) -> None: ...

class TournamentClock(_message.Message):
    __slots__ = ("index", "level", "is_break", "stakes", "start_time", "end_time")
    INDEX_FIELD_NUMBER: _ClassVar[int]
    LEVEL_FIELD_NUMBER: _ClassVar[int]
    IS_BREAK_FIELD_NUMBER: _ClassVar[int]
    STAKES_FIELD_NUMBER: _ClassVar[int]
    START_TIME_FIELD_NUMBER: _ClassVar[int]
    END_TIME_FIELD_NUMBER: _ClassVar[int]
    index: int
    level: int
    is_break: bool
    stakes: _table_pb2.Stakes
    start_time: _timestamp_pb2.Timestamp
    end_time: _timestamp_pb2.Timestamp
    def __init__(self, index: _Optional[int] = ..., level: _Optional[int] = ..., is_break: _Optional[bool] = ..., stakes: _Optional[_Union[_table_pb2.Stakes, _Mapping]] = ..., start_time: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ..., end_time: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ...) -> None: ...

class TournamentTable(_message.Message):
    __slots__ = ("table", "players")
    TABLE_FIELD_NUMBER: _ClassVar[int]
    PLAYERS_FIELD_NUMBER: _ClassVar[int]
    table: str
    players: int
    def __init__(self, table: _Optional[str] = ..., players: _Optional[int] = ...) -> None: ...

class TournamentPlace(_message.Message):
    __slots__ = ("player_id", "place", "last_place", "prize")
    PLAYER_ID_FIELD_NUMBER: _ClassVar[int]
    PLACE_FIELD_NUMBER: _ClassVar[int]
    LAST_PLACE_FIELD_NUMBER: _ClassVar[int]
    PRIZE_FIELD_NUMBER: _ClassVar[int]
    player_id: str
    place: int
    last_place: int
    prize: int
    def __init__(self, player_id: _Optional[str] = ..., place: _Optional[int] = ..., last_place: _Optional[int] = ..., prize: _Optional[int] = ...) -> None: ...

class PlayerAmount(_message.Message):
    __slots__ = ("player_id", "amount")
    PLAYER_ID_FIELD_NUMBER: _ClassVar[int]
    AMOUNT_FIELD_NUMBER: _ClassVar[int]
    player_id: str
    amount: int
    def __init__(self, player_id: _Optional[str] = ..., amount: _Optional[int] = ...) -> None: ...

class TournamentView(_message.Message):
    __slots__ = ("tournament", "version", "registered", "entries", "table", "seat", "stack", "rank", "place", "prize", "may_re_enter")
    TOURNAMENT_FIELD_NUMBER: _ClassVar[int]
    VERSION_FIELD_NUMBER: _ClassVar[int]
    REGISTERED_FIELD_NUMBER: _ClassVar[int]
    ENTRIES_FIELD_NUMBER: _ClassVar[int]
    TABLE_FIELD_NUMBER: _ClassVar[int]
    SEAT_FIELD_NUMBER: _ClassVar[int]
    STACK_FIELD_NUMBER: _ClassVar[int]
    RANK_FIELD_NUMBER: _ClassVar[int]
    PLACE_FIELD_NUMBER: _ClassVar[int]
    PRIZE_FIELD_NUMBER: _ClassVar[int]
    MAY_RE_ENTER_FIELD_NUMBER: _ClassVar[int]
    tournament: Tournament
    version: int
    registered: bool
    entries: int
    table: str
    seat: int
    stack: int
    rank: int
    place: TournamentPlace
    prize: int
    may_re_enter: bool
    def __init__(self, tournament: _Optional[_Union[Tournament, _Mapping]] = ..., version: _Optional[int] = ..., registered: _Optional[bool] = ..., entries: _Optional[int] = ..., table: _Optional[str] = ..., seat: _Optional[int] = ..., stack: _Optional[int] = ..., rank: _Optional[int] = ..., place: _Optional[_Union[TournamentPlace, _Mapping]] = ..., prize: _Optional[int] = ..., may_re_enter: _Optional[bool] = ...) -> None: ...

class TournamentEvent(_message.Message):
    __slots__ = ("version", "type", "time", "tournament_created", "draw_committed", "draw_revealed", "player_registered", "player_unregistered", "player_re_entered", "tournament_started", "level_started", "break_started", "table_opened", "player_seated", "table_hand_dealt", "table_hand_ended", "players_eliminated", "places_fixed", "player_moved", "table_broken", "hand_for_hand_started", "hand_for_hand_ended", "prizes_fixed", "tournament_finished", "tournament_cancelled")
    class TournamentCreated(_message.Message):
        __slots__ = ("tournament_id", "config")
        TOURNAMENT_ID_FIELD_NUMBER: _ClassVar[int]
        CONFIG_FIELD_NUMBER: _ClassVar[int]
        tournament_id: str
        config: Tournament
        def __init__(self, tournament_id: _Optional[str] = ..., config: _Optional[_Union[Tournament, _Mapping]] = ...) -> None: ...
    class DrawCommitted(_message.Message):
        __slots__ = ("draw", "commitment")
        DRAW_FIELD_NUMBER: _ClassVar[int]
        COMMITMENT_FIELD_NUMBER: _ClassVar[int]
        draw: int
        commitment: str
        def __init__(self, draw: _Optional[int] = ..., commitment: _Optional[str] = ...) -> None: ...
    class DrawRevealed(_message.Message):
        __slots__ = ("draw", "seed")
        DRAW_FIELD_NUMBER: _ClassVar[int]
        SEED_FIELD_NUMBER: _ClassVar[int]
        draw: int
        seed: str
        def __init__(self, draw: _Optional[int] = ..., seed: _Optional[str] = ...) -> None: ...
    class PlayerRegistered(_message.Message):
        __slots__ = ("player_id", "entrants")
        PLAYER_ID_FIELD_NUMBER: _ClassVar[int]
        ENTRANTS_FIELD_NUMBER: _ClassVar[int]
        player_id: str
        entrants: int
        def __init__(self, player_id: _Optional[str] = ..., entrants: _Optional[int] = ...) -> None: ...
    class PlayerUnregistered(_message.Message):
        __slots__ = ("player_id", "entrants", "reason")
        PLAYER_ID_FIELD_NUMBER: _ClassVar[int]
        ENTRANTS_FIELD_NUMBER: _ClassVar[int]
        REASON_FIELD_NUMBER: _ClassVar[int]
        player_id: str
        entrants: int
        reason: str
        def __init__(self, player_id: _Optional[str] = ..., entrants: _Optional[int] = ..., reason: _Optional[str] = ...) -> None: ...
    class PlayerReEntered(_message.Message):
        __slots__ = ("player_id", "entry")
        PLAYER_ID_FIELD_NUMBER: _ClassVar[int]
        ENTRY_FIELD_NUMBER: _ClassVar[int]
        player_id: str
        entry: int
        def __init__(self, player_id: _Optional[str] = ..., entry: _Optional[int] = ...) -> None: ...
    class TournamentStarted(_message.Message):
        __slots__ = ("entrants",)
        ENTRANTS_FIELD_NUMBER: _ClassVar[int]
        entrants: int
        def __init__(self, entrants: _Optional[int] = ...) -> None: ...
    class LevelStarted(_message.Message):
        __slots__ = ("index", "level", "stakes", "start_time", "end_time")
        INDEX_FIELD_NUMBER: _ClassVar[int]
        LEVEL_FIELD_NUMBER: _ClassVar[int]
        STAKES_FIELD_NUMBER: _ClassVar[int]
        START_TIME_FIELD_NUMBER: _ClassVar[int]
        END_TIME_FIELD_NUMBER: _ClassVar[int]
        index: int
        level: int
        stakes: _table_pb2.Stakes
        start_time: _timestamp_pb2.Timestamp
        end_time: _timestamp_pb2.Timestamp
        def __init__(self, index: _Optional[int] = ..., level: _Optional[int] = ..., stakes: _Optional[_Union[_table_pb2.Stakes, _Mapping]] = ..., start_time: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ..., end_time: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ...) -> None: ...
    class BreakStarted(_message.Message):
        __slots__ = ("index", "start_time", "end_time")
        INDEX_FIELD_NUMBER: _ClassVar[int]
        START_TIME_FIELD_NUMBER: _ClassVar[int]
        END_TIME_FIELD_NUMBER: _ClassVar[int]
        index: int
        start_time: _timestamp_pb2.Timestamp
        end_time: _timestamp_pb2.Timestamp
        def __init__(self, index: _Optional[int] = ..., start_time: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ..., end_time: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ...) -> None: ...
    class TableOpened(_message.Message):
        __slots__ = ("table",)
        TABLE_FIELD_NUMBER: _ClassVar[int]
        table: str
        def __init__(self, table: _Optional[str] = ...) -> None: ...
    class PlayerSeated(_message.Message):
        __slots__ = ("player_id", "table", "seat", "chips")
        PLAYER_ID_FIELD_NUMBER: _ClassVar[int]
        TABLE_FIELD_NUMBER: _ClassVar[int]
        SEAT_FIELD_NUMBER: _ClassVar[int]
        CHIPS_FIELD_NUMBER: _ClassVar[int]
        player_id: str
        table: str
        seat: int
        chips: int
        def __init__(self, player_id: _Optional[str] = ..., table: _Optional[str] = ..., seat: _Optional[int] = ..., chips: _Optional[int] = ...) -> None: ...
    class TableHandDealt(_message.Message):
        __slots__ = ("table", "hand", "index", "level")
        TABLE_FIELD_NUMBER: _ClassVar[int]
        HAND_FIELD_NUMBER: _ClassVar[int]
        INDEX_FIELD_NUMBER: _ClassVar[int]
        LEVEL_FIELD_NUMBER: _ClassVar[int]
        table: str
        hand: int
        index: int
        level: int
        def __init__(self, table: _Optional[str] = ..., hand: _Optional[int] = ..., index: _Optional[int] = ..., level: _Optional[int] = ...) -> None: ...
    class TableHandEnded(_message.Message):
        __slots__ = ("table", "hand", "chips")
        TABLE_FIELD_NUMBER: _ClassVar[int]
        HAND_FIELD_NUMBER: _ClassVar[int]
        CHIPS_FIELD_NUMBER: _ClassVar[int]
        table: str
        hand: int
        chips: _containers.RepeatedCompositeFieldContainer[TournamentEvent.HandChips]
        def __init__(self, table: _Optional[str] = ..., hand: _Optional[int] = ..., chips: _Optional[_Iterable[_Union[TournamentEvent.HandChips, _Mapping]]] = ...) -> None: ...
    class HandChips(_message.Message):
        __slots__ = ("player_id", "start", "end")
        PLAYER_ID_FIELD_NUMBER: _ClassVar[int]
        START_FIELD_NUMBER: _ClassVar[int]
        END_FIELD_NUMBER: _ClassVar[int]
        player_id: str
        start: int
        end: int
        def __init__(self, player_id: _Optional[str] = ..., start: _Optional[int] = ..., end: _Optional[int] = ...) -> None: ...
    class PlayersEliminated(_message.Message):
        __slots__ = ("table", "hand", "players")
        TABLE_FIELD_NUMBER: _ClassVar[int]
        HAND_FIELD_NUMBER: _ClassVar[int]
        PLAYERS_FIELD_NUMBER: _ClassVar[int]
        table: str
        hand: int
        players: _containers.RepeatedCompositeFieldContainer[TournamentEvent.EliminatedPlayer]
        def __init__(self, table: _Optional[str] = ..., hand: _Optional[int] = ..., players: _Optional[_Iterable[_Union[TournamentEvent.EliminatedPlayer, _Mapping]]] = ...) -> None: ...
    class EliminatedPlayer(_message.Message):
        __slots__ = ("player_id", "chips")
        PLAYER_ID_FIELD_NUMBER: _ClassVar[int]
        CHIPS_FIELD_NUMBER: _ClassVar[int]
        player_id: str
        chips: int
        def __init__(self, player_id: _Optional[str] = ..., chips: _Optional[int] = ...) -> None: ...
    class PlacesFixed(_message.Message):
        __slots__ = ("places",)
        PLACES_FIELD_NUMBER: _ClassVar[int]
        places: _containers.RepeatedCompositeFieldContainer[TournamentPlace]
        def __init__(self, places: _Optional[_Iterable[_Union[TournamentPlace, _Mapping]]] = ...) -> None: ...
    class PlayerMoved(_message.Message):
        __slots__ = ("player_id", "from_table", "to_table", "seat", "chips")
        PLAYER_ID_FIELD_NUMBER: _ClassVar[int]
        FROM_TABLE_FIELD_NUMBER: _ClassVar[int]
        TO_TABLE_FIELD_NUMBER: _ClassVar[int]
        SEAT_FIELD_NUMBER: _ClassVar[int]
        CHIPS_FIELD_NUMBER: _ClassVar[int]
        player_id: str
        from_table: str
        to_table: str
        seat: int
        chips: int
        def __init__(self, player_id: _Optional[str] = ..., from_table: _Optional[str] = ..., to_table: _Optional[str] = ..., seat: _Optional[int] = ..., chips: _Optional[int] = ...) -> None: ...
    class TableBroken(_message.Message):
        __slots__ = ("table",)
        TABLE_FIELD_NUMBER: _ClassVar[int]
        table: str
        def __init__(self, table: _Optional[str] = ...) -> None: ...
    class HandForHandStarted(_message.Message):
        __slots__ = ("players_left",)
        PLAYERS_LEFT_FIELD_NUMBER: _ClassVar[int]
        players_left: int
        def __init__(self, players_left: _Optional[int] = ...) -> None: ...
    class HandForHandEnded(_message.Message):
        __slots__ = ("players_left",)
        PLAYERS_LEFT_FIELD_NUMBER: _ClassVar[int]
        players_left: int
        def __init__(self, players_left: _Optional[int] = ...) -> None: ...
    class PrizesFixed(_message.Message):
        __slots__ = ("entries", "players", "prize_pool", "prizes")
        ENTRIES_FIELD_NUMBER: _ClassVar[int]
        PLAYERS_FIELD_NUMBER: _ClassVar[int]
        PRIZE_POOL_FIELD_NUMBER: _ClassVar[int]
        PRIZES_FIELD_NUMBER: _ClassVar[int]
        entries: int
        players: int
        prize_pool: int
        prizes: _containers.RepeatedScalarFieldContainer[int]
        def __init__(self, entries: _Optional[int] = ..., players: _Optional[int] = ..., prize_pool: _Optional[int] = ..., prizes: _Optional[_Iterable[int]] = ...) -> None: ...
    class TournamentFinished(_message.Message):
        __slots__ = ("winner",)
        WINNER_FIELD_NUMBER: _ClassVar[int]
        winner: str
        def __init__(self, winner: _Optional[str] = ...) -> None: ...
    class TournamentCancelled(_message.Message):
        __slots__ = ("reason", "refunds", "payouts")
        REASON_FIELD_NUMBER: _ClassVar[int]
        REFUNDS_FIELD_NUMBER: _ClassVar[int]
        PAYOUTS_FIELD_NUMBER: _ClassVar[int]
        reason: str
        refunds: _containers.RepeatedCompositeFieldContainer[PlayerAmount]
        payouts: _containers.RepeatedCompositeFieldContainer[PlayerAmount]
        def __init__(self, reason: _Optional[str] = ..., refunds: _Optional[_Iterable[_Union[PlayerAmount, _Mapping]]] = ..., payouts: _Optional[_Iterable[_Union[PlayerAmount, _Mapping]]] = ...) -> None: ...
    VERSION_FIELD_NUMBER: _ClassVar[int]
    TYPE_FIELD_NUMBER: _ClassVar[int]
    TIME_FIELD_NUMBER: _ClassVar[int]
    TOURNAMENT_CREATED_FIELD_NUMBER: _ClassVar[int]
    DRAW_COMMITTED_FIELD_NUMBER: _ClassVar[int]
    DRAW_REVEALED_FIELD_NUMBER: _ClassVar[int]
    PLAYER_REGISTERED_FIELD_NUMBER: _ClassVar[int]
    PLAYER_UNREGISTERED_FIELD_NUMBER: _ClassVar[int]
    PLAYER_RE_ENTERED_FIELD_NUMBER: _ClassVar[int]
    TOURNAMENT_STARTED_FIELD_NUMBER: _ClassVar[int]
    LEVEL_STARTED_FIELD_NUMBER: _ClassVar[int]
    BREAK_STARTED_FIELD_NUMBER: _ClassVar[int]
    TABLE_OPENED_FIELD_NUMBER: _ClassVar[int]
    PLAYER_SEATED_FIELD_NUMBER: _ClassVar[int]
    TABLE_HAND_DEALT_FIELD_NUMBER: _ClassVar[int]
    TABLE_HAND_ENDED_FIELD_NUMBER: _ClassVar[int]
    PLAYERS_ELIMINATED_FIELD_NUMBER: _ClassVar[int]
    PLACES_FIXED_FIELD_NUMBER: _ClassVar[int]
    PLAYER_MOVED_FIELD_NUMBER: _ClassVar[int]
    TABLE_BROKEN_FIELD_NUMBER: _ClassVar[int]
    HAND_FOR_HAND_STARTED_FIELD_NUMBER: _ClassVar[int]
    HAND_FOR_HAND_ENDED_FIELD_NUMBER: _ClassVar[int]
    PRIZES_FIXED_FIELD_NUMBER: _ClassVar[int]
    TOURNAMENT_FINISHED_FIELD_NUMBER: _ClassVar[int]
    TOURNAMENT_CANCELLED_FIELD_NUMBER: _ClassVar[int]
    version: int
    type: str
    time: _timestamp_pb2.Timestamp
    tournament_created: TournamentEvent.TournamentCreated
    draw_committed: TournamentEvent.DrawCommitted
    draw_revealed: TournamentEvent.DrawRevealed
    player_registered: TournamentEvent.PlayerRegistered
    player_unregistered: TournamentEvent.PlayerUnregistered
    player_re_entered: TournamentEvent.PlayerReEntered
    tournament_started: TournamentEvent.TournamentStarted
    level_started: TournamentEvent.LevelStarted
    break_started: TournamentEvent.BreakStarted
    table_opened: TournamentEvent.TableOpened
    player_seated: TournamentEvent.PlayerSeated
    table_hand_dealt: TournamentEvent.TableHandDealt
    table_hand_ended: TournamentEvent.TableHandEnded
    players_eliminated: TournamentEvent.PlayersEliminated
    places_fixed: TournamentEvent.PlacesFixed
    player_moved: TournamentEvent.PlayerMoved
    table_broken: TournamentEvent.TableBroken
    hand_for_hand_started: TournamentEvent.HandForHandStarted
    hand_for_hand_ended: TournamentEvent.HandForHandEnded
    prizes_fixed: TournamentEvent.PrizesFixed
    tournament_finished: TournamentEvent.TournamentFinished
    tournament_cancelled: TournamentEvent.TournamentCancelled
    def __init__(self, version: _Optional[int] = ..., type: _Optional[str] = ..., time: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ..., tournament_created: _Optional[_Union[TournamentEvent.TournamentCreated, _Mapping]] = ..., draw_committed: _Optional[_Union[TournamentEvent.DrawCommitted, _Mapping]] = ..., draw_revealed: _Optional[_Union[TournamentEvent.DrawRevealed, _Mapping]] = ..., player_registered: _Optional[_Union[TournamentEvent.PlayerRegistered, _Mapping]] = ..., player_unregistered: _Optional[_Union[TournamentEvent.PlayerUnregistered, _Mapping]] = ..., player_re_entered: _Optional[_Union[TournamentEvent.PlayerReEntered, _Mapping]] = ..., tournament_started: _Optional[_Union[TournamentEvent.TournamentStarted, _Mapping]] = ..., level_started: _Optional[_Union[TournamentEvent.LevelStarted, _Mapping]] = ..., break_started: _Optional[_Union[TournamentEvent.BreakStarted, _Mapping]] = ..., table_opened: _Optional[_Union[TournamentEvent.TableOpened, _Mapping]] = ..., player_seated: _Optional[_Union[TournamentEvent.PlayerSeated, _Mapping]] = ..., table_hand_dealt: _Optional[_Union[TournamentEvent.TableHandDealt, _Mapping]] = ..., table_hand_ended: _Optional[_Union[TournamentEvent.TableHandEnded, _Mapping]] = ..., players_eliminated: _Optional[_Union[TournamentEvent.PlayersEliminated, _Mapping]] = ..., places_fixed: _Optional[_Union[TournamentEvent.PlacesFixed, _Mapping]] = ..., player_moved: _Optional[_Union[TournamentEvent.PlayerMoved, _Mapping]] = ..., table_broken: _Optional[_Union[TournamentEvent.TableBroken, _Mapping]] = ..., hand_for_hand_started: _Optional[_Union[TournamentEvent.HandForHandStarted, _Mapping]] = ..., hand_for_hand_ended: _Optional[_Union[TournamentEvent.HandForHandEnded, _Mapping]] = ..., prizes_fixed: _Optional[_Union[TournamentEvent.PrizesFixed, _Mapping]] = ..., tournament_finished: _Optional[_Union[TournamentEvent.TournamentFinished, _Mapping]] = ..., tournament_cancelled: _Optional[_Union[TournamentEvent.TournamentCancelled, _Mapping]] = ...) -> None: ...
