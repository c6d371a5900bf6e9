"""Player protection through the real service, over gRPC and the web port (JSON): limits, exclusions and
time-outs, the session limit, reality checks (docs/player-protection.md). Every refusal has its own reason and
what is left in its metadata, and appends nothing anywhere: no event, no cent moved."""

from __future__ import annotations

import asyncio
import contextlib
import time
import uuid
from dataclasses import replace

import grpc
import pytest
from grpc_fixtures import TRANSPORTS, table_spec, wait_for_view

from stud_service.auth import Role
from stud_service.bots.client import account_name, error_info
from stud_service.server.proto_gen import cashier_service_pb2, table_pb2
from stud_service.server.proto_gen import player_protection_service_pb2 as pb
from stud_service.server.tables.live import LiveTable

pytestmark = pytest.mark.asyncio(loop_scope="session")

DAY = pb.LIMIT_PERIOD_DAY
PASSIVE = (table_pb2.ACTION_TYPE_BRING_IN, table_pb2.ACTION_TYPE_CHECK, table_pb2.ACTION_TYPE_CALL)


@pytest.fixture
def ann() -> str:
    return f"ann-{uuid.uuid4().hex[:8]}"


async def refused(call) -> tuple[grpc.StatusCode, str, dict[str, str]]:
    with pytest.raises(grpc.aio.AioRpcError) as error:
        await call
    info = error_info(error.value)
    assert info is not None, error.value
    return error.value.code(), info.reason, dict(info.metadata)


async def heads(service, *streams: str) -> list[int]:
    return [await service.store.head(stream) for stream in streams]


def streams_of(player: str, table_id: str | None = None) -> list[str]:
    streams = [f"accounts/USD/{player}", f"players/{player}"]
    return streams + ([f"tables/{table_id}"] if table_id else [])


async def set_limit(client, player: str, kind: int, amount: int, currency: str = "USD", period: int = DAY):
    return await client.protection.SetLimit(
        pb.SetLimitRequest(name=f"players/{player}", kind=kind, currency_code=currency, period=period,
                           amount=amount),
        metadata=client.metadata,
    )


async def set_session_limit(client, player: str, seconds: int):
    return await set_limit(client, player, pb.LIMIT_KIND_SESSION_TIME, seconds, currency="",
                           period=pb.LIMIT_PERIOD_UNSPECIFIED)


async def new_table(operator, play_money: bool = False) -> str:
    table_id = f"t-{uuid.uuid4().hex[:12]}"
    await operator.create_table(table_id, table_spec(play_money=play_money))
    return table_id


def limit_of(protection: pb.PlayerProtection, kind: int) -> pb.Limit:
    (limit,) = [limit for limit in protection.limits if limit.kind == kind]
    return limit


@pytest.mark.parametrize("transport", TRANSPORTS)
async def test_a_deposit_beyond_the_deposit_limit_is_refused_with_what_is_left(
    grpc_service, operator, make_player, ann
):
    player = make_player(ann)
    reply = await set_limit(player, ann, pb.LIMIT_KIND_DEPOSIT, 10_000)
    limit = limit_of(reply, pb.LIMIT_KIND_DEPOSIT)
    assert (limit.amount, limit.remaining) == (10_000, 10_000)
    await operator.deposit(ann, 6_000)
    before = await heads(grpc_service, *streams_of(ann))
    code, reason, metadata = await refused(operator.deposit(ann, 5_000))
    assert (code, reason) == (grpc.StatusCode.FAILED_PRECONDITION, "DEPOSIT_LIMIT_REACHED")
    assert metadata == {"remaining": "4000", "period": "day", "limit": "10000", "currency": "USD"}
    assert await heads(grpc_service, *streams_of(ann)) == before
    assert (await operator.account(ann)).balance == 6_000
    await operator.deposit(ann, 4_000)
    protection = await player.protection.GetLimits(pb.GetLimitsRequest(name=f"players/{ann}"),
                                                   metadata=player.metadata)
    assert limit_of(protection, pb.LIMIT_KIND_DEPOSIT).remaining == 0


