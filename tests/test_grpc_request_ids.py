"""Request ids as AIP-155 has them, over a real gRPC server and PostgreSQL: scoped to the caller and the
method, a retry answered with the first call's result, a reused id refused.

For every mutating method (CreateTable, SitDown, Leave, SitOut, SitIn, TopUp, Act, SetClientSeed): a
retry with the same id, after other events have moved the table on, gets exactly the first reply (the
view as of then) and appends nothing; the same id with a different request is INVALID_ARGUMENT /
REQUEST_ID_REUSED and appends nothing. Then the hijacks that ids scoped per table allowed.

The server here deals only when a test says so (no dealer, 30 s clocks), so every version is the
test's own doing and "appends nothing" is exact. Every test runs over the gRPC port and the web port.
"""

from __future__ import annotations

import uuid
from collections.abc import AsyncIterator, Awaitable, Callable
from typing import Any

import grpc
import pytest
import pytest_asyncio
from grpc_fixtures import ALL_TRANSPORTS, CREATED_VERSION, ServiceUnderTest, service_under_test, table_spec

from stud_service.auth import Role
from stud_service.server.api.errors import error_info
from stud_service.server.proto_gen import audit_service_pb2, table_pb2, table_service_pb2
from stud_service.server.tables.live import stream_id_for
from stud_service.server.tables.seeds import deal_commands
from stud_service.server.tables.settings import RuntimeSettings

PASSIVE = (table_pb2.ACTION_TYPE_BRING_IN, table_pb2.ACTION_TYPE_CHECK, table_pb2.ACTION_TYPE_CALL)

pytestmark = pytest.mark.parametrize("transport", ALL_TRANSPORTS)


@pytest_asyncio.fixture(scope="module")
async def service(make_database: Callable[..., Awaitable[str]]) -> AsyncIterator[ServiceUnderTest]:
    url = await make_database(migrated=True)
    settings = RuntimeSettings(auto_deal=False)
    async with service_under_test(url, settings) as running:
        yield running


class Caller:
    """One token's calls, by method name: ``await caller.call("SitDown", request)``."""

    def __init__(self, service: ServiceUnderTest, player: str, role: Role, transport: str) -> None:
        client = service.client(player, role, transport)
        self.metadata = client.metadata
        self.tables = client.stub
        self.audit = client.audit

    async def call(self, method: str, request: Any) -> Any:
        stub = self.audit if method == "SetClientSeed" else self.tables
        reply = await getattr(stub, method)(request, metadata=self.metadata)
        if "view" in reply.DESCRIPTOR.fields_by_name:
            reply.view.ClearField("round_trip")  # the latency meter's: measured anew for every reply
        return reply

    async def refused(self, method: str, request: Any) -> tuple[grpc.StatusCode, str | None]:
        with pytest.raises(grpc.aio.AioRpcError) as caught:
            await self.call(method, request)
        info = error_info(caught.value)
        return caught.value.code(), info.reason if info else None

    async def view(self, table_id: str) -> table_pb2.TableView:
        return await self.call(
            "GetTableView", table_service_pb2.GetTableViewRequest(name=f"tables/{table_id}")
        )


@pytest.fixture
def caller(service: ServiceUnderTest, transport: str) -> Callable[..., Caller]:
    return lambda player, role=Role.PLAYER: Caller(service, player, role, transport)


@pytest.fixture
def new_table(caller: Callable[..., Caller]) -> Callable[[], Awaitable[str]]:
    async def create() -> str:
        table_id = f"t-{uuid.uuid4().hex[:12]}"
        request = table_service_pb2.CreateTableRequest(table=table_spec(), table_id=table_id)
        await caller("house", Role.OPERATOR).call("CreateTable", request)
        return table_id

    return create


async def head(service: ServiceUnderTest, table_id: str) -> int:
    return await service.store.head(stream_id_for(table_id))


async def deal(service: ServiceUnderTest, table_id: str) -> None:
    live = await service.runtime.table(table_id)
    await service.runtime.execute(table_id, lambda state, now: deal_commands(live, state, now))


def name(table_id: str) -> str:
    return f"tables/{table_id}"


