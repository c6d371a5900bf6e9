"""Views built once per table version and viewer and shared between calls (stud_service.server.api.replies):
over a real server, the watchers of one version each get their own view of it, never another's (a
seat's down cards go to that seat's player only; spectators and auditors get the observers' view), the
Act reply shows the actor what the actor's watch stream shows for that version, and the next version
brings new views, not the cached ones."""

from __future__ import annotations

import asyncio

import grpc
from grpc_fixtures import wait_for_turn

from stud_service.auth import Role
from stud_service.bots import events_of
from stud_service.server.proto_gen import table_pb2

BUY_IN = 10_000
PASSIVE = (table_pb2.ACTION_TYPE_BRING_IN, table_pb2.ACTION_TYPE_CHECK, table_pb2.ACTION_TYPE_CALL)


def down_cards(view: table_pb2.TableView) -> dict[int, list[int]]:
    return {seat.seat: list(seat.down_cards) for seat in view.seats if seat.down_cards}


async def collect_views(stream: grpc.aio.UnaryStreamCall, views: dict[int, table_pb2.TableView]) -> None:
    async for message in stream:
        if message.HasField("view"):
            assert not events_of(message) or events_of(message)[-1].version == message.view.version
            views[message.view.version] = message.view


async def until_seen(watchers: dict[str, dict[int, table_pb2.TableView]], version: int) -> None:
    async with asyncio.timeout(20):
        while not all(version in views for views in watchers.values()):
            await asyncio.sleep(0.02)


async def test_each_watcher_gets_its_own_view_of_a_version(grpc_service, new_table, make_player):
    table_id = await new_table()
    players = {"ann": make_player("ann"), "ben": make_player("ben")}
    clients = {**players, "cat": make_player("cat"), "auditor": grpc_service.client("aud", Role.AUDITOR)}
    watchers: dict[str, dict[int, table_pb2.TableView]] = {name: {} for name in clients}
    streams = [client.watch(table_id, include_views=True, batch_events=True) for client in clients.values()]
    readers = [asyncio.ensure_future(collect_views(stream, watchers[name]))
               for name, stream in zip(clients, streams, strict=True)]
    try:
        for seat, client in enumerate(players.values(), start=1):
            await client.sit_down(table_id, seat, BUY_IN)
        for _ in range(3):  # the bring-in and the next two actions: three versions, each checked
            actor, view = await wait_for_turn(list(players.values()), table_id)
            name = next(name for name, client in players.items() if client is actor)
            # Never a fold: the hand (and its down cards) goes on.
            legal = next(legal for legal in view.legal_actions if legal.type in PASSIVE)
            replied = await actor.act(table_id, view.viewer_seat, legal.type, legal.amount, view.turn)
            await until_seen(watchers, replied.version)
            seen = {watcher: views[replied.version] for watcher, views in watchers.items()}
            # The Act reply is the actor's view, as the actor's stream has it (each stamped with its own
            # round-trip measurement: the latency meter's reading may be a millisecond apart).
            assert without_round_trip(seen[name]) == without_round_trip(replied)
            for player in players:  # a seat's down cards, in its player's view only
                seat = seen[player].viewer_seat
                assert seat in (1, 2) and set(down_cards(seen[player])) == {seat}
            assert down_cards(seen["ann"]) != down_cards(seen["ben"])
            # An observer's view, whoever observes (each stamped with the caller's own round trip).
            assert without_round_trip(seen["cat"]) == without_round_trip(seen["auditor"])
            assert seen["cat"].viewer_seat == 0 and not down_cards(seen["cat"])
            assert not seen["cat"].legal_actions
            assert all(view.version == replied.version for view in seen.values())
    finally:
        for stream in streams:
            stream.cancel()
        await asyncio.gather(*readers, return_exceptions=True)


def without_round_trip(view: table_pb2.TableView) -> table_pb2.TableView:
    copy = table_pb2.TableView()
    copy.CopyFrom(view)
    copy.ClearField("round_trip")
    return copy
