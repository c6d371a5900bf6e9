"""``stud.v1.CashierService``: deposits, withdrawals, statements, and suspending players.

Each method checks the caller's role, parses the resource name, and hands the work to the runtime's
:class:`~stud_service.ledger.book.Ledger`; refusals leave as rich statuses (``server.api.errors``), and a
refused call appends nothing. A suspension also removes the player from the tables this replica runs (every
replica's dealer also removes a suspended player before the next deal, so tables elsewhere follow within a
hand).
"""

from __future__ import annotations

import contextlib
import logging
from typing import Any

from stud_service.auth import Principal, Role
from stud_service.engine import DomainError, Leave, LeaveWaitingList
from stud_service.ledger.accounts import Account
from stud_service.ledger.book import Written
from stud_service.ledger.errors import CurrencyMismatch, LedgerError, NoAccount, NotYourAccount
from stud_service.ledger.names import AccountName
from stud_service.ledger.players import PlayerStanding
from stud_service.server.api.access import operator_only, recorded
from stud_service.server.api.call import Call
from stud_service.server.api.caller import CallerKeys, principal_of
from stud_service.server.api.errors import malformed, quoted, refusals_as_statuses
from stud_service.server.api.ledger_convert import account_to_proto, entry_to_proto, standing_to_proto
from stud_service.server.api.money_gate import check_real_money
from stud_service.server.api.names import ACCOUNTS, PLAYERS
from stud_service.server.api.page_tokens import PageTokens
from stud_service.server.api.request_ids import RequestKey, check_same_request, request_key
from stud_service.server.api.sessions import in_session
from stud_service.server.proto_gen import account_pb2, cashier_service_pb2
from stud_service.server.tables.live import now_ms
from stud_service.server.tables.runtime import TableRuntime

_log = logging.getLogger(__name__)

DEFAULT_PAGE_SIZE = 50
MAX_PAGE_SIZE = 1000


_MOVING_MONEY = operator_only("moving money through the cashier")
_SUSPENDING = operator_only("suspending a player")
_REINSTATING = operator_only("reinstating a player")


