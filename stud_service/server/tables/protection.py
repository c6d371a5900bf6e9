"""Player protection at the tables (docs/player-protection.md): between hands, and reality checks.

Before each deal the table's owner looks at its seated players' standings (one query for the heads of all
their streams; a stream is read only when it moved) and, for each:

- suspended (by an operator) or excluded (by themselves, or on a time-out): they leave, their stack going
  back to their account;
- dealt in but at a loss limit, past their session limit, or inactive for the operator's time-out: they are
  sat out with that reason (``PlayerSatOut``, which every view shows).

So a player whom a limit catches during a hand plays it out, and is not dealt the next one. Every
``reality_check_poll`` seconds each replica also appends a ``RealityCheck`` to the stream of each player at
the tables it owns whose chosen interval has come round (the check is decided against the stream at its
version, so of several replicas only one records it).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Iterable
from typing import Any

from stud_service.engine import DomainError, Leave, LeaveWaitingList, SitOut
from stud_service.ledger import enforce, protection
from stud_service.ledger.book import Ledger
from stud_service.ledger.names import account_stream
from stud_service.ledger.players import PlayerStanding
from stud_service.server.tables.cache import TableCache
from stud_service.server.tables.live import LiveTable, now_ms
from stud_service.server.tables.owned import OwnedTables
from stud_service.server.tables.settings import RuntimeSettings
from stud_service.server.tables.tasks import TableTasks
from stud_service.server.tables.writes import TableWrites
from stud_service.store import ConcurrencyError
from stud_service.store.errors import is_store_fault

_log = logging.getLogger(__name__)

EXCLUDED = "excluded"  # a SitOut's reason at a tournament's table

# The record of where players made calls is swept of unloaded tables when it has at least this many players.
_PRUNE_AT_LEAST = 1024
# Events a player's own call causes: their activity, for the inactivity time-out.
_PLAYER_EVENTS = frozenset({"PlayerSeated", "PlayerSatIn", "PlayerSatOut", "PlayerToppedUp", "ClientSeedSet",
                            "LeaveRequested", "WaitingListJoined"})


class ProtectionKeeper:
    def __init__(
        self,
        ledger: Ledger,
        writes: TableWrites,
        cache: TableCache,
        owned: OwnedTables,
        tasks: TableTasks,
        settings: RuntimeSettings,
    ) -> None:
        self.ledger = ledger
        self.writes = writes
        self.cache = cache
        self.owned = owned
        self.tasks = tasks
        self.settings = settings
        # Per player, the tables loaded here whose ``last_active`` has them: where their inactivity time-out
        # looks, instead of at every table loaded (a pass over all of them for each player at each deal).
        self._active_at: dict[str, set[str]] = {}
        self._prune_at = _PRUNE_AT_LEAST

    # -- between hands ---------------------------------------------------------------------------

    async def before_deal(self, live: LiveTable, version: int) -> bool:
        """Before a deal: players who must not be dealt in leave or sit out. Whether any command was written
        (it re-arms the dealer)."""
        state = live.state
        if state.config is None:
            return False
        seated = {seat.player_id: seat for seat in state.seats.values()}
        if not seated:
            return False
        standings = await self.ledger.standings(seated)
        now = now_ms()
        wrote = False
        for player in sorted(seated):
            standing = standings[player]
            seat = seated[player]
            if standing.suspended or standing.excluded_at(now) is not None:
                command: Any = Leave(player, now_ms=now)
            elif seat.sitting_out:
                continue
            elif (reason := await self._sit_out_reason(live, standing, seat.stack, now)) is not None:
                command = SitOut(player, now_ms=now, reason=reason)
            else:
                continue
            await self.writes.write(live, lambda state, at, c=command: c, None, version)
            version = live.version
            wrote = True
        return wrote

    async def _sit_out_reason(
        self, live: LiveTable, standing: PlayerStanding, stack: int, now: int
    ) -> str | None:
        config = live.state.config
        assert config is not None
        if config.currency and any(
            key.kind == "loss" and key.currency == config.currency for key in standing.limits
        ):
            account = await self.ledger.account(account_stream(standing.player_id, config.currency))
            if enforce.loss_reached(standing, account, stack, now):
                return "loss_limit"
        if enforce.session_over(standing, now):
            return "session_limit"
        timeout_ms = int(self.settings.inactivity_timeout * 1000)
        if timeout_ms > 0 and now - self._last_active(standing.player_id, live, now) >= timeout_ms:
            return "inactive"
        return None

    def note_activity(self, live: LiveTable, payload: dict[str, Any]) -> None:
        """Remember when a player last made a call at ``live`` (an event of theirs, not the clock's)."""
        kind = payload.get("type")
        if kind == "PlayerActed":
            if payload.get("timeout"):
                return
            seat = live.state.seats.get(payload["seat"])
            if seat is not None:
                self._active(live, seat.player_id, payload["at_ms"])
        elif kind in _PLAYER_EVENTS and payload.get("reason", "request") == "request":
            self._active(live, payload["player_id"], payload["at_ms"])

    def _active(self, live: LiveTable, player: str, at_ms: int) -> None:
        live.last_active[player] = at_ms
        tables = self._active_at.get(player)
        if tables is None:
            if len(self._active_at) >= self._prune_at:
                self._forget_unloaded()
            tables = self._active_at[player] = set()
        tables.add(live.table_id)

    def _forget_unloaded(self) -> None:
        """Forget the players whose tables have all been unloaded (their calls there went with them): run
        when the record has doubled since, so it stays as large as the players at loaded tables."""
        for player in list(self._active_at):
            if not self._calls_at_loaded_tables(player):
                del self._active_at[player]
        self._prune_at = max(_PRUNE_AT_LEAST, 2 * len(self._active_at))

    def _calls_at_loaded_tables(self, player: str) -> list[int]:
        """When the player last called at each table loaded here that noted a call of theirs; the tables
        unloaded since leave the record (a table loaded again notes calls afresh)."""
        seen = []
        tables = self._active_at.get(player, set())
        for table_id in list(tables):
            table = self.cache.get(table_id)
            if table is None or player not in table.last_active:
                tables.discard(table_id)
                continue
            seen.append(table.last_active[player])
        return seen

    def _last_active(self, player: str, live: LiveTable, now: int) -> int:
        """When the player last made a call at any table loaded here (first seen now if never)."""
        seen = self._calls_at_loaded_tables(player)
        if not seen:
            self._active(live, player, now)
            return now
        return max(seen)

    # -- exclusions ------------------------------------------------------------------------------

    async def take_off_tables(self, player: str) -> list[str]:
        """An excluded player leaves the tables this replica runs: at once where they are in no hand, else
        when the hand ends (before the next deal); a place on a waiting list is given up; at a tournament's
        table they are sat out (:func:`sit_out_excluded`, which its dealer also applies before each hand).
        The tables."""
        tables = []
        for live in self.cache.loaded_tables():
            state = live.state
            seat = state.seat_of(player)
            if seat is not None and state.config is not None and state.config.tournament_id:
                # A tournament's table: they keep their seat and chips, sat out (blinded off) until out.
                tables.append(live.table_id)
                if not state.seats[seat].sitting_out:
                    with contextlib.suppress(DomainError):
                        await self.writes.execute(live.table_id, lambda state, now: SitOut(
                            player, now_ms=now, reason=EXCLUDED))
                continue
            if seat is not None:
                tables.append(live.table_id)
                if state.hand is not None and seat in state.hand.players:
                    continue  # plays the hand out: the dealer takes them off before the next one
                command: Any = Leave
            elif player in state.waiting:
                tables.append(live.table_id)
                command = LeaveWaitingList
            else:
                continue
            with contextlib.suppress(DomainError):  # they left meanwhile: nothing to do
                await self.writes.execute(live.table_id, lambda state, now, c=command: c(player, now_ms=now))
        return sorted(tables)

    # -- reality checks --------------------------------------------------------------------------

    def check_periodically(self) -> None:
        """From now on, record the reality checks that come due every ``reality_check_poll`` seconds."""
        if self.settings.reality_check_poll > 0:
            self.tasks.spawn(self._check_forever())

    async def _check_forever(self) -> None:
        while True:
            await asyncio.sleep(self.settings.reality_check_poll)
            try:
                await self.record_reality_checks()
            except Exception as error:  # the next round records what this one missed
                if not is_store_fault(error):
                    _log.exception("recording reality checks failed")

    async def record_reality_checks(self, now: int | None = None) -> int:
        """A RealityCheck for each player at the tables this replica owns whose interval has come round by
        ``now`` (default: the clock's now); how many were recorded."""
        players: dict[str, list[LiveTable]] = {}
        for live in self.cache.loaded_tables():
            if self.owned.owns(live):
                for seat in live.state.seats.values():
                    players.setdefault(seat.player_id, []).append(live)
        if not players:
            return 0
        recorded = 0
        now = now_ms() if now is None else now
        for player, standing in (await self.ledger.standings(players)).items():
            if not protection.reality_check_due(
                standing.reality_check_s, standing.session, standing.last_reality_check_ms, now
            ):
                continue
            net = await self._session_net(standing, players[player], now)

            def decide(fresh: PlayerStanding, net: dict[str, int] = net) -> list[dict[str, Any]]:
                if not protection.reality_check_due(
                    fresh.reality_check_s, fresh.session, fresh.last_reality_check_ms, now
                ):
                    return []  # another replica recorded it
                return [_reality_check(fresh, net, now)]

            with contextlib.suppress(ConcurrencyError):
                _standing, events = await self.ledger.protect(player, decide)
                recorded += len(events)
        return recorded

    async def _session_net(
        self, standing: PlayerStanding, tables: Iterable[LiveTable], now: int
    ) -> dict[str, int]:
        """The session's net result per currency: money back minus money in since it began, chips now at the
        tables counted as back."""
        stacks: dict[str, int] = {}
        for live in tables:
            config = live.state.config
            seat = live.state.seat_of(standing.player_id)
            if config is not None and config.currency and seat is not None:
                stacks[config.currency] = stacks.get(config.currency, 0) + live.state.seats[seat].stack
        started = standing.session.started_ms or now
        net = {}
        for currency in sorted(stacks):
            account = await self.ledger.account(account_stream(standing.player_id, currency))
            net[currency] = protection.net_result(account.moves, started - 1, now) + stacks[currency]
        return net


def _reality_check(standing: PlayerStanding, net: dict[str, int], now: int) -> dict[str, Any]:
    started = standing.session.started_ms or now
    return {"type": "RealityCheck", "v": 1, "session_start_ms": started,
            "elapsed_s": (now - started) // 1000, "net": net, "at_ms": now}


async def sit_out_excluded(ledger: Ledger, writes: TableWrites, live: LiveTable) -> bool:
    """At a tournament's table, between hands: each excluded player dealt in is sat out (reason "excluded";
    they stay in the tournament, blinded off, and may not sit in while excluded). Whether any was."""
    dealt_in = [seat.player_id for seat in live.state.seats.values() if not seat.sitting_out]
    if not dealt_in:
        return False
    now = now_ms()
    standings = await ledger.standings(dealt_in)
    excluded = [player for player in dealt_in if standings[player].excluded_at(now) is not None]
    for player in excluded:
        with contextlib.suppress(DomainError):  # they sat out meanwhile
            await writes.write(live, lambda state, at, p=player: SitOut(p, now_ms=at, reason=EXCLUDED), None)
    return bool(excluded)
