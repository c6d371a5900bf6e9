"""The ledger on the event log: accounts and standings folded from their streams, and every money write.

One :class:`Ledger` per process. It keeps the accounts, the players' standings and the tournaments' money
streams it has folded (and reads only what was appended since, one indexed query). A kept fold is never
changed: a read or a write that moves it on folds a copy and keeps that, so concurrent reads (which take no
lock) each see one version, whatever else is folding meanwhile. It serialises its own writes per stream with
a lock, always taken after a table's (or a tournament's) write lock and in stream-id order, so two commands
never wait on each other in a circle. Other processes writing the same account meet it at the expected
version: the loser's append is refused, nothing written, and the caller tries again against what the winner
wrote.
"""

from __future__ import annotations

import asyncio
import contextlib
import weakref
from collections import OrderedDict
from collections.abc import Awaitable, Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from stud_service.ledger import accounts, enforce, players, pools
from stud_service.ledger.accounts import Account, TableRake
from stud_service.ledger.errors import InsufficientFunds
from stud_service.ledger.names import (
    account_name_of_stream,
    account_stream,
    house_stream,
    player_stream,
    pool_stream,
)
from stud_service.ledger.players import PlayerStanding
from stud_service.ledger.pools import PoolAccount
from stud_service.ledger.transfers import ENTRY, REFUND, PoolTransfer, TableEffects
from stud_service.store import AppendResult, ConcurrencyError, CorruptStream, EventStore, Fence, StreamAppend

KEPT_ACCOUNTS = 50_000  # accounts (and as many standings) whose folds this process keeps (~hundreds of bytes)
WRITE_ATTEMPTS = 5  # a write against other processes' writes to the same stream, then ABORTED
CASHIER_MOVES = {"deposit": accounts.deposit, "withdraw": accounts.withdraw}


@dataclass(frozen=True, slots=True)
class Written:
    """A cashier write: the account after it, the versions of its entries (a retry's: the original ones)."""

    account: Account
    first_version: int
    version: int
    duplicate: bool


