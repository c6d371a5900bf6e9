"""Smoke: a table is created, two players sit, the service deals and a hand is played to the end."""

from __future__ import annotations

import asyncio

from stud_service.server.proto_gen import table_pb2


async def test_two_players_play_a_hand_to_the_end(new_table, make_player) -> None:
    table_id = await new_table()
    alice, bob = make_player("alice"), make_player("bob")
    await alice.sit_down(table_id, 1, 10_000)
    await bob.sit_down(table_id, 2, 10_000)
    for _ in range(400):
        view = await alice.view(table_id)
        if view.hand.complete:
            break
        for client in (alice, bob):
            mine = await client.view(table_id)
            if mine.legal_actions:
                passive = [a for a in mine.legal_actions if a.type in (
                    table_pb2.ACTION_TYPE_BRING_IN, table_pb2.ACTION_TYPE_CHECK, table_pb2.ACTION_TYPE_CALL)]
                choice = passive[0]
                await client.act(table_id, mine.viewer_seat, choice.type, choice.amount, mine.turn)
        await asyncio.sleep(0.01)
    assert view.hand.complete
    assert sum(seat.stack for seat in view.seats) == 20_000