def sit_down(table_id: str, seat: int, buy_in: int = 5_000, request_id: str = "") -> Any:
    return table_service_pb2.SitDownRequest(
        name=name(table_id), seat=seat, buy_in=buy_in, request_id=request_id
    )


def seat_change(method: str, table_id: str, request_id: str) -> Any:
    return getattr(table_service_pb2, f"{method}Request")(name=name(table_id), request_id=request_id)


def new_id() -> str:
    return uuid.uuid4().hex


async def assert_retry_is_the_first_reply(
    service: ServiceUnderTest, client: Caller, method: str, request: Any, first: Any, table_id: str
) -> None:
    """The table has moved on since ``first``: the same request again answers ``first`` exactly."""
    moved_to = await head(service, table_id)
    again = await client.call(method, request)
    assert again == first
    assert await head(service, table_id) == moved_to


async def assert_reuse_refused(
    service: ServiceUnderTest, client: Caller, method: str, request: Any, table_id: str
) -> None:
    before = await head(service, table_id)
    assert await client.refused(method, request) == (grpc.StatusCode.INVALID_ARGUMENT, "REQUEST_ID_REUSED")
    assert await head(service, table_id) == before


# -- every mutating method: retried, and reused for something else --------------------------------


async def test_create_table_retry_and_reuse(service, caller):
    house = caller("house", Role.OPERATOR)
    table_id, request_id = f"t-{uuid.uuid4().hex[:12]}", new_id()
    request = table_service_pb2.CreateTableRequest(
        table=table_spec(), table_id=table_id, request_id=request_id
    )
    first = await house.call("CreateTable", request)
    assert first.version == CREATED_VERSION
    await caller("alice").call("SitDown", sit_down(table_id, 1))
    await assert_retry_is_the_first_reply(service, house, "CreateTable", request, first, table_id)
    other = table_service_pb2.CreateTableRequest(
        table=table_spec(display_name="another"), table_id=table_id, request_id=request_id
    )
    await assert_reuse_refused(service, house, "CreateTable", other, table_id)


async def test_create_table_without_a_table_id_names_the_table_after_the_callers_id(service, caller):
    house, annex = caller("house", Role.OPERATOR), caller("annex", Role.OPERATOR)
    request = table_service_pb2.CreateTableRequest(table=table_spec(), request_id=new_id())
    first = await house.call("CreateTable", request)
    assert (await house.call("CreateTable", request)) == first  # the retry names the same table
    # Another operator's same id is another request: a table of its own, not TABLE_EXISTS.
    theirs = await annex.call("CreateTable", request)
    assert theirs.name != first.name
    assert await head(service, theirs.name.removeprefix("tables/")) == CREATED_VERSION


async def test_sit_down_retry_and_reuse(service, caller, new_table):
    table_id, alice, request_id = await new_table(), caller("alice"), new_id()
    request = sit_down(table_id, 2, 5_000, request_id)
    first = await alice.call("SitDown", request)
    await caller("bob").call("SitDown", sit_down(table_id, 3))
    await assert_retry_is_the_first_reply(service, alice, "SitDown", request, first, table_id)
    assert [seat.player_id for seat in first.view.seats] == ["alice"]  # as of then, without bob
    await assert_reuse_refused(service, alice, "SitDown", sit_down(table_id, 4, 5_000, request_id), table_id)
    await assert_reuse_refused(service, alice, "SitDown", sit_down(table_id, 2, 6_000, request_id), table_id)


async def test_top_up_retry_and_reuse(service, caller, new_table):
    table_id, alice, request_id = await new_table(), caller("alice"), new_id()
    await alice.call("SitDown", sit_down(table_id, 1))
    request = table_service_pb2.TopUpRequest(name=name(table_id), amount=1_000, request_id=request_id)
    first = await alice.call("TopUp", request)
    assert first.view.seats[0].stack == 6_000
    await alice.call("TopUp", table_service_pb2.TopUpRequest(name=name(table_id), amount=500))
    await assert_retry_is_the_first_reply(service, alice, "TopUp", request, first, table_id)
    assert (await alice.view(table_id)).seats[0].stack == 6_500  # topped up twice, not three times
    other = table_service_pb2.TopUpRequest(name=name(table_id), amount=2_000, request_id=request_id)
    await assert_reuse_refused(service, alice, "TopUp", other, table_id)