async def test_a_lower_limit_is_at_once_and_a_raise_waits_for_the_cooling_off(grpc_service, ann):
    player = grpc_service.client(ann)
    await set_limit(player, ann, pb.LIMIT_KIND_DEPOSIT, 10_000)
    before = time.time()
    raised = limit_of(await set_limit(player, ann, pb.LIMIT_KIND_DEPOSIT, 50_000), pb.LIMIT_KIND_DEPOSIT)
    assert (raised.amount, raised.own_amount, raised.pending_amount) == (10_000, 10_000, 50_000)
    assert before + 86_400 - 5 < raised.pending_effective_time.seconds < time.time() + 86_400 + 5
    lowered = limit_of(await set_limit(player, ann, pb.LIMIT_KIND_DEPOSIT, 5_000), pb.LIMIT_KIND_DEPOSIT)
    assert (lowered.amount, lowered.pending_amount) == (5_000, 0)
    assert not lowered.HasField("pending_effective_time")
    operator = grpc_service.client("house", Role.OPERATOR)
    floored = await operator.protection.SetLimitFloor(
        pb.SetLimitFloorRequest(name=f"players/{ann}", kind=pb.LIMIT_KIND_DEPOSIT, currency_code="USD",
                                period=DAY, amount=2_000),
        metadata=operator.metadata,
    )
    limit = limit_of(floored, pb.LIMIT_KIND_DEPOSIT)
    assert (limit.amount, limit.own_amount, limit.floor_amount) == (2_000, 5_000, 2_000)


@pytest.mark.parametrize("transport", TRANSPORTS)
async def test_a_buy_in_or_top_up_beyond_the_loss_limit_is_refused_and_moves_nothing(
    grpc_service, operator, make_player, ann
):
    player = make_player(ann)
    await operator.deposit(ann, 20_000)
    await set_limit(player, ann, pb.LIMIT_KIND_LOSS, 5_000)
    table_id = await new_table(operator)
    before = await heads(grpc_service, *streams_of(ann, table_id))
    code, reason, metadata = await refused(player.sit_down(table_id, 1, 6_000))
    assert (code, reason) == (grpc.StatusCode.FAILED_PRECONDITION, "LOSS_LIMIT_REACHED")
    assert metadata == {"remaining": "5000", "period": "day", "limit": "5000", "currency": "USD"}
    assert await heads(grpc_service, *streams_of(ann, table_id)) == before
    await player.sit_down(table_id, 1, 4_000)
    before = await heads(grpc_service, *streams_of(ann, table_id))
    code, reason, metadata = await refused(player.top_up(table_id, 2_000))
    assert (reason, metadata["remaining"]) == ("LOSS_LIMIT_REACHED", "1000")
    assert await heads(grpc_service, *streams_of(ann, table_id)) == before
    assert (await operator.account(ann)).balance == 16_000
    await player.top_up(table_id, 1_000)
    assert (await operator.account(ann)).balance == 15_000


