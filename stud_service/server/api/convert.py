"""Protobuf <-> engine: table configs in, tables and per-viewer table views out.

A view is built for one viewer (a player id, or None for someone not seated) and never holds a card
that viewer may not see: down cards only for the seat the viewer holds in the running hand, shown
hands from the last hand's result, and never the deck.
"""

from __future__ import annotations

import re
from datetime import UTC, datetime, timedelta
from typing import Any

from google.protobuf import duration_pb2, timestamp_pb2

from stud_service.engine.commands import ActionKind
from stud_service.engine.config import PLAY_CHIPS, BringInTiebreak, SameNetworkRule, TableConfig
from stud_service.engine.control import CLOSED, OPEN, PAUSED, TableControl
from stud_service.engine.errors import InvalidConfig
from stud_service.engine.legal import legal_actions
from stud_service.engine.rules.pots import side_pots
from stud_service.engine.rules.waiting import open_seats
from stud_service.engine.state import (
    TableState,
    action_deadline_ms,
    running_clock,
    sit_out_reason,
    time_bank_reserve_ms,
    to_act,
    turn_number,
)
from stud_service.server.api.errors import malformed
from stud_service.server.api.mixed_games import (
    VARIANT_PROTOS,
    VARIANTS,
    add_rotation,
    current_game_proto,
    last_hand_game,
    mixed_config_values,
    stakes_proto,
)
from stud_service.server.api.time_banks import time_bank_proto, time_bank_values, whole_seconds
from stud_service.server.proto_gen import table_pb2

_EPOCH = datetime(1970, 1, 1, tzinfo=UTC)
_SECOND = timedelta(seconds=1)

REQUEST_ID = re.compile(r"[\x21-\x7e]{1,64}")

TIEBREAKS = {
    table_pb2.BRING_IN_TIEBREAK_SUIT: BringInTiebreak.SUIT,
    table_pb2.BRING_IN_TIEBREAK_POSITION: BringInTiebreak.POSITION,
}
TIEBREAK_PROTOS = {engine: proto for proto, engine in TIEBREAKS.items()}
SAME_NETWORK_RULES = {
    table_pb2.SAME_NETWORK_SEATING_UNSPECIFIED: SameNetworkRule.OFF,
    table_pb2.SAME_NETWORK_SEATING_OFF: SameNetworkRule.OFF,
    table_pb2.SAME_NETWORK_SEATING_DEVICE: SameNetworkRule.DEVICE,
    table_pb2.SAME_NETWORK_SEATING_ADDRESS: SameNetworkRule.ADDRESS,
    table_pb2.SAME_NETWORK_SEATING_PREFIX: SameNetworkRule.PREFIX,
}
SAME_NETWORK_PROTOS = {
    SameNetworkRule.OFF: table_pb2.SAME_NETWORK_SEATING_OFF,
    SameNetworkRule.DEVICE: table_pb2.SAME_NETWORK_SEATING_DEVICE,
    SameNetworkRule.ADDRESS: table_pb2.SAME_NETWORK_SEATING_ADDRESS,
    SameNetworkRule.PREFIX: table_pb2.SAME_NETWORK_SEATING_PREFIX,
}
ACTIONS = {
    table_pb2.ACTION_TYPE_FOLD: ActionKind.FOLD,
    table_pb2.ACTION_TYPE_CHECK: ActionKind.CHECK,
    table_pb2.ACTION_TYPE_CALL: ActionKind.CALL,
    table_pb2.ACTION_TYPE_BRING_IN: ActionKind.BRING_IN,
    table_pb2.ACTION_TYPE_COMPLETE: ActionKind.COMPLETE,
    table_pb2.ACTION_TYPE_BET: ActionKind.BET,
    table_pb2.ACTION_TYPE_RAISE: ActionKind.RAISE,
}
ACTION_PROTOS = {engine: proto for proto, engine in ACTIONS.items()}
AMOUNT_ACTIONS = frozenset({ActionKind.BRING_IN, ActionKind.COMPLETE, ActionKind.BET, ActionKind.RAISE})

