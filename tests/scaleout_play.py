"""Helpers for the scale-out test: bots that fail over to another replica (``stud_service.bots.failover``),
and the tables as the log tells them (read straight from PostgreSQL, independent of any replica)."""

from __future__ import annotations

import asyncio
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

import grpc

from stud_service.audit import verify_hand
from stud_service.bots.failover import Replica, SeatDriver
from stud_service.engine import TableState, chips_in_play, event_from_json, initial_state
from stud_service.engine.evolve import apply_in_place
from stud_service.server.tables.live import stream_id_for
from stud_service.store import EventStore

__all__ = ["LoggedTable", "Replica", "SeatDriver", "check_hands_and_chips"]


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


def raise_a_failure(tasks: Iterable[asyncio.Task[Any]]) -> None:
    """Raise the error of the first of the clients' tasks that failed (it met what it should not)."""
    for task in tasks:
        if task.done() and not task.cancelled() and task.exception() is not None:
            raise task.exception()  # type: ignore[misc]


async def stop_clients(tasks: Iterable[asyncio.Task[Any]], channels: Iterable[grpc.aio.Channel]) -> None:
    """Cancel the clients' tasks, wait until they have stopped, and close their channels."""
    tasks = list(tasks)
    for task in tasks:
        task.cancel()
    await asyncio.gather(*tasks, return_exceptions=True)
    for channel in channels:
        await channel.close()
