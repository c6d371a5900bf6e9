"""The money reconciliation over clean logs: it balances, at the head and at any consistent cut.

The logs are simulated tables with a currency, their players' accounts and the house's sweeps
(``tests/money_logs.py``), stored through the real event log in a database of the test's own.
"""

from __future__ import annotations

import asyncio
import json
from datetime import UTC, datetime

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from money_logs import deposit, edit, find, fresh_store, log_rows, money_log, store_log

from stud_service.audit.checkpoint import FORMAT_V1, _signature, key_id, make_checkpoint, verify_checkpoint
from stud_service.audit.money import reconcile
from stud_service.audit.money_log import audit_money, heads_of
from stud_service.cli import main

KEY = b"checkpoint-key-for-the-money-tests-0123456789"


def expected_deposits(log) -> int:
    events = [event for transaction in log for _stream, part in transaction for event in part]
    return sum(event["amount"] for event in events if event["type"] == "FundsDeposited")


async def test_a_clean_log_balances(make_database):
    log = money_log(seed=1, tables=2, hands=4, play_chip_tables=1)
    async with fresh_store(await make_database(migrated=True)) as store:
        heads = await store_log(store, log)
        report = await audit_money(store)
    assert report.ok, report.discrepancies
    usd = report.totals["USD"]
    assert usd.deposits == expected_deposits(log) and usd.difference == 0
    assert usd.rake_taken == usd.house_balance == 3 + 4 and usd.unswept_rake == 0
    assert usd.tables == 2 and len(report.tables) == 3  # the play-chip table is checked, not counted
    assert report.events_in_log == sum(heads.values()) > report.events_read
    assert sum(t.chips for t in report.tables.values() if t.currency) == usd.chips_at_tables


async def test_a_cut_at_a_time_leaves_out_what_came_later(make_database):
    log = money_log(seed=2, tables=1, hands=3)
    async with fresh_store(await make_database(migrated=True)) as store:
        heads = await store_log(store, log)
        async with store.pool.connection() as conn:
            cut = (await (await conn.execute("SELECT max(recorded_at) FROM events")).fetchone())[0]
        late = [("accounts/USD/late-1", [
            {"type": "AccountOpened", "v": 1, "player_id": "late-1", "currency": "USD", "at_ms": 1},
            deposit(700, "pay-late", 700),
        ])]
        await store_log(store, [late], heads)
        before, now = await audit_money(store, as_of=cut), await audit_money(store)
        assert (await audit_money(store, as_of=datetime(2000, 1, 1, tzinfo=UTC))).totals == {}
    assert before.ok and now.ok
    assert now.totals["USD"].deposits - before.totals["USD"].deposits == 700
    assert "accounts/USD/late-1" not in before.accounts


async def test_a_cut_at_a_checkpoint_is_the_log_as_it_was_signed(make_database):
    log = money_log(seed=3, tables=2, hands=3)
    async with fresh_store(await make_database(migrated=True)) as store:
        heads = await store_log(store, log[:-3])
        checkpoint = await make_checkpoint(store, KEY)
        await store_log(store, log[-3:], heads)
        at_checkpoint = await audit_money(store, heads=heads_of(checkpoint))
        assert (await verify_checkpoint(store, checkpoint, KEY)).ok
    assert at_checkpoint.ok, at_checkpoint.discrepancies
    assert at_checkpoint.totals == reconcile(log_rows(log[:-3])).totals
    assert at_checkpoint.events_in_log == sum(heads.values())
    assert {e["stream"].split("/")[0] for e in checkpoint["streams"]} == {"accounts"}


async def test_a_format_1_checkpoint_still_verifies(make_database):
    async with fresh_store(await make_database(migrated=True)) as store:
        await store_log(store, money_log(seed=4, tables=1, hands=2))
        current = await make_checkpoint(store, KEY)
        body = {"format": FORMAT_V1, "created_at": current["created_at"], "tables": current["tables"]}
        signature = {"alg": "HMAC-SHA256", "key_id": key_id(KEY), "value": _signature(KEY, body)}
        old = {**body, "signature": signature}
        report = await verify_checkpoint(store, old, KEY)
    assert report.ok and report.tables_checked == len(current["tables"])


