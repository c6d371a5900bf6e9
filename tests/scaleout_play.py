"""Helpers for the scale-out test: bots that fail over to another replica, and the tables as the log
tells them (read straight from PostgreSQL, independent of any replica)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import grpc

from stud_service.audit import verify_hand
from stud_service.bots import Bot, StudClient, cautious_strategy, random_strategy
from stud_service.bots.player import BotStats
from stud_service.engine import TableState, chips_in_play, event_from_json, initial_state
from stud_service.engine.evolve import apply_in_place
from stud_service.server.runtime import stream_id_for
from stud_service.store import EventStore


@dataclass
class Replica:
    """One server process as a client sees it: a channel, and whether the process still runs."""

    name: str
    channel: grpc.aio.Channel
    alive: Callable[[], bool]


@dataclass
class SeatDriver:
    """Plays one seat through ``replicas[start]``; when that replica dies, reconnects to the next live
    one and plays on (or, if ``silent_after_failure``, stops acting: its clock must then fire)."""

    table_id: str
    seat: int
    token: str
    replicas: list[Replica]
    start: int
    seed: int
    silent_after_failure: bool = False
    cautious: bool = False
    stats: BotStats = field(default_factory=BotStats)
    connected_to: str = ""
    failovers: int = 0
    actions_at_failover: int | None = None

    async def drive(self) -> None:
        index = self.start
        while True:
            replica = self.replicas[index]
            self.connected_to = replica.name
            bot = Bot(
                StudClient(replica.channel, self.token),
                self.table_id,
                self.seat,
                strategy=cautious_strategy if self.cautious else random_strategy,
                seed=self.seed + self.failovers,
                stats=self.stats,
            )
            try:
                await bot.run(hands=10**9)
                return
            except grpc.aio.AioRpcError:
                if replica.alive():
                    raise  # a live replica refused or failed: that is a finding, not a failover
            if self.silent_after_failure:
                self.connected_to = ""
                return
            index = next(i for i, other in enumerate(self.replicas) if other.alive())
            self.failovers += 1
            if self.actions_at_failover is None:
                self.actions_at_failover = self.stats.actions

    @property
    def actions_since_failover(self) -> int:
        return 0 if self.actions_at_failover is None else self.stats.actions - self.actions_at_failover


@dataclass
class LoggedTable:
    """A table folded from its stream in PostgreSQL, read incrementally."""

    table_id: str
    state: TableState = field(default_factory=initial_state)
    payloads: list[dict[str, Any]] = field(default_factory=list)

    @property
    def version(self) -> int:
        return len(self.payloads)

    async def refresh(self, store: EventStore) -> None:
        for stored in await store.read_stream(stream_id_for(self.table_id), after_version=self.version):
            assert stored.version == self.version + 1, "the log has a gap"
            self.state = apply_in_place(self.state, event_from_json(stored.payload))
            self.payloads.append(stored.payload)

    def after(self, version: int, kind: str) -> list[dict[str, Any]]:
        """Events of type ``kind`` recorded after ``version``."""
        return [p for p in self.payloads[version:] if p["type"] == kind]

    def hands_ended(self) -> list[int]:
        return [p["hand"] for p in self.payloads if p["type"] == "HandEnded"]

    def mid_hand(self) -> bool:
        """A hand is running and somebody has already acted in it."""
        hand = self.state.hand
        if hand is None:
            return False
        started = max(i for i, p in enumerate(self.payloads) if p["type"] == "HandStarted")
        return any(p["type"] == "PlayerActed" for p in self.payloads[started:])


async def check_hands_and_chips(store: EventStore, table: LoggedTable) -> None:
    """Every hand of ``table`` verifies (chain, shuffle, replay, chips) and every chip bought in is at the
    table, cashed out or taken as rake."""
    for hand in table.hands_ended():
        report = await verify_hand(store, table.table_id, hand)
        assert report.ok, report.summary()
    bought = sum(p["buy_in"] for p in table.payloads if p["type"] == "PlayerSeated")
    bought += sum(p["amount"] for p in table.payloads if p["type"] == "PlayerToppedUp")
    cashed_out = sum(p["cash_out"] for p in table.payloads if p["type"] == "PlayerLeft")
    kept = chips_in_play(table.state) + table.state.rake_taken  # the rake left the table (§10)
    assert kept + cashed_out == bought, f"chips lost or made at {table.table_id}"
