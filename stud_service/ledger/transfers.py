"""Which table events move money or a player's standing, and what goes with them in one transaction.

A buy-in (``PlayerSeated``) and a top-up (``PlayerToppedUp``) debit the player's account; every way of
leaving a table ends in ``PlayerLeft``, whose cash-out credits it. The table's events and the entries are
appended together (``EventStore.append_all``), each stream at its expected version, so no crash and no
concurrent writer can leave one without the other. Taking a seat and leaving one also go into the player's
stream (``TableJoined`` / ``TableLeft``: their play session, docs/player-protection.md), and a player's own
seating calls (sitting down, topping up, sitting in, joining a waiting list) are checked against their
protection first (:mod:`stud_service.ledger.enforce`). A tournament's money moves have their own shape
(``PoolTransfer``).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

from stud_service.engine.events import (
    PlayerLeft,
    PlayerSatIn,
    PlayerSeated,
    PlayerToppedUp,
    WaitingListJoined,
)


@dataclass(frozen=True, slots=True)
class Transfer:
    """Money between ``player_id``'s account and the table, caused by the command's event at ``offset``.
    ``amount`` is what the table event says; ``debit`` is True for money going to the table."""

    offset: int
    player_id: str
    amount: int
    debit: bool
    top_up: bool = False


@dataclass(frozen=True, slots=True)
class Guarded:
    """A player's own seating call, checked against their protection: ``kind`` "seat", "top_up", "sit_in" or
    "wait"; ``stake`` the chips it puts on the table; ``back`` (sitting in) the chips they have there, which
    they may still take back."""

    player_id: str
    kind: str
    stake: int = 0
    back: int = 0


@dataclass
class TableEffects:
    """What one command's events do beyond the table: money moved, seats taken and left, calls to check."""

    transfers: list[Transfer] = field(default_factory=list)
    joined: list[str] = field(default_factory=list)
    left: list[str] = field(default_factory=list)
    guarded: list[Guarded] = field(default_factory=list)

    def __bool__(self) -> bool:
        return bool(self.transfers or self.joined or self.left or self.guarded)

    @property
    def players(self) -> list[str]:
        """Every player whose standing the command reads or writes, sorted."""
        return sorted({*self.joined, *self.left, *(g.player_id for g in self.guarded),
                       *(t.player_id for t in self.transfers if t.debit)})


def table_effects(events: Sequence[Any], seats: Iterable[Any], money: bool = True) -> TableEffects:
    """What one command's ``events`` cause beyond the table (empty for nearly every command). ``seats``: the
    table's seats before the command (each with ``player_id`` and ``stack``), read only for a sit-in;
    ``money``: the table plays for a currency."""
    effects = TableEffects()

    def stack(player: str) -> int:
        return next((seat.stack for seat in seats if seat.player_id == player), 0)

    for offset, event in enumerate(events):
        kind = type(event)
        if kind is PlayerSeated:
            if money:
                effects.transfers.append(Transfer(offset, event.player_id, event.buy_in, True))
            effects.joined.append(event.player_id)
            effects.guarded.append(Guarded(event.player_id, "seat", event.buy_in))
        elif kind is PlayerToppedUp:
            if money:
                effects.transfers.append(Transfer(offset, event.player_id, event.amount, True, top_up=True))
            # The chips already there are at stake too: all of them count against the loss limit.
            effects.guarded.append(Guarded(event.player_id, "top_up", event.amount))
        elif kind is PlayerLeft:
            if money:
                effects.transfers.append(Transfer(offset, event.player_id, event.cash_out, False))
            effects.left.append(event.player_id)
        elif kind is PlayerSatIn:
            effects.guarded.append(Guarded(event.player_id, "sit_in", 0, stack(event.player_id)))
        elif kind is WaitingListJoined:
            effects.guarded.append(Guarded(event.player_id, "wait"))
    return effects


ENTRY, REFUND, PRIZE = "entry", "refund", "prize"


@dataclass(frozen=True, slots=True)
class PoolTransfer:
    """Money between ``player_id``'s account and a tournament's money stream, caused by the tournament's event
    at ``offset`` of its command: an ``ENTRY`` debits ``buy_in + fee`` (the buy-in to the prize pool, the fee
    to the house's fees), a ``REFUND`` returns both, a ``PRIZE`` pays ``buy_in`` (the amount) from the pool.
    Which tournament events cause them is the tournament server's business (it knows the tournament)."""

    offset: int
    player_id: str
    kind: str
    buy_in: int
    fee: int = 0
