"""Table chat rules (docs/chat.md): what a message may hold, who may write when, and how often.

Chat is not a rule of play; these are the house's rules for it, kept as pure functions like the game's
so that every replica refuses the same messages for the same reasons from the same log.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Sequence
from typing import Final

# The longest message: a line of table talk, not a letter (characters, as Python counts them).
MAX_CHAT_CHARS: Final = 200
# A player may send at most CHAT_BURST messages in any CHAT_WINDOW_MS: a quick exchange passes, a flood
# does not.
CHAT_BURST: Final = 5
CHAT_WINDOW_MS: Final = 10_000
# The longest reason an operator gives for muting a player or deleting a message.
MAX_CHAT_REASON_CHARS: Final = 200

# Unicode categories a message may not hold: control characters (NUL, line breaks, escapes), format
# characters (the bidirectional overrides and isolates that reorder text on screen, zero-width characters
# that hide text), surrogates, private-use and unassigned code points, and line or paragraph separators.
_REFUSED_CATEGORIES: Final = frozenset({"Cc", "Cf", "Cs", "Co", "Cn", "Zl", "Zp"})

# A card named by its code ("As", "Td", "10h", "7c") or by a suit symbol, or in words ("ace of spades",
# "ten of hearts"): ranks in upper case, suits in lower case, so that words such as "as" or "it's" pass.
_CARD_CODE: Final = re.compile(r"(?<![A-Za-z0-9])(?:10|[2-9TJQKA])[cdhs](?![A-Za-z0-9])")
_SUIT_SYMBOL: Final = re.compile("[\u2660-\u2667\U0001f0a0-\U0001f0ff]")
_CARD_WORDS: Final = re.compile(
    r"\b(?:ace|king|queen|jack|ten|nine|eight|seven|six|five|four|three|two|deuce|trey|[2-9TJQKA]|10)s?"
    r"\s+of\s+(?:spade|heart|diamond|club)s?\b",
    re.IGNORECASE,
)


def chat_text_problem(text: object) -> str | None:
    """Why ``text`` cannot be a chat message, or None: plain text of 1..MAX_CHAT_CHARS characters, not only
    blanks, without control or format characters (docs/chat.md)."""
    if not isinstance(text, str):
        return "a message is text"
    if not text.strip():
        return "a message needs some text"
    if len(text) > MAX_CHAT_CHARS:
        return f"a message holds at most {MAX_CHAT_CHARS} characters, this one {len(text)}"
    for char in text:
        if unicodedata.category(char) in _REFUSED_CATEGORIES:
            return f"a message may not hold control or formatting characters (U+{ord(char):04X})"
    return None


def chat_names_a_card(text: str) -> bool:
    """Whether ``text`` names a card: by its code ("As", "10h"), a suit symbol, or in words ("ace of
    spades").  While a hand runs the chat never carries cards (docs/chat.md)."""
    return bool(_CARD_CODE.search(text) or _SUIT_SYMBOL.search(text) or _CARD_WORDS.search(text))


def chat_recent(sent_ms: Sequence[int], now_ms: int) -> tuple[int, ...]:
    """The times of a player's messages that still count against the rate limit at ``now_ms``."""
    return tuple(at for at in sent_ms if now_ms - at < CHAT_WINDOW_MS)


def chat_rate_allows(sent_ms: Sequence[int], now_ms: int) -> bool:
    """A player may send at most CHAT_BURST messages in any CHAT_WINDOW_MS."""
    return len(chat_recent(sent_ms, now_ms)) < CHAT_BURST


def chat_retry_after_ms(sent_ms: Sequence[int], now_ms: int) -> int:
    """How long until a player refused by the rate limit may write again (0: now)."""
    recent = sorted(chat_recent(sent_ms, now_ms))
    if len(recent) < CHAT_BURST:
        return 0
    return recent[len(recent) - CHAT_BURST] + CHAT_WINDOW_MS - now_ms


def chat_silenced_by_all_in(option_on: bool, in_hand_not_folded: bool, someone_all_in: bool) -> bool:
    """The anti-collusion switch (``chat_all_in_silence``): once a player of the running hand is all-in, the
    players still in that hand may not chat until it ends (they could otherwise agree to check it down)."""
    return option_on and in_hand_not_folded and someone_all_in
