"""Export a hand as PokerStars-style hand-history text (Seven Card Stud, Stud Hi-Lo, Razz).

The layout follows PokerStars' stud histories, which hand-history tools read: a header line, the
table line, seats with stacks, antes, one section per street (``*** 3rd STREET ***`` ... ``*** RIVER
***``) with ``Dealt to`` lines, ``brings in for``, the actions, ``*** SHOW DOWN ***``, the collections
and ``*** SUMMARY ***`` with ``Total pot X | Rake Y`` (RULES.md §10; collections are after the rake).
Amounts are written in the table's currency, from its smallest unit: ``$12.34`` for USD, with the
sign for EUR and GBP too, a bare decimal for other currencies (``1234`` for JPY: no minor units), and the
code after the stakes in the header as PokerStars writes it; a play-chip table (created before tables
had a currency) keeps plain integers.  The hand number is a stable 12-digit number derived from table
and hand.  The header's time is written as the room writes it for a player outside its own time zone:
the time in that zone (here UTC), then Eastern time in brackets, which hand-history tools read
(``2026/12/06 10:23:33 UTC [2026/12/06 5:23:33 ET]``; ET is New York's time, daylight saving included).

An auditor's export (no ``player_id``) deals every card face up on the page; a player's export shows
their own down cards and everyone's up cards, as PokerStars does for the hero.  What was said in the
table chat during the hand comes in its place among the actions, as the room writes it:
``alice said, "nice hand"`` (docs/chat.md; a message an operator deleted only in an auditor's export).

A voided hand (RULES.md §12) ends where it was stopped, as PokerStars writes a hand its server cancelled:
a line saying who voided it and why (``Hand voided by ops-1: dealer fault``; ``Hand voided by the table:
interrupted: ...`` for the table's own void of an interrupted hand), then ``Hand cancelled`` and a summary
with ``Total pot 0 | Rake 0``: nothing was collected, every chip went back, no hand was shown.

A mixed table's hand (RULES.md §13) names the mix and, within it, the game of that hand, as PokerStars writes
the hands of its mixed games (``HORSE (Razz Limit, $2/$4 USD)``): the mix is named by its games' letters in
turn, R for Razz, S for Seven Card Stud, E for Stud Hi-Lo ("eight or better"), the rule book's "R-S-E":
``PokerStars Hand #N:  RSE (Razz Limit, $2/$4 USD) - <time>``, and in a tournament ``... $10+$1 USD RSE
(Razz Limit) - Level III (50/100) - <time>``.  The stakes are those the hand was played at.

A tournament table's hand (its ``HandStarted`` config names the tournament and the level) gets the
header PokerStars writes for tournaments: ``PokerStars Hand #N: Tournament #T, $10+$1 USD 7 Card Stud
Limit - Level III (50/100) - <time>`` (the buy-in and fee in the room's way: whole amounts without
cents; ``Freeroll`` without either), the table line ``Table 'T 2' 8-max`` (the tournament's number and
the table's), amounts in chips, and, before the summary, the players who finished the tournament in
that hand with their places and prizes.  ``T`` is the tournament's stable number
(``tournament_log.tournament_number``); the buy-in, fee and places come from the tournament's own
events (``TournamentInfo``), which the caller passes in.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable
from datetime import UTC, datetime
from typing import Any
from zoneinfo import ZoneInfo

from stud_service.audit.history import FULL, with_chat
from stud_service.audit.records import HandRecord
from stud_service.audit.tournament_log import TournamentInfo, table_number, tournament_number
from stud_service.cards import card_str
from stud_service.currency import CURRENCY_SIGNS, format_amount, minor_units
from stud_service.engine.events import started_game

GAME_NAMES = {"STUD": "7 Card Stud Limit", "STUD_HI_LO": "7 Card Stud Hi/Lo Limit", "RAZZ": "Razz Limit"}
# A mixed table's game in its name (RULES.md §13: "R-S-E"): a rotation is named by its games' letters in turn.
MIX_LETTERS = {"STUD": "S", "STUD_HI_LO": "E", "RAZZ": "R"}
STREET_NAMES = {3: "3rd STREET", 4: "4th STREET", 5: "5th STREET", 6: "6th STREET", 7: "RIVER"}
FOLDED_ON = {3: "3rd Street", 4: "4th Street", 5: "5th Street", 6: "6th Street", 7: "7th Street"}
EASTERN = ZoneInfo("America/New_York")  # the room's "ET": EST or EDT as the date has it


def hand_number(table_id: str, hand: int) -> int:
    """A stable 12-digit hand number for ``tables/{table_id}/hands/{hand}``."""
    digest = hashlib.sha256(f"tables/{table_id}/hands/{hand}".encode()).digest()
    return 10**11 + int.from_bytes(digest[:8], "big") % (9 * 10**11)


def room_time(at: datetime) -> str:
    """``at`` as the room's header writes it: UTC, then ET in brackets; hours without a leading zero."""

    def written(moment: datetime, zone: str) -> str:
        return f"{moment:%Y/%m/%d} {moment.hour}:{moment:%M:%S} {zone}"

    return f"{written(at.astimezone(UTC), 'UTC')} [{written(at.astimezone(EASTERN), 'ET')}]"


