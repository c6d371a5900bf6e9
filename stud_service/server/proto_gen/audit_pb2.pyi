import datetime

from google.api import field_behavior_pb2 as _field_behavior_pb2
from google.api import resource_pb2 as _resource_pb2
from google.protobuf import timestamp_pb2 as _timestamp_pb2
from . import events_pb2 as _events_pb2
from . import table_pb2 as _table_pb2
from google.protobuf.internal import containers as _containers
from google.protobuf.internal import enum_type_wrapper as _enum_type_wrapper
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from collections.abc import Iterable as _Iterable, Mapping as _Mapping
from typing import ClassVar as _ClassVar, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor

class AccessOutcome(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    ACCESS_OUTCOME_UNSPECIFIED: _ClassVar[AccessOutcome]
    ACCESS_OUTCOME_ALLOWED: _ClassVar[AccessOutcome]
    ACCESS_OUTCOME_REFUSED: _ClassVar[AccessOutcome]

class SessionEnd(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    SESSION_END_UNSPECIFIED: _ClassVar[SessionEnd]
    SESSION_END_CLOSED: _ClassVar[SessionEnd]
    SESSION_END_IDLE: _ClassVar[SessionEnd]
    SESSION_END_SHUTDOWN: _ClassVar[SessionEnd]
    SESSION_END_REPLICA_LOST: _ClassVar[SessionEnd]
ACCESS_OUTCOME_UNSPECIFIED: AccessOutcome
ACCESS_OUTCOME_ALLOWED: AccessOutcome
ACCESS_OUTCOME_REFUSED: AccessOutcome
SESSION_END_UNSPECIFIED: SessionEnd
SESSION_END_CLOSED: SessionEnd
SESSION_END_IDLE: SessionEnd
SESSION_END_SHUTDOWN: SessionEnd
SESSION_END_REPLICA_LOST: SessionEnd

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
    __slots__ = ("name", "summary", "events", "deck_commitment", "server_seed", "client_seeds", "deck_root")
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
    DECK_ROOT_FIELD_NUMBER: _ClassVar[int]
    name: str
    summary: HandSummary
    events: _containers.RepeatedCompositeFieldContainer[_events_pb2.TableEvent]
    deck_commitment: str
    server_seed: str
    client_seeds: _containers.ScalarMap[int, str]
    deck_root: str
    def __init__(self, name: _Optional[str] = ..., summary: _Optional[_Union[HandSummary, _Mapping]] = ..., events: _Optional[_Iterable[_Union[_events_pb2.TableEvent, _Mapping]]] = ..., deck_commitment: _Optional[str] = ..., server_seed: _Optional[str] = ..., client_seeds: _Optional[_Mapping[int, str]] = ..., deck_root: _Optional[str] = ...) -> None: ...

class CardProof(_message.Message):
    __slots__ = ("position", "card", "salt", "path")
    POSITION_FIELD_NUMBER: _ClassVar[int]
    CARD_FIELD_NUMBER: _ClassVar[int]
    SALT_FIELD_NUMBER: _ClassVar[int]
    PATH_FIELD_NUMBER: _ClassVar[int]
    position: int
    card: int
    salt: str
    path: _containers.RepeatedScalarFieldContainer[str]
    def __init__(self, position: _Optional[int] = ..., card: _Optional[int] = ..., salt: _Optional[str] = ..., path: _Optional[_Iterable[str]] = ...) -> None: ...

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

class CurrencyBooks(_message.Message):
    __slots__ = ("currency", "deposits", "withdrawals", "balances", "chips_at_tables", "rake_taken", "house_balance", "unswept_rake", "difference", "accounts", "tables", "prize_pools", "fees", "tournaments")
    CURRENCY_FIELD_NUMBER: _ClassVar[int]
    DEPOSITS_FIELD_NUMBER: _ClassVar[int]
    WITHDRAWALS_FIELD_NUMBER: _ClassVar[int]
    BALANCES_FIELD_NUMBER: _ClassVar[int]
    CHIPS_AT_TABLES_FIELD_NUMBER: _ClassVar[int]
    RAKE_TAKEN_FIELD_NUMBER: _ClassVar[int]
    HOUSE_BALANCE_FIELD_NUMBER: _ClassVar[int]
    UNSWEPT_RAKE_FIELD_NUMBER: _ClassVar[int]
    DIFFERENCE_FIELD_NUMBER: _ClassVar[int]
    ACCOUNTS_FIELD_NUMBER: _ClassVar[int]
    TABLES_FIELD_NUMBER: _ClassVar[int]
    PRIZE_POOLS_FIELD_NUMBER: _ClassVar[int]
    FEES_FIELD_NUMBER: _ClassVar[int]
    TOURNAMENTS_FIELD_NUMBER: _ClassVar[int]
    currency: str
    deposits: int
    withdrawals: int
    balances: int
    chips_at_tables: int
    rake_taken: int
    house_balance: int
    unswept_rake: int
    difference: int
    accounts: int
    tables: int
    prize_pools: int
    fees: int
    tournaments: int
    def __init__(self, currency: _Optional[str] = ..., deposits: _Optional[int] = ..., withdrawals: _Optional[int] = ..., balances: _Optional[int] = ..., chips_at_tables: _Optional[int] = ..., rake_taken: _Optional[int] = ..., house_balance: _Optional[int] = ..., unswept_rake: _Optional[int] = ..., difference: _Optional[int] = ..., accounts: _Optional[int] = ..., tables: _Optional[int] = ..., prize_pools: _Optional[int] = ..., fees: _Optional[int] = ..., tournaments: _Optional[int] = ...) -> None: ...

class TableBooks(_message.Message):
    __slots__ = ("table", "currency", "buy_ins", "top_ups", "cash_outs", "rake_taken", "rake_swept", "chips", "chips_in_hand", "hands_ended")
    TABLE_FIELD_NUMBER: _ClassVar[int]
    CURRENCY_FIELD_NUMBER: _ClassVar[int]
    BUY_INS_FIELD_NUMBER: _ClassVar[int]
    TOP_UPS_FIELD_NUMBER: _ClassVar[int]
    CASH_OUTS_FIELD_NUMBER: _ClassVar[int]
    RAKE_TAKEN_FIELD_NUMBER: _ClassVar[int]
    RAKE_SWEPT_FIELD_NUMBER: _ClassVar[int]
    CHIPS_FIELD_NUMBER: _ClassVar[int]
    CHIPS_IN_HAND_FIELD_NUMBER: _ClassVar[int]
    HANDS_ENDED_FIELD_NUMBER: _ClassVar[int]
    table: str
    currency: str
    buy_ins: int
    top_ups: int
    cash_outs: int
    rake_taken: int
    rake_swept: int
    chips: int
    chips_in_hand: int
    hands_ended: int
    def __init__(self, table: _Optional[str] = ..., currency: _Optional[str] = ..., buy_ins: _Optional[int] = ..., top_ups: _Optional[int] = ..., cash_outs: _Optional[int] = ..., rake_taken: _Optional[int] = ..., rake_swept: _Optional[int] = ..., chips: _Optional[int] = ..., chips_in_hand: _Optional[int] = ..., hands_ended: _Optional[int] = ...) -> None: ...

class AccountBooks(_message.Message):
    __slots__ = ("account", "player_id", "currency", "deposits", "withdrawals", "buy_ins", "cash_outs", "balance")
    ACCOUNT_FIELD_NUMBER: _ClassVar[int]
    PLAYER_ID_FIELD_NUMBER: _ClassVar[int]
    CURRENCY_FIELD_NUMBER: _ClassVar[int]
    DEPOSITS_FIELD_NUMBER: _ClassVar[int]
    WITHDRAWALS_FIELD_NUMBER: _ClassVar[int]
    BUY_INS_FIELD_NUMBER: _ClassVar[int]
    CASH_OUTS_FIELD_NUMBER: _ClassVar[int]
    BALANCE_FIELD_NUMBER: _ClassVar[int]
    account: str
    player_id: str
    currency: str
    deposits: int
    withdrawals: int
    buy_ins: int
    cash_outs: int
    balance: int
    def __init__(self, account: _Optional[str] = ..., player_id: _Optional[str] = ..., currency: _Optional[str] = ..., deposits: _Optional[int] = ..., withdrawals: _Optional[int] = ..., buy_ins: _Optional[int] = ..., cash_outs: _Optional[int] = ..., balance: _Optional[int] = ...) -> None: ...

class MoneyDiscrepancy(_message.Message):
    __slots__ = ("stream", "version", "message", "currency")
    STREAM_FIELD_NUMBER: _ClassVar[int]
    VERSION_FIELD_NUMBER: _ClassVar[int]
    MESSAGE_FIELD_NUMBER: _ClassVar[int]
    CURRENCY_FIELD_NUMBER: _ClassVar[int]
    stream: str
    version: int
    message: str
    currency: str
    def __init__(self, stream: _Optional[str] = ..., version: _Optional[int] = ..., message: _Optional[str] = ..., currency: _Optional[str] = ...) -> None: ...

class MoneyReconciliation(_message.Message):
    __slots__ = ("balanced", "as_of", "events_in_log", "events_read", "currencies", "tables", "accounts", "discrepancies", "discrepancy_count")
    BALANCED_FIELD_NUMBER: _ClassVar[int]
    AS_OF_FIELD_NUMBER: _ClassVar[int]
    EVENTS_IN_LOG_FIELD_NUMBER: _ClassVar[int]
    EVENTS_READ_FIELD_NUMBER: _ClassVar[int]
    CURRENCIES_FIELD_NUMBER: _ClassVar[int]
    TABLES_FIELD_NUMBER: _ClassVar[int]
    ACCOUNTS_FIELD_NUMBER: _ClassVar[int]
    DISCREPANCIES_FIELD_NUMBER: _ClassVar[int]
    DISCREPANCY_COUNT_FIELD_NUMBER: _ClassVar[int]
    balanced: bool
    as_of: _timestamp_pb2.Timestamp
    events_in_log: int
    events_read: int
    currencies: _containers.RepeatedCompositeFieldContainer[CurrencyBooks]
    tables: _containers.RepeatedCompositeFieldContainer[TableBooks]
    accounts: _containers.RepeatedCompositeFieldContainer[AccountBooks]
    discrepancies: _containers.RepeatedCompositeFieldContainer[MoneyDiscrepancy]
    discrepancy_count: int
    def __init__(self, balanced: _Optional[bool] = ..., as_of: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ..., events_in_log: _Optional[int] = ..., events_read: _Optional[int] = ..., currencies: _Optional[_Iterable[_Union[CurrencyBooks, _Mapping]]] = ..., tables: _Optional[_Iterable[_Union[TableBooks, _Mapping]]] = ..., accounts: _Optional[_Iterable[_Union[AccountBooks, _Mapping]]] = ..., discrepancies: _Optional[_Iterable[_Union[MoneyDiscrepancy, _Mapping]]] = ..., discrepancy_count: _Optional[int] = ...) -> None: ...

class IntegrityReport(_message.Message):
    __slots__ = ("events_in_log", "events_read", "hands", "tables", "players", "pair_count", "flagged_count", "flag_score", "sessions_recorded", "heads_up_checked_rate", "raise_wars_per_round", "pairs")
    EVENTS_IN_LOG_FIELD_NUMBER: _ClassVar[int]
    EVENTS_READ_FIELD_NUMBER: _ClassVar[int]
    HANDS_FIELD_NUMBER: _ClassVar[int]
    TABLES_FIELD_NUMBER: _ClassVar[int]
    PLAYERS_FIELD_NUMBER: _ClassVar[int]
    PAIR_COUNT_FIELD_NUMBER: _ClassVar[int]
    FLAGGED_COUNT_FIELD_NUMBER: _ClassVar[int]
    FLAG_SCORE_FIELD_NUMBER: _ClassVar[int]
    SESSIONS_RECORDED_FIELD_NUMBER: _ClassVar[int]
    HEADS_UP_CHECKED_RATE_FIELD_NUMBER: _ClassVar[int]
    RAISE_WARS_PER_ROUND_FIELD_NUMBER: _ClassVar[int]
    PAIRS_FIELD_NUMBER: _ClassVar[int]
    events_in_log: int
    events_read: int
    hands: int
    tables: int
    players: int
    pair_count: int
    flagged_count: int
    flag_score: float
    sessions_recorded: bool
    heads_up_checked_rate: float
    raise_wars_per_round: float
    pairs: _containers.RepeatedCompositeFieldContainer[PairEvidence]
    def __init__(self, events_in_log: _Optional[int] = ..., events_read: _Optional[int] = ..., hands: _Optional[int] = ..., tables: _Optional[int] = ..., players: _Optional[int] = ..., pair_count: _Optional[int] = ..., flagged_count: _Optional[int] = ..., flag_score: _Optional[float] = ..., sessions_recorded: _Optional[bool] = ..., heads_up_checked_rate: _Optional[float] = ..., raise_wars_per_round: _Optional[float] = ..., pairs: _Optional[_Iterable[_Union[PairEvidence, _Mapping]]] = ...) -> None: ...

class PairEvidence(_message.Message):
    __slots__ = ("player_ids", "hands", "score", "flagged", "reasons", "flow_from", "flow_to", "net_flow", "flow_expected", "flow_at_showdown", "flow_z", "soft_play", "heads_up_rounds", "heads_up_checked", "check_down_z", "raise_wars", "three_way_rounds", "raise_wars_expected", "raise_wars_z", "timing", "sessions")
    PLAYER_IDS_FIELD_NUMBER: _ClassVar[int]
    HANDS_FIELD_NUMBER: _ClassVar[int]
    SCORE_FIELD_NUMBER: _ClassVar[int]
    FLAGGED_FIELD_NUMBER: _ClassVar[int]
    REASONS_FIELD_NUMBER: _ClassVar[int]
    FLOW_FROM_FIELD_NUMBER: _ClassVar[int]
    FLOW_TO_FIELD_NUMBER: _ClassVar[int]
    NET_FLOW_FIELD_NUMBER: _ClassVar[int]
    FLOW_EXPECTED_FIELD_NUMBER: _ClassVar[int]
    FLOW_AT_SHOWDOWN_FIELD_NUMBER: _ClassVar[int]
    FLOW_Z_FIELD_NUMBER: _ClassVar[int]
    SOFT_PLAY_FIELD_NUMBER: _ClassVar[int]
    HEADS_UP_ROUNDS_FIELD_NUMBER: _ClassVar[int]
    HEADS_UP_CHECKED_FIELD_NUMBER: _ClassVar[int]
    CHECK_DOWN_Z_FIELD_NUMBER: _ClassVar[int]
    RAISE_WARS_FIELD_NUMBER: _ClassVar[int]
    THREE_WAY_ROUNDS_FIELD_NUMBER: _ClassVar[int]
    RAISE_WARS_EXPECTED_FIELD_NUMBER: _ClassVar[int]
    RAISE_WARS_Z_FIELD_NUMBER: _ClassVar[int]
    TIMING_FIELD_NUMBER: _ClassVar[int]
    SESSIONS_FIELD_NUMBER: _ClassVar[int]
    player_ids: _containers.RepeatedScalarFieldContainer[str]
    hands: int
    score: float
    flagged: bool
    reasons: _containers.RepeatedScalarFieldContainer[str]
    flow_from: str
    flow_to: str
    net_flow: int
    flow_expected: int
    flow_at_showdown: int
    flow_z: float
    soft_play: _containers.RepeatedCompositeFieldContainer[SoftPlayEvidence]
    heads_up_rounds: int
    heads_up_checked: int
    check_down_z: float
    raise_wars: int
    three_way_rounds: int
    raise_wars_expected: float
    raise_wars_z: float
    timing: _containers.RepeatedCompositeFieldContainer[TimingEvidence]
    sessions: SessionOverlap
    def __init__(self, player_ids: _Optional[_Iterable[str]] = ..., hands: _Optional[int] = ..., score: _Optional[float] = ..., flagged: _Optional[bool] = ..., reasons: _Optional[_Iterable[str]] = ..., flow_from: _Optional[str] = ..., flow_to: _Optional[str] = ..., net_flow: _Optional[int] = ..., flow_expected: _Optional[int] = ..., flow_at_showdown: _Optional[int] = ..., flow_z: _Optional[float] = ..., soft_play: _Optional[_Iterable[_Union[SoftPlayEvidence, _Mapping]]] = ..., heads_up_rounds: _Optional[int] = ..., heads_up_checked: _Optional[int] = ..., check_down_z: _Optional[float] = ..., raise_wars: _Optional[int] = ..., three_way_rounds: _Optional[int] = ..., raise_wars_expected: _Optional[float] = ..., raise_wars_z: _Optional[float] = ..., timing: _Optional[_Iterable[_Union[TimingEvidence, _Mapping]]] = ..., sessions: _Optional[_Union[SessionOverlap, _Mapping]] = ...) -> None: ...

class SoftPlayEvidence(_message.Message):
    __slots__ = ("player_id", "bettor_id", "faced", "folds", "faced_better", "folds_better", "player_others_faced_better", "player_others_folds_better", "bettor_others_faced_better", "bettor_others_folds_better", "z")
    PLAYER_ID_FIELD_NUMBER: _ClassVar[int]
    BETTOR_ID_FIELD_NUMBER: _ClassVar[int]
    FACED_FIELD_NUMBER: _ClassVar[int]
    FOLDS_FIELD_NUMBER: _ClassVar[int]
    FACED_BETTER_FIELD_NUMBER: _ClassVar[int]
    FOLDS_BETTER_FIELD_NUMBER: _ClassVar[int]
    PLAYER_OTHERS_FACED_BETTER_FIELD_NUMBER: _ClassVar[int]
    PLAYER_OTHERS_FOLDS_BETTER_FIELD_NUMBER: _ClassVar[int]
    BETTOR_OTHERS_FACED_BETTER_FIELD_NUMBER: _ClassVar[int]
    BETTOR_OTHERS_FOLDS_BETTER_FIELD_NUMBER: _ClassVar[int]
    Z_FIELD_NUMBER: _ClassVar[int]
    player_id: str
    bettor_id: str
    faced: int
    folds: int
    faced_better: int
    folds_better: int
    player_others_faced_better: int
    player_others_folds_better: int
    bettor_others_faced_better: int
    bettor_others_folds_better: int
    z: float
    def __init__(self, player_id: _Optional[str] = ..., bettor_id: _Optional[str] = ..., faced: _Optional[int] = ..., folds: _Optional[int] = ..., faced_better: _Optional[int] = ..., folds_better: _Optional[int] = ..., player_others_faced_better: _Optional[int] = ..., player_others_folds_better: _Optional[int] = ..., bettor_others_faced_better: _Optional[int] = ..., bettor_others_folds_better: _Optional[int] = ..., z: _Optional[float] = ...) -> None: ...

class TimingEvidence(_message.Message):
    __slots__ = ("player_id", "bettor_id", "mean_ms", "others_mean_ms", "actions", "z")
    PLAYER_ID_FIELD_NUMBER: _ClassVar[int]
    BETTOR_ID_FIELD_NUMBER: _ClassVar[int]
    MEAN_MS_FIELD_NUMBER: _ClassVar[int]
    OTHERS_MEAN_MS_FIELD_NUMBER: _ClassVar[int]
    ACTIONS_FIELD_NUMBER: _ClassVar[int]
    Z_FIELD_NUMBER: _ClassVar[int]
    player_id: str
    bettor_id: str
    mean_ms: float
    others_mean_ms: float
    actions: int
    z: float
    def __init__(self, player_id: _Optional[str] = ..., bettor_id: _Optional[str] = ..., mean_ms: _Optional[float] = ..., others_mean_ms: _Optional[float] = ..., actions: _Optional[int] = ..., z: _Optional[float] = ...) -> None: ...

class SessionOverlap(_message.Message):
    __slots__ = ("shared_network_sessions", "shared_device_sessions")
    SHARED_NETWORK_SESSIONS_FIELD_NUMBER: _ClassVar[int]
    SHARED_DEVICE_SESSIONS_FIELD_NUMBER: _ClassVar[int]
    shared_network_sessions: int
    shared_device_sessions: int
    def __init__(self, shared_network_sessions: _Optional[int] = ..., shared_device_sessions: _Optional[int] = ...) -> None: ...

class AccessRecord(_message.Message):
    __slots__ = ("principal_id", "role", "method", "resource", "time", "peer", "outcome", "refusal_reason", "log_stream", "log_version")
    PRINCIPAL_ID_FIELD_NUMBER: _ClassVar[int]
    ROLE_FIELD_NUMBER: _ClassVar[int]
    METHOD_FIELD_NUMBER: _ClassVar[int]
    RESOURCE_FIELD_NUMBER: _ClassVar[int]
    TIME_FIELD_NUMBER: _ClassVar[int]
    PEER_FIELD_NUMBER: _ClassVar[int]
    OUTCOME_FIELD_NUMBER: _ClassVar[int]
    REFUSAL_REASON_FIELD_NUMBER: _ClassVar[int]
    LOG_STREAM_FIELD_NUMBER: _ClassVar[int]
    LOG_VERSION_FIELD_NUMBER: _ClassVar[int]
    principal_id: str
    role: str
    method: str
    resource: str
    time: _timestamp_pb2.Timestamp
    peer: str
    outcome: AccessOutcome
    refusal_reason: str
    log_stream: str
    log_version: int
    def __init__(self, principal_id: _Optional[str] = ..., role: _Optional[str] = ..., method: _Optional[str] = ..., resource: _Optional[str] = ..., time: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ..., peer: _Optional[str] = ..., outcome: _Optional[_Union[AccessOutcome, str]] = ..., refusal_reason: _Optional[str] = ..., log_stream: _Optional[str] = ..., log_version: _Optional[int] = ...) -> None: ...

class PlayerSession(_message.Message):
    __slots__ = ("session_id", "player_id", "transport", "connection", "address", "device_id", "start_time", "end_time", "end", "tables", "calls", "log_stream", "log_version")
    SESSION_ID_FIELD_NUMBER: _ClassVar[int]
    PLAYER_ID_FIELD_NUMBER: _ClassVar[int]
    TRANSPORT_FIELD_NUMBER: _ClassVar[int]
    CONNECTION_FIELD_NUMBER: _ClassVar[int]
    ADDRESS_FIELD_NUMBER: _ClassVar[int]
    DEVICE_ID_FIELD_NUMBER: _ClassVar[int]
    START_TIME_FIELD_NUMBER: _ClassVar[int]
    END_TIME_FIELD_NUMBER: _ClassVar[int]
    END_FIELD_NUMBER: _ClassVar[int]
    TABLES_FIELD_NUMBER: _ClassVar[int]
    CALLS_FIELD_NUMBER: _ClassVar[int]
    LOG_STREAM_FIELD_NUMBER: _ClassVar[int]
    LOG_VERSION_FIELD_NUMBER: _ClassVar[int]
    session_id: str
    player_id: str
    transport: str
    connection: str
    address: str
    device_id: str
    start_time: _timestamp_pb2.Timestamp
    end_time: _timestamp_pb2.Timestamp
    end: SessionEnd
    tables: _containers.RepeatedScalarFieldContainer[str]
    calls: int
    log_stream: str
    log_version: int
    def __init__(self, session_id: _Optional[str] = ..., player_id: _Optional[str] = ..., transport: _Optional[str] = ..., connection: _Optional[str] = ..., address: _Optional[str] = ..., device_id: _Optional[str] = ..., start_time: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ..., end_time: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ..., end: _Optional[_Union[SessionEnd, str]] = ..., tables: _Optional[_Iterable[str]] = ..., calls: _Optional[int] = ..., log_stream: _Optional[str] = ..., log_version: _Optional[int] = ...) -> None: ...
