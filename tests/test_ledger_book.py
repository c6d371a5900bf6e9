"""The ledger on the real event log: replicas sweeping the same tables' rake at once never sweep a unit twice,
and cashier writes racing on one account from two processes' ledgers both land, each against the other's."""

from __future__ import annotations

import asyncio
import uuid

import pytest

from stud_service.db import open_pool
from stud_service.ledger.accounts import TableRake
from stud_service.ledger.book import Ledger
from stud_service.ledger.names import account_stream, house_stream
from stud_service.store import ConcurrencyError, EventStore

pytestmark = pytest.mark.asyncio(loop_scope="session")


@pytest.fixture
async def two_ledgers(database_url):
    """Two ledgers on two stores with pools of their own: two replicas of one database."""
    pools = [await open_pool(database_url, max_size=4) for _ in range(2)]
    stores = [EventStore(pool, announce=False) for pool in pools]
    try:
        yield [Ledger(store) for store in stores]
    finally:
        for store, pool in zip(stores, pools, strict=True):
            await store.close()
            await pool.close()


async def test_concurrent_sweeps_of_the_same_tables_take_each_unit_of_rake_once(two_ledgers):
    currency = "CHF"  # a currency no other test uses
    tables = [f"t-{uuid.uuid4().hex[:8]}" for _ in range(3)]
    totals = {table: 0 for table in tables}
    for step in range(1, 6):
        for index, table in enumerate(tables):
            totals[table] += 10 * step + index
        seen = [TableRake(table, 10 * step, totals[table], step) for table in tables]
        await asyncio.gather(*(ledger.sweep(currency, seen, 0) for ledger in two_ledgers for _ in range(2)))
    house = await two_ledgers[0].account(house_stream(currency))
    assert house.balance == sum(totals.values())
    assert {table: swept for table, (swept, _hand) in house.swept.items()} == totals
    events = await two_ledgers[0].store.read_stream(house_stream(currency))
    assert sum(e.payload["amount"] for e in events if e.type == "RakeSwept") == sum(totals.values())


async def test_racing_deposits_and_withdrawals_on_one_account_all_land(two_ledgers):
    stream = account_stream(f"racer-{uuid.uuid4().hex[:8]}", "USD")
    await two_ledgers[0].cashier("deposit", stream, 1_000, "seed", 0)

    async def until_it_lands(ledger, kind: str, request_id: str):
        # As a client does with ABORTED: the same request again. Each ledger already decides again up to
        # WRITE_ATTEMPTS times; twelve racers on one stream can still outlast that on a busy machine.
        for _ in range(20):
            try:
                return await ledger.cashier(kind, stream, 10, request_id, 0)
            except ConcurrencyError:
                continue
        raise AssertionError(f"{request_id} never landed")

    moves = [
        until_it_lands(ledger, "deposit" if n % 2 else "withdraw", f"r-{index}-{n}")
        for index, ledger in enumerate(two_ledgers)
        for n in range(6)
    ]
    written = await asyncio.gather(*moves)
    assert len({w.version for w in written}) == len(moves)  # each its own entry
    account = await two_ledgers[1].account(stream)
    assert account.balance == 1_000 and account.version == 2 + len(moves)