@pytest.mark.parametrize("transport", TRANSPORTS)
async def test_an_excluded_player_is_refused_money_and_seats_but_may_withdraw(
    grpc_service, operator, make_player, ann
):
    player = make_player(ann)
    await operator.deposit(ann, 10_000)
    table_id = await new_table(operator)
    taken = await player.protection.TakeTimeOut(
        pb.TakeTimeOutRequest(name=f"players/{ann}", duration_seconds=86_400), metadata=player.metadata
    )
    assert (taken.protection.exclusion.kind, taken.protection.exclusion.in_force) == (
        pb.EXCLUSION_KIND_TIME_OUT, True)
    before = await heads(grpc_service, *streams_of(ann, table_id))
    for call in (operator.deposit(ann, 100), player.sit_down(table_id, 1, 4_000)):
        code, reason, metadata = await refused(call)
        assert (code, reason, metadata["kind"]) == (
            grpc.StatusCode.FAILED_PRECONDITION, "PLAYER_EXCLUDED", "time_out")
        assert int(metadata["until_ms"]) > time.time() * 1000
    assert await heads(grpc_service, *streams_of(ann, table_id)) == before
    out = await operator.cashier.Withdraw(
        cashier_service_pb2.WithdrawRequest(account=account_name(ann), amount=10_000, currency_code="USD",
                                            payment_reference=f"out-{uuid.uuid4().hex[:6]}"),
        metadata=operator.metadata,
    )
    assert out.account.balance == 0
    # An exclusion in force may be lengthened, never shortened; an operator ends none before its period.
    longer = await player.protection.SelfExclude(
        pb.SelfExcludeRequest(name=f"players/{ann}", duration_seconds=86_400 * 365), metadata=player.metadata)
    assert longer.protection.exclusion.kind == pb.EXCLUSION_KIND_SELF_EXCLUSION
    code, reason, metadata = await refused(player.protection.TakeTimeOut(
        pb.TakeTimeOutRequest(name=f"players/{ann}", duration_seconds=86_400), metadata=player.metadata))
    assert (reason, metadata["kind"]) == ("PLAYER_EXCLUDED", "exclusion")
    code, reason, _ = await refused(operator.protection.EndExclusion(
        pb.EndExclusionRequest(name=f"players/{ann}"), metadata=operator.metadata))
    assert (code, reason) == (grpc.StatusCode.FAILED_PRECONDITION, "EXCLUSION_NOT_OVER")


async def test_an_exclusion_cannot_be_shortened_and_for_ever_never_ends(grpc_service, ann):
    player = grpc_service.client(ann)
    operator = grpc_service.client("house", Role.OPERATOR)
    await player.protection.SelfExclude(pb.SelfExcludeRequest(name=f"players/{ann}", forever=True),
                                        metadata=player.metadata)
    before = await heads(grpc_service, f"players/{ann}")
    code, reason, metadata = await refused(player.protection.TakeTimeOut(
        pb.TakeTimeOutRequest(name=f"players/{ann}", duration_seconds=86_400), metadata=player.metadata))
    assert (reason, metadata["kind"], metadata["until_ms"]) == ("PLAYER_EXCLUDED", "exclusion", "")
    code, reason, _ = await refused(operator.protection.EndExclusion(
        pb.EndExclusionRequest(name=f"players/{ann}"), metadata=operator.metadata))
    assert reason == "EXCLUSION_NOT_OVER"
    assert await heads(grpc_service, f"players/{ann}") == before


@pytest.mark.parametrize("transport", TRANSPORTS)
async def test_only_the_player_sets_their_own_protection_and_bad_values_are_malformed(
    grpc_service, operator, make_player, ann
):
    player = make_player(ann)
    other = make_player(f"bob-{uuid.uuid4().hex[:6]}")
    for client in (other, operator):
        code, reason, _ = await refused(set_limit(client, ann, pb.LIMIT_KIND_DEPOSIT, 100))
        assert (code, reason) == (grpc.StatusCode.PERMISSION_DENIED, "NOT_YOUR_ACCOUNT")
    code, reason, _ = await refused(player.protection.SetLimitFloor(
        pb.SetLimitFloorRequest(name=f"players/{ann}", kind=pb.LIMIT_KIND_LOSS, currency_code="USD",
                                period=DAY, amount=1), metadata=player.metadata))
    assert (code, reason) == (grpc.StatusCode.PERMISSION_DENIED, "OPERATOR_ONLY")
    bad = [
        (pb.LIMIT_KIND_DEPOSIT, 100, "ZZZ", DAY, "currency_code"),
        (pb.LIMIT_KIND_DEPOSIT, 100, "USD", pb.LIMIT_PERIOD_UNSPECIFIED, "period"),
        (pb.LIMIT_KIND_LOSS, -1, "USD", DAY, "amount"),
        (pb.LIMIT_KIND_SESSION_TIME, 100_000, "", pb.LIMIT_PERIOD_UNSPECIFIED, "amount"),
        (pb.LIMIT_KIND_UNSPECIFIED, 100, "USD", DAY, "kind"),
    ]
    for kind, amount, currency, period, field in bad:
        code, reason, metadata = await refused(set_limit(player, ann, kind, amount, currency, period))
        assert (code, reason) == (grpc.StatusCode.INVALID_ARGUMENT, "MALFORMED_REQUEST")
        assert metadata.get("field") == field
    code, reason, metadata = await refused(player.protection.TakeTimeOut(
        pb.TakeTimeOutRequest(name=f"players/{ann}", duration_seconds=43 * 86_400), metadata=player.metadata))
    assert (reason, metadata["field"]) == ("MALFORMED_REQUEST", "duration_seconds")
    code, reason, metadata = await refused(player.protection.SetRealityCheck(
        pb.SetRealityCheckRequest(name=f"players/{ann}", interval_seconds=10), metadata=player.metadata))
    assert (reason, metadata["field"]) == ("MALFORMED_REQUEST", "interval_seconds")
    assert await heads(grpc_service, f"players/{ann}") == [0]


