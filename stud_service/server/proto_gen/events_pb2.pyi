import datetime

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

class WaitingListLeftReason(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    WAITING_LIST_LEFT_REASON_UNSPECIFIED: _ClassVar[WaitingListLeftReason]
    WAITING_LIST_LEFT_REASON_REQUEST: _ClassVar[WaitingListLeftReason]
    WAITING_LIST_LEFT_REASON_SEATED: _ClassVar[WaitingListLeftReason]
    WAITING_LIST_LEFT_REASON_OFFER_EXPIRED: _ClassVar[WaitingListLeftReason]
    WAITING_LIST_LEFT_REASON_TABLE_CLOSED: _ClassVar[WaitingListLeftReason]
WAITING_LIST_LEFT_REASON_UNSPECIFIED: WaitingListLeftReason
WAITING_LIST_LEFT_REASON_REQUEST: WaitingListLeftReason
WAITING_LIST_LEFT_REASON_SEATED: WaitingListLeftReason
WAITING_LIST_LEFT_REASON_OFFER_EXPIRED: WaitingListLeftReason
WAITING_LIST_LEFT_REASON_TABLE_CLOSED: WaitingListLeftReason

class TableEvent(_message.Message):
    __slots__ = ("version", "type", "record_time", "table_created", "player_seated", "player_left", "leave_requested", "player_sat_out", "player_sat_in", "player_topped_up", "client_seed_set", "hand_started", "ante_posted", "card_dealt", "betting_round_started", "player_acted", "uncalled_bet_returned", "hand_shown", "hand_mucked", "hand_ended", "waiting_list_joined", "waiting_list_left", "seat_offered", "shuffle_committed", "table_paused", "table_resumed", "table_closed", "hand_voided", "table_settings_changed", "time_banks_at_start", "time_bank_started", "time_bank_used", "time_bank_refilled", "chat_message_sent", "chat_message_deleted", "chat_mute_set", "game_changed")
    VERSION_FIELD_NUMBER: _ClassVar[int]
    TYPE_FIELD_NUMBER: _ClassVar[int]
    RECORD_TIME_FIELD_NUMBER: _ClassVar[int]
    TABLE_CREATED_FIELD_NUMBER: _ClassVar[int]
    PLAYER_SEATED_FIELD_NUMBER: _ClassVar[int]
    PLAYER_LEFT_FIELD_NUMBER: _ClassVar[int]
    LEAVE_REQUESTED_FIELD_NUMBER: _ClassVar[int]
    PLAYER_SAT_OUT_FIELD_NUMBER: _ClassVar[int]
    PLAYER_SAT_IN_FIELD_NUMBER: _ClassVar[int]
    PLAYER_TOPPED_UP_FIELD_NUMBER: _ClassVar[int]
    CLIENT_SEED_SET_FIELD_NUMBER: _ClassVar[int]
    HAND_STARTED_FIELD_NUMBER: _ClassVar[int]
    ANTE_POSTED_FIELD_NUMBER: _ClassVar[int]
    CARD_DEALT_FIELD_NUMBER: _ClassVar[int]
    BETTING_ROUND_STARTED_FIELD_NUMBER: _ClassVar[int]
    PLAYER_ACTED_FIELD_NUMBER: _ClassVar[int]
    UNCALLED_BET_RETURNED_FIELD_NUMBER: _ClassVar[int]
    HAND_SHOWN_FIELD_NUMBER: _ClassVar[int]
    HAND_MUCKED_FIELD_NUMBER: _ClassVar[int]
    HAND_ENDED_FIELD_NUMBER: _ClassVar[int]
    WAITING_LIST_JOINED_FIELD_NUMBER: _ClassVar[int]
    WAITING_LIST_LEFT_FIELD_NUMBER: _ClassVar[int]
    SEAT_OFFERED_FIELD_NUMBER: _ClassVar[int]
    SHUFFLE_COMMITTED_FIELD_NUMBER: _ClassVar[int]
    TABLE_PAUSED_FIELD_NUMBER: _ClassVar[int]
    TABLE_RESUMED_FIELD_NUMBER: _ClassVar[int]
    TABLE_CLOSED_FIELD_NUMBER: _ClassVar[int]
    HAND_VOIDED_FIELD_NUMBER: _ClassVar[int]
    TABLE_SETTINGS_CHANGED_FIELD_NUMBER: _ClassVar[int]
    TIME_BANKS_AT_START_FIELD_NUMBER: _ClassVar[int]
    TIME_BANK_STARTED_FIELD_NUMBER: _ClassVar[int]
    TIME_BANK_USED_FIELD_NUMBER: _ClassVar[int]
    TIME_BANK_REFILLED_FIELD_NUMBER: _ClassVar[int]
    CHAT_MESSAGE_SENT_FIELD_NUMBER: _ClassVar[int]
    CHAT_MESSAGE_DELETED_FIELD_NUMBER: _ClassVar[int]
    CHAT_MUTE_SET_FIELD_NUMBER: _ClassVar[int]
    GAME_CHANGED_FIELD_NUMBER: _ClassVar[int]
    version: int
    type: str
    record_time: _timestamp_pb2.Timestamp
    table_created: TableCreated
    player_seated: PlayerSeated
    player_left: PlayerLeft
    leave_requested: LeaveRequested
    player_sat_out: PlayerSatOut
    player_sat_in: PlayerSatIn
    player_topped_up: PlayerToppedUp
    client_seed_set: ClientSeedSet
    hand_started: HandStarted
    ante_posted: AntePosted
    card_dealt: CardDealt
    betting_round_started: BettingRoundStarted
    player_acted: PlayerActed
    uncalled_bet_returned: UncalledBetReturned
    hand_shown: HandShown
    hand_mucked: HandMucked
    hand_ended: HandEnded
    waiting_list_joined: WaitingListJoined
    waiting_list_left: WaitingListLeft
    seat_offered: SeatOffered
    shuffle_committed: ShuffleCommitted
    table_paused: TablePaused
    table_resumed: TableResumed
    table_closed: TableClosed
    hand_voided: HandVoided
    table_settings_changed: TableSettingsChanged
    time_banks_at_start: TimeBanksAtStart
    time_bank_started: TimeBankStarted
    time_bank_used: TimeBankUsed
    time_bank_refilled: TimeBankRefilled
    chat_message_sent: ChatMessageSent
    chat_message_deleted: ChatMessageDeleted
    chat_mute_set: ChatMuteSet
    game_changed: GameChanged
    def __init__(self, version: _Optional[int] = ..., type: _Optional[str] = ..., record_time: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ..., table_created: _Optional[_Union[TableCreated, _Mapping]] = ..., player_seated: _Optional[_Union[PlayerSeated, _Mapping]] = ..., player_left: _Optional[_Union[PlayerLeft, _Mapping]] = ..., leave_requested: _Optional[_Union[LeaveRequested, _Mapping]] = ..., player_sat_out: _Optional[_Union[PlayerSatOut, _Mapping]] = ..., player_sat_in: _Optional[_Union[PlayerSatIn, _Mapping]] = ..., player_topped_up: _Optional[_Union[PlayerToppedUp, _Mapping]] = ..., client_seed_set: _Optional[_Union[ClientSeedSet, _Mapping]] = ..., hand_started: _Optional[_Union[HandStarted, _Mapping]] = ..., ante_posted: _Optional[_Union[AntePosted, _Mapping]] = ..., card_dealt: _Optional[_Union[CardDealt, _Mapping]] = ..., betting_round_started: _Optional[_Union[BettingRoundStarted, _Mapping]] = ..., player_acted: _Optional[_Union[PlayerActed, _Mapping]] = ..., uncalled_bet_returned: _Optional[_Union[UncalledBetReturned, _Mapping]] = ..., hand_shown: _Optional[_Union[HandShown, _Mapping]] = ..., hand_mucked: _Optional[_Union[HandMucked, _Mapping]] = ..., hand_ended: _Optional[_Union[HandEnded, _Mapping]] = ..., waiting_list_joined: _Optional[_Union[WaitingListJoined, _Mapping]] = ..., waiting_list_left: _Optional[_Union[WaitingListLeft, _Mapping]] = ..., seat_offered: _Optional[_Union[SeatOffered, _Mapping]] = ..., shuffle_committed: _Optional[_Union[ShuffleCommitted, _Mapping]] = ..., table_paused: _Optional[_Union[TablePaused, _Mapping]] = ..., table_resumed: _Optional[_Union[TableResumed, _Mapping]] = ..., table_closed: _Optional[_Union[TableClosed, _Mapping]] = ..., hand_voided: _Optional[_Union[HandVoided, _Mapping]] = ..., table_settings_changed: _Optional[_Union[TableSettingsChanged, _Mapping]] = ..., time_banks_at_start: _Optional[_Union[TimeBanksAtStart, _Mapping]] = ..., time_bank_started: _Optional[_Union[TimeBankStarted, _Mapping]] = ..., time_bank_used: _Optional[_Union[TimeBankUsed, _Mapping]] = ..., time_bank_refilled: _Optional[_Union[TimeBankRefilled, _Mapping]] = ..., chat_message_sent: _Optional[_Union[ChatMessageSent, _Mapping]] = ..., chat_message_deleted: _Optional[_Union[ChatMessageDeleted, _Mapping]] = ..., chat_mute_set: _Optional[_Union[ChatMuteSet, _Mapping]] = ..., game_changed: _Optional[_Union[GameChanged, _Mapping]] = ...) -> None: ...

class TableCreated(_message.Message):
    __slots__ = ("table_id", "config", "time")
    TABLE_ID_FIELD_NUMBER: _ClassVar[int]
    CONFIG_FIELD_NUMBER: _ClassVar[int]
    TIME_FIELD_NUMBER: _ClassVar[int]
    table_id: str
    config: _table_pb2.Table
    time: _timestamp_pb2.Timestamp
    def __init__(self, table_id: _Optional[str] = ..., config: _Optional[_Union[_table_pb2.Table, _Mapping]] = ..., time: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ...) -> None: ...

class PlayerSeated(_message.Message):
    __slots__ = ("player_id", "seat", "buy_in", "time")
    PLAYER_ID_FIELD_NUMBER: _ClassVar[int]
    SEAT_FIELD_NUMBER: _ClassVar[int]
    BUY_IN_FIELD_NUMBER: _ClassVar[int]
    TIME_FIELD_NUMBER: _ClassVar[int]
    player_id: str
    seat: int
    buy_in: int
    time: _timestamp_pb2.Timestamp
    def __init__(self, player_id: _Optional[str] = ..., seat: _Optional[int] = ..., buy_in: _Optional[int] = ..., time: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ...) -> None: ...

class PlayerLeft(_message.Message):
    __slots__ = ("player_id", "seat", "cash_out", "time")
    PLAYER_ID_FIELD_NUMBER: _ClassVar[int]
    SEAT_FIELD_NUMBER: _ClassVar[int]
    CASH_OUT_FIELD_NUMBER: _ClassVar[int]
    TIME_FIELD_NUMBER: _ClassVar[int]
    player_id: str
    seat: int
    cash_out: int
    time: _timestamp_pb2.Timestamp
    def __init__(self, player_id: _Optional[str] = ..., seat: _Optional[int] = ..., cash_out: _Optional[int] = ..., time: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ...) -> None: ...

class LeaveRequested(_message.Message):
    __slots__ = ("hand", "player_id", "seat", "time")
    HAND_FIELD_NUMBER: _ClassVar[int]
    PLAYER_ID_FIELD_NUMBER: _ClassVar[int]
    SEAT_FIELD_NUMBER: _ClassVar[int]
    TIME_FIELD_NUMBER: _ClassVar[int]
    hand: int
    player_id: str
    seat: int
    time: _timestamp_pb2.Timestamp
    def __init__(self, hand: _Optional[int] = ..., player_id: _Optional[str] = ..., seat: _Optional[int] = ..., time: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ...) -> None: ...

class PlayerSatOut(_message.Message):
    __slots__ = ("player_id", "seat", "reason", "time")
    PLAYER_ID_FIELD_NUMBER: _ClassVar[int]
    SEAT_FIELD_NUMBER: _ClassVar[int]
    REASON_FIELD_NUMBER: _ClassVar[int]
    TIME_FIELD_NUMBER: _ClassVar[int]
    player_id: str
    seat: int
    reason: _table_pb2.SitOutReason
    time: _timestamp_pb2.Timestamp
    def __init__(self, player_id: _Optional[str] = ..., seat: _Optional[int] = ..., reason: _Optional[_Union[_table_pb2.SitOutReason, str]] = ..., time: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ...) -> None: ...

class PlayerSatIn(_message.Message):
    __slots__ = ("player_id", "seat", "time")
    PLAYER_ID_FIELD_NUMBER: _ClassVar[int]
    SEAT_FIELD_NUMBER: _ClassVar[int]
    TIME_FIELD_NUMBER: _ClassVar[int]
    player_id: str
    seat: int
    time: _timestamp_pb2.Timestamp
    def __init__(self, player_id: _Optional[str] = ..., seat: _Optional[int] = ..., time: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ...) -> None: ...

class PlayerToppedUp(_message.Message):
    __slots__ = ("player_id", "seat", "amount", "time")
    PLAYER_ID_FIELD_NUMBER: _ClassVar[int]
    SEAT_FIELD_NUMBER: _ClassVar[int]
    AMOUNT_FIELD_NUMBER: _ClassVar[int]
    TIME_FIELD_NUMBER: _ClassVar[int]
    player_id: str
    seat: int
    amount: int
    time: _timestamp_pb2.Timestamp
    def __init__(self, player_id: _Optional[str] = ..., seat: _Optional[int] = ..., amount: _Optional[int] = ..., time: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ...) -> None: ...

class ClientSeedSet(_message.Message):
    __slots__ = ("player_id", "seat", "seed", "time")
    PLAYER_ID_FIELD_NUMBER: _ClassVar[int]
    SEAT_FIELD_NUMBER: _ClassVar[int]
    SEED_FIELD_NUMBER: _ClassVar[int]
    TIME_FIELD_NUMBER: _ClassVar[int]
    player_id: str
    seat: int
    seed: str
    time: _timestamp_pb2.Timestamp
    def __init__(self, player_id: _Optional[str] = ..., seat: _Optional[int] = ..., seed: _Optional[str] = ..., time: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ...) -> None: ...

class ShuffleCommitted(_message.Message):
    __slots__ = ("next_hand", "commitment", "time")
    NEXT_HAND_FIELD_NUMBER: _ClassVar[int]
    COMMITMENT_FIELD_NUMBER: _ClassVar[int]
    TIME_FIELD_NUMBER: _ClassVar[int]
    next_hand: int
    commitment: str
    time: _timestamp_pb2.Timestamp
    def __init__(self, next_hand: _Optional[int] = ..., commitment: _Optional[str] = ..., time: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ...) -> None: ...

class DealtPlayer(_message.Message):
    __slots__ = ("seat", "player_id", "starting_stack")
    SEAT_FIELD_NUMBER: _ClassVar[int]
    PLAYER_ID_FIELD_NUMBER: _ClassVar[int]
    STARTING_STACK_FIELD_NUMBER: _ClassVar[int]
    seat: int
    player_id: str
    starting_stack: int
    def __init__(self, seat: _Optional[int] = ..., player_id: _Optional[str] = ..., starting_stack: _Optional[int] = ...) -> None: ...

class HandStarted(_message.Message):
    __slots__ = ("hand", "table_id", "config", "players", "deck", "commitment", "client_seeds", "server_seed", "time", "deck_root", "commitment_version", "game", "game_hand")
    class ClientSeedsEntry(_message.Message):
        __slots__ = ("key", "value")
        KEY_FIELD_NUMBER: _ClassVar[int]
        VALUE_FIELD_NUMBER: _ClassVar[int]
        key: int
        value: str
        def __init__(self, key: _Optional[int] = ..., value: _Optional[str] = ...) -> None: ...
    HAND_FIELD_NUMBER: _ClassVar[int]
    TABLE_ID_FIELD_NUMBER: _ClassVar[int]
    CONFIG_FIELD_NUMBER: _ClassVar[int]
    PLAYERS_FIELD_NUMBER: _ClassVar[int]
    DECK_FIELD_NUMBER: _ClassVar[int]
    COMMITMENT_FIELD_NUMBER: _ClassVar[int]
    CLIENT_SEEDS_FIELD_NUMBER: _ClassVar[int]
    SERVER_SEED_FIELD_NUMBER: _ClassVar[int]
    TIME_FIELD_NUMBER: _ClassVar[int]
    DECK_ROOT_FIELD_NUMBER: _ClassVar[int]
    COMMITMENT_VERSION_FIELD_NUMBER: _ClassVar[int]
    GAME_FIELD_NUMBER: _ClassVar[int]
    GAME_HAND_FIELD_NUMBER: _ClassVar[int]
    hand: int
    table_id: str
    config: _table_pb2.Table
    players: _containers.RepeatedCompositeFieldContainer[DealtPlayer]
    deck: _containers.RepeatedScalarFieldContainer[int]
    commitment: str
    client_seeds: _containers.ScalarMap[int, str]
    server_seed: str
    time: _timestamp_pb2.Timestamp
    deck_root: str
    commitment_version: int
    game: _table_pb2.Variant
    game_hand: int
    def __init__(self, hand: _Optional[int] = ..., table_id: _Optional[str] = ..., config: _Optional[_Union[_table_pb2.Table, _Mapping]] = ..., players: _Optional[_Iterable[_Union[DealtPlayer, _Mapping]]] = ..., deck: _Optional[_Iterable[int]] = ..., commitment: _Optional[str] = ..., client_seeds: _Optional[_Mapping[int, str]] = ..., server_seed: _Optional[str] = ..., time: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ..., deck_root: _Optional[str] = ..., commitment_version: _Optional[int] = ..., game: _Optional[_Union[_table_pb2.Variant, str]] = ..., game_hand: _Optional[int] = ...) -> None: ...

class AntePosted(_message.Message):
    __slots__ = ("hand", "seat", "amount", "all_in")
    HAND_FIELD_NUMBER: _ClassVar[int]
    SEAT_FIELD_NUMBER: _ClassVar[int]
    AMOUNT_FIELD_NUMBER: _ClassVar[int]
    ALL_IN_FIELD_NUMBER: _ClassVar[int]
    hand: int
    seat: int
    amount: int
    all_in: bool
    def __init__(self, hand: _Optional[int] = ..., seat: _Optional[int] = ..., amount: _Optional[int] = ..., all_in: _Optional[bool] = ...) -> None: ...

class CardDealt(_message.Message):
    __slots__ = ("hand", "street", "seat", "card", "face_up", "hidden")
    HAND_FIELD_NUMBER: _ClassVar[int]
    STREET_FIELD_NUMBER: _ClassVar[int]
    SEAT_FIELD_NUMBER: _ClassVar[int]
    CARD_FIELD_NUMBER: _ClassVar[int]
    FACE_UP_FIELD_NUMBER: _ClassVar[int]
    HIDDEN_FIELD_NUMBER: _ClassVar[int]
    hand: int
    street: _table_pb2.Street
    seat: int
    card: int
    face_up: bool
    hidden: bool
    def __init__(self, hand: _Optional[int] = ..., street: _Optional[_Union[_table_pb2.Street, str]] = ..., seat: _Optional[int] = ..., card: _Optional[int] = ..., face_up: _Optional[bool] = ..., hidden: _Optional[bool] = ...) -> None: ...

class BettingRoundStarted(_message.Message):
    __slots__ = ("hand", "street", "first_seat", "time")
    HAND_FIELD_NUMBER: _ClassVar[int]
    STREET_FIELD_NUMBER: _ClassVar[int]
    FIRST_SEAT_FIELD_NUMBER: _ClassVar[int]
    TIME_FIELD_NUMBER: _ClassVar[int]
    hand: int
    street: _table_pb2.Street
    first_seat: int
    time: _timestamp_pb2.Timestamp
    def __init__(self, hand: _Optional[int] = ..., street: _Optional[_Union[_table_pb2.Street, str]] = ..., first_seat: _Optional[int] = ..., time: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ...) -> None: ...

class PlayerActed(_message.Message):
    __slots__ = ("hand", "seat", "action", "amount", "chips", "all_in", "time", "timeout")
    HAND_FIELD_NUMBER: _ClassVar[int]
    SEAT_FIELD_NUMBER: _ClassVar[int]
    ACTION_FIELD_NUMBER: _ClassVar[int]
    AMOUNT_FIELD_NUMBER: _ClassVar[int]
    CHIPS_FIELD_NUMBER: _ClassVar[int]
    ALL_IN_FIELD_NUMBER: _ClassVar[int]
    TIME_FIELD_NUMBER: _ClassVar[int]
    TIMEOUT_FIELD_NUMBER: _ClassVar[int]
    hand: int
    seat: int
    action: _table_pb2.ActionType
    amount: int
    chips: int
    all_in: bool
    time: _timestamp_pb2.Timestamp
    timeout: bool
    def __init__(self, hand: _Optional[int] = ..., seat: _Optional[int] = ..., action: _Optional[_Union[_table_pb2.ActionType, str]] = ..., amount: _Optional[int] = ..., chips: _Optional[int] = ..., all_in: _Optional[bool] = ..., time: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ..., timeout: _Optional[bool] = ...) -> None: ...

class UncalledBetReturned(_message.Message):
    __slots__ = ("hand", "seat", "amount")
    HAND_FIELD_NUMBER: _ClassVar[int]
    SEAT_FIELD_NUMBER: _ClassVar[int]
    AMOUNT_FIELD_NUMBER: _ClassVar[int]
    hand: int
    seat: int
    amount: int
    def __init__(self, hand: _Optional[int] = ..., seat: _Optional[int] = ..., amount: _Optional[int] = ...) -> None: ...

class HandShown(_message.Message):
    __slots__ = ("hand", "seat", "cards", "high", "low")
    HAND_FIELD_NUMBER: _ClassVar[int]
    SEAT_FIELD_NUMBER: _ClassVar[int]
    CARDS_FIELD_NUMBER: _ClassVar[int]
    HIGH_FIELD_NUMBER: _ClassVar[int]
    LOW_FIELD_NUMBER: _ClassVar[int]
    hand: int
    seat: int
    cards: _containers.RepeatedScalarFieldContainer[int]
    high: str
    low: str
    def __init__(self, hand: _Optional[int] = ..., seat: _Optional[int] = ..., cards: _Optional[_Iterable[int]] = ..., high: _Optional[str] = ..., low: _Optional[str] = ...) -> None: ...

class HandMucked(_message.Message):
    __slots__ = ("hand", "seat")
    HAND_FIELD_NUMBER: _ClassVar[int]
    SEAT_FIELD_NUMBER: _ClassVar[int]
    hand: int
    seat: int
    def __init__(self, hand: _Optional[int] = ..., seat: _Optional[int] = ...) -> None: ...

class PotResult(_message.Message):
    __slots__ = ("pot_index", "amount", "eligible_seats", "awards", "rake")
    POT_INDEX_FIELD_NUMBER: _ClassVar[int]
    AMOUNT_FIELD_NUMBER: _ClassVar[int]
    ELIGIBLE_SEATS_FIELD_NUMBER: _ClassVar[int]
    AWARDS_FIELD_NUMBER: _ClassVar[int]
    RAKE_FIELD_NUMBER: _ClassVar[int]
    pot_index: int
    amount: int
    eligible_seats: _containers.RepeatedScalarFieldContainer[int]
    awards: _containers.RepeatedCompositeFieldContainer[_table_pb2.Award]
    rake: int
    def __init__(self, pot_index: _Optional[int] = ..., amount: _Optional[int] = ..., eligible_seats: _Optional[_Iterable[int]] = ..., awards: _Optional[_Iterable[_Union[_table_pb2.Award, _Mapping]]] = ..., rake: _Optional[int] = ...) -> None: ...

class ShownHand(_message.Message):
    __slots__ = ("seat", "cards")
    SEAT_FIELD_NUMBER: _ClassVar[int]
    CARDS_FIELD_NUMBER: _ClassVar[int]
    seat: int
    cards: _containers.RepeatedScalarFieldContainer[int]
    def __init__(self, seat: _Optional[int] = ..., cards: _Optional[_Iterable[int]] = ...) -> None: ...

class SeatStack(_message.Message):
    __slots__ = ("seat", "stack")
    SEAT_FIELD_NUMBER: _ClassVar[int]
    STACK_FIELD_NUMBER: _ClassVar[int]
    seat: int
    stack: int
    def __init__(self, seat: _Optional[int] = ..., stack: _Optional[int] = ...) -> None: ...

class SeatRake(_message.Message):
    __slots__ = ("seat", "amount")
    SEAT_FIELD_NUMBER: _ClassVar[int]
    AMOUNT_FIELD_NUMBER: _ClassVar[int]
    seat: int
    amount: int
    def __init__(self, seat: _Optional[int] = ..., amount: _Optional[int] = ...) -> None: ...

class HandEnded(_message.Message):
    __slots__ = ("hand", "pots", "shown", "mucked", "stacks", "time", "server_seed", "rake", "rake_shares")
    HAND_FIELD_NUMBER: _ClassVar[int]
    POTS_FIELD_NUMBER: _ClassVar[int]
    SHOWN_FIELD_NUMBER: _ClassVar[int]
    MUCKED_FIELD_NUMBER: _ClassVar[int]
    STACKS_FIELD_NUMBER: _ClassVar[int]
    TIME_FIELD_NUMBER: _ClassVar[int]
    SERVER_SEED_FIELD_NUMBER: _ClassVar[int]
    RAKE_FIELD_NUMBER: _ClassVar[int]
    RAKE_SHARES_FIELD_NUMBER: _ClassVar[int]
    hand: int
    pots: _containers.RepeatedCompositeFieldContainer[PotResult]
    shown: _containers.RepeatedCompositeFieldContainer[ShownHand]
    mucked: _containers.RepeatedScalarFieldContainer[int]
    stacks: _containers.RepeatedCompositeFieldContainer[SeatStack]
    time: _timestamp_pb2.Timestamp
    server_seed: str
    rake: int
    rake_shares: _containers.RepeatedCompositeFieldContainer[SeatRake]
    def __init__(self, hand: _Optional[int] = ..., pots: _Optional[_Iterable[_Union[PotResult, _Mapping]]] = ..., shown: _Optional[_Iterable[_Union[ShownHand, _Mapping]]] = ..., mucked: _Optional[_Iterable[int]] = ..., stacks: _Optional[_Iterable[_Union[SeatStack, _Mapping]]] = ..., time: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ..., server_seed: _Optional[str] = ..., rake: _Optional[int] = ..., rake_shares: _Optional[_Iterable[_Union[SeatRake, _Mapping]]] = ...) -> None: ...

class WaitingListJoined(_message.Message):
    __slots__ = ("player_id", "time")
    PLAYER_ID_FIELD_NUMBER: _ClassVar[int]
    TIME_FIELD_NUMBER: _ClassVar[int]
    player_id: str
    time: _timestamp_pb2.Timestamp
    def __init__(self, player_id: _Optional[str] = ..., time: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ...) -> None: ...

class WaitingListLeft(_message.Message):
    __slots__ = ("player_id", "reason", "time")
    PLAYER_ID_FIELD_NUMBER: _ClassVar[int]
    REASON_FIELD_NUMBER: _ClassVar[int]
    TIME_FIELD_NUMBER: _ClassVar[int]
    player_id: str
    reason: WaitingListLeftReason
    time: _timestamp_pb2.Timestamp
    def __init__(self, player_id: _Optional[str] = ..., reason: _Optional[_Union[WaitingListLeftReason, str]] = ..., time: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ...) -> None: ...

class SeatOffered(_message.Message):
    __slots__ = ("player_id", "seat", "deadline", "time")
    PLAYER_ID_FIELD_NUMBER: _ClassVar[int]
    SEAT_FIELD_NUMBER: _ClassVar[int]
    DEADLINE_FIELD_NUMBER: _ClassVar[int]
    TIME_FIELD_NUMBER: _ClassVar[int]
    player_id: str
    seat: int
    deadline: _timestamp_pb2.Timestamp
    time: _timestamp_pb2.Timestamp
    def __init__(self, player_id: _Optional[str] = ..., seat: _Optional[int] = ..., deadline: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ..., time: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ...) -> None: ...

class TablePaused(_message.Message):
    __slots__ = ("operator", "reason", "time")
    OPERATOR_FIELD_NUMBER: _ClassVar[int]
    REASON_FIELD_NUMBER: _ClassVar[int]
    TIME_FIELD_NUMBER: _ClassVar[int]
    operator: str
    reason: str
    time: _timestamp_pb2.Timestamp
    def __init__(self, operator: _Optional[str] = ..., reason: _Optional[str] = ..., time: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ...) -> None: ...

class TableResumed(_message.Message):
    __slots__ = ("operator", "reason", "time")
    OPERATOR_FIELD_NUMBER: _ClassVar[int]
    REASON_FIELD_NUMBER: _ClassVar[int]
    TIME_FIELD_NUMBER: _ClassVar[int]
    operator: str
    reason: str
    time: _timestamp_pb2.Timestamp
    def __init__(self, operator: _Optional[str] = ..., reason: _Optional[str] = ..., time: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ...) -> None: ...

class TableClosed(_message.Message):
    __slots__ = ("operator", "reason", "time")
    OPERATOR_FIELD_NUMBER: _ClassVar[int]
    REASON_FIELD_NUMBER: _ClassVar[int]
    TIME_FIELD_NUMBER: _ClassVar[int]
    operator: str
    reason: str
    time: _timestamp_pb2.Timestamp
    def __init__(self, operator: _Optional[str] = ..., reason: _Optional[str] = ..., time: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ...) -> None: ...

class ReturnedChips(_message.Message):
    __slots__ = ("seat", "amount")
    SEAT_FIELD_NUMBER: _ClassVar[int]
    AMOUNT_FIELD_NUMBER: _ClassVar[int]
    seat: int
    amount: int
    def __init__(self, seat: _Optional[int] = ..., amount: _Optional[int] = ...) -> None: ...

class HandVoided(_message.Message):
    __slots__ = ("hand", "operator", "reason", "automatic", "returned", "time")
    HAND_FIELD_NUMBER: _ClassVar[int]
    OPERATOR_FIELD_NUMBER: _ClassVar[int]
    REASON_FIELD_NUMBER: _ClassVar[int]
    AUTOMATIC_FIELD_NUMBER: _ClassVar[int]
    RETURNED_FIELD_NUMBER: _ClassVar[int]
    TIME_FIELD_NUMBER: _ClassVar[int]
    hand: int
    operator: str
    reason: str
    automatic: bool
    returned: _containers.RepeatedCompositeFieldContainer[ReturnedChips]
    time: _timestamp_pb2.Timestamp
    def __init__(self, hand: _Optional[int] = ..., operator: _Optional[str] = ..., reason: _Optional[str] = ..., automatic: _Optional[bool] = ..., returned: _Optional[_Iterable[_Union[ReturnedChips, _Mapping]]] = ..., time: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ...) -> None: ...

class TableSettingsChanged(_message.Message):
    __slots__ = ("operator", "reason", "fields", "settings", "previous", "time")
    OPERATOR_FIELD_NUMBER: _ClassVar[int]
    REASON_FIELD_NUMBER: _ClassVar[int]
    FIELDS_FIELD_NUMBER: _ClassVar[int]
    SETTINGS_FIELD_NUMBER: _ClassVar[int]
    PREVIOUS_FIELD_NUMBER: _ClassVar[int]
    TIME_FIELD_NUMBER: _ClassVar[int]
    operator: str
    reason: str
    fields: _containers.RepeatedScalarFieldContainer[str]
    settings: _table_pb2.Table
    previous: _table_pb2.Table
    time: _timestamp_pb2.Timestamp
    def __init__(self, operator: _Optional[str] = ..., reason: _Optional[str] = ..., fields: _Optional[_Iterable[str]] = ..., settings: _Optional[_Union[_table_pb2.Table, _Mapping]] = ..., previous: _Optional[_Union[_table_pb2.Table, _Mapping]] = ..., time: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ...) -> None: ...

class SeatTimeBank(_message.Message):
    __slots__ = ("seat", "reserve", "hands_dealt")
    SEAT_FIELD_NUMBER: _ClassVar[int]
    RESERVE_FIELD_NUMBER: _ClassVar[int]
    HANDS_DEALT_FIELD_NUMBER: _ClassVar[int]
    seat: int
    reserve: _duration_pb2.Duration
    hands_dealt: int
    def __init__(self, seat: _Optional[int] = ..., reserve: _Optional[_Union[datetime.timedelta, _duration_pb2.Duration, _Mapping]] = ..., hands_dealt: _Optional[int] = ...) -> None: ...

class TimeBanksAtStart(_message.Message):
    __slots__ = ("hand", "banks")
    HAND_FIELD_NUMBER: _ClassVar[int]
    BANKS_FIELD_NUMBER: _ClassVar[int]
    hand: int
    banks: _containers.RepeatedCompositeFieldContainer[SeatTimeBank]
    def __init__(self, hand: _Optional[int] = ..., banks: _Optional[_Iterable[_Union[SeatTimeBank, _Mapping]]] = ...) -> None: ...

class TimeBankStarted(_message.Message):
    __slots__ = ("hand", "seat", "reserve", "deadline", "time")
    HAND_FIELD_NUMBER: _ClassVar[int]
    SEAT_FIELD_NUMBER: _ClassVar[int]
    RESERVE_FIELD_NUMBER: _ClassVar[int]
    DEADLINE_FIELD_NUMBER: _ClassVar[int]
    TIME_FIELD_NUMBER: _ClassVar[int]
    hand: int
    seat: int
    reserve: _duration_pb2.Duration
    deadline: _timestamp_pb2.Timestamp
    time: _timestamp_pb2.Timestamp
    def __init__(self, hand: _Optional[int] = ..., seat: _Optional[int] = ..., reserve: _Optional[_Union[datetime.timedelta, _duration_pb2.Duration, _Mapping]] = ..., deadline: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ..., time: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ...) -> None: ...

class TimeBankUsed(_message.Message):
    __slots__ = ("hand", "seat", "used", "reserve", "time")
    HAND_FIELD_NUMBER: _ClassVar[int]
    SEAT_FIELD_NUMBER: _ClassVar[int]
    USED_FIELD_NUMBER: _ClassVar[int]
    RESERVE_FIELD_NUMBER: _ClassVar[int]
    TIME_FIELD_NUMBER: _ClassVar[int]
    hand: int
    seat: int
    used: _duration_pb2.Duration
    reserve: _duration_pb2.Duration
    time: _timestamp_pb2.Timestamp
    def __init__(self, hand: _Optional[int] = ..., seat: _Optional[int] = ..., used: _Optional[_Union[datetime.timedelta, _duration_pb2.Duration, _Mapping]] = ..., reserve: _Optional[_Union[datetime.timedelta, _duration_pb2.Duration, _Mapping]] = ..., time: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ...) -> None: ...

class TimeBankRefilled(_message.Message):
    __slots__ = ("hand", "seat", "added", "reserve")
    HAND_FIELD_NUMBER: _ClassVar[int]
    SEAT_FIELD_NUMBER: _ClassVar[int]
    ADDED_FIELD_NUMBER: _ClassVar[int]
    RESERVE_FIELD_NUMBER: _ClassVar[int]
    hand: int
    seat: int
    added: _duration_pb2.Duration
    reserve: _duration_pb2.Duration
    def __init__(self, hand: _Optional[int] = ..., seat: _Optional[int] = ..., added: _Optional[_Union[datetime.timedelta, _duration_pb2.Duration, _Mapping]] = ..., reserve: _Optional[_Union[datetime.timedelta, _duration_pb2.Duration, _Mapping]] = ...) -> None: ...

class ChatMessageSent(_message.Message):
    __slots__ = ("number", "player_id", "seat", "text", "deleted", "time")
    NUMBER_FIELD_NUMBER: _ClassVar[int]
    PLAYER_ID_FIELD_NUMBER: _ClassVar[int]
    SEAT_FIELD_NUMBER: _ClassVar[int]
    TEXT_FIELD_NUMBER: _ClassVar[int]
    DELETED_FIELD_NUMBER: _ClassVar[int]
    TIME_FIELD_NUMBER: _ClassVar[int]
    number: int
    player_id: str
    seat: int
    text: str
    deleted: bool
    time: _timestamp_pb2.Timestamp
    def __init__(self, number: _Optional[int] = ..., player_id: _Optional[str] = ..., seat: _Optional[int] = ..., text: _Optional[str] = ..., deleted: _Optional[bool] = ..., time: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ...) -> None: ...

class ChatMessageDeleted(_message.Message):
    __slots__ = ("number", "by", "reason", "time")
    NUMBER_FIELD_NUMBER: _ClassVar[int]
    BY_FIELD_NUMBER: _ClassVar[int]
    REASON_FIELD_NUMBER: _ClassVar[int]
    TIME_FIELD_NUMBER: _ClassVar[int]
    number: int
    by: str
    reason: str
    time: _timestamp_pb2.Timestamp
    def __init__(self, number: _Optional[int] = ..., by: _Optional[str] = ..., reason: _Optional[str] = ..., time: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ...) -> None: ...

class ChatMuteSet(_message.Message):
    __slots__ = ("player_id", "muted", "by", "reason", "time")
    PLAYER_ID_FIELD_NUMBER: _ClassVar[int]
    MUTED_FIELD_NUMBER: _ClassVar[int]
    BY_FIELD_NUMBER: _ClassVar[int]
    REASON_FIELD_NUMBER: _ClassVar[int]
    TIME_FIELD_NUMBER: _ClassVar[int]
    player_id: str
    muted: bool
    by: str
    reason: str
    time: _timestamp_pb2.Timestamp
    def __init__(self, player_id: _Optional[str] = ..., muted: _Optional[bool] = ..., by: _Optional[str] = ..., reason: _Optional[str] = ..., time: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ...) -> None: ...

class GameChanged(_message.Message):
    __slots__ = ("after_hand", "game", "hands", "time")
    AFTER_HAND_FIELD_NUMBER: _ClassVar[int]
    GAME_FIELD_NUMBER: _ClassVar[int]
    HANDS_FIELD_NUMBER: _ClassVar[int]
    TIME_FIELD_NUMBER: _ClassVar[int]
    after_hand: int
    game: _table_pb2.Variant
    hands: int
    time: _timestamp_pb2.Timestamp
    def __init__(self, after_hand: _Optional[int] = ..., game: _Optional[_Union[_table_pb2.Variant, str]] = ..., hands: _Optional[int] = ..., time: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ...) -> None: ...
