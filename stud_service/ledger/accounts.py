"""Accounts: a player's money in one currency, or the house's rake; each is one stream of the log.

The functions here are the account's decide step: each checks a request against the account's state and
returns the events to append (JSON objects, the log's own form), or raises a refusal
(:mod:`stud_service.ledger.errors`); :func:`apply` is the evolve step. Nothing here does I/O:
:mod:`stud_service.ledger.book` stores them.

Every entry after ``AccountOpened`` records ``balance``, the balance after it, so a statement reads without a
fold and an edited amount is seen at the entry itself. Amounts are integers in the currency's smallest unit,
at most int64's largest value, and a balance never passes it either (``MAX_BALANCE``).

The events (docs/money.md has the whole model)::

    AccountOpened    player_id, currency                                  first, with the first deposit
    FundsDeposited   amount, reference, balance                           the cashier
    FundsWithdrawn   amount, reference, balance                           the cashier
    BuyInDebited     table_id, table_version, amount, top_up, balance     with PlayerSeated/PlayerToppedUp
    CashOutCredited  table_id, table_version, amount, balance             with the table's PlayerLeft
    EntryDebited     tournament_id, tournament_version, amount, buy_in, fee, balance
                                                              with PlayerRegistered, PlayerReEntered
    EntryRefunded    tournament_id, tournament_version, amount, balance   with PlayerUnregistered, a refund
    PrizeCredited    tournament_id, tournament_version, amount, balance   with PlacesFixed, a payout
    HouseAccountOpened  currency                                          the house's first event
    RakeSwept        table_id, table_version, table_rake_total, first_hand, last_hand, amount, balance
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Any

from stud_service.ledger.errors import (
    InsufficientFunds,
    InvalidAmount,
    InvalidPaymentReference,
    PaymentReferenceUsed,
)
from stud_service.ledger.names import account_name_of_stream
from stud_service.ledger.protection import Move, recent

MAX_BALANCE = 2**63 - 1  # int64: what every client's integer type holds
MAX_REFERENCE_CHARS = 128

Event = dict[str, Any]


@dataclass
class Account:
    """An account folded from its stream. ``at_tables``: per table, the chips bought in there and not yet
    cashed out (a player's); ``swept``: per table, (its rake total, its last hand) as the last sweep took them
    (the house's). ``references``: the payment references used, each once. ``moves``: the deposits, buy-ins
    and cash-outs of the last month (the longest window a limit counts, ledger.protection), oldest first."""

    stream_id: str
    player_id: str | None
    currency: str
    version: int = 0
    balance: int = 0
    opened_ms: int | None = None
    references: set[str] = field(default_factory=set)
    at_tables: dict[str, int] = field(default_factory=dict)
    swept: dict[str, tuple[int, int]] = field(default_factory=dict)
    moves: tuple[Move, ...] = ()

    @classmethod
    def empty(cls, stream_id: str) -> Account:
        name = account_name_of_stream(stream_id)
        if name is None:
            raise ValueError(f"{stream_id!r} is not an account stream")
        return cls(stream_id, name.player_id, name.currency)

    @property
    def opened(self) -> bool:
        return self.version > 0

    def copy(self) -> Account:
        """A copy to fold further, sharing nothing mutable with this one."""
        return replace(self, references=set(self.references), at_tables=dict(self.at_tables),
                       swept=dict(self.swept))


def check_amount(amount: object, field_name: str = "amount") -> int:
    """A positive whole number of units that int64 holds, else INVALID_AMOUNT."""
    if not isinstance(amount, int) or isinstance(amount, bool) or not 0 < amount <= MAX_BALANCE:
        raise InvalidAmount(
            f"{field_name} must be a whole number of units, 1..{MAX_BALANCE}", {"field": field_name}
        )
    return amount


def _check_reference(reference: object) -> str:
    if (
        not isinstance(reference, str)
        or not 0 < len(reference) <= MAX_REFERENCE_CHARS
        or not reference.isprintable()
        or reference.isspace()
    ):
        raise InvalidPaymentReference(
            f"payment_reference is required: 1..{MAX_REFERENCE_CHARS} printable characters"
        )
    return reference


def _credited(account: Account, amount: int) -> int:
    if amount > MAX_BALANCE - account.balance:
        raise InvalidAmount(
            f"the balance would pass the largest one an account holds ({MAX_BALANCE})", {"field": "amount"}
        )
    return account.balance + amount


def _debited(account: Account, amount: int) -> int:
    if amount > account.balance:
        raise InsufficientFunds(
            f"{account.currency} balance is {account.balance}, {amount} asked",
            {"balance": str(account.balance), "currency": account.currency},
        )
    return account.balance - amount


def _opening(account: Account, now_ms: int) -> list[Event]:
    if account.opened:
        return []
    if account.player_id is None:
        return [{"type": "HouseAccountOpened", "v": 1, "currency": account.currency, "at_ms": now_ms}]
    return [
        {
            "type": "AccountOpened",
            "v": 1,
            "player_id": account.player_id,
            "currency": account.currency,
            "at_ms": now_ms,
        }
    ]


def deposit(account: Account, amount: int, reference: str, now_ms: int) -> list[Event]:
    """The cashier credits ``amount`` paid in under the operator's payment ``reference`` (opening the account
    with its first deposit)."""
    return _payment(account, amount, reference, now_ms, credit=True)


def withdraw(account: Account, amount: int, reference: str, now_ms: int) -> list[Event]:
    """The cashier pays ``amount`` out, never more than the balance (a suspended player may withdraw)."""
    return _payment(account, amount, reference, now_ms, credit=False)


def _payment(account: Account, amount: int, reference: str, now_ms: int, credit: bool) -> list[Event]:
    amount = check_amount(amount)
    reference = _check_reference(reference)
    if reference in account.references:
        raise PaymentReferenceUsed(
            f"payment reference {reference!r} is already in this account", {"field": "payment_reference"}
        )
    balance = _credited(account, amount) if credit else _debited(account, amount)
    entry = {
        "type": "FundsDeposited" if credit else "FundsWithdrawn",
        "v": 1,
        "amount": amount,
        "reference": reference,
        "balance": balance,
        "at_ms": now_ms,
    }
    return [*_opening(account, now_ms), entry] if credit else [entry]


def debit_buy_in(
    account: Account, table_id: str, table_version: int, amount: int, top_up: bool, now_ms: int
) -> Event:
    """A buy-in or top-up at ``table_id``: paired with the table's event at ``table_version``."""
    balance = _debited(account, amount)
    return {
        "type": "BuyInDebited",
        "v": 1,
        "table_id": table_id,
        "table_version": table_version,
        "amount": amount,
        "top_up": top_up,
        "balance": balance,
        "at_ms": now_ms,
    }


def credit_cash_out(account: Account, table_id: str, table_version: int, amount: int, now_ms: int) -> Event:
    """A player's stack back from ``table_id`` (0 too: the entry says they left), paired with PlayerLeft."""
    return {
        "type": "CashOutCredited",
        "v": 1,
        "table_id": table_id,
        "table_version": table_version,
        "amount": amount,
        "balance": account.balance + amount,
        "at_ms": now_ms,
    }


def debit_entry(account: Account, tournament_id: str, tournament_version: int, buy_in: int, fee: int,
                now_ms: int) -> Event:
    """A tournament entry (registration or re-entry): buy-in + fee, paired with the tournament's event."""
    balance = _debited(account, buy_in + fee)
    return {"type": "EntryDebited", "v": 1, "tournament_id": tournament_id,
            "tournament_version": tournament_version, "amount": buy_in + fee, "buy_in": buy_in, "fee": fee,
            "balance": balance, "at_ms": now_ms}


TOURNAMENT_CREDITS = ("EntryRefunded", "PrizeCredited")


def credit_from_tournament(account: Account, kind: str, tournament_id: str, tournament_version: int,
                           amount: int, now_ms: int) -> Event:
    """An entry refunded or a prize (a cancellation's payout too) paid, ``kind`` one of TOURNAMENT_CREDITS."""
    assert kind in TOURNAMENT_CREDITS
    return {"type": kind, "v": 1, "tournament_id": tournament_id, "tournament_version": tournament_version,
            "amount": amount, "balance": _credited(account, amount), "at_ms": now_ms}


@dataclass(frozen=True, slots=True)
class TableRake:
    """A table's rake as of one version: ``rake_total`` taken in all, ``hand`` the last hand number."""

    table_id: str
    version: int
    rake_total: int
    hand: int


def sweep_rake(house: Account, tables: list[TableRake], now_ms: int) -> list[Event]:
    """The rake each table took since its last sweep, moved into the house account: one ``RakeSwept`` per
    table with unswept rake ([] when none has any). Tables sweep in batches, never per hand, so that no
    table waits for the house's one stream (docs/money.md)."""
    events: list[Event] = []
    balance = house.balance
    for table in tables:
        swept_total, last_hand = house.swept.get(table.table_id, (0, 0))
        amount = table.rake_total - swept_total
        if amount <= 0:
            continue
        balance += amount
        events.append(
            {
                "type": "RakeSwept",
                "v": 1,
                "table_id": table.table_id,
                "table_version": table.version,
                "table_rake_total": table.rake_total,
                "first_hand": last_hand + 1,
                "last_hand": table.hand,
                "amount": amount,
                "balance": balance,
                "at_ms": now_ms,
            }
        )
    return [*_opening(house, now_ms), *events] if events else []


def apply(account: Account, event: Event) -> None:
    """Evolve ``account`` (which the caller owns) by one of its stored events."""
    kind = event["type"]
    account.version += 1
    if kind in ("AccountOpened", "HouseAccountOpened"):
        account.opened_ms = event["at_ms"]
        return
    account.balance = event["balance"]
    if kind in ("FundsDeposited", "FundsWithdrawn"):
        account.references.add(event["reference"])
        if kind == "FundsDeposited":
            _moved(account, event, "deposit")
    elif kind == "BuyInDebited":
        table = event["table_id"]
        account.at_tables[table] = account.at_tables.get(table, 0) + event["amount"]
        _moved(account, event, "in")
    elif kind == "CashOutCredited":
        account.at_tables.pop(event["table_id"], None)
        if event["amount"]:
            _moved(account, event, "back")
    elif kind == "RakeSwept":
        account.swept[event["table_id"]] = (event["table_rake_total"], event["last_hand"])
    elif kind == "EntryDebited":  # money at stake in a tournament, as a buy-in is at a table
        _moved(account, event, "in")
    elif kind in TOURNAMENT_CREDITS:
        _moved(account, event, "back")


def _moved(account: Account, event: Event, kind: str) -> None:
    """Keep a move a limit counts, and forget the ones no window reaches any more."""
    at = event["at_ms"]
    account.moves = recent((*account.moves, Move(at, kind, event["amount"])), at)
