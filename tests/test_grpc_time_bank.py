"""RULES.md §7's time bank over the gRPC port and the web port: the table's option, the reserve in every
view with the clock that runs, the events of its start, its use and its refills, the owner's clock giving
the reserve its time; and a new owner after a SIGKILL carrying on with the reserve the log holds."""

from __future__ import annotations

import asyncio
from typing import Any

import grpc
import pytest
from google.protobuf import duration_pb2
from grpc_fixtures import TOKEN_SECRET, TRANSPORTS, table_spec, wait_for_turn, wait_for_view
from sealing_keys import sealed_store

from stud_service.auth import Role, mint_token
from stud_service.bots import StudClient
from stud_service.bots.client import error_reason, events_of
from stud_service.db import open_pool
from stud_service.server.api.errors import error_info
from stud_service.server.proto_gen import table_pb2
from stud_service.server.tables.live import stream_id_for

WAIT = 60.0


def bank(reserve: int, refill: int = 0, hands: int = 0) -> table_pb2.TimeBank:
    return table_pb2.TimeBank(reserve=duration_pb2.Duration(seconds=reserve),
                              refill=duration_pb2.Duration(seconds=refill), refill_hands=hands)


async def events_until(stream: Any, kind: str, timeout: float = WAIT) -> list[Any]:
    """The watch's messages' events up to and including the first of ``kind``."""
    seen: list[Any] = []

    async def read() -> list[Any]:
        async for message in stream:
            for event in events_of(message):
                seen.append(event)
                if event.type == kind:
                    return seen
        raise AssertionError("the watch ended")

    return await asyncio.wait_for(read(), timeout)


def body(event: Any) -> Any:
    return getattr(event, event.WhichOneof("event"))


@pytest.mark.parametrize("transport", TRANSPORTS)
async def test_the_reserve_runs_after_the_clock_and_every_view_shows_it(new_table, make_player) -> None:
    """Nobody acts: the action clock (1 s) runs out, the reserve (2 s) starts (TimeBankStarted, the view's
    clock TIME_BANK, its deadline the reserve's end), then the player is timed out having spent it all."""
    table_id = await new_table(action_clock=1, time_bank=bank(2))
    alice, bob = make_player("alice"), make_player("bob")
    spectator = make_player("spectator")
    stream = spectator.watch(table_id, after_version=1)  # from the table's creation on
    await alice.sit_down(table_id, 1, 5_000)
    await bob.sit_down(table_id, 2, 5_000)
    table = await spectator.get_table(table_id)
    assert table.time_bank.reserve.seconds == 2
    _acting, view = await wait_for_turn([alice, bob], table_id)
    assert view.clock == table_pb2.CLOCK_KIND_ACTION
    assert [seat.time_bank.ToMilliseconds() for seat in view.seats] == [2_000, 2_000]
    seen = await events_until(stream, "TimeBankStarted")
    started = body(seen[-1])
    assert started.seat == view.hand.to_act_seat and started.reserve.ToMilliseconds() == 2_000
    on_bank = await spectator.view(table_id)
    assert on_bank.clock == table_pb2.CLOCK_KIND_TIME_BANK
    assert on_bank.action_deadline.ToMilliseconds() == started.deadline.ToMilliseconds()
    after = await events_until(stream, "TimeBankUsed")
    acted, used = body(after[-2]), body(after[-1])
    assert acted.timeout and acted.time.ToMilliseconds() >= started.deadline.ToMilliseconds()
    assert (used.used.ToMilliseconds(), used.reserve.ToMilliseconds()) == (2_000, 0)
    drained = await wait_for_view(spectator, table_id, lambda v: any(
        s.seat == started.seat and s.time_bank.ToMilliseconds() == 0 for s in v.seats), timeout=WAIT)
    assert drained.version >= 1
    stream.cancel()