def test_a_currency_filter_keeps_that_currency_only():
    report = reconcile(log_rows(money_log(seed=5, tables=1, hands=2, currency="EUR")
                                + money_log(seed=6, tables=1, hands=2, play_chip_tables=1)))
    assert report.ok and set(report.totals) == {"EUR", "USD"}
    euros = report.only("EUR")
    assert set(euros.totals) == {"EUR"} and all(t.currency == "EUR" for t in euros.tables.values())
    assert all(a.currency == "EUR" for a in euros.accounts.values())


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    seed=st.integers(0, 10**6),
    tables=st.integers(1, 3),
    hands=st.integers(1, 4),
    play=st.integers(0, 1),
    rake=st.integers(0, 5),
    cuts=st.lists(st.floats(0, 1), min_size=1, max_size=4),
)
def test_random_valid_logs_always_reconcile(seed, tables, hands, play, rake, cuts):
    log = money_log(seed=seed, tables=tables, hands=hands, rake=rake, play_chip_tables=play)
    for cut in [1.0, *cuts]:  # every prefix of whole transactions is a consistent log position
        prefix = log[: round(cut * len(log))]
        report = reconcile(log_rows(prefix))
        assert report.ok, (len(prefix), report.discrepancies[:3])
        for totals in report.totals.values():
            assert totals.house_balance + totals.unswept_rake == totals.rake_taken


async def test_the_command_line_prints_the_books_and_fails_on_a_discrepancy(make_database, capsys, tmp_path,
                                                                            monkeypatch):
    url = await make_database(migrated=True)
    async with fresh_store(url) as store:
        await store_log(store, money_log(seed=7, tables=2, hands=2, play_chip_tables=1))
        monkeypatch.setenv("STUD_CHECKPOINT_KEY", KEY.decode())
        path = tmp_path / "checkpoint.json"
        path.write_text(json.dumps(await make_checkpoint(store, KEY)))

        async def run(*argv: str) -> tuple[int, str, str]:
            # The CLI runs its own event loop: call it from a worker thread, off the tests' loop.
            code = await asyncio.to_thread(main, ["audit", "money", *argv, "--database-url", url])
            captured = capsys.readouterr()
            return code, captured.out, captured.err

        code, out, _ = await run()
        assert code == 0 and out.splitlines()[-1] == "PASS: the books balance"
        assert "USD: deposits $" in out and "(difference $0)" in out and "play chips: 1 tables" in out
        code, out, _ = await run("--json", "--currency", "USD")
        books = json.loads(out)
        assert code == 0 and books["ok"] and [t["currency"] for t in books["totals"]] == ["USD"]
        assert (await run("--checkpoint", str(path)))[0] == 0
        assert (await run("--as-of", "2000-01-01T00:00:00"))[0] == 0
        missing = str(tmp_path / "none")
        for bad in (["--currency", "usd"], ["--as-of", "yesterday"], ["--checkpoint", missing]):
            code, _, err = await run(*bad)
            assert code == 2 and "stud-service audit money:" in err
        monkeypatch.setenv("STUD_CHECKPOINT_KEY", KEY.decode() + "-other")
        code, _, err = await run("--checkpoint", str(path))
        assert code == 2 and "not a checkpoint signed under this key" in err
        stream_id, version, payload = await find(store, "accounts/", "FundsDeposited")
        await edit(store, stream_id, version, {**payload, "amount": 1})
        code, out, _ = await run()
        assert code == 1 and f"FAIL {stream_id} version {version}: FundsDeposited of 1" in out
        assert out.splitlines()[-1].startswith("FAIL: ")


def test_a_malformed_money_event_is_a_discrepancy_not_a_crash():
    rows = log_rows(money_log(seed=8, tables=1, hands=2))
    index, (stream_id, version, started) = next(
        (i, row) for i, row in enumerate(rows) if row[2]["type"] == "HandStarted"
    )
    rows[index] = (stream_id, version, {**started, "seats": [["one", "two"]]})
    named = [(d.stream_id, d.version, d.message) for d in reconcile(rows).discrepancies]
    assert any((s, v) == (stream_id, version) and "malformed" in m for s, v, m in named)
