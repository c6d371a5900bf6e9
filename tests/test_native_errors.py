"""Bad input never crashes the C core: every error path of the C API and of its Python face.

C codes (csrc/stud_eval.h): STUD_ERR_CARD -1, STUD_ERR_DUPLICATE -2, STUD_ERR_COUNT -3,
STUD_ERR_NULL -4, STUD_ERR_VALUE -5. (STUD_ERR_INIT -6 only reports a failed table self-check.)
"""

from __future__ import annotations

from array import array

import pytest

from stud_service import native
from stud_service.cards import parse_cards
from stud_service.native import CardCountError, DuplicateCardError, EvaluationError, InvalidCardError

ffi, lib = native.ffi, native.lib  # the compiled module, called directly

ERR_CARD, ERR_DUPLICATE, ERR_COUNT, ERR_NULL, ERR_VALUE = -1, -2, -3, -4, -5

# (function, fewest cards, most cards, extra arguments after the count)
SINGLE_HAND_CALLS = [
    (lib.stud_eval_high, 5, 7, ()),
    (lib.stud_eval_low, 5, 7, ()),
    (lib.stud_eval_eight, 5, 7, ()),
    (lib.stud_board_rank_high, 1, 4, ()),
    (lib.stud_board_rank_razz, 1, 4, ()),
    (lib.stud_bring_in_index, 1, 8, (0,)),
    (lib.stud_bring_in_index, 1, 8, (1,)),
]
BEST_FIVE_CALLS = [lib.stud_best_five_high, lib.stud_best_five_low, lib.stud_best_five_eight]


def test_error_codes_are_the_documented_ones() -> None:
    assert (lib.STUD_ERR_CARD, lib.STUD_ERR_DUPLICATE, lib.STUD_ERR_COUNT, lib.STUD_ERR_NULL,
            lib.STUD_ERR_VALUE) == (ERR_CARD, ERR_DUPLICATE, ERR_COUNT, ERR_NULL, ERR_VALUE)
    assert lib.stud_init() == lib.STUD_OK


@pytest.mark.parametrize(("function", "fewest", "most", "extra"), SINGLE_HAND_CALLS)
def test_c_single_hand_calls_check_everything(function, fewest: int, most: int, extra: tuple) -> None:
    good = list(range(0, 4 * fewest, 4))
    assert function(good, fewest, *extra) >= 0
    assert function(ffi.NULL, fewest, *extra) == ERR_NULL
    assert function(good, fewest - 1, *extra) == ERR_COUNT
    assert function(list(range(most + 1)), most + 1, *extra) == ERR_COUNT
    assert function(good, -1, *extra) == ERR_COUNT
    for bad in (52, -1, 255, 2**31 - 1, -(2**31)):
        assert function([*good[:-1], bad], fewest, *extra) == ERR_CARD
    if fewest >= 2:
        assert function([*good[:-1], good[0]], fewest, *extra) == ERR_DUPLICATE
    # the count is checked before the cards, and a bad code before a duplicate
    assert function([52] * (most + 1), most + 1, *extra) == ERR_COUNT
    assert function([1, 1, 60, 3, 4, 5, 6][:max(fewest, 3)], max(fewest, 3), *extra) == ERR_DUPLICATE


@pytest.mark.parametrize("function", BEST_FIVE_CALLS)
def test_c_best_five_calls_check_everything(function) -> None:
    out = ffi.new("int[5]", [-7] * 5)
    hand = parse_cards("Ac 2d 3h 4s 5c Kd Kh")
    assert function(hand, 7, out) > 0 and sorted(out) != [-7] * 5
    assert function(hand, 7, ffi.NULL) == ERR_NULL
    assert function(ffi.NULL, 7, out) == ERR_NULL
    assert function(hand, 4, out) == ERR_COUNT
    assert function(hand, 8, out) == ERR_COUNT
    assert function([*hand[:6], 99], 7, out) == ERR_CARD
    assert function([*hand[:6], hand[0]], 7, out) == ERR_DUPLICATE


