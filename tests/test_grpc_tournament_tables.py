"""A tournament's table through TableService, on a real server: the table says whose it is and at which level,
and its seats are the tournament's to fill and empty (SitDown, Leave, TopUp and the waiting list are refused
TOURNAMENT_TABLE, changing nothing), while a seated player sits out and in as at any table."""

from __future__ import annotations

import uuid

import grpc
import pytest

from stud_service.bots import error_reason
from stud_service.engine import CreateTable, SitDown
from stud_service.server.proto_gen import table_service_pb2
from stud_service.server.tables.live import now_ms
from stud_service.tournaments import Level, TournamentConfig, table_config

CONFIG = TournamentConfig(name="Spring", levels=(Level(5, 10, 20, 40, 10),), starting_stack=1_000,
                          max_entrants=6, seats_per_table=6)


async def tournament_table(grpc_service) -> str:
    """A tournament's first table with "ann" seated by the tournament (one player: no hand is dealt)."""
    tournament_id = f"tt-{uuid.uuid4().hex[:10]}"
    table_id = f"{tournament_id}-t1"
    runtime = grpc_service.runtime
    config = table_config(CONFIG, tournament_id, table_id)
    await runtime.create(table_id, CreateTable(table_id, config, now_ms()), None)
    await runtime.execute(table_id, lambda state, now: SitDown("ann", 3, 1_000, now_ms=now))
    return table_id


async def test_a_tournament_table_names_its_tournament_and_level(grpc_service, make_player) -> None:
    table_id = await tournament_table(grpc_service)
    table = await make_player("bob").get_table(table_id)
    assert table.tournament.tournament == f"tournaments/{table_id.removesuffix('-t1')}"
    assert table.tournament.level == 1 and table.stakes.small_bet == 20
    assert table.display_name == "Spring table 1"
    view = await make_player("ann").view(table_id)
    assert view.table.tournament == table.tournament and view.viewer_seat == 3


@pytest.mark.parametrize("call", ["sit_down", "leave", "top_up", "join_waiting_list", "leave_waiting_list"])
async def test_the_tournament_seats_and_moves_its_players_not_the_players(grpc_service, make_player,
                                                                          call: str) -> None:
    table_id = await tournament_table(grpc_service)
    ann, bob = make_player("ann"), make_player("bob")
    before = (await ann.view(table_id)).version
    calls = {
        "sit_down": lambda: bob.sit_down(table_id, 1, 10**9),
        "leave": lambda: ann.leave(table_id),
        "top_up": lambda: ann.top_up(table_id, 500),
        "join_waiting_list": lambda: bob.join_waiting_list(table_id),
        "leave_waiting_list": lambda: bob.leave_waiting_list(table_id),
    }
    with pytest.raises(grpc.aio.AioRpcError) as refused:
        await calls[call]()
    assert (refused.value.code(), error_reason(refused.value)) == (
        grpc.StatusCode.FAILED_PRECONDITION, "TOURNAMENT_TABLE")
    view = await ann.view(table_id)
    assert view.version == before  # nothing was appended
    assert [(seat.seat, seat.player_id, seat.stack) for seat in view.seats] == [(3, "ann", 1_000)]


async def test_a_seated_player_sits_out_and_in_at_a_tournament_table(grpc_service, make_player) -> None:
    table_id = await tournament_table(grpc_service)
    ann = make_player("ann")
    assert (await ann.sit_out(table_id)).seats[0].sitting_out
    assert not (await ann.sit_in(table_id)).seats[0].sitting_out
    with pytest.raises(grpc.aio.AioRpcError) as refused:  # not seated there: as at any table
        await make_player("bob").stub.SitOut(
            table_service_pb2.SitOutRequest(name=f"tables/{table_id}"), metadata=make_player("bob").metadata)
    assert error_reason(refused.value) == "NOT_SEATED"