# TableConfig fields by their names in the Table message, where they differ.
PROTO_CONFIG_FIELDS = {
    "name": "display_name", "seats": "max_seats", "action_clock_seconds": "action_clock",
    "seat_offer_seconds": "seat_offer_time", "currency": "currency_code",
    **{f: f"stakes.{f}" for f in ("small_bet", "big_bet", "ante", "bring_in")},
    "rake_basis_points": "rake.basis_points", "rake_cap_2": "rake.cap_2_players",
    "rake_cap_3_4": "rake.cap_3_to_4_players", "rake_cap_5_plus": "rake.cap_5_or_more_players",
    "interrupted_hand_void_seconds": "interrupted_hand_void_time",
    "time_bank_seconds": "time_bank.reserve", "time_bank_refill_seconds": "time_bank.refill",
    "time_bank_refill_hands": "time_bank.refill_hands", "chat_spectators": "chat.spectators_write",
    "chat_all_in_silence": "chat.all_in_silence",
}
TABLE_STATUSES = {
    OPEN: table_pb2.TABLE_STATUS_OPEN, PAUSED: table_pb2.TABLE_STATUS_PAUSED,
    CLOSED: table_pb2.TABLE_STATUS_CLOSED,
}
CLOCKS = {"ACTION": table_pb2.CLOCK_KIND_ACTION, "TIME_BANK": table_pb2.CLOCK_KIND_TIME_BANK}

SIT_OUT_REASONS = {
    "request": table_pb2.SIT_OUT_REASON_REQUESTED,
    "timeout": table_pb2.SIT_OUT_REASON_TIMED_OUT,
    "busted": table_pb2.SIT_OUT_REASON_BUSTED,
    "loss_limit": table_pb2.SIT_OUT_REASON_LOSS_LIMIT,
    "session_limit": table_pb2.SIT_OUT_REASON_SESSION_LIMIT,
    "inactive": table_pb2.SIT_OUT_REASON_INACTIVE,
    "excluded": table_pb2.SIT_OUT_REASON_EXCLUDED,
}
POT_HALVES = {"high": table_pb2.POT_HALF_HIGH, "low": table_pb2.POT_HALF_LOW}

# A TableConfig field named inside a message ("must be at least small_bet"), to be renamed as above.
_CONFIG_FIELD_WORD = re.compile(r"\b(?:" + "|".join(PROTO_CONFIG_FIELDS) + r")\b")

# Default buy-in range in big bets when the creator gives stakes but no range.
DEFAULT_MIN_BUY_IN_BIG_BETS = 10
DEFAULT_MAX_BUY_IN_BIG_BETS = 100


def checked_request_id(request_id: str) -> str | None:
    if not request_id:
        return None
    if REQUEST_ID.fullmatch(request_id) is None:
        raise malformed("request_id must be 1..64 printable ASCII characters", "request_id")
    return request_id


