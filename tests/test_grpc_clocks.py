"""Action clocks (RULES.md §7): when a player's clock runs out the server acts for them (check if
free, else fold) and sits them out; a player who acts in time is not timed out."""

from __future__ import annotations

import asyncio
import uuid
from collections.abc import Callable
from typing import Any

import grpc
from grpc_fixtures import TOKEN_SECRET, table_spec, wait_for_turn, wait_for_view
from sealing_keys import TEST_KEYRING

from stud_service.auth import Role, mint_token
from stud_service.bots.client import StudClient
from stud_service.observability.metrics import Metrics
from stud_service.sealing import EventSealer
from stud_service.server.api.table_service import TableService
from stud_service.server.grpc.app import start_server
from stud_service.server.proto_gen import table_pb2
from stud_service.server.tables.live import stream_id_for
from stud_service.server.tables.runtime import TableRuntime
from stud_service.server.tables.settings import RuntimeSettings
from stud_service.store import EventStore


async def next_event(stream, kind: str, timeout: float = 30.0) -> Any:
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
    stream = make_player("spectator").watch(table_id, after_version=1)  # from the table's creation on
    await alice.sit_down(table_id, 1, 5_000)
    await bob.sit_down(table_id, 2, 5_000)
    started = asyncio.get_running_loop().time()
    acted = await next_event(stream, "PlayerActed")
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


class FaultySealer(EventSealer):
    """The session's sealer, failing every seal for one stream while ``failing`` names it (a fault of the
    replica itself, not of the database: the case a table's clock must survive)."""

    def __init__(self) -> None:
        super().__init__(TEST_KEYRING)
        self.failing: str | None = None

    def seal(self, stream_id: str, version: int, payload: dict[str, Any]) -> dict[str, Any]:
        if stream_id == self.failing:
            raise RuntimeError("an injected sealing fault")
        return super().seal(stream_id, version, payload)


async def test_a_clock_that_fails_is_retried_counted_and_seen_past_its_deadline(db_pool) -> None:
    """A clock whose Timeout fails for a reason other than the store is not given up: the failure is
    counted (``stud_action_clock_failures_total``), the table shows as past its deadline
    (``stud_tables_past_deadline``), and once the fault is gone the clock fires and the hand plays on."""
    sealer = FaultySealer()
    metrics = Metrics(process_metrics=False)
    runtime = TableRuntime(EventStore(db_pool, sealer=sealer), RuntimeSettings(next_hand_pause=0.2), metrics)
    running = await start_server(TableService(runtime, TOKEN_SECRET), "127.0.0.1:0")
    running.on_shutdown.append(runtime.close)
    channel = grpc.aio.insecure_channel(f"127.0.0.1:{running.port}")
    try:
        player = lambda name: StudClient(channel, mint_token(TOKEN_SECRET, name))  # noqa: E731
        operator = StudClient(channel, mint_token(TOKEN_SECRET, "house", Role.OPERATOR))
        table_id = f"t-{uuid.uuid4().hex[:12]}"
        await operator.create_table(table_id, table_spec(action_clock=1))
        alice, bob = player("alice"), player("bob")
        await alice.sit_down(table_id, 1, 5_000)
        await bob.sit_down(table_id, 2, 5_000)
        _acting, view = await wait_for_turn([alice, bob], table_id, timeout=60)
        sealer.failing = stream_id_for(table_id)
        def failures() -> float:
            return metrics.registry.get_sample_value(
                "stud_action_clock_failures_total", {"task": "action_clock"}) or 0

        await wait_until(lambda: failures() >= 2, timeout=60)
        assert runtime.tables_past_deadline(grace_seconds=0) == 1
        assert metrics.registry.get_sample_value("stud_tables_past_deadline") is not None
        sealer.failing = None
        moved = await wait_for_view(alice, table_id, lambda v: v.turn != view.turn, timeout=90)
        assert moved.version > view.version
        assert runtime.tables_past_deadline(grace_seconds=0) == 0
    finally:
        await channel.close()
        await running.shutdown(0)


async def wait_until(condition: Callable[[], bool], timeout: float) -> None:
    deadline = asyncio.get_running_loop().time() + timeout
    while not condition():
        if asyncio.get_running_loop().time() > deadline:
            raise TimeoutError("the condition never held")
        await asyncio.sleep(0.05)
