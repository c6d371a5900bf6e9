"""A tournament's money on the real event log, to the unit: whole tournaments driven through the runtime's
execute path (the domain's simulation feeding table hand results) pay every prize from the pool they
collected; a cancelled one pays its pool out; the reconciliation names a broken pairing; and money is
conserved across any sequence of registrations, withdrawals and a cancellation."""

from __future__ import annotations

import asyncio
import contextlib
import threading
import uuid
from dataclasses import replace

import pytest
import pytest_asyncio
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from tournament_replicas import FAST_LEVELS, balance, drive, fund, new_id, replica, scheduled

from stud_service.audit.money import reconcile
from stud_service.audit.money_log import audit_money
from stud_service.ledger.errors import LedgerError
from stud_service.store._json import loads
from stud_service.tournaments import Status, TournamentConfig, TournamentError

DEPOSIT = 20_000


@pytest.fixture
async def database(make_database) -> str:
    return await make_database(migrated=True)


async def money_rows(runtime) -> list[tuple[str, int, dict]]:
    """Every money stream's events, as the reconciliation reads them (the tournaments' too)."""
    async with runtime.store.pool.connection() as conn:
        cursor = await conn.execute(
            "SELECT stream_id, version, payload::text FROM events WHERE stream_id ~ '^(tables|accounts|house"
            "|tournaments|pools)/' ORDER BY stream_id, version"
        )
        return [(stream_id, version, loads(text)) for stream_id, version, text in await cursor.fetchall()]


@contextlib.asynccontextmanager
async def played(database: str, config: TournamentConfig, seed: int, players: int, **options):
    """A whole tournament on its own database, its players funded with DEPOSIT each: the runtime (to read
    it), the simulation and the tournament's id."""
    async with replica(database) as runtime:
        await fund(runtime, [f"p{n}" for n in range(1, players + 12)], DEPOSIT)
        tournament = new_id()
        sim = await asyncio.to_thread(drive, runtime, asyncio.get_running_loop(), tournament, config, seed,
                                      players=players, **options)
        yield runtime, sim, tournament


async def test_a_whole_tournament_pays_every_prize_from_its_pool_and_reconciles_to_the_unit(database):
    two_minutes = tuple(replace(level, minutes=2) for level in FAST_LEVELS)
    config = scheduled(max_entrants=12, seats_per_table=3, late_registration_levels=2, re_entries=2,
                       re_entry_until_level=3, min_entrants=3, payouts=(6_000, 3_000, 1_000),
                       starting_stack=100, levels=two_minutes)
    # (seed 7 registers 4 players late, and 2 buy in again)
    async with played(database, config, seed=7, players=7, late=8) as (runtime, sim, tournament):
        state = await runtime.tournaments.state(tournament)
        assert state.status is Status.FINISHED and state == sim.state
        entries = sum(state.entries.values())
        assert entries > len(state.registered) > 7  # late registrations and re-entries paid too
        prizes = state.prizes_won
        assert sum(prizes.values()) == entries * 1_000 == state.pool
        for player in state.registered:
            paid = state.entries[player] * 1_100
            assert await balance(runtime, player) == DEPOSIT - paid + prizes.get(player, 0), player
        pool = await runtime.ledger.pool(tournament, "USD")
        assert (pool.pool, pool.fees) == (0, entries * 100)
        report = await audit_money(runtime.store)
        assert report.ok, report.discrepancies[:5]
        usd = report.totals["USD"]
        assert (usd.prize_pools, usd.fees, usd.tournaments, usd.difference) == (0, entries * 100, 1, 0)
        figures = report.tournaments[f"tournaments/{tournament}"]
        assert (figures.entries, figures.prizes, figures.over) == (entries * 1_100, entries * 1_000, True)


async def test_a_tournament_cancelled_while_running_pays_its_pool_out_and_keeps_the_fees(database):
    config = scheduled(max_entrants=6, seats_per_table=3)
    async with played(database, config, seed=3, players=6, cancel_at=40) as (runtime, _sim, tournament):
        state = await runtime.tournaments.state(tournament)
        assert state.status is Status.CANCELLED and state.cancel_payouts
        paid_out = sum(state.cancel_payouts.values()) + sum(state.prizes_won.values())
        assert paid_out == 6 * 1_000
        pool = await runtime.ledger.pool(tournament, "USD")
        assert (pool.pool, pool.fees) == (0, 6 * 100)
        report = await audit_money(runtime.store)
        assert report.ok, report.discrepancies[:5]
        assert report.totals["USD"].fees == 600


