"""Tells a table's hands as a person would want to read them, from a watch stream (public API only).

It watches as a spectator, so it sees what any rail-bird sees: up cards, shown hands at showdown,
never a hidden down card (those print as ``▒▒``).
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from stud_service.cards import card_pretty
from stud_service.wording import ACTION_VERBS, STREET_NAMES, VARIANT_NAMES

HIDDEN = "▒▒"


def money(chips: int) -> str:
    """Chips are cents at the demo table."""
    return f"${chips // 100}.{chips % 100:02d}" if chips % 100 else f"${chips // 100}"


@dataclass
class _Seat:
    name: str
    down: list[int | None] = field(default_factory=list)
    up: list[int] = field(default_factory=list)
    folded: bool = False


@dataclass
class HandSummary:
    number: int
    pot: int
    winners: dict[str, int]
    description: str


@dataclass
class Narrator:
    """Feed it events (``TableEvent`` payloads) in order; it prints each hand as it goes."""

    out: Callable[[str], None] = print
    hands: list[HandSummary] = field(default_factory=list)
    last_stacks: dict[str, int] = field(default_factory=dict)  # after the last hand told
    _seats: dict[int, _Seat] = field(default_factory=dict)
    _community: list[int] = field(default_factory=list)
    _street: int = 0
    _hand: int = 0
    _pot: int = 0
    _antes: list[int] = field(default_factory=list)

    def feed(self, payload_json: str) -> None:
        event = json.loads(payload_json)
        handler = getattr(self, "_" + event["type"], None)
        if handler is not None:
            handler(event)

    # -- events --------------------------------------------------------------------------------

    def _HandStarted(self, event: dict[str, Any]) -> None:
        config = event["config"]
        self._hand = event["hand"]
        self._seats = {seat: _Seat(player) for seat, player, _stack in event["seats"]}
        self._community, self._street, self._pot, self._antes = [], 0, 0, []
        stakes = f"{money(config['small_bet'])}/{money(config['big_bet'])}"
        self.out("")
        self.out(
            f"━━ Hand #{self._hand} · {VARIANT_NAMES.get(config['variant'], config['variant'])} · {stakes}"
            f" · ante {money(config['ante'])} · bring-in {money(config['bring_in'])} ━━"
        )
        players = ", ".join(
            f"{s.name} (seat {seat}, {money(stack)})"
            for (seat, s), (_, _, stack) in zip(self._seats.items(), event["seats"], strict=True)
        )
        self.out(f"Players: {players}")
        self.out(f"Deck commitment: sha256 {event['commitment'][:16]}…")

    def _AntePosted(self, event: dict[str, Any]) -> None:
        self._antes.append(event["amount"])
        self._pot += event["amount"]

    def _CardDealt(self, event: dict[str, Any]) -> None:
        if self._antes:
            self.out(f"Antes: {len(self._antes)} × {money(max(self._antes))}")
            self._antes = []
        self._street = event["street"]
        seat = event.get("seat")
        if seat is None:
            self._community.append(event["card"])
            return
        target = self._seats[seat]
        if event["face_up"]:
            target.up.append(event["card"])
        else:
            target.down.append(event.get("card"))

    def _BettingRoundStarted(self, event: dict[str, Any]) -> None:
        self.out(f"{STREET_NAMES.get(event['street'], 'Street')}:")
        for player in self._seats.values():
            if player.folded:
                continue
            down = " ".join(card_pretty(card) if card is not None else HIDDEN for card in player.down)
            up = " ".join(card_pretty(card) for card in player.up)
            self.out(f"  {player.name:<8} [{down}] {up}")
        if self._community:
            self.out(f"  community: {' '.join(card_pretty(card) for card in self._community)}")

    def _PlayerActed(self, event: dict[str, Any]) -> None:
        player = self._seats[event["seat"]]
        self._pot += event["chips"]
        action = event["action"]
        verb = ACTION_VERBS.get(action, action.lower())
        amount = (
            ""
            if action in ("FOLD", "CHECK")
            else f" {money(event['amount'] if action != 'CALL' else event['chips'])}"
        )
        tail = " (all-in)" if event.get("all_in") else ""
        tail += " — out of time" if event.get("timeout") else ""
        if action == "FOLD":
            player.folded = True
        self.out(f"    {player.name} {verb}{amount}{tail}")

    def _UncalledBetReturned(self, event: dict[str, Any]) -> None:
        self._pot -= event["amount"]
        self.out(f"    {money(event['amount'])} uncalled, returned to {self._seats[event['seat']].name}")

    def _HandShown(self, event: dict[str, Any]) -> None:
        cards = " ".join(card_pretty(card) for card in event["cards"])
        made = " / ".join(
            part for part in (event.get("high"), event.get("low") and f"low {event['low']}") if part
        )
        self.out(f"  {self._seats[event['seat']].name} shows {cards}" + (f" — {made}" if made else ""))

    def _HandMucked(self, event: dict[str, Any]) -> None:
        self.out(f"  {self._seats[event['seat']].name} mucks")

    def _HandEnded(self, event: dict[str, Any]) -> None:
        winners: dict[str, int] = {}
        descriptions = []
        for pot in sorted(event["pots"], key=lambda pot: pot.get("pot", 0)):
            label = "main pot" if pot.get("pot", 0) == 0 else f"side pot {pot['pot']}"
            for award in pot.get("awards", ()):
                name = self._seats[award["seat"]].name
                winners[name] = winners.get(name, 0) + award["amount"]
                half = award.get("half")
                split = {other.get("half") for other in pot.get("awards", ())} >= {"high", "low"}
                half_text = f" ({half} half)" if split and half in ("high", "low") else ""
                with_hand = f" with {award['hand']}" if award.get("hand") else ""
                descriptions.append(with_hand.strip())
                self.out(f"  ★ {name} wins {money(award['amount'])} from the {label}{half_text}{with_hand}")
        stacks = ", ".join(
            f"{self._seats[seat].name} {money(stack)}"
            for seat, stack in event["stacks"]
            if seat in self._seats
        )
        self.out(f"  Stacks: {stacks}")
        self.last_stacks = {
            self._seats[seat].name: stack for seat, stack in event["stacks"] if seat in self._seats
        }
        total = sum(winners.values())
        self.hands.append(HandSummary(self._hand, total, winners, next((d for d in descriptions if d), "")))
