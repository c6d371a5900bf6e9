"""A write whose connection is lost as it commits is resolved inside the call, never doubled.

A real service (a child process) reaches its own PostgreSQL through a loopback proxy that cuts the one
connection carrying a chosen write (tests/tcp_proxy.py): after the server answered it (committed, the answer
lost) or before it reached the server (nothing written). Each write path is cut both ways — a deposit, a
buy-in, an action — and a deal: the call is answered OK as if nothing had happened, and the log holds the
write exactly once. A store that stays away past the call's deadline gets UNAVAILABLE / OUTCOME_UNKNOWN, and
the retry with the same request id is answered without writing twice.
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections.abc import AsyncIterator
from dataclasses import dataclass

import grpc
import psycopg
import pytest_asyncio
from grpc_fixtures import TOKEN_SECRET, table_spec
from own_postgres import OwnPostgres, started_with_database
from tcp_proxy import TcpProxy, tcp_proxy

from stud_service.auth import Principal, Role, mint_token
from stud_service.bots import StudClient
from stud_service.bots.client import account_name, error_reason, new_request_id
from stud_service.server.api.request_ids import request_key
from stud_service.server.proto_gen import cashier_service_pb2, table_pb2, table_service_pb2
from stud_service.store import apply_migrations

OPERATOR = Principal("house", Role.OPERATOR)
DEADLINE = 30.0  # longer than any wait for the store here
FIRST_DEAL_PAUSE = 3.0  # seconds between hands at the cut test's table
BUY_IN = 5_000


@dataclass
class Proxied:
    pg: OwnPostgres
    proxy: TcpProxy

    @property
    def url(self) -> str:
        """The service's database, through the proxy."""
        return f"postgresql://postgres@127.0.0.1:{self.proxy.port}/stud"

    def count(self, where: str, params: tuple, what: str = "count(*)") -> int:
        with psycopg.connect(self.pg.url("stud"), autocommit=True) as conn:
            return conn.execute(f"SELECT {what} FROM events WHERE {where}", params).fetchone()[0]


@pytest_asyncio.fixture
async def proxied() -> AsyncIterator[Proxied]:
    async with started_with_database("stud-outcome-pg-") as pg:
        await apply_migrations(pg.url("stud"))
        async with tcp_proxy(pg.port) as proxy:
            yield Proxied(pg, proxy)


def recorded(db: Proxied, principal: Principal, request) -> int:
    """How many commands the request's id caused in the log (0 or 1; never 2)."""
    key = request_key(principal, request)
    assert key is not None
    return db.count("request_id = %s", (key.key,))


async def cut_and_call(db: Proxied, principal: Principal, request, call, committed: bool):
    """Send ``request`` with its connection to the database cut as the write goes in; its answer."""
    key = request_key(principal, request)
    assert key is not None
    cut = db.proxy.cut_at_commit(key.key.encode(), committed=committed)
    reply = await call(request, timeout=DEADLINE)
    assert cut.done(), "the write's connection was never cut"
    assert recorded(db, principal, request) == 1
    again = await call(request, timeout=DEADLINE)  # a client's retry after all: answered, not written twice
    assert recorded(db, principal, request) == 1
    return reply, again


async def test_a_write_cut_at_commit_is_answered_once_on_every_write_path(proxied, spawn_server) -> None:
    db = proxied
    # The first deal comes this long after the second player sits: the test sets its trap on the deal's commit
    # in that time (the proxy holds one trap, and the sit-downs' own are set before), however loaded the host.
    server = await spawn_server(db.url, "--hand-pause-seconds", str(FIRST_DEAL_PAUSE))
    async with grpc.aio.insecure_channel(server.address) as channel:
        operator = StudClient(channel, mint_token(TOKEN_SECRET, "house", Role.OPERATOR))
        players = {name: StudClient(channel, mint_token(TOKEN_SECRET, name)) for name in ("ann", "ben")}
        await operator.create_table("cut", table_spec(action_clock=30, play_money=False, currency_code="USD"))

        # A deposit, its commit's answer lost, then one that never reached the server.
        for name, committed in (("ann", True), ("ben", False)):
            request = cashier_service_pb2.DepositRequest(
                account=account_name(name), amount=100_000, currency_code="USD",
                payment_reference=f"pay-{new_request_id()}", request_id=new_request_id())
            first, again = await cut_and_call(
                db, OPERATOR, request,
                lambda r, timeout: operator.cashier.Deposit(r, metadata=operator.metadata, timeout=timeout),
                committed)
            assert first == again
            assert (await operator.account(name)).balance == 100_000

        # A buy-in each way.
        for seat, (name, committed) in enumerate((("ann", True), ("ben", False)), 1):
            client = players[name]
            request = table_service_pb2.SitDownRequest(name="tables/cut", seat=seat, buy_in=BUY_IN,
                                                       request_id=new_request_id())
            await cut_and_call(
                db, Principal(name, Role.PLAYER), request,
                lambda r, timeout, client=client: client.stub.SitDown(r, metadata=client.metadata,
                                                                      timeout=timeout),
                committed)
            assert (await operator.account(name)).balance == 100_000 - BUY_IN

        # The deal: the dealer's append of the first hand, its answer lost. The dealer finds the hand dealt
        # and plays on: one HandStarted for hand 1, and hands after it.
        dealt = db.proxy.cut_at_commit(b'"type":"HandStarted"', committed=True)
        await asyncio.wait_for(dealt, DEADLINE)

        # An action each way, by whoever is to act.
        for committed in (True, False):
            view, name = await someone_to_act(players)
            client = players[name]
            choice = view.legal_actions[0]
            request = table_service_pb2.ActRequest(
                name="tables/cut", seat=view.viewer_seat, action=choice.type, amount=choice.amount,
                turn=view.turn, request_id=new_request_id())
            first, again = await cut_and_call(
                db, Principal(name, Role.PLAYER), request,
                lambda r, timeout, client=client: client.stub.Act(r, metadata=client.metadata,
                                                                  timeout=timeout),
                committed)
            assert first.view.version == again.view.version

        await wait_for(lambda: db.count("stream_id = 'tables/cut' AND type = 'HandStarted'", ()) >= 2,
                       "the table deals the next hand by itself")
        deals = "stream_id = 'tables/cut' AND type = 'HandStarted'"
        assert db.count(deals, ()) == db.count(deals, (), "count(DISTINCT hand)"), "a hand was dealt twice"
    assert "ERROR" not in server.log_text()


