"""Where every unit of money is: a fold over the event log that proves the books balance.

Pure (no database, no engine import: it must keep up with a log of millions of events): feed it the
events of every money stream, each stream's in version order, and ``finish`` returns a
:class:`MoneyReport`.  The streams and events are those of the money model (``docs/reconciliation.md``):

``tables/{table}``          chips: PlayerSeated.buy_in, PlayerToppedUp.amount, PlayerLeft.cash_out move money
                            between an account and the table; antes, bets and returns make the pots; HandEnded
                            pays the pots out and records the rake (``rake``, each pot's ``"rake"``).
``accounts/{CUR}/{player}`` a player's account: AccountOpened, FundsDeposited, FundsWithdrawn, BuyInDebited,
                            CashOutCredited, each after the first carrying the ``balance`` after it.
``house/{CUR}``             the house's rake account: HouseAccountOpened, then RakeSwept batches.
``tournaments/{id}``        a tournament's entries, refunds and prizes (``audit.money_tournaments``);
``pools/{CUR}/{id}``        its prize pool and fees; a player's account pairs with them (EntryDebited,
                            EntryRefunded, PrizeCredited).

What is proved (each failure is a :class:`Discrepancy` naming the stream and version where it first shows):

- per hand: chips put in (antes + PlayerActed.chips - UncalledBetReturned) = the pots = awards + rake, each
  pot's awards add up to its amount less its rake, the recorded stacks after the hand follow, and the
  starting stacks of the next hand are the stacks the table holds;
- per table: buy-ins + top-ups - cash-outs - rake = chips at the table (stacks and chips in a running
  hand), each cash-out is the seat's whole stack, no stack goes negative;
- per account: AccountOpened first, each balance = the previous balance +/- the amount, never negative,
  amounts positive (a cash-out may be 0), payment references unique;
- pairing: every buy-in, top-up and cash-out of a table with a currency has exactly one account entry of
  the same amount, player and currency naming its table version, and every account entry has its table event;
- the house: each RakeSwept's ``table_rake_total`` is the table's rake taken at ``table_version``, its amount
  is what earlier sweeps of that table left, its balance follows; no table is swept beyond its rake;
- tournaments: as ``audit.money_tournaments`` says (every entry, refund and prize on its three streams);
- per currency: deposits - withdrawals = player balances + chips at tables + rake taken at tables + prize
  pools + the fees tournaments took.

Tables whose config has no currency (``""``: play chips) are checked per hand and per table, and stay out
of the money totals.
"""

from __future__ import annotations

from bisect import bisect_right
from collections.abc import Iterable
from dataclasses import asdict, dataclass, field
from datetime import datetime
from typing import Any

from stud_service.audit.money_tournaments import (
    POOLS,
    TOURNAMENTS,
    PoolFold,
    TournamentFigures,
    TournamentFold,
    pair_tournaments,
)
from stud_service.ledger.names import ACCOUNT_PREFIX, HOUSE_PREFIX, account_name_of_stream

TABLES = "tables/"
ACCOUNTS, HOUSE = ACCOUNT_PREFIX, HOUSE_PREFIX  # where the ledger keeps money (stud_service.ledger.names)
# The table events the fold reads; the rest (cards, seeds, seating changes) move no chips.
TABLE_MONEY_TYPES = (
    "TableCreated", "PlayerSeated", "PlayerToppedUp", "PlayerLeft", "HandStarted", "AntePosted",
    "PlayerActed", "UncalledBetReturned", "HandEnded", "HandVoided",
)
BUY_IN, TOP_UP, CASH_OUT = "buy-in", "top-up", "cash-out"
# A player's tournament entries, and the move of the tournament each pairs with (audit.money_tournaments).
_TOURNAMENT_ENTRIES = {"EntryDebited": "entry", "EntryRefunded": "refund", "PrizeCredited": "prize"}


@dataclass(frozen=True, order=True)
class Discrepancy:
    """``stream_id`` at ``version`` is where the books first go wrong (None: a stream-wide total)."""

    stream_id: str
    version: int | None
    message: str
    currency: str = ""

    def __str__(self) -> str:
        where = f"{self.stream_id} version {self.version}" if self.version is not None else self.stream_id
        return f"{where}: {self.message}"


