"""Whole simulated tournaments for the audit's tests: dealt from committed seeds as the service deals, so
their hands verify like the service's, and their events as JSON as the log holds them.

``SUNDAY_RAZZ``   a $10+$1 Razz sit & go of 12 at two tables of 6: levels, a break, balancing, a broken
                  table, a bubble and a final table (default payouts: 3 places)
``played(config, seed, ...)``  a finished (or cancelled) tournament, ``committed_shuffle`` on
``payloads(sim)``  the tournament's events as JSON, in order
"""

from __future__ import annotations

from typing import Any

from stud_service.engine import Variant
from stud_service.tournaments import Level, TournamentConfig, event_to_json
from stud_service.tournaments.simulate import SimulatedTournament, simulate_tournament

SUNDAY_RAZZ = TournamentConfig(
    name="Sunday Razz", variant=Variant.RAZZ, max_entrants=12, seats_per_table=6, buy_in=1_000, fee=100,
    currency="USD", starting_stack=1_000,
    levels=(Level(5, 10, 20, 40, 2), Level(10, 20, 40, 80, 2), Level(minutes=1, is_break=True),
            Level(20, 50, 100, 200, 2), Level(50, 100, 200, 400, 5)),
)


def played(config: TournamentConfig = SUNDAY_RAZZ, seed: int = 4, tournament_id: str = "sunday-razz",
           **options: Any) -> SimulatedTournament:
    return simulate_tournament(config, seed, tournament_id=tournament_id, committed_shuffle=True, **options)


def payloads(sim: SimulatedTournament) -> list[dict[str, Any]]:
    return [event_to_json(event) for event in sim.log]
