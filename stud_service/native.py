"""The C core's Python face: hand values, lows, board ranks and the bring-in.

Cards are the integer codes of :mod:`stud_service.cards` (0 = 2♣ … 51 = A♠), passed as any
sequence of ints. Every value compares so that LARGER is BETTER for its purpose, and equal values
are exact ties (suits never break a tie between hands).

>>> from stud_service.cards import parse_cards
>>> evaluate_high(parse_cards("As Ks Qs Js Ts 2c 3d")).description
'royal flush'
>>> evaluate_high(parse_cards("Kc Jc Ad 2c Kd 2h 3s")).description
'two pair, kings and twos'
>>> evaluate_low(parse_cards("8h 6c 4d 2s Ac Kd Kh")).description
'8-6-4-2-A low'
>>> evaluate_eight_or_better(parse_cards("9h 9c Td 2s Ac Kd Kh")) is None
True

Errors from C become :class:`EvaluationError` subclasses whose message names the bad card or count::

    EvaluationError (ValueError)
    ├── InvalidCardError     a code outside 0..51, or not an int
    ├── DuplicateCardError   the same card twice
    └── CardCountError       the wrong number of cards (or a batch buffer too short)

Value scales (see ``csrc/stud_eval.h``): high 1..7462 (7462 = royal flush); ace-to-five low
1..6175 (6175 = 5-4-3-2-A); eight-or-better lows share the low scale and are >= 6120, with 0 for
"no qualifying low" in the batch form. Board ranks compare only between boards with the same
number of up cards.
"""

from __future__ import annotations

import enum
import os
from array import array
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from stud_service._stud_native import ffi, lib
from stud_service.cards import RANK_NAMES, RANK_PLURALS, RANKS, card_str, is_card, rank_of

__all__ = [
    "EvaluationError", "InvalidCardError", "DuplicateCardError", "CardCountError",
    "HandCategory", "HighHand", "LowHand",
    "evaluate_high", "evaluate_low", "evaluate_eight_or_better",
    "high_value", "low_value", "eight_or_better_value", "high_category",
    "board_rank_high", "board_rank_razz", "bring_in_index", "door_card_strength",
    "evaluate_high_batch", "evaluate_low_batch", "evaluate_eight_or_better_batch",
    "enumerate_high_counts", "random_hands",
    "HIGH_CLASSES", "LOW_CLASSES", "EIGHT_MIN_VALUE", "NO_LOW", "MAX_DOOR_CARDS",
]

HIGH_CLASSES: int = lib.STUD_HIGH_CLASSES
LOW_CLASSES: int = lib.STUD_LOW_CLASSES
EIGHT_MIN_VALUE: int = lib.STUD_EIGHT_MIN_VALUE
NO_LOW: int = lib.STUD_NO_LOW
MAX_DOOR_CARDS: int = lib.STUD_MAX_DOOR_CARDS


class EvaluationError(ValueError):
    """Input the C core refused; the message says what is wrong."""


class InvalidCardError(EvaluationError):
    """A card code outside 0..51, or not an int."""


class DuplicateCardError(EvaluationError):
    """The same card appears twice."""


class CardCountError(EvaluationError):
    """The wrong number of cards for the call."""


class HandCategory(enum.IntEnum):
    """High hand categories; larger is better."""

    HIGH_CARD = 0
    ONE_PAIR = 1
    TWO_PAIR = 2
    THREE_OF_A_KIND = 3
    STRAIGHT = 4
    FLUSH = 5
    FULL_HOUSE = 6
    FOUR_OF_A_KIND = 7
    STRAIGHT_FLUSH = 8


@dataclass(frozen=True, order=True)
class HighHand:
    """A high hand: compares (and is equal) by ``value`` only."""

    value: int
    category: HandCategory = field(compare=False)
    cards: tuple[int, ...] = field(compare=False)  # the best five, most significant first
    description: str = field(compare=False)


@dataclass(frozen=True, order=True)
class LowHand:
    """An ace-to-five low: compares by ``value`` only; larger is the better low."""

    value: int
    cards: tuple[int, ...] = field(compare=False)  # the five, most significant first (pairs, then highest)
    description: str = field(compare=False)


if lib.stud_init() != lib.STUD_OK:  # builds the lookup tables now; they check themselves as they go
    raise ImportError("stud_service native core: the lookup tables failed their self-check")
_CATEGORY_OF: tuple[HandCategory | None, ...] = (None,) + tuple(
    HandCategory(lib.stud_high_category(value)) for value in range(1, HIGH_CLASSES + 1)
)


