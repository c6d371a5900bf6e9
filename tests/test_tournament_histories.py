"""Hand histories of tournament tables (issue 30, point 7): PokerStars' tournament header and PHH's
tournament fields, from a tournament's own events; cash tables' histories are unchanged (their expected
files in tests/data, test_pokerstars_export).

To regenerate the expected file after an intended format change:
``STUD_REGENERATE=1 pytest tests/test_tournament_histories.py`` and review the diff of ``tests/data/``.
"""

from __future__ import annotations

import re
import tomllib
from datetime import UTC, datetime

import pytest
from pokerkit import HandHistory
from test_pokerstars_export import matches_file, with_start, worked_hand
from tournament_logs import SUNDAY_RAZZ, payloads, played

from stud_service.audit.phh import to_phh
from stud_service.audit.pokerstars import (
    entry_fee_text,
    hand_number,
    ordinal,
    roman,
    room_time,
    to_pokerstars,
)
from stud_service.audit.records import HandRecord
from stud_service.audit.simulate import tournament_hand_records
from stud_service.audit.tournament_log import Finish, TournamentInfo, tournament_number

TOURNAMENT_CONFIG = {"currency": "", "tournament_id": "spring-stud", "tournament_level": 3}
# The exporter writes what the tournament's events say: here that p2 finished 9th in this hand.
SPRING = TournamentInfo("spring-stud", "Spring Stud", 1_000, 100, "USD",
                        {("spring-stud-t2", 1): (Finish("p2", 9, 9, 0),)})


def as_tournament_hand(record: HandRecord) -> HandRecord:
    """The worked hand as hand 1 of table 2 of the tournament ``spring-stud``, at level III."""
    started = with_start(record, lambda s: {**s, "config": {**s["config"], **TOURNAMENT_CONFIG}})
    payloads = [stored.payload for stored in started.events]
    return HandRecord.from_payloads("spring-stud-t2", 1, payloads)


@pytest.fixture(scope="module")
def sunday():
    sim = played(seed=2)
    info = TournamentInfo.from_payloads(payloads(sim))
    return sim, info, tournament_hand_records(sim)


def test_a_tournament_hand_has_the_room_s_tournament_header():
    """``Tournament #T, $10+$1 USD <game> - Level III (small/big bet)``, the table as 'T 2', amounts in
    chips (no currency sign), the players who finished in the hand before the summary."""
    record = as_tournament_hand(worked_hand())
    text = to_pokerstars(record, tournament=SPRING)
    matches_file(text, "pokerstars_tournament_hand.txt")
    number = tournament_number("spring-stud")
    at = datetime.fromtimestamp(record.started["at_ms"] / 1000, UTC)
    assert text.splitlines()[:2] == [
        f"PokerStars Hand #{hand_number('spring-stud-t2', 1)}: Tournament #{number}, $10+$1 USD "
        f"7 Card Stud Limit - Level III (200/400) - {room_time(at)}",
        f"Table '{number} 2' 8-max",
    ]
    assert "Seat 1: p1 (10000 in chips)" in text and "$" not in text.split("\n", 1)[1]
    assert "p2 finished the tournament in 9th place\n*** SUMMARY ***" in text


def test_a_freeroll_and_a_tournament_whose_stream_is_missing():
    record = as_tournament_hand(worked_hand())
    freeroll = TournamentInfo("spring-stud", "Spring Stud", 0, 0, "")
    game = "7 Card Stud Limit - Level III (200/400)"
    assert f", Freeroll {game} - " in to_pokerstars(record, tournament=freeroll)
    unknown = to_pokerstars(record).splitlines()[0]  # the id alone: no buy-in to write
    assert f"Tournament #{tournament_number('spring-stud')}, {game}" in unknown
    other = TournamentInfo("another", "Another", 500, 50, "USD")  # not this hand's tournament: not used
    assert to_pokerstars(record, tournament=other).splitlines()[0] == unknown