class Ledger:
    def __init__(self, store: EventStore) -> None:
        self.store = store
        self._accounts: OrderedDict[str, Account] = OrderedDict()
        self._standings: OrderedDict[str, PlayerStanding] = OrderedDict()
        self._pools: OrderedDict[str, PoolAccount] = OrderedDict()
        self._locks: weakref.WeakValueDictionary[str, asyncio.Lock] = weakref.WeakValueDictionary()

    # -- reading -------------------------------------------------------------------------------

    async def account(self, stream_id: str) -> Account:
        """The account as its stream stands now (an empty, unopened one for a stream never written).
        The object is this ledger's: read it, never change it."""
        return await self._fold(self._accounts, stream_id, lambda: Account.empty(stream_id), accounts.apply)

    async def _fold(
        self, kept_folds: OrderedDict[str, Any], stream_id: str, empty: Callable[[], Any],
        apply: Callable[[Any, dict[str, Any]], None],
    ) -> Any:
        """The stream's kept fold moved on by what was appended since (a copy, kept in its place)."""
        kept = kept_folds.get(stream_id) or empty()
        appended = await self.store.read_stream(stream_id, after_version=kept.version)
        fold = kept.copy() if appended else kept
        for stored in appended:
            if stored.version != fold.version + 1:
                kept_folds.pop(stream_id, None)
                raise CorruptStream(stream_id, fold.version + 1, "event missing from the log")
            apply(fold, stored.payload)
        return _keep(kept_folds, stream_id, fold)

    async def pool(self, tournament_id: str, currency: str) -> PoolAccount:
        """A tournament's money stream as it stands now (prize pool and fees): this ledger's, read only."""
        stream_id = pool_stream(tournament_id, currency)
        return await self._fold(self._pools, stream_id, lambda: PoolAccount.empty(stream_id), pools.apply)

    async def account_at(self, stream_id: str, version: int) -> Account:
        """The account as it stood at ``version`` (a retry's answer: the account after the first call's
        entry). The kept fold when it is at that version; else folded from the log, kept nowhere."""
        kept = self._accounts.get(stream_id)
        if kept is not None and kept.version == version:
            return kept
        account = Account.empty(stream_id)
        for stored in await self.store.read_stream(stream_id, limit=version):
            if stored.version != account.version + 1:
                raise CorruptStream(stream_id, account.version + 1, "event missing from the log")
            accounts.apply(account, stored.payload)
        return account

    def _moved_on(self, account: Account, events: Iterable[dict[str, Any]]) -> Account:
        """A copy of a kept account with ``events`` (just appended after it) applied, kept in its place."""
        after = account.copy()
        for event in events:
            accounts.apply(after, event)
        return _keep(self._accounts, after.stream_id, after)

    async def standing(self, player_id: str) -> PlayerStanding:
        """The player's standing as their stream stands now (read it, never change it): as ``account``."""
        return await self._fold(
            self._standings, player_stream(player_id), lambda: PlayerStanding(player_id), players.apply
        )

    async def standings(self, player_ids: Iterable[str]) -> dict[str, PlayerStanding]:
        """These players' standings now: one query for the heads of their streams, and a read only of those
        that moved since this process folded them (the dealer asks before every hand)."""
        ids = sorted(set(player_ids))
        if len(ids) <= 1:
            return {player: await self.standing(player) for player in ids}
        heads = await self.store.heads([player_stream(player) for player in ids])
        found = {}
        for player in ids:
            kept = self._standings.get(player_stream(player))
            moved = kept is None or heads.get(player_stream(player), 0) != kept.version
            found[player] = await self.standing(player) if moved else kept
        return found

    def _standing_moved_on(
        self, standing: PlayerStanding, events: Iterable[dict[str, Any]]
    ) -> PlayerStanding:
        after = standing.copy()
        for event in events:
            players.apply(after, event)
        return _keep(self._standings, player_stream(after.player_id), after)

    async def suspended_among(self, player_ids: Iterable[str]) -> set[str]:
        """Which of these players are suspended now."""
        standings = await self.standings(player_ids)
        return {player for player, standing in standings.items() if standing.suspended}

    def _lock(self, stream_id: str) -> asyncio.Lock:
        lock = self._locks.get(stream_id)
        if lock is None:
            lock = self._locks[stream_id] = asyncio.Lock()
        return lock

    def forget(self, stream_ids: Iterable[str]) -> None:
        """Drop folds that may be stale (a write whose outcome is unknown); the next read refolds them."""
        for stream_id in stream_ids:
            self._accounts.pop(stream_id, None)
            self._standings.pop(stream_id, None)
            self._pools.pop(stream_id, None)

    # -- the cashier ---------------------------------------------------------------------------

    async def cashier(
        self,
        move: str,
        stream_id: str,
        amount: int,
        reference: str,
        now_ms: int,
        request_id: str | None = None,
        fingerprint: bytes | None = None,
    ) -> Written:
        """A ``"deposit"`` or ``"withdraw"`` (CASHIER_MOVES) of ``amount`` under the payment ``reference``. A
        deposit is refused while the player is excluded, or beyond what is left of a deposit limit."""
        decide = CASHIER_MOVES[move]
        player = account_name_of_stream(stream_id)
        standing = None
        if move == "deposit" and player is not None and player.player_id is not None:
            standing = await self.standing(player.player_id)

        def deciding(account: Account) -> list[dict[str, Any]]:
            events = decide(account, amount, reference, now_ms)
            if standing is not None:
                enforce.deposit(standing, account, amount, now_ms)
            return events

        account, _events, result = await self._write(
            stream_id,
            lambda: self.account(stream_id),
            deciding,
            self._moved_on,
            request_id,
            fingerprint,
        )
        assert result is not None  # a payment always records an entry
        if result.duplicate:
            account = await self.account(stream_id)
        return Written(account, result.first_version, result.version, result.duplicate)

    async def _write(
        self,
        stream_id: str,
        fold: Callable[[], Awaitable[Any]],
        decide: Callable[[Any], list[dict[str, Any]]],
        moved_on: Callable[[Any, list[dict[str, Any]]], Any],
        request_id: str | None = None,
        fingerprint: bytes | None = None,
    ) -> tuple[Any, list[dict[str, Any]], AppendResult | None]:
        """Under the stream's lock: fold it, decide, append at the version folded. Another process's write in
        between refuses the append and this one decides again against it (WRITE_ATTEMPTS times);
        ``moved_on(state, events)`` gives the state after its events. The state after the events (before
        them for a duplicate request), the events, and the append's result (None when decide had nothing
        to record)."""
        async with self._lock(stream_id):
            for _attempt in range(WRITE_ATTEMPTS):
                state = await fold()
                events = decide(state)
                if not events:
                    return state, events, None
                try:
                    result = await self._append(stream_id, state.version, events, request_id, fingerprint)
                except ConcurrencyError:
                    continue
                if not result.duplicate:
                    state = moved_on(state, events)
                return state, events, result
        raise ConcurrencyError(stream_id, state.version, state.version)

    async def _append(
        self,
        stream_id: str,
        expected: int,
        events: list[dict[str, Any]],
        request_id: str | None,
        fingerprint: bytes | None,
    ) -> AppendResult:
        try:
            return await self.store.append(stream_id, expected, events, request_id, fingerprint)
        except Exception:
            self.forget([stream_id])
            raise

    # -- operator controls ---------------------------------------------------------------------

    async def set_suspended(
        self, player_id: str, suspended: bool, reason: str, by: str, now_ms: int
    ) -> PlayerStanding:
        """Suspend or reinstate the player (no event when already so); the standing after it."""
        standing, _events, _result = await self._write(
            player_stream(player_id),
            lambda: self.standing(player_id),
            lambda standing: (
                players.suspend(standing, reason, by, now_ms)
                if suspended
                else players.reinstate(standing, by, now_ms)
            ),
            self._standing_moved_on,
        )
        return standing

    async def protect(
        self, player_id: str, decide: Callable[[PlayerStanding], list[dict[str, Any]]]
    ) -> tuple[PlayerStanding, list[dict[str, Any]]]:
        """Record what ``decide`` makes of the player's standing (their protection: limits, exclusions,
        reality checks); the standing after it and the events recorded."""
        standing, events, _result = await self._write(
            player_stream(player_id), lambda: self.standing(player_id), decide, self._standing_moved_on
        )
        return standing, events

    # -- tables --------------------------------------------------------------------------------

    async def append_table_command(
        self,
        table_stream: str,
        table_id: str,
        currency: str,
        expected: int,
        payloads: list[dict[str, Any]],
        effects: TableEffects,
        now_ms: int,
        request_id: str | None = None,
        fingerprint: bytes | None = None,
        fence: Fence | None = None,
        guard: bool = True,
    ) -> AppendResult:
        """Append a table command's events with what they cause beyond the table (``effects``): the account
        entries of the money they move, and the players' TableJoined / TableLeft, in one transaction
        (``fence``: only if the table's owner still holds its lease, as :meth:`EventStore.append`).

        Refused, nothing appended anywhere: a debit beyond the balance (or from no account)
        INSUFFICIENT_FUNDS, a suspended player's PLAYER_SUSPENDED, and (``guard``: a player's own calls, not
        at a tournament's table) a player's protection (:mod:`stud_service.ledger.enforce`); at a
        tournament's table only an excluded player's SitIn (PLAYER_EXCLUDED). A stale
        expected version of the table, an account or a player's stream raises ConcurrencyError, nothing
        appended: the caller folds what changed and decides again."""
        involved = effects.players
        if currency:
            involved_accounts = sorted({account_stream(p, currency) for p in involved}
                                       | {account_stream(t.player_id, currency) for t in effects.transfers})
        else:
            involved_accounts = []
        seat_changes = {*effects.joined, *effects.left}
        written_players = sorted(player_stream(p) for p in seat_changes)
        async with contextlib.AsyncExitStack() as locks:
            for stream_id in sorted({*involved_accounts, *written_players}):
                await locks.enter_async_context(self._lock(stream_id))
            standings = await self.standings(involved)
            folded = {stream_id: await self.account(stream_id) for stream_id in involved_accounts}
            for player in sorted({t.player_id for t in effects.transfers if t.debit}):
                enforce.not_suspended(standings[player])
            if not guard:  # a tournament's table: an excluded player sat out there stays out
                for call in effects.guarded:
                    if call.kind == "sit_in":
                        enforce.not_excluded(standings[call.player_id], now_ms)
            if guard:
                for call in effects.guarded:
                    standing = standings[call.player_id]
                    enforce.seating(standing, now_ms, session_too=call.kind != "top_up")
                    if currency and call.kind != "wait":
                        account = folded[account_stream(call.player_id, currency)]
                        enforce.stake(standing, account, call.stake, call.back, now_ms)
            entries = self._entries(table_id, currency, expected, effects, folded, now_ms)
            seats = _seat_events(table_id, effects, now_ms)
            parts = [StreamAppend(table_stream, expected, payloads, request_id, fingerprint)]
            parts += [
                StreamAppend(stream_id, folded[stream_id].version, entries[stream_id])
                for stream_id in involved_accounts if entries[stream_id]
            ]
            parts += [
                StreamAppend(player_stream(player), standings[player].version, seats[player])
                for player in sorted(seat_changes)
            ]
            result = await self._append_all(parts, fence)
            if not result.duplicate:
                for stream_id in involved_accounts:
                    if entries[stream_id]:
                        self._moved_on(folded[stream_id], entries[stream_id])
                for player in seat_changes:
                    self._standing_moved_on(standings[player], seats[player])
            return result

    @staticmethod
    def _entries(
        table_id: str, currency: str, expected: int, effects: TableEffects, folded: dict[str, Account],
        now_ms: int,
    ) -> dict[str, list[dict[str, Any]]]:
        """Each account's entries for the command's transfers, in event order."""
        balances = {stream_id: account.balance for stream_id, account in folded.items()}
        entries: dict[str, list[dict[str, Any]]] = {stream_id: [] for stream_id in folded}
        for transfer in effects.transfers:
            stream_id = account_stream(transfer.player_id, currency)
            account = folded[stream_id]
            view = Account(stream_id, account.player_id, currency, account.version, balances[stream_id])
            version = expected + transfer.offset + 1
            if transfer.debit:
                if not account.opened:
                    raise InsufficientFunds(
                        f"player {transfer.player_id!r} has no {currency} account: deposit first",
                        {"balance": "0", "currency": currency},
                    )
                entry = accounts.debit_buy_in(
                    view, table_id, version, transfer.amount, transfer.top_up, now_ms
                )
            else:
                entry = accounts.credit_cash_out(view, table_id, version, transfer.amount, now_ms)
            balances[stream_id] = entry["balance"]
            entries[stream_id].append(entry)
        return entries

    # -- tournaments ---------------------------------------------------------------------------

    async def append_with_pool(
        self,
        tournament_stream: str,
        tournament_id: str,
        currency: str,
        expected: int,
        payloads: list[dict[str, Any]],
        transfers: Sequence[PoolTransfer],
        now_ms: int,
        request_id: str | None = None,
        fingerprint: bytes | None = None,
        fence: Fence | None = None,
    ) -> AppendResult:
        """Append a tournament command's events with the money they move, in one transaction: each entry's
        buy-in + fee debited from the player's account into the tournament's money stream (``pools``),
        refunds and prizes credited back out of it.

        An entry is refused, nothing appended anywhere: beyond the balance (or from no account)
        INSUFFICIENT_FUNDS; a suspended player PLAYER_SUSPENDED; an excluded one PLAYER_EXCLUDED; beyond what
        a loss limit leaves LOSS_LIMIT_REACHED (the entry is at stake as a buy-in is). Credits are never
        refused. A stale expected version raises ConcurrencyError, nothing appended."""
        pool_id = pool_stream(tournament_id, currency)
        involved = sorted({account_stream(t.player_id, currency) for t in transfers})
        async with contextlib.AsyncExitStack() as locks:
            for stream_id in sorted({pool_id, *involved}):
                await locks.enter_async_context(self._lock(stream_id))
            entering = sorted({t.player_id for t in transfers if t.kind == ENTRY})
            folded: dict[str, Any] = {}
            for stream_id in involved:
                folded[stream_id] = (await self.account(stream_id)).copy()
            before = {stream_id: account.version for stream_id, account in folded.items()}
            for player, standing in (await self.standings(entering)).items():
                enforce.not_suspended(standing)
                enforce.not_excluded(standing, now_ms)
                account = folded[account_stream(player, currency)]
                stakes = [t.buy_in + t.fee for t in transfers if t.kind == ENTRY and t.player_id == player]
                at_stake = sum(stakes)
                enforce.stake(standing, account, at_stake, 0, now_ms)
            pool = await self.pool(tournament_id, currency)
            folded[pool_id], before[pool_id] = pool.copy(), pool.version
            entries = _pool_entries(tournament_id, currency, expected, transfers, folded, now_ms)
            parts = [StreamAppend(tournament_stream, expected, payloads, request_id, fingerprint)]
            parts += [StreamAppend(stream_id, before[stream_id], entries[stream_id])
                      for stream_id in sorted(entries) if entries[stream_id]]
            result = await self._append_all(parts, fence)
            if not result.duplicate:
                for part in parts[1:]:
                    kept = self._pools if part.stream_id == pool_id else self._accounts
                    _keep(kept, part.stream_id, folded[part.stream_id])
            return result

    async def _append_all(self, parts: list[StreamAppend], fence: Fence | None) -> AppendResult:
        """Append a command's ``parts`` in one transaction; the first part's result. The folds of the other
        parts' streams are forgotten when this call did not write them (a duplicate request) or its outcome
        is unknown: the next read refolds them."""
        changed = [part.stream_id for part in parts[1:]]
        try:
            results = await self.store.append_all(parts, fence)
        except Exception:
            self.forget(changed)
            raise
        if results[0].duplicate:
            self.forget(changed)
        return results[0]

    async def sweep(self, currency: str, tables: list[TableRake], now_ms: int) -> int:
        """Move the rake ``tables`` took since their last sweep into the house's ``currency`` account, in one
        command; the amount moved (0 when there was none, or when other replicas kept sweeping first: the next
        sweep takes it). Sweeps by other replicas are folded first, so a table's rake is never swept twice."""
        stream_id = house_stream(currency)
        try:
            _house, events, _result = await self._write(
                stream_id,
                lambda: self.account(stream_id),
                lambda house: accounts.sweep_rake(house, tables, now_ms),
                self._moved_on,
            )
        except ConcurrencyError:
            return 0
        return sum(event["amount"] for event in events if event["type"] == "RakeSwept")


