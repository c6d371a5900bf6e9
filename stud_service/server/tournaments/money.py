"""Which tournament events move money (docs/money.md, "Tournaments"), as the ledger's ``PoolTransfer``s.

An entry (``PlayerRegistered``, ``PlayerReEntered``) debits buy-in + fee from the player's account: the
buy-in joins the prize pool, the fee the house's fees. Unregistering (``PlayerUnregistered``) and a
cancellation before the start (``TournamentCancelled.refunds``) give both back. A prize
(``PlacesFixed`` with a prize above 0) and a cancellation's payout (``TournamentCancelled.payouts``) are
paid from the pool. Each moves in the same transaction as its event; a play-money tournament (currency
"") moves nothing.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from stud_service.ledger.transfers import ENTRY, PRIZE, REFUND, PoolTransfer
from stud_service.tournaments import TournamentConfig
from stud_service.tournaments.events import (
    PlacesFixed,
    PlayerReEntered,
    PlayerRegistered,
    PlayerUnregistered,
    TournamentCancelled,
)


def pool_transfers(config: TournamentConfig, events: Sequence[Any]) -> list[PoolTransfer]:
    """The money one command's events move, in event order ([] for most commands, and for play money)."""
    if not config.currency:
        return []
    buy_in, fee = config.buy_in, config.fee
    transfers: list[PoolTransfer] = []
    for offset, event in enumerate(events):
        kind = type(event)
        if kind is PlayerRegistered or kind is PlayerReEntered:
            transfers.append(PoolTransfer(offset, event.player_id, ENTRY, buy_in, fee))
        elif kind is PlayerUnregistered:
            transfers.append(PoolTransfer(offset, event.player_id, REFUND, buy_in, fee))
        elif kind is PlacesFixed:
            transfers += [PoolTransfer(offset, player, PRIZE, prize)
                          for player, _place, _last, prize in event.places if prize > 0]
        elif kind is TournamentCancelled:
            # A refund is an entry's buy-in and fee (the tournament had not started: one entry each).
            transfers += [PoolTransfer(offset, player, REFUND, buy_in, amount - buy_in)
                          for player, amount in event.refunds if amount > 0]
            transfers += [PoolTransfer(offset, player, PRIZE, amount)
                          for player, amount in event.payouts if amount > 0]
    return transfers
