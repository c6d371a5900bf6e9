"""``audit verify`` of a tournament, its summary and its hands, on the real event log (issue 30, point 1's
"audit verify verifies a tournament as it verifies a hand", and point 7).

Whole simulated tournaments are written as the service writes them: the tournament's events to
``tournaments/{id}`` one command at a time, each table's to ``tables/{id}-t{n}`` (sealed at rest), in a
database of this module's own.  Tampered logs are changed behind the store's back, as an attacker with
database access could, and re-hashed where the attacker would recompute the chain too: verification must
then fail naming the event.
"""

from __future__ import annotations

import json
import uuid
from collections.abc import Callable
from typing import Any

import pytest
import pytest_asyncio
from money_logs import edit, rehash, rows
from pokerkit import HandHistory
from psycopg.types.json import Jsonb
from sealing_keys import TEST_KEYRING
from tournament_logs import SUNDAY_RAZZ, played

from stud_service.audit.pokerstars import ordinal, to_pokerstars
from stud_service.audit.records import load_hand
from stud_service.audit.simulate import store_tournament
from stud_service.audit.tournament_export import tournament_histories
from stud_service.audit.tournament_log import (
    TournamentInfo,
    tournament_info_for,
    tournament_number,
    tournament_stream_id,
)
from stud_service.audit.tournament_summary import tournament_summary
from stud_service.audit.tournament_verify import verify_tournament
from stud_service.cli import main
from stud_service.db import open_pool
from stud_service.sealing import EventSealer
from stud_service.store import EventStore
from stud_service.tournaments.errors import NoTournament


@pytest_asyncio.fixture(scope="module")
async def own_database(make_database) -> str:
    """A database of this module's own: whole-log audits elsewhere need not know tournament streams."""
    return await make_database(migrated=True)


@pytest_asyncio.fixture(scope="module")
async def store(own_database):
    pool = await open_pool(own_database, max_size=8)
    store = EventStore(pool, sealer=EventSealer(TEST_KEYRING), announce=False)
    yield store
    await store.close()
    await pool.close()


async def stored_tournament(store: EventStore, seed: int = 8, config=SUNDAY_RAZZ, **options: Any) -> Any:
    sim = played(config, seed=seed, tournament_id=f"t{uuid.uuid4().hex[:10]}", **options)
    await store_tournament(store, sim)
    return sim


@pytest_asyncio.fixture(scope="module")
async def sunday(store):
    """A finished $10+$1 Razz sit & go of 12 (85 hands, a broken table, shared places), untouched."""
    return await stored_tournament(store)


def run(capsys, url: str, *argv: str) -> tuple[int, str, str]:
    code = main([*argv, "--database-url", url])
    captured = capsys.readouterr()
    return code, captured.out, captured.err


async def test_an_untouched_tournament_and_every_hand_of_its_tables_verify(store, sunday):
    report = await verify_tournament(store, sunday.tournament_id)
    hands = sum(type(event).__name__ == "TableHandEnded" for event in sunday.log)
    assert report.ok, report.summary()
    assert report.events == len(sunday.log) and len(report.hands) == hands == 85
    assert all(check.ok for hand in report.hands for check in hand.checks)
    assert {check.name for check in report.hands[0].checks} == {"chain", "shuffle", "replay", "chips"}


def test_the_cli_verifies_a_tournament_and_refuses_an_unknown_one(capsys, own_database, sunday):
    code, out, _ = run(capsys, own_database, "audit", "verify", "--tournament", sunday.tournament_id)
    assert code == 0 and out.strip() == f"tournaments/{sunday.tournament_id} ({len(sunday.log)} events, " \
                                        "85 hands): PASS"
    code, out, _ = run(capsys, own_database, "audit", "verify", "--tournament", sunday.tournament_id,
                       "--json")
    assert code == 0 and json.loads(out)["ok"] is True and json.loads(out)["hands"] == 85
    code, _, err = run(capsys, own_database, "audit", "verify", "--tournament", "no-such-one")
    assert code == 2 and "there is no tournament 'no-such-one'" in err


async def test_an_unknown_tournament_is_refused(store):
    with pytest.raises(NoTournament):
        await verify_tournament(store, "no-such-one")


# -- tampering ---------------------------------------------------------------------------------------------

def _nth(items: list[tuple[int, dict]], kind: str, where: Callable[[dict], bool] = lambda p: True,
         nth: int = 0) -> tuple[int, dict]:
    return [(v, p) for v, p in items if p["type"] == kind and where(p)][nth]


def _seat_elsewhere(payload: dict) -> dict:
    return {**payload, "seat": payload["seat"] % SUNDAY_RAZZ.seats_per_table + 1}


def _other_seed(payload: dict) -> dict:
    return {**payload, "seed": "ab" * 32}


def _chips_moved(payload: dict) -> dict:
    (a, a_start, a_end), (b, b_start, b_end), *rest = payload["chips"]
    return {**payload, "chips": [[a, a_start, a_end + 5], [b, b_start, b_end - 5], *rest]}


def _bigger_prize(payload: dict) -> dict:
    (player, place, last, prize), *rest = payload["places"]
    return {**payload, "places": [[player, place, last, prize + 1], *rest]}


