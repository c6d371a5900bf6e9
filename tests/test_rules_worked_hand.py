"""RULES.md §9: the worked eight-player hand of the Danish seed, event by event.

$2/$4 with a $0.50 ante and a $1 bring-in, in cents.  Seat 8 wins the whole pot of 5,300 cents.
"""

from __future__ import annotations

from engine_helpers import Table, cards, deal_sequence, stacked_deck

from stud_service.engine import (
    ActionKind,
    AntePosted,
    BettingRoundStarted,
    CardDealt,
    HandEnded,
    HandMucked,
    HandShown,
    HandStarted,
    PlayerActed,
    TableConfig,
)

HANDS = {
    1: "Kc Jc Ad 2c Kd 2h 3s",
    2: "3c 3d 2d",
    3: "4c 4d 5h",
    4: "5c 5d 6h",
    5: "6c 6d 7h",
    6: "7c 7d 8h",
    7: "8c 8d 9h",
    8: "8s Qs Ks Js 9s Jd Ts",
}
START = 10_000


def acted(seat: int, action: str, amount: int, chips: int, at_ms: int) -> PlayerActed:
    return PlayerActed(1, seat, ActionKind(action), amount, chips, False, at_ms)


def test_worked_hand_of_rules_section_9_event_by_event() -> None:
    """§9 (with §2 dealing, §3 bring-in and completion, §4 first to act and bet sizes, §5 showdown)."""
    config = TableConfig(ante=50, bring_in=100, small_bet=200, big_bet=400)
    table = Table(config, stacks={seat: START for seat in range(1, 9)})
    deck = stacked_deck(deal_sequence(range(1, 9), HANDS))
    now = table.now
    events = table.start(deck)

    assert isinstance(events[0], HandStarted)
    assert events[0].seats == tuple((seat, f"p{seat}", START) for seat in range(1, 9))
    assert events[0].deck == deck
    assert events[1:9] == [AntePosted(1, seat, 50, False) for seat in range(1, 9)]
    third = [CardDealt(1, 3, seat, cards(HANDS[seat])[i], i == 2) for i in range(3) for seat in range(1, 9)]
    assert events[9:33] == third
    # §3: seat 2's 2 of diamonds is the lowest door card.
    assert events[33:] == [BettingRoundStarted(1, 3, 2, now)]

    assert table.act(2, "BRING_IN", 100) == [acted(2, "BRING_IN", 100, 100, now)]
    for seat in range(3, 8):
        assert table.act(seat, "FOLD") == [acted(seat, "FOLD", 0, 0, now)]
    assert table.act(8, "COMPLETE", 200) == [acted(8, "COMPLETE", 200, 200, now)]
    assert table.act(1, "CALL") == [acted(1, "CALL", 200, 200, now)]
    # Seat 2 folds: third street is over; fourth street deals, seat 1 (ace high) acts first.
    assert table.act(2, "FOLD") == [
        acted(2, "FOLD", 100, 0, now),
        CardDealt(1, 4, 1, cards("2c")[0], True),
        CardDealt(1, 4, 8, cards("Js")[0], True),
        BettingRoundStarted(1, 4, 1, now),
    ]

    assert table.act(1, "CHECK") == [acted(1, "CHECK", 0, 0, now)]
    assert table.act(8, "BET", 200) == [acted(8, "BET", 200, 200, now)]
    assert table.act(1, "CALL") == [
        acted(1, "CALL", 200, 200, now),
        CardDealt(1, 5, 1, cards("Kd")[0], True),
        CardDealt(1, 5, 8, cards("9s")[0], True),
        BettingRoundStarted(1, 5, 1, now),  # A-K high beats K-J-9
    ]

    assert table.act(1, "CHECK") == [acted(1, "CHECK", 0, 0, now)]
    assert table.act(8, "BET", 400) == [acted(8, "BET", 400, 400, now)]
    assert table.act(1, "CALL") == [
        acted(1, "CALL", 400, 400, now),
        CardDealt(1, 6, 1, cards("2h")[0], True),
        CardDealt(1, 6, 8, cards("Jd")[0], True),
        BettingRoundStarted(1, 6, 8, now),  # pair of jacks showing beats pair of twos
    ]

    assert table.act(8, "BET", 400) == [acted(8, "BET", 400, 400, now)]
    assert table.act(1, "RAISE", 800) == [acted(1, "RAISE", 800, 800, now)]
    assert table.act(8, "CALL") == [
        acted(8, "CALL", 800, 400, now),
        CardDealt(1, 7, 1, cards("3s")[0], False),
        CardDealt(1, 7, 8, cards("Ts")[0], False),
        BettingRoundStarted(1, 7, 8, now),
    ]

    assert table.act(8, "CHECK") == [acted(8, "CHECK", 0, 0, now)]
    assert table.act(1, "BET", 400) == [acted(1, "BET", 400, 400, now)]
    assert table.act(8, "RAISE", 800) == [acted(8, "RAISE", 800, 800, now)]
    final = table.act(1, "CALL")
    seat8_cards = tuple(cards("8s Qs Ks Js 9s Jd Ts"))
    assert final[0] == acted(1, "CALL", 800, 400, now)
    # §5: seat 8 raised last and shows first; seat 1's two pair cannot win and is mucked.
    assert final[1] == HandShown(1, 8, seat8_cards, "king-high straight flush", None)
    assert final[2] == HandMucked(1, 1)
    ended = final[3]
    assert isinstance(ended, HandEnded) and len(final) == 4
    assert ended.pots == ({"pot": 0, "amount": 5_300, "rake": 0, "eligible": (1, 8), "awards": (
        {"seat": 8, "amount": 5_300, "half": "high", "hand": "king-high straight flush"},)},)
    assert ended.shown == ((8, seat8_cards),)
    assert ended.mucked == (1,)
    # Antes $4 + third $5 + fourth $4 + fifth $8 + sixth $16 + seventh $16 = $53.
    paid = {1: 50 + 200 + 200 + 400 + 800 + 800, 2: 150, 8: 50 + 200 + 200 + 400 + 800 + 800}
    expected = {seat: START - paid.get(seat, 50) for seat in range(1, 9)}
    expected[8] += 5_300
    assert dict(ended.stacks) == expected
    assert table.state.hand is None
    assert {seat: s.stack for seat, s in table.state.seats.items()} == expected
