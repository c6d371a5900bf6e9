"""Every illegal request gets the right canonical code and ErrorInfo reason, and appends nothing.

(Issue: "out of turn, wrong amount, unknown table, seat taken, buy-in out of range, stale version,
malformed request, missing or forged token, another player's seat" and operator-only methods.)
Over the gRPC port and over the web port in each of its protocols and codecs.
"""

from __future__ import annotations

import grpc
import pytest
from grpc_fixtures import ALL_TRANSPORTS, CREATED_VERSION, TOKEN_SECRET, table_spec, wait_for_turn

from stud_service.auth import Role, mint_token
from stud_service.bots import error_reason
from stud_service.server.proto_gen import table_pb2, table_service_pb2
from stud_service.server.tables.live import stream_id_for

FOLD, CALL, BET = table_pb2.ACTION_TYPE_FOLD, table_pb2.ACTION_TYPE_CALL, table_pb2.ACTION_TYPE_BET

pytestmark = pytest.mark.parametrize("transport", ALL_TRANSPORTS)


async def refused(call, code: grpc.StatusCode, reason: str) -> None:
    with pytest.raises(grpc.aio.AioRpcError) as caught:
        await call
    assert (caught.value.code(), error_reason(caught.value)) == (code, reason), caught.value.details()


@pytest.fixture
async def hand_in_play(grpc_service, new_table, make_player):
    """A table with alice (seat 1) and bob (seat 2) in a running hand: (table_id, to_act, other, view)."""
    table_id = await new_table()
    alice, bob = make_player("alice"), make_player("bob")
    await alice.sit_down(table_id, 1, 10_000)
    await bob.sit_down(table_id, 2, 10_000)
    acting, view = await wait_for_turn([alice, bob], table_id)
    other = bob if acting is alice else alice
    return table_id, acting, other, view


async def head(grpc_service, table_id: str) -> int:
    return await grpc_service.store.head(stream_id_for(table_id))


async def test_acting_out_of_turn_is_not_your_turn(grpc_service, hand_in_play) -> None:
    """RULES.md §3/§4: only the seat to act may act."""
    table_id, acting, other, view = hand_in_play
    other_seat = 2 if view.viewer_seat == 1 else 1
    before = await head(grpc_service, table_id)
    await refused(
        other.act(table_id, other_seat, FOLD, 0, view.turn),
        grpc.StatusCode.FAILED_PRECONDITION,
        "NOT_YOUR_TURN",
    )
    assert await head(grpc_service, table_id) == before


async def test_a_wrong_amount_is_illegal_amount(grpc_service, hand_in_play) -> None:
    """RULES.md §3: the bring-in player posts exactly the bring-in or completes to the small bet."""
    table_id, acting, _other, view = hand_in_play
    bring_in = next(a for a in view.legal_actions if a.type == table_pb2.ACTION_TYPE_BRING_IN)
    before = await head(grpc_service, table_id)
    await refused(
        acting.act(
            table_id, view.viewer_seat, table_pb2.ACTION_TYPE_BRING_IN, bring_in.amount + 7, view.turn
        ),
        grpc.StatusCode.INVALID_ARGUMENT,
        "ILLEGAL_AMOUNT",
    )
    assert await head(grpc_service, table_id) == before


async def test_an_action_the_rules_do_not_offer_is_refused(grpc_service, hand_in_play) -> None:
    """RULES.md §3: the bring-in player may not fold before posting."""
    table_id, acting, _other, view = hand_in_play
    before = await head(grpc_service, table_id)
    with pytest.raises(grpc.aio.AioRpcError) as caught:
        await acting.act(table_id, view.viewer_seat, FOLD, 0, view.turn)
    assert caught.value.code() == grpc.StatusCode.FAILED_PRECONDITION
    assert error_reason(caught.value) == "ACTION_NOT_AVAILABLE"
    assert await head(grpc_service, table_id) == before


async def test_a_click_for_another_turn_is_refused(grpc_service, hand_in_play) -> None:
    table_id, acting, _other, view = hand_in_play
    bring_in = next(a for a in view.legal_actions if a.type == table_pb2.ACTION_TYPE_BRING_IN)
    before = await head(grpc_service, table_id)
    await refused(
        acting.act(table_id, view.viewer_seat, bring_in.type, bring_in.amount, view.turn + 1),
        grpc.StatusCode.FAILED_PRECONDITION,
        "STALE_TURN",
    )
    assert await head(grpc_service, table_id) == before


async def test_acting_for_another_players_seat_is_permission_denied(grpc_service, hand_in_play) -> None:
    table_id, acting, other, view = hand_in_play
    bring_in = next(a for a in view.legal_actions if a.type == table_pb2.ACTION_TYPE_BRING_IN)
    before = await head(grpc_service, table_id)
    await refused(
        other.act(table_id, view.viewer_seat, bring_in.type, bring_in.amount, view.turn),
        grpc.StatusCode.PERMISSION_DENIED,
        "NOT_YOUR_SEAT",
    )
    assert await head(grpc_service, table_id) == before


async def test_an_unknown_table_is_not_found(make_player) -> None:
    alice = make_player("alice")
    await refused(alice.view("no-such-table"), grpc.StatusCode.NOT_FOUND, "NO_TABLE")
    await refused(alice.sit_down("no-such-table", 1, 5_000), grpc.StatusCode.NOT_FOUND, "NO_TABLE")


