"""What a tournament tells each of its tables between hands, as plain data, and the table commands that
carry it out (RULES.md §11).

A table is an ordinary table stream created with ``table_config``.  Between its hands the tournament's
owner reads ``table_orders`` and brings the table in line with ``table_commands`` (players who left it:
moved, out, or its table broken; players who join it, with their chips); then, if ``deal`` says so, it
sends the tournament ``DealTableHand`` and the table ``StartHand`` with ``stakes``.  When the table's hand
ends it sends the tournament ``EndTableHand`` with ``hand_chips`` of the hand.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from stud_service.engine import Leave, SitDown, Stakes, TableConfig, TableState
from stud_service.engine.config import MAX_CHIPS, PLAY_CHIPS
from stud_service.engine.events import HandEnded, HandStarted
from stud_service.tournaments.dealing import Hold, hold_of, next_hand_level
from stud_service.tournaments.state import TournamentState, current_level
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
    tournament's action clock and time bank (§7)."""
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
    ).validate()


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
    out: none); players missing sit down with their chips.  Everyone leaves a table that closes."""
    wanted = {} if orders.close else {seat: (player, chips) for seat, player, chips in orders.seats}
    commands: list[Any] = [Leave(seated.player_id, now_ms) for seat, seated in sorted(table.seats.items())
                           if wanted.get(seat, ("",))[0] != seated.player_id]
    for seat, (player, chips) in sorted(wanted.items()):
        seated = table.seats.get(seat)
        if seated is None or seated.player_id != player:
            commands.append(SitDown(player, seat, chips, now_ms))
    return commands


def hand_chips(events: Sequence[Any]) -> tuple[tuple[str, int, int], ...]:
    """(player, chips at the start, chips at the end) of the hand whose HandStarted and HandEnded are in
    ``events``: what ``EndTableHand`` reports."""
    started = next(event for event in events if isinstance(event, HandStarted))
    ended = next(event for event in events if isinstance(event, HandEnded))
    end_stacks = dict(ended.stacks)
    return tuple(sorted((player, stack, end_stacks[seat]) for seat, player, stack in started.seats))