# ---- errors -------------------------------------------------------------------------------


def _describe_card(code: Any) -> str:
    return f"{card_str(code)} ({code})" if is_card(code) else repr(code)


def _raise_for(status: int, cards: Sequence[Any], what: str, fewest: int, most: int) -> None:
    """Turns a C error code into the matching exception, naming the culprit (checks in C's order)."""
    if status == lib.STUD_ERR_COUNT or not fewest <= len(cards) <= most:
        counts = str(fewest) if fewest == most else f"{fewest} to {most}"
        raise CardCountError(f"{what} takes {counts} cards, got {len(cards)}")
    seen: set[int] = set()
    for position, code in enumerate(cards):
        if not is_card(code):
            raise InvalidCardError(f"{what}: card {code!r} at position {position} is not a card code 0..51")
        if code in seen:
            raise DuplicateCardError(f"{what}: card {_describe_card(code)} appears twice")
        seen.add(code)
    raise EvaluationError(f"{what}: the C core refused the cards (error {status})")


def _as_sequence(cards: Any) -> Sequence[Any]:
    if type(cards) is list or type(cards) is tuple:
        return cards
    try:
        return list(cards)
    except TypeError:
        raise InvalidCardError(f"expected a sequence of card codes, got {cards!r}") from None


def _checked(function: Any, cards: Any, what: str, fewest: int, most: int, *extra: Any) -> int:
    """The careful path: any sequence, and every failure turned into an EvaluationError."""
    cards = _as_sequence(cards)
    try:
        status = function(cards, len(cards), *extra)
    except (TypeError, OverflowError):  # cffi refused an item before C saw it
        status = lib.STUD_ERR_CARD
    if status < 0:
        _raise_for(status, cards, what, fewest, most)
    return status


# ---- single hands -------------------------------------------------------------------------
# Each call tries C directly (a list or tuple of ints is the common case) and takes the careful
# path only when that fails, so a good call costs one C call.

_eval_high = lib.stud_eval_high
_eval_low = lib.stud_eval_low
_eval_eight = lib.stud_eval_eight


def high_value(cards: Sequence[int]) -> int:
    """The high value alone (1..7462, larger is better) of the best five of 5..7 cards."""
    try:
        value = _eval_high(cards, len(cards))
        if value > 0:
            return value
    except (TypeError, OverflowError):
        pass
    return _checked(_eval_high, cards, "high hand", 5, 7)


def low_value(cards: Sequence[int]) -> int:
    """The ace-to-five low value alone (1..6175, larger is better) of 5..7 cards."""
    try:
        value = _eval_low(cards, len(cards))
        if value > 0:
            return value
    except (TypeError, OverflowError):
        pass
    return _checked(_eval_low, cards, "ace-to-five low", 5, 7)


def eight_or_better_value(cards: Sequence[int]) -> int:
    """The eight-or-better low value of 5..7 cards on the low scale, or 0 when no low qualifies."""
    try:
        value = _eval_eight(cards, len(cards))
        if value >= 0:
            return value
    except (TypeError, OverflowError):
        pass
    return _checked(_eval_eight, cards, "eight-or-better low", 5, 7)


def high_category(value: int) -> HandCategory:
    """The category of a high value."""
    if not isinstance(value, int) or not 1 <= value <= HIGH_CLASSES:
        raise EvaluationError(f"high value {value!r} is outside 1..{HIGH_CLASSES}")
    category = _CATEGORY_OF[value]
    assert category is not None
    return category


def _best_five(function: Any, cards: Any, what: str) -> tuple[int, tuple[int, ...]]:
    """Value and the five cards (in order of significance) from a stud_best_five_* call."""
    out = ffi.new("int[5]")
    try:
        value = function(cards, len(cards), out)
    except (TypeError, OverflowError):
        value = -1
    if value < 0:
        value = _checked(function, cards, what, 5, 7, out)
    return value, (tuple(out) if value > 0 else ())


# The description of a hand depends only on its value: worked out once per value.
_HIGH_DESCRIPTIONS: dict[int, str] = {}
_LOW_DESCRIPTIONS: dict[int, str] = {}


def evaluate_high(cards: Sequence[int]) -> HighHand:
    """The best five of 5, 6 or 7 cards as a high hand (RULES.md §5)."""
    value, five = _best_five(lib.stud_best_five_high, cards, "high hand")
    category = _CATEGORY_OF[value]
    assert category is not None
    description = _HIGH_DESCRIPTIONS.get(value)
    if description is None:
        description = _HIGH_DESCRIPTIONS[value] = _describe_high(category, five)
    return HighHand(value, category, five, description)


