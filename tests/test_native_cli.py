"""``stud-service eval``: the evaluator from the command line (RULES.md §5 and §6 in words)."""

from __future__ import annotations

import pytest

from stud_service.cli import main


@pytest.mark.parametrize(
    ("args", "expected"),
    [
        (["As", "Ks", "Qs", "Js", "Ts", "2c", "3d"], "royal flush: A♠ K♠ Q♠ J♠ 10♠"),
        (["5c", "4d", "3h", "2s", "Ac", "Kd", "Kh"], "five-high straight: 5♣ 4♦ 3♥ 2♠ A♣"),
        (["Kc", "Jc", "Ad", "2c", "Kd", "2h", "3s"], "two pair, kings and twos: K♦ K♣ 2♥ 2♣ A♦"),
        (["--low", "8h", "6c", "4d", "2s", "Ac", "Kd", "Kh"], "8-6-4-2-A low: 8♥ 6♣ 4♦ 2♠ A♣"),
        (["--eight", "8h", "6c", "4d", "2s", "Ac", "Kd", "Kh"], "8-6-4-2-A low: 8♥ 6♣ 4♦ 2♠ A♣"),
        (["--eight", "9h", "9c", "Td", "2s", "Ac", "Kd", "Kh"], "no qualifying low (eight or better)"),
        (["10h", "Jh", "Qh", "Kh", "9h"], "king-high straight flush: K♥ Q♥ J♥ 10♥ 9♥"),
    ],
)
def test_eval_prints_the_hand_and_its_five_cards(args: list[str], expected: str, capsys) -> None:
    assert main(["eval", *args]) == 0
    assert capsys.readouterr().out.strip() == expected


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["As", "Xx", "Qs", "Js", "Ts"], "'Xx' is not a card"),
        (["As", "As", "Qs", "Js", "Ts"], "As (51) appears twice"),
        (["As", "Ks"], "5 to 7 cards, got 2"),
        (["--low", "As", "Ks", "Qs", "Js", "Ts", "9s", "8s", "7s"], "got 8"),
    ],
)
def test_eval_bad_input_exits_2_naming_the_problem(args: list[str], message: str, capsys) -> None:
    assert main(["eval", *args]) == 2
    captured = capsys.readouterr()
    assert captured.out == "" and message in captured.err