@dataclass
class TableFigures:
    table_id: str
    currency: str = ""  # "" = play chips
    buy_ins: int = 0
    top_ups: int = 0
    cash_outs: int = 0
    rake_taken: int = 0
    rake_swept: int = 0
    chips: int = 0  # stacks + chips in a running hand
    in_hand: int = 0  # chips in the running hand at the cut
    hands_ended: int = 0
    version: int = 0  # the last version read


@dataclass
class AccountFigures:
    stream_id: str
    player_id: str
    currency: str
    deposits: int = 0
    withdrawals: int = 0
    buy_ins: int = 0  # buy-ins and top-ups
    cash_outs: int = 0
    tournament_entries: int = 0  # buy-ins + fees of tournament entries
    tournament_credits: int = 0  # tournament refunds and prizes
    balance: int = 0  # as the last entry recorded it
    version: int = 0


@dataclass
class CurrencyTotals:
    currency: str
    deposits: int = 0
    withdrawals: int = 0
    balances: int = 0
    chips_at_tables: int = 0
    rake_taken: int = 0
    house_balance: int = 0
    unswept_rake: int = 0
    accounts: int = 0
    tables: int = 0
    prize_pools: int = 0  # what tournaments' pools hold
    fees: int = 0  # the fees tournaments took for the house (refunded ones left out)
    tournaments: int = 0

    @property
    def held(self) -> int:
        """Where the money is: balances + chips at tables + rake taken + prize pools + fees."""
        return self.balances + self.chips_at_tables + self.rake_taken + self.prize_pools + self.fees

    @property
    def difference(self) -> int:
        """deposits - withdrawals - (balances + chips at tables + rake taken + prize pools + fees): 0 when
        the books balance."""
        return self.deposits - self.withdrawals - self.held


@dataclass
class MoneyReport:
    totals: dict[str, CurrencyTotals]
    tables: dict[str, TableFigures]
    accounts: dict[str, AccountFigures]
    events_read: int
    discrepancies: list[Discrepancy]
    events_in_log: int = 0  # every event at the cut, the ones that move no money included
    as_of: datetime | None = None  # the cut's time, or when the snapshot was taken
    tournaments: dict[str, TournamentFigures] = field(default_factory=dict)

    @property
    def ok(self) -> bool:
        return not self.discrepancies

    def only(self, currency: str) -> MoneyReport:
        """The report for one currency (play-chip tables left out)."""
        return MoneyReport(
            {c: t for c, t in self.totals.items() if c == currency},
            {k: t for k, t in self.tables.items() if t.currency == currency},
            {k: a for k, a in self.accounts.items() if a.currency == currency},
            self.events_read,
            [d for d in self.discrepancies if d.currency == currency],
            self.events_in_log,
            self.as_of,
            {k: t for k, t in self.tournaments.items() if t.currency == currency},
        )

    def to_json(self) -> dict[str, Any]:
        return {
            "ok": self.ok,
            "events_read": self.events_read,
            "events_in_log": self.events_in_log,
            "as_of": self.as_of.isoformat() if self.as_of else None,
            "totals": [
                {**asdict(t), "difference": t.difference} for _c, t in sorted(self.totals.items())
            ],
            "tables": [asdict(t) for _k, t in sorted(self.tables.items())],
            "accounts": [asdict(a) for _k, a in sorted(self.accounts.items())],
            "tournaments": [asdict(t) for _k, t in sorted(self.tournaments.items())],
            "discrepancies": [asdict(d) for d in self.discrepancies],
        }


@dataclass
class _Entry:
    """A money event on either side of a pairing."""

    stream_id: str
    version: int
    kind: str
    player_id: str
    amount: int
    currency: str


def _amount(value: Any) -> int | None:
    return value if type(value) is int else None


