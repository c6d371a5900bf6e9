"""PokerStars-style hand histories (the audit issue): known hands match expected files exactly.

- the RULES.md §9 worked hand (Seven Card Stud), as the auditor sees it and as seat 1 saw it;
- a Stud Hi-Lo and a Razz hand played by the seeded random players (side pots, all-ins, split pots).

To regenerate after an intended format change: ``STUD_REGENERATE=1 pytest tests/test_pokerstars_export.py``
and review the diff of ``tests/data/``.
"""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from engine_helpers import Table, deal_sequence, stacked_deck
from test_rules_side_pots import play_the_worked_case
from test_rules_worked_hand import HANDS, START

from stud_service.audit.errors import HandStillRunning, NotYourHand
from stud_service.audit.pokerstars import hand_number, to_pokerstars
from stud_service.audit.records import HandRecord
from stud_service.audit.simulate import simulate_table
from stud_service.engine import TableConfig, Variant, event_to_json

DATA = Path(__file__).parent / "data"
WORKED_ACTIONS = [
    (2, "BRING_IN", 100),
    (3, "FOLD", None),
    (4, "FOLD", None),
    (5, "FOLD", None),
    (6, "FOLD", None),
    (7, "FOLD", None),
    (8, "COMPLETE", 200),
    (1, "CALL", None),
    (2, "FOLD", None),
    (1, "CHECK", None),
    (8, "BET", 200),
    (1, "CALL", None),
    (1, "CHECK", None),
    (8, "BET", 400),
    (1, "CALL", None),
    (8, "BET", 400),
    (1, "RAISE", 800),
    (8, "CALL", None),
    (8, "CHECK", None),
    (1, "BET", 400),
    (8, "RAISE", 800),
    (1, "CALL", None),
]


def worked_hand(actions=WORKED_ACTIONS, config: TableConfig | None = None) -> HandRecord:
    table = Table(
        config or TableConfig(ante=50, bring_in=100, small_bet=200, big_bet=400),
        stacks={seat: START for seat in range(1, 9)},
    )
    table.start(stacked_deck(deal_sequence(range(1, 9), HANDS)), extra={"server_seed": "00" * 32})
    for seat, action, amount in actions:
        table.act(seat, action, amount)
    payloads = [event_to_json(e) for e in table.log if getattr(e, "hand", None) == 1]
    return HandRecord.from_payloads("worked-hand", 1, payloads)


def simulated_hand(variant: Variant, seed: int, hand: int) -> HandRecord:
    table = simulate_table(f"sim-{variant.lower()}", variant, hand, seed=seed)
    payloads = [
        event_to_json(e) for events in table.commands for e in events if getattr(e, "hand", None) == hand
    ]
    return HandRecord.from_payloads(table.table_id, hand, payloads)


def with_start(record: HandRecord, change: Callable[[dict[str, Any]], dict[str, Any]]) -> HandRecord:
    """``record`` with its HandStarted payload changed by ``change``."""
    payloads = [change(s.payload) if s.payload["type"] == "HandStarted" else s.payload for s in record.events]
    return HandRecord.from_payloads(record.table_id, record.hand, payloads)


def matches_file(text: str, name: str) -> None:
    path = DATA / name
    if os.environ.get("STUD_REGENERATE"):
        path.write_text(text)
    assert text == path.read_text()


def test_worked_hand_as_the_auditor_sees_it():
    """RULES.md §9: every card on the page, seat 8 collects 5,300."""
    matches_file(to_pokerstars(worked_hand()), "pokerstars_worked_hand.txt")


def test_worked_hand_as_seat_1_saw_it():
    """RULES.md §5: seat 1 sees its own down cards, the others' up cards and seat 8's shown hand."""
    text = to_pokerstars(worked_hand(), "p1")
    matches_file(text, "pokerstars_worked_hand_p1.txt")
    assert "Dealt to p8 [Ks]" in text and "Qs" not in text.split("*** SHOW DOWN ***")[0]


def test_stud_hi_lo_hand_with_a_split_pot():
    """RULES.md §6 Hi-Lo: both halves collected, HI and LO hands named."""
    text = to_pokerstars(simulated_hand(Variant.STUD_HI_LO, seed=107, hand=6))
    matches_file(text, "pokerstars_stud_hi_lo.txt")
    assert "7 Card Stud Hi/Lo Limit" in text


def test_razz_hand():
    """RULES.md §6 Razz: the best low wins the whole pot."""
    text = to_pokerstars(simulated_hand(Variant.RAZZ, seed=105, hand=9))
    matches_file(text, "pokerstars_razz.txt")
    assert "Razz Limit" in text


