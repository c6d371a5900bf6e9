"""The audit's check of a tournament without a database (``audit.tournament_check``) and of its tables'
hands (``audit.verify.check_record``): whole simulated tournaments pass, every kind of tampering is named
with its event and what the rules expected there.
"""

from __future__ import annotations

import copy
from collections.abc import Callable
from typing import Any

import pytest
from tournament_logs import SUNDAY_RAZZ, payloads, played

from stud_service.audit.records import HandRecord
from stud_service.audit.simulate import tournament_hand_records
from stud_service.audit.tournament_check import check_tournament, first_problem
from stud_service.audit.verify import check_record
from stud_service.engine import event_to_json
from stud_service.tournaments import Level, TournamentConfig, TournamentKind
from stud_service.tournaments.simulate import T0_MS

LATE = TournamentConfig(
    kind=TournamentKind.SCHEDULED, start_ms=T0_MS + 60_000, starting_stack=400, max_entrants=30,
    seats_per_table=6, late_registration_levels=2, re_entries=2, re_entry_until_level=2, buy_in=500, fee=50,
    currency="EUR",
    levels=(Level(5, 10, 20, 40, 20), Level(10, 20, 40, 80, 20), Level(minutes=1, is_break=True),
            Level(25, 50, 100, 200, 2), Level(50, 100, 200, 400, 2)),
)
Items = list[tuple[int, dict[str, Any]]]


def logged(sim: Any) -> tuple[Items, dict[tuple[str, int], HandRecord]]:
    """The tournament's events and its tables' hands, a hand still running (a cancelled tournament's) too."""
    hands = tournament_hand_records(sim)
    for table_id, hand in sim.state.in_hand.items():
        log = [event_to_json(event) for event in sim.table_logs[table_id]]
        start = max(i for i, payload in enumerate(log) if payload["type"] == "HandStarted")
        hands[(table_id, hand)] = HandRecord.from_payloads(table_id, hand, log[start:],
                                                           first_version=start + 1)
    return [(index + 1, payload) for index, payload in enumerate(payloads(sim))], hands


@pytest.fixture(scope="module")
def sunday() -> tuple[Items, dict[tuple[str, int], HandRecord]]:
    return logged(played(seed=1))


@pytest.mark.parametrize(("config", "seed", "options"), [
    (SUNDAY_RAZZ, 2, {}), (SUNDAY_RAZZ, 3, {"cancel_at": 150}), (LATE, 0, {"players": 18, "late": 10}),
    (LATE, 1, {"players": 6, "late": 4, "absent": 0.2}),
])
def test_simulated_tournaments_and_every_hand_of_their_tables_pass(config, seed, options):
    """Sit & gos and scheduled tournaments with late entries, re-entries, absent players and a
    cancellation: the stream is what the rules decide, every hand replays."""
    sim = played(config, seed=seed, tournament_id="checked", **options)
    items, hands = logged(sim)
    assert check_tournament("checked", items, hands) == []
    assert all(check.ok for record in hands.values() if record.complete for check in check_record(record))


def test_a_player_sitting_out_at_a_tournament_table_is_dealt_in_and_acts_at_once():
    """RULES.md §11: the replay knows who sat out when the hand began (the table's events before it), as
    the engine did; without it the hand would not replay (the player's instant timeout comes early)."""
    hands = tournament_hand_records(played(seed=2, absent=0.2))
    sitting_out = [record for record in hands.values() if record.sitting_out]
    assert len(sitting_out) > 10
    assert all(check.ok for record in sitting_out for check in check_record(record))
    unaware = [HandRecord(r.table_id, r.hand, r.events, r.commitment, r.seed_events) for r in sitting_out]
    failed = [check.problem for record in unaware for check in check_record(record) if not check.ok]
    assert failed and all("TIMEOUT_NOT_DUE" in str(problem) for problem in failed)


def _changed(items: Items, kind: str, nth: int, change: Callable[[dict[str, Any]], dict[str, Any]]) -> tuple[
        Items, int]:
    tampered = copy.deepcopy(items)
    index = [i for i, (_v, payload) in enumerate(tampered) if payload["type"] == kind][nth]
    tampered[index] = (tampered[index][0], change(tampered[index][1]))
    return tampered, tampered[index][0]


def _moved_chip(chips: list[list[Any]]) -> list[list[Any]]:
    """A chip from the first player's end to the second's: still conserved."""
    (a, a_start, a_end), (b, b_start, b_end), *rest = chips
    return [[a, a_start, a_end - 1], [b, b_start, b_end + 1], *rest]


