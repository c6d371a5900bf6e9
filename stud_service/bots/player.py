"""A bot player: watches its table through the API and acts whenever its view offers it actions."""

from __future__ import annotations

import asyncio
import contextlib
import random
import time
from collections.abc import Callable
from dataclasses import dataclass, field

import grpc

from stud_service.bots.client import StudClient, error_reason, events_of
from stud_service.server.proto_gen import errors_pb2, table_pb2

Strategy = Callable[[table_pb2.TableView, random.Random], table_pb2.LegalAction]

_PASSIVE = (table_pb2.ACTION_TYPE_CHECK, table_pb2.ACTION_TYPE_CALL, table_pb2.ACTION_TYPE_BRING_IN)
_AGGRESSIVE = (table_pb2.ACTION_TYPE_BET, table_pb2.ACTION_TYPE_RAISE, table_pb2.ACTION_TYPE_COMPLETE)
# Refusals a bot shrugs off: the table moved on before its click arrived; a later view says what now.
_RACE_REASONS = frozenset(errors_pb2.ErrorReason.Name(reason) for reason in (
    errors_pb2.STALE_TURN, errors_pb2.NOT_YOUR_TURN, errors_pb2.HAND_NOT_RUNNING, errors_pb2.CONFLICT))


def random_strategy(view: table_pb2.TableView, rng: random.Random) -> table_pb2.LegalAction:
    """Mostly checks and calls, sometimes bets or raises, now and then folds to a bet."""
    legal = list(view.legal_actions)
    passive = [action for action in legal if action.type in _PASSIVE]
    aggressive = [action for action in legal if action.type in _AGGRESSIVE]
    can_fold_to_bet = any(action.type == table_pb2.ACTION_TYPE_CALL for action in legal)
    roll = rng.random()
    if aggressive and roll < 0.25:
        return rng.choice(aggressive)
    if can_fold_to_bet and roll > 0.88:
        return next(action for action in legal if action.type == table_pb2.ACTION_TYPE_FOLD)
    if passive:
        return passive[0]
    return legal[0]


def cautious_strategy(view: table_pb2.TableView, rng: random.Random) -> table_pb2.LegalAction:
    """Checks or calls whenever it can (posts the bring-in rather than completing)."""
    legal = list(view.legal_actions)
    for action in legal:
        if action.type in _PASSIVE:
            return action
    return legal[0]


@dataclass
class BotStats:
    actions: int = 0
    refused: int = 0
    hands_seen: int = 0
    messages: int = 0  # watch-stream messages received
    latencies: list[float] = field(default_factory=list)  # seconds per Act call


@dataclass
class Bot:
    """Plays one seat. ``run`` returns after ``hands`` hands have ended at the table (or on ``stop``)."""

    client: StudClient
    table_id: str
    seat: int
    strategy: Strategy = random_strategy
    seed: int | None = None
    # Sit back in when the table sat the bot out (after a timeout).
    sit_in_when_out: bool = True
    # Chips to top up with when the bot has none left, before sitting back in (0: a busted bot stays out).
    # Play that goes on for long needs it: players bust, the rake drains the rest, and a table left with
    # fewer than two players who can post deals no more.
    top_up_when_busted: int = 0
    # Seconds to wait before each action: 0 for tests and benchmarks; a person watching needs a pause.
    think_seconds: float = 0.0
    # Or a think time drawn anew before each action, uniformly between these seconds (a person's pace).
    think_range: tuple[float, float] | None = None
    stats: BotStats = field(default_factory=BotStats)
    _topped_up_at: int = field(default=0, init=False, repr=False)  # the table's version after its last top-up

    async def sit(self, buy_in: int) -> None:
        await self.client.sit_down(self.table_id, self.seat, buy_in)

    async def run(self, hands: int, stop: asyncio.Event | None = None) -> None:
        rng = random.Random(self.seed)
        # One message per command, with the view after it: the bot decides on the newest view only.
        stream = self.client.watch(self.table_id, include_views=True, batch_events=True)
        try:
            async for message in stream:
                self.stats.messages += 1
                ended = sum(event.type == "HandEnded" for event in events_of(message))
                if ended:
                    self.stats.hands_seen += ended
                    if self.stats.hands_seen >= hands:
                        return
                if stop is not None and stop.is_set():
                    return
                view = message.view
                if not view.legal_actions or view.viewer_seat != self.seat:
                    sat_out = view.viewer_seat == self.seat and _sitting_out(view, self.seat)
                    if sat_out and self.sit_in_when_out:
                        await self._sit_back_in(view)
                    continue
                await self._act(view, rng)
        finally:
            stream.cancel()

    async def _act(self, view: table_pb2.TableView, rng: random.Random) -> None:
        if self.think_range is not None:
            await asyncio.sleep(rng.uniform(*self.think_range))
        elif self.think_seconds:
            await asyncio.sleep(self.think_seconds)
        choice = self.strategy(view, rng)
        started = time.perf_counter()
        try:
            await self.client.act(self.table_id, self.seat, choice.type, choice.amount, view.turn)
        except grpc.aio.AioRpcError as error:
            if error_reason(error) not in _RACE_REASONS:
                raise
            self.stats.refused += 1
            return
        self.stats.latencies.append(time.perf_counter() - started)
        self.stats.actions += 1

    async def _sit_back_in(self, view: table_pb2.TableView) -> None:
        # Views sent before this bot's top-up still show it busted: it tops up once for that.
        busted = _stack(view, self.seat) == 0 and view.version > self._topped_up_at
        if busted and self.top_up_when_busted:
            topped_up = await self.client.top_up(self.table_id, self.top_up_when_busted)
            self._topped_up_at = topped_up.version
        with contextlib.suppress(grpc.aio.AioRpcError):  # already back in: the next view says so
            await self.client.sit_in(self.table_id)


def _sitting_out(view: table_pb2.TableView, seat: int) -> bool:
    return any(seat_view.seat == seat and seat_view.sitting_out for seat_view in view.seats)


def _stack(view: table_pb2.TableView, seat: int) -> int | None:
    return next((seat_view.stack for seat_view in view.seats if seat_view.seat == seat), None)