def config_from_proto(table: table_pb2.Table, default_action_clock_seconds: int = 30) -> TableConfig:
    """The engine config a CreateTable asks for; zero/unset fields take the documented defaults."""
    defaults = TableConfig()
    values: dict[str, Any] = {
        "name": table.display_name, "action_clock_seconds": default_action_clock_seconds,
    }
    if table.variant != table_pb2.VARIANT_UNSPECIFIED:
        if table.variant not in VARIANTS:
            raise malformed(f"unknown variant {table.variant}", "table.variant")
        values["variant"] = VARIANTS[table.variant]
    big_bet = defaults.big_bet
    if table.HasField("stakes"):
        stakes = table.stakes
        values.update(small_bet=stakes.small_bet, big_bet=stakes.big_bet, ante=stakes.ante,
                      bring_in=stakes.bring_in)
        big_bet = stakes.big_bet
        values["min_buy_in"] = DEFAULT_MIN_BUY_IN_BIG_BETS * big_bet
        values["max_buy_in"] = DEFAULT_MAX_BUY_IN_BIG_BETS * big_bet
    if table.min_buy_in:
        values["min_buy_in"] = table.min_buy_in
    if table.max_buy_in:
        values["max_buy_in"] = table.max_buy_in
    if table.max_seats:
        values["seats"] = table.max_seats
    if table.HasField("action_clock"):
        values["action_clock_seconds"] = whole_seconds(table.action_clock, "table.action_clock")
    if table.HasField("seat_offer_time"):
        values["seat_offer_seconds"] = whole_seconds(table.seat_offer_time, "table.seat_offer_time")
    if table.HasField("interrupted_hand_void_time"):
        values["interrupted_hand_void_seconds"] = whole_seconds(
            table.interrupted_hand_void_time, "table.interrupted_hand_void_time", least=0)
    if table.bring_in_tiebreak != table_pb2.BRING_IN_TIEBREAK_UNSPECIFIED:
        if table.bring_in_tiebreak not in TIEBREAKS:
            raise malformed(f"unknown bring_in_tiebreak {table.bring_in_tiebreak}", "table.bring_in_tiebreak")
        values["bring_in_tiebreak"] = TIEBREAKS[table.bring_in_tiebreak]
    values["uncapped_heads_up"] = table.uncapped_heads_up
    if table.same_network_seating not in SAME_NETWORK_RULES:
        raise malformed(f"unknown same_network_seating {table.same_network_seating}",
                        "table.same_network_seating")
    values["same_network"] = SAME_NETWORK_RULES[table.same_network_seating]
    # Unset: the default currency; play money has none.
    if table.play_money:
        if table.currency_code:
            raise InvalidConfig("table.currency_code", "a play-money table has no currency: leave it empty")
        values["currency"] = PLAY_CHIPS
    else:
        values["currency"] = table.currency_code or defaults.currency
    if table.HasField("rake"):
        rake = table.rake
        values.update(rake_basis_points=rake.basis_points, rake_cap_2=rake.cap_2_players,
                      rake_cap_3_4=rake.cap_3_to_4_players, rake_cap_5_plus=rake.cap_5_or_more_players)
    if table.HasField("time_bank"):
        values.update(time_bank_values(table.time_bank, "table.time_bank"))
    values.update(chat_spectators=table.chat.spectators_write, chat_all_in_silence=table.chat.all_in_silence)
    values.update(mixed_config_values(table))  # §13
    try:
        return TableConfig(**values).validate()
    except InvalidConfig as error:
        raise as_proto_config_error(error, "table.") from None


def as_proto_config_error(error: InvalidConfig, prefix: str) -> InvalidConfig:
    """``error`` named as the client knows the field (``prefix`` + its Table field), in the metadata and
    the text."""
    field = prefix + PROTO_CONFIG_FIELDS.get(error.field, error.field)
    message = _CONFIG_FIELD_WORD.sub(
        lambda word: PROTO_CONFIG_FIELDS[word.group(0)], error.message.removeprefix(f"{error.field}: ")
    )
    return InvalidConfig(field, message)


def duration_ms(ms: int) -> duration_pb2.Duration:
    """Milliseconds (the engine's time bank) as a protobuf Duration."""
    duration = duration_pb2.Duration()
    duration.FromMilliseconds(ms)
    return duration


# The seconds of 0001-01-01T00:00:00Z and 9999-12-31T23:59:59Z: the range google.protobuf.Timestamp allows.
_FIRST_SECOND, _LAST_SECOND = -62_135_596_800, 253_402_300_799


def checked_timestamp(stamp: timestamp_pb2.Timestamp, field: str) -> timestamp_pb2.Timestamp:
    """``stamp`` if it is a valid Timestamp (years 1 to 9999, nanos 0..999,999,999); MALFORMED_REQUEST naming
    ``field`` otherwise."""
    if not (_FIRST_SECOND <= stamp.seconds <= _LAST_SECOND and 0 <= stamp.nanos < 1_000_000_000):
        raise malformed(f"{field} must be a valid timestamp (years 1 to 9999)", field)
    return stamp


def timestamp_ms(ms: int) -> timestamp_pb2.Timestamp:
    """Milliseconds since the epoch (the engine's clock) as a protobuf Timestamp."""
    stamp = timestamp_pb2.Timestamp()
    stamp.FromMilliseconds(ms)
    return stamp