def _low_hand(value: int, five: tuple[int, ...]) -> LowHand:
    description = _LOW_DESCRIPTIONS.get(value)
    if description is None:
        description = _LOW_DESCRIPTIONS[value] = _describe_low(five)
    return LowHand(value, five, description)


def evaluate_low(cards: Sequence[int]) -> LowHand:
    """The best ace-to-five low of 5..7 cards (Razz, RULES.md §6)."""
    return _low_hand(*_best_five(lib.stud_best_five_low, cards, "ace-to-five low"))


def evaluate_eight_or_better(cards: Sequence[int]) -> LowHand | None:
    """The best eight-or-better low of 5..7 cards (Stud Hi-Lo, RULES.md §6); None when none qualifies."""
    value, five = _best_five(lib.stud_best_five_eight, cards, "eight-or-better low")
    return None if value == NO_LOW else _low_hand(value, five)


def board_rank_high(up_cards: Sequence[int]) -> int:
    """Strength of 1..4 up cards for who acts first (RULES.md §4): larger acts first."""
    return _checked(lib.stud_board_rank_high, up_cards, "board", 1, 4)


def board_rank_razz(up_cards: Sequence[int]) -> int:
    """Razz: the best ace-to-five low board of 1..4 up cards is larger (RULES.md §4)."""
    return _checked(lib.stud_board_rank_razz, up_cards, "razz board", 1, 4)


def bring_in_index(door_cards: Sequence[int], razz: bool = False) -> int:
    """Index into ``door_cards`` (seat order) of the player who must bring in (RULES.md §3)."""
    return _checked(lib.stud_bring_in_index, door_cards, "bring-in", 1, MAX_DOOR_CARDS, int(bool(razz)))


def door_card_strength(card: int, razz: bool, use_suit: bool = True) -> int:
    """Bring-in strength of one door card: the LOWEST strength brings in (RULES.md §3).

    Stud: 2♣ is 0 … A♠ 51; Razz: K♠ is 0 … A♣ 51. With ``use_suit=False`` equal ranks are equal
    (0..12), for the position tie-break table option.
    """
    if not is_card(card):
        raise InvalidCardError(f"door card {card!r} is not a card code 0..51")
    return lib.stud_door_card_strength(card, int(bool(razz)), int(bool(use_suit)))


# ---- presentation -------------------------------------------------------------------------


def _describe_high(category: HandCategory, ordered: tuple[int, ...]) -> str:
    """Words for a high hand from its five cards in order of significance."""
    ranks = [rank_of(card) for card in ordered]
    top = ranks[0]
    if category is HandCategory.STRAIGHT_FLUSH:
        return "royal flush" if top == 12 else f"{RANK_NAMES[top]}-high straight flush"
    if category is HandCategory.FOUR_OF_A_KIND:
        return f"four of a kind, {RANK_PLURALS[top]}"
    if category is HandCategory.FULL_HOUSE:
        return f"full house, {RANK_PLURALS[top]} full of {RANK_PLURALS[ranks[3]]}"
    if category is HandCategory.FLUSH:
        return f"{RANK_NAMES[top]}-high flush"
    if category is HandCategory.STRAIGHT:
        return f"{RANK_NAMES[top]}-high straight"
    if category is HandCategory.THREE_OF_A_KIND:
        return f"three of a kind, {RANK_PLURALS[top]}"
    if category is HandCategory.TWO_PAIR:
        return f"two pair, {RANK_PLURALS[top]} and {RANK_PLURALS[ranks[2]]}"
    if category is HandCategory.ONE_PAIR:
        return f"pair of {RANK_PLURALS[top]}"
    return f"{RANK_NAMES[top]}-{RANK_NAMES[ranks[1]]} high"


def _low_rank_text(card: int) -> str:
    rank = rank_of(card)
    return "10" if rank == 8 else RANKS[rank]


