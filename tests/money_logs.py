"""Money logs for the reconciliation tests: simulated tables with a currency, accounts, a house.

A log is a list of transactions, each a list of ``(stream_id, events)`` parts: what one command of the
money model appends (a table command with its paired account entries; a deposit; a sweep).  Every
prefix of the list is a consistent log position.  Tables come from ``audit.simulate`` (no rake in the
engine yet there, so ``rake`` takes a few chips from the last hand's winner, as a raked hand records it).
"""

from __future__ import annotations

import contextlib
import random
from collections import defaultdict
from collections.abc import AsyncIterator
from typing import Any

from psycopg.types.json import Jsonb

from stud_service.audit.simulate import simulate_table
from stud_service.db import open_pool
from stud_service.engine import Variant
from stud_service.store import GENESIS_HASH, EventStore, canonical_json, chain_hash

Part = tuple[str, list[dict[str, Any]]]
Transaction = list[Part]
AT_MS = 1_767_225_600_000


def table_commands(table_id: str, variant: Variant, hands: int, seed: int, currency: str, rake: int) -> list:
    """The simulated table's commands as JSON, ``currency`` in its config, ``rake`` on its last hand."""
    commands = simulate_table(table_id, variant, hands, seed=seed).payloads()
    for events in commands:
        for event in events:
            if event["type"] in ("TableCreated", "HandStarted"):
                event["config"]["currency"] = currency  # "": a play-chip table
    if rake:
        events = next(e for e in reversed(commands) if any(p["type"] == "HandEnded" for p in e))
        _rake_hand(events, rake)
    return commands


def _rake_hand(events: list[dict[str, Any]], rake: int) -> None:
    ended = next(p for p in events if p["type"] == "HandEnded")
    for pot in ended["pots"]:
        award = next((a for a in pot["awards"] if a["amount"] >= rake), None)
        if award is None:
            continue
        award["amount"] -= rake
        pot["rake"] = rake
        ended["rake"], ended["rake_shares"] = rake, [[award["seat"], rake]]
        winner = award["seat"]
        ended["stacks"] = [[seat, stack - rake * (seat == winner)] for seat, stack in ended["stacks"]]
        for event in events:
            if event["type"] == "PlayerLeft" and event["seat"] == award["seat"]:
                event["cash_out"] -= rake
        return


def _money_move(event: dict[str, Any]) -> tuple[str, int, bool | None] | None:
    """(player, signed amount for the account, top_up flag or None for a cash-out)."""
    if event["type"] == "PlayerSeated":
        return event["player_id"], -event["buy_in"], False
    if event["type"] == "PlayerToppedUp":
        return event["player_id"], -event["amount"], True
    if event["type"] == "PlayerLeft":
        return event["player_id"], event["cash_out"], None
    return None


def money_log(
    seed: int = 0,
    tables: int = 2,
    hands: int = 3,
    currency: str = "USD",
    rake: int = 3,
    play_chip_tables: int = 0,
) -> list[Transaction]:
    """Deposits, the tables' commands with their account entries (interleaved), withdrawals, a sweep.

    Table ``i`` rakes ``rake + i`` from its last hand (0: none), so no two tables' rake totals agree."""
    rng = random.Random(seed)
    per_table: dict[str, list] = {}
    for index in range(tables + play_chip_tables):
        money = index < tables
        table_id = f"{'cash' if money else 'play'}-{seed}-{index}"
        per_table[table_id] = (
            table_commands(table_id, rng.choice(list(Variant)), hands, rng.randrange(10**6),
                           currency if money else "", rake + index if money and rake else 0)
        )
    debits: dict[str, int] = defaultdict(int)
    for table_id, commands in per_table.items():
        if not table_id.startswith("cash"):
            continue
        for events in commands:
            for event in events:
                move = _money_move(event)
                if move is not None and move[1] < 0:
                    debits[move[0]] -= move[1]
    balances: dict[str, int] = {}
    log: list[Transaction] = []
    for player, owed in sorted(debits.items()):
        amount = owed + rng.randrange(0, 5000)
        balances[player] = amount
        log.append([(f"accounts/{currency}/{player}", [
            {"type": "AccountOpened", "v": 1, "player_id": player, "currency": currency, "at_ms": AT_MS},
            deposit(amount, f"pay-{player}-1", amount),
        ])])
    versions = dict.fromkeys(per_table, 0)
    cursors = dict.fromkeys(per_table, 0)
    while any(cursors[t] < len(per_table[t]) for t in per_table):
        table_id = rng.choice([t for t in per_table if cursors[t] < len(per_table[t])])
        events = per_table[table_id][cursors[table_id]]
        cursors[table_id] += 1
        entries: dict[str, list[dict[str, Any]]] = {}
        for offset, event in enumerate(events, start=1):
            move = _money_move(event)
            if move is None or not table_id.startswith("cash"):
                continue
            player, signed, top_up = move
            balances[player] += signed
            kind = "CashOutCredited" if top_up is None else "BuyInDebited"
            entry = {"type": kind, "v": 1, "table_id": table_id, "table_version": versions[table_id] + offset,
                     "amount": abs(signed)}
            if top_up is not None:
                entry["top_up"] = top_up
            entries.setdefault(player, []).append({**entry, "balance": balances[player], "at_ms": AT_MS})
        versions[table_id] += len(events)
        log.append([(f"tables/{table_id}", events)]
                   + [(f"accounts/{currency}/{player}", items) for player, items in entries.items()])
    for player, balance in sorted(balances.items()):
        if balance and rng.random() < 0.5:
            amount = rng.randint(1, balance)
            entry = withdrawal(amount, f"pay-{player}-2", balance - amount)
            log.append([(f"accounts/{currency}/{player}", [entry])])
    sweeps, house = [], 0
    for table_id, commands in per_table.items():
        taken = sum(p.get("rake", 0) for events in commands for p in events if p["type"] == "HandEnded")
        if taken:
            house += taken
            sweeps.append({"type": "RakeSwept", "v": 1, "table_id": table_id,
                           "table_version": versions[table_id], "table_rake_total": taken, "amount": taken,
                           "balance": house, "at_ms": AT_MS})
    if sweeps:
        opened = {"type": "HouseAccountOpened", "v": 1, "currency": currency, "at_ms": AT_MS}
        log.append([(f"house/{currency}", [opened, *sweeps])])
    return log


