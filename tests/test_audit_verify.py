"""Verifying played hands (the audit issue): hundreds of hands of every variant pass every check.

The hands are played by random legal players through the engine with the real shuffle and stored
through the real event log on the test PostgreSQL.
"""

from __future__ import annotations

import copy
import uuid

import pytest
import pytest_asyncio

from stud_service.audit.catalog import list_hands
from stud_service.audit.errors import HandNotFound
from stud_service.audit.records import HandRecord
from stud_service.audit.simulate import SimulatedTable, simulate_table, store_table
from stud_service.audit.verify import check_record, verify_hand
from stud_service.engine import Variant

HANDS_PER_VARIANT = 120


async def play_and_store(
    event_store, prefix: str, hands: int, seed: int, raked: bool = False
) -> dict[Variant, SimulatedTable]:
    tables = {}
    for index, variant in enumerate(Variant):
        table_id = f"{prefix}-{variant.lower().replace('_', '-')}-{uuid.uuid4().hex[:8]}"
        table = simulate_table(table_id, variant, hands, seed=seed + index, raked=raked)
        await store_table(event_store, table)
        tables[variant] = table
    return tables


async def failed_hands(event_store, table: SimulatedTable, hands: int) -> list[str]:
    failures = []
    for hand in range(1, hands + 1):
        report = await verify_hand(event_store, table.table_id, hand)
        assert [c.name for c in report.checks] == ["chain", "shuffle", "replay", "chips"]
        if not report.ok:
            failures.append(report.summary())
    return failures


@pytest_asyncio.fixture(scope="module")
async def played(event_store) -> dict[Variant, SimulatedTable]:
    return await play_and_store(event_store, "audit", HANDS_PER_VARIANT, seed=0)


@pytest.mark.parametrize("variant", list(Variant))
async def test_every_played_hand_verifies(event_store, played, variant):
    """RULES.md §2-§7 as recorded: chain, shuffle, replay and chips all pass for every hand."""
    assert await failed_hands(event_store, played[variant], HANDS_PER_VARIANT) == []


async def test_unknown_hand_is_not_found(event_store, played):
    with pytest.raises(HandNotFound):
        await verify_hand(event_store, played[Variant.STUD].table_id, HANDS_PER_VARIANT + 1)


async def test_list_hands_by_table_player_and_pages(event_store, played):
    table = played[Variant.RAZZ]
    seen = []
    token = ""
    while True:
        page = await list_hands(event_store, table_id=table.table_id, page_size=50, page_token=token)
        seen.extend(summary.hand for summary in page.hands)
        token = page.next_page_token
        if not token:
            break
    assert seen == list(range(1, HANDS_PER_VARIANT + 1))
    first = (await list_hands(event_store, table_id=table.table_id, page_size=1)).hands[0]
    assert first.complete and first.variant == "RAZZ" and first.first_version > 1
    everything = await list_hands(event_store, table_id=table.table_id, page_size=1000)
    assert any(summary.pot > 0 for summary in everything.hands)
    player = first.players[0][1]
    mine = await list_hands(event_store, player_id=player, page_size=1000)
    assert mine.hands and all(player in {p for _seat, p, _stack in s.players} for s in mine.hands)
    # (Another simulated table may seat a player of the same name: compare this table's hands only.)
    assert [s.hand for s in mine.hands if s.table_id == table.table_id] == [
        s.hand for s in everything.hands if player in {p for _seat, p, _stack in s.players}
    ]


async def test_listing_hands_by_time_or_player_reads_an_index_not_every_event(event_store, played):
    """Finding hands must stay cheap on a long log: with sequential scans priced out, the listing
    query (all hands in start order, and one player's hands) is planned over the HandStarted
    indexes, not by reading the events table from end to end."""
    from stud_service.audit import catalog

    player = (await list_hands(event_store, page_size=1)).hands[0].players[0][1]
    params = {
        "prefix": "tables/", "stream": None, "since": None, "until": None,
        "after_time": catalog._BEGINNING, "after_stream": "", "after_hand": 0, "limit": 51,
    }
    async with event_store.pool.connection() as conn, conn.transaction():
        await conn.execute("SET LOCAL enable_seqscan = off")
        for player_id, index in (
            (None, "events_hand_started_time_idx"),
            (player, "events_hand_started_seats_idx"),
        ):
            cur = await conn.execute("EXPLAIN " + catalog._LIST_QUERY, {**params, "player": player_id})
            plan = "\n".join(row[0] for row in await cur.fetchall())
            assert index in plan, plan
            assert "Seq Scan on events" not in plan, plan


RAKED_HANDS_PER_VARIANT = 40


@pytest_asyncio.fixture(scope="module")
async def raked(event_store) -> dict[Variant, SimulatedTable]:
    return await play_and_store(event_store, "audit-raked", RAKED_HANDS_PER_VARIANT, seed=10, raked=True)


@pytest.mark.parametrize("variant", list(Variant))
async def test_every_raked_hand_verifies(event_store, raked, variant):
    """RULES.md §10 as recorded: the replay recomputes the rake and the chips count it."""
    table = raked[variant]
    assert await failed_hands(event_store, table, RAKED_HANDS_PER_VARIANT) == []
    assert sum(e.rake for events in table.commands for e in events if type(e).__name__ == "HandEnded") > 0


def _raked_record() -> HandRecord:
    table = simulate_table("raked", Variant.STUD, 30, seed=3, raked=True)
    return next(record for record in table.hand_records() if record.ended["rake"] > 0)


def _tampered(record: HandRecord, change) -> dict[str, str | None]:
    payloads = [copy.deepcopy(s.payload) for s in record.events]
    change(next(p for p in payloads if p["type"] == "HandEnded"))
    results = check_record(HandRecord.from_payloads(record.table_id, record.hand, payloads))
    return {c.name: (c.problem.message if c.problem else None) for c in results}


def test_moved_or_edited_rake_fails_replay_and_chips():
    """Rake moved to a winner, a pot's rake edited, shares that do not add up: each fails."""
    record = _raked_record()
    assert all(c.ok for c in check_record(record))

    def rake_to_the_winner(ended):
        pot = ended["pots"][-1]
        pot["awards"][0]["amount"] += pot["rake"]
        ended["stacks"] = [[seat, stack + (pot["rake"] if seat == pot["awards"][0]["seat"] else 0)]
                           for seat, stack in ended["stacks"]]
        ended["rake"] -= pot["rake"]
        pot["rake"] = 0

    def pot_rake_edited(ended):
        ended["pots"][-1]["rake"] += 1

    def shares_edited(ended):
        ended["rake_shares"][0][1] += 1

    for change in (rake_to_the_winner, pot_rake_edited, shares_edited):
        checks = _tampered(record, change)
        assert checks["replay"] is not None, change.__name__
    assert _tampered(record, pot_rake_edited)["chips"] is not None
    assert "rake shares" in (_tampered(record, shares_edited)["chips"] or "")
