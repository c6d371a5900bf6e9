"""The integrity report finds the colluders among honest players: seeded runs of the tables of
``integrity_tables`` (a soft-play pair and a chip-dumping pair among honest bots, every variant), and what
each statistic counts on hand-made hands."""

from __future__ import annotations

import pytest
from integrity_tables import COLLUDING, collusion_tables, log_rows

from stud_service.audit.integrity import fold_rows, report_json, report_text, score_pairs
from stud_service.audit.integrity.score import Overlap
from stud_service.audit.integrity.sessions import RecordedSessions

RUNS = 40
HANDS = 200


@pytest.mark.long
@pytest.mark.timeout(900)  # forty seeded rooms simulated, all CPU: minutes on a loaded 2-core machine
def test_colluders_rank_at_the_top_in_at_least_95_percent_of_seeded_runs():
    top_two = honest_flagged = honest_pairs = 0
    for seed in range(RUNS):
        report = score_pairs(fold_rows(log_rows(collusion_tables(seed, HANDS))))
        ranked = [(pair.a, pair.b) for pair in report.pairs]
        top_two += set(ranked[:2]) == COLLUDING
        others = [pair for pair in report.pairs if (pair.a, pair.b) not in COLLUDING]
        honest_pairs += len(others)
        honest_flagged += sum(pair.flagged for pair in others)
    assert top_two >= 0.95 * RUNS, f"the colluders were the top two pairs in {top_two} of {RUNS} runs"
    # docs/integrity.md states the measured rate (benchmarks/bench_integrity.py --detection); this bounds it.
    assert honest_flagged <= 0.03 * honest_pairs, f"{honest_flagged} of {honest_pairs} other pairs flagged"


def test_the_report_names_the_colluders_reasons():
    report = score_pairs(fold_rows(log_rows(collusion_tables(7, HANDS))))
    first, second = report.pairs[:2]
    assert first.flagged and second.flagged and not report.sessions_recorded
    by_pair = {(first.a, first.b): first, (second.a, second.b): second}
    dumping = by_pair[("dumper", "receiver")]
    assert dumping.giver == "dumper" and dumping.flow > dumping.flow_expected > -dumping.flow
    assert any(reason.startswith("chips flow from dumper to receiver") for reason in dumping.reasons)
    soft = by_pair[("soft-1", "soft-2")]
    assert any("raise wars" in reason or "folded to" in reason for reason in soft.reasons)
    document = report_json(report, top=5)
    assert document["pairs_total"] == len(report.pairs) and len(document["pairs"]) == 5
    assert document["sessions_recorded"] is False and document["pairs"][0]["sessions"] is None
    assert {tuple(p["players"]) for p in document["pairs"][:2]} == COLLUDING
    text = report_text(report, top=3)
    assert "dumper & receiver" in text and "soft-1 & soft-2" in text and "none recorded yet" in text


class _Sessions:
    """Session overlaps as the player sessions will give them (the hook's contract, not data)."""

    def overlaps(self, pairs):
        return {pair: Overlap(2, 0) for pair in pairs if pair == ("honest-1", "honest-2")}


def test_session_overlaps_add_to_the_score_and_the_reasons():
    tally = fold_rows(log_rows(collusion_tables(3, 60)))
    without = {(p.a, p.b): p for p in score_pairs(tally).pairs}
    report = score_pairs(tally, _Sessions())
    pair = next(p for p in report.pairs if (p.a, p.b) == ("honest-1", "honest-2"))
    assert report.sessions_recorded and pair.overlap == Overlap(2, 0)
    assert pair.score > without[("honest-1", "honest-2")].score
    assert "sessions on the same network: 2" in pair.reasons
    other = next(p for p in report.pairs if (p.a, p.b) != ("honest-1", "honest-2"))
    assert other.overlap == Overlap(0, 0)


def test_recorded_sessions_count_shared_networks_at_once_and_shared_devices_at_any_time():
    """Sessions as the log holds them (player, address, device, start, end): a network counts for sessions
    open at a common moment (a /24 or the same address; a mapped address as its IPv4 one), a device
    whenever it was used."""
    rows = [
        ("ann", "10.0.0.7", "pc", 0, 100),
        ("bea", "10.0.0.9", "", 50, 150),  # ann's /24, while ann's first session was open
        ("bea", "::ffff:10.0.0.8", "", 120, None),  # still open (until now), after ann's first ended
        ("ann", "10.0.0.7", "", 1_000, 1_100),  # overlaps bea's open session
        ("cid", "10.0.1.7", "pc", 5_000, 5_100),  # another /24, never at once with ann; ann's device
        ("dan", "2001:db8:1:2::5", "", 0, None),
        ("eve", "2001:db8:1:2::99", "", 10, 20),  # dan's /64
        ("fay", "2001:db8:1:3::5", "", 10, 20),  # another /64
    ]
    overlaps = RecordedSessions(rows, now_ms=10_000).overlaps(
        [("ann", "bea"), ("ann", "cid"), ("dan", "eve"), ("dan", "fay"), ("bea", "zed")])
    assert overlaps == {("ann", "bea"): Overlap(2, 0), ("ann", "cid"): Overlap(0, 1),
                        ("dan", "eve"): Overlap(1, 0)}


