"""The independent check of issue 30: a finished tournament's exported hands, replayed by code that is not
ours, give every player's chips hand by hand as the tournament's stream reports them (``TableHandEnded``).

Tournaments are simulated (``committed_shuffle``), written through the event log, and exported with
``stud-service audit tournament-hands`` as one PokerStars file and one PHH file (``.phhs``).  Then:

- an independent reader of the PokerStars text (``pokerstars_reader``, no code of the service) works out
  each player's chips before and after every hand: they must be the report's, hand by hand, and each
  player's chips must carry over from one hand to their next, across tables (moves, broken tables);
- PokerKit loads the PHH file and replays every hand that touches none of the rule differences
  documented in ``test_phh_pokerkit`` (tournament hands touch them often: short stacks go all-in for less
  than a bring-in or a full bet), action by action where it stands: its starting and finishing stacks
  must be the report's.  Hands that touch only a payout difference must keep the same total.
"""

from __future__ import annotations

import uuid
from collections import Counter
from typing import Any

import pytest
import pytest_asyncio
from pokerkit import HandHistory
from pokerstars_reader import read_hands
from sealing_keys import TEST_KEYRING
from test_phh_pokerkit import PAYOUT_ONLY, known_differences, strict_replay_history
from tournament_logs import SUNDAY_RAZZ, played

from stud_service.audit.pokerstars import hand_number
from stud_service.audit.simulate import store_tournament, tournament_hand_records
from stud_service.audit.tournament_log import load_tournament
from stud_service.cli import main
from stud_service.db import open_pool
from stud_service.engine import Variant
from stud_service.sealing import EventSealer
from stud_service.store import EventStore
from stud_service.tournaments import Level, TournamentConfig

# Six places paid at tables of six: the bubble (seven left) comes at two tables, hand for hand.
STUD_BUBBLE = TournamentConfig(
    name="Stud bubble", variant=Variant.STUD, max_entrants=18, min_entrants=18, seats_per_table=6,
    buy_in=500, fee=50, currency="EUR", starting_stack=800, payouts=(3000, 2000, 1500, 1500, 1000, 1000),
    levels=(Level(5, 10, 20, 40, 3), Level(10, 20, 40, 80, 3), Level(minutes=1, is_break=True),
            Level(20, 50, 100, 200, 3), Level(50, 100, 200, 400, 3), Level(100, 200, 400, 800, 10)),
)
HI_LO = TournamentConfig(
    name="Hi-Lo turbo", variant=Variant.STUD_HI_LO, max_entrants=16, seats_per_table=8, starting_stack=600,
    levels=(Level(5, 10, 20, 40, 2), Level(10, 20, 40, 80, 2), Level(25, 50, 100, 200, 5)),
)
TOURNAMENTS = {"razz": (SUNDAY_RAZZ, 8), "stud": (STUD_BUBBLE, 7), "hi-lo": (HI_LO, 2)}


@pytest_asyncio.fixture(scope="module")
async def exported(make_database) -> dict[str, Any]:
    """Each tournament written through the event log: (database URL, simulation, its TableHandEnded
    payloads as the stream holds them)."""
    url = await make_database(migrated=True)
    pool = await open_pool(url, max_size=4)
    store = EventStore(pool, sealer=EventSealer(TEST_KEYRING), announce=False)
    out: dict[str, Any] = {}
    try:
        for name, (config, seed) in TOURNAMENTS.items():
            sim = played(config, seed=seed, tournament_id=f"{name}-{uuid.uuid4().hex[:8]}")
            kinds = {type(event).__name__ for event in sim.log}
            assert {"PlayerMoved", "TableBroken", "TournamentFinished"} <= kinds
            assert config is not STUD_BUBBLE or "HandForHandStarted" in kinds
            await store_tournament(store, sim)
            reports = [s.payload for s in await load_tournament(store, sim.tournament_id)
                       if s.payload["type"] == "TableHandEnded"]
            out[name] = (url, sim, reports)
    finally:
        await store.close()
        await pool.close()
    return out


def export(capsys, url: str, tournament_id: str, fmt: str, path) -> str:
    code = main(["audit", "tournament-hands", tournament_id, "--format", fmt, "-o", str(path),
                 "--database-url", url])
    assert code == 0, capsys.readouterr().err
    return path.read_text()


@pytest.mark.parametrize("name", sorted(TOURNAMENTS))
def test_the_exported_pokerstars_hands_read_independently_give_the_reported_chips(
        capsys, exported, tmp_path, name):
    url, sim, reports = exported[name]
    hands = read_hands(export(capsys, url, sim.tournament_id, "pokerstars", tmp_path / "hands.txt"))
    assert len(hands) == len(reports) > 20
    held: dict[str, int] = {}
    for read, report in zip(hands, reports, strict=True):
        assert read.number == hand_number(report["table_id"], report["hand"]), read.header
        assert read.chips() == report["chips"], (read.header, report)
        for player, before, after in read.chips():
            if held.get(player):  # chips carry over, whatever table the player is moved to
                assert before == held[player], (player, read.header)
            else:  # an entry (or a re-entry) brings the starting stack
                assert before == sim.config.starting_stack, (player, read.header)
            held[player] = after
    entered = sum(sim.state.entries.values()) * sim.config.starting_stack
    assert sum(chips for chips in held.values()) == entered
    assert [player for player, chips in held.items() if chips] == [sim.state.winner]


@pytest.mark.parametrize("name", sorted(TOURNAMENTS))
def test_pokerkit_replays_the_exported_phh_hands_to_the_reported_chips(capsys, exported, tmp_path, name):
    url, sim, reports = exported[name]
    text = export(capsys, url, sim.tournament_id, "phh", tmp_path / "hands.phhs")
    histories = list(HandHistory.loads_all(text))
    records = tournament_hand_records(sim)
    assert len(histories) == len(reports)
    compared = Counter()
    for history, report in zip(histories, reports, strict=True):
        key = (report["table_id"], report["hand"])
        assert (history.table, history.hand) == key
        by_player = {player: (start, end) for player, start, end in report["chips"]}
        assert list(history.starting_stacks) == [by_player[player][0] for player in history.players]
        differences = known_differences(records[key])
        if differences and not differences <= PAYOUT_ONLY:
            compared["skipped"] += 1
            continue
        stacks = strict_replay_history(history)
        ends = [by_player[player][1] for player in history.players]
        if differences:
            assert sum(stacks) == sum(ends), key
            compared["totals"] += 1
        else:
            assert stacks == ends, key
            compared["stacks"] += 1
    assert compared["stacks"] >= len(reports) * 3 // 4, compared
