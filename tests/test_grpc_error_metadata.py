"""The ErrorInfo metadata stud.v1.ErrorReason documents arrives from a real server: numbers a client can use
without parsing the message (the legal amounts, the buy-in bounds), and the field at fault."""

from __future__ import annotations

import grpc
import pytest
from grpc_fixtures import TOKEN_SECRET, wait_for_turn

from stud_service.auth import Role, mint_token
from stud_service.server.api.errors import error_info
from stud_service.server.proto_gen import audit_service_pb2, audit_service_pb2_grpc, table_pb2


async def refusal(call) -> tuple[grpc.StatusCode, str, dict[str, str]]:
    with pytest.raises(grpc.aio.AioRpcError) as caught:
        await call
    info = error_info(caught.value)
    assert info is not None and info.domain == "stud-service", caught.value.details()
    return caught.value.code(), info.reason, dict(info.metadata)


async def test_an_illegal_amount_names_the_legal_amounts(new_table, make_player) -> None:
    table_id = await new_table()  # bring-in 100, small bet 200
    alice, bob = make_player("alice"), make_player("bob")
    await alice.sit_down(table_id, 1, 10_000)
    await bob.sit_down(table_id, 2, 10_000)
    acting, view = await wait_for_turn([alice, bob], table_id)
    bring_in = next(a for a in view.legal_actions if a.type == table_pb2.ACTION_TYPE_BRING_IN)
    assert bring_in.amount == 100
    code, reason, metadata = await refusal(
        acting.act(table_id, view.viewer_seat, table_pb2.ACTION_TYPE_BRING_IN, 107, view.turn)
    )
    assert (code, reason) == (grpc.StatusCode.INVALID_ARGUMENT, "ILLEGAL_AMOUNT")
    assert metadata == {"amounts": "100", "min": "100", "max": "100"}


@pytest.mark.parametrize("buy_in", [1_999, 40_001])
async def test_a_buy_in_out_of_limits_names_the_limits(new_table, make_player, buy_in: int) -> None:
    table_id = await new_table()  # buy-ins 2,000..40,000
    code, reason, metadata = await refusal(make_player("alice").sit_down(table_id, 1, buy_in))
    assert (code, reason) == (grpc.StatusCode.INVALID_ARGUMENT, "BUY_IN_OUT_OF_LIMITS")
    assert metadata == {"min": "2000", "max": "40000"}


async def test_a_top_up_beyond_the_maximum_names_what_is_left(new_table, make_player) -> None:
    table_id = await new_table()
    alice = make_player("alice")
    await alice.sit_down(table_id, 1, 30_000)
    code, reason, metadata = await refusal(alice.top_up(table_id, 10_001))
    assert (code, reason) == (grpc.StatusCode.INVALID_ARGUMENT, "BUY_IN_OUT_OF_LIMITS")
    assert metadata == {"min": "1", "max": "10000"}


async def test_a_seat_out_of_range_names_the_seats(new_table, make_player) -> None:
    table_id = await new_table()
    code, reason, metadata = await refusal(make_player("alice").sit_down(table_id, 9, 5_000))
    assert (code, reason) == (grpc.StatusCode.INVALID_ARGUMENT, "INVALID_SEAT")
    assert metadata["min"] == "1" and int(metadata["max"]) >= 2


@pytest.mark.parametrize("seed", ["", "x" * 65])
async def test_a_bad_client_seed_is_malformed_with_its_field(
    new_table, make_player, grpc_service, seed: str
) -> None:
    """It was INVALID_ARGUMENT with the reason "INVALID_ARGUMENT": a code, not a reason."""
    table_id = await new_table()
    await make_player("alice").sit_down(table_id, 1, 5_000)
    stub = audit_service_pb2_grpc.AuditServiceStub(grpc_service.channel)
    token = mint_token(TOKEN_SECRET, "alice", Role.PLAYER)
    code, reason, metadata = await refusal(stub.SetClientSeed(
        audit_service_pb2.SetClientSeedRequest(name=f"tables/{table_id}", seed=seed),
        metadata=(("authorization", f"Bearer {token}"),),
    ))
    assert (code, reason) == (grpc.StatusCode.INVALID_ARGUMENT, "MALFORMED_REQUEST")
    assert metadata == {"field": "seed"}
