"""CashierService over a real gRPC server and PostgreSQL: deposits, withdrawals, statements, retries, and
every refusal precise and appending nothing (docs/money.md)."""

from __future__ import annotations

import uuid

import grpc
import pytest

from stud_service.auth import Role
from stud_service.bots.client import account_name, error_reason, new_request_id
from stud_service.server.proto_gen import account_pb2, cashier_service_pb2

pytestmark = pytest.mark.asyncio(loop_scope="session")


@pytest.fixture
def player_id() -> str:
    return f"p-{uuid.uuid4().hex[:10]}"


def deposit_request(
    player: str,
    amount: int,
    currency: str = "USD",
    reference: str | None = None,
    request_id: str = "",
    account_currency: str | None = None,
):
    return cashier_service_pb2.DepositRequest(
        account=account_name(player, account_currency or currency),
        amount=amount,
        currency_code=currency,
        payment_reference=reference or f"psp-{uuid.uuid4().hex[:8]}",
        request_id=request_id,
    )


async def refused(call, request, metadata) -> tuple[grpc.StatusCode, str | None]:
    with pytest.raises(grpc.aio.AioRpcError) as error:
        await call(request, metadata=metadata)
    return error.value.code(), error_reason(error.value)


async def stream_length(grpc_service, stream_id: str) -> int:
    return await grpc_service.store.head(stream_id)


async def test_a_deposit_opens_the_account_and_a_withdrawal_pays_out(grpc_service, operator, player_id):
    reply = await operator.cashier.Deposit(
        deposit_request(player_id, 10_000, reference="psp-a"), metadata=operator.metadata
    )
    assert reply.entry.kind == account_pb2.ACCOUNT_ENTRY_KIND_DEPOSIT
    assert (reply.entry.amount, reply.entry.balance, reply.entry.payment_reference) == (
        10_000,
        10_000,
        "psp-a",
    )
    assert (reply.account.balance, reply.account.currency_code, reply.account.player_id) == (
        10_000,
        "USD",
        player_id,
    )
    out = await operator.cashier.Withdraw(
        cashier_service_pb2.WithdrawRequest(
            account=account_name(player_id), amount=2_500, currency_code="USD", payment_reference="out-1"
        ),
        metadata=operator.metadata,
    )
    assert (out.entry.kind, out.entry.amount, out.entry.balance) == (
        account_pb2.ACCOUNT_ENTRY_KIND_WITHDRAWAL,
        -2_500,
        7_500,
    )
    mine = grpc_service.client(player_id)
    account = await mine.account(player_id)
    assert (account.balance, account.version) == (7_500, 3)


async def test_a_withdrawal_beyond_the_balance_is_insufficient_funds_and_appends_nothing(
    grpc_service, operator, player_id
):
    await operator.deposit(player_id, 1_000)
    before = await stream_length(grpc_service, f"accounts/USD/{player_id}")
    code, reason = await refused(
        operator.cashier.Withdraw,
        cashier_service_pb2.WithdrawRequest(
            account=account_name(player_id), amount=1_001, currency_code="USD", payment_reference="out-x"
        ),
        operator.metadata,
    )
    assert (code, reason) == (grpc.StatusCode.FAILED_PRECONDITION, "INSUFFICIENT_FUNDS")
    assert await stream_length(grpc_service, f"accounts/USD/{player_id}") == before


@pytest.mark.parametrize(
    ("amount", "currency", "account_currency", "code", "reason"),
    [
        (0, "USD", None, grpc.StatusCode.INVALID_ARGUMENT, "INVALID_AMOUNT"),
        (-5, "USD", None, grpc.StatusCode.INVALID_ARGUMENT, "INVALID_AMOUNT"),
        (100, "EUR", "USD", grpc.StatusCode.FAILED_PRECONDITION, "CURRENCY_MISMATCH"),
        (100, "", "USD", grpc.StatusCode.FAILED_PRECONDITION, "CURRENCY_MISMATCH"),
        (100, "ZZZ", "ZZZ", grpc.StatusCode.INVALID_ARGUMENT, "MALFORMED_REQUEST"),
    ],
)
async def test_bad_deposits_get_a_precise_reason_and_append_nothing(
    grpc_service, operator, player_id, amount, currency, account_currency, code, reason
):
    request = deposit_request(player_id, amount, currency, account_currency=account_currency)
    assert await refused(operator.cashier.Deposit, request, operator.metadata) == (code, reason)
    assert await stream_length(grpc_service, f"accounts/{account_currency or currency}/{player_id}") == 0


