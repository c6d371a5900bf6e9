"""Per-turn click tokens over a real gRPC server and PostgreSQL: ``ActRequest.turn`` is the
``TableView.turn`` the player decided in, and a click is stale only when that turn is over.

Both ways of the race: another player's SitOut, SetClientSeed, SitDown or TopUp between the view and the
click moves the table's version but not its turn, so the click applies; a click for a turn that is over
(the player acted, was timed out, or has a later turn now) is FAILED_PRECONDITION / STALE_TURN with the
current turn in ErrorInfo metadata, and appends nothing; a retry of a click that succeeded is still
answered as a retry after its turn is over.

The server deals only when a test says so (no dealer), so every version is the test's own doing.
"""

from __future__ import annotations

import asyncio
import uuid
from typing import Any

import grpc
import pytest
import test_grpc_request_ids as request_ids
from grpc_fixtures import table_spec
from test_grpc_request_ids import (
    Caller,
    act,
    deal,
    hand_dealt,
    head,
    name,
    new_id,
    passive_act,
    seat_change,
    sit_down,
    turn,
)

from stud_service.auth import Role
from stud_service.server.api.errors import error_info
from stud_service.server.proto_gen import audit_service_pb2, table_pb2, table_service_pb2

# That module's server (no dealer, 30 s clocks), callers and tables, for this module too.
service, caller, new_table = request_ids.service, request_ids.caller, request_ids.new_table


async def refused_stale(client: Caller, request: Any, reason: str = "STALE_TURN") -> dict[str, str]:
    """``request`` (an ActRequest) is refused FAILED_PRECONDITION / ``reason``: the ErrorInfo metadata."""
    with pytest.raises(grpc.aio.AioRpcError) as caught:
        await client.call("Act", request)
    info = error_info(caught.value)
    assert (caught.value.code(), info.reason if info else None) == (
        grpc.StatusCode.FAILED_PRECONDITION, reason
    ), caught.value.details()
    return dict(info.metadata)


async def others_call(method: str, table_id: str, other: Caller, newcomer: Caller) -> None:
    """``method`` called by a player who is not to act: one in the hand, or one seated after the deal."""
    if method == "SitOut":
        await other.call("SitOut", seat_change("SitOut", table_id, new_id()))
    elif method == "SetClientSeed":
        seed = audit_service_pb2.SetClientSeedRequest(
            name=name(table_id), seed="ab" * 16, request_id=new_id()
        )
        await other.call("SetClientSeed", seed)
    else:
        await newcomer.call("SitDown", sit_down(table_id, 3, 5_000, new_id()))
        if method == "TopUp":
            top_up = table_service_pb2.TopUpRequest(name=name(table_id), amount=1_000, request_id=new_id())
            await newcomer.call("TopUp", top_up)


@pytest.mark.parametrize("method", ["SitOut", "SetClientSeed", "SitDown", "TopUp"])
async def test_another_players_call_between_view_and_click_leaves_the_click_valid(
    service, caller, new_table, method
):
    table_id, players = await hand_dealt(service, caller, new_table)
    acting, view = await turn(players, table_id)
    other = next(player for player in players.values() if player is not acting)
    await others_call(method, table_id, other, caller("carol"))
    moved_to = await head(service, table_id)
    assert moved_to > view.version  # the whole table's version moved on ...
    assert (await acting.view(table_id)).turn == view.turn  # ... its turn did not

    reply = await acting.call("Act", passive_act(table_id, view, new_id()))
    assert await head(service, table_id) == moved_to + 1
    assert reply.view.turn != view.turn


async def test_a_click_for_the_players_earlier_turn_is_stale_and_a_retry_still_answered(
    service, caller, new_table
):
    table_id, players = await hand_dealt(service, caller, new_table)
    acting, first_view = await turn(players, table_id)
    first_click = passive_act(table_id, first_view, new_id())
    first = await acting.call("Act", first_click)
    # Play on until the same player is to act again: a later turn (on this street or the next).
    player, view = await turn(players, table_id)
    while player is not acting:
        await player.call("Act", passive_act(table_id, view, ""))
        player, view = await turn(players, table_id)
    assert view.turn > first_view.turn

    before = await head(service, table_id)
    stale = act(table_id, first_view, table_pb2.ACTION_TYPE_FOLD, 0, new_id())
    metadata = await refused_stale(acting, stale)
    assert metadata == {"turn": str(view.turn), "version": str(before)}
    assert await head(service, table_id) == before

    retried = await acting.call("Act", first_click)  # its turn is over, but it is a retry
    for reply in (retried, first):
        reply.view.ClearField("round_trip")  # the latency meter's measure is the connection's, current
    assert retried == first
    assert await head(service, table_id) == before
    await acting.call("Act", passive_act(table_id, view, new_id()))  # the current turn's click applies
    assert await head(service, table_id) > before


async def test_a_click_after_the_player_was_timed_out_is_stale(service, caller):
    table_id = f"t-{uuid.uuid4().hex[:12]}"
    create = table_service_pb2.CreateTableRequest(table=table_spec(action_clock=1), table_id=table_id)
    await caller("house", Role.OPERATOR).call("CreateTable", create)
    players = {"alice": caller("alice"), "bob": caller("bob")}
    for seat, player in enumerate(players.values(), start=1):
        await player.call("SitDown", sit_down(table_id, seat))
    await deal(service, table_id)
    acting, view = await turn(players, table_id)

    # The clock posts the bring-in for the player, then folds the other one: the hand is over.
    for _ in range(600):
        now = await acting.view(table_id)
        if now.turn == 0:
            break
        await asyncio.sleep(0.05)
    assert now.turn == 0 and now.hand.complete
    timed_out = next(seat for seat in now.seats if seat.seat == view.viewer_seat)
    assert timed_out.sitting_out and timed_out.sit_out_reason == table_pb2.SIT_OUT_REASON_TIMED_OUT

    before = await head(service, table_id)
    metadata = await refused_stale(acting, passive_act(table_id, view, new_id()))
    assert metadata == {"turn": "0", "version": str(before)}
    assert await head(service, table_id) == before


async def test_a_click_by_a_player_not_to_act_is_not_your_turn_with_the_turn_and_version(
    service, caller, new_table
):
    """NOT_YOUR_TURN is handled as STALE_TURN is (decide again on the newest view), so it says where the
    table is in the same metadata."""
    table_id, players = await hand_dealt(service, caller, new_table)
    acting, view = await turn(players, table_id)
    other = next(player for player in players.values() if player is not acting)
    other_view = await other.view(table_id)
    assert other_view.turn == view.turn and not other_view.legal_actions
    before = await head(service, table_id)
    click = act(table_id, other_view, table_pb2.ACTION_TYPE_FOLD, 0, new_id())
    metadata = await refused_stale(other, click, "NOT_YOUR_TURN")
    assert metadata == {"turn": str(view.turn), "version": str(before)}
    assert await head(service, table_id) == before


async def test_a_click_without_a_turn_is_malformed(service, caller, new_table):
    table_id, players = await hand_dealt(service, caller, new_table)
    acting, view = await turn(players, table_id)
    click = passive_act(table_id, view, new_id())
    click.turn = 0
    with pytest.raises(grpc.aio.AioRpcError) as caught:
        await acting.call("Act", click)
    info = error_info(caught.value)
    assert caught.value.code() == grpc.StatusCode.INVALID_ARGUMENT
    assert info is not None and (info.reason, dict(info.metadata)) == ("MALFORMED_REQUEST", {"field": "turn"})
