"""The words used when a hand is told to a person: game names, streets, what an action is called.

Shared by everything that narrates hands (the demo's live narrator, ``stud-service hands show``) so the
same event always reads the same way.
"""

from __future__ import annotations

VARIANT_NAMES = {"STUD": "Seven Card Stud", "STUD_HI_LO": "Stud Hi-Lo", "RAZZ": "Razz"}
STREET_NAMES = {
    3: "Third street",
    4: "Fourth street",
    5: "Fifth street",
    6: "Sixth street",
    7: "Seventh street",
}
ACTION_VERBS = {
    "FOLD": "folds",
    "CHECK": "checks",
    "CALL": "calls",
    "BRING_IN": "brings in for",
    "COMPLETE": "completes to",
    "BET": "bets",
    "RAISE": "raises to",
}


def counted(number: int, noun: str, nouns: str | None = None) -> str:
    """``number`` with its noun in the right number: "1 table", "9 streams" (``nouns`` when not noun + s)."""
    return f"{number:,} {noun if number == 1 else nouns or noun + 's'}"