@pytest.mark.parametrize("transport", TRANSPORTS)
async def test_a_sit_down_past_the_session_limit_is_refused(grpc_service, operator, make_player, ann):
    player = make_player(ann)
    await set_session_limit(player, ann, 1)
    first, second = await new_table(operator, play_money=True), await new_table(operator, play_money=True)
    await player.sit_down(first, 1, 4_000)  # the session begins
    await asyncio.sleep(1.2)
    before = await heads(grpc_service, f"players/{ann}", f"tables/{second}")
    code, reason, metadata = await refused(player.sit_down(second, 1, 4_000))
    assert (code, reason) == (grpc.StatusCode.FAILED_PRECONDITION, "SESSION_LIMIT_REACHED")
    assert (metadata["remaining_seconds"], metadata["limit_seconds"]) == ("0", "1")
    assert await heads(grpc_service, f"players/{ann}", f"tables/{second}") == before


async def play_passively(clients, table_id: str, done, timeout: float = 60.0) -> None:
    """Every player checks, calls or brings in when it is their turn, until ``done(view)`` holds."""
    deadline = asyncio.get_running_loop().time() + timeout
    while asyncio.get_running_loop().time() < deadline:
        for client in clients:
            view = await client.view(table_id)
            if done(view):
                return
            passive = [choice for choice in view.legal_actions if choice.type in PASSIVE]
            if passive:
                with contextlib.suppress(grpc.aio.AioRpcError):  # the turn moved on meanwhile
                    await client.act(table_id, view.viewer_seat, passive[0].type, passive[0].amount,
                                     view.turn)
        await asyncio.sleep(0.02)
    raise AssertionError("the table never got there")


async def test_a_player_at_the_session_limit_plays_the_hand_out_then_is_sat_out_and_told_why(
    grpc_service, operator, ann
):
    ben = f"ben-{uuid.uuid4().hex[:8]}"
    clients = [grpc_service.client(ann), grpc_service.client(ben)]
    table_id = await new_table(operator, play_money=True)
    await set_session_limit(clients[0], ann, 2)
    await clients[0].sit_down(table_id, 1, 4_000)
    await clients[1].sit_down(table_id, 2, 4_000)

    def ann_sat_out(view: table_pb2.TableView) -> bool:
        return any(seat.seat == 1 and seat.sitting_out for seat in view.seats)

    await play_passively(clients, table_id, ann_sat_out)
    view = await wait_for_view(clients[0], table_id, ann_sat_out)
    (seat,) = [seat for seat in view.seats if seat.seat == 1]
    assert seat.sit_out_reason == table_pb2.SIT_OUT_REASON_SESSION_LIMIT
    log = [stored.payload for stored in await grpc_service.store.read_stream(f"tables/{table_id}")]
    sat_out = next(i for i, event in enumerate(log)
                   if event["type"] == "PlayerSatOut" and event["player_id"] == ann)
    assert log[sat_out]["reason"] == "session_limit"
    # The hand she was in was played out: it ended before she was sat out, and nobody folded for her.
    last_start = max(i for i, event in enumerate(log[:sat_out]) if event["type"] == "HandStarted")
    assert any(event["type"] == "HandEnded" for event in log[last_start:sat_out])
    played = log[last_start:sat_out]
    assert not any(event["type"] == "PlayerActed" and event.get("timeout") for event in played)
    code, reason, _ = await refused(clients[0].sit_in(table_id))
    assert reason == "SESSION_LIMIT_REACHED"