@pytest.mark.parametrize(("buy_in", "fee", "currency", "written"), [
    (1_000, 100, "USD", "$10+$1 USD"), (98, 12, "USD", "$0.98+$0.12 USD"), (500, 50, "USD", "$5+$0.50 USD"),
    (2_000, 0, "EUR", "\u20ac20+\u20ac0 EUR"), (1_000, 100, "JPY", "1000+100 JPY"), (0, 0, "", "Freeroll"),
])
def test_the_buy_in_and_fee_are_written_as_the_room_writes_them(buy_in, fee, currency, written):
    assert entry_fee_text(buy_in, fee, currency) == written


def test_levels_and_places_are_written_as_the_room_writes_them():
    assert [roman(n) for n in (1, 3, 4, 9, 14, 40, 99)] == ["I", "III", "IV", "IX", "XIV", "XL", "XCIX"]
    assert [ordinal(n) for n in (1, 2, 3, 4, 11, 12, 13, 21, 102)] == [
        "1st", "2nd", "3rd", "4th", "11th", "12th", "13th", "21st", "102nd"]


def test_cash_hands_are_untouched_by_a_tournament_passed_in():
    record = worked_hand()
    assert to_pokerstars(record, tournament=SPRING) == to_pokerstars(record)
    assert to_phh(record, tournament=SPRING) == to_phh(record)


def test_every_hand_of_a_simulated_tournament_names_who_finished_in_it(sunday):
    """Each player's place is written in the hand they went out in (the winner's in the deciding hand),
    with the prize when paid; every hand's header carries its level and the table's number."""
    sim, info, records = sunday
    number = tournament_number(sim.tournament_id)
    header = re.compile(rf"PokerStars Hand #\d{{12}}: Tournament #{number}, \$10\+\$1 USD Razz Limit - "
                        r"Level (?P<level>[IVX]+) \((?P<small>\d+)/(?P<big>\d+)\) - ")
    written: dict[str, str] = {}
    for (table_id, _hand), record in records.items():
        text = to_pokerstars(record, tournament=info)
        first, table_line = text.splitlines()[:2]
        found = header.match(first)
        config = record.started["config"]
        assert found and found["level"] == roman(config["tournament_level"]), first
        assert (int(found["small"]), int(found["big"])) == (config["small_bet"], config["big_bet"])
        assert table_line == f"Table '{number} {table_id.rpartition('-t')[2]}' 6-max"
        for line in text.splitlines():
            if " the tournament " in line:
                written[line.split(" ", 1)[0]] = line
    assert len(written) == SUNDAY_RAZZ.max_entrants
    for player, (place, _last) in sim.state.places.items():
        prize = sim.state.prizes_won[player]
        if place == 1:
            assert written[player] == f"{player} wins the tournament and receives ${prize // 100}.00 - " \
                                      "congratulations!"
        elif prize:
            assert written[player] == f"{player} finished the tournament in {ordinal(place)} place and " \
                                      f"received ${prize // 100}.00."
        else:
            assert written[player] == f"{player} finished the tournament in {ordinal(place)} place"


def test_phh_carries_the_spec_s_tournament_fields_and_pokerkit_reads_them(sunday):
    _sim, info, records = sunday
    for key, record in records.items():
        text = to_phh(record, tournament=info)
        data = tomllib.loads(text)
        level = record.started["config"]["tournament_level"]
        assert data["event"] == "Sunday Razz" and data["level"] == level
        assert (data["_tournament_id"], data["_buy_in"], data["_fee"], data["_buy_in_currency"]) == (
            "sunday-razz", 1_000, 100, "USD")
        assert "currency" not in data  # tournament chips are no currency
        finishes = tuple(Finish(f["player"], f["place"], f["last_place"], f["prize"])
                         for f in data.get("_finishes", []))
        assert finishes == info.finishers(*key)
        history = HandHistory.loads(text)
        assert (history.event, history.level, history.table, history.hand) == (
            "Sunday Razz", data["level"], key[0], key[1])
    deciding = next(key for key, finishes in info.finishes.items() if any(f.place == 1 for f in finishes))
    assert tomllib.loads(to_phh(records[deciding], tournament=info))["_finishes"][-1] == {
        "player": info.winner, "place": 1, "last_place": 1, "prize": 6_000}
    cash = tomllib.loads(to_phh(worked_hand()))
    assert not {"event", "level", "_tournament_id"} & set(cash)
