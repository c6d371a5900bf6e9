"""The game engine: Seven Card Stud, Stud Hi-Lo and Razz as pure functions over events.

No I/O, no clock, no randomness: time comes in as ``now_ms`` on commands, the shuffled deck with
``StartHand``.  It imports only ``stud_service.cards``, ``stud_service.native``,
``stud_service.currency`` and the stdlib.
Every rule of RULES.md lives in ``stud_service.engine.rules`` in a function named after it.

The public API (import from ``stud_service.engine``)::

    # configuration (RULES.md §1, §3, §4, §7, §10)
    TableConfig(variant=Variant.STUD, ante=50, bring_in=100, small_bet=200, big_bet=400,
                min_buy_in=4000, max_buy_in=40000, seats=8, action_clock_seconds=30,
                bring_in_tiebreak=BringInTiebreak.SUIT, uncapped_heads_up=False,
                allow_full_bring_in=False, name="", seat_offer_seconds=60, currency="USD",
                rake_basis_points=0, rake_cap_2=0, rake_cap_3_4=0, rake_cap_5_plus=0,
                tournament_id="", tournament_level=0, interrupted_hand_void_seconds=0, time_bank_seconds=0,
                time_bank_refill_seconds=0, time_bank_refill_hands=0, chat_spectators=False,
                chat_all_in_silence=False,
                same_network=SameNetworkRule.OFF)
                                                 .validate() -> raises InvalidConfig(field)
    a tournament table (§11: tournament_id set): tournament chips (currency ""), no rake, no top-up,
    no waiting list, no leaving during a hand; a player sitting out is dealt in and acts at once by §7
    Variant.STUD | STUD_HI_LO | RAZZ;   BringInTiebreak.SUIT | POSITION
    SameNetworkRule.OFF | DEVICE | ADDRESS | PREFIX   (who may not sit together: checked by the service)

    # commands (frozen dataclasses; now_ms = caller's clock, ms since the epoch)
    CreateTable(table_id, config, now_ms)       SitDown(player_id, seat, buy_in, now_ms)
    Leave(player_id, now_ms)    SitOut(player_id, now_ms)    SitIn(player_id, now_ms)
    TopUp(player_id, amount, now_ms)    SetClientSeed(player_id, seed, now_ms)   (next hand's shuffle)
    CommitShuffle(commitment: hex str, secret: dict, now_ms)   (the next hand's server seed, committed)
    StartHand(deck: tuple of 52 codes, commitment: hex str, now_ms, extra: dict = {}, stakes=None)
        stakes: Stakes(ante, bring_in, small_bet, big_bet, level): a tournament table's level (§11)
    Act(player_id, action: ActionKind, amount: int | None, now_ms)
        ActionKind: FOLD CHECK CALL BRING_IN COMPLETE BET RAISE; amount = the total the street bet
        becomes ("raise to"), required for BRING_IN/COMPLETE/BET/RAISE, None otherwise
    Timeout(now_ms)             acts for the player to act if their clock ran out (§7), or, at a table
                                with a time bank, starts their reserve first (TimeBankStarted)
    SendChat(player_id, text, now_ms)            the table chat (docs/chat.md)
    MuteChat(player_id, by, reason, muted=True, now_ms)   DeleteChat(number, by, reason, now_ms)
    JoinWaitingList(player_id, now_ms)   LeaveWaitingList(player_id, now_ms)   (a full table)
    ExpireSeatOffers(now_ms)    passes on the seat offers whose time ran out (docs/waiting-list.md)
    stopping a game (§12), each recording who and why:
    PauseTable(operator, reason, now_ms)   ResumeTable(operator, reason, now_ms)
    CloseTable(operator, reason, now_ms)   VoidHand(hand, operator, reason, now_ms)
    VoidInterruptedHand(now_ms)   voids the running hand once nothing happened in it for the table's
                                  interrupted_hand_void_seconds (the owner sends it, as Timeout)
    UpdateTableSettings(operator, reason, settings: {field: value}, now_ms)   between hands only;
                                  the fields of CHANGEABLE_SETTINGS

    # the decider
    initial_state() -> TableState
    decide(state, command) -> list[Event]        raises DomainError; never mutates state
    execute(state, command) -> (events, state)   decide plus the state after the events (no re-apply)
    evolve(state, event) -> TableState           a new state (the old one is untouched)
    replay(events, state=None) -> TableState     fold; also the fast way to apply one decide's events

    # queries
    to_act(state) -> seat | None                 action_deadline_ms(state) -> int | None
        (the running clock's end: the action clock's, or the time bank's once it runs)
    running_clock(state) -> "ACTION" | "TIME_BANK" | None     time_bank_reserve_ms(state, seat) -> ms
    seat_offer_deadline_ms(state) -> int | None  (the first seat offer to run out, docs/waiting-list.md)
    hand_void_deadline_ms(state) -> int | None   (when the running hand is voided as interrupted, §12)
    state.control                                TableControl: open / paused / closed, why, the last void
    turn_number(state) -> int                    the current turn's number (0: nobody to act)
    sit_out_reason(state, seat) -> "request" | "timeout" | "busted" | None
    legal_actions(state, player_id) -> LegalActions(seat, options=((ActionKind, amounts), ...),
                                                   call_amount)
    can_start_hand(state) -> bool                hand_running(state) -> bool
    chips_in_play(state) -> int                  (stacks + chips committed to the running hand)
    state.rake_taken                             the table's rake so far (§10): it left the chips
    next_game(state) -> Variant | None           the game of the next hand (§13: a mixed table's rotation)
    hands_left_in_current_game(state) -> int     of a mixed table's current game, the running hand included

    # events and snapshots as JSON
    event_to_json(event) -> {"type", "v", "hand" (hand events), ...}   v: EVENT_VERSIONS[type(event)]
    event_from_json(dict) -> Event               raises EventDecodeError
    state_to_json(state) / state_from_json(dict) raises StateDecodeError; STATE_FORMAT_VERSION

    # what a viewer may see
    Viewer.seat(player_id) | Viewer.observer() | Viewer.auditor()
    view_event(state, event, viewer, dealt_in=None) -> dict | None
        state: the table at or after the event; dealt_in: seat -> player id of that event's hand
        (from its HandStarted) when the event belongs to an earlier hand than the running one
    views.redact_event_json(event_json, own_seat)   the one rule for what an event hides from a seat
    view_state(state, viewer) -> dict

    # errors: DomainError with .reason (e.g. "NOT_YOUR_TURN") and .grpc_code_name
    #         (e.g. "FAILED_PRECONDITION"); the tree is drawn in stud_service.engine.errors.

A service loop::

    state = replay(stored_events)
    events, new_state = execute(state, Act("alice", ActionKind.RAISE, 800, now_ms))
    store.append(events)                 # as event_to_json(e) each
    state = new_state                    # == replay(events, state)
    if can_start_hand(state): ...        # the service sends StartHand itself

Events (stud_service.engine.events): TableCreated, PlayerSeated, PlayerLeft, LeaveRequested,
PlayerSatOut, PlayerSatIn, PlayerToppedUp, ClientSeedSet, ShuffleCommitted, HandStarted, AntePosted,
CardDealt, BettingRoundStarted, PlayerActed, UncalledBetReturned, HandShown, HandMucked, HandEnded,
WaitingListJoined, WaitingListLeft, SeatOffered, TablePaused, TableResumed, TableClosed, HandVoided,
TableSettingsChanged; the time bank's TimeBanksAtStart, TimeBankStarted, TimeBankUsed, TimeBankRefilled (§7);
the chat's ChatMessageSent, ChatMessageDeleted, ChatMuteSet (docs/chat.md); a mixed table's GameChanged (§13).
"""