TAMPERING: dict[str, tuple[str, int, Callable[[dict[str, Any]], dict[str, Any]], str, str]] = {
    "a seat the seating draw did not give": (
        "PlayerSeated", 3, lambda p: {**p, "seat": p["seat"] % 6 + 1}, "replay",
        "with draw 1's revealed seed implies: PlayerSeated: seat expected"),
    "a starting stack": ("PlayerSeated", 0, lambda p: {**p, "chips": p["chips"] + 1}, "replay",
                         "chips expected 1000, found 1001"),
    "a move balancing did not draw": ("PlayerMoved", 0, lambda p: {**p, "seat": p["seat"] % 6 + 1}, "replay",
                                      "PlayerMoved: seat expected"),
    "a revealed seed": ("DrawRevealed", 1, lambda p: {**p, "seed": "ab" * 32}, "draws",
                        "does not open its commitment"),
    "a committed secret": ("DrawCommitted", 2, lambda p: {**p, "secret": {"seed": "cd" * 32}}, "draws",
                           "secret does not open its commitment"),
    "a hand dealt at another level": ("TableHandDealt", 5, lambda p: {**p, "index": p["index"] + 1}, "replay",
                                      "TableHandDealt: index expected"),
    "a hand report": ("TableHandEnded", 2, lambda p: {**p, "chips": _moved_chip(p["chips"])}, "hands",
                      "the table's hand gives"),
    "an elimination": ("PlayersEliminated", 0,
                       lambda p: {**p, "players": [[q, c + 1] for q, c in p["players"]]}, "replay",
                       "PlayersEliminated: players expected"),
    "the pool": ("PrizesFixed", 0, lambda p: {**p, "pool": p["pool"] + 100}, "replay", "pool expected 12000"),
    "the winner": ("TournamentFinished", 0, lambda p: {**p, "winner": "p1" if p["winner"] != "p1" else "p2"},
                   "replay", "winner expected"),
}


@pytest.mark.parametrize("case", sorted(TAMPERING))
def test_a_changed_event_is_named_with_what_the_rules_expected(sunday, case):
    items, hands = sunday
    kind, nth, change, check, words = TAMPERING[case]
    tampered, version = _changed(items, kind, nth, change)
    problems = check_tournament("sunday-razz", tampered, hands)
    first = first_problem(problems)
    assert first is not None and (first.check, first.version) == (check, version), problems
    assert words in first.message, first.message


def test_a_deleted_an_added_and_a_moved_event_are_named(sunday):
    items, hands = sunday
    moved = next(i for i, (_v, p) in enumerate(items) if p["type"] == "PlayerMoved")
    deleted = items[:moved] + items[moved + 1:]
    (problem,) = check_tournament("sunday-razz", deleted, hands)
    assert problem.version == items[moved + 1][0] and "PlayerMoved: player_id expected" in problem.message
    added = items[:moved] + [(items[moved][0], dict(items[moved][1], player_id="p99"))] + items[moved:]
    assert "player_id expected" in check_tournament("sunday-razz", added, hands)[0].message
    dealt = next(i for i, (_v, p) in enumerate(items) if p["type"] == "TableHandDealt" and i > moved)
    swapped = items[:dealt] + [items[dealt + 1], items[dealt]] + items[dealt + 2:]
    problem = check_tournament("sunday-razz", swapped, hands)[0]
    assert problem.check == "replay" and problem.version == items[dealt + 1][0]


def test_a_table_hand_dealt_to_other_players_or_stakes_or_missing_is_named(sunday):
    items, hands = sunday
    key = next(iter(hands))
    record = hands[key]
    started = record.started
    changed = {**started, "config": {**started["config"], "ante": started["config"]["ante"] + 1},
               "seats": [[seat, player, stack + 1] for seat, player, stack in started["seats"]]}
    payloads_ = [changed if s.payload is started else s.payload for s in record.events]
    other = HandRecord.from_payloads(record.table_id, record.hand, payloads_,
                                     first_version=record.first_version)
    problems = check_tournament("sunday-razz", items, {**hands, key: other})
    assert [(p.check, p.stream, p.version) for p in problems[:2]] == [
        ("hands", f"tables/{key[0]}", record.first_version)] * 2
    assert "ante 6, the tournament's 5" in problems[0].message
    assert "the tournament seated" in problems[1].message
    missing = check_tournament("sunday-razz", items, {k: v for k, v in hands.items() if k != key})
    assert missing[0].check == "hands"
    assert f"hand {key[1]} of tables/{key[0]} is not in it" in missing[0].message
