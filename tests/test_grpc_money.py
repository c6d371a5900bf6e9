"""Money at tables through the real service: buy-ins and top-ups debit the player's account and every way of
leaving credits it, in the same transaction as the table's event; refusals move nothing; suspended players are
kept from play and paid out; the tables' rake is swept into the house's account (docs/money.md)."""

from __future__ import annotations

import asyncio
import uuid

import grpc
import pytest
from grpc_fixtures import table_spec, wait_for_view

from stud_service.auth import Role
from stud_service.bots.client import account_name, error_reason, new_request_id
from stud_service.server.proto_gen import account_pb2, cashier_service_pb2, table_pb2

pytestmark = pytest.mark.asyncio(loop_scope="session")

BUY_IN = 4_000
PASSIVE = (table_pb2.ACTION_TYPE_BRING_IN, table_pb2.ACTION_TYPE_CHECK, table_pb2.ACTION_TYPE_CALL)


def money_table(**fields) -> table_pb2.Table:
    return table_spec(play_money=False, **fields)


@pytest.fixture
def names() -> list[str]:
    tag = uuid.uuid4().hex[:8]
    return [f"{name}-{tag}" for name in ("ann", "ben", "cat", "dan")]


async def new_money_table(operator, **fields) -> str:
    table_id = f"t-{uuid.uuid4().hex[:12]}"
    await operator.create_table(table_id, money_table(**fields))
    return table_id


async def balance(operator, player: str, currency: str = "USD") -> int:
    return (await operator.account(player, currency)).balance


async def heads(grpc_service, table_id: str, *players: str) -> list[int]:
    streams = [f"tables/{table_id}", *(f"accounts/USD/{player}" for player in players)]
    return [await grpc_service.store.head(stream) for stream in streams]


async def refusal(call) -> tuple[grpc.StatusCode, str | None]:
    with pytest.raises(grpc.aio.AioRpcError) as error:
        await call
    return error.value.code(), error_reason(error.value)


async def test_a_buy_in_debits_the_account_and_leaving_credits_the_stack_back(grpc_service, operator, names):
    ann = names[0]
    await operator.deposit(ann, 10_000)
    table_id = await new_money_table(operator)
    player = grpc_service.client(ann)
    view = await player.sit_down(table_id, 1, BUY_IN)
    account = await operator.account(ann)
    assert account.balance == 6_000
    assert [(stake.table, stake.amount) for stake in account.at_tables] == [(f"tables/{table_id}", BUY_IN)]
    statement = await operator.cashier.ListAccountEntries(
        cashier_service_pb2.ListAccountEntriesRequest(parent=account_name(ann)), metadata=operator.metadata
    )
    buy_in = statement.entries[0]
    assert (buy_in.kind, buy_in.amount, buy_in.table, buy_in.table_version) == (
        account_pb2.ACCOUNT_ENTRY_KIND_BUY_IN,
        -BUY_IN,
        f"tables/{table_id}",
        view.version,
    )
    await player.top_up(table_id, 1_000)
    assert await balance(operator, ann) == 5_000
    await player.leave(table_id)
    account = await operator.account(ann)
    assert (account.balance, list(account.at_tables)) == (10_000, [])
    last = (
        await operator.cashier.ListAccountEntries(
            cashier_service_pb2.ListAccountEntriesRequest(parent=account_name(ann)),
            metadata=operator.metadata,
        )
    ).entries[0]
    assert (last.kind, last.amount, last.description) == (
        account_pb2.ACCOUNT_ENTRY_KIND_CASH_OUT,
        5_000,
        f"cash-out from tables/{table_id}",
    )


async def test_no_money_no_seat_and_nothing_is_appended_anywhere(grpc_service, operator, names):
    ann, ben = names[:2]
    await operator.deposit(ann, BUY_IN - 1)
    table_id = await new_money_table(operator)
    before = await heads(grpc_service, table_id, ann, ben)
    for who in (ann, ben):  # too little money; no account at all
        code, reason = await refusal(grpc_service.client(who).sit_down(table_id, 1, BUY_IN))
        assert (code, reason) == (grpc.StatusCode.FAILED_PRECONDITION, "INSUFFICIENT_FUNDS")
    assert await heads(grpc_service, table_id, ann, ben) == before
    await operator.deposit(ann, 1)
    await grpc_service.client(ann).sit_down(table_id, 1, BUY_IN)
    code, reason = await refusal(grpc_service.client(ann).top_up(table_id, 1))
    assert (code, reason) == (grpc.StatusCode.FAILED_PRECONDITION, "INSUFFICIENT_FUNDS")
    assert await balance(operator, ann) == 0


