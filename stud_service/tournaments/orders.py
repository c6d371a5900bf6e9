"""What a tournament tells each of its tables between hands, as plain data, and the table commands that
carry it out (RULES.md §11).

A table is an ordinary table stream created with ``table_config``.  Between its hands its owner takes
one ``next_step`` at a time, each read again from the tournament and the table as they are then (other
tables change the tournament meanwhile): it reports the hand that ended (``EndTableHand`` with
``hand_chips``); starts the hand the tournament let it deal (``StartHand`` with ``stakes``) before any
seat changes, so that it deals in exactly the players the tournament dealt in; brings its seats in line
with ``table_commands`` (players who left it: moved, out, or its table broken; players who join it, with
their chips); and, when ``deal`` says so, asks the tournament to deal (``DealTableHand`` naming the
players it seats: refused if they are no longer the tournament's there, and then the next step seats them).
"""

from __future__ import annotations

import enum
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from stud_service.engine import Leave, SitDown, Stakes, TableConfig, TableState, can_start_hand
from stud_service.engine.config import MAX_CHIPS, PLAY_CHIPS
from stud_service.engine.events import HandEnded, HandStarted
from stud_service.engine.state import players_ready
from stud_service.tournaments.dealing import Hold, hold_of, next_hand_level
from stud_service.tournaments.rules.levels import level_number
from stud_service.tournaments.state import Status, TournamentState, current_level
from stud_service.tournaments.structure import TournamentConfig


@dataclass(frozen=True, slots=True)
class TableOrders:
    """``seats``: ((seat, player, chips), ...) the table seats now, by seat; ``stakes``: its next hand's
    (None during a break or once the tournament is over); ``deal``: whether it may deal now, else ``hold``
    says why; ``close``: the table is broken or the tournament over: everyone leaves and it closes."""

    table_id: str
    seats: tuple[tuple[int, str, int], ...]
    stakes: Stakes | None
    deal: bool
    hold: Hold
    close: bool


def table_config(config: TournamentConfig, tournament_id: str, table_id: str) -> TableConfig:
    """The config a tournament's table is created with: tournament chips, the first level's stakes, the
    tournament's action clock and time bank (§7), its rotation (§13)."""
    first = config.levels[0]
    number = table_id.rpartition("-t")[2]
    name = f"{config.name} table {number}" if config.name else f"table {number}"
    return TableConfig(
        variant=config.variant, ante=first.ante, bring_in=first.bring_in, small_bet=first.small_bet,
        big_bet=first.big_bet, min_buy_in=1, max_buy_in=MAX_CHIPS, seats=config.seats_per_table,
        action_clock_seconds=config.action_clock_seconds, name=name, currency=PLAY_CHIPS,
        tournament_id=tournament_id, tournament_level=1, time_bank_seconds=config.time_bank_seconds,
        time_bank_refill_seconds=config.time_bank_refill_seconds,
        time_bank_refill_hands=config.time_bank_refill_hands,
        rotation=config.rotation, hands_per_game=config.hands_per_game,  # §13: each table counts its own
    ).validate()


def dealt_stakes(config: TournamentConfig, index: int) -> Stakes:
    """The stakes of a hand the tournament let a table deal at level index ``index`` (TableHandDealt)."""
    level = config.levels[index]
    number = level_number(config.levels, index)
    return Stakes(level.ante, level.bring_in, level.small_bet, level.big_bet, number)


def table_orders(state: TournamentState, table_id: str) -> TableOrders:
    hold = hold_of(state, table_id)
    seats = state.tables.get(table_id, {})
    level = next_hand_level(state) if state.config is not None and state.level_index >= 0 else None
    stakes = None if level is None or hold in (Hold.OVER, Hold.CLOSED) else Stakes(
        level.ante, level.bring_in, level.small_bet, level.big_bet, current_level(state))
    return TableOrders(
        table_id=table_id,
        seats=tuple((seat, player, state.chips[player]) for seat, player in sorted(seats.items())),
        stakes=stakes, deal=hold is Hold.NONE, hold=hold,
        close=hold is Hold.CLOSED or (hold is Hold.OVER and state.config is not None),
    )


def table_commands(orders: TableOrders, table: TableState, now_ms: int) -> list[Any]:
    """The table commands that bring ``table`` (between hands) in line with ``orders``: players not in
    its seating leave, with their chips (moved: the tournament seats them elsewhere with the same chips;
    out: none); players missing sit down with their chips.  Everyone leaves a table that closes.  A player
    seated where the tournament seats them but with other chips (out, then re-entered into the same seat
    before the table let them go) leaves and sits down again with the tournament's chips."""
    wanted = {} if orders.close else {seat: (player, chips) for seat, player, chips in orders.seats}
    stale = {seat for seat, seated in table.seats.items()
             if wanted.get(seat) != (seated.player_id, seated.stack)}
    commands: list[Any] = [Leave(table.seats[seat].player_id, now_ms) for seat in sorted(stale)]
    for seat, (player, chips) in sorted(wanted.items()):
        if seat in stale or seat not in table.seats:
            commands.append(SitDown(player, seat, chips, now_ms))
    return commands


class Step(enum.StrEnum):
    """What a tournament's table between hands does next (``next_step``); NONE: nothing until the
    tournament or the table changes."""

    NONE = ""
    REPORT = "report"  # EndTableHand: the hand it ended, not yet folded by the tournament
    START = "start"    # StartHand: the hand the tournament let it deal, to the players seated (dealt in)
    SEAT = "seat"      # table_commands: players leave it and sit down at it
    DEAL = "deal"      # DealTableHand with ``seated_players``: ask the tournament to deal


def next_step(state: TournamentState, table_id: str, table: TableState) -> Step:
    """The next step of ``table_id`` (its table state ``table``) towards the tournament's orders.  A hand
    the tournament let it deal is started before any seat changes: players moved there since are dealt in
    from its next hand (§11 Balancing), and the hand's players are those the tournament dealt in."""
    if table.hand is not None:
        return Step.NONE
    dealt = state.in_hand.get(table_id) if state.status is Status.RUNNING else None
    if dealt is not None:
        # Another number: a hand the table has not caught up with (or a log at fault): wait for it.
        return {table.hand_number: Step.REPORT, table.hand_number + 1: Step.START}.get(dealt, Step.NONE)
    orders = table_orders(state, table_id)
    if table_commands(orders, table, 0):
        return Step.SEAT
    return Step.DEAL if orders.deal and can_start_hand(table) else Step.NONE


def seated_players(table: TableState) -> tuple[str, ...]:
    """The players a hand started at ``table`` now deals in, by name: what ``DealTableHand`` names."""
    return tuple(sorted(table.seats[seat].player_id for seat in players_ready(table)))


def hand_chips(events: Sequence[Any]) -> tuple[tuple[str, int, int], ...]:
    """(player, chips at the start, chips at the end) of the hand whose HandStarted and HandEnded are in
    ``events``: what ``EndTableHand`` reports."""
    started = next(event for event in events if isinstance(event, HandStarted))
    ended = next(event for event in events if isinstance(event, HandEnded))
    end_stacks = dict(ended.stacks)
    return tuple(sorted((player, stack, end_stacks[seat]) for seat, player, stack in started.seats))