async def test_an_int64_overflowing_deposit_is_invalid_amount(grpc_service, operator, player_id):
    await operator.deposit(player_id, 2**63 - 10)
    code, reason = await refused(operator.cashier.Deposit, deposit_request(player_id, 10), operator.metadata)
    assert (code, reason) == (grpc.StatusCode.INVALID_ARGUMENT, "INVALID_AMOUNT")
    assert (await operator.account(player_id)).balance == 2**63 - 10


async def test_a_player_token_cannot_deposit_and_reads_only_its_own_account(
    grpc_service, operator, player_id
):
    await operator.deposit(player_id, 500)
    player = grpc_service.client(player_id)
    code, reason = await refused(player.cashier.Deposit, deposit_request(player_id, 100), player.metadata)
    assert (code, reason) == (grpc.StatusCode.PERMISSION_DENIED, "OPERATOR_ONLY")
    stranger = grpc_service.client("someone-else")
    code, reason = await refused(
        stranger.cashier.GetAccount,
        cashier_service_pb2.GetAccountRequest(name=account_name(player_id)),
        stranger.metadata,
    )
    assert (code, reason) == (grpc.StatusCode.PERMISSION_DENIED, "NOT_YOUR_ACCOUNT")
    auditor = grpc_service.client("audit", Role.AUDITOR)
    assert (await auditor.account(player_id)).balance == 500
    assert (await operator.account(player_id)).balance == 500


async def test_an_unknown_account_is_not_found(grpc_service, operator, player_id):
    code, reason = await refused(
        operator.cashier.GetAccount,
        cashier_service_pb2.GetAccountRequest(name=account_name(player_id)),
        operator.metadata,
    )
    assert (code, reason) == (grpc.StatusCode.NOT_FOUND, "NO_ACCOUNT")
    code, reason = await refused(
        operator.cashier.Withdraw,
        cashier_service_pb2.WithdrawRequest(
            account=account_name(player_id), amount=1, currency_code="USD", payment_reference="r"
        ),
        operator.metadata,
    )
    assert (code, reason) == (grpc.StatusCode.NOT_FOUND, "NO_ACCOUNT")
    for name in ("players/x", "accounts/USD/x", "players/x/accounts/usd", "house/accounts/US"):
        code, reason = await refused(
            operator.cashier.GetAccount, cashier_service_pb2.GetAccountRequest(name=name), operator.metadata
        )
        assert (code, reason) == (grpc.StatusCode.INVALID_ARGUMENT, "MALFORMED_REQUEST")


async def test_a_retried_deposit_is_answered_with_the_first_entry_and_a_changed_one_is_refused(
    grpc_service, operator, player_id
):
    request = deposit_request(player_id, 700, reference="psp-retry", request_id=new_request_id())
    first = await operator.cashier.Deposit(request, metadata=operator.metadata)
    await operator.deposit(player_id, 5)  # the account moves on
    again = await operator.cashier.Deposit(request, metadata=operator.metadata)
    assert again == first  # the first call's result: its entry and the account as it was after it
    assert again.account.balance == 700
    assert (await operator.account(player_id)).balance == 705
    changed = cashier_service_pb2.DepositRequest()
    changed.CopyFrom(request)
    changed.amount = 701
    code, reason = await refused(operator.cashier.Deposit, changed, operator.metadata)
    assert (code, reason) == (grpc.StatusCode.INVALID_ARGUMENT, "REQUEST_ID_REUSED")
    # The same payment under a new request id is the same payment twice.
    changed.request_id = new_request_id()
    changed.amount = 700
    code, reason = await refused(operator.cashier.Deposit, changed, operator.metadata)
    assert (code, reason) == (grpc.StatusCode.ALREADY_EXISTS, "PAYMENT_REFERENCE_USED")
    assert (await operator.account(player_id)).balance == 705


async def test_the_statement_is_newest_first_and_paged(grpc_service, operator, player_id):
    for amount in range(1, 8):
        await operator.deposit(player_id, amount, reference=f"r{amount}")
    seen, token = [], ""
    while True:
        page = await operator.cashier.ListAccountEntries(
            cashier_service_pb2.ListAccountEntriesRequest(
                parent=account_name(player_id), page_size=3, page_token=token
            ),
            metadata=operator.metadata,
        )
        seen += [(entry.amount, entry.balance, entry.description) for entry in page.entries]
        token = page.next_page_token
        if not token:
            break
    assert [amount for amount, _, _ in seen] == [7, 6, 5, 4, 3, 2, 1]
    assert seen[0][1] == 28 and seen[-1] == (1, 1, "deposit r1")
    code, reason = await refused(
        operator.cashier.ListAccountEntries,
        cashier_service_pb2.ListAccountEntriesRequest(
            parent=account_name("another"), page_token=token or "v1.x.y"
        ),
        operator.metadata,
    )
    assert code == grpc.StatusCode.INVALID_ARGUMENT and reason == "MALFORMED_REQUEST"