class _TableFold:
    def __init__(self, table_id: str, fold: MoneyFold) -> None:
        self.stream_id = TABLES + table_id
        self.fold = fold
        self.figures = TableFigures(table_id)
        self.stacks: dict[int, int] = {}
        self.players: dict[int, str] = {}
        self.hand: int | None = None
        self.hand_version = 0
        self.put_in = 0
        self.money: dict[int, _Entry] = {}  # version -> the table side of a pairing
        self.rake_at: list[int] = []  # versions of raked HandEnded events, ascending
        self.rake_total: list[int] = []  # the cumulative rake at each of them

    def problem(self, version: int, message: str) -> None:
        self.fold.problem(self.stream_id, version, message, self.figures.currency)

    def rake_taken_at(self, version: int) -> int:
        index = bisect_right(self.rake_at, version)
        return self.rake_total[index - 1] if index else 0

    def add(self, version: int, payload: dict[str, Any]) -> None:
        self.figures.version = version
        kind = payload.get("type")
        if kind in ("AntePosted", "PlayerActed", "UncalledBetReturned"):
            self.chips_in(version, kind, payload)
        elif kind == "HandVoided":
            self.voided(version, payload)
        elif kind == "HandStarted":
            self.started(version, payload)
        elif kind == "HandEnded":
            self.ended(version, payload)
        elif kind == "PlayerSeated":
            self.seated(version, payload)
        elif kind == "PlayerToppedUp":
            self.topped_up(version, payload)
        elif kind == "PlayerLeft":
            self.left(version, payload)
        elif kind == "TableCreated":
            if version != 1:
                self.problem(version, "TableCreated is not the table's first event")
            config = payload.get("config") or {}
            currency = config.get("currency", "") if isinstance(config, dict) else ""
            self.figures.currency = currency if isinstance(currency, str) else ""

    def chips_in(self, version: int, kind: str, payload: dict[str, Any]) -> None:
        seat = payload.get("seat")
        amount = _amount(payload.get("chips" if kind == "PlayerActed" else "amount"))
        if amount is None or amount < 0:
            self.problem(version, f"{kind} has no valid chip amount")
            return
        if self.hand is None or payload.get("hand") != self.hand:
            self.problem(version, f"{kind} outside a running hand")
            return
        if seat not in self.stacks:
            self.problem(version, f"{kind} for seat {seat}, which holds no player")
            return
        if kind == "UncalledBetReturned":
            amount = -amount
        stack = self.stacks[seat] - amount
        if stack < 0:
            self.problem(version, f"seat {seat}'s stack would go negative ({stack})")
        self.stacks[seat] = stack
        self.put_in += amount

    def voided(self, version: int, payload: dict[str, Any]) -> None:
        """RULES.md §12: a voided hand gives each seat back what it put in; its HandEnded pays nothing."""
        if self.hand is None or payload.get("hand") != self.hand:
            self.problem(version, "HandVoided outside a running hand")
            return
        for entry in payload.get("returned") or ():
            pair = isinstance(entry, list | tuple) and len(entry) == 2
            seat, amount = (entry[0], _amount(entry[1])) if pair else (None, None)
            if amount is None or amount <= 0 or seat not in self.stacks:
                self.problem(version, f"HandVoided returns {entry!r}")
                continue
            self.stacks[seat] += amount
            self.put_in -= amount
        if self.put_in != 0:
            self.problem(version, f"the void leaves {self.put_in} chips in the hand")

    def started(self, version: int, payload: dict[str, Any]) -> None:
        if self.hand is not None:
            self.problem(version, f"hand {payload.get('hand')} started while hand {self.hand} was running")
        self.hand = payload.get("hand")
        self.hand_version = version
        self.put_in = 0
        for seat, player, stack in payload.get("seats") or ():
            if self.players.get(seat) != player or self.stacks.get(seat) != stack:
                self.problem(
                    version,
                    f"hand {self.hand} deals seat {seat} ({player}) a stack of {stack};"
                    f" the table holds {self.stacks.get(seat)} for {self.players.get(seat)}",
                )

    def ended(self, version: int, payload: dict[str, Any]) -> None:
        hand = payload.get("hand")
        if self.hand is None or hand != self.hand:
            self.problem(version, f"hand {hand} ended without starting")
        rake = _amount(payload.get("rake", 0))
        if rake is None or rake < 0:
            self.problem(version, "the hand's rake is not a whole non-negative number")
            rake = 0
        pots_total = pots_rake = paid = 0
        for pot in payload.get("pots") or ():
            amount, pot_rake = _amount(pot.get("amount")), _amount(pot.get("rake", 0))
            if amount is None or pot_rake is None or pot_rake < 0:
                self.problem(version, f"pot {pot.get('pot')} has no valid amount or rake")
                continue
            awarded = 0
            for award in pot.get("awards") or ():
                seat, won = award.get("seat"), _amount(award.get("amount"))
                if won is None or won < 0 or seat not in self.stacks:
                    self.problem(version, f"pot {pot.get('pot')} pays {won} to seat {seat}")
                    continue
                self.stacks[seat] += won
                awarded += won
            if awarded + pot_rake != amount:
                self.problem(
                    version, f"pot {pot.get('pot')} of {amount} pays {awarded} with {pot_rake} rake"
                )
            pots_total += amount
            pots_rake += pot_rake
            paid += awarded
        if pots_rake != rake:
            self.problem(version, f"the hand's rake is {rake} but its pots' rake adds up to {pots_rake}")
        shares = payload.get("rake_shares") or ()
        if shares and sum(share for _seat, share in shares) != rake:
            self.problem(version, f"the rake shares do not add up to the rake of {rake}")
        if paid + rake != self.put_in:
            self.problem(
                version,
                f"hand {hand}: {self.put_in} chips put in, {paid} paid out and {rake} raked",
            )
        for seat, stack in payload.get("stacks") or ():
            if self.stacks.get(seat) != stack:
                self.problem(
                    version,
                    f"hand {hand} leaves seat {seat} {stack}; the chips make it {self.stacks.get(seat)}",
                )
        if rake:
            self.figures.rake_taken += rake
            self.rake_at.append(version)
            self.rake_total.append(self.figures.rake_taken)
        self.figures.hands_ended += 1
        self.hand = None
        self.put_in = 0

    def money_event(self, version: int, kind: str, player: Any, amount: Any) -> int | None:
        amount = _amount(amount)
        if amount is None or amount < (0 if kind == CASH_OUT else 1):
            self.problem(version, f"the {kind} amount {amount!r} is not valid")
            return None
        if self.figures.currency:
            currency = self.figures.currency
            self.money[version] = _Entry(self.stream_id, version, kind, str(player), amount, currency)
        return amount

    def seated(self, version: int, payload: dict[str, Any]) -> None:
        seat, player = payload.get("seat"), payload.get("player_id")
        amount = self.money_event(version, BUY_IN, player, payload.get("buy_in"))
        if seat in self.stacks:
            self.problem(version, f"seat {seat} is taken by {self.players[seat]}")
        if amount is None:
            return
        self.stacks[seat] = amount
        self.players[seat] = player
        self.figures.buy_ins += amount

    def topped_up(self, version: int, payload: dict[str, Any]) -> None:
        seat, player = payload.get("seat"), payload.get("player_id")
        amount = self.money_event(version, TOP_UP, player, payload.get("amount"))
        if self.players.get(seat) != player:
            self.problem(version, f"{player} tops up at seat {seat}, which is not theirs")
            return
        if amount is not None:
            self.stacks[seat] += amount
            self.figures.top_ups += amount

    def left(self, version: int, payload: dict[str, Any]) -> None:
        seat, player = payload.get("seat"), payload.get("player_id")
        amount = self.money_event(version, CASH_OUT, player, payload.get("cash_out"))
        if self.players.get(seat) != player:
            self.problem(version, f"{player} leaves seat {seat}, which is not theirs")
            return
        stack = self.stacks.pop(seat)
        del self.players[seat]
        if amount is not None:
            self.figures.cash_outs += amount
            if amount != stack:
                self.problem(version, f"{player} cashes out {amount} from a stack of {stack}")

    def finish(self) -> TableFigures:
        figures = self.figures
        figures.in_hand = self.put_in
        figures.chips = sum(self.stacks.values()) + self.put_in
        flows = figures.buy_ins + figures.top_ups - figures.cash_outs - figures.rake_taken
        if flows != figures.chips:
            self.fold.problem(
                self.stream_id,
                None,
                f"buy-ins + top-ups - cash-outs - rake = {flows}, but the table holds {figures.chips} chips",
                figures.currency,
            )
        return figures