@pytest.mark.parametrize("method", ["Leave", "SitOut", "SitIn"])
async def test_seat_change_retry(service, caller, new_table, method):
    """Leave, SitOut and SitIn carry nothing but the table and the id: within one table's scope a
    different request with the same id cannot be written, so only the retry is tested here (and the
    same id on another method or table is a new request, below)."""
    table_id, alice = await new_table(), caller("alice")
    await alice.call("SitDown", sit_down(table_id, 1))
    if method == "SitIn":
        await alice.call("SitOut", seat_change("SitOut", table_id, ""))
    request = seat_change(method, table_id, new_id())
    first = await alice.call(method, request)
    await caller("bob").call("SitDown", sit_down(table_id, 2))
    if method == "Leave":
        await alice.call("SitDown", sit_down(table_id, 1))  # back: the retry must not leave again
    elif method == "SitOut":
        await alice.call("SitIn", seat_change("SitIn", table_id, ""))
    else:
        await alice.call("SitOut", seat_change("SitOut", table_id, ""))
    await assert_retry_is_the_first_reply(service, alice, method, request, first, table_id)
    assert "bob" not in {seat.player_id for seat in first.view.seats}  # as of then


async def test_act_retry_and_reuse(service, caller, new_table):
    table_id, players = await hand_dealt(service, caller, new_table)
    acting, view = await turn(players, table_id)
    request_id = new_id()
    request = passive_act(table_id, view, request_id)
    first = await acting.call("Act", request)
    assert first.view.version > view.version
    other_player, other_view = await turn(players, table_id)
    assert other_player is not acting
    await other_player.call("Act", passive_act(table_id, other_view, ""))
    await assert_retry_is_the_first_reply(service, acting, "Act", request, first, table_id)
    folding = act(table_id, view, table_pb2.ACTION_TYPE_FOLD, 0, request_id)
    await assert_reuse_refused(service, acting, "Act", folding, table_id)


async def test_set_client_seed_retry_and_reuse(service, caller, new_table):
    table_id, alice, request_id = await new_table(), caller("alice"), new_id()
    await alice.call("SitDown", sit_down(table_id, 1))
    request = audit_service_pb2.SetClientSeedRequest(name=name(table_id), seed="lucky", request_id=request_id)
    first = await alice.call("SetClientSeed", request)
    await caller("bob").call("SitDown", sit_down(table_id, 2))
    await assert_retry_is_the_first_reply(service, alice, "SetClientSeed", request, first, table_id)
    assert first.version < await head(service, table_id)
    other = audit_service_pb2.SetClientSeedRequest(name=name(table_id), seed="luckier", request_id=request_id)
    await assert_reuse_refused(service, alice, "SetClientSeed", other, table_id)


# -- the hijacks: another caller's, or another method's, use of an id is a new request --------------


async def test_another_players_use_of_my_next_id_does_not_swallow_my_action(service, caller, new_table):
    table_id, players = await hand_dealt(service, caller, new_table)
    acting, view = await turn(players, table_id)
    (other,) = [player for player in players.values() if player is not acting]
    victims_next_id = new_id()
    seed = audit_service_pb2.SetClientSeedRequest(
        name=name(table_id), seed="mine", request_id=victims_next_id
    )
    await other.call("SetClientSeed", seed)
    view = await acting.view(table_id)  # the seed moved the table on
    before = await head(service, table_id)
    answer = await acting.call("Act", passive_act(table_id, view, victims_next_id))
    assert answer.view.version > before
    recorded = await service.store.read_stream(stream_id_for(table_id), after_version=before)
    assert recorded[0].type == "PlayerActed" and recorded[0].payload["seat"] == view.viewer_seat


async def test_a_top_up_reusing_my_sit_downs_id_is_a_new_request(service, caller, new_table):
    table_id, alice, request_id = await new_table(), caller("alice"), new_id()
    await alice.call("SitDown", sit_down(table_id, 1, 5_000, request_id))
    before = await head(service, table_id)
    topped = await alice.call(
        "TopUp", table_service_pb2.TopUpRequest(name=name(table_id), amount=1_000, request_id=request_id)
    )
    assert topped.view.seats[0].stack == 6_000
    assert await head(service, table_id) == before + 1