async def test_an_excluded_player_at_a_table_leaves_when_the_hand_ends(grpc_service, operator, ann):
    ben = f"ben-{uuid.uuid4().hex[:8]}"
    clients = [grpc_service.client(ann), grpc_service.client(ben)]
    for player in (ann, ben):
        await operator.deposit(player, 10_000)
    table_id = await new_table(operator)
    await clients[0].sit_down(table_id, 1, 4_000)
    await clients[1].sit_down(table_id, 2, 4_000)
    await wait_for_view(clients[0], table_id, lambda view: view.HasField("hand"))
    excluded = await clients[0].protection.SelfExclude(
        pb.SelfExcludeRequest(name=f"players/{ann}", duration_seconds=86_400), metadata=clients[0].metadata)
    assert list(excluded.tables) == [f"tables/{table_id}"]
    await play_passively(clients, table_id, lambda view: not any(seat.seat == 1 for seat in view.seats))
    assert list((await operator.account(ann)).at_tables) == []
    log = [stored.payload for stored in await grpc_service.store.read_stream(f"tables/{table_id}")]
    left = next(i for i, event in enumerate(log)
                if event["type"] == "PlayerLeft" and event["player_id"] == ann)
    assert log[left - 1]["type"] in ("HandEnded", "ShuffleCommitted", "PlayerSatOut")
    assert not any(event["type"] == "LeaveRequested" for event in log)


async def test_a_player_inactive_for_the_operators_time_out_is_sat_out_before_the_next_deal(
    grpc_service, operator, ann
):
    """RTS 13 / AGCO 4.30: ann sits down and makes no call for longer than the time-out; the deal that ben's
    arrival brings sits her out (reason inactive), not ben, who just called; her SitIn brings her back."""
    settings = grpc_service.runtime.settings  # the service is shared: its setting is put back after
    grpc_service.runtime.settings = replace(settings, inactivity_timeout=2.0)
    try:
        ben = f"ben-{uuid.uuid4().hex[:8]}"
        clients = [grpc_service.client(ann), grpc_service.client(ben)]
        table_id = await new_table(operator, play_money=True)
        await clients[0].sit_down(table_id, 1, 4_000)
        await asyncio.sleep(3.0)  # past the time-out: ann made no call since her SitDown
        await clients[1].sit_down(table_id, 2, 4_000)

        def ann_sat_out(view: table_pb2.TableView) -> bool:
            return any(seat.seat == 1 and seat.sitting_out for seat in view.seats)

        view = await wait_for_view(clients[1], table_id, ann_sat_out)
        seats = {seat.seat: seat for seat in view.seats}
        assert seats[1].sit_out_reason == table_pb2.SIT_OUT_REASON_INACTIVE and not seats[2].sitting_out
        log = [stored.payload for stored in await grpc_service.store.read_stream(f"tables/{table_id}")]
        assert [(event["player_id"], event["reason"]) for event in log if event["type"] == "PlayerSatOut"] \
            == [(ann, "inactive")]
        back = await clients[0].sit_in(table_id)
        assert not [seat for seat in back.seats if seat.seat == 1][0].sitting_out
    finally:
        grpc_service.runtime.settings = settings


