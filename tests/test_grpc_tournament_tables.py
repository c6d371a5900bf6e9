"""A tournament's table through TableService, on a real server: the table says whose it is and at which level,
and its seats are the tournament's to fill and empty (SitDown, Leave, TopUp and the waiting list are refused
TOURNAMENT_TABLE, changing nothing), while a seated player sits out and in as at any table."""

from __future__ import annotations

import asyncio
import uuid

import grpc
import pytest

from stud_service.bots import StudClient, error_reason
from stud_service.bots.client import new_request_id
from stud_service.server.proto_gen import table_service_pb2, tournament_pb2, tournament_service_pb2

pytestmark = pytest.mark.asyncio(loop_scope="session")


@pytest.fixture(autouse=True)
def _cancelled_after(tournaments_cancelled_after: None) -> None:
    """The tournaments a test started stop with it (grpc_fixtures.cancel_running_tournaments)."""


async def started_sit_and_go(operator: StudClient, make_player) -> tuple[str, dict[str, StudClient]]:
    """A play-money heads-up sit & go, both seats taken: it started, and its owner opened its table and seated
    both players there. (its table, its players)"""
    created = await operator.tournaments.CreateTournament(tournament_service_pb2.CreateTournamentRequest(
        tournament=tournament_pb2.Tournament(display_name="Spring", play_money=True, max_entrants=2,
                                             seats_per_table=2, starting_stack=1_000),
        tournament_id=f"tt-{uuid.uuid4().hex[:10]}"), metadata=operator.metadata)
    tag = uuid.uuid4().hex[:6]
    players = {name: make_player(name) for name in (f"ann-{tag}", f"bob-{tag}")}
    for client in players.values():
        reply = await client.tournaments.RegisterTournament(tournament_service_pb2.RegisterTournamentRequest(
            name=created.name, request_id=new_request_id()), metadata=client.metadata)
    assert reply.view.table == f"{created.name.replace('tournaments/', 'tables/')}-t1"
    table_id = reply.view.table.removeprefix("tables/")
    await seated(next(iter(players.values())), table_id, set(players))
    return table_id, players


async def seated(client: StudClient, table_id: str, players: set[str], timeout: float = 30.0) -> None:
    """Wait until the tournament's owner has opened ``table_id`` and seated ``players`` there."""
    async with asyncio.timeout(timeout):
        while True:
            try:
                view = await client.view(table_id)
                if {seat.player_id for seat in view.seats} == players:
                    return
            except grpc.aio.AioRpcError as error:
                if error_reason(error) != "NO_TABLE":
                    raise
            await asyncio.sleep(0.05)


async def test_a_tournament_table_names_its_tournament_and_level(operator, make_player) -> None:
    table_id, players = await started_sit_and_go(operator, make_player)
    table = await make_player("spectator").get_table(table_id)
    assert table.tournament.tournament == f"tournaments/{table_id.removesuffix('-t1')}"
    assert table.tournament.level == 1 and table.stakes.small_bet == 20  # the default structure's first level
    assert table.display_name == "Spring table 1" and table.play_money
    ann = next(iter(players.values()))
    view = await ann.view(table_id)
    assert view.table.tournament == table.tournament and view.viewer_seat in (1, 2)


@pytest.mark.parametrize("call", ["sit_down", "leave", "top_up", "join_waiting_list", "leave_waiting_list"])
async def test_the_tournament_seats_and_moves_its_players_not_the_players(operator, make_player,
                                                                          call: str) -> None:
    table_id, players = await started_sit_and_go(operator, make_player)
    ann = next(iter(players.values()))
    carol = make_player(f"carol-{uuid.uuid4().hex[:6]}")
    calls = {
        "sit_down": lambda: carol.sit_down(table_id, 1, 10**9),
        "leave": lambda: ann.leave(table_id),
        "top_up": lambda: ann.top_up(table_id, 500),
        "join_waiting_list": lambda: carol.join_waiting_list(table_id),
        "leave_waiting_list": lambda: carol.leave_waiting_list(table_id),
    }
    with pytest.raises(grpc.aio.AioRpcError) as refused:
        await calls[call]()
    assert (refused.value.code(), error_reason(refused.value)) == (
        grpc.StatusCode.FAILED_PRECONDITION, "TOURNAMENT_TABLE")
    view = await ann.view(table_id)  # the hands play on; who sits there, and how many wait, did not change
    assert sorted(seat.player_id for seat in view.seats) == sorted(players)
    assert view.table.waiting_players == 0 and view.waiting_place == 0


async def test_a_seated_player_sits_out_and_in_at_a_tournament_table(operator, make_player) -> None:
    table_id, players = await started_sit_and_go(operator, make_player)
    name, ann = next(iter(players.items()))

    def own(view):  # type: ignore[no-untyped-def]
        return next(seat for seat in view.seats if seat.player_id == name)

    assert own(await ann.sit_out(table_id)).sitting_out
    assert not own(await ann.sit_in(table_id)).sitting_out
    outsider = make_player("outsider")
    with pytest.raises(grpc.aio.AioRpcError) as refused:  # not seated there: as at any table
        await outsider.stub.SitOut(table_service_pb2.SitOutRequest(name=f"tables/{table_id}"),
                                   metadata=outsider.metadata)
    assert error_reason(refused.value) == "NOT_SEATED"


@pytest.mark.long
async def test_a_table_whose_players_are_all_absent_deals_on_with_a_pause_between_hands(operator, make_player,
                                                                                       caplog) -> None:
    """§11 Sitting out: absent players are dealt in and blinded off, hand after hand, each hand after the
    table's pause like any other. (Such hands end as soon as they start: the dealer used to deal the next at
    once, ran out of steps with an ERROR and left the table waiting for the tournament's next change.)"""
    table_id, players = await started_sit_and_go(operator, make_player)
    for client in players.values():
        await client.sit_out(table_id)
    watcher = next(iter(players.values()))
    first = (await watcher.view(table_id)).hand.hand_number
    async with asyncio.timeout(90):
        while (await watcher.view(table_id)).hand.hand_number < first + 40:
            await asyncio.sleep(0.1)
    assert not [record for record in caplog.records if "did not settle" in record.getMessage()]
