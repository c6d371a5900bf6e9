"""When a tournament's table may deal its next hand, and at which stakes (RULES.md §11)."""

from __future__ import annotations

import enum

from stud_service.tournaments.rules.hand_for_hand import hand_for_hand_round_over, may_deal_hand_for_hand
from stud_service.tournaments.rules.levels import level_for_next_hand
from stud_service.tournaments.state import Status, TournamentState, tables_that_can_deal
from stud_service.tournaments.structure import Level


class Hold(enum.StrEnum):
    """Why a table may not deal now ("" : it may)."""

    NONE = ""
    NOT_STARTED = "not_started"      # the tournament has not started
    OVER = "over"                    # finished or cancelled: the table closes
    CLOSED = "closed"                # broken: the table closes
    IN_HAND = "in_hand"              # its hand is still running
    BREAK = "break"                  # §11 Levels: a break, no play
    PLAYERS = "players"              # fewer than two players: it waits for balancing
    HAND_FOR_HAND = "hand_for_hand"  # §11 Hand for hand: other tables finish first
    SEATING = "seating"              # the table does not seat the tournament's players there yet


def hold_of(state: TournamentState, table_id: str) -> Hold:
    """Whether ``table_id`` may deal its next hand now, and if not why."""
    if state.status is Status.REGISTERING:
        return Hold.NOT_STARTED
    if state.status is not Status.RUNNING:
        return Hold.OVER
    if table_id not in state.tables:
        return Hold.CLOSED
    if table_id in state.in_hand:
        return Hold.IN_HAND
    if next_hand_level(state) is None:
        return Hold.BREAK
    if len(state.tables[table_id]) < 2:
        return Hold.PLAYERS
    if state.hand_for_hand and not _hand_for_hand_allows(state, table_id):
        return Hold.HAND_FOR_HAND
    return Hold.NONE


def _hand_for_hand_allows(state: TournamentState, table_id: str) -> bool:
    if hand_for_hand_round_over(tables_that_can_deal(state), state.round_dealt, state.in_hand):
        return True  # the round is over: a new one begins with this deal
    return may_deal_hand_for_hand(table_id, state.round_dealt, state.in_hand)


def next_hand_level(state: TournamentState) -> Level | None:
    """The level a hand dealt now is dealt at; None during a break (§11 Levels)."""
    assert state.config is not None
    return level_for_next_hand(state.config.levels, state.level_index)
