"""Voided hands in the audit (RULES.md §12): hands paused and voided by an operator, or voided by the table as
interrupted, at random points of random play, stored through the real event log: every one verifies (chain,
shuffle, replay, chips); a tampered void does not; the money fold balances; the histories say "Hand cancelled"
(PokerStars) and ``_voided`` (PHH) and show a player no card of anyone else's."""

from __future__ import annotations

import copy
import uuid
from dataclasses import replace

import pytest
import pytest_asyncio

from stud_service.audit.history import hand_events
from stud_service.audit.money import MoneyFold
from stud_service.audit.phh import to_phh
from stud_service.audit.pokerstars import to_pokerstars
from stud_service.audit.records import HandRecord
from stud_service.audit.simulate import SimulatedTable, simulate_table, store_table, table_config
from stud_service.audit.verify import check_record, verify_hand
from stud_service.engine import Variant

HANDS = 40
VOIDS = 0.04  # at each decision: most hands are played out, some voided at every street


def voided_records(table: SimulatedTable) -> list[HandRecord]:
    return [record for record in table.hand_records() if record.voided is not None]


@pytest.fixture(scope="module")
def tables() -> dict[str, SimulatedTable]:
    """A table of each variant voided by an operator, and one voiding its interrupted hands itself."""
    import random

    played = {}
    for index, variant in enumerate(Variant):
        played[variant.value] = simulate_table(f"void-{variant.lower().replace('_', '-')}", variant, HANDS,
                                               seed=100 + index, raked=True, voids=VOIDS)
    config = replace(table_config(Variant.STUD, random.Random(7), raked=True), action_clock_seconds=30,
                     interrupted_hand_void_seconds=120)
    played["interrupted"] = simulate_table("void-interrupted", Variant.STUD, HANDS, seed=9, config=config,
                                           voids=VOIDS)
    return played


@pytest_asyncio.fixture(scope="module")
async def stored(event_store, tables) -> dict[str, SimulatedTable]:
    renamed = {}
    for name, table in tables.items():
        copied = copy.copy(table)
        copied.table_id = f"{table.table_id}-{uuid.uuid4().hex[:8]}"
        copied.commands = [[replace(e, table_id=copied.table_id) if type(e).__name__ in (
            "TableCreated", "HandStarted") else e for e in events] for events in table.commands]
        await store_table(event_store, copied)
        renamed[name] = copied
    return renamed


def test_some_hands_of_each_table_are_voided_on_every_street(tables) -> None:
    streets = set()
    for name, table in tables.items():
        records = voided_records(table)
        assert records, f"no hand voided at {name}"
        for record in records:
            dealt = [s.payload["street"] for s in record.events if s.payload["type"] == "CardDealt"]
            streets.add(max(dealt))
        automatic = {bool(record.voided["automatic"]) for record in records}
        assert automatic == ({True} if name == "interrupted" else {False})
    assert streets >= {3, 4, 5, 6}


def test_every_hand_voided_or_not_passes_every_check(tables) -> None:
    for table in tables.values():
        for record in table.hand_records():
            failed = [check.problem for check in check_record(record) if not check.ok]
            assert not failed, (record.table_id, record.hand, failed)


@pytest.mark.parametrize("name", ["STUD", "interrupted"])
async def test_stored_voided_hands_verify_through_the_log(event_store, stored, name) -> None:
    table = stored[name]
    for record in voided_records(table):
        report = await verify_hand(event_store, table.table_id, record.hand)
        assert report.ok, report.summary()


def test_a_void_that_keeps_a_chip_fails_the_chips_and_replay_checks(tables) -> None:
    record = voided_records(tables["STUD"])[0]
    payloads = [copy.deepcopy(stored.payload) for stored in record.events]
    voided = next(p for p in payloads if p["type"] == "HandVoided")
    seat, amount = voided["returned"][0]
    voided["returned"][0] = [seat, amount - 1]  # the house keeps a chip of a void
    tampered = HandRecord.from_payloads(record.table_id, record.hand, payloads,
                                        first_version=record.first_version,
                                        commitment=(record.commitment.version, record.commitment.payload),
                                        seed_events=record.seed_events)
    problems = {check.name: str(check.problem) for check in check_record(tampered) if not check.ok}
    assert "the replay gives" in problems["replay"], problems  # the engine returns every chip
    assert f"the void returns {amount - 1} to seat {seat}, which put in {amount}" in problems["chips"]