def test_an_all_in_player_collects_only_the_main_pot_they_matched():
    """RULES.md §5 (issue 28's $1/$2 hand): p1, all-in for $0.60, collects the $1.80 main pot; the $7.00
    side pot that only p2 and p3 put in is p3's, and the page says so."""
    table = play_the_worked_case()
    payloads = [event_to_json(e) for e in table.log if getattr(e, "hand", None) == 1]
    text = to_pokerstars(HandRecord.from_payloads("t1", 1, payloads))
    assert "p3 collected $7.00 from side pot-1\np1 collected $1.80 from main pot\n" in text
    assert "Total pot $8.80 Main pot $1.80. Side pot-1 $7.00. | Rake $0.00" in text
    assert "Seat 1: p1 showed [Ac Ad 2c Ah As 3d 4d] and won ($1.80)" in text
    assert "Seat 3: p3 showed [7c 8d Qd 9h 5s Tc 2d] and won ($7.00)" in text


def test_hand_numbers_are_stable_and_distinct():
    assert hand_number("t", 1) == hand_number("t", 1) != hand_number("t", 2)
    assert len(str(hand_number("t", 1))) == 12


def test_running_hand_and_strangers_are_refused():
    running = worked_hand(WORKED_ACTIONS[:3])
    with pytest.raises(HandStillRunning):
        to_pokerstars(running)
    with pytest.raises(NotYourHand):
        to_pokerstars(worked_hand(), "somebody-else")


RAKED = TableConfig(rake_basis_points=500, rake_cap_2=40, rake_cap_3_4=80, rake_cap_5_plus=300)


def test_a_raked_hand_states_its_rake_in_the_table_currency():
    """RULES.md §10: "Total pot $X | Rake $Y"; the collection is after the rake.  The worked hand's pot
    of $53.00 (8 players dealt in) pays 5%, $2.65, under the cap of $3.00."""
    record = worked_hand(config=RAKED)
    assert record.ended["rake"] == 265
    text = to_pokerstars(record)
    assert "Total pot $53.00 | Rake $2.65" in text
    assert "p8 collected $50.35 from pot" in text
    assert "7 Card Stud Limit ($2.00/$4.00 USD)" in text


def test_other_currencies_are_written_in_their_minor_units():
    """JPY has no minor units, KWD three; both named after the stakes."""
    yen = to_pokerstars(worked_hand(config=TableConfig(currency="JPY")))
    assert "7 Card Stud Limit (200/400 JPY)" in yen and "Total pot 5300 | Rake 0" in yen
    dinar = to_pokerstars(worked_hand(config=TableConfig(currency="KWD")))
    assert "(0.200/0.400 KWD)" in dinar and "Total pot 5.300 | Rake 0.000" in dinar


def test_a_play_chip_table_keeps_plain_integers():
    """A table created before tables had a currency ("" in its config): amounts stay chip counts."""
    record = with_start(worked_hand(), lambda started: {
        **started, "config": {k: v for k, v in started["config"].items() if k != "currency"}
    })
    text = to_pokerstars(record)
    assert "7 Card Stud Limit (200/400) -" in text and "Total pot 5300 | Rake 0" in text


@pytest.mark.parametrize(
    ("at_ms", "written"),
    [
        (1_796_552_613_000, "2026/12/06 10:23:33 UTC [2026/12/06 5:23:33 ET]"),  # EST: UTC-5
        (1_782_907_200_000, "2026/07/01 12:00:00 UTC [2026/07/01 8:00:00 ET]"),  # EDT: UTC-4
        (1_767_236_400_000, "2026/01/01 3:00:00 UTC [2025/12/31 22:00:00 ET]"),  # the day before in ET
        (1_772_953_199_000, "2026/03/08 6:59:59 UTC [2026/03/08 1:59:59 ET]"),  # the last second of EST
        (1_772_953_200_000, "2026/03/08 7:00:00 UTC [2026/03/08 3:00:00 ET]"),  # EDT from 2:00 EST
    ],
)
def test_the_header_gives_the_time_in_utc_and_in_eastern_time(at_ms, written):
    """As the room writes it for a player outside ET: the player's zone first, ET in brackets."""
    header = to_pokerstars(with_start(worked_hand(), lambda started: {**started, "at_ms": at_ms}))
    header = header.splitlines()[0]
    assert header.endswith(f"7 Card Stud Limit ($2.00/$4.00 USD) - {written}")


def test_eastern_time_needs_no_time_zone_database_on_the_machine():
    """A machine without the system's time zone files (an empty PYTHONTZPATH) still writes ET."""
    script = (
        "from datetime import UTC, datetime; from stud_service.audit.pokerstars import room_time; "
        "print(room_time(datetime(2026, 12, 6, 10, 23, 33, tzinfo=UTC)))"
    )
    done = subprocess.run(
        [sys.executable, "-c", script], env={**os.environ, "PYTHONTZPATH": ""},
        capture_output=True, text=True, timeout=60,
    )
    assert done.stdout.strip() == "2026/12/06 10:23:33 UTC [2026/12/06 5:23:33 ET]", done.stderr