async def test_a_table_takes_buy_ins_only_in_its_currency(grpc_service, operator, names):
    ann = names[0]
    await operator.deposit(ann, 50_000, "USD")
    table_id = await new_money_table(operator, currency_code="EUR")
    code, reason = await refusal(grpc_service.client(ann).sit_down(table_id, 1, BUY_IN))
    assert (code, reason) == (grpc.StatusCode.FAILED_PRECONDITION, "INSUFFICIENT_FUNDS")
    await operator.deposit(ann, 5_000, "EUR")
    await grpc_service.client(ann).sit_down(table_id, 1, BUY_IN)
    assert (await balance(operator, ann, "EUR"), await balance(operator, ann, "USD")) == (1_000, 50_000)


async def test_a_retried_sit_down_debits_once(grpc_service, operator, names):
    ann = names[0]
    await operator.deposit(ann, 10_000)
    table_id = await new_money_table(operator)
    player = grpc_service.client(ann)
    request_id = new_request_id()
    first = await player.sit_down(table_id, 2, BUY_IN, request_id=request_id)
    again = await player.sit_down(table_id, 2, BUY_IN, request_id=request_id)
    assert again.version == first.version
    assert await balance(operator, ann) == 10_000 - BUY_IN


async def play_out_hand(players, table_id: str, hand: int) -> None:
    """Passive actions, whoever's turn, until hand ``hand`` has ended."""
    for _ in range(1500):
        views = [await player.view(table_id) for player in players]
        if any(v.hand.hand_number > hand or (v.hand.hand_number == hand and v.hand.complete) for v in views):
            return
        turn = next(((p, v) for p, v in zip(players, views, strict=True) if v.legal_actions), None)
        if turn is None:
            await asyncio.sleep(0.02)
            continue
        player, view = turn
        choice = next(a for a in view.legal_actions if a.type in PASSIVE)
        with_turn = player.act(table_id, view.viewer_seat, choice.type, choice.amount, view.turn)
        try:
            await with_turn
        except grpc.aio.AioRpcError as error:
            if error_reason(error) != "STALE_TURN":
                raise
    raise TimeoutError(f"hand {hand} did not end")


async def cashed_out(grpc_service, table_id: str, player: str) -> int:
    """What the table's PlayerLeft paid ``player``, checked against the account entry paired with it."""
    table = await grpc_service.store.read_stream(f"tables/{table_id}")
    (left,) = [e for e in table if e.type == "PlayerLeft" and e.payload["player_id"] == player]
    account = await grpc_service.store.read_stream(f"accounts/USD/{player}")
    (entry,) = [e for e in account if e.type == "CashOutCredited" and e.payload["table_id"] == table_id]
    assert (entry.payload["table_version"], entry.payload["amount"]) == (
        left.version,
        left.payload["cash_out"],
    )
    assert entry.recorded_at == left.recorded_at  # one transaction
    return left.payload["cash_out"]


async def seated(grpc_service, operator, names, table_id: str, money: int = 10_000):
    players = [grpc_service.client(name) for name in names]
    for seat, (name, player) in enumerate(zip(names, players, strict=True), start=1):
        await operator.deposit(name, money)
        await player.sit_down(table_id, seat, BUY_IN)
    return players


async def test_leaving_during_a_hand_is_paid_out_when_the_hand_ends(grpc_service, operator, names):
    table_id = await new_money_table(operator)
    players = await seated(grpc_service, operator, names[:3], table_id)
    view = await wait_for_view(players[0], table_id, lambda v: v.HasField("hand") and not v.hand.complete)
    hand = view.hand.hand_number
    await players[0].leave(table_id)  # in the hand: removed when it ends
    assert await balance(operator, names[0]) == 10_000 - BUY_IN
    await play_out_hand(players[1:], table_id, hand)
    await wait_for_view(players[1], table_id, lambda v: all(s.player_id != names[0] for s in v.seats))
    cash_out = await cashed_out(grpc_service, table_id, names[0])
    assert await balance(operator, names[0]) == 10_000 - BUY_IN + cash_out