def test_the_money_fold_balances_with_voided_hands(tables) -> None:
    """The table's own books: chips in and out of every hand, voided ones included (a simulated table has no
    accounts, so the buy-ins' missing account entries are the only complaint)."""
    for table in tables.values():
        fold = MoneyFold()
        stream_id = f"tables/{table.table_id}"
        payloads = (payload for events in table.payloads() for payload in events)
        fold.feed((stream_id, version, payload) for version, payload in enumerate(payloads, start=1))
        report = fold.finish()
        problems = [d for d in report.discrepancies
                    if d.stream_id == stream_id and "has no account entry" not in d.message]
        assert not problems, problems
        assert report.tables[stream_id].chips > 0


def test_the_histories_say_the_hand_was_voided_and_show_no_hidden_card(tables) -> None:
    record = voided_records(tables["STUD_HI_LO"])[0]
    voided = record.voided
    stars = to_pokerstars(record)
    assert f"Hand voided by ops: {voided['reason']}\nHand cancelled\n*** SUMMARY ***\n" in stars
    assert "Total pot $0.00 | Rake $0.00" in stars and "collected" not in stars and "SHOW DOWN" not in stars
    phh = to_phh(record)
    returned = ", ".join(f'"{seat}" = {amount}' for seat, amount in voided["returned"])
    assert "_voided = true" in phh and f"_void_returned = {{{returned}}}" in phh
    assert "_void_automatic = false" in phh and '_voided_by = "ops"' in phh
    starting = [stack for _seat, _player, stack in record.seats]
    assert f"finishing_stacks = {starting}".replace("'", "") in phh
    # A player's own history: their own down cards and nobody else's, though the hand is over.
    seat, player, _stack = record.seats[0]
    for _version, payload in hand_events(record, player):
        if payload["type"] == "CardDealt" and not payload["face_up"] and payload["seat"] != seat:
            assert payload["card"] is None and payload["hidden"]
    interrupted = voided_records(tables["interrupted"])[0]
    assert "Hand voided by the table: interrupted: no action or deal for " in to_pokerstars(interrupted)


def test_a_hand_during_which_the_waiting_list_moves_verifies() -> None:
    """Joining or leaving a full table's waiting list during a hand changes no seat of the hand: the replay
    skips those events (as it skips a closing table's emptied waiting list)."""
    import random

    from stud_service.audit.simulate import _Driver
    from stud_service.engine import CreateTable, JoinWaitingList, LeaveWaitingList, SitDown, TableConfig

    table = SimulatedTable("waiting-mid-hand", TableConfig(seats=2, min_buy_in=1))
    driver = _Driver(table, random.Random(3))
    driver.run(CreateTable(table.table_id, table.config, driver.now), driver.commit_next())
    driver.run(SitDown("ann", 1, 5_000, driver.tick()))
    driver.run(SitDown("ben", 2, 5_000, driver.tick()))
    driver.start_hand()
    driver.act()
    driver.run(JoinWaitingList("wes", driver.tick()))
    driver.act()
    driver.run(LeaveWaitingList("wes", driver.tick()))
    while table.state.hand is not None:
        driver.act()
    (record,) = table.hand_records()
    assert {"WaitingListJoined", "WaitingListLeft"} <= {stored.type for stored in record.events}
    assert all(check.ok for check in check_record(record)), check_record(record)


def test_a_voided_hand_moves_no_chip_between_players_in_the_integrity_evidence(tables) -> None:
    """Collusion evidence (docs/integrity.md) counts what players won from each other: nothing, in a voided
    hand, where every chip went back."""
    from stud_service.audit.integrity.fold import INTEGRITY_TYPES, IntegrityFold

    record = voided_records(tables["STUD"])[0]
    fold = IntegrityFold()
    fold.feed((f"tables/{record.table_id}", stored.version, stored.payload) for stored in record.events
              if stored.type in INTEGRITY_TYPES)
    nets = {player: tally.net for player, tally in fold.tally.players.items()}
    assert nets and set(nets.values()) == {0}, nets
    assert not fold.malformed


def test_the_narration_says_who_voided_the_hand_and_what_went_back(tables) -> None:
    from stud_service.audit.narrate import narrate
    from stud_service.currency import money_text

    record = voided_records(tables["RAZZ"])[0]
    returned = ", ".join(f"seat {seat} {money_text(amount, 'USD')}"
                         for seat, amount in record.voided["returned"])
    text = narrate(record)
    assert f"Voided by ops: the fault spoilt the hand\n  returned: {returned}\n" in text
