"""A tournament's events as the typed ``stud.v1.TournamentEvent`` a watcher gets.

Each domain event type (``stud_service.tournaments.events``) has the message of the same name in
``TournamentEvent``'s ``event`` oneof and a builder below; ``tests/test_tournament_api_convert.py`` fails
for an event type without one. A ``DrawCommitted``'s secret (the seed of a draw not yet made) is never
copied (the facade's events hold none anyway); a ``DrawRevealed``'s seed is public (docs/tournaments.md, "Who
sees a draw's seed"). The state after the event supplies what the event leaves implicit (the entrants after a
registration, a level's number).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from stud_service.server.api.convert import timestamp_ms
from stud_service.server.api.tournament_convert import level_stakes, place_to_proto, structure_to_proto
from stud_service.server.proto_gen import tournament_pb2
from stud_service.tournaments import TournamentState
from stud_service.tournaments import events as ev
from stud_service.tournaments.rules.levels import level_ends_ms, level_number

Message = tournament_pb2.TournamentEvent
# Event type (class name) -> its field in TournamentEvent's ``event`` oneof (and BUILDERS its builder).
EVENT_FIELDS: dict[str, str] = {
    field.message_type.name: field.name for field in Message.DESCRIPTOR.oneofs_by_name["event"].fields
}


class UnknownTournamentEvent(ValueError):
    """A domain event type with no message (a server bug: the protos lag the domain)."""


def tournament_event_proto(version: int, event: Any, after: TournamentState) -> Message:
    """``event`` (the one that made ``version``; ``after``: the state it left) as a ``TournamentEvent``."""
    kind = type(event).__name__
    field = EVENT_FIELDS.get(kind)
    builder = BUILDERS.get(kind)
    if field is None or builder is None:
        raise UnknownTournamentEvent(f"no TournamentEvent message for event type {kind!r}")
    message = Message(version=version, type=kind, time=timestamp_ms(event.at_ms))
    target = getattr(message, field)
    target.SetInParent()  # set even when every field has its default
    builder(target, event, after)
    return message


def _table(table_id: str) -> str:
    return f"tables/{table_id}"


def _created(target: Any, e: ev.TournamentCreated, after: TournamentState) -> None:
    target.tournament_id = e.tournament_id
    target.config.CopyFrom(structure_to_proto(e.tournament_id, e.config))


def _draw_committed(target: Any, e: ev.DrawCommitted, after: TournamentState) -> None:
    target.draw, target.commitment = e.draw, e.commitment  # never e.secret: the seed of a draw to come


def _draw_revealed(target: Any, e: ev.DrawRevealed, after: TournamentState) -> None:
    target.draw, target.seed = e.draw, e.seed


def _registration(target: Any, e: ev.PlayerRegistered, after: TournamentState) -> None:
    target.player_id, target.entrants = e.player_id, len(after.registered)


def _unregistration(target: Any, e: ev.PlayerUnregistered, after: TournamentState) -> None:
    target.player_id, target.entrants, target.reason = e.player_id, len(after.registered), e.reason


def _re_entered(target: Any, e: ev.PlayerReEntered, after: TournamentState) -> None:
    target.player_id, target.entry = e.player_id, e.entry


def _started(target: Any, e: ev.TournamentStarted, after: TournamentState) -> None:
    target.entrants = e.entrants


def _level_times(target: Any, index: int, starts_ms: int, after: TournamentState) -> None:
    assert after.config is not None
    target.start_time.CopyFrom(timestamp_ms(starts_ms))
    ends = level_ends_ms(after.config.levels, index, starts_ms)
    if ends is not None:
        target.end_time.CopyFrom(timestamp_ms(ends))


def _level_started(target: Any, e: ev.LevelStarted, after: TournamentState) -> None:
    assert after.config is not None
    target.index, target.level = e.index, e.level
    stakes = level_stakes(after.config.levels[e.index])
    if stakes is not None:
        target.stakes.CopyFrom(stakes)
    _level_times(target, e.index, e.starts_ms, after)


def _break_started(target: Any, e: ev.BreakStarted, after: TournamentState) -> None:
    target.index = e.index
    _level_times(target, e.index, e.starts_ms, after)


def _table_named(target: Any, e: ev.TableOpened | ev.TableBroken, after: TournamentState) -> None:
    target.table = _table(e.table_id)


def _seated(target: Any, e: ev.PlayerSeated, after: TournamentState) -> None:
    target.player_id, target.table = e.player_id, _table(e.table_id)
    target.seat, target.chips = e.seat, e.chips


def _hand_dealt(target: Any, e: ev.TableHandDealt, after: TournamentState) -> None:
    assert after.config is not None
    target.table, target.hand, target.index = _table(e.table_id), e.hand, e.index
    target.level = level_number(after.config.levels, e.index)


def _hand_ended(target: Any, e: ev.TableHandEnded, after: TournamentState) -> None:
    target.table, target.hand = _table(e.table_id), e.hand
    for player, start, end in e.chips:
        target.chips.add(player_id=player, start=start, end=end)


def _eliminated(target: Any, e: ev.PlayersEliminated, after: TournamentState) -> None:
    target.table, target.hand = _table(e.table_id), e.hand
    for player, chips in e.players:
        target.players.add(player_id=player, chips=chips)


def _places_fixed(target: Any, e: ev.PlacesFixed, after: TournamentState) -> None:
    target.places.extend(place_to_proto(*place) for place in e.places)


def _moved(target: Any, e: ev.PlayerMoved, after: TournamentState) -> None:
    target.player_id, target.seat, target.chips = e.player_id, e.seat, e.chips
    target.from_table, target.to_table = _table(e.from_table), _table(e.to_table)


def _hand_for_hand(target: Any, e: ev.HandForHandStarted | ev.HandForHandEnded,
                   after: TournamentState) -> None:
    target.players_left = e.players_left


def _prizes_fixed(target: Any, e: ev.PrizesFixed, after: TournamentState) -> None:
    target.entries, target.players, target.prize_pool = e.entries, e.players, e.pool
    target.prizes.extend(e.prizes)


def _finished(target: Any, e: ev.TournamentFinished, after: TournamentState) -> None:
    target.winner = e.winner


def _cancelled(target: Any, e: ev.TournamentCancelled, after: TournamentState) -> None:
    target.reason = e.reason  # not ``by``: who cancelled is the access log's, not the players'
    for player, amount in e.refunds:
        target.refunds.add(player_id=player, amount=amount)
    for player, amount in e.payouts:
        target.payouts.add(player_id=player, amount=amount)


BUILDERS: dict[str, Callable[[Any, Any, TournamentState], None]] = {
    "TournamentCreated": _created, "DrawCommitted": _draw_committed, "DrawRevealed": _draw_revealed,
    "PlayerRegistered": _registration, "PlayerUnregistered": _unregistration, "PlayerReEntered": _re_entered,
    "TournamentStarted": _started, "LevelStarted": _level_started, "BreakStarted": _break_started,
    "TableOpened": _table_named, "PlayerSeated": _seated, "TableHandDealt": _hand_dealt,
    "TableHandEnded": _hand_ended, "PlayersEliminated": _eliminated, "PlacesFixed": _places_fixed,
    "PlayerMoved": _moved, "TableBroken": _table_named, "HandForHandStarted": _hand_for_hand,
    "HandForHandEnded": _hand_for_hand, "PrizesFixed": _prizes_fixed, "TournamentFinished": _finished,
    "TournamentCancelled": _cancelled,
}
