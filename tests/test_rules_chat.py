"""The table chat's rules (docs/chat.md), one function of stud_service.engine.rules.chat at a time."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from stud_service.engine.rules.chat import (
    CHAT_BURST,
    CHAT_WINDOW_MS,
    MAX_CHAT_CHARS,
    chat_names_a_card,
    chat_rate_allows,
    chat_recent,
    chat_retry_after_ms,
    chat_silenced_by_all_in,
    chat_text_problem,
)


@pytest.mark.parametrize("text", ["gl", "nice hand!", "ça va? 你好 🙂", "x" * MAX_CHAT_CHARS, "as if",
                                  "10 4"])
def test_chat_text_problem_passes_plain_text(text: str) -> None:
    assert chat_text_problem(text) is None


@pytest.mark.parametrize(("text", "problem"), [
    ("", "needs some text"),
    ("   ", "needs some text"),
    ("x" * (MAX_CHAT_CHARS + 1), "at most 200 characters"),
    ("a\x00b", "U+0000"),
    ("line\nbreak", "U+000A"),
    ("tab\there", "U+0009"),
    ("\x1b[31mred", "U+001B"),
    ("abc\u202edcba", "U+202E"),  # right-to-left override: reorders what others see
    ("\u2066isolate\u2069", "U+2066"),
    ("zero\u200bwidth", "U+200B"),
    ("bom\ufeff", "U+FEFF"),
    ("sep\u2028line", "U+2028"),
    ("private\ue000", "U+E000"),
    ("lone\ud800", "U+D800"),
    (None, "is text"),
    (42, "is text"),
])
def test_chat_text_problem_refuses(text: object, problem: str) -> None:
    assert problem in (chat_text_problem(text) or "")


@pytest.mark.parametrize("text", [
    "I had As", "Kh Kd", "10h", "7c", "T♠", "♥", "ace of spades", "Ten of Hearts", "Qs!", "(Jd)",
    "deuce of clubs",
])
def test_chat_names_a_card(text: str) -> None:
    assert chat_names_a_card(text)


@pytest.mark.parametrize("text", ["as if", "it's fine", "AS", "kings are good", "2 of us", "Kd2", "gg wp"])
def test_chat_names_no_card(text: str) -> None:
    assert not chat_names_a_card(text)


def test_chat_rate_allows_a_burst_then_waits_for_the_window() -> None:
    sent = tuple(range(0, CHAT_BURST * 100, 100))  # a burst of CHAT_BURST in half a second
    assert chat_rate_allows(sent[:-1], 1_000)
    assert not chat_rate_allows(sent, 1_000)
    assert chat_retry_after_ms(sent, 1_000) == CHAT_WINDOW_MS - 1_000
    assert chat_rate_allows(sent, CHAT_WINDOW_MS)  # the first has left the window
    assert chat_recent(sent, CHAT_WINDOW_MS + 100) == sent[2:]


@given(times=st.lists(st.integers(0, 60_000), max_size=30).map(sorted))
def test_chat_rate_never_lets_more_than_a_burst_into_a_window(times: list[int]) -> None:
    """Feeding every attempt through the limit, no window of CHAT_WINDOW_MS holds more than CHAT_BURST."""
    accepted: list[int] = []
    for at in times:
        if chat_rate_allows(accepted, at):
            accepted.append(at)
        else:
            assert chat_retry_after_ms(accepted, at) > 0
            assert chat_rate_allows(accepted, at + chat_retry_after_ms(accepted, at))
    for at in accepted:
        assert sum(at <= other < at + CHAT_WINDOW_MS for other in accepted) <= CHAT_BURST


def test_chat_silenced_by_all_in() -> None:
    """The anti-collusion switch silences the players still in a hand with an all-in, and only them."""
    assert chat_silenced_by_all_in(True, True, True)
    assert not chat_silenced_by_all_in(False, True, True)
    assert not chat_silenced_by_all_in(True, False, True)
    assert not chat_silenced_by_all_in(True, True, False)