def test_c_best_five_eight_leaves_the_output_alone_without_a_low() -> None:
    out = ffi.new("int[5]", [-7] * 5)
    assert lib.stud_best_five_eight(parse_cards("9c 9d Th Js Qc Kd Kh"), 7, out) == lib.STUD_NO_LOW
    assert list(out) == [-7] * 5


def test_c_value_and_single_card_arguments() -> None:
    assert lib.stud_high_category(0) == ERR_VALUE
    assert lib.stud_high_category(lib.STUD_HIGH_CLASSES + 1) == ERR_VALUE
    assert lib.stud_high_category(-5) == ERR_VALUE
    for bad in (-1, 52, 1000):
        assert lib.stud_door_card_strength(bad, 0, 1) == ERR_CARD
        assert lib.stud_door_card_strength(bad, 1, 0) == ERR_CARD


@pytest.mark.parametrize(
    "function", [lib.stud_eval_high_batch, lib.stud_eval_low_batch, lib.stud_eval_eight_batch]
)
def test_c_batch_calls_check_everything(function) -> None:
    hands = bytearray(native.random_hands(3, 4, 7))
    out = ffi.new("int32_t[]", 4)
    assert function(bytes(hands), 4, 7, out, 1) == lib.STUD_OK
    assert function(ffi.NULL, 4, 7, out, 1) == ERR_NULL
    assert function(bytes(hands), 4, 7, ffi.NULL, 1) == ERR_NULL
    assert function(ffi.NULL, 0, 7, ffi.NULL, 1) == lib.STUD_OK  # nothing to do, nothing touched
    assert function(bytes(hands), 4, 4, out, 1) == ERR_COUNT
    assert function(bytes(hands), 4, 8, out, 1) == ERR_COUNT
    hands[7 + 3] = 52  # hand 1: a code out of range
    hands[14 + 6] = hands[14]  # hand 2: a duplicate
    status = function(bytes(hands), 4, 7, out, 4)
    assert status == ERR_CARD  # the first bad hand's error
    assert out[1] == ERR_CARD and out[2] == ERR_DUPLICATE
    assert out[0] >= 0 and out[3] >= 0  # the good hands are still evaluated


def test_c_batch_all_255_bytes_never_crash() -> None:
    out = ffi.new("int32_t[]", 3)
    assert lib.stud_eval_high_batch(b"\xff" * 21, 3, 7, out, 2) == ERR_CARD
    assert list(out) == [ERR_CARD] * 3


def test_c_enumeration_and_sampling_check_arguments() -> None:
    counts = ffi.new("uint64_t[]", lib.STUD_HIGH_CLASSES + 1)
    assert lib.stud_enumerate_high(7, ffi.NULL, lib.STUD_HIGH_CLASSES + 1, 1) == ERR_NULL
    assert lib.stud_enumerate_high(4, counts, lib.STUD_HIGH_CLASSES + 1, 1) == ERR_COUNT
    assert lib.stud_enumerate_high(8, counts, lib.STUD_HIGH_CLASSES + 1, 1) == ERR_COUNT
    assert lib.stud_enumerate_high(5, counts, lib.STUD_HIGH_CLASSES, 1) == ERR_COUNT
    assert sum(counts) == 0
    out = ffi.new("uint8_t[]", 53)
    assert lib.stud_random_hands(1, 1, 7, ffi.NULL) == ERR_NULL
    assert lib.stud_random_hands(1, 1, 0, out) == ERR_COUNT
    assert lib.stud_random_hands(1, 1, 53, out) == ERR_COUNT
    assert lib.stud_random_hands(1, 1, 52, out) == lib.STUD_OK and sorted(out[0:52]) == list(range(52))


# ---- the Python face ----------------------------------------------------------------------

HAND_FUNCTIONS = [
    native.evaluate_high, native.evaluate_low, native.evaluate_eight_or_better,
    native.high_value, native.low_value, native.eight_or_better_value,
]


