"""Tournaments in the money reconciliation (``audit.money``): their entries, refunds and prizes, their money
streams, and the pairing of the three sides of each move.

``tournaments/{id}``          the tournament's money events: TournamentCreated (currency, buy-in, fee),
                              PlayerRegistered / PlayerReEntered (an entry), PlayerUnregistered and a
                              cancellation's refunds (an entry back), PlacesFixed prizes and a
                              cancellation's payouts (from the pool), TournamentFinished.
``pools/{CUR}/{tournament}``  the prize pool and the house's fees (``stud_service.ledger.pools``):
                              PoolOpened, EntryPooled, EntryReturned, PrizePaidOut (with ``pool``, ``fees``).
``accounts/{CUR}/{player}``   EntryDebited, EntryRefunded, PrizeCredited (``money._AccountFold`` folds them).

What is proved: each money stream's balances follow its entries and never go negative; every entry, refund
and prize of a tournament with a currency has exactly one pool entry and one account entry naming its
version, for the same player and amounts, and every such entry has its tournament event; a finished or
cancelled tournament's pool is empty (every unit paid). Per currency, the pools and the fees join the
identity: deposits - withdrawals = balances + chips at tables + rake + prize pools + fees.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from stud_service.ledger.names import POOL_PREFIX, pool_of_stream

TOURNAMENTS, POOLS = "tournaments/", POOL_PREFIX
# The tournament events the fold reads; the rest (seats, hands, draws) move no money.
TOURNAMENT_MONEY_TYPES = (
    "TournamentCreated", "PlayerRegistered", "PlayerReEntered", "PlayerUnregistered", "PlacesFixed",
    "TournamentCancelled", "TournamentFinished",
)
ENTRY, REFUND, PRIZE = "entry", "refund", "prize"
# (tournament id, tournament version, player, kind) -> (buy-in or amount, fee)
Key = tuple[str, Any, str, str]
Problem = Callable[[str, int | None, str, str], None]  # (stream, version, message, currency)


def _amount(value: Any) -> int | None:
    return value if type(value) is int else None


@dataclass
class TournamentFigures:
    tournament_id: str
    currency: str = ""  # "" = play money
    entries: int = 0  # buy-ins + fees paid in
    refunds: int = 0
    prizes: int = 0  # prizes and a cancellation's payouts
    pool: int = 0  # the prize pool as its money stream holds it
    fees: int = 0  # the house's fees it holds
    over: bool = False  # finished or cancelled
    version: int = 0


class TournamentFold:
    """One tournament's money events: what its money stream and the accounts must hold for them."""

    def __init__(self, stream_id: str, problem: Problem) -> None:
        self.stream_id = stream_id
        self.problem = problem
        self.figures = TournamentFigures(stream_id[len(TOURNAMENTS) :])
        self.buy_in = self.fee = 0
        self.moves: dict[Key, tuple[int, int]] = {}

    def add(self, version: int, payload: dict[str, Any]) -> None:
        figures = self.figures
        figures.version = version
        kind = payload.get("type")
        if kind == "TournamentCreated":
            config = payload["config"]
            figures.currency = config["currency"]
            self.buy_in, self.fee = int(config["buy_in"]), int(config["fee"])
        elif kind in ("PlayerRegistered", "PlayerReEntered"):
            self.move(version, payload["player_id"], ENTRY, self.buy_in, self.fee)
        elif kind == "PlayerUnregistered":
            self.move(version, payload["player_id"], REFUND, self.buy_in, self.fee)
        elif kind == "PlacesFixed":
            for player, _place, _last, prize in payload["places"]:
                self.move(version, player, PRIZE, prize, 0)
        elif kind == "TournamentCancelled":
            for player, amount in payload["refunds"]:
                self.move(version, player, REFUND, self.buy_in, amount - self.buy_in)
            for player, amount in payload["payouts"]:
                self.move(version, player, PRIZE, amount, 0)
            figures.over = True
        elif kind == "TournamentFinished":
            figures.over = True

    def move(self, version: int, player: str, kind: str, amount: int, fee: int) -> None:
        if not self.figures.currency or amount + fee == 0:
            return  # play money, or a place without a prize
        self.moves[(self.figures.tournament_id, version, player, kind)] = (amount, fee)