async def test_a_taken_seat_is_refused(grpc_service, new_table, make_player) -> None:
    table_id = await new_table()
    await make_player("alice").sit_down(table_id, 3, 5_000)
    before = await head(grpc_service, table_id)
    await refused(
        make_player("bob").sit_down(table_id, 3, 5_000), grpc.StatusCode.FAILED_PRECONDITION, "SEAT_TAKEN"
    )
    assert await head(grpc_service, table_id) == before


@pytest.mark.parametrize("buy_in", [1_999, 40_001])
async def test_a_buy_in_out_of_range_is_refused(grpc_service, new_table, make_player, buy_in: int) -> None:
    table_id = await new_table()  # buy-ins 2,000..40,000
    await refused(
        make_player("alice").sit_down(table_id, 1, buy_in),
        grpc.StatusCode.INVALID_ARGUMENT,
        "BUY_IN_OUT_OF_LIMITS",
    )
    assert await head(grpc_service, table_id) == CREATED_VERSION


async def test_malformed_requests_are_invalid_argument(grpc_service, new_table, make_player) -> None:
    table_id = await new_table()
    alice = make_player("alice")
    stub, metadata = alice.stub, alice.metadata
    bad_calls = [
        stub.GetTableView(table_service_pb2.GetTableViewRequest(name="tables/Bad Name!"), metadata=metadata),
        stub.GetTable(table_service_pb2.GetTableRequest(name=table_id), metadata=metadata),
        stub.Act(
            table_service_pb2.ActRequest(
                name=f"tables/{table_id}",
                seat=1,
                turn=1,
                action=table_pb2.ACTION_TYPE_UNSPECIFIED,
            ),
            metadata=metadata,
        ),
        stub.Act(
            table_service_pb2.ActRequest(name=f"tables/{table_id}", seat=1, action=CALL), metadata=metadata
        ),
        stub.Act(
            table_service_pb2.ActRequest(name=f"tables/{table_id}", seat=1, action=BET, turn=1),
            metadata=metadata,
        ),
        stub.SitDown(
            table_service_pb2.SitDownRequest(
                name=f"tables/{table_id}", seat=1, buy_in=5000, request_id="has spaces"
            ),
            metadata=metadata,
        ),
        stub.ListTables(table_service_pb2.ListTablesRequest(page_token="not-a-token"), metadata=metadata),
    ]
    for call in bad_calls:
        await refused(call, grpc.StatusCode.INVALID_ARGUMENT, "MALFORMED_REQUEST")
    assert await head(grpc_service, table_id) == CREATED_VERSION


async def test_no_token_is_unauthenticated(grpc_service, new_table, transport) -> None:
    table_id = await new_table()
    anonymous = grpc_service.client(None, transport=transport)
    await refused(anonymous.view(table_id), grpc.StatusCode.UNAUTHENTICATED, "TOKEN_MISSING")
    await refused(anonymous.sit_down(table_id, 1, 5_000), grpc.StatusCode.UNAUTHENTICATED, "TOKEN_MISSING")
    assert await head(grpc_service, table_id) == CREATED_VERSION


async def test_a_forged_token_is_unauthenticated(grpc_service, new_table, transport) -> None:
    table_id = await new_table()
    forged = grpc_service.connect(mint_token("x" * 40, "alice", Role.OPERATOR), transport)
    await refused(forged.sit_down(table_id, 1, 5_000), grpc.StatusCode.UNAUTHENTICATED, "TOKEN_INVALID")
    await refused(
        forged.create_table("forged", table_spec()), grpc.StatusCode.UNAUTHENTICATED, "TOKEN_INVALID"
    )
    assert await head(grpc_service, table_id) == CREATED_VERSION


async def test_an_expired_token_is_unauthenticated(grpc_service, new_table, transport) -> None:
    table_id = await new_table()
    expired = grpc_service.connect(mint_token(TOKEN_SECRET, "alice", ttl_seconds=-60), transport)
    await refused(expired.view(table_id), grpc.StatusCode.UNAUTHENTICATED, "TOKEN_EXPIRED")


async def test_creating_a_table_as_a_player_is_permission_denied(grpc_service, make_player, table_id) -> None:
    await refused(
        make_player("alice").create_table(table_id, table_spec()),
        grpc.StatusCode.PERMISSION_DENIED,
        "OPERATOR_ONLY",
    )
    assert await head(grpc_service, table_id) == 0


async def test_an_auditor_cannot_sit_down(grpc_service, new_table, transport) -> None:
    table_id = await new_table()
    auditor = grpc_service.client("audit", Role.AUDITOR, transport)
    await refused(
        auditor.sit_down(table_id, 1, 5_000), grpc.StatusCode.PERMISSION_DENIED, "AUDITOR_READ_ONLY"
    )
    assert await head(grpc_service, table_id) == CREATED_VERSION


async def test_creating_an_existing_table_is_already_exists(operator, table_id) -> None:
    await operator.create_table(table_id, table_spec())
    await refused(
        operator.create_table(table_id, table_spec()), grpc.StatusCode.ALREADY_EXISTS, "TABLE_EXISTS"
    )


async def test_an_invalid_table_config_is_invalid_argument(grpc_service, operator, table_id) -> None:
    """RULES.md §1: 0 < bring-in < small bet."""
    spec = table_spec()
    spec.stakes.bring_in = spec.stakes.small_bet + 1
    await refused(operator.create_table(table_id, spec), grpc.StatusCode.INVALID_ARGUMENT, "INVALID_CONFIG")
    assert await head(grpc_service, table_id) == 0