async def test_a_suspended_player_cannot_sit_and_a_seated_one_is_paid_out(grpc_service, operator, names):
    ann, ben, cat = names[:3]
    table_id = await new_money_table(operator)
    players = await seated(grpc_service, operator, [ann, ben], table_id)
    view = await wait_for_view(players[0], table_id, lambda v: v.HasField("hand") and not v.hand.complete)
    reply = await operator.cashier.SuspendPlayer(
        cashier_service_pb2.SuspendPlayerRequest(name=f"players/{ann}", reason="collusion review"),
        metadata=operator.metadata,
    )
    assert reply.standing.suspended and list(reply.tables) == [f"tables/{table_id}"]
    # Ann plays no further decision: when her turn comes the server checks or folds for her.
    await play_out_hand(players[1:], table_id, view.hand.hand_number)
    await wait_for_view(players[1], table_id, lambda v: all(s.player_id != ann for s in v.seats))
    stack = await cashed_out(grpc_service, table_id, ann)
    assert await balance(operator, ann) == 10_000 - BUY_IN + stack
    await operator.deposit(cat, 10_000)
    code, reason = await refusal(grpc_service.client(ann).sit_down(table_id, 3, BUY_IN))
    assert (code, reason) == (grpc.StatusCode.FAILED_PRECONDITION, "PLAYER_SUSPENDED")
    out = await operator.cashier.Withdraw(
        cashier_service_pb2.WithdrawRequest(
            account=account_name(ann), amount=100, currency_code="USD", payment_reference=f"w-{ann}"
        ),
        metadata=operator.metadata,
    )
    assert out.account.balance == 10_000 - BUY_IN + stack - 100
    standing = await operator.cashier.ReinstatePlayer(
        cashier_service_pb2.ReinstatePlayerRequest(name=f"players/{ann}"), metadata=operator.metadata
    )
    assert not standing.suspended
    await grpc_service.client(ann).sit_down(table_id, 3, BUY_IN)


async def test_a_player_suspended_on_another_replica_is_removed_before_the_next_deal(
    grpc_service, operator, names
):
    ann, ben = names[:2]
    table_id = await new_money_table(operator)
    players = await seated(grpc_service, operator, [ann, ben], table_id)
    for player in players:
        await player.sit_out(table_id)
    await wait_for_view(players[0], table_id, lambda v: not v.HasField("hand") or v.hand.complete)
    # As another replica would: the suspension is in the log, this replica's tables were not told.
    await grpc_service.runtime.ledger.set_suspended(ann, True, "", "ops", 0)
    for player in players:
        await player.sit_in(table_id)
    gone = await wait_for_view(players[1], table_id, lambda v: all(s.player_id != ann for s in v.seats))
    assert (
        not gone.HasField("hand")
        or gone.hand.hand_number == (await players[1].view(table_id)).hand.hand_number
    )
    assert not (await operator.account(ann)).at_tables


async def test_suspending_needs_an_operator(grpc_service, names):
    player = grpc_service.client(names[0])
    code, reason = await refusal(
        player.cashier.SuspendPlayer(
            cashier_service_pb2.SuspendPlayerRequest(name=f"players/{names[1]}"), metadata=player.metadata
        )
    )
    assert (code, reason) == (grpc.StatusCode.PERMISSION_DENIED, "OPERATOR_ONLY")
    code, reason = await refusal(
        grpc_service.client("x", Role.OPERATOR).cashier.SuspendPlayer(
            cashier_service_pb2.SuspendPlayerRequest(name="players/"),
            metadata=grpc_service.client("x", Role.OPERATOR).metadata,
        )
    )
    assert (code, reason) == (grpc.StatusCode.INVALID_ARGUMENT, "MALFORMED_REQUEST")