TAMPERING = {
    # (event to change, which one, how) -> (the check that must name it, words of its message)
    "a seat the seating draw did not give": (
        ("PlayerSeated", lambda p: True, 3, _seat_elsewhere), "replay", "with draw 1's revealed seed"),
    "a revealed seed that opens no commitment": (
        ("DrawRevealed", lambda p: p["draw"] == 2, 0, _other_seed), "draws", "does not open its commitment"),
    "a hand report that is not the table's": (
        ("TableHandEnded", lambda p: len(p["chips"]) > 2, 4, _chips_moved), "hands",
        "the table's hand gives"),
    "a prize the pool does not pay": (
        ("PlacesFixed", lambda p: p["places"][0][3] > 0, 0, _bigger_prize), "replay",
        "PlacesFixed: places expected"),
}


@pytest.mark.parametrize("case", sorted(TAMPERING))
async def test_a_tampered_tournament_event_fails_verification_naming_it(store, case):
    (kind, where, nth, change), check, words = TAMPERING[case]
    sim = await stored_tournament(store, seed=1)
    stream = tournament_stream_id(sim.tournament_id)
    version, payload = _nth(await rows(store, stream), kind, where, nth)
    async with store.pool.connection() as conn:  # the payload alone: the chain no longer holds
        await conn.execute("UPDATE events SET payload = %s WHERE stream_id = %s AND version = %s",
                           (Jsonb(change(payload)), stream, version))
    report = await verify_tournament(store, sim.tournament_id, hands=False)
    assert not report.ok and report.problems[0].check == "chain" and report.problems[0].version == version
    await edit(store, stream, version, change(payload))  # re-hashed, as a careful attacker would
    report = await verify_tournament(store, sim.tournament_id, hands=False)
    assert not report.ok and not any(problem.check == "chain" for problem in report.problems)
    named = [problem for problem in report.problems if problem.check == check]
    assert named and named[0].version == version and words in named[0].message, report.problems
    assert report.first_problem() == str(min(report.problems, key=lambda p: p.version or 0))


async def test_a_table_hand_changed_after_the_tournament_folded_it_fails_both_ways(store):
    """A stack at the table's HandEnded changed and re-hashed: the hand no longer replays, and the
    tournament's report of it is no longer the table's."""
    sim = await stored_tournament(store, seed=1)
    table_id, hand = next((e.table_id, e.hand) for e in sim.log if type(e).__name__ == "TableHandEnded")
    stream = f"tables/{table_id}"
    version, payload = _nth(await rows(store, stream), "HandEnded", lambda p: p["hand"] == hand)
    (seat, stack), (other, other_stack), *rest = payload["stacks"]
    await edit(store, stream, version, {**payload, "stacks": [[seat, stack + 1], [other, other_stack - 1],
                                                               *rest]})
    report = await verify_tournament(store, sim.tournament_id)
    assert not report.ok
    stream = tournament_stream_id(sim.tournament_id)
    assert [(p.check, p.stream) for p in report.problems] == [("hands", stream)]
    (failed,) = report.failed_hands
    assert (failed.table_id, failed.hand) == (table_id, hand) and failed.first_problem.version == version


async def test_draw_secrets_need_not_be_readable(store):
    """The check reads the revealed seeds, not the committed secrets: with every DrawCommitted's secret
    sealed (null, a ``sealed`` member), read by a store without the keys, it still passes."""
    sim = await stored_tournament(store, seed=1)
    stream = tournament_stream_id(sim.tournament_id)
    for version, payload in await rows(store, stream):
        if payload["type"] == "DrawCommitted":
            sealed = {**payload, "secret": None, "sealed": {"kid": "k", "key": "x", "box": "y", "v": 2}}
            async with store.pool.connection() as conn:
                await conn.execute("UPDATE events SET payload = %s WHERE stream_id = %s AND version = %s",
                                   (Jsonb(sealed), stream, version))
    await rehash(store, stream)
    without_keys = EventStore(store.pool, announce=False)
    report = await verify_tournament(without_keys, sim.tournament_id, hands=False)
    assert report.ok, report.summary()


# -- the summary and the hands of a tournament --------------------------------------------------------

