"""What auditing a hand costs, against PokerKit doing the same job on the same hands in the same run.

- replay: our re-decided replay of a hand's log (every command re-checked by the engine, every event
  compared), against PokerKit replaying the PHH export of that hand (``HandHistory`` iteration);
- full verification without the database: replay + shuffle recomputation + chips ledger, against the
  same PokerKit replay (PokerKit checks no shuffle and no hash chain: the ratio shows what the extra
  guarantees cost);
- PHH export: ``to_phh`` of a hand, against PokerKit's ``HandHistory.dumps`` of the same hand;
- the shuffle: our HMAC-SHA256 Fisher-Yates deck from seeds, against ``random.SystemRandom().shuffle``
  (the CSPRNG shuffle a service without commitments would use);
- replay and verification of the same hands as the build before sealing and deck proofs logged them
  (the seed in HandStarted and revealed by HandEnded, no ShuffleCommitted, no deck root): what the
  proofs and the commitment order cost (goal: at most 1.2x the time).

The hands are 300 hands of each variant played by the seeded random players; hands that touch a rule
PokerKit handles differently (see tests/test_phh_pokerkit.py) are left out of both sides.

With ``--database`` the hands are also stored through the event log (``--database-url`` or
``$DATABASE_URL``; none: a throwaway embedded PostgreSQL), sealed as the service stores them, and the whole
``verify_hand`` (reading and opening the hand, hash chain, shuffle with its deck proofs, replay, chips) is
measured against the store's own hash-chain check of the same hand, and against ``verify_hand`` of the same
hands as logged before, stored in the clear (what sealing and proofs cost together; goal: at most 1.2x).

``--money`` measures this alone: it builds a log of ``--events`` events (default 1,000,000: simulated
tables with a currency, their players' accounts and the house, copied with COPY in replicas of one
simulated log, each replica's streams hash-chained of their own) and times ``audit money`` over it (best
of 3): events per second against the goal of 100,000 per second, the ratio in the same run.

Run: ``.venv/bin/python benchmarks/bench_audit.py [--database] [--money [--events N]] [--database-url URL]``.
Prints microseconds per hand (best of 5) and the ratio ours / peer.
"""

from __future__ import annotations

import argparse
import asyncio
import random
import sys
import tempfile
import time
import warnings
from collections.abc import Callable
from pathlib import Path
from typing import Any

import headline  # benchmarks/headline.py, as timing
from bulk_log import best_audit, replicated
from pokerkit import HandHistory
from timing import best_microseconds  # benchmarks/timing.py: the script's own folder is on sys.path

from stud_service.audit.phh import to_phh
from stud_service.audit.records import HandRecord
from stud_service.audit.replay_check import replay_hand
from stud_service.audit.simulate import as_logged_before_proofs, simulate_table, store_table
from stud_service.audit.verify import check_record
from stud_service.engine import Variant
from stud_service.shuffle import deck_order

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))
from test_phh_pokerkit import known_differences  # noqa: E402  (the one list of documented differences)

HANDS_PER_VARIANT = 300
# The peer of the "before" rows: the same hands as the build before sealing and deck proofs logged them.
BEFORE = "the same hands as logged before (seed shown, no proofs)"


def hands() -> list[HandRecord]:
    records = []
    for index, variant in enumerate(Variant):
        table = simulate_table(f"bench-{index}", variant, HANDS_PER_VARIANT, seed=500 + index)
        records.extend(table.hand_records())
    return [record for record in records if not known_differences(record)]


def logged_before_proofs(commands: list[list[dict[str, Any]]]) -> list[dict[str, Any]]:
    """A simulated table's events as the build before sealing and deck proofs logged them: no
    ShuffleCommitted, the server seed in HandStarted's extra and revealed by HandEnded."""
    seeds: dict[int, str] = {}
    events = []
    for payload in (payload for command in commands for payload in command):
        kind = payload["type"]
        if kind == "ShuffleCommitted":
            seeds[payload["next_hand"]] = payload["secret"]["server_seed"]
            continue
        if kind == "HandStarted":
            extra = {"server_seed": seeds[payload["hand"]], "client_seeds": payload["extra"]["client_seeds"]}
            payload = {**payload, "extra": extra}
        elif kind == "HandEnded":
            payload = {**payload, "server_seed": seeds[payload["hand"]]}
        events.append(payload)
    return events


