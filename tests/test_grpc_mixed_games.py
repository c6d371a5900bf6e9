"""RULES.md §13's mixed tables over the gRPC port and the web port: the rotation in CreateTable, validated
like the rest of a table's config; the game played now, the hands left of it and the next game in the table
(GetTable, the lobby, every view); each hand's game in HandStarted and the hand's view; a GameChanged event
in the watch after the last hand of each game."""

from __future__ import annotations

import asyncio
from typing import Any

import grpc
import pytest
from grpc_fixtures import TRANSPORTS, table_spec, wait_for_view

from stud_service.bots import Bot
from stud_service.bots.client import error_reason, events_of
from stud_service.bots.player import cautious_strategy
from stud_service.server.api.errors import error_info
from stud_service.server.proto_gen import table_pb2

WAIT = 60.0
RAZZ, STUD, HI_LO = table_pb2.VARIANT_RAZZ, table_pb2.VARIANT_SEVEN_CARD_STUD, table_pb2.VARIANT_STUD_HI_LO


def mixed_spec(**fields: Any) -> table_pb2.Table:
    """A Razz / Stud / Stud Hi-Lo table, one hand each unless ``fields`` say otherwise."""
    rotation = fields.pop("rotation", [RAZZ, STUD, HI_LO])
    game_stakes = fields.pop("game_stakes", [])
    spec = table_spec(**{"variant": table_pb2.VARIANT_UNSPECIFIED, "hands_per_game": 1, **fields})
    spec.rotation.extend(rotation)
    spec.game_stakes.extend(game_stakes)
    return spec


def refused_field(error: grpc.aio.AioRpcError) -> str:
    assert error.code() == grpc.StatusCode.INVALID_ARGUMENT
    info = error_info(error)
    assert info is not None
    return dict(info.metadata)["field"]


@pytest.mark.parametrize("fields, field", [
    ({"rotation": [RAZZ, RAZZ]}, "table.rotation"),
    ({"rotation": [RAZZ]}, "table.rotation"),
    ({"rotation": [RAZZ, 9]}, "table.rotation"),
    ({"hands_per_game": 101}, "table.hands_per_game"),
    ({"rotation": [RAZZ, STUD], "variant": STUD}, "table.variant"),
    ({"game_stakes": [table_pb2.GameStakes(game=HI_LO, stakes=table_pb2.Stakes(
        small_bet=200, big_bet=400, ante=50, bring_in=100))], "rotation": [RAZZ, STUD]}, "table.game_stakes"),
    ({"game_stakes": [table_pb2.GameStakes(game=STUD, stakes=table_pb2.Stakes(
        small_bet=200, big_bet=400, ante=50, bring_in=300))]}, "table.game_stakes"),
])
async def test_a_bad_rotation_is_invalid_config_naming_the_field(operator, table_id, fields, field) -> None:
    with pytest.raises(grpc.aio.AioRpcError) as refused:
        await operator.create_table(table_id, mixed_spec(**fields))
    assert refused_field(refused.value) == field
    assert error_reason(refused.value) in ("INVALID_CONFIG", "MALFORMED_REQUEST")
    with pytest.raises(grpc.aio.AioRpcError) as missing:
        await operator.get_table(table_id)
    assert missing.value.code() == grpc.StatusCode.NOT_FOUND


