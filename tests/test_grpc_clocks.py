"""Action clocks (RULES.md §7): when a player's clock runs out the server acts for them (check if
free, else fold) and sits them out; a player who acts in time is not timed out."""

from __future__ import annotations

import asyncio
from typing import Any

from grpc_fixtures import wait_for_turn

from stud_service.server.proto_gen import table_pb2


async def next_event(stream, kind: str, timeout: float = 10.0) -> Any:
    async def find() -> Any:
        async for message in stream:
            if message.event.type == kind:
                return getattr(message.event, message.event.WhichOneof("event"))
        raise AssertionError("stream ended")

    return await asyncio.wait_for(find(), timeout)


async def test_the_clock_fires_and_the_player_is_sat_out(new_table, make_player) -> None:
    """§7: nobody acts; after the clock the server acts for the player to act and sits them out."""
    table_id = await new_table(action_clock=1)
    alice, bob = make_player("alice"), make_player("bob")
    stream = make_player("spectator").watch(table_id)
    await alice.sit_down(table_id, 1, 5_000)
    await bob.sit_down(table_id, 2, 5_000)
    started = asyncio.get_running_loop().time()
    acted = await next_event(stream, "PlayerActed", timeout=10)
    assert acted.timeout is True
    assert asyncio.get_running_loop().time() - started >= 1.0
    sat_out = await next_event(stream, "PlayerSatOut")
    assert (sat_out.seat, sat_out.reason) == (acted.seat, table_pb2.SIT_OUT_REASON_TIMED_OUT)
    stream.cancel()


async def test_acting_in_time_beats_the_clock(new_table, make_player) -> None:
    table_id = await new_table(action_clock=1)
    alice, bob = make_player("alice"), make_player("bob")
    await alice.sit_down(table_id, 1, 5_000)
    await bob.sit_down(table_id, 2, 5_000)
    acting, view = await wait_for_turn([alice, bob], table_id)
    assert view.HasField("action_deadline")
    stream = make_player("spectator").watch(table_id, after_version=view.version)
    bring_in = next(a for a in view.legal_actions if a.type == table_pb2.ACTION_TYPE_BRING_IN)
    await acting.act(table_id, view.viewer_seat, bring_in.type, bring_in.amount, view.turn)
    mine = await next_event(stream, "PlayerActed")
    assert (mine.seat, mine.timeout) == (view.viewer_seat, False)
    # The next player is now on the clock and times out; the one who acted in time is not touched.
    theirs = await next_event(stream, "PlayerActed")
    assert theirs.seat != view.viewer_seat and theirs.timeout is True
    stream.cancel()
