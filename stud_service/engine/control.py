"""A table's operator status (RULES.md §12, Stopping a game): open, paused or closed, why, and its last void.

``TableState.control`` holds one :class:`TableControl`, a frozen value shared by every copy of the state; the
events of §12 replace it (``evolve``). A table never stopped nor voided holds ``OPEN_TABLE``.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Final

OPEN: Final = "open"  # deals a hand whenever two players are ready
PAUSED: Final = "paused"  # an operator paused it: no new hand; a running one plays on
CLOSED: Final = "closed"  # closed for good: no new hand, no new player; everyone leaves once no hand runs
STATUSES: Final = (OPEN, PAUSED, CLOSED)


@dataclass(frozen=True, slots=True)
class TableControl:
    """The table's ``status`` and the operator command that set it (``reason``, ``operator``, ``since_ms``;
    empty and 0 while it was never stopped), and the last hand voided: its number (0: none), why, by whom
    (``void_operator`` "" for the table's own automatic void of an interrupted hand) and when."""

    status: str = OPEN
    reason: str = ""
    operator: str = ""
    since_ms: int = 0
    voided_hand: int = 0
    void_reason: str = ""
    void_operator: str = ""
    voided_ms: int = 0

    def to_json(self) -> dict[str, Any]:
        return {"status": self.status, "reason": self.reason, "operator": self.operator,
                "since_ms": self.since_ms, "voided_hand": self.voided_hand, "void_reason": self.void_reason,
                "void_operator": self.void_operator, "voided_ms": self.voided_ms}

    @staticmethod
    def from_json(data: dict[str, Any]) -> TableControl:
        return TableControl(**data)


OPEN_TABLE: Final = TableControl()
