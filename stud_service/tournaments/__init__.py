"""Tournaments (RULES.md §11) as pure functions over events, beside the table engine: a tournament is a
stream ``tournaments/{id}`` with its own decide/evolve; its tables are ordinary table streams it drives
between hands (``orders``).  No I/O, no clock, no randomness: time comes in as ``now_ms``, randomness as
seeds committed before they are drawn from (``draws``).  docs/tournaments.md tells the whole story.

The public API (import from ``stud_service.tournaments``)::

    # the structure (validate() raises TournamentConfigError(field))
    TournamentConfig(name, variant, kind=TournamentKind.SIT_AND_GO | SCHEDULED, start_ms, levels=(Level(ante,
        bring_in, small_bet, big_bet, minutes, is_break), ...), starting_stack, seats_per_table, min_entrants,
        max_entrants, late_registration_levels, re_entries, re_entry_until_level, buy_in, fee, currency,
        payouts=(basis points by place, ...) or () for the default table, cancellation_payout=CHIPS | EQUAL,
        action_clock_seconds)

    # commands (next_draw: NextDraw(commitment, secret), the seed of the draw after the next one)
    CreateTournament(tournament_id, config, first_draw, now_ms, by)
    Register(player_id, now_ms, next_draw)   Unregister(player_id, now_ms)
    ReEnter(player_id, now_ms, next_draw)
    StartTournament(now_ms, next_draw)       AdvanceLevel(now_ms, next_draw)
    DealTableHand(table_id, hand, now_ms, seated)  EndTableHand(table_id, hand, chips, now_ms, next_draw)
    CancelTournament(by, reason, now_ms)

    # the decider
    decide(state, command) -> [events]       raises TournamentError (the tree in errors)
    execute(state, command) -> (events, state)
    execute_then(state, command, then) -> (events, state)   then(state after it) -> a command decided
                                             after it, or None: the events of both as one change
    evolve(state, event) -> state            replay(events, state=None) -> state
    event_to_json(event) / event_from_json(data)

    # the tables
    table_config(config, tournament_id, table_id) -> TableConfig
    table_orders(state, table_id) -> TableOrders(seats, stakes, deal, hold, close)
    table_commands(orders, table_state, now_ms) -> [table commands]
    next_step(state, table_id, table_state) -> Step.NONE | REPORT | START | SEAT | DEAL (between hands)
    seated_players(table_state) -> what DealTableHand names   dealt_stakes(config, index) -> Stakes
    hand_chips(table events of one hand) -> what EndTableHand reports
"""

from stud_service.tournaments.codec import event_from_json, event_to_json
from stud_service.tournaments.commands import (
    AdvanceLevel,
    CancelTournament,
    CreateTournament,
    DealTableHand,
    EndTableHand,
    NextDraw,
    ReEnter,
    Register,
    StartTournament,
    Unregister,
)
from stud_service.tournaments.dealing import Hold
from stud_service.tournaments.decide import decide, execute, execute_then
from stud_service.tournaments.errors import TournamentConfigError, TournamentError
from stud_service.tournaments.evolve import evolve, replay
from stud_service.tournaments.orders import (
    Step,
    TableOrders,
    dealt_stakes,
    hand_chips,
    next_step,
    seated_players,
    table_commands,
    table_config,
    table_orders,
)
from stud_service.tournaments.state import Status, TournamentState, initial_state, players_left
from stud_service.tournaments.structure import (
    CancellationPayout,
    Level,
    TournamentConfig,
    TournamentKind,
)

__all__ = [
    "AdvanceLevel", "CancelTournament", "CancellationPayout", "CreateTournament", "DealTableHand",
    "EndTableHand", "Hold", "Level", "NextDraw", "ReEnter", "Register", "StartTournament", "Status",
    "TableOrders", "TournamentConfig", "TournamentConfigError", "TournamentError", "TournamentKind",
    "TournamentState", "Unregister", "decide", "event_from_json", "event_to_json", "evolve", "execute",
    "execute_then", "hand_chips", "initial_state", "players_left", "replay", "table_commands", "table_config",
    "table_orders",
    "Step", "dealt_stakes", "next_step", "seated_players",
]