async def test_a_call_at_another_table_counts_as_activity_for_the_inactivity_time_out(
    grpc_service, operator, ann
):
    """The time-out counts from a player's last call at any table: ann, seated at two, makes no call at the
    first for longer than the time-out but one at the second meanwhile; the deal at the first deals her in."""
    settings = grpc_service.runtime.settings  # the service is shared: its setting is put back after
    timeout = 6.0  # generous: the deal must come within this of her call at the second table
    grpc_service.runtime.settings = replace(settings, inactivity_timeout=timeout)
    try:
        ben = f"ben-{uuid.uuid4().hex[:8]}"
        clients = [grpc_service.client(ann), grpc_service.client(ben)]
        first, second = await new_table(operator, play_money=True), await new_table(operator, play_money=True)
        await clients[0].sit_down(first, 1, 4_000)
        await clients[0].sit_down(second, 1, 4_000)
        await asyncio.sleep(timeout * 0.75)
        await clients[0].sit_out(second)  # a call of hers, at the second table
        await asyncio.sleep(timeout * 0.5)  # past the time-out since her last call at the first
        await clients[1].sit_down(first, 2, 4_000)

        def dealt(view: table_pb2.TableView) -> bool:
            return view.HasField("hand") or any(seat.sitting_out for seat in view.seats)

        view = await wait_for_view(clients[1], first, dealt)
        assert not any(seat.sitting_out for seat in view.seats), "sat out though she called at another table"
        log = [stored.payload for stored in await grpc_service.store.read_stream(f"tables/{first}")]
        assert any(event["type"] == "HandStarted" for event in log)
        assert not any(event["type"] == "PlayerSatOut" for event in log)
    finally:
        grpc_service.runtime.settings = settings


async def test_the_record_of_players_calls_forgets_tables_no_longer_loaded(grpc_service, operator, ann):
    """Calls noted at tables since unloaded are swept from the replica's record as it grows, so it stays the
    size of the players at tables loaded; a call at a loaded table is kept."""
    keeper = grpc_service.runtime.protection
    table_id = await new_table(operator, play_money=True)
    await grpc_service.client(ann).sit_down(table_id, 1, 4_000)
    for number in range(5_000):
        gone = LiveTable(f"gone-{number}")  # a table this replica no longer holds
        keeper.note_activity(gone, {"type": "PlayerSatIn", "player_id": f"p{number}", "at_ms": 1})
    assert len(keeper._active_at) < 2_100
    assert table_id in keeper._active_at[ann]


async def test_reality_checks_reach_the_players_watch_stream(grpc_service, operator, ann):
    player = grpc_service.client(ann)
    await operator.deposit(ann, 10_000)
    await player.protection.SetRealityCheck(
        pb.SetRealityCheckRequest(name=f"players/{ann}", interval_seconds=1800), metadata=player.metadata)
    table_id = await new_table(operator)
    await player.sit_down(table_id, 1, 4_000)
    await player.top_up(table_id, 1_000)
    start = await grpc_service.store.head(f"players/{ann}")
    stream = player.protection.WatchPlayer(pb.WatchPlayerRequest(name=f"players/{ann}", after_version=start),
                                           metadata=player.metadata)
    now = int(time.time() * 1000)
    assert await grpc_service.runtime.protection.record_reality_checks(now + 60_000) == 0  # not due yet
    assert await grpc_service.runtime.protection.record_reality_checks(now + 1_801_000) >= 1
    reply = await asyncio.wait_for(stream.read(), 30)
    stream.cancel()
    assert reply.type == "RealityCheck"
    check = reply.reality_check
    assert 1_800 <= check.session_seconds < 1_900
    assert [(net.currency_code, net.amount) for net in check.net_results] == [("USD", 0)]
    assert reply.protection.reality_check_interval_seconds == 1800
    # Recorded once: a second round at the same time finds it done.
    assert await grpc_service.runtime.protection.record_reality_checks(now + 1_801_000) == 0
