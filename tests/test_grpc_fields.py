"""Fields a client reads, as the protos document them, over a real server and PostgreSQL:
``Table.create_time``, ``HandPlayer.starting_stack`` in ListHands, ``Award.pot_half`` of a showdown,
``SeatView.sit_out_reason``, and refusal messages that name only what a client can see.
"""

from __future__ import annotations

import re

import grpc
import pytest
from grpc_fixtures import TOKEN_SECRET, table_spec, wait_for_turn
from test_audit_grpc import play_out

from stud_service.auth import Role, mint_token
from stud_service.server.api.errors import error_info
from stud_service.server.proto_gen import audit_service_pb2, audit_service_pb2_grpc, table_pb2
from stud_service.server.tables.live import stream_id_for

FOLD = table_pb2.ACTION_TYPE_FOLD


def metadata_for(player: str) -> list[tuple[str, str]]:
    return [("authorization", f"Bearer {mint_token(TOKEN_SECRET, player, Role.PLAYER)}")]


async def test_a_table_has_the_time_it_was_created(grpc_service, operator, make_player, table_id):
    created = await operator.create_table(table_id, table_spec())
    first, _commitment = await grpc_service.store.read_stream(stream_id_for(table_id))
    assert first.payload["type"] == "TableCreated"
    assert created.create_time.ToMilliseconds() == first.payload["at_ms"]
    assert (await operator.get_table(table_id)).create_time == created.create_time
    assert (await make_player("alice").view(table_id)).table.create_time == created.create_time


async def test_list_hands_gives_each_players_starting_stack(grpc_service, new_table):
    table_id = await new_table()
    buy_ins = {"alice": 10_000, "bob": 7_000}
    players = [grpc_service.client(player, Role.PLAYER) for player in buy_ins]
    for seat, (player, buy_in) in enumerate(zip(players, buy_ins.values(), strict=True), start=1):
        await player.sit_down(table_id, seat, buy_in)
    await play_out(players, table_id, 1)  # GetHand shows a player finished hands only
    audit = audit_service_pb2_grpc.AuditServiceStub(grpc_service.channel)
    listed = await audit.ListHands(
        audit_service_pb2.ListHandsRequest(parent=f"tables/{table_id}"), metadata=metadata_for("alice")
    )
    summary = listed.hands[0]
    assert summary.hand_number == 1
    hand = await audit.GetHand(
        audit_service_pb2.GetHandRequest(name=summary.name), metadata=metadata_for("alice")
    )
    assert {p.player_id: p.starting_stack for p in summary.players} == buy_ins
    assert {p.player_id: p.starting_stack for p in hand.summary.players} == buy_ins


async def test_a_stud_showdown_awards_the_whole_pot(new_table, make_player):
    """HandEnded says "high" for a Seven Card Stud pot; only a split Hi-Lo pot has halves."""
    table_id = await new_table()
    players = [make_player("alice"), make_player("bob")]
    for seat, player in enumerate(players, start=1):
        await player.sit_down(table_id, seat, 10_000)
    view = await play_out(players, table_id, 1)
    assert view.hand.awards
    assert {award.pot_half for award in view.hand.awards} == {table_pb2.POT_HALF_WHOLE}


async def test_a_seat_sitting_out_on_request_says_so_and_sitting_in_clears_it(new_table, make_player):
    table_id = await new_table()
    alice = make_player("alice")
    await alice.sit_down(table_id, 1, 10_000)
    (seat,) = (await alice.sit_out(table_id)).seats
    assert seat.sitting_out and seat.sit_out_reason == table_pb2.SIT_OUT_REASON_REQUESTED
    (seat,) = (await alice.sit_in(table_id)).seats
    assert not seat.sitting_out and seat.sit_out_reason == table_pb2.SIT_OUT_REASON_UNSPECIFIED


def table_field_paths() -> set[str]:
    """Every field a client sets in a Table, stakes' fields as ``stakes.<field>``."""
    paths = {field.name for field in table_pb2.Table.DESCRIPTOR.fields}
    return paths | {f"stakes.{field.name}" for field in table_pb2.Stakes.DESCRIPTOR.fields}


@pytest.mark.parametrize(
    "fields",
    [
        {"stakes.bring_in": 200},  # a full bring-in (small bet 200)
        {"stakes.big_bet": 100},
        {"stakes.ante": -1},
        {"min_buy_in": 5_000, "max_buy_in": 4_000},
        {"max_seats": 9},
    ],
)
async def test_every_invalid_config_message_names_table_fields(operator, table_id, fields):
    spec = table_spec()
    for path, value in fields.items():
        *parents, field = path.split(".")
        setattr(spec.stakes if parents else spec, field, value)
    with pytest.raises(grpc.aio.AioRpcError) as caught:
        await operator.create_table(table_id, spec)
    info = error_info(caught.value)
    assert info is not None and info.reason == "INVALID_CONFIG"
    message = caught.value.details()
    named = set(re.findall(r"[a-z]+(?:[._][a-z]+)+", message))  # identifiers: with a _ or a .
    assert named, message
    assert {name.removeprefix("table.") for name in named} <= table_field_paths(), message
    assert info.metadata["field"].removeprefix("table.") in table_field_paths()


async def test_not_your_turn_quotes_the_player_once(new_table, make_player):
    table_id = await new_table()
    players = [make_player("alice"), make_player("bob")]
    for seat, player in enumerate(players, start=1):
        await player.sit_down(table_id, seat, 10_000)
    acting, view = await wait_for_turn(players, table_id)
    other = players[1] if acting is players[0] else players[0]
    other_name = "bob" if other is players[1] else "alice"
    with pytest.raises(grpc.aio.AioRpcError) as caught:
        await other.act(table_id, 3 - view.viewer_seat, FOLD, 0, view.turn)
    expected = f"player '{other_name}' is not the one to act: seat {view.viewer_seat} is"
    assert caught.value.details() == expected
