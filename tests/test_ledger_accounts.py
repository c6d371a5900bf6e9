"""The ledger's rules for one account: what a deposit, a withdrawal, a buy-in, a cash-out and a rake sweep
record, and what each refuses (docs/money.md). Pure: no database."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from stud_service.ledger import accounts, players
from stud_service.ledger.accounts import MAX_BALANCE, Account, TableRake
from stud_service.ledger.errors import (
    InsufficientFunds,
    InvalidAmount,
    InvalidPaymentReference,
    PaymentReferenceUsed,
)
from stud_service.ledger.names import account_stream
from stud_service.ledger.players import PlayerStanding

NOW = 1_700_000_000_000


def funded(balance: int, player: str = "alice") -> Account:
    account = Account.empty(account_stream(player, "USD"))
    for event in accounts.deposit(account, balance, "psp-1", NOW):
        accounts.apply(account, event)
    return account


def test_the_first_deposit_opens_the_account_and_records_the_balance_after_it():
    account = Account.empty(account_stream("alice", "USD"))
    events = accounts.deposit(account, 5_000, "psp-1", NOW)
    assert [event["type"] for event in events] == ["AccountOpened", "FundsDeposited"]
    assert events[1] == {
        "type": "FundsDeposited",
        "v": 1,
        "amount": 5_000,
        "reference": "psp-1",
        "balance": 5_000,
        "at_ms": NOW,
    }
    for event in events:
        accounts.apply(account, event)
    assert (account.version, account.balance, account.opened) == (2, 5_000, True)
    assert [e["type"] for e in accounts.deposit(account, 1, "psp-2", NOW)] == ["FundsDeposited"]


@pytest.mark.parametrize("amount", [0, -1, -(2**63), 2**63, 1.5, True, "100", None])
def test_an_amount_must_be_a_positive_int64(amount):
    with pytest.raises(InvalidAmount) as refused:
        accounts.deposit(Account.empty(account_stream("alice", "USD")), amount, "psp-1", NOW)
    assert refused.value.reason == "INVALID_AMOUNT" and refused.value.metadata == {"field": "amount"}


def test_a_balance_never_passes_int64():
    account = funded(MAX_BALANCE)
    with pytest.raises(InvalidAmount, match="largest"):
        accounts.deposit(account, 1, "psp-2", NOW)


def test_a_withdrawal_beyond_the_balance_is_insufficient_funds():
    account = funded(1_000)
    with pytest.raises(InsufficientFunds) as refused:
        accounts.withdraw(account, 1_001, "out-1", NOW)
    assert refused.value.metadata == {"balance": "1000", "currency": "USD"}
    (event,) = accounts.withdraw(account, 1_000, "out-1", NOW)
    assert event["balance"] == 0


@pytest.mark.parametrize("reference", ["", " ", "x" * 129, "bad\nref", None, 7])
def test_a_payment_reference_is_required_printable_text(reference):
    with pytest.raises(InvalidPaymentReference):
        accounts.deposit(Account.empty(account_stream("alice", "USD")), 1, reference, NOW)


def test_a_payment_reference_is_used_once_per_account():
    account = funded(1_000)
    with pytest.raises(PaymentReferenceUsed):
        accounts.deposit(account, 5, "psp-1", NOW)
    with pytest.raises(PaymentReferenceUsed):
        accounts.withdraw(account, 5, "psp-1", NOW)


def test_a_buy_in_is_debited_against_the_table_event_it_pairs_with_and_a_cash_out_credited():
    account = funded(10_000)
    debit = accounts.debit_buy_in(account, "t1", 7, 4_000, False, NOW)
    assert debit == {
        "type": "BuyInDebited",
        "v": 1,
        "table_id": "t1",
        "table_version": 7,
        "amount": 4_000,
        "top_up": False,
        "balance": 6_000,
        "at_ms": NOW,
    }
    accounts.apply(account, debit)
    assert account.at_tables == {"t1": 4_000}
    with pytest.raises(InsufficientFunds):
        accounts.debit_buy_in(account, "t1", 9, 6_001, True, NOW)
    credit = accounts.credit_cash_out(account, "t1", 12, 0, NOW)
    accounts.apply(account, credit)
    assert (account.balance, account.at_tables) == (6_000, {})


def test_rake_is_swept_per_table_once_counting_from_the_last_sweep():
    house = Account.empty("house/USD")
    events = accounts.sweep_rake(house, [TableRake("t1", 40, 120, 5), TableRake("t2", 9, 0, 1)], NOW)
    assert [e["type"] for e in events] == ["HouseAccountOpened", "RakeSwept"]
    assert events[1] | {"at_ms": 0} == {
        "type": "RakeSwept",
        "v": 1,
        "table_id": "t1",
        "table_version": 40,
        "table_rake_total": 120,
        "first_hand": 1,
        "last_hand": 5,
        "amount": 120,
        "balance": 120,
        "at_ms": 0,
    }
    for event in events:
        accounts.apply(house, event)
    assert accounts.sweep_rake(house, [TableRake("t1", 41, 120, 5)], NOW) == []
    (again,) = accounts.sweep_rake(house, [TableRake("t1", 60, 150, 8)], NOW)
    assert (again["amount"], again["first_hand"], again["last_hand"], again["balance"]) == (30, 6, 8, 150)


@given(
    st.lists(
        st.tuples(
            st.sampled_from(["deposit", "withdraw", "buy_in", "cash_out"]),
            st.integers(min_value=-5, max_value=10_000),
        ),
        max_size=40,
    )
)
def test_balances_follow_the_entries_and_never_go_negative(moves):
    """Property: whatever is asked, an account's balance is the sum of what it accepted, never below 0, and
    each entry's recorded balance is the one before it plus or minus its amount."""
    account = Account.empty(account_stream("bob", "EUR"))
    expected = 0
    for index, (kind, amount) in enumerate(moves):
        try:
            if kind == "deposit":
                events = accounts.deposit(account, amount, f"r{index}", NOW)
            elif kind == "withdraw":
                events = accounts.withdraw(account, amount, f"r{index}", NOW)
            elif kind == "buy_in":
                events = [
                    accounts.debit_buy_in(account, "t", index, accounts.check_amount(amount), False, NOW)
                ]
            else:
                events = [accounts.credit_cash_out(account, "t", index, max(amount, 0), NOW)]
        except (InvalidAmount, InsufficientFunds):
            continue
        for event in events:
            if "balance" in event:
                sign = -1 if event["type"] in ("FundsWithdrawn", "BuyInDebited") else 1
                assert event["balance"] == account.balance + sign * event["amount"]
                expected += sign * event["amount"]
            accounts.apply(account, event)
        assert account.balance == expected >= 0


def test_suspending_is_recorded_once_and_reinstating_lifts_it():
    standing = PlayerStanding("mallory")
    (event,) = players.suspend(standing, "chip dumping", "op", NOW)
    players.apply(standing, event)
    assert standing.suspended and standing.reason == "chip dumping"
    assert players.suspend(standing, "again", "op", NOW) == []
    (event,) = players.reinstate(standing, "op", NOW)
    players.apply(standing, event)
    assert not standing.suspended and players.reinstate(standing, "op", NOW) == []