from stud_service.engine.codec import (
    STATE_FORMAT_VERSION,
    EventDecodeError,
    StateDecodeError,
    event_from_json,
    event_to_json,
    state_from_json,
    state_to_json,
)
from stud_service.engine.commands import (
    CHANGEABLE_SETTINGS,
    Act,
    ActionKind,
    CloseTable,
    Command,
    CommitShuffle,
    CreateTable,
    DeleteChat,
    ExpireSeatOffers,
    JoinWaitingList,
    Leave,
    LeaveWaitingList,
    MuteChat,
    PauseTable,
    ResumeTable,
    SendChat,
    SetClientSeed,
    SitDown,
    SitIn,
    SitOut,
    Stakes,
    StartHand,
    Timeout,
    TopUp,
    UpdateTableSettings,
    VoidHand,
    VoidInterruptedHand,
)
from stud_service.engine.config import BringInTiebreak, SameNetworkRule, TableConfig, Variant
from stud_service.engine.control import CLOSED, OPEN, PAUSED, TableControl
from stud_service.engine.decide import decide, execute
from stud_service.engine.errors import (
    ActionNotAvailable,
    AlreadyExists,
    AlreadySeated,
    AlreadyWaiting,
    BuyInOutOfLimits,
    ChatMessageNotFound,
    ChatMuted,
    ChatNamesCard,
    ChatRateLimited,
    ChatSilencedAllIn,
    ChatSpectatorsSilent,
    ChatTextRefused,
    DomainError,
    FailedPrecondition,
    HandInterrupted,
    HandNotRunning,
    HandRunning,
    IllegalAmount,
    InvalidArgument,
    InvalidConfig,
    InvalidDeck,
    InvalidSeat,
    NoTable,
    NotEnoughPlayers,
    NotFound,
    NotSeated,
    NotWaiting,
    NotYourTurn,
    OfferNotDue,
    PermissionDenied,
    SeatOnOffer,
    SeatTaken,
    TableExists,
    TableFull,
    TableIsClosed,
    TableIsPaused,
    TableNotFull,
    TableNotPaused,
    TimeoutNotDue,
    TournamentTable,
    VoidNotDue,
    WaitingListFull,
)
from stud_service.engine.events import (
    EVENT_TYPES,
    EVENT_VERSIONS,
    AntePosted,
    BettingRoundStarted,
    CardDealt,
    ChatMessageDeleted,
    ChatMessageSent,
    ChatMuteSet,
    ClientSeedSet,
    Event,
    GameChanged,
    HandEnded,
    HandMucked,
    HandShown,
    HandStarted,
    HandVoided,
    LeaveRequested,
    PlayerActed,
    PlayerLeft,
    PlayerSatIn,
    PlayerSatOut,
    PlayerSeated,
    PlayerToppedUp,
    SeatOffered,
    ShuffleCommitted,
    TableClosed,
    TableCreated,
    TablePaused,
    TableResumed,
    TableSettingsChanged,
    TimeBankRefilled,
    TimeBanksAtStart,
    TimeBankStarted,
    TimeBankUsed,
    UncalledBetReturned,
    WaitingListJoined,
    WaitingListLeft,
)
from stud_service.engine.evolve import InvalidEvent, evolve
from stud_service.engine.legal import LegalActions, legal_actions
from stud_service.engine.replay import replay
from stud_service.engine.state import (
    TableState,
    action_deadline_ms,
    can_start_hand,
    chips_in_play,
    hand_running,
    hand_void_deadline_ms,
    hands_left_in_current_game,
    initial_state,
    next_game,
    running_clock,
    seat_offer_deadline_ms,
    sit_out_reason,
    time_bank_reserve_ms,
    to_act,
    turn_number,
)
from stud_service.engine.views import Viewer, ViewerKind, view_event, view_state

