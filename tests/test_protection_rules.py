"""Player protection's pure rules (stud_service.ledger.protection): rolling windows, the net result folded
incrementally by an account against an independent fold of the whole statement, the cooling-off of raises,
the stricter of a player's limit and the operator's floor, play sessions."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from stud_service.ledger import accounts, protection
from stud_service.ledger.accounts import Account
from stud_service.ledger.players import PlayerStanding, apply
from stud_service.ledger.protection import DAY_MS, PERIOD_MS, Limit, LimitKey, Session

HOUR = 3_600_000
START = 1_700_000_000_000
KEY = LimitKey("loss", "USD", "day")

# A statement: (gap since the last entry in ms, kind, amount); kinds as an account records them.
entries = st.lists(
    st.tuples(st.integers(0, 40 * DAY_MS // 20), st.sampled_from(["deposit", "buy_in", "cash_out"]),
              st.integers(0, 50_000)),
    max_size=60,
)


def statement(drawn: list[tuple[int, str, int]]) -> tuple[Account, list[tuple[int, str, int]]]:
    """The account folded entry by entry (as the ledger keeps it), and the statement as (at, kind, amount)."""
    account = Account.empty("accounts/USD/ann")
    at = START
    accounts.apply(account, {"type": "AccountOpened", "v": 1, "player_id": "ann", "currency": "USD",
                             "at_ms": at})
    balance, rows = 0, []
    for gap, kind, amount in drawn:
        at += gap
        if kind == "deposit":
            amount = max(amount, 1)
            balance += amount
            event = {"type": "FundsDeposited", "v": 1, "amount": amount, "reference": f"r{len(rows)}",
                     "balance": balance, "at_ms": at}
        elif kind == "buy_in":
            amount = min(max(amount, 1), balance) if balance else 0
            if amount == 0:
                continue
            balance -= amount
            event = {"type": "BuyInDebited", "v": 1, "table_id": "t", "table_version": 1, "amount": amount,
                     "top_up": False, "balance": balance, "at_ms": at}
        else:
            balance += amount
            event = {"type": "CashOutCredited", "v": 1, "table_id": "t", "table_version": 1,
                     "amount": amount, "balance": balance, "at_ms": at}
        accounts.apply(account, event)
        rows.append((at, kind, amount))
    return account, rows


def independent(rows: list[tuple[int, str, int]], period: str, now: int) -> tuple[int, int]:
    """Deposits and net result in the window, straight from the whole statement."""
    start = now - PERIOD_MS[period]
    deposits = net = 0
    for at, kind, amount in rows:
        if not start < at <= now:
            continue
        if kind == "deposit":
            deposits += amount
        elif kind == "buy_in":
            net -= amount
        else:
            net += amount
    return deposits, net


@settings(max_examples=300, deadline=None)
@given(entries, st.integers(0, 40 * DAY_MS), st.sampled_from(sorted(PERIOD_MS)))
def test_the_incremental_window_sums_match_an_independent_fold_of_the_whole_statement(drawn, later, period):
    account, rows = statement(drawn)
    last = rows[-1][0] if rows else START
    now = last + later
    deposits, net = independent(rows, period, now)
    start = now - PERIOD_MS[period]
    assert protection.deposited(account.moves, period, now) == deposits
    assert protection.net_result(account.moves, start, now) == net
    assert protection.lost(account.moves, period, now) == max(0, -net)
    # The account keeps only the last month's moves, never more than it was told.
    assert all(move.at_ms > last - protection.LONGEST_PERIOD_MS for move in account.moves)


@settings(max_examples=200, deadline=None)
@given(entries, st.integers(0, 40 * DAY_MS))
def test_a_longer_window_counts_at_least_as_much(drawn, later):
    account, rows = statement(drawn)
    now = (rows[-1][0] if rows else START) + later
    sums = [protection.deposited(account.moves, period, now) for period in ("day", "week", "month")]
    assert sums == sorted(sums)


# A player's own limit changes: (gap since the last change in ms, new amount; 0 removes it).
changes = st.lists(st.tuples(st.integers(0, 3 * DAY_MS), st.integers(0, 10_000)), min_size=1, max_size=12)


def oracle(changes_at: list[tuple[int, int]], cooling: int, t: int) -> int:
    """The player's own limit at ``t``, walked through the changes made by then."""
    own, pending = 0, None
    for at, amount in changes_at:
        if at > t:
            break
        if pending is not None and pending[0] <= at:
            own, pending = pending[1], None
        if amount != 0 and (own == 0 or amount <= own):
            own, pending = amount, None
        else:
            pending = (at + cooling, amount)
    if pending is not None and pending[0] <= t:
        own = pending[1]
    return own


@settings(max_examples=300, deadline=None)
@given(changes, st.integers(0, 4 * DAY_MS), st.integers(0, 10_000))
def test_lower_limits_apply_at_once_and_raises_only_after_the_cooling_off(drawn, probe, floor):
    standing = PlayerStanding("ann")
    at, timed = START, []
    for gap, amount in drawn:
        at += gap
        event = protection.own_limit_event(KEY, standing.limit(KEY), amount, "ann", at, DAY_MS)
        apply(standing, event)
        timed.append((at, amount))
        limit = standing.limit(KEY)
        if protection.is_lower(amount, oracle(timed[:-1], DAY_MS, at)):
            assert limit.own_at(at) == amount  # at once
        else:
            # What was in force when it was asked stays until the cooling-off ends (a new raise restarts it).
            assert limit.own_at(at + DAY_MS - 1) == limit.own_at(at) == oracle(timed, DAY_MS, at)
            assert limit.own_at(at + DAY_MS) == amount  # not a moment before the cooling-off ends
    limit = standing.limit(KEY)
    for t in (at, at + probe, at + DAY_MS, at + DAY_MS + probe):
        assert limit.own_at(t) == oracle(timed, DAY_MS, t)
    floored = protection.apply_limit_event(limit, protection.floor_event(KEY, floor, "house", at))
    own = floored.own_at(at + probe)
    assert floored.in_force(at + probe) == (min(own, floor) if own and floor else own or floor)


@given(st.lists(st.tuples(st.integers(0, 2 * HOUR), st.booleans(), st.sampled_from("abc")), max_size=30))
def test_a_session_lasts_across_tables_and_ends_after_the_gap(steps):
    session, at, seated = Session(), START, set()
    started = None
    for gap, join, table in steps:
        at += gap
        was_open = session.open_at(at)
        if join:
            session.join(table, at)
            seated.add(table)
            if not was_open:
                started = at
        else:
            session.leave(table, at)
            seated.discard(table)
        assert session.tables == seated
        if session.open_at(at):
            assert session.started_ms == started
            assert session.elapsed_ms(at) == at - started >= 0
        if seated:
            assert session.open_at(at)
    if not seated and session.left_ms is not None:
        assert not session.open_at(session.left_ms + protection.SESSION_GAP_MS + 1)


def test_the_tightest_period_is_what_is_left():
    limits = {LimitKey("deposit", "USD", "day"): Limit(own=1_000),
              LimitKey("deposit", "USD", "week"): Limit(own=1_500)}
    moves = [protection.Move(START - 3 * DAY_MS, "deposit", 1_000), protection.Move(START, "deposit", 200)]
    room = protection.room(limits, "deposit", "USD", moves, START)
    assert (room.remaining, room.period, room.limit) == (300, "week", 1_500)
    assert protection.room(limits, "deposit", "EUR", moves, START) is None