def _hand(hand, seats, *events, shown=(), pots=()):
    """A hand's payloads: HandStarted, ``events``, HandEnded with ``pots`` ((amount, {seat: won}), ...)."""
    started = {"type": "HandStarted", "hand": hand, "config": {"variant": "STUD"}, "at_ms": 1000,
               "seats": [[seat, player, 1000] for seat, player in seats.items()]}
    ended = {"type": "HandEnded", "hand": hand, "shown": list(shown), "at_ms": 9000,
             "pots": [{"amount": amount, "awards": [{"seat": s, "amount": won} for s, won in awards.items()]}
                      for amount, awards in pots]}
    return [started, *events, ended]


def _act(seat, action, chips, at_ms):
    return {"type": "PlayerActed", "hand": 1, "seat": seat, "action": action, "chips": chips, "at_ms": at_ms}


def _up(seat, card):
    return {"type": "CardDealt", "hand": 1, "seat": seat, "card": card, "face_up": True, "street": 3}


def test_each_statistic_counts_what_it_says():
    # Three players: B (seat 2, an ace up) bets, C calls, A (seat 1, a king up, worse than B's ace) raises
    # over B with C caught in between; B folds to A's raise though B's board (the ace) beats A's king: a fold
    # with the better up cards. C calls and wins at showdown: A's and B's chips go to C.
    seats = {1: "a", 2: "b", 3: "c"}
    events = [
        _up(1, 44), _up(2, 48), _up(3, 0), {"type": "AntePosted", "hand": 1, "seat": 1, "amount": 10},
        {"type": "BettingRoundStarted", "hand": 1, "street": 3, "first_seat": 2, "at_ms": 1000},
        _act(2, "COMPLETE", 50, 1500), _act(3, "CALL", 50, 2500), _act(1, "RAISE", 100, 2600),
        _act(2, "FOLD", 0, 6600), _act(3, "CALL", 50, 7000),
        # a face-down card is never read, whatever it holds
        {"type": "CardDealt", "hand": 1, "seat": 1, "card": None, "face_up": False, "street": 7},
    ]
    rows = [("tables/t", version, payload) for version, payload in
            enumerate(_hand(1, seats, *events, shown=[[3, []]], pots=[(260, {3: 260})]), start=1)]
    tally = fold_rows(rows)
    ab, ac = tally.pairs[("a", "b")], tally.pairs[("a", "c")]
    assert ab.hands == ac.hands == 1 and ab.three_way_rounds == 1
    assert ab.raise_wars == 1 and ac.raise_wars == 0  # A raised over B; C was caught between
    assert ab.b_facing_a.faced == 1 and ab.b_facing_a.folds == ab.b_facing_a.folds_better == 1
    assert ab.b_facing_a.think.total == 4000  # B thought from A's raise (2600) to the fold (6600)
    # A put in 110 and B 50, all won by C: 110 and 50 flow to C, nothing between A and B
    assert ac.flow == 110 and ac.a_to_b == 110 and ac.showdown_flow == 110
    assert tally.pairs[("b", "c")].flow == 50 and ab.flow == 0
    assert tally.players["c"].net == 260 - 100 and tally.hands == 1


def test_a_mixed_tables_boards_are_ranked_in_each_hands_own_game():
    """RULES.md §13: at a table whose first game is Stud, a Razz hand's boards rank low (a 2-3 board beats a
    pair of kings), a Stud hand's high."""
    from stud_service.audit.integrity.fold import Tally, _TableHands

    hands = _TableHands("mixed", Tally())
    config = {"variant": "STUD", "rotation": ["STUD", "RAZZ"]}
    for number, game, low_wins in ((1, "RAZZ", True), (2, "STUD", False)):
        hands.started({"hand": number, "seats": [[1, "ann", 100], [2, "bob", 100]], "config": config,
                       "game": game, "at_ms": 0})
        hands.up = {1: [0, 4], 2: [44, 45]}  # 2c 3c against Kc Kd
        assert (hands.board(1) > hands.board(2)) is low_wins, game


def test_the_colluding_bots_judge_a_mixed_tables_hand_in_its_own_game():
    """RULES.md §13: Stud then Razz at one table: the bots' strength is a high hand's, then a low's."""
    from engine_helpers import Table, play_passively, stacked_deck

    from stud_service.bots.colluders import high_strength, low_strength, strength
    from stud_service.engine import TableConfig, Variant

    config = TableConfig(variant=Variant.STUD, rotation=(Variant.STUD, Variant.RAZZ), hands_per_game=1,
                         min_buy_in=1, max_buy_in=10**9)
    table = Table(config, stacks={1: 10**6, 2: 10**6})
    for game, judged in ((Variant.STUD, high_strength), (Variant.RAZZ, low_strength)):
        table.start(stacked_deck([]))
        hand = table.state.hand
        cards = list(hand.players[1].down) + list(hand.players[1].up)
        assert hand.game is game and strength(table.state, 1) == judged(cards)
        play_passively(table)
