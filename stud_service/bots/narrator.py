"""Tells a table's hands as a person would want to read them, from a watch stream (public API only).

It watches as a spectator, so it sees what any rail-bird sees: up cards, shown hands at showdown,
never a hidden down card (those print as ``▒▒``).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

from stud_service.cards import card_pretty
from stud_service.currency import money_text
from stud_service.server.proto_gen import events_pb2, table_pb2
from stud_service.wording import ACTION_VERBS, STREET_NAMES, VARIANT_NAMES

_HALVES = {table_pb2.POT_HALF_HIGH: "high", table_pb2.POT_HALF_LOW: "low"}

HIDDEN = "▒▒"


def game_name(variant: int) -> str:
    """A ``Variant`` as players name the game: "Razz", "Stud Hi-Lo"."""
    name = table_pb2.Variant.Name(variant).removeprefix("VARIANT_")
    return VARIANT_NAMES.get(name) or name.replace("_", " ").title()


def money(chips: int) -> str:
    """Chips are cents at the demo table: dollars as every command writes them (``money_text``)."""
    return money_text(chips, "USD")


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
    """Feed it ``TableEvent`` messages in order; it prints each hand as it goes."""

    out: Callable[[str], None] = print
    hands: list[HandSummary] = field(default_factory=list)
    last_stacks: dict[str, int] = field(default_factory=dict)  # after the last hand told
    game_changes: list[tuple[int, str]] = field(default_factory=list)  # (after hand, next game), §13
    _seats: dict[int, _Seat] = field(default_factory=dict)
    _community: list[int] = field(default_factory=list)
    _street: int = 0
    _hand: int = 0
    _pot: int = 0
    _antes: list[int] = field(default_factory=list)

    def feed(self, message: events_pb2.TableEvent) -> None:
        kind = message.WhichOneof("event")
        handler = getattr(self, "_" + message.type, None) if kind is not None else None
        if handler is not None:
            handler(getattr(message, kind))

    # -- events --------------------------------------------------------------------------------

    def _HandStarted(self, event: events_pb2.HandStarted) -> None:
        config = event.config
        stakes = config.stakes
        self._hand = event.hand
        self._seats = {player.seat: _Seat(player.player_id) for player in event.players}
        self._community, self._street, self._pot, self._antes = [], 0, 0, []
        self.out("")
        self.out(
            f"━━ Hand #{self._hand} · {game_name(event.game or config.variant)}"
            f" · {money(stakes.small_bet)}/{money(stakes.big_bet)}"
            f" · ante {money(stakes.ante)} · bring-in {money(stakes.bring_in)} ━━"
        )
        players = ", ".join(
            f"{player.player_id} (seat {player.seat}, {money(player.starting_stack)})"
            for player in event.players
        )
        self.out(f"Players: {players}")
        self.out(f"Deck commitment: sha256 {event.commitment[:16]}…")

    def _AntePosted(self, event: events_pb2.AntePosted) -> None:
        self._antes.append(event.amount)
        self._pot += event.amount

    def _CardDealt(self, event: events_pb2.CardDealt) -> None:
        if self._antes:
            self.out(f"Antes: {len(self._antes)} × {money(max(self._antes))}")
            self._antes = []
        self._street = event.street
        if event.seat == 0:
            self._community.append(event.card)
            return
        target = self._seats[event.seat]
        if event.face_up:
            target.up.append(event.card)
        else:
            target.down.append(None if event.hidden else event.card)

    def _BettingRoundStarted(self, event: events_pb2.BettingRoundStarted) -> None:
        self.out(f"{STREET_NAMES.get(event.street, 'Street')}:")
        for player in self._seats.values():
            if player.folded:
                continue
            down = " ".join(card_pretty(card) if card is not None else HIDDEN for card in player.down)
            up = " ".join(card_pretty(card) for card in player.up)
            self.out(f"  {player.name:<8} [{down}] {up}")
        if self._community:
            self.out(f"  community: {' '.join(card_pretty(card) for card in self._community)}")

    def _PlayerActed(self, event: events_pb2.PlayerActed) -> None:
        player = self._seats[event.seat]
        self._pot += event.chips
        action = table_pb2.ActionType.Name(event.action).removeprefix("ACTION_TYPE_")
        verb = ACTION_VERBS.get(action, action.lower())
        amount = (
            ""
            if action in ("FOLD", "CHECK")
            else f" {money(event.amount if action != 'CALL' else event.chips)}"
        )
        tail = " (all-in)" if event.all_in else ""
        tail += " — out of time" if event.timeout else ""
        if action == "FOLD":
            player.folded = True
        self.out(f"    {player.name} {verb}{amount}{tail}")

    def _UncalledBetReturned(self, event: events_pb2.UncalledBetReturned) -> None:
        self._pot -= event.amount
        self.out(f"    {money(event.amount)} uncalled, returned to {self._seats[event.seat].name}")

    def _HandShown(self, event: events_pb2.HandShown) -> None:
        cards = " ".join(card_pretty(card) for card in event.cards)
        made = " / ".join(part for part in (event.high, event.low and f"low {event.low}") if part)
        self.out(f"  {self._seats[event.seat].name} shows {cards}" + (f" — {made}" if made else ""))

    def _HandMucked(self, event: events_pb2.HandMucked) -> None:
        self.out(f"  {self._seats[event.seat].name} mucks")

    def _GameChanged(self, event: events_pb2.GameChanged) -> None:
        """RULES.md §13: a mixed table moves to its rotation's next game."""
        self.game_changes.append((event.after_hand, game_name(event.game)))
        self.out("")
        self.out(f"▶▶ The game changes: {game_name(event.game)} from hand #{event.after_hand + 1},"
                 f" for {event.hands} hand{'' if event.hands == 1 else 's'}")

    def _HandEnded(self, event: events_pb2.HandEnded) -> None:
        winners: dict[str, int] = {}
        descriptions = []
        for pot in sorted(event.pots, key=lambda pot: pot.pot_index):
            label = "main pot" if pot.pot_index == 0 else f"side pot {pot.pot_index}"
            split = any(award.pot_half != table_pb2.POT_HALF_WHOLE for award in pot.awards)
            for award in pot.awards:
                name = self._seats[award.seat].name
                winners[name] = winners.get(name, 0) + award.amount
                half = _HALVES.get(award.pot_half)
                half_text = f" ({half} half)" if split and half else ""
                with_hand = f" with {award.hand_description}" if award.hand_description else ""
                descriptions.append(with_hand.strip())
                self.out(f"  ★ {name} wins {money(award.amount)} from the {label}{half_text}{with_hand}")
        if event.rake:
            self.out(f"  Rake {money(event.rake)}")
        stacks = ", ".join(
            f"{self._seats[entry.seat].name} {money(entry.stack)}"
            for entry in event.stacks
            if entry.seat in self._seats
        )
        self.out(f"  Stacks: {stacks}")
        self.last_stacks = {
            self._seats[entry.seat].name: entry.stack for entry in event.stacks if entry.seat in self._seats
        }
        total = sum(winners.values())
        self.hands.append(HandSummary(self._hand, total, winners, next((d for d in descriptions if d), "")))