@pytest.mark.parametrize("reason", ["review\x00", "line\nbreak", "\x1b[31mred"])
async def test_a_suspension_reason_with_control_characters_is_malformed_and_appends_nothing(
    grpc_service, operator, names, reason
):
    """NUL reached PostgreSQL (INTERNAL and a traceback); no control character belongs in the record."""
    code, refused = await refusal(operator.cashier.SuspendPlayer(
        cashier_service_pb2.SuspendPlayerRequest(name=f"players/{names[0]}", reason=reason),
        metadata=operator.metadata))
    assert (code, refused) == (grpc.StatusCode.INVALID_ARGUMENT, "MALFORMED_REQUEST")
    assert await grpc_service.store.head(f"players/{names[0]}") == 0


async def test_the_tables_rake_is_swept_into_the_house_account_once(grpc_service, operator, names):
    rake = table_pb2.RakeRule(
        basis_points=500, cap_2_players=300, cap_3_to_4_players=300, cap_5_or_more_players=300
    )
    table_id = await new_money_table(operator, rake=rake, currency_code="GBP")
    players = [grpc_service.client(name) for name in names[:3]]
    for seat, name in enumerate(names[:3], start=1):
        await operator.deposit(name, 10_000, "GBP")
        await players[seat - 1].sit_down(table_id, seat, BUY_IN)
    for hand in (1, 2):
        await wait_for_view(
            players[0], table_id, lambda v, h=hand: v.HasField("hand") and v.hand.hand_number >= h
        )
        await play_out_hand(players, table_id, hand)
    live = await grpc_service.runtime.table(table_id)
    taken = live.state.rake_taken
    assert taken > 0  # passive play reaches seventh street: every hand is raked
    house = grpc_service.client("audit", Role.AUDITOR)
    before = await grpc_service.store.head("house/GBP")
    await grpc_service.runtime.sweep_rake()
    account = await house.cashier.GetAccount(
        cashier_service_pb2.GetAccountRequest(name="house/accounts/GBP"), metadata=house.metadata
    )
    assert account.balance >= taken and await grpc_service.store.head("house/GBP") > before
    head = await grpc_service.store.head("house/GBP")
    await grpc_service.runtime.sweep_rake()  # nothing new at this table: nothing appended for it
    if live.state.rake_taken == taken:
        assert await grpc_service.store.head("house/GBP") == head


async def test_a_play_money_table_moves_no_money(grpc_service, operator, names):
    table_id = f"t-{uuid.uuid4().hex[:12]}"
    await operator.create_table(table_id, table_spec())  # play money, as the game's tests use
    await grpc_service.client(names[0]).sit_down(table_id, 1, BUY_IN)
    assert await grpc_service.store.head(f"accounts/USD/{names[0]}") == 0


RACE_CYCLES = 60  # buy-ins and cash-outs; the reads and retries run for as long as they do


async def test_account_reads_and_deposit_retries_race_buy_ins_and_cash_outs(grpc_service, operator, names):
    """While a player's account takes buy-ins and cash-outs, every read of it (the operator's and the
    player's own) sees one consistent version — its balance plus its chips at tables is all it ever
    deposited — and an exact retry of an earlier deposit answers that deposit's result, never an error."""
    ann = names[0]
    first_request = cashier_service_pb2.DepositRequest(
        account=f"players/{ann}/accounts/USD", amount=10_000, currency_code="USD",
        payment_reference=f"race-{ann}", request_id=new_request_id())
    first = await operator.cashier.Deposit(first_request, metadata=operator.metadata)
    table_id = await new_money_table(operator)
    player = grpc_service.client(ann)
    done = asyncio.Event()
    counts = {"reads": 0, "retries": 0}

    async def churn() -> None:
        try:
            for _ in range(RACE_CYCLES):
                await player.sit_down(table_id, 1, BUY_IN)
                await player.leave(table_id)
        finally:
            done.set()

    async def read(client) -> None:
        while not done.is_set():
            account = await client.account(ann)
            assert account.balance + sum(stake.amount for stake in account.at_tables) == 10_000, account
            counts["reads"] += 1

    async def retry() -> None:
        while not done.is_set():
            assert await operator.cashier.Deposit(first_request, metadata=operator.metadata) == first
            counts["retries"] += 1

    await asyncio.wait_for(asyncio.gather(churn(), read(operator), read(player), retry()), timeout=170)
    assert counts["reads"] > RACE_CYCLES and counts["retries"] > RACE_CYCLES // 2, counts
    assert await balance(operator, ann) == 10_000