class PoolFold:
    """A tournament's money stream: its balances follow its entries."""

    def __init__(self, stream_id: str, problem: Problem) -> None:
        self.stream_id = stream_id
        self.problem = problem
        named = pool_of_stream(stream_id)
        assert named is not None  # fed only streams under POOLS
        self.tournament_id, self.currency = named
        self.pool = self.fees = 0
        self.entries: dict[Key, tuple[int, int, int]] = {}  # key -> (amount, fee, version)

    def add(self, version: int, payload: dict[str, Any]) -> None:
        kind = payload.get("type")
        if version == 1 or kind == "PoolOpened":
            if version != 1 or kind != "PoolOpened" or payload.get("currency") != self.currency \
                    or payload.get("tournament_id") != self.tournament_id:
                self.fail(version, "a tournament's money stream opens first, once, naming it and currency")
            return
        sign = {"EntryPooled": 1, "EntryReturned": -1, "PrizePaidOut": -1}.get(str(kind))
        if sign is None:
            self.fail(version, f"{kind!r} is not a tournament money event")
            return
        prize = kind == "PrizePaidOut"
        amount = _amount(payload.get("amount" if prize else "buy_in"))
        fee = 0 if prize else _amount(payload.get("fee"))
        if amount is None or fee is None or amount < 0 or fee < 0 or amount + fee == 0:
            self.fail(version, f"{kind} has invalid amounts")
            return
        expected = (self.pool + sign * amount, self.fees + sign * fee)
        recorded = (_amount(payload.get("pool")), _amount(payload.get("fees")))
        if recorded != expected:
            self.fail(version, f"{kind} records pool and fees of {recorded}, not {expected}")
        if min(expected) < 0:
            self.fail(version, f"the pool or the fees go negative {expected}")
        self.pool, self.fees = expected
        what = PRIZE if prize else ENTRY if sign == 1 else REFUND
        key = (self.tournament_id, payload.get("tournament_version"), str(payload.get("player_id")), what)
        if key in self.entries:
            self.fail(version, f"a second {what} entry for version {key[1]}")
        self.entries[key] = (amount, fee, version)

    def fail(self, version: int, message: str) -> None:
        self.problem(self.stream_id, version, message, self.currency)


def pair_tournaments(
    tournaments: dict[str, TournamentFold],
    pools: dict[str, PoolFold],
    account_entries: dict[Key, list[tuple[str, int, int, str]]],
    problem: Problem,
) -> None:
    """Every tournament move has its pool entry and its account entry, and nothing else has any; a
    tournament over has paid out its pool. ``account_entries``: key -> [(stream, version, amount,
    currency)]."""
    pool_by_tournament = {(fold.tournament_id, fold.currency): fold for fold in pools.values()}
    for fold in tournaments.values():
        figures = fold.figures
        pool = pool_by_tournament.pop((figures.tournament_id, figures.currency), None)
        for key, (amount, fee) in sorted(fold.moves.items(), key=lambda item: (item[0][1], item[0][2:])):
            version, player, kind = key[1], key[2], key[3]
            pooled = pool.entries.pop(key, None) if pool is not None else None
            if pooled is None or pooled[:2] != (amount, fee):
                problem(fold.stream_id, version,
                        f"the {kind} of {amount} + {fee} by {player} has no matching pool entry",
                        figures.currency)
            paid = account_entries.pop(key, [])
            if not paid or paid[0][2] != amount + fee:
                problem(fold.stream_id, version,
                        f"the {kind} of {amount + fee} by {player} has no matching account entry",
                        figures.currency)
            for stream, again, _amount_paid, currency in paid[1:]:
                problem(stream, again, f"a second account entry for {fold.stream_id} version {version}",
                        currency)
            if kind == ENTRY:
                figures.entries += amount + fee
            elif kind == REFUND:
                figures.refunds += amount + fee
            else:
                figures.prizes += amount
        if pool is not None:
            figures.pool, figures.fees = pool.pool, pool.fees
            for key, (_amount_in, _fee, version) in pool.entries.items():
                problem(pool.stream_id, version, f"names {TOURNAMENTS}{key[0]} version {key[1]}, which holds"
                        f" no such {key[3]}", pool.currency)
        if figures.over and figures.pool:
            problem(fold.stream_id, None, f"the tournament is over with {figures.pool} left in its pool",
                    figures.currency)
    for pool in pool_by_tournament.values():
        problem(pool.stream_id, None,
                f"{TOURNAMENTS}{pool.tournament_id} is no tournament in {pool.currency}", pool.currency)
    for key, entries in account_entries.items():
        for stream, version, amount, currency in entries:
            problem(stream, version, f"the {key[3]} of {amount} names {TOURNAMENTS}{key[0]} version {key[1]},"
                    " which holds no such move", currency)