def timestamp(moment: datetime) -> timestamp_pb2.Timestamp:
    """``moment`` (timezone-aware) as a protobuf Timestamp, in integer arithmetic."""
    return timestamp_pb2.Timestamp(seconds=(moment - _EPOCH) // _SECOND, nanos=moment.microsecond * 1000)


def table_to_proto(table_id: str, state: TableState, version: int,
                   created_ms: int | None = None) -> table_pb2.Table:
    config = state.config
    assert config is not None
    table = table_pb2.Table()
    table.CopyFrom(_config_proto(table_id, config))
    table.seated_players = len(state.seats)
    table.hands_started = state.hand_number
    table.version = version
    table.open_seats = len(open_seats(config.seats, state.seats, state.offers))
    table.waiting_players = len(state.waiting)
    table.current_game.CopyFrom(current_game_proto(state))
    if created_ms is not None:
        table.create_time.CopyFrom(timestamp_ms(created_ms))
    _control_to_proto(table, table_id, state.control)
    return table


def _control_to_proto(table: table_pb2.Table, table_id: str, control: TableControl) -> None:
    """RULES.md §12: whether the table deals, why not, and the last hand voided."""
    table.status = TABLE_STATUSES[control.status]
    table.status_reason = control.reason
    if control.since_ms:
        table.status_time.CopyFrom(timestamp_ms(control.since_ms))
    if control.voided_hand:
        table.last_voided_hand.CopyFrom(table_pb2.VoidedHand(
            name=f"tables/{table_id}/hands/{control.voided_hand}", hand_number=control.voided_hand,
            reason=control.void_reason, automatic=not control.void_operator,
            void_time=timestamp_ms(control.voided_ms),
        ))


# Each table's config as a message, kept while the table's config is the same object (a config is frozen; a
# change between hands makes a new one): every version's Table resource starts from it.
_CONFIG_PROTOS: dict[str, tuple[TableConfig, table_pb2.Table]] = {}
MAX_CONFIG_PROTOS = 10_000


def _config_proto(table_id: str, config: TableConfig) -> table_pb2.Table:
    """``config_to_proto`` of the table's current config, built once per config (shared: copy it)."""
    cached = _CONFIG_PROTOS.get(table_id)
    if cached is not None and cached[0] is config:
        return cached[1]
    if len(_CONFIG_PROTOS) >= MAX_CONFIG_PROTOS:
        _CONFIG_PROTOS.clear()
    table = config_to_proto(table_id, config)
    _CONFIG_PROTOS[table_id] = (config, table)
    return table


def config_to_proto(table_id: str, config: TableConfig) -> table_pb2.Table:
    """The ``Table`` fields fixed at creation (what an event's config shows), and at a tournament's table
    the tournament and the level of its current (or last) hand."""
    table = table_pb2.Table(
        name=f"tables/{table_id}",
        display_name=config.name,
        variant=VARIANT_PROTOS[config.variant],
        stakes=stakes_proto(config),
        max_seats=config.seats,
        min_buy_in=config.min_buy_in,
        max_buy_in=config.max_buy_in,
        action_clock=duration_pb2.Duration(seconds=config.action_clock_seconds),
        bring_in_tiebreak=TIEBREAK_PROTOS[config.bring_in_tiebreak],
        uncapped_heads_up=config.uncapped_heads_up,
        seat_offer_time=duration_pb2.Duration(seconds=config.seat_offer_seconds),
        currency_code=config.currency,
        play_money=config.currency == PLAY_CHIPS,
        rake=table_pb2.RakeRule(basis_points=config.rake_basis_points, cap_2_players=config.rake_cap_2,
                                cap_3_to_4_players=config.rake_cap_3_4,
                                cap_5_or_more_players=config.rake_cap_5_plus),
        interrupted_hand_void_time=duration_pb2.Duration(seconds=config.interrupted_hand_void_seconds)
        if config.interrupted_hand_void_seconds else None,
        time_bank=time_bank_proto(config.time_bank_seconds, config.time_bank_refill_seconds,
                                  config.time_bank_refill_hands),
        chat=table_pb2.ChatRules(spectators_write=config.chat_spectators,
                                 all_in_silence=config.chat_all_in_silence),
        same_network_seating=SAME_NETWORK_PROTOS[config.same_network],
    )
    add_rotation(table, config)
    if config.tournament_id:
        table.tournament.tournament = f"tournaments/{config.tournament_id}"
        table.tournament.level = config.tournament_level
    return table


# The settings that may change between hands (engine.CHANGEABLE_SETTINGS), by their Table field.
DURATION_SETTINGS = {"action_clock_seconds": "action_clock", "seat_offer_seconds": "seat_offer_time",
                     "interrupted_hand_void_seconds": "interrupted_hand_void_time"}


def settings_to_proto(settings: dict[str, Any]) -> tuple[list[str], table_pb2.Table]:
    """TableSettingsChanged's ``settings`` (or ``previous``): the Table fields they name, in their order,
    and a Table with just those set."""
    fields, table = [], table_pb2.Table()
    for name, value in settings.items():
        if name == "name":
            fields.append("display_name")
            table.display_name = value
        else:
            fields.append(DURATION_SETTINGS[name])
            getattr(table, DURATION_SETTINGS[name]).seconds = value
    return fields, table


def _legal_actions(state: TableState, viewer: str) -> list[table_pb2.LegalAction]:
    legal = legal_actions(state, viewer)
    out = []
    for kind, amounts in legal.options:
        if kind is ActionKind.CALL:
            out.append(table_pb2.LegalAction(type=ACTION_PROTOS[kind], amount=legal.call_amount or 0))
        elif amounts:
            out.extend(table_pb2.LegalAction(type=ACTION_PROTOS[kind], amount=amount) for amount in amounts)
        else:
            out.append(table_pb2.LegalAction(type=ACTION_PROTOS[kind]))
    return out


def awards_to_proto(result: dict[str, Any]) -> list[table_pb2.Award]:
    """HandEnded's awards, pot by pot, as ``Award``s (a pot's half only when it was split)."""
    awards = []
    for pot in result.get("pots", ()):
        # HandEnded says "high" for a Stud pot and "low" for a Razz one: a half only when the pot was split.
        halves = {award.get("half") for award in pot.get("awards", ())}
        split = {"high", "low"} <= halves
        for award in pot.get("awards", ()):
            half = POT_HALVES[award["half"]] if split else table_pb2.POT_HALF_WHOLE
            awards.append(table_pb2.Award(
                seat=award["seat"], amount=award["amount"], pot_index=pot.get("pot", 0),
                pot_half=half, hand_description=award.get("hand") or "",
            ))
    return awards


def _waiting_view(view: table_pb2.TableView, state: TableState, viewer: str) -> None:
    """The viewer's place on the waiting list and the seat held for them, if any (nobody else's)."""
    view.waiting_place = state.waiting.index(viewer) + 1
    for player, seat, deadline in state.offers:
        if player == viewer:
            view.seat_offer.seat = seat
            view.seat_offer.deadline.CopyFrom(timestamp_ms(deadline))


def view_to_proto(table_id: str, state: TableState, version: int, viewer: str | None,
                  last_result: dict[str, Any] | None = None, commitment: str = "",
                  created_ms: int | None = None, table: table_pb2.Table | None = None,
                  every_card: bool = False, public: table_pb2.TableView | None = None) -> table_pb2.TableView:
    """The table as ``viewer`` (a player id, or None) may see it at ``version``; ``table``: its
    resource at that version when the caller already has it; ``every_card``: an auditor's replay of
    a finished hand, every seat's down cards shown; ``public``: this version's view for no viewer when
    the caller already has it (a player's view is that one plus the player's own share, so the
    observers' part is built once per version however many players look)."""
    if public is None:
        public = _observers_view(
            table_id, state, version, last_result, commitment, created_ms, table, every_card
        )
    if viewer is None:
        return public
    view = table_pb2.TableView()
    view.CopyFrom(public)
    _add_viewer_share(view, state, viewer)
    return view


def _observers_view(table_id: str, state: TableState, version: int, last_result: dict[str, Any] | None,
                    commitment: str, created_ms: int | None, table: table_pb2.Table | None,
                    every_card: bool) -> table_pb2.TableView:
    """What everyone may see: up cards, the count of each seat's down cards (every card with
    ``every_card``), the hand, the last result."""
    if table is None:
        table = table_to_proto(table_id, state, version, created_ms)
    view = table_pb2.TableView(table=table, version=version, turn=turn_number(state))
    hand = state.hand
    shown: dict[int, list[int]] = {}
    if hand is None and last_result is not None:
        shown = {seat: list(cards) for seat, cards in last_result.get("shown", ())}
    banks = state.config is not None and state.config.time_bank_seconds > 0
    for seat, seated in sorted(state.seats.items()):
        seat_view = view.seats.add(seat=seat, player_id=seated.player_id, stack=seated.stack,
                                   sitting_out=seated.sitting_out)
        if banks:  # §7: each seat's reserve
            seat_view.time_bank.CopyFrom(duration_ms(time_bank_reserve_ms(state, seat)))
        if seated.sitting_out:
            seat_view.sit_out_reason = SIT_OUT_REASONS.get(sit_out_reason(state, seat) or "", 0)
        player = hand.players.get(seat) if hand is not None else None
        if player is not None:
            seat_view.in_hand = True
            seat_view.folded = player.folded
            seat_view.all_in = player.all_in
            seat_view.street_bet = player.bet
            seat_view.up_cards.extend(player.up)
            if every_card:
                seat_view.down_cards.extend(player.down)
            else:
                seat_view.hidden_down_cards = len(player.down)
        elif seat in shown:
            seat_view.shown = True
            seat_view.down_cards.extend(shown[seat])
    if hand is not None:
        view.hand.CopyFrom(_hand_view(table_id, state, commitment))
        deadline = action_deadline_ms(state)
        if deadline is not None:
            view.action_deadline.CopyFrom(timestamp_ms(deadline))
            view.clock = CLOCKS[running_clock(state) or "ACTION"]
    elif last_result is not None:
        number = last_result.get("hand", state.hand_number)
        voided = number == state.control.voided_hand  # §12: it paid nothing, showed nothing
        view.hand.CopyFrom(table_pb2.HandView(
            name=f"tables/{table_id}/hands/{number}", hand_number=number, street=table_pb2.STREET_SHOWDOWN,
            complete=True, deck_commitment=commitment,
            pots=[table_pb2.Pot(amount=pot["amount"], eligible_seats=pot.get("eligible", ()))
                  for pot in sorted(last_result.get("pots", ()), key=lambda pot: pot.get("pot", 0))],
            awards=awards_to_proto(last_result), voided=voided,
            void_reason=state.control.void_reason if voided else "",
            game=VARIANT_PROTOS[last_hand_game(state, voided)],
        ))
    return view


def _add_viewer_share(view: table_pb2.TableView, state: TableState, viewer: str) -> None:
    """What only ``viewer`` may see, added to the observers' ``view``: their seat, their own down cards,
    what they may do, their place on the waiting list, whether the chat mutes them."""
    hand = state.hand
    for index, (seat, seated) in enumerate(sorted(state.seats.items())):
        if seated.player_id == viewer:
            view.viewer_seat = seat
        player = hand.players.get(seat) if hand is not None else None
        if player is not None and player.player_id == viewer and view.seats[index].hidden_down_cards:
            seat_view = view.seats[index]
            seat_view.hidden_down_cards = 0
            seat_view.down_cards.extend(player.down)
    if hand is not None:
        view.legal_actions.extend(_legal_actions(state, viewer))
    if viewer in state.waiting:
        _waiting_view(view, state, viewer)
    if viewer in state.chat.muted:
        view.chat_muted = True


def _hand_view(table_id: str, state: TableState, commitment: str) -> table_pb2.HandView:
    hand = state.hand
    assert hand is not None
    finished = {seat: player.committed - player.bet for seat, player in hand.players.items()}
    pots = [table_pb2.Pot(amount=amount, eligible_seats=eligible)
            for amount, eligible in side_pots(finished, hand.folds)]
    acting = to_act(state) or 0
    return table_pb2.HandView(
        name=f"tables/{table_id}/hands/{hand.number}",
        hand_number=hand.number,
        street=hand.street if hand.street in (3, 4, 5, 6, 7) else table_pb2.STREET_UNSPECIFIED,
        to_act_seat=acting,
        bring_in_seat=acting if hand.bring_in_due else 0,
        current_bet=hand.level,
        pots=pots,
        community_cards=hand.community,
        deck_commitment=commitment,
        game=VARIANT_PROTOS[hand.game],
    )