class _AccountFold:
    def __init__(self, stream_id: str, fold: MoneyFold) -> None:
        name = account_name_of_stream(stream_id)
        assert name is not None and name.player_id is not None  # fed only streams under ACCOUNTS
        self.stream_id = stream_id
        self.fold = fold
        self.figures = AccountFigures(stream_id, name.player_id, name.currency)
        self.references: set[Any] = set()
        self.opened = False

    def problem(self, version: int, message: str) -> None:
        self.fold.problem(self.stream_id, version, message, self.figures.currency)

    def add(self, version: int, payload: dict[str, Any]) -> None:
        figures = self.figures
        figures.version = version
        kind = payload.get("type")
        if version == 1 or kind == "AccountOpened":
            if version != 1 or kind != "AccountOpened":
                self.problem(version, "an account's first event, and only it, is AccountOpened")
            elif payload.get("player_id") != figures.player_id or payload.get("currency") != figures.currency:
                self.problem(version, "AccountOpened names another player or currency than its stream")
            self.opened = True
            return
        amount = _amount(payload.get("amount"))
        if amount is None or amount < (0 if kind == "CashOutCredited" else 1):
            self.problem(version, f"{kind} has an invalid amount {payload.get('amount')!r}")
            amount = 0
        if kind == "FundsDeposited" or kind == "FundsWithdrawn":
            reference = payload.get("reference")
            if reference in self.references:
                self.problem(version, f"payment reference {reference!r} is used twice")
            self.references.add(reference)
            if kind == "FundsDeposited":
                figures.deposits += amount
                expected = figures.balance + amount
            else:
                figures.withdrawals += amount
                expected = figures.balance - amount
        elif kind == "BuyInDebited":
            figures.buy_ins += amount
            expected = figures.balance - amount
            self.pair(version, TOP_UP if payload.get("top_up") else BUY_IN, amount, payload)
        elif kind == "CashOutCredited":
            figures.cash_outs += amount
            expected = figures.balance + amount
            self.pair(version, CASH_OUT, amount, payload)
        elif kind in _TOURNAMENT_ENTRIES:
            debit = kind == "EntryDebited"
            if debit:
                figures.tournament_entries += amount
            else:
                figures.tournament_credits += amount
            expected = figures.balance - amount if debit else figures.balance + amount
            key = (str(payload.get("tournament_id")), payload.get("tournament_version"), figures.player_id,
                   _TOURNAMENT_ENTRIES[kind])
            entry = (self.stream_id, version, amount, figures.currency)
            self.fold.tournament_entries.setdefault(key, []).append(entry)
        else:
            self.problem(version, f"{kind!r} is not an account event")
            return
        balance = _amount(payload.get("balance"))
        if balance != expected:
            self.problem(version, f"{kind} of {amount} records a balance of {balance}, not {expected}")
        if balance is None:
            balance = expected
        if balance < 0:
            self.problem(version, f"the balance goes negative ({balance})")
        figures.balance = balance

    def pair(self, version: int, kind: str, amount: int, payload: dict[str, Any]) -> None:
        key = (str(payload.get("table_id")), payload.get("table_version"))
        entry = _Entry(self.stream_id, version, kind, self.figures.player_id, amount, self.figures.currency)
        self.fold.account_entries.setdefault(key, []).append(entry)

    def finish(self) -> AccountFigures:
        return self.figures


