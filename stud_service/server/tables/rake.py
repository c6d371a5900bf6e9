"""The house's rake: what the loaded tables took, swept into the house's accounts now and then.

Sweeps by several replicas never take a table's rake twice: each ``RakeSwept`` records the table's rake
total it took up to (docs/money.md).
"""

from __future__ import annotations

import asyncio
import logging

from stud_service.engine.state import hands_ended
from stud_service.ledger.accounts import TableRake
from stud_service.ledger.book import Ledger
from stud_service.server.tables.cache import TableCache
from stud_service.server.tables.live import now_ms
from stud_service.server.tables.settings import RuntimeSettings
from stud_service.server.tables.tasks import TableTasks
from stud_service.store.errors import is_store_fault

_log = logging.getLogger(__name__)


class RakeSweeper:
    """Sweeps the rake of ``cache``'s tables through ``ledger``, every ``settings.rake_sweep_interval``
    seconds once started."""

    def __init__(
        self, ledger: Ledger, cache: TableCache, tasks: TableTasks, settings: RuntimeSettings
    ) -> None:
        self.ledger = ledger
        self.cache = cache
        self.tasks = tasks
        self.settings = settings

    def sweep_periodically(self) -> None:
        """From now on, sweep every ``rake_sweep_interval`` seconds (0: never)."""
        if self.settings.rake_sweep_interval > 0:
            self.tasks.spawn(self._sweep_forever())

    async def _sweep_forever(self) -> None:
        interval = self.settings.rake_sweep_interval
        while True:
            await asyncio.sleep(interval)
            try:
                await self.sweep()
            except Exception as error:  # the next sweep takes what this one left
                if not is_store_fault(error):
                    _log.exception("sweeping the rake failed")

    async def sweep(self) -> int:
        """Move the rake the loaded tables have taken since their last sweep into the house's account of each
        currency, one command per currency; the amount moved."""
        by_currency: dict[str, list[TableRake]] = {}
        for live in self.cache.loaded_tables():
            state = live.state
            if state.config is not None and state.config.currency and state.rake_taken > 0:
                by_currency.setdefault(state.config.currency, []).append(
                    TableRake(live.table_id, live.version, state.rake_taken, hands_ended(state))
                )
        moved = 0
        for currency, tables in sorted(by_currency.items()):
            moved += await self.ledger.sweep(currency, sorted(tables, key=lambda t: t.table_id), now_ms())
        return moved
