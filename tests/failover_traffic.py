"""Clients playing and depositing through one or more replicas while the database fails over: each call
answered UNAVAILABLE (or not at all) is sent again unchanged, so with the same request id, through the next
replica, as a client fails over; every call answered OK is noted, to look for in the log afterwards. Used by
tests/test_ha_failover.py and benchmarks/bench_failover_db.py.
"""

from __future__ import annotations

import asyncio
import random
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field

import grpc
from google.protobuf.message import Message

from stud_service.auth import Principal, Role, mint_token
from stud_service.bots import StudClient
from stud_service.bots.client import account_name, error_reason, new_request_id
from stud_service.server.api.request_ids import request_key
from stud_service.server.proto_gen import cashier_service_pb2, table_service_pb2

CALL_DEADLINE = 30.0  # longer than any failover measured: a call caught by one is resolved inside it
GIVE_UP = 270.0  # a client stops retrying one call after this long: the failover never ended
# Refusals of a click that came too late (the hand or turn moved on): decide again on the next view.
RACES = {"STALE_TURN", "NOT_YOUR_TURN", "ACTION_NOT_AVAILABLE", "HAND_NOT_RUNNING"}


@dataclass
class Traffic:
    """What the clients were told went in."""

    acts: list[tuple[Principal, Message]] = field(default_factory=list)
    deposits: list[tuple[Principal, Message]] = field(default_factory=list)
    deposited: dict[str, int] = field(default_factory=dict)  # account -> amount acknowledged
    retries: int = 0
    reasons: dict[str, int] = field(default_factory=dict)  # why calls were retried
    not_ready: list[str] = field(default_factory=list)  # a replica's readiness other than SERVING, when seen

    def acknowledged_keys(self) -> list[str]:
        """The request ids, as the log stores them, of every call answered OK."""
        return [request_key(principal, request).key  # type: ignore[union-attr]
                for principal, request in self.acts + self.deposits]


@dataclass
class Replicas:
    channels: list[grpc.aio.Channel]
    secret: str  # the tokens' signing secret

    async def call(self, traffic: Traffic, start: int,
                   method: Callable[[grpc.aio.Channel], Awaitable[Message]]) -> Message:
        """``method`` through replica ``start``; a call answered UNAVAILABLE (or not at all) is sent again
        unchanged (so with the same request id) through the other replica, as a client fails over."""
        index = start
        deadline = time.monotonic() + GIVE_UP
        while True:
            try:
                return await method(self.channels[index % len(self.channels)])
            except grpc.aio.AioRpcError as error:
                if error.code() not in (grpc.StatusCode.UNAVAILABLE, grpc.StatusCode.DEADLINE_EXCEEDED):
                    raise
                if time.monotonic() > deadline:
                    raise
                reason = error_reason(error) or error.code().name
                traffic.retries += 1
                traffic.reasons[reason] = traffic.reasons.get(reason, 0) + 1
                index += 1
                await asyncio.sleep(0.2)


async def play_seat(replicas: Replicas, traffic: Traffic, table_id: str, player: str, start: int,
                    rng: random.Random) -> None:
    """Act for ``player`` whenever it is their turn, until cancelled; each acknowledged Act is noted."""
    token = mint_token(replicas.secret, player)
    principal = Principal(player, Role.PLAYER)
    while True:
        view = await replicas.call(traffic, start, lambda ch: StudClient(ch, token).view(table_id))
        if not view.legal_actions:
            await asyncio.sleep(0.05)
            continue
        choice = rng.choice(list(view.legal_actions))
        request = table_service_pb2.ActRequest(
            name=f"tables/{table_id}", seat=view.viewer_seat, action=choice.type, amount=choice.amount,
            turn=view.turn, request_id=new_request_id())
        try:
            await replicas.call(traffic, start, lambda ch, request=request: StudClient(ch, token).stub.Act(
                request, metadata=StudClient(ch, token).metadata, timeout=CALL_DEADLINE))
        except grpc.aio.AioRpcError as error:
            if error_reason(error) not in RACES:
                raise
            continue
        traffic.acts.append((principal, request))


async def deposit_every(replicas: Replicas, traffic: Traffic, period: float) -> None:
    """The cashier: a deposit every ``period`` seconds into one of a few accounts, until cancelled."""
    operator_token = mint_token(replicas.secret, "house", Role.OPERATOR)
    principal = Principal("house", Role.OPERATOR)
    count = 0
    while True:
        count += 1
        account = account_name(f"saver{count % 3}")
        request = cashier_service_pb2.DepositRequest(
            account=account, amount=100 + count, currency_code="USD",
            payment_reference=f"pay-{new_request_id()}", request_id=new_request_id())

        async def deposit(ch: grpc.aio.Channel, request=request) -> Message:
            client = StudClient(ch, operator_token)
            return await client.cashier.Deposit(request, metadata=client.metadata, timeout=CALL_DEADLINE)

        await replicas.call(traffic, count, deposit)
        traffic.deposits.append((principal, request))
        traffic.deposited[account] = traffic.deposited.get(account, 0) + request.amount
        await asyncio.sleep(period)