@pytest.mark.parametrize("transport", TRANSPORTS)
async def test_a_mixed_table_shows_its_game_and_tells_when_it_changes(operator, table_id,
                                                                       make_player) -> None:
    """Razz, Stud, Stud Hi-Lo one hand each, Stud at stakes of its own: the table says what it plays and
    what comes next; the watch has each hand's game and a GameChanged after each game's last hand."""
    stud_stakes = table_pb2.Stakes(small_bet=400, big_bet=800, ante=100, bring_in=200)
    created = await operator.create_table(table_id, mixed_spec(
        game_stakes=[table_pb2.GameStakes(game=STUD, stakes=stud_stakes)]))
    assert (created.variant, list(created.rotation), created.hands_per_game) == (RAZZ, [RAZZ, STUD, HI_LO], 1)
    assert created.current_game.game == RAZZ and created.current_game.hands_left == 1
    assert created.current_game.next_game == STUD and created.current_game.stakes.small_bet == 200
    lobby = await operator.list_tables(page_size=1000)
    (entry,) = [table for table in lobby.tables if table.name == f"tables/{table_id}"]
    assert list(entry.rotation) == [RAZZ, STUD, HI_LO] and entry.current_game.game == RAZZ
    alice, bob = make_player("alice"), make_player("bob")
    stream = operator.watch(table_id, after_version=1)  # from the table's creation: no hand dealt unseen
    await alice.sit_down(table_id, 1, 10_000)
    await bob.sit_down(table_id, 2, 10_000)
    bots = [Bot(player, table_id, seat, strategy=cautious_strategy, seed=seat)
            for seat, player in ((1, alice), (2, bob))]
    playing = asyncio.gather(*(bot.run(4) for bot in bots))
    seen = await _events_until_hand(stream, 4)
    stream.cancel()
    playing.cancel()
    games = [event.hand_started.game for event in seen if event.type == "HandStarted"]
    assert games[:4] == [RAZZ, STUD, HI_LO, RAZZ]
    changes = [(event.game_changed.after_hand, event.game_changed.game, event.game_changed.hands)
               for event in seen if event.type == "GameChanged"]
    assert changes[:3] == [(1, STUD, 1), (2, HI_LO, 1), (3, RAZZ, 1)]
    kinds = [event.type for event in seen]
    assert kinds[kinds.index("GameChanged") - 1] == "HandEnded"
    antes = [event.ante_posted.amount for event in seen if event.type == "AntePosted"]
    assert 100 in antes and 50 in antes  # Stud at its own stakes, the others at the table's
    view = await wait_for_view(alice, table_id, lambda v: v.HasField("hand") and v.hand.hand_number >= 4)
    assert view.hand.game in (RAZZ, STUD, HI_LO)
    assert view.table.current_game.hands_left == 1


async def _events_until_hand(stream: Any, hand: int) -> list[Any]:
    """The watch's events up to the HandStarted of ``hand``."""
    seen: list[Any] = []

    async def read() -> list[Any]:
        async for message in stream:
            for event in events_of(message):
                seen.append(event)
                if event.type == "HandStarted" and event.hand_started.hand == hand:
                    return seen
        raise AssertionError("the watch ended")

    return await asyncio.wait_for(read(), WAIT)


def test_the_view_names_the_last_hands_game_voided_or_not() -> None:
    """Between hands the view's hand is the last one, in its own game, while the table's current game is
    the next hand's: Stud one hand, then Razz; a voided Razz hand (§12: it does not count) is shown as
    Razz."""
    from engine_helpers import Table, stacked_deck
    from test_rules_mixed_games import fold_hand, void_hand

    from stud_service.engine import TableConfig, Variant
    from stud_service.server.api.convert import view_to_proto

    config = TableConfig(variant=Variant.STUD, rotation=(Variant.STUD, Variant.RAZZ), hands_per_game=1,
                         min_buy_in=1, max_buy_in=10**9)
    table = Table(config, stacks={1: 10**6, 2: 10**6})
    fold_hand(table)
    view = view_to_proto("t", table.state, len(table.log), None, last_result={"hand": 1})
    current = view.table.current_game
    assert (view.hand.game, current.game, current.next_game) == (STUD, RAZZ, STUD)
    void_hand(table)
    view = view_to_proto("t", table.state, len(table.log), None, last_result={"hand": 2})
    assert view.hand.voided and (view.hand.game, view.table.current_game.game) == (RAZZ, RAZZ)
    table.start(stacked_deck([]))
    running = view_to_proto("t", table.state, len(table.log), None)
    assert (running.hand.game, running.table.current_game.game, running.table.current_game.hands_left) == (
        RAZZ, RAZZ, 1)
