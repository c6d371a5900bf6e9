"""Cards: the one encoding used everywhere (C core, engine, event log, wire).

A card is an integer ``code`` in 0..51::

    code = rank_index * 4 + suit_index

    rank_index  0  1  2  3  4  5  6  7  8  9  10 11 12
    rank        2  3  4  5  6  7  8  9  T  J  Q  K  A

    suit_index  0 clubs (c, ♣)   1 diamonds (d, ♦)   2 hearts (h, ♥)   3 spades (s, ♠)

So ``0`` is the two of clubs (the worst card for the bring-in), ``51`` the ace of
spades.  Suits are in bridge order, which is also the bring-in tie-break order of
RULES.md §3: for Seven Card Stud the card with the lowest code brings in.

Text form is rank then suit: ``"As"``, ``"Td"``, ``"2c"``; ``"10d"`` is accepted
for the ten, and ranks and suits are read case-insensitively.  Pretty form uses
suit symbols: ``"A♠"``, ``"10♦"``.

>>> parse_card("As"), parse_card("10d"), card_str(0), card_pretty(51)
(51, 33, '2c', 'A♠')
>>> parse_cards("Kh Qh")
[46, 42]
"""

from __future__ import annotations

from collections.abc import Iterable

RANKS = "23456789TJQKA"
SUITS = "cdhs"
SUIT_SYMBOLS = "♣♦♥♠"
SUIT_NAMES = ("clubs", "diamonds", "hearts", "spades")
RANK_NAMES = (
    "two", "three", "four", "five", "six", "seven", "eight",
    "nine", "ten", "jack", "queen", "king", "ace",
)
RANK_PLURALS = (
    "twos", "threes", "fours", "fives", "sixes", "sevens", "eights",
    "nines", "tens", "jacks", "queens", "kings", "aces",
)

DECK_SIZE = 52
FULL_DECK: tuple[int, ...] = tuple(range(DECK_SIZE))


class CardParseError(ValueError):
    """A card's text could not be read; ``token`` holds the offending text."""

    def __init__(self, token: str, reason: str = "not a card") -> None:
        self.token = token
        super().__init__(f"{token!r} is {reason} (expected rank 2-9, T, 10, J, Q, K, A then suit c, d, h, s)")


def rank_of(code: int) -> int:
    """Rank index 0 (two) .. 12 (ace)."""
    return code >> 2


def suit_of(code: int) -> int:
    """Suit index 0 (clubs) .. 3 (spades)."""
    return code & 3


def make_card(rank_index: int, suit_index: int) -> int:
    return rank_index * 4 + suit_index


def is_card(code: object) -> bool:
    return isinstance(code, int) and not isinstance(code, bool) and 0 <= code < DECK_SIZE


def parse_card(token: str) -> int:
    """Read one card ("As", "td", "10d"); raise CardParseError naming the token."""
    text = token.strip()
    if len(text) == 3 and text[:2] == "10":
        rank_text, suit_text = "T", text[2]
    elif len(text) == 2:
        rank_text, suit_text = text[0].upper(), text[1]
    else:
        raise CardParseError(token)
    rank_index = RANKS.find(rank_text)
    suit_index = SUITS.find(suit_text.lower())
    if rank_index < 0 or suit_index < 0 or rank_text == "":
        raise CardParseError(token)
    return make_card(rank_index, suit_index)


def parse_cards(text: str | Iterable[str]) -> list[int]:
    """Read cards separated by spaces or commas, or an iterable of card tokens."""
    tokens = text.replace(",", " ").split() if isinstance(text, str) else list(text)
    return [parse_card(token) for token in tokens]


def _check(code: int) -> None:
    if not is_card(code):
        raise ValueError(f"card code {code!r} is outside 0..51")


def card_str(code: int) -> str:
    """Text form, e.g. ``"As"``."""
    _check(code)
    return RANKS[rank_of(code)] + SUITS[suit_of(code)]


def card_pretty(code: int) -> str:
    """Form with a suit symbol, e.g. ``"A♠"``, ``"10♦"``."""
    _check(code)
    rank_text = "10" if rank_of(code) == 8 else RANKS[rank_of(code)]
    return rank_text + SUIT_SYMBOLS[suit_of(code)]


def cards_str(codes: Iterable[int]) -> str:
    return " ".join(card_str(code) for code in codes)


def cards_pretty(codes: Iterable[int]) -> str:
    return " ".join(card_pretty(code) for code in codes)
