"""Protobuf <-> tournaments: a CreateTournament's structure in, the ``Tournament`` resource and a player's
``TournamentView`` out (proto/stud/v1/tournament.proto).

Everything here reads a pure ``TournamentState``; nothing reads the committed draw's ``secret``, so no view
can hold a seed before it is used.
"""

from __future__ import annotations

import re
from typing import Any

from google.protobuf import duration_pb2

from stud_service.engine.config import PLAY_CHIPS, SameNetworkRule
from stud_service.server.api.convert import (
    SAME_NETWORK_PROTOS,
    SAME_NETWORK_RULES,
    VARIANT_PROTOS,
    VARIANTS,
    checked_timestamp,
    timestamp_ms,
)
from stud_service.server.api.errors import malformed
from stud_service.server.api.mixed_games import rotation_values
from stud_service.server.api.time_banks import time_bank_proto, time_bank_values
from stud_service.server.proto_gen import table_pb2, tournament_pb2
from stud_service.tournaments import (
    CancellationPayout,
    Level,
    Status,
    TournamentConfig,
    TournamentConfigError,
    TournamentKind,
    TournamentState,
)
from stud_service.tournaments.rules.levels import late_registration_open, level_ends_ms, re_entry_open
from stud_service.tournaments.rules.payouts import prizes_by_place
from stud_service.tournaments.state import current_level, entries_open, entries_total, payout_table
from stud_service.tournaments.structure import DEFAULT_LEVELS

KINDS = {
    tournament_pb2.TOURNAMENT_KIND_SIT_AND_GO: TournamentKind.SIT_AND_GO,
    tournament_pb2.TOURNAMENT_KIND_SCHEDULED: TournamentKind.SCHEDULED,
}
KIND_PROTOS = {kind: proto for proto, kind in KINDS.items()}
CANCELLATION_PAYOUTS = {
    tournament_pb2.CANCELLATION_PAYOUT_CHIPS: CancellationPayout.CHIPS,
    tournament_pb2.CANCELLATION_PAYOUT_EQUAL: CancellationPayout.EQUAL,
}
CANCELLATION_PAYOUT_PROTOS = {payout: proto for proto, payout in CANCELLATION_PAYOUTS.items()}
STATES = {
    Status.REGISTERING: tournament_pb2.TOURNAMENT_STATE_REGISTERING,
    Status.RUNNING: tournament_pb2.TOURNAMENT_STATE_RUNNING,
    Status.FINISHED: tournament_pb2.TOURNAMENT_STATE_FINISHED,
    Status.CANCELLED: tournament_pb2.TOURNAMENT_STATE_CANCELLED,
}
_STAKES = ("ante", "bring_in", "small_bet", "big_bet")
# TournamentConfig fields by their names in the Tournament message, where they differ.
PROTO_STRUCTURE_FIELDS = {
    "name": "display_name", "start_ms": "start_time", "currency": "currency_code",
    "action_clock_seconds": "action_clock", "config": "tournament", "time_bank_seconds": "time_bank.reserve",
    "time_bank_refill_seconds": "time_bank.refill", "time_bank_refill_hands": "time_bank.refill_hands",
    "same_network": "same_network_seating",
}
_LEVEL_FIELD = re.compile(r"levels\[(\d+)\]\.(\w+)")
_MINUTE = 60


def structure_from_proto(tournament: tournament_pb2.Tournament,
                         default_action_clock_seconds: int = 30) -> TournamentConfig:
    """The validated structure a CreateTournament asks for; unset fields take the documented defaults.
    TournamentConfigError (INVALID_CONFIG) names the request's field (``tournament.levels[3].duration``)."""
    defaults = TournamentConfig()
    values: dict[str, Any] = {
        "name": tournament.display_name,
        "kind": _enum(tournament.kind, KINDS, TournamentKind.SIT_AND_GO, "tournament.kind"),
        "variant": _enum(tournament.variant, VARIANTS, defaults.variant, "tournament.variant"),
        "cancellation_payout": _enum(tournament.cancellation_payout, CANCELLATION_PAYOUTS,
                                     CancellationPayout.CHIPS, "tournament.cancellation_payout"),
        "start_ms": checked_timestamp(tournament.start_time, "tournament.start_time").ToMilliseconds()
        if tournament.HasField("start_time") else 0,
        "levels": tuple(_level_from_proto(index, level) for index, level in enumerate(tournament.levels))
        or DEFAULT_LEVELS,
        "starting_stack": tournament.starting_stack or defaults.starting_stack,
        "seats_per_table": tournament.seats_per_table or defaults.seats_per_table,
        "min_entrants": tournament.min_entrants or defaults.min_entrants,
        "max_entrants": tournament.max_entrants or defaults.max_entrants,
        "late_registration_levels": tournament.late_registration_levels,
        "re_entries": tournament.re_entries,
        "re_entry_until_level": tournament.re_entry_until_level,
        "buy_in": tournament.buy_in,
        "fee": tournament.fee,
        "payouts": tuple(tournament.payouts),
        "action_clock_seconds": default_action_clock_seconds,
        "same_network": _enum(tournament.same_network_seating, SAME_NETWORK_RULES, SameNetworkRule.OFF,
                              "tournament.same_network_seating"),
    }
    if tournament.HasField("action_clock"):
        clock = tournament.action_clock
        if clock.nanos or clock.seconds <= 0:
            raise malformed("action_clock must be whole seconds, at least 1", "tournament.action_clock")
        values["action_clock_seconds"] = clock.seconds
    if tournament.HasField("time_bank"):
        values.update(time_bank_values(tournament.time_bank, "tournament.time_bank"))
    # §13: a mixed tournament's rotation; the variant, left unset, is its first game
    values.update(rotation_values(tournament.rotation, tournament.hands_per_game, tournament.variant,
                                  "tournament."))
    if tournament.play_money:
        if tournament.currency_code:
            raise TournamentConfigError("tournament.currency_code",
                                        "a play-money tournament has no currency: leave it empty")
        values["currency"] = PLAY_CHIPS
    else:
        values["currency"] = tournament.currency_code or defaults.currency
    try:
        return TournamentConfig(**values).validate()
    except TournamentConfigError as error:  # named as the client knows the field
        field = proto_field(error.field)
        raise TournamentConfigError(field, error.message.removeprefix(f"{error.field}: ")) from None


