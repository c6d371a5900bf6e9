"""The ledger on the event log: accounts and standings folded from their streams, and every money write.

One :class:`Ledger` per process. It keeps the accounts it has folded (and reads only what was appended since,
one indexed query). A kept account is never changed: a read or a write that moves it on folds a copy and keeps
that, so concurrent reads (which take no lock) each see one version, whatever else is folding meanwhile. It
serialises its own writes per account with a lock, always taken after a table's
write lock and in stream-id order, so two commands never wait on each other in a circle. Other processes
writing the same account meet it at the expected version: the loser's append is refused, nothing written,
and the caller tries again against what the winner wrote.
"""

from __future__ import annotations

import asyncio
import contextlib
import weakref
from collections import OrderedDict
from collections.abc import Awaitable, Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from stud_service.ledger import accounts, players
from stud_service.ledger.accounts import Account, TableRake
from stud_service.ledger.errors import InsufficientFunds, PlayerSuspended
from stud_service.ledger.names import account_stream, house_stream, player_stream
from stud_service.ledger.players import PlayerStanding
from stud_service.ledger.transfers import Transfer
from stud_service.store import AppendResult, ConcurrencyError, CorruptStream, EventStore, Fence, StreamAppend

KEPT_ACCOUNTS = 50_000  # accounts whose fold this process keeps (a few hundred bytes each)
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
        self._locks: weakref.WeakValueDictionary[str, asyncio.Lock] = weakref.WeakValueDictionary()

    # -- reading -------------------------------------------------------------------------------

    async def account(self, stream_id: str) -> Account:
        """The account as its stream stands now (an empty, unopened one for a stream never written).
        The object is this ledger's: read it, never change it."""
        kept = self._accounts.get(stream_id) or Account.empty(stream_id)
        appended = await self.store.read_stream(stream_id, after_version=kept.version)
        account = kept.copy() if appended else kept
        for stored in appended:
            if stored.version != account.version + 1:
                self._accounts.pop(stream_id, None)
                raise CorruptStream(stream_id, account.version + 1, "event missing from the log")
            accounts.apply(account, stored.payload)
        return self._keep(account)

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

    def _keep(self, account: Account) -> Account:
        """Keep ``account`` unless a newer fold of it is kept already (another call read further)."""
        stream_id = account.stream_id
        kept = self._accounts.get(stream_id)
        if kept is None or kept.version <= account.version:
            self._accounts[stream_id] = account
        self._accounts.move_to_end(stream_id)
        if len(self._accounts) > KEPT_ACCOUNTS:
            self._accounts.popitem(last=False)
        return account

    def _moved_on(self, account: Account, events: Iterable[dict[str, Any]]) -> Account:
        """A copy of a kept account with ``events`` (just appended after it) applied, kept in its place."""
        after = account.copy()
        for event in events:
            accounts.apply(after, event)
        return self._keep(after)

    async def standing(self, player_id: str) -> PlayerStanding:
        standing = PlayerStanding(player_id)
        for stored in await self.store.read_stream(player_stream(player_id)):
            players.apply(standing, stored.payload)
        return standing

    async def suspended_among(self, player_ids: Iterable[str]) -> set[str]:
        """Which of these players are suspended now: one query for all of them (the dealer asks per hand)."""
        ids = {player_stream(player): player for player in player_ids}
        if not ids:
            return set()
        last = await self.store.last_event_types(list(ids))
        return {ids[stream] for stream, kind in last.items() if kind == "PlayerSuspended"}

    def _lock(self, stream_id: str) -> asyncio.Lock:
        lock = self._locks.get(stream_id)
        if lock is None:
            lock = self._locks[stream_id] = asyncio.Lock()
        return lock

    def forget(self, stream_ids: Iterable[str]) -> None:
        """Drop folds that may be stale (a write whose outcome is unknown); the next read refolds them."""
        for stream_id in stream_ids:
            self._accounts.pop(stream_id, None)

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
        """A ``"deposit"`` or ``"withdraw"`` (CASHIER_MOVES) of ``amount`` under the payment ``reference``."""
        decide = CASHIER_MOVES[move]
        account, _events, result = await self._write(
            stream_id,
            lambda: self.account(stream_id),
            lambda account: decide(account, amount, reference, now_ms),
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
            _standing_after,
        )
        return standing

    # -- tables --------------------------------------------------------------------------------

    async def append_with_transfers(
        self,
        table_stream: str,
        table_id: str,
        currency: str,
        expected: int,
        payloads: list[dict[str, Any]],
        transfers: Sequence[Transfer],
        now_ms: int,
        request_id: str | None = None,
        fingerprint: bytes | None = None,
        fence: Fence | None = None,
    ) -> AppendResult:
        """Append a table command's events and its account entries in one transaction (``fence``: only if
        the table's owner still holds its lease, as :meth:`EventStore.append`).

        A debit beyond the balance (or from no account) is INSUFFICIENT_FUNDS and a suspended player's
        PLAYER_SUSPENDED, nothing appended anywhere. A stale expected version of the table or of an
        account raises ConcurrencyError, nothing appended: the caller folds what changed and decides again
        (an account that moved is read again then)."""
        streams = sorted({account_stream(t.player_id, currency) for t in transfers})
        async with contextlib.AsyncExitStack() as locks:
            for stream_id in streams:
                await locks.enter_async_context(self._lock(stream_id))
            debtors = {t.player_id for t in transfers if t.debit}
            if debtors and (suspended := await self.suspended_among(debtors)):
                player = sorted(suspended)[0]
                raise PlayerSuspended(
                    f"player {player!r} is suspended: no buy-in or top-up", {"player_id": player}
                )
            folded = {stream_id: await self.account(stream_id) for stream_id in streams}
            balances = {stream_id: account.balance for stream_id, account in folded.items()}
            entries: dict[str, list[dict[str, Any]]] = {stream_id: [] for stream_id in streams}
            for transfer in transfers:
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
            parts = [StreamAppend(table_stream, expected, payloads, request_id, fingerprint)]
            parts += [
                StreamAppend(stream_id, folded[stream_id].version, entries[stream_id])
                for stream_id in streams
            ]
            try:
                results = await self.store.append_all(parts, fence)
            except Exception:
                self.forget(streams)
                raise
            if results[0].duplicate:
                self.forget(streams)
            else:
                for stream_id in streams:
                    self._moved_on(folded[stream_id], entries[stream_id])
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


def _standing_after(standing: PlayerStanding, events: list[dict[str, Any]]) -> PlayerStanding:
    """A standing (folded afresh for each write, never kept) with ``events`` applied."""
    for event in events:
        players.apply(standing, event)
    return standing
