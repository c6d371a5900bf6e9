"""A limit raise cooling off survives a crash: the server is killed (SIGKILL) right after a player asks to
raise their deposit limit, and the replica started after it keeps the old limit until the raise's time, then
applies it on time (the raise is an event in the player's stream with its effective time, not a timer)."""

from __future__ import annotations

import asyncio
import time

import grpc
import pytest
from grpc_fixtures import TOKEN_SECRET

from stud_service.auth import Role, mint_token
from stud_service.bots import StudClient
from stud_service.bots.client import error_reason
from stud_service.server.proto_gen import player_protection_service_pb2 as pb

COOLING_OFF = 20  # seconds: long enough for a restart, short enough for a test
PLAYER = "ann"


@pytest.fixture
async def database(make_database) -> str:
    return await make_database(migrated=True)


def deposit_limit(protection: pb.PlayerProtection) -> pb.Limit:
    (limit,) = [limit for limit in protection.limits if limit.kind == pb.LIMIT_KIND_DEPOSIT]
    return limit


async def limits(channel) -> pb.PlayerProtection:
    player = StudClient(channel, mint_token(TOKEN_SECRET, PLAYER, Role.PLAYER))
    return await player.protection.GetLimits(pb.GetLimitsRequest(name=f"players/{PLAYER}"),
                                             metadata=player.metadata)


@pytest.mark.long
async def test_sigkill_while_a_raise_cools_off_then_the_raise_takes_effect_on_time(spawn_server, database):
    extra = ("--limit-cooling-off-seconds", str(COOLING_OFF))
    first = await spawn_server(database, *extra)
    async with grpc.aio.insecure_channel(first.address) as channel:
        player = StudClient(channel, mint_token(TOKEN_SECRET, PLAYER, Role.PLAYER))
        request = pb.SetLimitRequest(name=f"players/{PLAYER}", kind=pb.LIMIT_KIND_DEPOSIT,
                                     currency_code="USD", period=pb.LIMIT_PERIOD_DAY, amount=1_000)
        await player.protection.SetLimit(request, metadata=player.metadata)
        request.amount = 100_000
        raised = deposit_limit(await player.protection.SetLimit(request, metadata=player.metadata))
    first.kill()  # SIGKILL while the raise cools off
    due = raised.pending_effective_time.ToMilliseconds() / 1000
    assert (raised.amount, raised.pending_amount) == (1_000, 100_000)

    second = await spawn_server(database, *extra)
    async with grpc.aio.insecure_channel(second.address) as channel:
        operator = StudClient(channel, mint_token(TOKEN_SECRET, "house", Role.OPERATOR))
        after = deposit_limit(await limits(channel))
        assert after.pending_effective_time == raised.pending_effective_time  # kept, not restarted
        if time.time() < due - 2:  # the restart was quicker than the cooling-off (nearly always)
            assert after.amount == 1_000
            with pytest.raises(grpc.aio.AioRpcError) as error:
                await operator.deposit(PLAYER, 5_000)
            assert error_reason(error.value) == "DEPOSIT_LIMIT_REACHED"
        await asyncio.sleep(max(0.0, due - time.time()) + 0.2)
        now = deposit_limit(await limits(channel))
        assert (now.amount, now.own_amount) == (100_000, 100_000)
        assert not now.HasField("pending_effective_time")
        assert (await operator.deposit(PLAYER, 5_000)).account.balance == 5_000
