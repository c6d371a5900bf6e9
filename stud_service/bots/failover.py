"""A seat played through one of several replicas, moving to a live one when its replica dies.

Any replica accepts any player's command (docs/deployment.md, "Ownership"), so a client whose replica went
away plays on through another: the failover tests and ``benchmarks/bench_failover.py`` drive their seats so.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

import grpc

from stud_service.bots.client import StudClient
from stud_service.bots.player import Bot, BotStats, cautious_strategy, random_strategy


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
    think_seconds: float = 0.0
    top_up_when_busted: int = 0  # Bot.top_up_when_busted
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
                think_seconds=self.think_seconds,
                top_up_when_busted=self.top_up_when_busted,
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