async def test_a_store_away_past_the_deadline_answers_outcome_unknown_and_the_retry_is_not_doubled(
    proxied, spawn_server
) -> None:
    db = proxied
    server = await spawn_server(db.url)
    async with grpc.aio.insecure_channel(server.address) as channel:
        operator = StudClient(channel, mint_token(TOKEN_SECRET, "house", Role.OPERATOR))

        def deposit_request() -> cashier_service_pb2.DepositRequest:
            return cashier_service_pb2.DepositRequest(
                account=account_name("cal"), amount=7_000, currency_code="USD",
                payment_reference=f"pay-{new_request_id()}", request_id=new_request_id())

        async def deposit(request, timeout: float):
            return await operator.cashier.Deposit(request, metadata=operator.metadata, timeout=timeout)

        # The store comes back within the deadline, after longer than the store timeout: the call waits for
        # it and answers OK.
        request = deposit_request()
        key = request_key(OPERATOR, request)
        assert key is not None
        cut = db.proxy.cut_at_commit(key.key.encode(), committed=True, away=True)
        call = asyncio.ensure_future(deposit(request, DEADLINE))
        await asyncio.wait_for(cut, DEADLINE)
        await asyncio.sleep(8.0)  # longer than the store timeout (5 s), which does not cut a pending outcome
        assert not call.done()
        db.proxy.refusing = False
        await call
        assert (await operator.account("cal")).balance == 7_000
        assert recorded(db, OPERATOR, request) == 1

        # The store stays away past the deadline: OUTCOME_UNKNOWN, then the retry resolves it once.
        request = deposit_request()
        key = request_key(OPERATOR, request)
        assert key is not None
        cut = db.proxy.cut_at_commit(key.key.encode(), committed=True, away=True)
        call = asyncio.ensure_future(deposit(request, 4.0))
        await asyncio.wait_for(cut, DEADLINE)
        started = time.monotonic()
        try:
            await call
            raise AssertionError("answered while the store was away")
        except grpc.aio.AioRpcError as error:
            assert error.code() == grpc.StatusCode.UNAVAILABLE, error
            assert error_reason(error) == "OUTCOME_UNKNOWN", error
            assert "retry with the same request_id" in (error.details() or "")
        assert time.monotonic() - started < 4.0
        db.proxy.refusing = False
        await wait_for_answer(lambda: deposit(request, DEADLINE))
        assert (await operator.account("cal")).balance == 14_000
        assert recorded(db, OPERATOR, request) == 1
    assert "ERROR" not in server.log_text()


async def someone_to_act(players: dict[str, StudClient]) -> tuple[table_pb2.TableView, str]:
    deadline = time.monotonic() + DEADLINE
    while time.monotonic() < deadline:
        for name, client in players.items():
            view = await client.view("cut")
            if view.legal_actions:
                return view, name
        await asyncio.sleep(0.05)
    raise TimeoutError("nobody was ever to act")


async def wait_for(condition, what: str, timeout: float = DEADLINE) -> None:
    deadline = time.monotonic() + timeout
    while not condition():
        assert time.monotonic() < deadline, f"waited {timeout:.0f} s for {what}"
        await asyncio.sleep(0.1)


async def wait_for_answer(call, timeout: float = DEADLINE):
    """As a client does after OUTCOME_UNKNOWN: the same request again until it is answered."""
    deadline = time.monotonic() + timeout
    while True:
        with contextlib.suppress(grpc.aio.AioRpcError):
            return await call()
        assert time.monotonic() < deadline, f"no answer within {timeout:.0f} s"
        await asyncio.sleep(0.5)
