"""The one card encoding (stud_service/cards.py): codes, text, pretty form, parse errors."""

from __future__ import annotations

import pytest

from stud_service.cards import (
    FULL_DECK,
    CardParseError,
    card_pretty,
    card_str,
    cards_pretty,
    cards_str,
    is_card,
    make_card,
    parse_card,
    parse_cards,
    rank_of,
    suit_of,
)


def test_code_is_rank_times_four_plus_suit() -> None:
    """Encoding: 2c = 0 (the worst card for the bring-in, RULES.md §3), As = 51, suits c<d<h<s."""
    assert parse_card("2c") == 0 and parse_card("2d") == 1 and parse_card("2h") == 2 and parse_card("2s") == 3
    assert parse_card("3c") == 4 and parse_card("As") == 51 and parse_card("Td") == 33
    assert all(make_card(rank_of(code), suit_of(code)) == code for code in FULL_DECK)
    assert len(FULL_DECK) == 52


def test_text_round_trips_for_every_card() -> None:
    assert all(parse_card(card_str(code)) == code for code in FULL_DECK)
    assert len({card_str(code) for code in FULL_DECK}) == 52


def test_ten_reads_as_t_or_10_and_case_does_not_matter() -> None:
    assert parse_card("10d") == parse_card("Td") == parse_card("td") == parse_card("TD") == 33
    assert parse_card(" ah ") == 50


def test_pretty_form_uses_suit_symbols() -> None:
    assert [card_pretty(code) for code in (51, 33, 0, 46, 13)] == ["A♠", "10♦", "2♣", "K♥", "5♦"]
    assert cards_pretty(parse_cards("As Kh")) == "A♠ K♥"
    assert cards_str([51, 0]) == "As 2c"


def test_parse_cards_splits_on_spaces_and_commas_or_takes_tokens() -> None:
    assert parse_cards("As, Kd  2c") == [51, 45, 0]
    assert parse_cards(["As", "10h"]) == [51, 34]
    assert parse_cards("") == []


@pytest.mark.parametrize("token", ["Ax", "1c", "11d", "A", "", "Asd", "0s", "♠A", "10"])
def test_parse_errors_name_the_bad_token(token: str) -> None:
    with pytest.raises(CardParseError) as caught:
        parse_card(token)
    assert caught.value.token == token and repr(token) in str(caught.value)
    assert isinstance(caught.value, ValueError)


def test_parse_cards_names_the_bad_token_among_good_ones() -> None:
    with pytest.raises(CardParseError, match="'Zz'"):
        parse_cards("As Kd Zz 2c")


def test_is_card_and_range_checks() -> None:
    assert is_card(0) and is_card(51)
    assert not any(is_card(bad) for bad in (52, -1, True, "As", 1.0, None))
    for bad in (52, -1):
        with pytest.raises(ValueError, match="outside 0..51"):
            card_str(bad)
        with pytest.raises(ValueError, match="outside 0..51"):
            card_pretty(bad)
