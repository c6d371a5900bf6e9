"""Which table events move money, and the account entries that go with them in one transaction.

A buy-in (``PlayerSeated``) and a top-up (``PlayerToppedUp``) debit the player's account; every way of
leaving a table ends in ``PlayerLeft``, whose cash-out credits it. The table's events and the entries are
appended together (``EventStore.append_all``), each stream at its expected version, so no crash and no
concurrent writer can leave one without the other.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from stud_service.engine.events import PlayerLeft, PlayerSeated, PlayerToppedUp


@dataclass(frozen=True, slots=True)
class Transfer:
    """Money between ``player_id``'s account and the table, caused by the command's event at ``offset``.
    ``amount`` is what the table event says; ``debit`` is True for money going to the table."""

    offset: int
    player_id: str
    amount: int
    debit: bool
    top_up: bool = False


def table_transfers(events: Sequence[Any]) -> list[Transfer]:
    """The transfers one command's table events cause, in event order ([] for nearly every command)."""
    transfers = []
    for offset, event in enumerate(events):
        kind = type(event)
        if kind is PlayerSeated:
            transfers.append(Transfer(offset, event.player_id, event.buy_in, True))
        elif kind is PlayerToppedUp:
            transfers.append(Transfer(offset, event.player_id, event.amount, True, top_up=True))
        elif kind is PlayerLeft:
            transfers.append(Transfer(offset, event.player_id, event.cash_out, False))
    return transfers
