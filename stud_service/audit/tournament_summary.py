"""A tournament's summary as rooms give it to players: entrants, prize pool, times, every place and prize.

Built from the tournament's events alone (``tournament_summary(payloads)``), as text in the layout of
PokerStars' tournament summaries, which tracking tools read::

    PokerStars Tournament #1234567890, Limit Razz
    Buy-In: $10.00/$1.00 USD
    9 players
    Total Prize Pool: $90.00 USD
    Tournament started 2026/01/01 0:00:00 UTC [2025/12/31 19:00:00 ET]
    Tournament finished 2026/01/01 1:12:09 UTC [2025/12/31 20:12:09 ET]
      1: p4, $58.50 (65%)
      2: p1, $31.50 (35%)
      3: p9,
      ...
    You finished in 3rd place (eliminated at hand #123456789012).

and as JSON (``TournamentSummary.to_json``).  The number after ``Tournament #`` is the one the hand
histories carry (``tournament_log.tournament_number``); the hand numbers are theirs too.  Decided where
the room's format has no answer: players share a place by each being listed at its first number (3, 3,
5); a running tournament lists the players still in first, by chips, as ``still playing``; re-entries
add a line ``N re-entries`` after the players; a cancelled tournament says so with its reason and lists
what each player still in was paid (``-:`` instead of a place); the service knows no player's country,
so none is written after the name; play money has no buy-in (``Buy-In: Freeroll``).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

from stud_service.audit.pokerstars import MIX_LETTERS, hand_number, money_formatter, ordinal, room_time
from stud_service.audit.tournament_check import readable
from stud_service.audit.tournament_log import Finish, TournamentInfo, tournament_number
from stud_service.tournaments import Status, event_from_json, replay
from stud_service.tournaments.state import entries_total

GAMES = {"STUD": "Limit 7 Card Stud", "STUD_HI_LO": "Limit 7 Card Stud Hi/Lo", "RAZZ": "Limit Razz"}


@dataclass(frozen=True)
class TournamentSummary:
    tournament_id: str
    name: str
    variant: str
    status: str
    buy_in: int
    fee: int
    currency: str
    players: int
    entries: int
    pool: int
    started_ms: int | None
    ended_ms: int | None
    places: tuple[Finish, ...]                       # by place, best first
    still_playing: tuple[tuple[str, int], ...]        # (player, chips), most chips first
    out_in: Mapping[str, tuple[str, int]] = field(default_factory=dict)  # player -> (table, hand) out in
    cancelled_reason: str | None = None
    cancellation: tuple[tuple[str, int], ...] = ()     # (player, amount) paid or refunded on cancellation
    rotation: tuple[str, ...] = ()                     # a mixed tournament's games in turn (RULES.md §13)

    @property
    def number(self) -> int:
        return tournament_number(self.tournament_id)

    def _money(self, amount: int) -> str:
        return money_formatter(self.currency)(amount)

    def _share(self, prize: int) -> str:
        if not self.pool:
            return ""
        percent = f"{prize * 100 / self.pool:.2f}".rstrip("0").rstrip(".")
        return f" ({percent}%)"

    def to_text(self, player_id: str | None = None) -> str:
        money = self._money
        code = f" {self.currency}" if self.currency else ""
        game = GAMES.get(self.variant, self.variant)
        if self.rotation:  # §13: the mix by its games' letters, its games within, as for a hand's header
            mix = "".join(MIX_LETTERS[name] for name in self.rotation)
            game = f"{mix} ({', '.join(GAMES[name] for name in self.rotation)})"
        lines = [f"PokerStars Tournament #{self.number}, {game}"]
        if self.buy_in or self.fee:
            lines.append(f"Buy-In: {money(self.buy_in)}/{money(self.fee)}{code}")
        else:
            lines.append("Buy-In: Freeroll")
        lines.append(f"{self.players} players")
        if self.entries > self.players:
            lines.append(f"{self.entries - self.players} re-entries")
        lines.append(f"Total Prize Pool: {money(self.pool)}{code}")
        if self.started_ms is not None:
            lines.append(f"Tournament started {_when(self.started_ms)}")
        if self.ended_ms is not None:
            if self.cancelled_reason is None:
                lines.append(f"Tournament finished {_when(self.ended_ms)}")
            else:
                lines.append(f"Tournament cancelled {_when(self.ended_ms)}: {self.cancelled_reason}")
        for rank, (player, _chips) in enumerate(self.still_playing, 1):
            lines.append(f"  {rank}: {player}, still playing")
        for player, amount in self.cancellation:
            lines.append(f"  -: {player}, {money(amount)}")
        for finish in self.places:
            prize = f" {money(finish.prize)}{self._share(finish.prize)}" if finish.prize else ""
            lines.append(f"  {finish.place}: {finish.player_id},{prize}")
        if player_id is not None:
            lines += ["", self._yours(player_id)]
        return "\n".join(lines) + "\n"

    def _yours(self, player_id: str) -> str:
        finish = next((f for f in self.places if f.player_id == player_id), None)
        if finish is not None:
            shared = f" (shared to {ordinal(finish.last_place)})" if finish.last_place > finish.place else ""
            received = f" and received {self._money(finish.prize)}" if finish.prize else ""
            out = self.out_in.get(player_id)
            hand = f" (eliminated at hand #{hand_number(*out)})" if out and finish.place > 1 else ""
            return f"You finished in {ordinal(finish.place)} place{shared}{received}{hand}."
        if any(player == player_id for player, _chips in self.still_playing):
            return "You are still playing."
        paid = dict(self.cancellation).get(player_id)
        if paid is not None:
            return f"The tournament was cancelled: you received {self._money(paid)}."
        return "You did not enter this tournament."

    def to_json(self) -> dict[str, Any]:
        return {
            "tournament_id": self.tournament_id, "number": self.number, "name": self.name,
            "variant": self.variant, "status": self.status, "buy_in": self.buy_in, "fee": self.fee,
            "currency": self.currency, "players": self.players, "entries": self.entries, "pool": self.pool,
            "started_ms": self.started_ms, "ended_ms": self.ended_ms,
            "places": [{"player": f.player_id, "place": f.place, "last_place": f.last_place, "prize": f.prize,
                        "eliminated_in": _hand_name(self.out_in.get(f.player_id))} for f in self.places],
            "still_playing": [{"player": player, "chips": chips} for player, chips in self.still_playing],
            "cancelled_reason": self.cancelled_reason,
            "cancellation": [{"player": player, "amount": amount} for player, amount in self.cancellation],
            **({"rotation": list(self.rotation)} if self.rotation else {}),
        }


def _when(at_ms: int) -> str:
    return room_time(datetime.fromtimestamp(at_ms / 1000, UTC))


def _hand_name(hand: tuple[str, int] | None) -> str | None:
    return None if hand is None else f"tables/{hand[0]}/hands/{hand[1]}"


def tournament_summary(payloads: Iterable[Mapping[str, Any]]) -> TournamentSummary:
    """The summary of the tournament whose events (JSON, in order) are ``payloads``; NoTournament
    when they hold no tournament, EventDecodeError for an event the codec cannot read."""
    events = [readable(payload) for payload in payloads]
    info = TournamentInfo.from_payloads(events)
    state = replay(event_from_json(event) for event in events)
    assert state.config is not None
    times = {event["type"]: event["at_ms"] for event in events}
    cancelled = next((event for event in events if event["type"] == "TournamentCancelled"), None)
    out_in = {finish.player_id: hand for hand, finishes in info.finishes.items() for finish in finishes}
    places = sorted((finish for finishes in info.finishes.values() for finish in finishes),
                    key=lambda f: (f.place, f.player_id))
    placed = {finish.player_id for finish in places}
    places += sorted((Finish(player, place, last, state.prizes_won.get(player, 0))
                      for player, (place, last) in state.places.items() if player not in placed),
                     key=lambda f: (f.place, f.player_id))  # placed, but the hand they went out in is unknown
    pool = state.pool if state.prizes is not None else entries_total(state) * state.config.buy_in
    cancellation: tuple[tuple[str, int], ...] = ()
    if cancelled is not None:
        paid = cancelled["payouts"] or cancelled["refunds"]  # after the start, or before it
        cancellation = tuple((str(player), int(amount)) for player, amount in paid)
    running = state.status is Status.RUNNING
    return TournamentSummary(
        tournament_id=info.tournament_id, name=info.name, variant=state.config.variant.value,
        rotation=tuple(game.value for game in state.config.rotation),
        status=state.status.value, buy_in=state.config.buy_in, fee=state.config.fee,
        currency=state.config.currency, players=len(state.registered), entries=entries_total(state),
        pool=pool,
        started_ms=times.get("TournamentStarted"),
        ended_ms=times.get("TournamentFinished", times.get("TournamentCancelled")),
        places=tuple(places),
        still_playing=tuple(sorted(((player, state.chips[player]) for player in state.seat_of),
                                   key=lambda row: (-row[1], row[0]))) if running else (),
        out_in=out_in,
        cancelled_reason=None if cancelled is None else (cancelled["reason"] or "cancelled"),
        cancellation=cancellation,
    )