async def test_the_reconciliation_names_a_prize_or_an_entry_that_lost_its_pair(database):
    config = scheduled(max_entrants=4, seats_per_table=2)
    async with played(database, config, seed=5, players=4) as (runtime, _sim, tournament):
        rows = await money_rows(runtime)
    assert reconcile(rows).ok
    places = next(row for row in rows if row[2]["type"] == "PlacesFixed" and row[2]["places"][0][3] > 0)
    without_prize = [row for row in rows if row[2]["type"] != "PrizeCredited"]
    found = {(d.stream_id, d.version) for d in reconcile(without_prize).discrepancies}
    assert (places[0], places[1]) in found  # the prize names its tournament event
    assert ("accounts/USD", None) in found  # and the books no longer balance
    pooled = next(index for index, row in enumerate(rows) if row[2]["type"] == "EntryPooled")
    edited = list(rows)
    stream_id, version, payload = edited[pooled]
    edited[pooled] = (stream_id, version, {**payload, "fee": payload["fee"] + 1})
    assert any(d.stream_id == stream_id and d.version == version for d in reconcile(edited).discrepancies)
    assert f"tournaments/{tournament}" in reconcile(rows).tournaments


# -- a property: money is conserved whatever the players and the operator do ---------------------------

@pytest_asyncio.fixture(scope="module", loop_scope="session")
async def property_database(make_database) -> str:
    return await make_database(migrated=True)


SIT_AND_GO = TournamentConfig(max_entrants=4, seats_per_table=2, levels=FAST_LEVELS, starting_stack=300,
                              buy_in=1_000, fee=100, currency="USD")
operations = st.lists(st.tuples(st.sampled_from(["register", "unregister"]), st.integers(0, 5)), max_size=14)


async def _conserved(url: str, funds: list[int], steps: list[tuple[str, int]], cancel: bool) -> None:
    async with replica(url, pool_size=4) as runtime:
        tournaments = runtime.tournaments
        prefix = uuid.uuid4().hex[:8]
        players = [f"{prefix}-{n}" for n in range(len(funds))]
        for player, amount in zip(players, funds, strict=True):
            if amount:
                await fund(runtime, [player], amount)
        tournament = new_id()
        await tournaments.create(tournament, SIT_AND_GO, by="house")
        for kind, index in steps:
            action = tournaments.register if kind == "register" else tournaments.unregister
            with contextlib.suppress(TournamentError, LedgerError):  # refused: nothing moved
                await action(tournament, players[index])
        if cancel:
            with contextlib.suppress(TournamentError):  # over already
                await tournaments.cancel(tournament, by="house", reason="a property")
        state = await tournaments.state(tournament)
        pool = await runtime.ledger.pool(tournament, "USD")
        balances = [await balance(runtime, player) for player in players]
        assert sum(balances) + pool.pool + pool.fees == sum(funds)
        entered = len(state.registered)
        assert pool.fees == (0 if state.status is Status.CANCELLED and entered < 4 else entered * 100)
        if state.status is Status.REGISTERING:
            assert pool.pool == entered * 1_000
            assert all(paid == amount - 1_100 * (player in state.registered)
                       for player, paid, amount in zip(players, balances, funds, strict=True))
        if state.status is Status.CANCELLED:
            assert pool.pool == 0
        report = await audit_money(runtime.store)
        assert report.ok, report.discrepancies[:5]


@settings(max_examples=20, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(funds=st.lists(st.sampled_from([0, 1_099, 1_100, 5_000]), min_size=6, max_size=6), steps=operations,
       cancel=st.booleans())
def test_money_is_conserved_across_registrations_withdrawals_and_a_cancellation(
        property_database, funds, steps, cancel):
    in_a_loop_of_its_own(_conserved(property_database, funds, steps, cancel), timeout=120)


def in_a_loop_of_its_own(coroutine, timeout: float) -> None:
    """Run ``coroutine`` to its end in a thread with its own event loop, beside the session's (a daemon
    thread: an example that never ends fails the test rather than holding the run)."""
    failed: list[BaseException] = []

    def run() -> None:
        try:
            asyncio.run(coroutine)
        except BaseException as error:  # handed to the test's thread
            failed.append(error)

    thread = threading.Thread(target=run, daemon=True)
    thread.start()
    thread.join(timeout)
    assert not thread.is_alive(), f"the example did not end within {timeout} s"
    if failed:
        raise failed[0]