__all__ = [
    "STATE_FORMAT_VERSION", "EVENT_TYPES", "EVENT_VERSIONS", "Act", "ActionKind", "ActionNotAvailable",
    "AlreadyExists", "AlreadySeated", "AntePosted", "BettingRoundStarted", "BringInTiebreak",
    "BuyInOutOfLimits", "CardDealt", "ClientSeedSet", "Command", "CreateTable", "DomainError", "Event",
    "EventDecodeError", "FailedPrecondition", "HandEnded", "HandMucked", "HandNotRunning", "HandRunning",
    "HandShown", "HandStarted", "IllegalAmount", "InvalidArgument", "InvalidConfig", "InvalidDeck",
    "InvalidEvent", "InvalidSeat", "Leave", "LeaveRequested", "LegalActions", "NoTable", "NotEnoughPlayers",
    "NotFound", "NotSeated", "NotYourTurn", "PermissionDenied", "PlayerActed", "PlayerLeft", "PlayerSatIn",
    "PlayerSatOut", "PlayerSeated", "PlayerToppedUp", "SeatTaken", "SetClientSeed", "SitDown", "SitIn",
    "SitOut", "StartHand", "StateDecodeError", "TableConfig", "TableCreated", "TableExists", "TableFull",
    "TableState", "Timeout", "TimeoutNotDue", "TopUp", "UncalledBetReturned", "Variant", "Viewer",
    "ViewerKind", "action_deadline_ms", "can_start_hand", "chips_in_play", "decide", "event_from_json",
    "event_to_json", "evolve", "execute", "hand_running", "initial_state", "legal_actions", "replay",
    "sit_out_reason", "state_from_json", "state_to_json", "to_act", "turn_number", "view_event", "view_state",
    "AlreadyWaiting", "ExpireSeatOffers", "JoinWaitingList", "LeaveWaitingList", "NotWaiting", "OfferNotDue",
    "SeatOffered", "SeatOnOffer", "TableNotFull", "WaitingListFull", "WaitingListJoined", "WaitingListLeft",
    "seat_offer_deadline_ms", "CommitShuffle", "ShuffleCommitted", "Stakes",
    "CHANGEABLE_SETTINGS", "CLOSED", "OPEN", "PAUSED", "CloseTable", "HandInterrupted", "HandVoided",
    "PauseTable", "ResumeTable", "TableClosed", "TableControl", "TableIsClosed", "TableIsPaused",
    "TableNotPaused", "TablePaused", "TableResumed", "TableSettingsChanged", "TournamentTable",
    "UpdateTableSettings", "VoidHand", "VoidInterruptedHand", "VoidNotDue", "hand_void_deadline_ms",
    "TimeBanksAtStart", "TimeBankStarted", "TimeBankUsed", "TimeBankRefilled", "running_clock",
    "time_bank_reserve_ms", "SendChat", "MuteChat", "DeleteChat", "ChatMessageSent", "ChatMessageDeleted",
    "ChatMuteSet", "ChatMessageNotFound", "ChatMuted", "ChatNamesCard",
    "ChatRateLimited", "ChatSilencedAllIn", "ChatSpectatorsSilent", "ChatTextRefused",
    "SameNetworkRule", "GameChanged", "next_game", "hands_left_in_current_game",
]