async def store_logged(store: Any, stream_id: str, events: list[dict[str, Any]]) -> None:
    """Append ``events`` a hand at a time (up to each HandEnded), as ``store_table`` does."""
    version, batch = 0, []
    for event in events:
        batch.append(event)
        if event["type"] == "HandEnded":
            version = (await store.append(stream_id, version, batch)).version
            batch = []
    if batch:
        await store.append(stream_id, version, batch)


async def database_rows(url: str | None) -> list[tuple[str, float, float, str]]:
    from stud_service.audit.verify import verify_hand
    from stud_service.db import DatabaseSettings, open_database
    from stud_service.sealing import open_sealed_store
    from stud_service.sealing.keyring import Keyring, new_key
    from stud_service.store import EventStore

    with tempfile.TemporaryDirectory() as data_dir:
        async with open_database(DatabaseSettings.resolve(url=url, data_dir=data_dir), max_size=4) as db:
            # Sealed as the service stores hands: every read of a hand opens its deck and face-down cards.
            store = await open_sealed_store(db.pool, Keyring("bench", {"bench": new_key()}))
            plain = EventStore(db.pool)  # the same hands as logged before, in the clear
            tables = []
            for index, variant in enumerate(Variant):
                table = simulate_table(
                    f"bench-{index}-{time.time_ns()}", variant, HANDS_PER_VARIANT, seed=index
                )
                await store_table(store, table)
                logged = logged_before_proofs(table.payloads())
                await store_logged(plain, f"tables/{table.table_id}-before", logged)
                tables.append(table.table_id)
            targets = [(t, hand) for t in tables for hand in range(1, HANDS_PER_VARIANT + 1)]

            async def timed(operation) -> float:  # type: ignore[no-untyped-def]
                best = float("inf")
                for _ in range(3):
                    start = time.perf_counter()
                    for table_id, hand in targets:
                        await operation(table_id, hand)
                    best = min(best, (time.perf_counter() - start) / len(targets))
                return best * 1e6

            ours = await timed(lambda t, h: verify_hand(store, t, h))
            peer = await timed(lambda t, h: store.verify(f"tables/{t}", h))
            before = await timed(lambda t, h: verify_hand(plain, f"{t}-before", h))
            await store.close()
            await plain.close()
    return [("verify one hand (with DB)", ours, peer, "EventStore.verify: hash chain only"),
            ("verify one hand (with DB)", ours, before, BEFORE + ", in the clear")]


MONEY_GOAL_EVENTS_PER_SECOND = 100_000


def _replicated_rows(events: int) -> list[tuple[str, int, str, str, int | None]]:
    """(stream_id, version, type, canonical JSON text, hand) rows: one simulated money log
    (``tests/money_logs.py``), then whole copies of it (a cut inside one would split its pairings) with
    every table and player id suffixed, until at least ``events`` rows.  The copies leave out the house
    stream (their rake stays unswept, which balances)."""
    from money_logs import log_rows, money_log

    from stud_service.store import canonical_json

    template = [
        (stream, version, payload["type"], canonical_json(payload).decode(), payload.get("hand"))
        for stream, version, payload in log_rows(money_log(seed=1, tables=24, hands=60))
    ]
    names = {stream.split("/")[-1] for stream, *_rest in template if not stream.startswith("house/")}
    return replicated(template, events, names, skip="house/")