async def test_a_sit_down_reusing_another_players_id_seats_me(service, caller, new_table):
    table_id, request_id = await new_table(), new_id()
    await caller("alice").call("SitDown", sit_down(table_id, 1, 5_000, request_id))
    seated = await caller("bob").call("SitDown", sit_down(table_id, 2, 5_000, request_id))
    assert seated.view.viewer_seat == 2
    assert [seat.player_id for seat in seated.view.seats] == ["alice", "bob"]


@pytest.mark.parametrize("method", ["Leave", "SitOut", "SitIn"])
async def test_the_same_id_on_another_method_or_table_is_a_new_request(service, caller, new_table, method):
    table_id, elsewhere, alice, request_id = await new_table(), await new_table(), caller("alice"), new_id()
    for table in (table_id, elsewhere):
        await alice.call("SitDown", sit_down(table, 1, 5_000, request_id))
        if method == "SitIn":
            await alice.call("SitOut", seat_change("SitOut", table, ""))
    before = await head(service, table_id)
    await alice.call(method, seat_change(method, table_id, request_id))
    assert await head(service, table_id) == before + 1
    before = await head(service, elsewhere)
    await alice.call(method, seat_change(method, elsewhere, request_id))
    assert await head(service, elsewhere) == before + 1


async def test_an_empty_request_id_makes_every_call_new(service, caller, new_table):
    table_id, alice = await new_table(), caller("alice")
    await alice.call("SitDown", sit_down(table_id, 1))
    top_up = table_service_pb2.TopUpRequest(name=name(table_id), amount=1_000)
    await alice.call("TopUp", top_up)
    again = await alice.call("TopUp", top_up)
    assert again.view.seats[0].stack == 7_000


# -- helpers for a hand ---------------------------------------------------------------------------


async def hand_dealt(
    service: ServiceUnderTest, caller: Callable[..., Caller], new_table: Callable[[], Awaitable[str]]
) -> tuple[str, dict[str, Caller]]:
    """A new table with alice and bob seated and a hand dealt: (table id, their callers)."""
    table_id = await new_table()
    players = {"alice": caller("alice"), "bob": caller("bob")}
    for seat, player in enumerate(players.values(), start=1):
        await player.call("SitDown", sit_down(table_id, seat))
    await deal(service, table_id)
    return table_id, players


def act(table_id: str, view: table_pb2.TableView, action: int, amount: int, request_id: str) -> Any:
    return table_service_pb2.ActRequest(
        name=name(table_id),
        seat=view.viewer_seat,
        action=action,
        amount=amount,
        turn=view.turn,
        request_id=request_id,
    )


def passive_act(table_id: str, view: table_pb2.TableView, request_id: str) -> Any:
    """The bring-in, check or call open to the viewer: an action that never ends a hand."""
    choice = next(action for action in view.legal_actions if action.type in PASSIVE)
    return act(table_id, view, choice.type, choice.amount, request_id)


async def turn(players: dict[str, Caller], table_id: str) -> tuple[Caller, table_pb2.TableView]:
    """Whose turn it is, and their view (the dealer is off: nothing moves unless a test acts)."""
    for player in players.values():
        view = await player.view(table_id)
        if view.legal_actions:
            return player, view
    raise AssertionError("nobody is to act")


async def test_an_id_recorded_without_a_fingerprint_is_answered_as_a_retry(service, caller, new_table):
    """Rows the previous release wrote during a rollout carry no fingerprint: a later call with the
    id cannot be told from a retry, so it is answered as one (never refused, never appended twice)."""
    table_id, alice, request_id = await new_table(), caller("alice"), new_id()
    first = await alice.call("SitDown", sit_down(table_id, 2, 5_000, request_id))
    async with service.store.pool.connection() as conn:
        await conn.execute(
            "UPDATE events SET request_fingerprint = NULL WHERE stream_id = %s", (stream_id_for(table_id),)
        )
    before = await head(service, table_id)
    assert await alice.call("SitDown", sit_down(table_id, 4, 6_000, request_id)) == first
    assert await head(service, table_id) == before