class _HouseFold:
    def __init__(self, stream_id: str, fold: MoneyFold) -> None:
        self.stream_id = stream_id
        name = account_name_of_stream(stream_id)
        assert name is not None  # fed only streams under HOUSE
        self.currency = name.currency
        self.fold = fold
        self.balance = 0
        self.sweeps: list[tuple[int, dict[str, Any]]] = []

    def add(self, version: int, payload: dict[str, Any]) -> None:
        kind = payload.get("type")
        if version == 1 or kind == "HouseAccountOpened":
            if version != 1 or kind != "HouseAccountOpened" or payload.get("currency") != self.currency:
                message = "a house account opens first, once, in its currency"
                self.fold.problem(self.stream_id, version, message, self.currency)
            return
        if kind != "RakeSwept":
            self.fold.problem(self.stream_id, version, f"{kind!r} is not a house event", self.currency)
            return
        amount = _amount(payload.get("amount"))
        if amount is None or amount < 1:
            self.fold.problem(self.stream_id, version, f"a sweep of {amount!r}", self.currency)
            amount = 0
        balance = _amount(payload.get("balance"))
        if balance != self.balance + amount:
            self.fold.problem(
                self.stream_id,
                version,
                f"a sweep of {amount} records a balance of {balance}; it should be {self.balance + amount}",
                self.currency,
            )
        self.balance = balance if balance is not None else self.balance + amount
        self.sweeps.append((version, payload))


