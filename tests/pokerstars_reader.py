"""An independent reader of PokerStars-style hand-history files: each hand's players with their chips
before and after it, worked out from the text alone (no code of the service is used).

It reads what a tracking tool reads: ``Seat N: name (X in chips)`` for the chips before the hand; then
every amount a player puts in (``posts the ante X``, ``brings in for X``, ``calls X``, ``bets X``,
``completes it to X``, ``raises X to Y``: bets, completions and raises name the player's total on the
street) and every amount they get back (``Uncalled bet (X) returned to name``, ``name collected X from
pot``); a street's header starts the count of what each player has put in on it again.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

HEADER = re.compile(r"^PokerStars Hand #(?P<number>\d+): ")
SEAT = re.compile(r"^Seat (?P<seat>\d+): (?P<name>.+) \((?P<chips>\d+) in chips\)$")
STREET = re.compile(r"^\*\*\* (?:3rd|4th|5th|6th) STREET \*\*\*$|^\*\*\* RIVER \*\*\*$")
PUT_IN = re.compile(
    r"^(?P<name>.+?): (?P<what>posts the ante|brings in for|calls|bets|completes it to|raises \d+ to) "
    r"(?P<amount>\d+)(?: and is all-in)?$"
)
RETURNED = re.compile(r"^Uncalled bet \((?P<amount>\d+)\) returned to (?P<name>.+)$")
COLLECTED = re.compile(r"^(?P<name>.+) collected (?P<amount>\d+) from (?:pot|main pot|side pot-\d+)$")
SUMMARY = "*** SUMMARY ***"


@dataclass
class ReadHand:
    number: int
    header: str
    before: dict[str, int] = field(default_factory=dict)
    after: dict[str, int] = field(default_factory=dict)

    def chips(self) -> list[list[object]]:
        """(player, before, after) by player, as a tournament's TableHandEnded reports them."""
        return [[name, self.before[name], self.after[name]] for name in sorted(self.before)]


def read_hands(text: str) -> list[ReadHand]:
    """Every hand in ``text`` (one PokerStars file, hands separated by blank lines)."""
    hands: list[ReadHand] = []
    current: ReadHand | None = None
    street: dict[str, int] = {}
    done = False
    for line in text.splitlines():
        header = HEADER.match(line)
        if header:
            current = ReadHand(int(header["number"]), line)
            hands.append(current)
            street, done = {}, False
            continue
        if current is None or done:
            continue
        if line == SUMMARY:
            done = True
        elif seat := SEAT.match(line):
            current.before[seat["name"]] = current.after[seat["name"]] = int(seat["chips"])
        elif STREET.match(line):
            street = {}
        elif put := PUT_IN.match(line):
            name, amount = put["name"], int(put["amount"])
            if put["what"] == "posts the ante":
                current.after[name] -= amount
            elif put["what"] == "calls":
                current.after[name] -= amount
                street[name] = street.get(name, 0) + amount
            else:  # the bring-in, a bet, a completion or a raise: the player's total on the street
                current.after[name] -= amount - street.get(name, 0)
                street[name] = amount
        elif back := RETURNED.match(line):
            current.after[back["name"]] += int(back["amount"])
        elif won := COLLECTED.match(line):
            current.after[won["name"]] += int(won["amount"])
    return hands