async def money_rows(url: str | None, events: int) -> list[tuple[str, float, float, str]]:
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))
    from stud_service.audit.money_log import audit_money

    best, report = await best_audit(url, _replicated_rows(events), audit_money, "money")
    assert report is not None and report.ok, report.discrepancies[:5] if report else None
    usd = report.totals["USD"]
    print(f"audit money: {report.events_in_log} events ({report.events_read} money events read) in"
          f" {best:.2f} s: {report.events_in_log / best:,.0f} events/s, {report.events_read / best:,.0f}"
          f" money events/s; goal {MONEY_GOAL_EVENTS_PER_SECOND:,}/s, ratio"
          f" {report.events_in_log / best / MONEY_GOAL_EVENTS_PER_SECOND:.2f};"
          f" USD deposits {usd.deposits}, {usd.tables} tables, {usd.accounts} accounts, PASS")
    us_per_event = best / report.events_in_log * 1e6
    goal_us = 1e6 / MONEY_GOAL_EVENTS_PER_SECOND
    return [("audit money, per event", us_per_event, goal_us, "the 100,000 events/s goal")]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--database", action="store_true", help="also measure verification on PostgreSQL")
    parser.add_argument("--database-url", help="PostgreSQL URL (default: $DATABASE_URL or embedded)")
    parser.add_argument("--money", action="store_true", help="also time 'audit money' over a big log")
    parser.add_argument("--events", type=int, default=1_000_000, help="events in the --money log")
    args = parser.parse_args()
    warnings.simplefilter("ignore")
    if args.money:
        print_rows("the money reconciliation over a built log; microseconds per event, best of 3",
                   asyncio.run(money_rows(args.database_url, args.events)))
        return
    records = hands()
    items = [[(s.version, s.payload) for s in record.events] for record in records]
    texts = [to_phh(record) for record in records]
    histories = [HandHistory.loads(text) for text in texts]
    count = len(records)

    def each(operation: Callable[[int], object]) -> Callable[[], None]:
        def run() -> None:
            for index in range(count):
                operation(index)

        return run

    rows = []
    ours = best_microseconds(each(lambda i: replay_hand(items[i], records[i].hand)), 1) / count
    peer = best_microseconds(each(lambda i: list(histories[i])), 1) / count
    rows.append(("replay one hand", ours, peer, "PokerKit HandHistory replay"))
    ours = best_microseconds(each(lambda i: check_record(records[i])), 1) / count
    rows.append(("verify one hand (no DB)", ours, peer, "PokerKit HandHistory replay"))
    before = [as_logged_before_proofs(record) for record in records]
    peer = best_microseconds(each(lambda i: check_record(before[i])), 1) / count
    rows.append(("verify one hand (no DB)", ours, peer, BEFORE))
    verify_us, pokerkit_us, before_us = ours, rows[0][2], peer
    before_items = [[(s.version, s.payload) for s in record.events] for record in before]
    ours = best_microseconds(each(lambda i: replay_hand(items[i], records[i].hand)), 1) / count
    peer = best_microseconds(each(lambda i: replay_hand(before_items[i], records[i].hand)), 1) / count
    rows.append(("replay one hand", ours, peer, BEFORE))
    ours = best_microseconds(each(lambda i: to_phh(records[i])), 1) / count
    peer = best_microseconds(each(lambda i: histories[i].dumps()), 1) / count
    rows.append(("PHH export of one hand", ours, peer, "PokerKit HandHistory.dumps"))
    seed = bytes(range(32))
    system = random.SystemRandom()
    ours = best_microseconds(lambda: deck_order(seed, {1: "client seed"}), 2000)
    peer = best_microseconds(lambda: system.shuffle(list(range(52))), 2000)
    rows.append(("shuffle a deck", ours, peer, "random.SystemRandom().shuffle"))
    if args.database:
        rows.extend(asyncio.run(database_rows(args.database_url)))

    print_rows(f"{count} hands (Seven Card Stud, Stud Hi-Lo, Razz); microseconds per operation,"
               " best of 5 (with DB: of 3)", rows)
    headline.record(
        __file__,
        what=f"verify one finished hand in memory (shuffle with deck proofs, replay, chips), {count} hands",
        figure=f"{verify_us:,.0f} µs a hand",
        peer=f"PokerKit replaying the same hand's PHH: {pokerkit_us:,.0f} µs",
        ratio=f"{verify_us / pokerkit_us:.2f}× the time",
        goal=f"≤ 1.2× the hands as logged before proofs ({before_us:,.0f} µs): {verify_us / before_us:.2f}×",
        met=verify_us <= 1.2 * before_us,
    )


def print_rows(title: str, rows: list[tuple[str, float, float, str]]) -> None:
    print(f"{title}\n")
    print(f"{'operation':<26} {'ours':>10} {'peer':>10} {'ours/peer':>10}  peer")
    for name, ours_us, peer_us, peer_name in rows:
        print(f"{name:<26} {ours_us:>10.1f} {peer_us:>10.1f} {ours_us / peer_us:>10.2f}  {peer_name}")


if __name__ == "__main__":
    main()
