"""Helpers for the tournament tests: a tournament driven by commands, with hands whose results the test
chooses, checking after every command that replaying the log and a JSON round trip give the same state."""

from __future__ import annotations

import hashlib
from collections.abc import Mapping
from typing import Any

from stud_service.shuffle import commitment
from stud_service.tournaments import (
    CreateTournament,
    DealTableHand,
    EndTableHand,
    NextDraw,
    Register,
    TournamentConfig,
    TournamentState,
    decide,
    event_from_json,
    event_to_json,
    evolve,
    initial_state,
    replay,
)
from stud_service.tournaments.draws import draw_secret

T0 = 1_800_000_000_000


def seed_number(n: int) -> bytes:
    return hashlib.sha256(f"tournament draw {n}".encode()).digest()


def next_draw(n: int) -> NextDraw:
    seed = seed_number(n)
    return NextDraw(commitment(seed), draw_secret(seed))


def of_type(events: list[Any], name: str) -> list[Any]:
    return [event for event in events if type(event).__name__ == name]


class Tourney:
    """One tournament driven by commands; hands are dealt and ended with the chips a test gives."""

    def __init__(self, config: TournamentConfig, tournament_id: str = "spring") -> None:
        self.state: TournamentState = initial_state()
        self.log: list[Any] = []
        self.now = T0
        self.draws = 0
        self.run(CreateTournament(tournament_id, config, self.next_draw(), self.now))

    def next_draw(self) -> NextDraw:
        self.draws += 1
        return next_draw(self.draws)

    def run(self, command: Any) -> list[Any]:
        events = decide(self.state, command)
        for event in events:
            assert event_from_json(event_to_json(event)) == event
            self.state = evolve(self.state, event)
        self.log.extend(events)
        assert replay(self.log) == self.state
        return events

    def register(self, *players: str) -> list[Any]:
        events: list[Any] = []
        for player in players:
            events += self.run(Register(player, self.now, self.next_draw()))
        return events

    def players_at(self, table_id: str) -> list[str]:
        return sorted(self.state.tables[table_id].values())

    def deal(self, table_id: str) -> list[Any]:
        return self.run(DealTableHand(table_id, self.state.last_hand.get(table_id, 0) + 1, self.now))

    def end(self, table_id: str, ends: Mapping[str, int] | None = None) -> list[Any]:
        """End the table's running hand: each player dealt in ends with ``ends`` (default: as they began)."""
        hand = self.state.in_hand[table_id]
        chips = tuple((player, self.state.chips[player], (ends or {}).get(player, self.state.chips[player]))
                      for player in self.state.dealt_in[table_id])
        return self.run(EndTableHand(table_id, hand, chips, self.now, self.next_draw()))

    def hand(self, table_id: str, ends: Mapping[str, int] | None = None) -> list[Any]:
        return self.deal(table_id) + self.end(table_id, ends)

    def bust(self, table_id: str, losers: list[str], winner: str) -> list[Any]:
        """A hand at ``table_id`` where ``losers`` lose every chip to ``winner``."""
        chips = self.state.chips
        ends = {loser: 0 for loser in losers}
        ends[winner] = chips[winner] + sum(chips[loser] for loser in losers)
        return self.hand(table_id, ends)

    def shift(self, table_id: str, loser: str, winner: str, amount: int) -> list[Any]:
        chips = self.state.chips
        return self.hand(table_id, {loser: chips[loser] - amount, winner: chips[winner] + amount})