class CashierService:
    DESCRIPTOR = cashier_service_pb2.DESCRIPTOR.services_by_name["CashierService"]  # both ports serve it
    SERVICE_NAME = DESCRIPTOR.full_name  # every call by an operator or auditor is recorded (api.access)

    def __init__(self, runtime: TableRuntime, keys: CallerKeys | str) -> None:
        self.runtime = runtime
        self.ledger = runtime.ledger
        self.store = runtime.store
        keys = CallerKeys.of(keys)
        self._tokens = keys.tokens
        self._page_tokens = PageTokens(keys.page_token_key, "ListAccountEntries")

    # -- helpers -------------------------------------------------------------------------------

    def _principal(self, call: Call) -> Principal:
        return principal_of(call, self._tokens)

    @staticmethod
    def _may_read(principal: Principal, player_id: str | None) -> None:
        if principal.role is Role.PLAYER and player_id != principal.player_id:
            raise NotYourAccount("a player may read only their own accounts")

    async def _opened(self, name: AccountName) -> Account:
        account = await self.ledger.account(name.stream_id)
        if not account.opened:
            raise NoAccount(f"no account {name.name}: nothing was ever deposited to it")
        return account

    async def _entry(self, name: AccountName, version: int) -> account_pb2.AccountEntry:
        (stored,) = await self.store.read_stream(name.stream_id, after_version=version - 1, limit=1)
        return entry_to_proto(name.name, stored)

    # -- money in and out ----------------------------------------------------------------------

    async def _cashier(
        self, request: Any, call: Call, deposit: bool
    ) -> tuple[Any, Any]:
        principal = self._principal(call)
        _MOVING_MONEY(principal)
        check_real_money(self.runtime.settings)
        name = ACCOUNTS.parse(request.account, "account")
        if name.player_id is None:
            raise malformed("the cashier pays into and out of players' accounts, not the house's", "account")
        if request.currency_code != name.currency:
            raise CurrencyMismatch(
                f"the account is in {name.currency}, the request in {quoted(request.currency_code)}",
                {"currency": name.currency},
            )
        key = request_key(principal, request)
        # As TableService does: a recorded request id is looked for only when the request no longer applies
        # (a retry's payment reference is in the account by then) or the store refuses to record it twice,
        # never at the cost of a read for a request that is new.
        try:
            if not deposit:
                await self._opened(name)
            written: Written = await self.ledger.cashier(
                "deposit" if deposit else "withdraw",
                name.stream_id,
                request.amount,
                request.payment_reference,
                now_ms(),
                *((key.key, key.fingerprint) if key else (None, None)),
            )
        except LedgerError:
            if (retry := await self._retry_of(name, key)) is not None:
                return retry
            raise
        if written.duplicate and (retry := await self._retry_of(name, key)) is not None:
            return retry  # the same request, sent twice at once: both get the first one's answer
        return await self._entry(name, written.version), account_to_proto(name.name, written.account)

    async def _retry_of(self, name: AccountName, key: RequestKey | None) -> tuple[Any, Any] | None:
        """The first call's answer when ``key`` is already recorded in the account (a retry), else None."""
        if key is None:
            return None
        recorded = await self.store.find_request(name.stream_id, key.key)
        if recorded is None:
            return None
        check_same_request(recorded, key)
        account = await self.ledger.account_at(name.stream_id, recorded.last_version)  # the first answer's
        return await self._entry(name, recorded.last_version), account_to_proto(name.name, account)

    @refusals_as_statuses
    @recorded(gate=_MOVING_MONEY, resource=ACCOUNTS.checked("account"))
    @in_session()
    async def Deposit(self, request: Any, call: Call) -> Any:
        entry, account = await self._cashier(request, call, deposit=True)
        return cashier_service_pb2.DepositResponse(entry=entry, account=account)

    @refusals_as_statuses
    @recorded(gate=_MOVING_MONEY, resource=ACCOUNTS.checked("account"))
    @in_session()
    async def Withdraw(self, request: Any, call: Call) -> Any:
        entry, account = await self._cashier(request, call, deposit=False)
        return cashier_service_pb2.WithdrawResponse(entry=entry, account=account)

    # -- reading -------------------------------------------------------------------------------

    @refusals_as_statuses
    @recorded(resource=ACCOUNTS.checked("name"))
    @in_session()
    async def GetAccount(self, request: Any, call: Call) -> Any:
        principal = self._principal(call)
        name = ACCOUNTS.parse(request.name)
        self._may_read(principal, name.player_id)
        return account_to_proto(name.name, await self._opened(name))

    @refusals_as_statuses
    @recorded(resource=ACCOUNTS.checked("parent"))
    @in_session()
    async def ListAccountEntries(self, request: Any, call: Call) -> Any:
        principal = self._principal(call)
        name = ACCOUNTS.parse(request.parent, "parent")
        self._may_read(principal, name.player_id)
        if request.page_size < 0:
            raise malformed("page_size must not be negative", "page_size")
        size = min(request.page_size or DEFAULT_PAGE_SIZE, MAX_PAGE_SIZE)
        binding = (name.name,)
        below = None
        if request.page_token:
            position = self._page_tokens.open(request.page_token, binding)
            if not position.isdigit():
                raise malformed("page_token is not one this service issued", "page_token")
            below = int(position)
        account = await self._opened(name)
        if below is None:
            below = account.version + 1
        # Entries are versions 2..head (version 1 opened the account); this page: the newest below ``below``.
        low = max(2, below - size)
        stored = await self.store.read_stream(
            name.stream_id, after_version=low - 1, limit=max(0, below - low)
        )
        reply = cashier_service_pb2.ListAccountEntriesResponse(
            entries=[entry_to_proto(name.name, event) for event in reversed(stored)]
        )
        if low > 2:
            reply.next_page_token = self._page_tokens.issue(str(low), binding)
        return reply

    # -- operator controls ---------------------------------------------------------------------

    @refusals_as_statuses
    @recorded(gate=_SUSPENDING, resource=PLAYERS.checked("name"))
    @in_session()
    async def SuspendPlayer(self, request: Any, call: Call) -> Any:
        principal = self._principal(call)
        _SUSPENDING(principal)
        player = PLAYERS.parse(request.name)
        if not request.reason.isprintable():  # NUL above all: the log cannot hold it
            raise malformed("reason must be printable text, without control characters", "reason")
        standing = await self.ledger.set_suspended(
            player, True, request.reason, principal.player_id, now_ms()
        )
        tables = await self.remove_from_tables(player)
        return cashier_service_pb2.SuspendPlayerResponse(
            standing=standing_to_proto(standing), tables=[f"tables/{table}" for table in tables]
        )

    async def remove_from_tables(self, player: str) -> list[str]:
        """Take a suspended player off every table this replica runs: a seat is left (at once between
        hands, else when the hand ends), a place on a waiting list given up. The tables they were at."""
        tables = []
        for live in self.runtime.loaded_tables():
            state = live.state
            if state.seat_of(player) is not None:
                command: Any = Leave
            elif player in state.waiting:
                command = LeaveWaitingList
            else:
                continue
            tables.append(live.table_id)
            with contextlib.suppress(DomainError):  # they left meanwhile: nothing to do
                await self.runtime.execute(live.table_id, lambda state, now, c=command: c(player, now_ms=now))
        return sorted(tables)

    @refusals_as_statuses
    @recorded(gate=_REINSTATING, resource=PLAYERS.checked("name"))
    @in_session()
    async def ReinstatePlayer(self, request: Any, call: Call) -> Any:
        principal = self._principal(call)
        _REINSTATING(principal)
        player = PLAYERS.parse(request.name)
        standing = await self.ledger.set_suspended(player, False, "", principal.player_id, now_ms())
        return standing_to_proto(standing)

    @refusals_as_statuses
    @recorded(resource=PLAYERS.checked("name"))
    @in_session()
    async def GetPlayerStanding(self, request: Any, call: Call) -> Any:
        principal = self._principal(call)
        player = PLAYERS.parse(request.name)
        self._may_read(principal, player)
        standing: PlayerStanding = await self.ledger.standing(player)
        return standing_to_proto(standing)