def proto_field(field: str) -> str:
    """A TournamentConfig field (``levels[3].minutes``) as CreateTournamentRequest names it
    (``tournament.levels[3].duration``)."""
    level = _LEVEL_FIELD.fullmatch(field)
    if level is not None:
        index, name = level.groups()
        inner = f"stakes.{name}" if name in _STAKES else "duration" if name == "minutes" else name
        return f"tournament.levels[{index}].{inner}"
    if field == "config":
        return "tournament"
    return f"tournament.{PROTO_STRUCTURE_FIELDS.get(field, field)}"


def _enum(value: int, known: dict[int, Any], default: Any, field: str) -> Any:
    if value == 0:
        return default
    if value not in known:
        raise malformed(f"unknown {field.rpartition('.')[2]} {value}", field)
    return known[value]


def _level_from_proto(index: int, level: tournament_pb2.TournamentLevel) -> Level:
    duration = level.duration
    if duration.nanos or duration.seconds % _MINUTE:
        raise malformed("a level's duration is whole minutes", f"tournament.levels[{index}].duration")
    stakes = level.stakes
    return Level(ante=stakes.ante, bring_in=stakes.bring_in, small_bet=stakes.small_bet,
                 big_bet=stakes.big_bet, minutes=duration.seconds // _MINUTE, is_break=level.is_break)


def structure_to_proto(tournament_id: str, config: TournamentConfig) -> tournament_pb2.Tournament:
    """The ``Tournament`` fields fixed at creation."""
    message = tournament_pb2.Tournament(
        name=f"tournaments/{tournament_id}",
        display_name=config.name,
        variant=VARIANT_PROTOS[config.variant],
        kind=KIND_PROTOS[config.kind],
        levels=[level_to_proto(level) for level in config.levels],
        starting_stack=config.starting_stack,
        seats_per_table=config.seats_per_table,
        min_entrants=config.min_entrants,
        max_entrants=config.max_entrants,
        late_registration_levels=config.late_registration_levels,
        re_entries=config.re_entries,
        re_entry_until_level=config.re_entry_until_level,
        buy_in=config.buy_in,
        fee=config.fee,
        currency_code=config.currency,
        play_money=config.currency == PLAY_CHIPS,
        payouts=config.payouts,
        cancellation_payout=CANCELLATION_PAYOUT_PROTOS[config.cancellation_payout],
        action_clock=duration_pb2.Duration(seconds=config.action_clock_seconds),
        time_bank=time_bank_proto(config.time_bank_seconds, config.time_bank_refill_seconds,
                                  config.time_bank_refill_hands),
        rotation=[VARIANT_PROTOS[game] for game in config.rotation],
        hands_per_game=config.hands_per_game,
    )
    if config.start_ms:
        message.start_time.CopyFrom(timestamp_ms(config.start_ms))
    if config.same_network is not SameNetworkRule.OFF:  # unset when off, as tournaments before the rule
        message.same_network_seating = SAME_NETWORK_PROTOS[config.same_network]
    return message


def level_to_proto(level: Level) -> tournament_pb2.TournamentLevel:
    return tournament_pb2.TournamentLevel(
        stakes=_stakes(level), duration=duration_pb2.Duration(seconds=level.minutes * _MINUTE),
        is_break=level.is_break)


def _stakes(level: Level) -> table_pb2.Stakes:
    return table_pb2.Stakes(ante=level.ante, bring_in=level.bring_in, small_bet=level.small_bet,
                            big_bet=level.big_bet)


def level_stakes(level: Level) -> table_pb2.Stakes | None:
    """A level of play's stakes; None at a break."""
    return None if level.is_break else _stakes(level)


def _config(state: TournamentState) -> TournamentConfig:
    assert state.config is not None and state.tournament_id is not None, "a tournament that was created"
    return state.config


def tournament_to_proto(state: TournamentState, version: int) -> tournament_pb2.Tournament:
    """The tournament resource at ``version`` (whose state is ``state``): the lobby's row."""
    config = _config(state)
    assert state.tournament_id is not None
    message = structure_to_proto(state.tournament_id, config)
    message.state = STATES[state.status]
    message.entrants = len(state.registered)
    message.entries = entries_total(state)
    left = list(state.seat_of)
    message.players_left = len(left)
    if left:
        message.average_stack = sum(state.chips[player] for player in left) // len(left)
    shares = payout_table(state)
    message.payout_table.extend(shares)
    if state.prizes is not None:
        message.prize_pool = state.pool
        message.prizes.extend(state.prizes)
        message.prizes_fixed = True
    else:
        message.prize_pool = message.entries * config.buy_in
        message.prizes.extend(prizes_by_place(message.prize_pool, shares))
    message.registration_open = registration_open(state)
    if state.status is Status.RUNNING and state.level_index >= 0:
        message.clock.CopyFrom(clock_to_proto(state))
    for table_id, seats in state.tables.items():  # in the order they opened
        message.tables.add(table=f"tables/{table_id}", players=len(seats))
    message.hand_for_hand = state.hand_for_hand
    message.places.extend(places_to_proto(state))
    message.winner = state.winner or ""
    for player, amount in sorted(state.cancel_payouts.items()):
        message.cancellation_payouts.add(player_id=player, amount=amount)
    message.version = version
    return message


def registration_open(state: TournamentState) -> bool:
    """Whether a new player's RegisterTournament may succeed now (§11 Entry, as ``decide`` checks it)."""
    config = _config(state)
    if len(state.registered) >= config.max_entrants:
        return False
    if state.status is Status.REGISTERING:
        return True
    return state.status is Status.RUNNING and entries_open(state) and late_registration_open(
        current_level(state), config.late_registration_levels)


def clock_to_proto(state: TournamentState) -> tournament_pb2.TournamentClock:
    """The level running, with its start and end."""
    config = _config(state)
    level = config.levels[state.level_index]
    clock = tournament_pb2.TournamentClock(
        index=state.level_index, level=current_level(state), is_break=level.is_break,
        start_time=timestamp_ms(state.level_starts_ms), stakes=level_stakes(level),
    )
    ends = level_ends_ms(config.levels, state.level_index, state.level_starts_ms)
    if ends is not None:
        clock.end_time.CopyFrom(timestamp_ms(ends))
    return clock


def place_to_proto(player: str, place: int, last_place: int, prize: int) -> tournament_pb2.TournamentPlace:
    return tournament_pb2.TournamentPlace(player_id=player, place=place, last_place=last_place, prize=prize)


def places_to_proto(state: TournamentState) -> list[tournament_pb2.TournamentPlace]:
    """The places fixed so far, best first (shared places by player id)."""
    ordered = sorted(state.places.items(), key=lambda item: (item[1][0], item[0]))
    return [place_to_proto(player, place, last, state.prizes_won.get(player, 0))
            for player, (place, last) in ordered]


def view_to_proto(state: TournamentState, version: int, player: str | None,
                  tournament: tournament_pb2.Tournament | None = None) -> tournament_pb2.TournamentView:
    """``player``'s view of the tournament at ``version`` (None: someone who has not entered, an auditor);
    ``tournament``: the resource at that version when the caller already has it."""
    view = tournament_pb2.TournamentView(version=version)
    view.tournament.CopyFrom(tournament if tournament is not None else tournament_to_proto(state, version))
    if player is None or player not in state.entries:
        return view
    config = _config(state)
    view.registered = True
    view.entries = state.entries[player]
    seat = state.seat_of.get(player)
    if seat is not None:
        view.table, view.seat = f"tables/{seat[0]}", seat[1]
        view.stack = state.chips[player]
        view.rank = 1 + sum(state.chips[other] > view.stack for other in state.seat_of)
    if player in state.places:
        place, last = state.places[player]
        view.place.CopyFrom(place_to_proto(player, place, last, state.prizes_won.get(player, 0)))
    view.prize = state.prizes_won.get(player, 0) or state.cancel_payouts.get(player, 0)
    re_entry = re_entry_open(current_level(state), config.re_entry_until_level, view.entries - 1,
                             config.re_entries)
    view.may_re_enter = seat is None and state.status is Status.RUNNING and entries_open(state) and re_entry
    return view
