"""``money_text``: how every command writes an amount for a person, in the table's currency."""

from __future__ import annotations

import pytest

from stud_service.currency import money_text, stakes_text


@pytest.mark.parametrize(("amount", "code", "text"), [
    (745_000, "USD", "$7,450"),
    (7_450, "USD", "$74.50"),
    (50, "USD", "$0.50"),
    (0, "USD", "$0"),
    (-1_205, "EUR", "-€12.05"),
    (1_234, "JPY", "1,234 JPY"),
    (1_234_567, "KWD", "1,234.567 KWD"),
    (3_600, "", "3,600 chips"),
])
def test_an_amount_reads_in_its_currency(amount: int, code: str, text: str) -> None:
    assert money_text(amount, code) == text


def test_stakes_read_as_a_room_writes_them() -> None:
    assert stakes_text(200, 400, 50, 100, "USD") == "$2/$4, ante $0.50, bring-in $1"
    assert stakes_text(200, 400, 50, 100, "") == "200/400 chips, ante 50, bring-in 100"
