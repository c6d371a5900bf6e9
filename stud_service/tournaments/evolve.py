"""evolve(state, event) -> state: apply one fact of a tournament.

``evolve`` copies, then applies; ``apply_in_place`` is the mutating step ``replay`` and ``decide`` use on
their own copies.  An event decide produced always applies; one that does not fit the state raises
``InvalidTournamentEvent``.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any

from stud_service.tournaments.errors import InvalidTournamentEvent
from stud_service.tournaments.events import (
    BreakStarted,
    DrawCommitted,
    DrawRevealed,
    HandForHandEnded,
    HandForHandStarted,
    LevelStarted,
    PlacesFixed,
    PlayerMoved,
    PlayerReEntered,
    PlayerRegistered,
    PlayerSeated,
    PlayersEliminated,
    PlayerUnregistered,
    PrizesFixed,
    TableBroken,
    TableHandDealt,
    TableHandEnded,
    TableOpened,
    TournamentCancelled,
    TournamentCreated,
    TournamentFinished,
    TournamentStarted,
)
from stud_service.tournaments.rules.hand_for_hand import hand_for_hand_round_over
from stud_service.tournaments.state import (
    Group,
    Status,
    TournamentState,
    initial_state,
    tables_that_can_deal,
)


def _created(state: TournamentState, e: TournamentCreated) -> None:
    state.tournament_id = e.tournament_id
    state.config = e.config


def _draw_committed(state: TournamentState, e: DrawCommitted) -> None:
    state.draw = e.draw
    state.commitment = e.commitment
    state.secret = e.secret


def _draw_revealed(state: TournamentState, e: DrawRevealed) -> None:
    if e.draw != state.draw or state.secret is None:
        raise InvalidTournamentEvent(f"draw {e.draw} revealed, but draw {state.draw} is the one committed")
    state.secret = None


def _registered(state: TournamentState, e: PlayerRegistered) -> None:
    state.registered = (*state.registered, e.player_id)
    state.mutable("entries")[e.player_id] = 1


def _unregistered(state: TournamentState, e: PlayerUnregistered) -> None:
    state.registered = tuple(player for player in state.registered if player != e.player_id)
    del state.mutable("entries")[e.player_id]


def _re_entered(state: TournamentState, e: PlayerReEntered) -> None:
    state.mutable("entries")[e.player_id] = e.entry
    state.unplaced = _without(state.unplaced, {e.player_id})


def _started(state: TournamentState, e: TournamentStarted) -> None:
    state.status = Status.RUNNING


def _level_started(state: TournamentState, e: LevelStarted | BreakStarted) -> None:
    state.level_index = e.index
    state.level_starts_ms = e.starts_ms


def _table_opened(state: TournamentState, e: TableOpened) -> None:
    state.new_table(e.table_id)
    state.tables_opened += 1


def _seated(state: TournamentState, e: PlayerSeated) -> None:
    if e.seat in state.tables[e.table_id] or e.player_id in state.seat_of:
        raise InvalidTournamentEvent(f"{e.player_id!r} cannot take seat {e.seat} at {e.table_id}")
    state.mutable_seats(e.table_id)[e.seat] = e.player_id
    state.mutable("seat_of")[e.player_id] = (e.table_id, e.seat)
    state.mutable("chips")[e.player_id] = e.chips


def _hand_dealt(state: TournamentState, e: TableHandDealt) -> None:
    if state.hand_for_hand:
        over = hand_for_hand_round_over(tables_that_can_deal(state), state.round_dealt, state.in_hand)
        state.round_dealt = frozenset({e.table_id}) if over else state.round_dealt | {e.table_id}
    state.mutable("in_hand")[e.table_id] = e.hand
    state.mutable("last_hand")[e.table_id] = e.hand
    state.mutable("dealt_in")[e.table_id] = tuple(sorted(state.tables[e.table_id].values()))


def _hand_ended(state: TournamentState, e: TableHandEnded) -> None:
    if state.in_hand.get(e.table_id) != e.hand:
        raise InvalidTournamentEvent(f"hand {e.hand} ended at {e.table_id}, which was not dealing it")
    del state.mutable("in_hand")[e.table_id]
    del state.mutable("dealt_in")[e.table_id]
    chips = state.mutable("chips")
    for player, _start, end in e.chips:
        chips[player] = end


def _eliminated(state: TournamentState, e: PlayersEliminated) -> None:
    for player, _chips in e.players:
        table_id, seat = state.mutable("seat_of").pop(player)
        del state.mutable_seats(table_id)[seat]
        state.mutable("chips")[player] = 0
    state.unplaced = (*state.unplaced, tuple(e.players))


def _places_fixed(state: TournamentState, e: PlacesFixed) -> None:
    for player, place, last, prize in e.places:
        state.mutable("places")[player] = (place, last)
        state.mutable("prizes_won")[player] = prize
    state.unplaced = _without(state.unplaced, {player for player, *_ in e.places})


def _moved(state: TournamentState, e: PlayerMoved) -> None:
    table_id, seat = state.seat_of[e.player_id]
    if table_id != e.from_table or e.seat in state.tables[e.to_table]:
        raise InvalidTournamentEvent(f"{e.player_id!r} cannot move from {e.from_table} to {e.to_table}")
    del state.mutable_seats(table_id)[seat]
    state.mutable_seats(e.to_table)[e.seat] = e.player_id
    state.mutable("seat_of")[e.player_id] = (e.to_table, e.seat)


def _broken(state: TournamentState, e: TableBroken) -> None:
    if state.mutable("tables").pop(e.table_id):
        raise InvalidTournamentEvent(f"table {e.table_id} was broken with players at it")
    state.mutable("last_hand").pop(e.table_id, None)  # it stays in round_dealt: it played its round


def _hand_for_hand(state: TournamentState, e: HandForHandStarted | HandForHandEnded) -> None:
    state.hand_for_hand = isinstance(e, HandForHandStarted)
    state.round_dealt = frozenset()


def _prizes_fixed(state: TournamentState, e: PrizesFixed) -> None:
    state.prizes = e.prizes
    state.pool = e.pool


def _finished(state: TournamentState, e: TournamentFinished) -> None:
    state.status = Status.FINISHED
    state.winner = e.winner


def _cancelled(state: TournamentState, e: TournamentCancelled) -> None:
    state.status = Status.CANCELLED
    state.cancel_payouts = dict(e.payouts)


def _without(groups: tuple[Group, ...], players: set[str]) -> tuple[Group, ...]:
    kept = (tuple(entry for entry in group if entry[0] not in players) for group in groups)
    return tuple(group for group in kept if group)


APPLY: dict[type, Callable[[TournamentState, Any], None]] = {
    TournamentCreated: _created, DrawCommitted: _draw_committed, DrawRevealed: _draw_revealed,
    PlayerRegistered: _registered, PlayerUnregistered: _unregistered, PlayerReEntered: _re_entered,
    TournamentStarted: _started, LevelStarted: _level_started, BreakStarted: _level_started,
    TableOpened: _table_opened, PlayerSeated: _seated, TableHandDealt: _hand_dealt,
    TableHandEnded: _hand_ended,
    PlayersEliminated: _eliminated, PlacesFixed: _places_fixed, PlayerMoved: _moved, TableBroken: _broken,
    HandForHandStarted: _hand_for_hand, HandForHandEnded: _hand_for_hand, PrizesFixed: _prizes_fixed,
    TournamentFinished: _finished, TournamentCancelled: _cancelled,
}


def apply_in_place(state: TournamentState, event: Any) -> TournamentState:
    handler = APPLY.get(type(event))
    if handler is None:
        raise InvalidTournamentEvent(f"unknown event {type(event).__name__}")
    try:
        handler(state, event)
    except KeyError as missing:
        raise InvalidTournamentEvent(f"{type(event).__name__} does not fit the state: no {missing}") from None
    return state


def evolve(state: TournamentState, event: Any) -> TournamentState:
    """A new state: ``state`` with ``event`` applied; ``state`` is left as it was."""
    return apply_in_place(state.copy(), event)


def replay(events: Iterable[Any], state: TournamentState | None = None) -> TournamentState:
    """Fold ``events`` onto ``state`` (a copy of it), or onto the state before any event."""
    folded = initial_state() if state is None else state.copy()
    for event in events:
        apply_in_place(folded, event)
    return folded