@pytest.mark.parametrize("transport", TRANSPORTS)
async def test_acting_on_the_bank_spends_only_what_was_used(new_table, make_player) -> None:
    table_id = await new_table(action_clock=1, time_bank=bank(30))
    alice, bob = make_player("alice"), make_player("bob")
    await alice.sit_down(table_id, 1, 5_000)
    await bob.sit_down(table_id, 2, 5_000)
    acting, _view = await wait_for_turn([alice, bob], table_id)
    view = await wait_for_view(acting, table_id, lambda v: v.clock == table_pb2.CLOCK_KIND_TIME_BANK, WAIT)
    stream = acting.watch(table_id, after_version=view.version)
    choice = next(a for a in view.legal_actions if a.type == table_pb2.ACTION_TYPE_BRING_IN)
    acted = await acting.act(table_id, view.viewer_seat, choice.type, choice.amount, view.turn)
    events = await events_until(stream, "TimeBankUsed")
    used = body(events[-1])
    assert used.seat == view.viewer_seat and 0 < used.used.ToMilliseconds() < 30_000
    assert used.reserve.ToMilliseconds() == 30_000 - used.used.ToMilliseconds()
    mine = next(seat for seat in acted.seats if seat.seat == view.viewer_seat)
    assert mine.time_bank.ToMilliseconds() == used.reserve.ToMilliseconds()
    assert acted.clock == table_pb2.CLOCK_KIND_ACTION  # the next player's action clock
    stream.cancel()


async def test_a_time_bank_out_of_bounds_is_invalid_config(operator, table_id) -> None:
    with pytest.raises(grpc.aio.AioRpcError) as refused:
        await operator.create_table(table_id, table_spec(time_bank=bank(601)))
    assert refused.value.code() == grpc.StatusCode.INVALID_ARGUMENT
    assert error_reason(refused.value) == "INVALID_CONFIG"
    assert _metadata(refused.value)["field"] == "table.time_bank.reserve"
    with pytest.raises(grpc.aio.AioRpcError) as refused:
        await operator.create_table(table_id, table_spec(time_bank=bank(60, refill=10)))
    assert _metadata(refused.value)["field"] == "table.time_bank.refill_hands"


def _metadata(error: grpc.aio.AioRpcError) -> dict[str, str]:
    info = error_info(error)
    assert info is not None
    return dict(info.metadata)


LEASE_SECONDS = 1.5


async def test_a_new_owner_after_a_sigkill_gives_the_reserve_the_time_the_log_says(
    spawn_server, make_database
) -> None:
    """The owner records the reserve's start and is SIGKILLed; the replica that takes the table over folds
    the log, arms the reserve's deadline (not a new action clock, not a new reserve) and times the player
    out when the reserve the log holds has run out."""
    database = await make_database(migrated=True)
    lease = ("--lease-seconds", str(LEASE_SECONDS))
    first = await spawn_server(database, *lease)
    table_id = "t-bank-failover"
    channel_a = grpc.aio.insecure_channel(first.address)
    pool = await open_pool(database, max_size=2)
    store = sealed_store(pool)
    try:
        operator = StudClient(channel_a, mint_token(TOKEN_SECRET, "house", Role.OPERATOR))
        await operator.create_table(table_id, table_spec(action_clock=1, time_bank=bank(6)))
        second = await spawn_server(database, *lease)
        for seat, name in ((1, "alice"), (2, "bob")):
            await StudClient(channel_a, mint_token(TOKEN_SECRET, name)).sit_down(table_id, seat, 5_000)
        started = await _logged(store, table_id, "TimeBankStarted")
        first.kill()
        acted = await _logged(store, table_id, "PlayerActed")
        used = await _logged(store, table_id, "TimeBankUsed")
        assert acted["timeout"] and acted["seat"] == started["seat"]
        assert started["deadline_ms"] <= acted["at_ms"] < started["deadline_ms"] + 10_000
        assert (used["used_ms"], used["reserve_ms"]) == (6_000, 0)
        history = [stored.payload for stored in await store.read_stream(stream_id_for(table_id))]
        assert sum(payload["type"] == "TimeBankStarted" for payload in history) == 1
        assert second.process.poll() is None
    finally:
        await channel_a.close()
        await store.close()
        await pool.close()


async def _logged(store: Any, table_id: str, kind: str) -> dict[str, Any]:
    deadline = asyncio.get_running_loop().time() + WAIT
    while asyncio.get_running_loop().time() < deadline:
        for stored in await store.read_stream(stream_id_for(table_id)):
            if stored.payload["type"] == kind:
                return stored.payload
        await asyncio.sleep(0.1)
    raise AssertionError(f"no {kind} in the log")