def deposit(amount: int, reference: str, balance: int) -> dict[str, Any]:
    return {"type": "FundsDeposited", "v": 1, "amount": amount, "reference": reference, "balance": balance,
            "at_ms": AT_MS}


def withdrawal(amount: int, reference: str, balance: int) -> dict[str, Any]:
    return {"type": "FundsWithdrawn", "v": 1, "amount": amount, "reference": reference, "balance": balance,
            "at_ms": AT_MS}


def log_rows(log: list[Transaction]) -> list[tuple[str, int, dict[str, Any]]]:
    """The log as the reader hands it to the fold: by stream, each in version order."""
    versions: dict[str, int] = defaultdict(int)
    rows = []
    for transaction in log:
        for stream_id, events in transaction:
            for event in events:
                versions[stream_id] += 1
                rows.append((stream_id, versions[stream_id], event))
    rows.sort(key=lambda row: (row[0], row[1]))
    return rows


async def store_log(
    store: Any, log: list[Transaction], heads: dict[str, int] | None = None
) -> dict[str, int]:
    """Append every part through the real event log (one stream at a time) after ``heads``; the new heads."""
    heads = defaultdict(int, heads or {})
    for transaction in log:
        for stream_id, events in transaction:
            heads[stream_id] = (await store.append(stream_id, heads[stream_id], events)).version
    return dict(heads)


@contextlib.asynccontextmanager
async def fresh_store(url: str) -> AsyncIterator[EventStore]:
    """An EventStore on ``url``, a database of the test's own (``make_database(migrated=True)``): the
    books cover the whole log, so no other test's tables may be in it."""
    pool = await open_pool(url, max_size=4)
    # No announcements: nothing here subscribes, and closing an announcing store now and then waits
    # forever on its announcer (seen as a rare hang of these tests in EventStore.close).
    store = EventStore(pool, announce=False)
    try:
        yield store
    finally:
        await store.close()
        await pool.close()


# -- tampering, as an attacker with database access would ---------------------------------------------


async def rows(store, stream_id: str) -> list[tuple[int, dict[str, Any]]]:
    async with store.pool.connection() as conn:
        cursor = await conn.execute(
            "SELECT version, payload FROM events WHERE stream_id = %s ORDER BY version", (stream_id,)
        )
        return await cursor.fetchall()


async def find(store, prefix: str, kind: str, where=lambda payload: True) -> tuple[str, int, dict[str, Any]]:
    """The first event of type ``kind`` in a stream starting with ``prefix`` (streams by id)."""
    async with store.pool.connection() as conn:
        cursor = await conn.execute(
            "SELECT stream_id, version, payload FROM events WHERE starts_with(stream_id, %s) AND type = %s"
            " ORDER BY stream_id, version",
            (prefix, kind),
        )
        return next(row for row in await cursor.fetchall() if where(row[2]))


async def rehash(store, stream_id: str) -> None:
    """Recompute the stream's whole chain over its (tampered) payloads, and its head."""
    prev = GENESIS_HASH
    async with store.pool.connection() as conn:
        for version, payload in await rows(store, stream_id):
            digest = chain_hash(prev, canonical_json(payload))
            await conn.execute(
                "UPDATE events SET prev_hash = %s, hash = %s WHERE stream_id = %s AND version = %s",
                (prev, digest, stream_id, version),
            )
            prev = digest
        await conn.execute(
            "UPDATE streams SET version = (SELECT max(version) FROM events WHERE stream_id = %s)"
            " WHERE stream_id = %s",
            (stream_id, stream_id),
        )


async def edit(store, stream_id: str, version: int, payload: dict[str, Any]) -> None:
    async with store.pool.connection() as conn:
        await conn.execute(
            "UPDATE events SET payload = %s WHERE stream_id = %s AND version = %s",
            (Jsonb(payload), stream_id, version),
        )
    await rehash(store, stream_id)