def test_the_summary_lists_every_place_and_prize_as_rooms_give_it(capsys, own_database, sunday):
    number = tournament_number(sunday.tournament_id)
    code, out, _ = run(capsys, own_database, "audit", "tournament-summary", sunday.tournament_id)
    lines = out.splitlines()
    assert code == 0 and lines[:4] == [
        f"PokerStars Tournament #{number}, Limit Razz", "Buy-In: $10.00/$1.00 USD", "12 players",
        "Total Prize Pool: $120.00 USD"]
    assert lines[4].startswith("Tournament started 2026/01/01 0:00:00 UTC [2025/12/31 19:00:00 ET]")
    assert lines[5].startswith("Tournament finished ")
    places = sunday.state.places
    listed = [line for line in lines if line.startswith("  ")]
    assert len(listed) == 12
    winner = min(places, key=lambda player: places[player][0])
    assert listed[0] == f"  1: {winner}, $60.00 (50%)"
    for line in listed:
        place, rest = line.strip().split(": ", 1)
        player = rest.split(",")[0]
        assert int(place) == places[player][0]
    loser = max(places, key=lambda player: (places[player][1], player))
    code, out, _ = run(capsys, own_database, "audit", "tournament-summary", sunday.tournament_id,
                       "--as", loser)
    assert out.splitlines()[-1].startswith(f"You finished in {ordinal(places[loser][0])} place")
    assert "(eliminated at hand #" in out.splitlines()[-1]
    code, out, _ = run(capsys, own_database, "audit", "tournament-summary", sunday.tournament_id, "--json")
    data = json.loads(out)
    assert (data["pool"], data["players"], data["status"]) == (12_000, 12, "FINISHED")
    assert sum(place["prize"] for place in data["places"]) == 12_000
    assert {place["player"]: (place["place"], place["last_place"]) for place in data["places"]} == places


def test_every_hand_of_a_tournament_in_one_file(capsys, own_database, sunday, tmp_path):
    path = tmp_path / "sunday.txt"
    code, _, _ = run(capsys, own_database, "audit", "tournament-hands", sunday.tournament_id, "-o", str(path))
    text = path.read_text()
    assert code == 0 and text.count("PokerStars Hand #") == 85 and "\n\n\nPokerStars Hand #" in text
    code, out, _ = run(capsys, own_database, "audit", "tournament-hands", sunday.tournament_id,
                       "--format", "phh")
    histories = list(HandHistory.loads_all(out))
    assert code == 0 and len(histories) == 85 and {h.event for h in histories} == {"Sunday Razz"}


async def test_a_player_s_file_holds_their_hands_as_they_saw_them(store, sunday):
    player = sunday.state.winner
    mine = await tournament_histories(store, sunday.tournament_id, "pokerstars", player)
    dealt = [line for line in mine.splitlines() if line.startswith("Dealt to ") and "[" in line]
    assert 0 < mine.count("PokerStars Hand #") < 85
    # Their own down cards, only the others' up cards: another player's third street shows one card.
    assert any(line.startswith(f"Dealt to {player} [") and line.count(" ") == 5 for line in dealt)
    assert all(line.count(" ") in (3, 4) for line in dealt if not line.startswith(f"Dealt to {player} ")
               and line.endswith("]") and "] [" not in line)


async def test_a_summary_of_a_running_and_of_a_cancelled_tournament(store):
    sim = await stored_tournament(store, seed=1, cancel_at=60)
    events = [payload for _v, payload in await rows(store, tournament_stream_id(sim.tournament_id))]
    cancelled = tournament_summary(events)
    assert cancelled.status == "CANCELLED" and cancelled.cancellation
    paid = sum(amount for _player, amount in cancelled.cancellation)
    assert paid + sum(f.prize for f in cancelled.places) == cancelled.pool
    assert "Tournament cancelled " in cancelled.to_text()
    running = tournament_summary(events[:-2])
    assert running.status == "RUNNING" and running.still_playing
    text = running.to_text(running.still_playing[0][0])
    assert "still playing" in text and text.endswith("You are still playing.\n")
    record = await load_hand(store, f"{sim.tournament_id}-t1", 1)
    assert record.complete


def test_a_tournament_hand_exported_alone_carries_its_tournament_s_header(capsys, own_database, sunday):
    """``hands export`` (as ``AuditService.ExportHandHistory``) reads the tournament's info for the hand."""
    winner_out = max((e for e in sunday.log if type(e).__name__ == "PlayersEliminated"), key=sunday.log.index)
    code, out, _ = run(capsys, own_database, "hands", "export", winner_out.table_id, str(winner_out.hand),
                       "--format", "pokerstars")
    number = tournament_number(sunday.tournament_id)
    assert code == 0 and f": Tournament #{number}, $10+$1 USD Razz Limit - Level " in out.splitlines()[0]
    assert f"{sunday.state.winner} wins the tournament and receives $60.00 - congratulations!" in out
    code, out, _ = run(capsys, own_database, "hands", "export", winner_out.table_id, str(winner_out.hand))
    assert code == 0 and 'event = "Sunday Razz"' in out and "_buy_in = 1000" in out


async def test_the_info_of_a_hand_s_tournament(store):
    sim = await stored_tournament(store, seed=1)
    record = await load_hand(store, f"{sim.tournament_id}-t1", 1)
    info = await tournament_info_for(store, record)
    assert info is not None
    assert (info.name, info.buy_in, info.fee, info.currency) == ("Sunday Razz", 1000, 100, "USD")
    assert info.winner == sim.state.winner and sum(len(f) for f in info.finishes.values()) == 12
    async with store.pool.connection() as conn:  # a table whose tournament's stream is gone
        stream = tournament_stream_id(sim.tournament_id)
        await conn.execute("DELETE FROM events WHERE stream_id = %s", (stream,))
    alone = await tournament_info_for(store, record)
    assert alone == TournamentInfo(sim.tournament_id) and alone.buy_in is None
    assert "Tournament #" in to_pokerstars(record, tournament=alone).splitlines()[0]