@pytest.mark.parametrize("function", HAND_FUNCTIONS)
def test_python_hand_errors_name_the_problem(function) -> None:
    with pytest.raises(CardCountError, match="5 to 7 cards, got 4"):
        function([0, 1, 2, 3])
    with pytest.raises(CardCountError, match="got 8"):
        function(list(range(8)))
    with pytest.raises(InvalidCardError, match="card 52 at position 4"):
        function([0, 1, 2, 3, 52])
    with pytest.raises(InvalidCardError, match="card -1 at position 0"):
        function([-1, 1, 2, 3, 4])
    with pytest.raises(InvalidCardError, match="'As'"):
        function([0, 1, 2, 3, "As"])
    with pytest.raises(InvalidCardError, match="1.0"):
        function([0, 1, 2, 3, 1.0])
    with pytest.raises(InvalidCardError, match=str(2**80)):
        function([0, 1, 2, 3, 2**80])
    with pytest.raises(DuplicateCardError, match=r"As \(51\) appears twice"):
        function([51, 1, 2, 3, 51])
    with pytest.raises(InvalidCardError, match="sequence"):
        function(None)
    assert issubclass(InvalidCardError, EvaluationError) and issubclass(EvaluationError, ValueError)


def test_python_accepts_any_sequence_of_ints() -> None:
    hand = parse_cards("As Ks Qs Js Ts")
    assert native.high_value(tuple(hand)) == native.high_value(hand) == native.high_value(iter(hand))
    assert native.high_value(array("i", hand)) == native.HIGH_CLASSES


def test_python_board_and_bring_in_errors() -> None:
    for function in (native.board_rank_high, native.board_rank_razz):
        with pytest.raises(CardCountError, match="1 to 4 cards, got 0"):
            function([])
        with pytest.raises(CardCountError, match="got 5"):
            function([0, 1, 2, 3, 4])
        with pytest.raises(DuplicateCardError, match="2c"):
            function([0, 0])
    with pytest.raises(CardCountError, match="1 to 8 cards, got 9"):
        native.bring_in_index(list(range(9)))
    with pytest.raises(CardCountError, match="got 0"):
        native.bring_in_index([], razz=True)
    with pytest.raises(InvalidCardError, match="77"):
        native.bring_in_index([3, 77])
    with pytest.raises(InvalidCardError):
        native.door_card_strength(52, razz=False)
    with pytest.raises(InvalidCardError):
        native.door_card_strength(True, razz=False)
    with pytest.raises(EvaluationError, match="outside 1..7462"):
        native.high_category(0)


def test_python_batch_errors() -> None:
    hands = bytearray(native.random_hands(5, 3, 7))
    with pytest.raises(CardCountError, match="need 28 bytes, got 21"):
        native.evaluate_high_batch(bytes(hands), 4, 7)
    with pytest.raises(CardCountError, match="cards_per_hand"):
        native.evaluate_low_batch(bytes(hands), 3, 8)
    with pytest.raises(CardCountError, match="n_hands"):
        native.evaluate_high_batch(bytes(hands), -1, 7)
    hands[9] = 200
    with pytest.raises(InvalidCardError, match="hand 1: card 200"):
        native.evaluate_eight_or_better_batch(bytes(hands), 3, 7)
    hands[9] = hands[8]
    with pytest.raises(DuplicateCardError, match="hand 1"):
        native.evaluate_high_batch(hands, 3, 7)
    with pytest.raises(InvalidCardError, match="byte buffer"):
        native.evaluate_high_batch([0, 1, 2, 3, 300], 1, 5)
    broadway = [48, 45, 40, 36, 32]  # a list of ints is accepted as well as a buffer
    assert list(native.evaluate_high_batch(broadway, 1, 5)) == [native.high_value(broadway)]
    assert list(native.evaluate_high_batch(b"", 0, 7)) == []


def test_python_enumeration_and_sampling_errors() -> None:
    with pytest.raises(CardCountError):
        native.enumerate_high_counts(4)
    with pytest.raises(CardCountError):
        native.random_hands(1, 1, 53)