def _pool_entries(
    tournament_id: str, currency: str, expected: int, transfers: Sequence[PoolTransfer],
    folded: dict[str, Any], now_ms: int,
) -> dict[str, list[dict[str, Any]]]:
    """Each stream's entries for a tournament command's transfers, in event order, each folded on into
    ``folded`` (copies: a later entry of a stream follows an earlier one)."""
    pool_id = pool_stream(tournament_id, currency)
    entries: dict[str, list[dict[str, Any]]] = {stream_id: [] for stream_id in folded}
    for transfer in transfers:
        player, version = transfer.player_id, expected + transfer.offset + 1
        account, pool = folded[account_stream(player, currency)], folded[pool_id]
        if transfer.kind == ENTRY:
            if not account.opened:
                raise InsufficientFunds(
                    f"player {player!r} has no {currency} account: deposit first",
                    {"balance": "0", "currency": currency},
                )
            entry = accounts.debit_entry(account, tournament_id, version, transfer.buy_in, transfer.fee,
                                         now_ms)
            moved = pools.pool_entry(pool, player, version, transfer.buy_in, transfer.fee, now_ms)
        elif transfer.kind == REFUND:
            amount = transfer.buy_in + transfer.fee
            entry = accounts.credit_from_tournament(account, "EntryRefunded", tournament_id, version, amount,
                                                    now_ms)
            moved = pools.return_entry(pool, player, version, transfer.buy_in, transfer.fee, now_ms)
        else:
            entry = accounts.credit_from_tournament(account, "PrizeCredited", tournament_id, version,
                                                    transfer.buy_in, now_ms)
            moved = pools.pay_prize(pool, player, version, transfer.buy_in, now_ms)
        accounts.apply(account, entry)
        entries[account.stream_id].append(entry)
        for event in moved:
            pools.apply(pool, event)
        entries[pool_id] += moved
    return entries


def _seat_events(table_id: str, effects: TableEffects, now_ms: int) -> dict[str, list[dict[str, Any]]]:
    """The players' TableJoined / TableLeft for the seats a command took and left (their play sessions)."""
    seats: dict[str, list[dict[str, Any]]] = {}
    for player in effects.left:
        seats.setdefault(player, []).append(
            {"type": "TableLeft", "v": 1, "table_id": table_id, "at_ms": now_ms}
        )
    for player in effects.joined:
        seats.setdefault(player, []).append(
            {"type": "TableJoined", "v": 1, "table_id": table_id, "at_ms": now_ms}
        )
    return seats


def _keep(kept: OrderedDict[str, Any], stream_id: str, fold: Any) -> Any:
    """Keep ``fold`` unless a newer fold of the stream is kept already (another call read further)."""
    current = kept.get(stream_id)
    if current is None or current.version <= fold.version:
        kept[stream_id] = fold
    kept.move_to_end(stream_id)
    if len(kept) > KEPT_ACCOUNTS:
        kept.popitem(last=False)
    return fold
