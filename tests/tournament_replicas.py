"""Replicas for the tournament server's tests: a TableRuntime (and so its ``tournaments``) on a pool and a
sealed store of its own, over a database of the test's; funded players; a tournament driven to its end
through the runtime's execute path by the domain's simulation."""

from __future__ import annotations

import asyncio
import contextlib
import uuid
from collections.abc import AsyncIterator
from typing import Any

from sealing_keys import sealed_store

from stud_service.db import open_pool
from stud_service.ledger.names import account_stream
from stud_service.server.tables.runtime import TableRuntime
from stud_service.server.tables.settings import RuntimeSettings
from stud_service.tournaments import Level, TournamentConfig, TournamentKind, TournamentState
from stud_service.tournaments.simulate import T0_MS, SimulatedTournament, simulate_tournament

FAST_LEVELS = (Level(5, 10, 20, 40, 1), Level(10, 20, 40, 80, 1), Level(20, 50, 100, 200, 1))


def scheduled(**fields: Any) -> TournamentConfig:
    """A scheduled tournament (it never starts by itself: registrations pile up), USD 10 + 1 by default."""
    values: dict[str, Any] = {"kind": TournamentKind.SCHEDULED, "start_ms": T0_MS, "min_entrants": 2,
                              "max_entrants": 100, "buy_in": 1_000, "fee": 100, "currency": "USD",
                              "levels": FAST_LEVELS, "starting_stack": 300}
    return TournamentConfig(**{**values, **fields}).validate()


def new_id(prefix: str = "t") -> str:
    return f"{prefix}-{uuid.uuid4().hex[:10]}"


@contextlib.asynccontextmanager
async def replica(database_url: str, pool_size: int = 8,
                  settings: RuntimeSettings | None = None) -> AsyncIterator[TableRuntime]:
    """One replica of the service's runtime on the database (by default dealing off: no table plays by
    itself, no tournament is driven)."""
    pool = await open_pool(database_url, max_size=pool_size)
    store = sealed_store(pool)
    runtime = TableRuntime(store, settings or RuntimeSettings(auto_deal=False))
    try:
        yield runtime
    finally:
        await runtime.close()
        await store.close()
        await pool.close()


async def fund(runtime: TableRuntime, players: list[str], amount: int, currency: str = "USD") -> None:
    await asyncio.gather(*(
        runtime.ledger.cashier("deposit", account_stream(player, currency), amount, f"pay-{player}", 0)
        for player in players
    ))


async def balance(runtime: TableRuntime, player: str, currency: str = "USD") -> int:
    return (await runtime.ledger.account(account_stream(player, currency))).balance


def drive(runtime: TableRuntime, loop: asyncio.AbstractEventLoop, tournament_id: str,
          config: TournamentConfig, seed: int, **options: Any) -> SimulatedTournament:
    """Play a whole tournament as ``simulate_tournament`` does, every tournament command going through
    ``runtime.tournaments.execute`` (appended, money moved); run it in a thread beside ``loop``."""
    def execute(_state: TournamentState, command: Any) -> tuple[list[Any], TournamentState]:
        done = asyncio.run_coroutine_threadsafe(runtime.tournaments.execute(tournament_id, command), loop)
        executed = done.result(timeout=60)
        return executed.events, executed.state

    return simulate_tournament(config, seed, tournament_id=tournament_id, execute=execute, **options)
