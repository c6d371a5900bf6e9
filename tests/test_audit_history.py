"""What each viewer may see of a finished hand, step-by-step replays, and old logs (the audit issue).

RULES.md §5 and DESIGN.md "Hidden information": a player sees their own down cards, everyone's up cards
and the hands shown at showdown; mucked hands stay hidden; nobody but an auditor sees the deck.
"""

from __future__ import annotations

import functools

import pytest

from stud_service.audit import (
    HandRecord,
    HandStillRunning,
    NotYourHand,
    check_shuffle,
    evidence_from_payloads,
    narrate,
    player_history,
    replay_steps,
)
from stud_service.audit.replay_check import chips_ledger, replay_hand
from stud_service.audit.simulate import as_logged_before_proofs, simulate_table
from stud_service.currency import money_text
from stud_service.engine import HandEnded, Variant, event_from_json


def hands(variant: Variant = Variant.STUD, count: int = 40, seed: int = 31) -> list[HandRecord]:
    """Each hand's events as the log holds them: HandStarted to the end of the command that ended it."""
    return simulate_table("hist", variant, count, seed=seed).hand_records()


def test_a_player_sees_own_down_cards_and_shown_hands_only():
    checked = 0
    for record in hands():
        shown_seats = {seat for seat, _cards in record.ended["shown"]}
        for seat, player, _stack in record.seats:
            events = [payload for _version, payload in player_history(record, player)]
            assert events[0]["deck"] is None and "server_seed" not in events[0]["extra"]
            for payload in events:
                if payload["type"] == "CardDealt" and not payload["face_up"] and payload["seat"] is not None:
                    assert (payload["card"] is not None) == (payload["seat"] == seat)
                if payload["type"] == "HandShown":
                    assert payload["seat"] in shown_seats
            checked += 1
    assert checked > 100


def test_mucked_hands_stay_hidden_from_players():
    mucked = [(r, seat) for r in hands(count=80) for seat in r.ended["mucked"]]
    assert mucked, "the sample should hold a mucked hand"
    for record, seat in mucked:
        other = next(player for s, player, _ in record.seats if s != seat)
        seen = [p for _v, p in player_history(record, other)]
        assert not any(p["type"] == "HandShown" and p["seat"] == seat for p in seen)
        assert all(
            p["card"] is None
            for p in seen
            if p["type"] == "CardDealt" and p["seat"] == seat and not p["face_up"]
        )


def test_strangers_and_running_hands_are_refused():
    record = hands(count=2)[0]
    with pytest.raises(NotYourHand):
        player_history(record, "nobody")
    running = HandRecord.from_payloads(
        "hist", record.hand, [s.payload for s in record.events[:-3] if s.payload["type"] != "HandEnded"]
    )
    with pytest.raises(HandStillRunning):
        replay_steps(running)


@pytest.mark.parametrize("variant", list(Variant))
def test_replay_steps_follow_every_event_and_end_with_the_result(variant):
    record = hands(variant, count=5)[-1]
    full = replay_steps(record)
    public = replay_steps(record, "public")
    assert [s.version for s in full] == [s.version for s in public]
    assert full[-1].event["type"] == "HandEnded" and full[-1].state["hand"] is None
    middle = next(
        s
        for s in full
        if s.state["hand"] and s.state["hand"]["street"] == 3 and s.event["type"] == "BettingRoundStarted"
    )
    assert all(len(p["down"]) == 2 for p in middle.state["hand"]["players"])
    seen = next(s for s in public if s.version == middle.version)
    assert all(p["down"] is None for p in seen.state["hand"]["players"])


def test_show_names_cards_with_suit_symbols():
    text = narrate(hands(count=3)[0])
    assert "Third street:" in text and any(symbol in text for symbol in "♣♦♥♠") and "Result:" in text


def test_hands_logged_before_the_reveal_still_verify():
    """A v1 HandEnded (no server_seed) still decodes, replays, and its shuffle checks from the log."""
    record = as_logged_before_proofs(hands(count=3)[1])
    payloads = [dict(s.payload) for s in record.events]
    ended = next(p for p in payloads if p["type"] == "HandEnded")
    as_logged_before_the_rake(ended)
    del ended["server_seed"]
    ended["v"] = 1
    assert isinstance(event_from_json(ended), HandEnded) and event_from_json(ended).server_seed is None
    assert check_shuffle(evidence_from_payloads(payloads)) is None
    assert replay_hand(list(enumerate(payloads, start=1)), record.hand) is None
    public = [p for p in payloads if p["type"] != "HandStarted"]
    assert check_shuffle(evidence_from_payloads(public)) is not None  # nothing public reveals the seed


def as_logged_before_the_rake(ended: dict) -> None:
    """A HandEnded of a table without rake in its v2 shape: no rake, no shares, no pot rake."""
    assert ended["rake"] == 0
    del ended["rake"], ended["rake_shares"]
    ended["pots"] = [{k: v for k, v in pot.items() if k != "rake"} for pot in ended["pots"]]
    ended["v"] = 2


def test_hands_logged_before_the_rake_still_verify():
    """A v2 HandEnded (no rake) decodes with rake 0, replays (the replay's v3 event, without rake, is
    what was logged) and its chips add up."""
    record = as_logged_before_proofs(hands(count=3)[1])
    payloads = [dict(s.payload) for s in record.events]
    ended = next(p for p in payloads if p["type"] == "HandEnded")
    as_logged_before_the_rake(ended)
    assert event_from_json(ended).rake == 0
    assert replay_hand(list(enumerate(payloads, start=1)), record.hand) is None
    assert chips_ledger([p for p in payloads if p.get("hand") == record.hand]) is None


def test_show_states_the_rake_and_its_shares():
    """RULES.md §10: the narration of a raked hand says what the house took, and from whom."""
    table = simulate_table("narrated", Variant.STUD, 20, seed=3, raked=True)
    record = next(r for r in table.hand_records() if r.ended["rake"] > 0)
    dollars = functools.partial(money_text, code="USD")
    shares = ", ".join(f"seat {seat} {dollars(share)}" for seat, share in record.ended["rake_shares"])
    assert f"  rake {dollars(record.ended['rake'])} (contributed: {shares})" in narrate(record)