def _describe_low(ordered: tuple[int, ...]) -> str:
    """Words for a low from its five cards in order of significance (pairs first, then high to low)."""
    text = "-".join(_low_rank_text(card) for card in ordered) + " low"
    counts = sorted(Counter(rank_of(card) for card in ordered).values(), reverse=True)
    if counts[0] == 1:
        return text
    first, third = rank_of(ordered[0]), rank_of(ordered[2])
    if counts[0] == 4:
        pattern = f"four of a kind, {RANK_PLURALS[first]}"
    elif counts[0] == 3:
        if counts[1] == 2:
            pattern = f"full house, {RANK_PLURALS[first]} full of {RANK_PLURALS[rank_of(ordered[3])]}"
        else:
            pattern = f"three of a kind, {RANK_PLURALS[first]}"
    elif counts[1] == 2:
        pattern = f"two pair, {RANK_PLURALS[first]} and {RANK_PLURALS[third]}"
    else:
        pattern = f"pair of {RANK_PLURALS[first]}"
    return f"{text} ({pattern})"


# ---- batches ------------------------------------------------------------------------------


def _batch(function: Any, cards: Any, n_hands: int, cards_per_hand: int, n_threads: int, what: str) -> array:
    if not isinstance(n_hands, int) or n_hands < 0:
        raise CardCountError(f"{what}: n_hands must be a non-negative int, got {n_hands!r}")
    if cards_per_hand not in (5, 6, 7):
        raise CardCountError(f"{what}: cards_per_hand takes 5 to 7 cards, got {cards_per_hand!r}")
    if not isinstance(cards, bytes | bytearray | memoryview | array):
        try:
            cards = bytes(cards)
        except (TypeError, ValueError):
            raise InvalidCardError(f"{what}: cards must be a byte buffer of card codes 0..51") from None
    buffer = ffi.from_buffer("uint8_t[]", cards)
    needed = n_hands * cards_per_hand
    if len(buffer) < needed:
        raise CardCountError(
            f"{what}: {n_hands} hands of {cards_per_hand} cards need {needed} bytes, got {len(buffer)}"
        )
    out = array("i", bytes(4 * n_hands))
    status = function(buffer, n_hands, cards_per_hand, ffi.from_buffer("int32_t[]", out), n_threads)
    if status < 0:
        bad = next(i for i, value in enumerate(out) if value < 0)
        hand = list(buffer[bad * cards_per_hand:(bad + 1) * cards_per_hand])
        _raise_for(out[bad], hand, f"{what}, hand {bad}", cards_per_hand, cards_per_hand)
    return out


def evaluate_high_batch(cards: Any, n_hands: int, cards_per_hand: int, n_threads: int = 1) -> array:
    """High values of ``n_hands`` hands packed as bytes (one card code per byte) -> array('i')."""
    return _batch(lib.stud_eval_high_batch, cards, n_hands, cards_per_hand, n_threads, "high batch")


def evaluate_low_batch(cards: Any, n_hands: int, cards_per_hand: int, n_threads: int = 1) -> array:
    """Ace-to-five low values (1..6175) of packed hands -> array('i')."""
    return _batch(lib.stud_eval_low_batch, cards, n_hands, cards_per_hand, n_threads, "low batch")


def evaluate_eight_or_better_batch(
    cards: Any, n_hands: int, cards_per_hand: int, n_threads: int = 1
) -> array:
    """Eight-or-better values of packed hands -> array('i'); 0 (NO_LOW) means no qualifying low."""
    return _batch(
        lib.stud_eval_eight_batch, cards, n_hands, cards_per_hand, n_threads, "eight-or-better batch"
    )


def enumerate_high_counts(cards_per_hand: int = 7, n_threads: int | None = None) -> list[int]:
    """How many of all C(52, cards_per_hand) hands have each high value (index 0 unused)."""
    counts = ffi.new("uint64_t[]", HIGH_CLASSES + 1)
    threads = n_threads if n_threads is not None else (os.cpu_count() or 1)
    status = lib.stud_enumerate_high(cards_per_hand, counts, HIGH_CLASSES + 1, threads)
    if status == lib.STUD_ERR_COUNT:
        raise CardCountError(f"enumeration takes hands of 5 to 7 cards, got {cards_per_hand!r}")
    if status < 0:
        raise EvaluationError(f"enumeration failed (error {status})")
    return list(counts)


def random_hands(seed: int, n_hands: int, cards_per_hand: int = 7) -> bytes:
    """``n_hands`` uniformly random hands of distinct cards, packed, reproducible from ``seed``.

    For tests and benchmarks; the game's shuffle is the audited one, not this.
    """
    if not 1 <= cards_per_hand <= 52:
        raise CardCountError(f"random hands take 1 to 52 cards, got {cards_per_hand!r}")
    out = bytearray(n_hands * cards_per_hand)
    lib.stud_random_hands(seed & (2**64 - 1), n_hands, cards_per_hand, ffi.from_buffer("uint8_t[]", out))
    return bytes(out)
