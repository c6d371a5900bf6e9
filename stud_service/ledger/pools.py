"""A tournament's money: its prize pool and the fees it took for the house, one stream
``pools/{CUR}/{tournament}`` (docs/money.md, "Tournaments").

Each entry pairs with the tournament's event at ``tournament_version`` (appended in the same transaction) and
with the player's account entry for it.  ``pool`` and ``fees`` are the balances after the entry, as an
account's entries carry ``balance``.  Fees stay here, the house's, as a table's rake stays at the table until
it is swept: writing the house's one stream for every registration would make every tournament's entries
wait on one another.  The events::

    PoolOpened     tournament_id, currency                                  first, with the first entry
    EntryPooled    player_id, tournament_version, buy_in, fee, pool, fees    PlayerRegistered, PlayerReEntered
    EntryReturned  player_id, tournament_version, buy_in, fee, pool, fees    PlayerUnregistered, a refund
    PrizePaidOut   player_id, tournament_version, amount, pool, fees         PlacesFixed, a payout

Pure: the decide steps return the events to append (or raise), :func:`apply` is the evolve step.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any

from stud_service.ledger.errors import InvalidAmount
from stud_service.ledger.names import pool_of_stream

Event = dict[str, Any]


@dataclass
class PoolAccount:
    """A tournament's money stream folded: the prize pool and the house's fees it holds."""

    stream_id: str
    tournament_id: str
    currency: str
    version: int = 0
    pool: int = 0
    fees: int = 0

    @classmethod
    def empty(cls, stream_id: str) -> PoolAccount:
        named = pool_of_stream(stream_id)
        if named is None:
            raise ValueError(f"{stream_id!r} is not a tournament's money stream")
        return cls(stream_id, *named)

    @property
    def opened(self) -> bool:
        return self.version > 0

    def copy(self) -> PoolAccount:
        return replace(self)


def _opening(pool: PoolAccount, now_ms: int) -> list[Event]:
    if pool.opened:
        return []
    opened = {"type": "PoolOpened", "v": 1, "tournament_id": pool.tournament_id, "currency": pool.currency}
    return [{**opened, "at_ms": now_ms}]


def _entry(kind: str, pool: PoolAccount, player_id: str, tournament_version: int, buy_in: int, fee: int,
           now_ms: int) -> Event:
    sign = 1 if kind == "EntryPooled" else -1
    after_pool, after_fees = pool.pool + sign * buy_in, pool.fees + sign * fee
    if after_pool < 0 or after_fees < 0:  # a refund of more than was paid in: the tournament's log is wrong
        raise InvalidAmount(f"{pool.stream_id} holds {pool.pool} + {pool.fees} fees, not {buy_in} + {fee}",
                            {"field": "amount"})
    return {"type": kind, "v": 1, "player_id": player_id, "tournament_version": tournament_version,
            "buy_in": buy_in, "fee": fee, "pool": after_pool, "fees": after_fees, "at_ms": now_ms}


def pool_entry(pool: PoolAccount, player_id: str, tournament_version: int, buy_in: int, fee: int,
               now_ms: int) -> list[Event]:
    """An entry's buy-in into the pool and its fee to the house's fees (opening the stream with the first)."""
    return [*_opening(pool, now_ms),
            _entry("EntryPooled", pool, player_id, tournament_version, buy_in, fee, now_ms)]


def return_entry(pool: PoolAccount, player_id: str, tournament_version: int, buy_in: int, fee: int,
                 now_ms: int) -> list[Event]:
    """An entry's buy-in and fee back out (unregistering, a cancellation before the start)."""
    return [_entry("EntryReturned", pool, player_id, tournament_version, buy_in, fee, now_ms)]


def pay_prize(pool: PoolAccount, player_id: str, tournament_version: int, amount: int,
              now_ms: int) -> list[Event]:
    """A prize (or a cancellation's payout) out of the pool."""
    if amount > pool.pool:
        raise InvalidAmount(f"{pool.stream_id} holds {pool.pool}, not a prize of {amount}",
                            {"field": "amount"})
    return [{"type": "PrizePaidOut", "v": 1, "player_id": player_id, "tournament_version": tournament_version,
             "amount": amount, "pool": pool.pool - amount, "fees": pool.fees, "at_ms": now_ms}]


def apply(pool: PoolAccount, event: Event) -> None:
    """Evolve ``pool`` (which the caller owns) by one of its stored events."""
    pool.version += 1
    if event["type"] != "PoolOpened":
        pool.pool, pool.fees = event["pool"], event["fees"]