class MoneyFold:
    """Feed every money stream's events (each stream in version order, streams in any order), then finish."""

    def __init__(self) -> None:
        self.discrepancies: list[Discrepancy] = []
        self.tables: dict[str, _TableFold] = {}
        self.accounts: dict[str, _AccountFold] = {}
        self.houses: dict[str, _HouseFold] = {}
        self.tournaments: dict[str, TournamentFold] = {}
        self.pools: dict[str, PoolFold] = {}
        self.account_entries: dict[tuple[str, Any], list[_Entry]] = {}
        self.tournament_entries: dict[tuple[str, Any, str, str], list[tuple[str, int, int, str]]] = {}
        self.events_read = 0

    def problem(self, stream_id: str, version: int | None, message: str, currency: str = "") -> None:
        self.discrepancies.append(Discrepancy(stream_id, version, message, currency))

    def stream(self, stream_id: str) -> Any:
        """The folder for one stream's events (None: a stream that holds no money)."""
        if stream_id.startswith(TABLES):
            folder: Any = self.tables.setdefault(stream_id, _TableFold(stream_id[len(TABLES) :], self))
        elif stream_id.startswith(ACCOUNTS):
            folder = self.accounts.setdefault(stream_id, _AccountFold(stream_id, self))
        elif stream_id.startswith(HOUSE):
            folder = self.houses.setdefault(stream_id, _HouseFold(stream_id, self))
        elif stream_id.startswith(TOURNAMENTS):
            folder = self.tournaments.setdefault(stream_id, TournamentFold(stream_id, self.problem))
        elif stream_id.startswith(POOLS):
            folder = self.pools.setdefault(stream_id, PoolFold(stream_id, self.problem))
        else:
            return None
        return folder

    def feed(self, rows: Iterable[tuple[str, int, dict[str, Any]]]) -> None:
        """``(stream_id, version, payload)`` rows, grouped by stream."""
        current, add, read = None, None, 0
        for stream_id, version, payload in rows:
            read += 1
            if stream_id != current:
                current = stream_id
                folder = self.stream(stream_id)
                add = folder.add if folder is not None else None
            if add is not None:
                try:
                    add(version, payload)
                except (AttributeError, KeyError, TypeError, ValueError) as error:  # a payload's shape
                    self.problem(stream_id, version, f"{payload.get('type')!r} is malformed: {error!r}")
        self.events_read += read

    def finish(self) -> MoneyReport:
        tables = {fold.stream_id: fold.finish() for fold in self.tables.values()}
        accounts = {fold.stream_id: fold.finish() for fold in self.accounts.values()}
        self._pairings()
        pair_tournaments(self.tournaments, self.pools, self.tournament_entries, self.problem)
        totals: dict[str, CurrencyTotals] = {}

        def total(currency: str) -> CurrencyTotals:
            return totals.setdefault(currency, CurrencyTotals(currency))

        for account in accounts.values():
            sums = total(account.currency)
            sums.accounts += 1
            sums.deposits += account.deposits
            sums.withdrawals += account.withdrawals
            sums.balances += account.balance
        self._sweeps(total)
        for table in tables.values():
            if table.currency:
                sums = total(table.currency)
                sums.tables += 1
                sums.chips_at_tables += table.chips
                sums.rake_taken += table.rake_taken
                sums.unswept_rake += table.rake_taken - table.rake_swept
        for pool in self.pools.values():
            sums = total(pool.currency)
            sums.prize_pools += pool.pool
            sums.fees += pool.fees
        tournaments = {fold.stream_id: fold.figures for fold in self.tournaments.values()}
        for figures in tournaments.values():
            if figures.currency:
                total(figures.currency).tournaments += 1
        for currency, sums in sorted(totals.items()):
            if sums.difference:
                self.problem(
                    f"{ACCOUNTS}{currency}",
                    None,
                    f"deposits - withdrawals = {sums.deposits - sums.withdrawals}, but balances + chips at"
                    f" tables + rake + prize pools + fees = {sums.held}",
                    currency,
                )
        self.discrepancies.sort(key=lambda d: (d.stream_id, d.version is None, d.version or 0))
        return MoneyReport(totals, tables, accounts, self.events_read, self.discrepancies,
                           tournaments=tournaments)

    def _pairings(self) -> None:
        for fold in self.tables.values():
            table_id = fold.figures.table_id
            for version, entry in fold.money.items():
                paired = self.account_entries.pop((table_id, version), [])
                if not paired:
                    fold.problem(version, f"the {entry.kind} of {entry.amount} has no account entry")
                    continue
                first, *extra = paired
                if (first.kind, first.player_id, first.amount, first.currency) != (
                    entry.kind, entry.player_id, entry.amount, entry.currency
                ):
                    fold.problem(
                        version,
                        f"the {entry.kind} of {entry.amount} by {entry.player_id} pairs with"
                        f" {first.stream_id} version {first.version}, a {first.kind} of {first.amount}",
                    )
                    self.problem(
                        first.stream_id, first.version,
                        f"the {first.kind} of {first.amount} does not match {fold.stream_id} version"
                        f" {version}, a {entry.kind} of {entry.amount} by {entry.player_id}",
                        first.currency,
                    )
                for again in extra:
                    self.problem(
                        again.stream_id, again.version,
                        f"a second account entry for {fold.stream_id} version {version}", again.currency,
                    )
        for (table_id, table_version), entries in self.account_entries.items():
            for entry in entries:
                self.problem(
                    entry.stream_id, entry.version,
                    f"the {entry.kind} of {entry.amount} names {TABLES}{table_id} version {table_version},"
                    " which holds no such money event",
                    entry.currency,
                )

    def _sweeps(self, total: Any) -> None:
        for house in self.houses.values():
            sums = total(house.currency)
            sums.house_balance += house.balance
            for version, sweep in house.sweeps:
                table = self.tables.get(TABLES + str(sweep.get("table_id")))
                reported = _amount(sweep.get("table_rake_total"))
                amount = _amount(sweep.get("amount")) or 0
                if table is None or table.figures.currency != house.currency:
                    self.problem(
                        house.stream_id, version,
                        f"sweeps table {sweep.get('table_id')!r}, which takes no rake in {house.currency}",
                        house.currency,
                    )
                    continue
                table_version = _amount(sweep.get("table_version"))
                actual = table.rake_taken_at(table_version) if table_version is not None else None
                if table_version is None or reported != actual:
                    self.problem(
                        house.stream_id, version,
                        f"records {reported} rake taken at {table.stream_id} version {table_version};"
                        f" the table's hands took {actual}",
                        house.currency,
                    )
                before = table.figures.rake_swept
                if reported is not None and amount != reported - before:
                    self.problem(
                        house.stream_id, version,
                        f"sweeps {amount} of {table.stream_id}; its rake of {reported} less the {before}"
                        " swept before leaves",
                        house.currency,
                    )
                table.figures.rake_swept += amount
                if table.figures.rake_swept > table.figures.rake_taken:
                    self.problem(
                        house.stream_id, version,
                        f"{table.stream_id} is swept of {table.figures.rake_swept}, more than the"
                        f" {table.figures.rake_taken} its hands took",
                        house.currency,
                    )


def reconcile(rows: Iterable[tuple[str, int, dict[str, Any]]]) -> MoneyReport:
    """The report over ``(stream_id, version, payload)`` rows, grouped by stream, each in version order."""
    fold = MoneyFold()
    fold.feed(rows)
    return fold.finish()
