import datetime

from google.api import field_behavior_pb2 as _field_behavior_pb2
from google.api import resource_pb2 as _resource_pb2
from google.protobuf import duration_pb2 as _duration_pb2
from google.protobuf import timestamp_pb2 as _timestamp_pb2
from google.protobuf.internal import containers as _containers
from google.protobuf.internal import enum_type_wrapper as _enum_type_wrapper
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from collections.abc import Iterable as _Iterable, Mapping as _Mapping
from typing import ClassVar as _ClassVar, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor

class TableStatus(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    TABLE_STATUS_UNSPECIFIED: _ClassVar[TableStatus]
    TABLE_STATUS_OPEN: _ClassVar[TableStatus]
    TABLE_STATUS_PAUSED: _ClassVar[TableStatus]
    TABLE_STATUS_CLOSED: _ClassVar[TableStatus]

class SameNetworkSeating(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    SAME_NETWORK_SEATING_UNSPECIFIED: _ClassVar[SameNetworkSeating]
    SAME_NETWORK_SEATING_OFF: _ClassVar[SameNetworkSeating]
    SAME_NETWORK_SEATING_DEVICE: _ClassVar[SameNetworkSeating]
    SAME_NETWORK_SEATING_ADDRESS: _ClassVar[SameNetworkSeating]
    SAME_NETWORK_SEATING_PREFIX: _ClassVar[SameNetworkSeating]

class Variant(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    VARIANT_UNSPECIFIED: _ClassVar[Variant]
    VARIANT_SEVEN_CARD_STUD: _ClassVar[Variant]
    VARIANT_STUD_HI_LO: _ClassVar[Variant]
    VARIANT_RAZZ: _ClassVar[Variant]

class BringInTiebreak(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    BRING_IN_TIEBREAK_UNSPECIFIED: _ClassVar[BringInTiebreak]
    BRING_IN_TIEBREAK_SUIT: _ClassVar[BringInTiebreak]
    BRING_IN_TIEBREAK_POSITION: _ClassVar[BringInTiebreak]

class ActionType(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    ACTION_TYPE_UNSPECIFIED: _ClassVar[ActionType]
    ACTION_TYPE_FOLD: _ClassVar[ActionType]
    ACTION_TYPE_CHECK: _ClassVar[ActionType]
    ACTION_TYPE_CALL: _ClassVar[ActionType]
    ACTION_TYPE_BRING_IN: _ClassVar[ActionType]
    ACTION_TYPE_COMPLETE: _ClassVar[ActionType]
    ACTION_TYPE_BET: _ClassVar[ActionType]
    ACTION_TYPE_RAISE: _ClassVar[ActionType]

class Street(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    STREET_UNSPECIFIED: _ClassVar[Street]
    STREET_THIRD: _ClassVar[Street]
    STREET_FOURTH: _ClassVar[Street]
    STREET_FIFTH: _ClassVar[Street]
    STREET_SIXTH: _ClassVar[Street]
    STREET_SEVENTH: _ClassVar[Street]
    STREET_SHOWDOWN: _ClassVar[Street]

class SitOutReason(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    SIT_OUT_REASON_UNSPECIFIED: _ClassVar[SitOutReason]
    SIT_OUT_REASON_REQUESTED: _ClassVar[SitOutReason]
    SIT_OUT_REASON_TIMED_OUT: _ClassVar[SitOutReason]
    SIT_OUT_REASON_BUSTED: _ClassVar[SitOutReason]
    SIT_OUT_REASON_LOSS_LIMIT: _ClassVar[SitOutReason]
    SIT_OUT_REASON_SESSION_LIMIT: _ClassVar[SitOutReason]
    SIT_OUT_REASON_INACTIVE: _ClassVar[SitOutReason]
    SIT_OUT_REASON_EXCLUDED: _ClassVar[SitOutReason]

class PotHalf(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    POT_HALF_UNSPECIFIED: _ClassVar[PotHalf]
    POT_HALF_WHOLE: _ClassVar[PotHalf]
    POT_HALF_HIGH: _ClassVar[PotHalf]
    POT_HALF_LOW: _ClassVar[PotHalf]

class ClockKind(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    CLOCK_KIND_UNSPECIFIED: _ClassVar[ClockKind]
    CLOCK_KIND_ACTION: _ClassVar[ClockKind]
    CLOCK_KIND_TIME_BANK: _ClassVar[ClockKind]

class RoundTripSource(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    ROUND_TRIP_SOURCE_UNSPECIFIED: _ClassVar[RoundTripSource]
    ROUND_TRIP_SOURCE_TCP: _ClassVar[RoundTripSource]
    ROUND_TRIP_SOURCE_HEARTBEAT: _ClassVar[RoundTripSource]
TABLE_STATUS_UNSPECIFIED: TableStatus
TABLE_STATUS_OPEN: TableStatus
TABLE_STATUS_PAUSED: TableStatus
TABLE_STATUS_CLOSED: TableStatus
SAME_NETWORK_SEATING_UNSPECIFIED: SameNetworkSeating
SAME_NETWORK_SEATING_OFF: SameNetworkSeating
SAME_NETWORK_SEATING_DEVICE: SameNetworkSeating
SAME_NETWORK_SEATING_ADDRESS: SameNetworkSeating
SAME_NETWORK_SEATING_PREFIX: SameNetworkSeating
VARIANT_UNSPECIFIED: Variant
VARIANT_SEVEN_CARD_STUD: Variant
VARIANT_STUD_HI_LO: Variant
VARIANT_RAZZ: Variant
BRING_IN_TIEBREAK_UNSPECIFIED: BringInTiebreak
BRING_IN_TIEBREAK_SUIT: BringInTiebreak
BRING_IN_TIEBREAK_POSITION: BringInTiebreak
ACTION_TYPE_UNSPECIFIED: ActionType
ACTION_TYPE_FOLD: ActionType
ACTION_TYPE_CHECK: ActionType
ACTION_TYPE_CALL: ActionType
ACTION_TYPE_BRING_IN: ActionType
ACTION_TYPE_COMPLETE: ActionType
ACTION_TYPE_BET: ActionType
ACTION_TYPE_RAISE: ActionType
STREET_UNSPECIFIED: Street
STREET_THIRD: Street
STREET_FOURTH: Street
STREET_FIFTH: Street
STREET_SIXTH: Street
STREET_SEVENTH: Street
STREET_SHOWDOWN: Street
SIT_OUT_REASON_UNSPECIFIED: SitOutReason
SIT_OUT_REASON_REQUESTED: SitOutReason
SIT_OUT_REASON_TIMED_OUT: SitOutReason
SIT_OUT_REASON_BUSTED: SitOutReason
SIT_OUT_REASON_LOSS_LIMIT: SitOutReason
SIT_OUT_REASON_SESSION_LIMIT: SitOutReason
SIT_OUT_REASON_INACTIVE: SitOutReason
SIT_OUT_REASON_EXCLUDED: SitOutReason
POT_HALF_UNSPECIFIED: PotHalf
POT_HALF_WHOLE: PotHalf
POT_HALF_HIGH: PotHalf
POT_HALF_LOW: PotHalf
CLOCK_KIND_UNSPECIFIED: ClockKind
CLOCK_KIND_ACTION: ClockKind
CLOCK_KIND_TIME_BANK: ClockKind
ROUND_TRIP_SOURCE_UNSPECIFIED: RoundTripSource
ROUND_TRIP_SOURCE_TCP: RoundTripSource
ROUND_TRIP_SOURCE_HEARTBEAT: RoundTripSource

class Table(_message.Message):
    __slots__ = ("name", "display_name", "variant", "stakes", "max_seats", "min_buy_in", "max_buy_in", "action_clock", "bring_in_tiebreak", "uncapped_heads_up", "seated_players", "hands_started", "version", "create_time", "seat_offer_time", "open_seats", "waiting_players", "currency_code", "rake", "play_money", "tournament", "same_network_seating", "interrupted_hand_void_time", "status", "status_reason", "status_time", "last_voided_hand", "time_bank", "chat", "rotation", "hands_per_game", "game_stakes", "current_game")
    NAME_FIELD_NUMBER: _ClassVar[int]
    DISPLAY_NAME_FIELD_NUMBER: _ClassVar[int]
    VARIANT_FIELD_NUMBER: _ClassVar[int]
    STAKES_FIELD_NUMBER: _ClassVar[int]
    MAX_SEATS_FIELD_NUMBER: _ClassVar[int]
    MIN_BUY_IN_FIELD_NUMBER: _ClassVar[int]
    MAX_BUY_IN_FIELD_NUMBER: _ClassVar[int]
    ACTION_CLOCK_FIELD_NUMBER: _ClassVar[int]
    BRING_IN_TIEBREAK_FIELD_NUMBER: _ClassVar[int]
    UNCAPPED_HEADS_UP_FIELD_NUMBER: _ClassVar[int]
    SEATED_PLAYERS_FIELD_NUMBER: _ClassVar[int]
    HANDS_STARTED_FIELD_NUMBER: _ClassVar[int]
    VERSION_FIELD_NUMBER: _ClassVar[int]
    CREATE_TIME_FIELD_NUMBER: _ClassVar[int]
    SEAT_OFFER_TIME_FIELD_NUMBER: _ClassVar[int]
    OPEN_SEATS_FIELD_NUMBER: _ClassVar[int]
    WAITING_PLAYERS_FIELD_NUMBER: _ClassVar[int]
    CURRENCY_CODE_FIELD_NUMBER: _ClassVar[int]
    RAKE_FIELD_NUMBER: _ClassVar[int]
    PLAY_MONEY_FIELD_NUMBER: _ClassVar[int]
    TOURNAMENT_FIELD_NUMBER: _ClassVar[int]
    SAME_NETWORK_SEATING_FIELD_NUMBER: _ClassVar[int]
    INTERRUPTED_HAND_VOID_TIME_FIELD_NUMBER: _ClassVar[int]
    STATUS_FIELD_NUMBER: _ClassVar[int]
    STATUS_REASON_FIELD_NUMBER: _ClassVar[int]
    STATUS_TIME_FIELD_NUMBER: _ClassVar[int]
    LAST_VOIDED_HAND_FIELD_NUMBER: _ClassVar[int]
    TIME_BANK_FIELD_NUMBER: _ClassVar[int]
    CHAT_FIELD_NUMBER: _ClassVar[int]
    ROTATION_FIELD_NUMBER: _ClassVar[int]
    HANDS_PER_GAME_FIELD_NUMBER: _ClassVar[int]
    GAME_STAKES_FIELD_NUMBER: _ClassVar[int]
    CURRENT_GAME_FIELD_NUMBER: _ClassVar[int]
    name: str
    display_name: str
    variant: Variant
    stakes: Stakes
    max_seats: int
    min_buy_in: int
    max_buy_in: int
    action_clock: _duration_pb2.Duration
    bring_in_tiebreak: BringInTiebreak
    uncapped_heads_up: bool
    seated_players: int
    hands_started: int
    version: int
    create_time: _timestamp_pb2.Timestamp
    seat_offer_time: _duration_pb2.Duration
    open_seats: int
    waiting_players: int
    currency_code: str
    rake: RakeRule
    play_money: bool
    tournament: TableTournament
    same_network_seating: SameNetworkSeating
    interrupted_hand_void_time: _duration_pb2.Duration
    status: TableStatus
    status_reason: str
    status_time: _timestamp_pb2.Timestamp
    last_voided_hand: VoidedHand
    time_bank: TimeBank
    chat: ChatRules
    rotation: _containers.RepeatedScalarFieldContainer[Variant]
    hands_per_game: int
    game_stakes: _containers.RepeatedCompositeFieldContainer[GameStakes]
    current_game: CurrentGame
    def __init__(self, name: _Optional[str] = ..., display_name: _Optional[str] = ..., variant: _Optional[_Union[Variant, str]] = ..., stakes: _Optional[_Union[Stakes, _Mapping]] = ..., max_seats: _Optional[int] = ..., min_buy_in: _Optional[int] = ..., max_buy_in: _Optional[int] = ..., action_clock: _Optional[_Union[datetime.timedelta, _duration_pb2.Duration, _Mapping]] = ..., bring_in_tiebreak: _Optional[_Union[BringInTiebreak, str]] = ..., uncapped_heads_up: _Optional[bool] = ..., seated_players: _Optional[int] = ..., hands_started: _Optional[int] = ..., version: _Optional[int] = ..., create_time: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ..., seat_offer_time: _Optional[_Union[datetime.timedelta, _duration_pb2.Duration, _Mapping]] = ..., open_seats: _Optional[int] = ..., waiting_players: _Optional[int] = ..., currency_code: _Optional[str] = ..., rake: _Optional[_Union[RakeRule, _Mapping]] = ..., play_money: _Optional[bool] = ..., tournament: _Optional[_Union[TableTournament, _Mapping]] = ..., same_network_seating: _Optional[_Union[SameNetworkSeating, str]] = ..., interrupted_hand_void_time: _Optional[_Union[datetime.timedelta, _duration_pb2.Duration, _Mapping]] = ..., status: _Optional[_Union[TableStatus, str]] = ..., status_reason: _Optional[str] = ..., status_time: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ..., last_voided_hand: _Optional[_Union[VoidedHand, _Mapping]] = ..., time_bank: _Optional[_Union[TimeBank, _Mapping]] = ..., chat: _Optional[_Union[ChatRules, _Mapping]] = ..., rotation: _Optional[_Iterable[_Union[Variant, str]]] = ..., hands_per_game: _Optional[int] = ..., game_stakes: _Optional[_Iterable[_Union[GameStakes, _Mapping]]] = ..., current_game: _Optional[_Union[CurrentGame, _Mapping]] = ...) -> None: ...

class GameStakes(_message.Message):
    __slots__ = ("game", "stakes")
    GAME_FIELD_NUMBER: _ClassVar[int]
    STAKES_FIELD_NUMBER: _ClassVar[int]
    game: Variant
    stakes: Stakes
    def __init__(self, game: _Optional[_Union[Variant, str]] = ..., stakes: _Optional[_Union[Stakes, _Mapping]] = ...) -> None: ...

class CurrentGame(_message.Message):
    __slots__ = ("game", "hands_left", "next_game", "stakes")
    GAME_FIELD_NUMBER: _ClassVar[int]
    HANDS_LEFT_FIELD_NUMBER: _ClassVar[int]
    NEXT_GAME_FIELD_NUMBER: _ClassVar[int]
    STAKES_FIELD_NUMBER: _ClassVar[int]
    game: Variant
    hands_left: int
    next_game: Variant
    stakes: Stakes
    def __init__(self, game: _Optional[_Union[Variant, str]] = ..., hands_left: _Optional[int] = ..., next_game: _Optional[_Union[Variant, str]] = ..., stakes: _Optional[_Union[Stakes, _Mapping]] = ...) -> None: ...

class VoidedHand(_message.Message):
    __slots__ = ("name", "hand_number", "reason", "automatic", "void_time")
    NAME_FIELD_NUMBER: _ClassVar[int]
    HAND_NUMBER_FIELD_NUMBER: _ClassVar[int]
    REASON_FIELD_NUMBER: _ClassVar[int]
    AUTOMATIC_FIELD_NUMBER: _ClassVar[int]
    VOID_TIME_FIELD_NUMBER: _ClassVar[int]
    name: str
    hand_number: int
    reason: str
    automatic: bool
    void_time: _timestamp_pb2.Timestamp
    def __init__(self, name: _Optional[str] = ..., hand_number: _Optional[int] = ..., reason: _Optional[str] = ..., automatic: _Optional[bool] = ..., void_time: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ...) -> None: ...

class TimeBank(_message.Message):
    __slots__ = ("reserve", "refill", "refill_hands")
    RESERVE_FIELD_NUMBER: _ClassVar[int]
    REFILL_FIELD_NUMBER: _ClassVar[int]
    REFILL_HANDS_FIELD_NUMBER: _ClassVar[int]
    reserve: _duration_pb2.Duration
    refill: _duration_pb2.Duration
    refill_hands: int
    def __init__(self, reserve: _Optional[_Union[datetime.timedelta, _duration_pb2.Duration, _Mapping]] = ..., refill: _Optional[_Union[datetime.timedelta, _duration_pb2.Duration, _Mapping]] = ..., refill_hands: _Optional[int] = ...) -> None: ...

class ChatRules(_message.Message):
    __slots__ = ("spectators_write", "all_in_silence")
    SPECTATORS_WRITE_FIELD_NUMBER: _ClassVar[int]
    ALL_IN_SILENCE_FIELD_NUMBER: _ClassVar[int]
    spectators_write: bool
    all_in_silence: bool
    def __init__(self, spectators_write: _Optional[bool] = ..., all_in_silence: _Optional[bool] = ...) -> None: ...

class TableTournament(_message.Message):
    __slots__ = ("tournament", "level")
    TOURNAMENT_FIELD_NUMBER: _ClassVar[int]
    LEVEL_FIELD_NUMBER: _ClassVar[int]
    tournament: str
    level: int
    def __init__(self, tournament: _Optional[str] = ..., level: _Optional[int] = ...) -> None: ...

class RakeRule(_message.Message):
    __slots__ = ("basis_points", "cap_2_players", "cap_3_to_4_players", "cap_5_or_more_players")
    BASIS_POINTS_FIELD_NUMBER: _ClassVar[int]
    CAP_2_PLAYERS_FIELD_NUMBER: _ClassVar[int]
    CAP_3_TO_4_PLAYERS_FIELD_NUMBER: _ClassVar[int]
    CAP_5_OR_MORE_PLAYERS_FIELD_NUMBER: _ClassVar[int]
    basis_points: int
    cap_2_players: int
    cap_3_to_4_players: int
    cap_5_or_more_players: int
    def __init__(self, basis_points: _Optional[int] = ..., cap_2_players: _Optional[int] = ..., cap_3_to_4_players: _Optional[int] = ..., cap_5_or_more_players: _Optional[int] = ...) -> None: ...

class Stakes(_message.Message):
    __slots__ = ("small_bet", "big_bet", "ante", "bring_in")
    SMALL_BET_FIELD_NUMBER: _ClassVar[int]
    BIG_BET_FIELD_NUMBER: _ClassVar[int]
    ANTE_FIELD_NUMBER: _ClassVar[int]
    BRING_IN_FIELD_NUMBER: _ClassVar[int]
    small_bet: int
    big_bet: int
    ante: int
    bring_in: int
    def __init__(self, small_bet: _Optional[int] = ..., big_bet: _Optional[int] = ..., ante: _Optional[int] = ..., bring_in: _Optional[int] = ...) -> None: ...

class LegalAction(_message.Message):
    __slots__ = ("type", "amount")
    TYPE_FIELD_NUMBER: _ClassVar[int]
    AMOUNT_FIELD_NUMBER: _ClassVar[int]
    type: ActionType
    amount: int
    def __init__(self, type: _Optional[_Union[ActionType, str]] = ..., amount: _Optional[int] = ...) -> None: ...

class SeatView(_message.Message):
    __slots__ = ("seat", "player_id", "stack", "sitting_out", "in_hand", "folded", "all_in", "street_bet", "up_cards", "down_cards", "hidden_down_cards", "shown", "sit_out_reason", "time_bank")
    SEAT_FIELD_NUMBER: _ClassVar[int]
    PLAYER_ID_FIELD_NUMBER: _ClassVar[int]
    STACK_FIELD_NUMBER: _ClassVar[int]
    SITTING_OUT_FIELD_NUMBER: _ClassVar[int]
    IN_HAND_FIELD_NUMBER: _ClassVar[int]
    FOLDED_FIELD_NUMBER: _ClassVar[int]
    ALL_IN_FIELD_NUMBER: _ClassVar[int]
    STREET_BET_FIELD_NUMBER: _ClassVar[int]
    UP_CARDS_FIELD_NUMBER: _ClassVar[int]
    DOWN_CARDS_FIELD_NUMBER: _ClassVar[int]
    HIDDEN_DOWN_CARDS_FIELD_NUMBER: _ClassVar[int]
    SHOWN_FIELD_NUMBER: _ClassVar[int]
    SIT_OUT_REASON_FIELD_NUMBER: _ClassVar[int]
    TIME_BANK_FIELD_NUMBER: _ClassVar[int]
    seat: int
    player_id: str
    stack: int
    sitting_out: bool
    in_hand: bool
    folded: bool
    all_in: bool
    street_bet: int
    up_cards: _containers.RepeatedScalarFieldContainer[int]
    down_cards: _containers.RepeatedScalarFieldContainer[int]
    hidden_down_cards: int
    shown: bool
    sit_out_reason: SitOutReason
    time_bank: _duration_pb2.Duration
    def __init__(self, seat: _Optional[int] = ..., player_id: _Optional[str] = ..., stack: _Optional[int] = ..., sitting_out: _Optional[bool] = ..., in_hand: _Optional[bool] = ..., folded: _Optional[bool] = ..., all_in: _Optional[bool] = ..., street_bet: _Optional[int] = ..., up_cards: _Optional[_Iterable[int]] = ..., down_cards: _Optional[_Iterable[int]] = ..., hidden_down_cards: _Optional[int] = ..., shown: _Optional[bool] = ..., sit_out_reason: _Optional[_Union[SitOutReason, str]] = ..., time_bank: _Optional[_Union[datetime.timedelta, _duration_pb2.Duration, _Mapping]] = ...) -> None: ...

class Pot(_message.Message):
    __slots__ = ("amount", "eligible_seats")
    AMOUNT_FIELD_NUMBER: _ClassVar[int]
    ELIGIBLE_SEATS_FIELD_NUMBER: _ClassVar[int]
    amount: int
    eligible_seats: _containers.RepeatedScalarFieldContainer[int]
    def __init__(self, amount: _Optional[int] = ..., eligible_seats: _Optional[_Iterable[int]] = ...) -> None: ...

class HandView(_message.Message):
    __slots__ = ("name", "hand_number", "street", "to_act_seat", "bring_in_seat", "current_bet", "pots", "community_cards", "deck_commitment", "complete", "awards", "server_seed", "voided", "void_reason", "game")
    NAME_FIELD_NUMBER: _ClassVar[int]
    HAND_NUMBER_FIELD_NUMBER: _ClassVar[int]
    STREET_FIELD_NUMBER: _ClassVar[int]
    TO_ACT_SEAT_FIELD_NUMBER: _ClassVar[int]
    BRING_IN_SEAT_FIELD_NUMBER: _ClassVar[int]
    CURRENT_BET_FIELD_NUMBER: _ClassVar[int]
    POTS_FIELD_NUMBER: _ClassVar[int]
    COMMUNITY_CARDS_FIELD_NUMBER: _ClassVar[int]
    DECK_COMMITMENT_FIELD_NUMBER: _ClassVar[int]
    COMPLETE_FIELD_NUMBER: _ClassVar[int]
    AWARDS_FIELD_NUMBER: _ClassVar[int]
    SERVER_SEED_FIELD_NUMBER: _ClassVar[int]
    VOIDED_FIELD_NUMBER: _ClassVar[int]
    VOID_REASON_FIELD_NUMBER: _ClassVar[int]
    GAME_FIELD_NUMBER: _ClassVar[int]
    name: str
    hand_number: int
    street: Street
    to_act_seat: int
    bring_in_seat: int
    current_bet: int
    pots: _containers.RepeatedCompositeFieldContainer[Pot]
    community_cards: _containers.RepeatedScalarFieldContainer[int]
    deck_commitment: str
    complete: bool
    awards: _containers.RepeatedCompositeFieldContainer[Award]
    server_seed: str
    voided: bool
    void_reason: str
    game: Variant
    def __init__(self, name: _Optional[str] = ..., hand_number: _Optional[int] = ..., street: _Optional[_Union[Street, str]] = ..., to_act_seat: _Optional[int] = ..., bring_in_seat: _Optional[int] = ..., current_bet: _Optional[int] = ..., pots: _Optional[_Iterable[_Union[Pot, _Mapping]]] = ..., community_cards: _Optional[_Iterable[int]] = ..., deck_commitment: _Optional[str] = ..., complete: _Optional[bool] = ..., awards: _Optional[_Iterable[_Union[Award, _Mapping]]] = ..., server_seed: _Optional[str] = ..., voided: _Optional[bool] = ..., void_reason: _Optional[str] = ..., game: _Optional[_Union[Variant, str]] = ...) -> None: ...

class Award(_message.Message):
    __slots__ = ("seat", "amount", "pot_index", "pot_half", "hand_description")
    SEAT_FIELD_NUMBER: _ClassVar[int]
    AMOUNT_FIELD_NUMBER: _ClassVar[int]
    POT_INDEX_FIELD_NUMBER: _ClassVar[int]
    POT_HALF_FIELD_NUMBER: _ClassVar[int]
    HAND_DESCRIPTION_FIELD_NUMBER: _ClassVar[int]
    seat: int
    amount: int
    pot_index: int
    pot_half: PotHalf
    hand_description: str
    def __init__(self, seat: _Optional[int] = ..., amount: _Optional[int] = ..., pot_index: _Optional[int] = ..., pot_half: _Optional[_Union[PotHalf, str]] = ..., hand_description: _Optional[str] = ...) -> None: ...

class TableView(_message.Message):
    __slots__ = ("table", "version", "viewer_seat", "seats", "hand", "legal_actions", "action_deadline", "waiting_place", "seat_offer", "turn", "clock", "round_trip", "chat_muted")
    TABLE_FIELD_NUMBER: _ClassVar[int]
    VERSION_FIELD_NUMBER: _ClassVar[int]
    VIEWER_SEAT_FIELD_NUMBER: _ClassVar[int]
    SEATS_FIELD_NUMBER: _ClassVar[int]
    HAND_FIELD_NUMBER: _ClassVar[int]
    LEGAL_ACTIONS_FIELD_NUMBER: _ClassVar[int]
    ACTION_DEADLINE_FIELD_NUMBER: _ClassVar[int]
    WAITING_PLACE_FIELD_NUMBER: _ClassVar[int]
    SEAT_OFFER_FIELD_NUMBER: _ClassVar[int]
    TURN_FIELD_NUMBER: _ClassVar[int]
    CLOCK_FIELD_NUMBER: _ClassVar[int]
    ROUND_TRIP_FIELD_NUMBER: _ClassVar[int]
    CHAT_MUTED_FIELD_NUMBER: _ClassVar[int]
    table: Table
    version: int
    viewer_seat: int
    seats: _containers.RepeatedCompositeFieldContainer[SeatView]
    hand: HandView
    legal_actions: _containers.RepeatedCompositeFieldContainer[LegalAction]
    action_deadline: _timestamp_pb2.Timestamp
    waiting_place: int
    seat_offer: SeatOffer
    turn: int
    clock: ClockKind
    round_trip: RoundTrip
    chat_muted: bool
    def __init__(self, table: _Optional[_Union[Table, _Mapping]] = ..., version: _Optional[int] = ..., viewer_seat: _Optional[int] = ..., seats: _Optional[_Iterable[_Union[SeatView, _Mapping]]] = ..., hand: _Optional[_Union[HandView, _Mapping]] = ..., legal_actions: _Optional[_Iterable[_Union[LegalAction, _Mapping]]] = ..., action_deadline: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ..., waiting_place: _Optional[int] = ..., seat_offer: _Optional[_Union[SeatOffer, _Mapping]] = ..., turn: _Optional[int] = ..., clock: _Optional[_Union[ClockKind, str]] = ..., round_trip: _Optional[_Union[RoundTrip, _Mapping]] = ..., chat_muted: _Optional[bool] = ...) -> None: ...

class RoundTrip(_message.Message):
    __slots__ = ("time", "source", "measure_time")
    TIME_FIELD_NUMBER: _ClassVar[int]
    SOURCE_FIELD_NUMBER: _ClassVar[int]
    MEASURE_TIME_FIELD_NUMBER: _ClassVar[int]
    time: _duration_pb2.Duration
    source: RoundTripSource
    measure_time: _timestamp_pb2.Timestamp
    def __init__(self, time: _Optional[_Union[datetime.timedelta, _duration_pb2.Duration, _Mapping]] = ..., source: _Optional[_Union[RoundTripSource, str]] = ..., measure_time: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ...) -> None: ...

class SeatOffer(_message.Message):
    __slots__ = ("seat", "deadline")
    SEAT_FIELD_NUMBER: _ClassVar[int]
    DEADLINE_FIELD_NUMBER: _ClassVar[int]
    seat: int
    deadline: _timestamp_pb2.Timestamp
    def __init__(self, seat: _Optional[int] = ..., deadline: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ...) -> None: ...
