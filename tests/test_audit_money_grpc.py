"""``AuditService.ReconcileMoney`` over a real gRPC server on a database of its own (a money log in it)."""

from __future__ import annotations

import grpc
import pytest_asyncio
from google.protobuf import timestamp_pb2
from grpc_fixtures import service_under_test
from money_logs import edit, find, money_log, store_log
from test_audit_grpc import auth, refused, stub

from stud_service.auth import Role
from stud_service.server.proto_gen import audit_service_pb2
from stud_service.server.tables.settings import RuntimeSettings

AUDITOR = auth("auditor-1", Role.AUDITOR)
FULL = audit_service_pb2.MONEY_RECONCILIATION_VIEW_FULL


@pytest_asyncio.fixture
async def money_service(make_database):
    url = await make_database(migrated=True)
    async with service_under_test(url, RuntimeSettings()) as service:
        await store_log(service.store, money_log(seed=30, tables=2, hands=3, play_chip_tables=1))
        yield service


async def test_an_auditor_and_an_operator_see_the_books_balance(money_service):
    audit = stub(money_service.channel)
    books = await audit.ReconcileMoney(audit_service_pb2.ReconcileMoneyRequest(), metadata=AUDITOR)
    assert books.balanced and books.discrepancy_count == 0 and not books.discrepancies
    (usd,) = books.currencies
    assert usd.currency == "USD" and usd.difference == 0 and usd.rake_taken == usd.house_balance == 3 + 4
    assert usd.deposits - usd.withdrawals == usd.balances + usd.chips_at_tables + usd.rake_taken > 0
    assert books.events_in_log > books.events_read > 0 and books.as_of.seconds > 0
    assert not books.tables and not books.accounts  # BASIC view
    operator = auth("op-1", Role.OPERATOR)
    full = await audit.ReconcileMoney(
        audit_service_pb2.ReconcileMoneyRequest(currency="USD", view=FULL), metadata=operator
    )
    assert full.balanced and len(full.tables) == 2 and {t.currency for t in full.tables} == {"USD"}
    assert sum(t.chips for t in full.tables) == usd.chips_at_tables
    assert sum(a.balance for a in full.accounts) == usd.balances
    assert all(a.account == f"accounts/USD/{a.player_id}" for a in full.accounts)
    everything = await audit.ReconcileMoney(
        audit_service_pb2.ReconcileMoneyRequest(view=FULL), metadata=AUDITOR
    )
    assert [t.currency for t in everything.tables].count("") == 1  # the play-chip table
    early = await audit.ReconcileMoney(
        audit_service_pb2.ReconcileMoneyRequest(as_of=timestamp_pb2.Timestamp(seconds=946_684_800)),
        metadata=AUDITOR,
    )
    assert early.balanced and not early.currencies and early.as_of.seconds == 946_684_800


async def test_refusals(money_service):
    audit = stub(money_service.channel)
    request = audit_service_pb2.ReconcileMoneyRequest
    assert await refused(audit.ReconcileMoney(request(), metadata=auth("p1-1"))) == (
        grpc.StatusCode.PERMISSION_DENIED, "AUDITOR_ONLY"
    )
    for bad in (request(currency="usd"), request(currency="DOLLAR"), request(view=7),
                request(as_of=timestamp_pb2.Timestamp(seconds=-10**12))):
        assert await refused(audit.ReconcileMoney(bad, metadata=AUDITOR)) == (
            grpc.StatusCode.INVALID_ARGUMENT, "MALFORMED_REQUEST"
        )


async def test_a_discrepancy_is_named_with_its_stream_and_version(money_service):
    store = money_service.store
    stream_id, version, payload = await find(store, "accounts/", "CashOutCredited", lambda p: p["amount"] > 0)
    await edit(store, stream_id, version, {**payload, "amount": payload["amount"] + 9})
    books = await stub(money_service.channel).ReconcileMoney(
        audit_service_pb2.ReconcileMoneyRequest(), metadata=AUDITOR
    )
    assert not books.balanced and books.discrepancy_count == len(books.discrepancies) >= 1
    first = next(d for d in books.discrepancies if d.stream == stream_id)
    assert first.version == version and first.currency == "USD" and "balance" in first.message
