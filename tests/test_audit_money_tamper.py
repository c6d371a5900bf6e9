"""Every way to tamper with a money event is caught by the reconciliation, naming stream and version.

Each test stores a money log (``tests/money_logs.py``) in a database of its own, changes rows behind the
store's back as an attacker with database access could, re-hashes the stream's chain as a careful one
would (so the chain alone no longer tells), and reconciles.  A consistent rewrite of a deposit with every
later balance re-done moves no books: only a signed checkpoint names it (the last test).
"""

from __future__ import annotations

import pytest
from money_logs import edit, find, fresh_store, money_log, rehash, rows, store_log

from stud_service.audit.checkpoint import make_checkpoint, verify_checkpoint
from stud_service.audit.money_log import audit_money, heads_of

KEY = b"checkpoint-key-for-the-money-tamper-tests-012345"
SHIFT = 1_000_000  # versions moved out of the way while a stream is renumbered


async def renumber(store, stream_id: str, after: int, by: int) -> None:
    """Move every version above ``after`` by ``by`` (through a range no version uses)."""
    async with store.pool.connection() as conn:
        await conn.execute(
            "UPDATE events SET version = version + %s WHERE stream_id = %s AND version > %s",
            (SHIFT, stream_id, after),
        )
        await conn.execute(
            "UPDATE events SET version = version - %s + %s WHERE stream_id = %s AND version > %s",
            (SHIFT, by, stream_id, SHIFT),
        )


async def delete(store, stream_id: str, version: int) -> None:
    async with store.pool.connection() as conn:
        await conn.execute("DELETE FROM events WHERE stream_id = %s AND version = %s", (stream_id, version))
    await renumber(store, stream_id, version, -1)
    await rehash(store, stream_id)


async def duplicate(store, stream_id: str, version: int) -> None:
    """A copy of the row at ``version`` inserted at ``version + 1``, the later rows moved up."""
    await renumber(store, stream_id, version, 1)
    async with store.pool.connection() as conn:
        await conn.execute(
            "INSERT INTO events (stream_id, version, type, payload, hand, prev_hash, hash)"
            " SELECT stream_id, version + 1, type, payload, hand, prev_hash, hash FROM events"
            " WHERE stream_id = %s AND version = %s",
            (stream_id, version),
        )
    await rehash(store, stream_id)


@pytest.fixture
async def books(make_database):
    async with fresh_store(await make_database(migrated=True)) as store:
        await store_log(store, money_log(seed=11, tables=2, hands=4))
        assert (await audit_money(store)).ok
        yield store


async def assert_named(store, stream_id: str, version: int) -> None:
    report = await audit_money(store)
    assert not report.ok
    named = [(d.stream_id, d.version) for d in report.discrepancies]
    assert (stream_id, version) in named, report.discrepancies
    # ... and it is where that stream first goes wrong
    assert min(v for s, v in named if s == stream_id and v is not None) == version


def bigger(field: str, by: int = 1):
    return lambda payload: {**payload, field: payload[field] + by}


@pytest.mark.parametrize(
    ("prefix", "kind", "field"),
    [
        ("accounts/", "FundsDeposited", "amount"),
        ("tables/", "PlayerSeated", "buy_in"),
        ("accounts/", "BuyInDebited", "amount"),
        ("tables/", "PlayerLeft", "cash_out"),
        ("accounts/", "CashOutCredited", "amount"),
        ("tables/", "PlayerToppedUp", "amount"),
    ],
)
async def test_an_edited_amount_is_named(books, prefix, kind, field):
    stream_id, version, payload = await find(books, prefix, kind, lambda p: p[field] > 0)
    await edit(books, stream_id, version, bigger(field, 5)(payload))
    await assert_named(books, stream_id, version)


async def test_an_edited_amount_with_its_balance_is_named_by_its_pair(books):
    stream_id, version, payload = await find(books, "accounts/", "BuyInDebited")
    await edit(books, stream_id, version, {**payload, "amount": payload["amount"] + 5})
    for later, entry in await rows(books, stream_id):  # every balance re-done: the account alone adds up
        if later >= version and "balance" in entry:
            await edit(books, stream_id, later, {**entry, "balance": entry["balance"] - 5})
    table_id, table_version = f"tables/{payload['table_id']}", payload["table_version"]
    await assert_named(books, stream_id, version)
    report = await audit_money(books)
    assert (table_id, table_version) in [(d.stream_id, d.version) for d in report.discrepancies]


async def test_a_deleted_cash_out_credit_is_named_at_its_table_event(books):
    stream_id, version, payload = await find(books, "accounts/", "CashOutCredited", lambda p: p["amount"] > 0)
    await delete(books, stream_id, version)
    await assert_named(books, f"tables/{payload['table_id']}", payload["table_version"])


async def test_a_deleted_player_left_is_named_at_its_account_entry(books):
    stream_id, version, payload = await find(books, "tables/", "PlayerLeft", lambda p: p["cash_out"] > 0)
    account, entry_version, _entry = await find(
        books, "accounts/", "CashOutCredited",
        lambda p: (f"tables/{p['table_id']}", p["table_version"]) == (stream_id, version),
    )
    await delete(books, stream_id, version)
    await assert_named(books, account, entry_version)


async def test_a_duplicated_deposit_is_named(books):
    stream_id, version, _payload = await find(books, "accounts/", "FundsDeposited")
    await duplicate(books, stream_id, version)
    await assert_named(books, stream_id, version + 1)


async def test_moved_rake_in_a_hand_is_named(books):
    stream_id, version, payload = await find(books, "tables/", "HandEnded", lambda p: p.get("rake", 0) > 0)
    await edit(books, stream_id, version, {**payload, "rake": payload["rake"] + 2})
    await assert_named(books, stream_id, version)


async def test_a_sweep_moved_to_another_table_is_named(books):
    stream_id, version, payload = await find(books, "house/", "RakeSwept")
    other = next(
        t for t in ("cash-11-0", "cash-11-1") if t != payload["table_id"]
    )
    await edit(books, stream_id, version, {**payload, "table_id": other})
    await assert_named(books, stream_id, version)


async def test_a_sweep_of_more_than_the_rake_is_named(books):
    stream_id, version, payload = await find(books, "house/", "RakeSwept")
    for later, entry in await rows(books, stream_id):  # amount and every balance after it, consistently
        if later >= version:
            await edit(books, stream_id, later, {**entry, "amount": entry["amount"] + 1 * (later == version),
                                                  "balance": entry["balance"] + 1})
    await assert_named(books, stream_id, version)


async def test_a_consistent_rewrite_of_a_deposit_is_named_by_a_checkpoint(books):
    checkpoint = await make_checkpoint(books, KEY)
    stream_id, version, payload = await find(books, "accounts/", "FundsDeposited")
    for later, entry in await rows(books, stream_id):
        if later >= version and "balance" in entry:
            extra = 100 * (later == version)
            await edit(books, stream_id, later, {**entry, "balance": entry["balance"] + 100}
                       | ({"amount": entry["amount"] + extra} if extra else {}))
    assert (await audit_money(books)).ok  # the books add up: deposits are only as true as the log
    head = next(e["version"] for e in checkpoint["streams"] if e["stream"] == stream_id)
    report = await audit_money(books, heads=heads_of(checkpoint))
    assert [(d.stream_id, d.version) for d in report.discrepancies] == [(stream_id, head)]
    findings = (await verify_checkpoint(books, checkpoint, KEY)).findings
    assert [(f.table_id, f.version) for f in findings] == [(stream_id, head)]