def _cards(cards: list[int]) -> str:
    return "[" + " ".join(card_str(card) for card in cards) + "]"


def money_formatter(currency: str) -> Callable[[int], str]:
    """How an amount of ``currency``'s smallest unit is written: with PokerStars' sign for dollars, euros
    and pounds ("$0.40"), as a bare decimal for other currencies, and "" (play chips) as the integer."""
    if not currency:
        return str
    sign = CURRENCY_SIGNS.get(currency, "")
    return lambda amount: sign + format_amount(amount, currency)


def roman(number: int) -> str:
    """A level's number as PokerStars writes it (``Level XIV``)."""
    out = []
    for value, letters in ((100, "C"), (90, "XC"), (50, "L"), (40, "XL"), (10, "X"), (9, "IX"), (5, "V"),
                           (4, "IV"), (1, "I")):
        count, number = divmod(number, value)
        out.append(letters * count)
    return "".join(out)


def ordinal(number: int) -> str:
    """1st, 2nd, 3rd, 4th, ..., 11th, 12th, 13th, 21st."""
    suffix = "th" if 10 <= number % 100 <= 20 else {1: "st", 2: "nd", 3: "rd"}.get(number % 10, "th")
    return f"{number}{suffix}"


def entry_fee_text(buy_in: int, fee: int, currency: str) -> str:
    """The buy-in and fee as a tournament hand's header writes them: ``$10+$1 USD``, ``$0.98+$0.12
    USD`` (cents only when there are some), ``Freeroll`` when both are 0."""
    if not buy_in and not fee:
        return "Freeroll"
    if not currency:
        return f"{buy_in}+{fee}"
    sign = CURRENCY_SIGNS.get(currency, "")
    unit = 10 ** minor_units(currency)

    def written(amount: int) -> str:
        return sign + (str(amount // unit) if amount % unit == 0 else format_amount(amount, currency))

    return f"{written(buy_in)}+{written(fee)} {currency}"


def _pot_name(index: int, pots: int) -> str:
    if pots == 1:
        return "pot"
    return "main pot" if index == 0 else f"side pot-{index}"


class _Writer:
    def __init__(self, record: HandRecord, player_id: str | None, tournament: TournamentInfo | None) -> None:
        self.events = [payload for _version, payload in with_chat(record, player_id or FULL)]
        self.record = record
        started = self.events[0]
        self.config = started["config"]
        tournament_id = self.config.get("tournament_id")
        if tournament_id and (tournament is None or tournament.tournament_id != tournament_id):
            tournament = TournamentInfo(str(tournament_id))  # its id alone: no buy-in to write
        self.tournament = tournament if tournament_id else None
        self.currency = str(self.config.get("currency", ""))
        self.money = money_formatter(self.currency)
        self.names = {int(seat): str(player) for seat, player, _stack in started["seats"]}
        self.stacks = {int(seat): int(stack) for seat, _player, stack in started["seats"]}
        self.hero = record.seat_of(player_id) if player_id else None
        self.cards: dict[int, list[int | None]] = {seat: [] for seat in self.names}
        self.folded_on: dict[int, int] = {}
        self.lines: list[str] = []
        self.level = 0
        self.bets: dict[int, int] = dict.fromkeys(self.names, 0)
        self.street = 0

    def say(self, line: str) -> None:
        self.lines.append(line)

    def header(self) -> None:
        started = self.events[0]
        config = self.config
        at = datetime.fromtimestamp(started["at_ms"] / 1000, UTC)
        money = self.money
        stakes = f"{money(config['small_bet'])}/{money(config['big_bet'])}"
        number = hand_number(self.record.table_id, self.record.hand)
        tournament = self.tournament
        if tournament is not None:
            entry = "" if tournament.buy_in is None else entry_fee_text(
                tournament.buy_in, tournament.fee, tournament.currency) + " "
            level = f"Level {roman(int(config.get('tournament_level', 0)))}"
            self.say(
                f"PokerStars Hand #{number}: Tournament #{tournament_number(tournament.tournament_id)}, "
                f"{entry}{self.game_title()} - {level} ({stakes}) - {room_time(at)}"
            )
            table = table_number(tournament.tournament_id, self.record.table_id)
            self.say(f"Table '{tournament_number(tournament.tournament_id)} {table}' {config['seats']}-max")
        else:
            if self.currency:  # PokerStars writes the code once, after the stakes
                stakes += f" {self.currency}"
            game = self.game_title(stakes)
            self.say(f"PokerStars Hand #{number}:  {game} - {room_time(at)}")
            self.say(f"Table '{self.record.table_id}' {config['seats']}-max")
        for seat, name in sorted(self.names.items()):
            self.say(f"Seat {seat}: {name} ({self.money(self.stacks[seat])} in chips)")

    def game_title(self, stakes: str = "") -> str:
        """The game as the header names it (RULES.md §13: a mixed table's hand names its own game within the
        mix, as PokerStars writes a HORSE hand): ``Razz Limit ($2/$4 USD)``, ``RSE (Razz Limit, $2/$4
        USD)``; a tournament's header has no stakes there: ``Razz Limit``, ``RSE (Razz Limit)``."""
        game = GAME_NAMES[started_game(self.events[0])]
        rotation = self.config.get("rotation") or []
        if not rotation:
            return f"{game} ({stakes})" if stakes else game
        mix = "".join(MIX_LETTERS[name] for name in rotation)
        return f"{mix} ({game}, {stakes})" if stakes else f"{mix} ({game})"

    def deal(self, street: int, dealt: list[dict[str, Any]]) -> None:
        self.street = street
        self.level = 0
        self.bets = dict.fromkeys(self.names, 0)
        self.say(f"*** {STREET_NAMES[street]} ***")
        community = [d["card"] for d in dealt if d["seat"] is None]
        for seat in sorted(self.names):
            mine = [d for d in dealt if d["seat"] == seat]
            if not mine:
                continue
            before = [card for card in self.cards[seat] if card is not None]
            new = [d["card"] for d in mine if d["card"] is not None]
            self.cards[seat].extend(d["card"] for d in mine)
            if not new:
                continue  # a card this viewer did not see
            if street == 3:
                self.say(f"Dealt to {self.names[seat]} {_cards(new)}")
            else:
                self.say(f"Dealt to {self.names[seat]} {_cards(before)} {_cards(new)}")
        if community:
            self.say(f"Board {_cards(community)}")

    def act(self, payload: dict[str, Any]) -> None:
        seat = payload["seat"]
        name = self.names[seat]
        action = payload["action"]
        amount, chips = payload["amount"], payload["chips"]
        money = self.money
        if payload.get("timeout"):
            self.say(f"{name} has timed out")
        if action == "FOLD":
            self.folded_on[seat] = self.street
            text = "folds"
        elif action == "CHECK":
            text = "checks"
        elif action == "CALL":
            text = f"calls {money(chips)}"
        elif action == "BRING_IN":
            text = f"brings in for {money(amount)}"
        elif action == "COMPLETE":
            text = f"completes it to {money(amount)}"
        elif action == "BET":
            text = f"bets {money(amount)}"
        else:
            text = f"raises {money(amount - self.level)} to {money(amount)}"
        if payload["all_in"]:
            text += " and is all-in"
        self.level = max(self.level, amount)
        self.bets[seat] = amount
        self.say(f"{name}: {text}")

    def write(self) -> str:
        self.header()
        for payload in self.events:
            if payload["type"] == "AntePosted":
                all_in = " and is all-in" if payload["all_in"] else ""
                ante = self.money(payload["amount"])
                self.say(f"{self.names[payload['seat']]}: posts the ante {ante}{all_in}")
        pending: list[dict[str, Any]] = []
        street = 0
        showdown = False
        voided: dict[str, Any] | None = None
        for payload in self.events:
            kind = payload["type"]
            if kind == "CardDealt":
                if payload["street"] != street and pending:
                    self.deal(street, pending)
                    pending = []
                street = payload["street"]
                pending.append(payload)
                continue
            if pending:
                self.deal(street, pending)
                pending = []
            if kind == "PlayerActed":
                self.act(payload)
            elif kind == "UncalledBetReturned":
                returned = self.money(payload["amount"])
                self.say(f"Uncalled bet ({returned}) returned to {self.names[payload['seat']]}")
            elif kind in ("HandShown", "HandMucked"):
                if not showdown:
                    self.say("*** SHOW DOWN ***")
                    showdown = True
                name = self.names[payload["seat"]]
                if kind == "HandMucked":
                    self.say(f"{name}: mucks hand")
                else:
                    self.say(f"{name}: shows {_cards(payload['cards'])} ({self._made(payload)})")
            elif kind == "HandVoided":
                voided = payload
            elif kind == "HandEnded":
                if voided is not None:
                    self.cancelled(voided)
                else:
                    self.result(payload)
            elif kind == "ChatMessageSent":
                self.chat(payload)
        return "\n".join(self.lines) + "\n"

    def chat(self, said: dict[str, Any]) -> None:
        """A chat line as the room writes it (``alice said, "gl"``); in an auditor's export a message an
        operator deleted says so (nobody else's export holds it: docs/chat.md)."""
        line = f'{said["player_id"]} said, "{said["text"]}"'
        self.say(line + " [deleted by an operator]" if said.get("deleted") else line)

    def cancelled(self, voided: dict[str, Any]) -> None:
        """RULES.md §12: who voided the hand and why, ``Hand cancelled``, and a summary that pays nothing."""
        by = "the table" if voided["automatic"] else voided["operator"]
        self.say(f"Hand voided by {by}: {voided['reason']}")
        self.say("Hand cancelled")
        self.say("*** SUMMARY ***")
        self.say(f"Total pot {self.money(0)} | Rake {self.money(0)}")
        for seat, name in sorted(self.names.items()):
            self.say(f"Seat {seat}: {name}")

    def finished(self) -> None:
        """A tournament hand: the players who finished the tournament in it, as PokerStars writes them."""
        tournament = self.tournament
        if tournament is None:
            return
        money = money_formatter(tournament.currency)
        for finish in tournament.finishers(self.record.table_id, self.record.hand):
            if finish.player_id == tournament.winner:
                self.say(f"{finish.player_id} wins the tournament and receives {money(finish.prize)}"
                         " - congratulations!")
                continue
            line = f"{finish.player_id} finished the tournament in {ordinal(finish.place)} place"
            self.say(line + (f" and received {money(finish.prize)}." if finish.prize else ""))

    @staticmethod
    def _made(shown: dict[str, Any]) -> str:
        high, low = shown.get("high"), shown.get("low")
        if high and low:
            return f"HI: {high}; LO: {low}"
        return high or low or ""

    def result(self, ended: dict[str, Any]) -> None:
        pots = sorted(ended["pots"], key=lambda pot: pot["pot"])
        won: dict[int, int] = {}
        for pot in sorted(ended["pots"], key=lambda pot: -pot["pot"]):
            for award in pot["awards"]:
                if award["amount"] > 0:
                    self.say(
                        f"{self.names[award['seat']]} collected {self.money(award['amount'])}"
                        f" from {_pot_name(pot['pot'], len(pots))}"
                    )
                won[award["seat"]] = won.get(award["seat"], 0) + award["amount"]
        self.finished()
        self.say("*** SUMMARY ***")
        money = self.money
        total = sum(pot["amount"] for pot in pots)
        rake = money(ended.get("rake", 0))
        if len(pots) == 1:
            self.say(f"Total pot {money(total)} | Rake {rake}")
        else:
            parts = " ".join(
                f"{_pot_name(p['pot'], len(pots)).capitalize()} {money(p['amount'])}." for p in pots
            )
            self.say(f"Total pot {money(total)} {parts} | Rake {rake}")
        shown = {seat: cards for seat, cards in ended["shown"]}
        made = {p["seat"]: self._made(p) for p in self.events if p["type"] == "HandShown"}
        for seat, name in sorted(self.names.items()):
            line = f"Seat {seat}: {name}"
            if seat in self.folded_on:
                street = self.folded_on[seat]
                acted_before = any(
                    p["type"] == "PlayerActed"
                    and p["seat"] == seat
                    and p["chips"] > 0
                    and p.get("action") != "FOLD"
                    for p in self.events
                )
                suffix = "" if acted_before else " (didn't bet)"
                line += f" folded on the {FOLDED_ON[street]}{suffix}"
            elif seat in shown:
                outcome = f"won ({money(won[seat])})" if won.get(seat) else "lost"
                line += f" showed {_cards(shown[seat])} and {outcome} with {made.get(seat, '')}"
            elif seat in ended["mucked"]:
                line += " mucked"
            elif won.get(seat):
                line += f" collected ({money(won[seat])})"
            self.say(line)


def to_pokerstars(
    record: HandRecord, player_id: str | None = None, tournament: TournamentInfo | None = None
) -> str:
    """The finished hand as PokerStars-style text; ``player_id``: only what that player saw;
    ``tournament``: the tournament a tournament table's hand was dealt for (its header's buy-in, the
    players who finished in the hand)."""
    return _Writer(record, player_id, tournament).write()
