"""Real money only under a real keyring (docs/keys.md): the embedded quick start's development keyring lies
beside the database, so whoever reads the data directory reads every card. Under it the service refuses
real-currency tables and the cashier's deposits and withdrawals (FAILED_PRECONDITION / DEVELOPMENT_KEYRING,
nothing appended) and says so at start-up, unless the operator accepts the risk; play money plays as usual."""

from __future__ import annotations

import io
import uuid

import grpc
import pytest
from grpc_fixtures import TOKEN_SECRET, table_spec, whole_service

from stud_service.auth import Role, mint_token
from stud_service.bots.client import StudClient, error_reason
from stud_service.sealing.keyring import Keyring, new_key


def development_keyring() -> Keyring:
    return Keyring("dev-1", {"dev-1": new_key()}, "/data/keys.json", development=True)


async def refused(call) -> tuple[grpc.StatusCode, str | None]:
    with pytest.raises(grpc.aio.AioRpcError) as error:
        await call
    return error.value.code(), error_reason(error.value)


async def test_real_money_is_refused_under_the_development_keyring_and_play_money_plays(make_database):
    log = io.StringIO()
    url = await make_database(migrated=True)
    async with whole_service(url, TOKEN_SECRET, log, keyring=development_keyring()) as running:
        operator = StudClient(running.channel, mint_token(TOKEN_SECRET, "house", Role.OPERATOR))
        table_id = f"t-{uuid.uuid4().hex[:10]}"
        expected = (grpc.StatusCode.FAILED_PRECONDITION, "DEVELOPMENT_KEYRING")
        assert await refused(operator.create_table(table_id, table_spec(play_money=False))) == expected
        assert await refused(operator.deposit("ann", 10_000)) == expected
        store = running.host.runtime.store  # nothing appended to the table or the account
        assert await store.head(f"tables/{table_id}") == await store.head("accounts/USD/ann") == 0
        await operator.create_table(table_id, table_spec(play_money=True))
        assert (await operator.view(table_id)).table.play_money
    assert "real money is refused: cards are sealed with the development keyring" in log.getvalue()


async def test_an_operator_who_accepts_the_development_keyring_plays_for_money(make_database):
    log = io.StringIO()
    url = await make_database(migrated=True)
    async with whole_service(url, TOKEN_SECRET, log, keyring=development_keyring(),
                             accept_development_keyring=True) as running:
        operator = StudClient(running.channel, mint_token(TOKEN_SECRET, "house", Role.OPERATOR))
        await operator.create_table(f"t-{uuid.uuid4().hex[:10]}", table_spec(play_money=False))
        assert (await operator.deposit("ann", 10_000)).account.balance == 10_000
    assert "real money is ACCEPTED under the development keyring" in log.getvalue()
