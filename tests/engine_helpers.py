"""Helpers for the engine tests: tables, stacked decks, and driving a hand by commands."""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from stud_service.cards import DECK_SIZE, parse_card
from stud_service.engine import (
    Act,
    ActionKind,
    CreateTable,
    SitDown,
    StartHand,
    TableConfig,
    TableState,
    chips_in_play,
    decide,
    evolve,
    hand_running,
    initial_state,
    replay,
)

COMMITMENT = "00" * 32
T0 = 1_700_000_000_000


def cards(text: str) -> list[int]:
    """'Kc Jc' -> codes; '-' placeholders are not allowed here."""
    return [parse_card(token) for token in text.split()]


def stacked_deck(dealt_in_order: Iterable[int | str]) -> tuple[int, ...]:
    """A 52-card deck whose first cards are exactly ``dealt_in_order``; the rest follow in code order."""
    head = [parse_card(c) if isinstance(c, str) else c for c in dealt_in_order]
    assert len(set(head)) == len(head), "a card appears twice in the stacked deck"
    rest = [code for code in range(DECK_SIZE) if code not in set(head)]
    return tuple(head + rest)


def deal_sequence(seats: Iterable[int], hands: dict[int, str],
                  later_streets_live: Sequence[Sequence[int]] = ()) -> list[str]:
    """The deal order for per-seat cards given as [down1, down2, door, 4th, 5th, 6th, 7th].

    ``hands[seat]`` ("Kc Jc Ad ...") may be shorter than seven; third street is dealt to all
    ``seats``; for streets 4..7 ``later_streets_live[i]`` lists the seats still in (default: the
    seats that have a card for that street)."""
    seats = list(seats)
    split = {seat: text.split() for seat, text in hands.items()}
    out: list[str] = []
    for index in range(3):
        out.extend(split[seat][index] for seat in seats)
    for street_index in range(4):
        card_index = 3 + street_index
        live = (later_streets_live[street_index] if street_index < len(later_streets_live)
                else [s for s in seats if len(split[s]) > card_index])
        out.extend(split[seat][card_index] for seat in live)
    return out


class Table:
    """A table driven by commands, checking the engine's invariants after every event."""

    def __init__(self, config: TableConfig | None = None, stacks: dict[int, int] | None = None,
                 players: dict[int, str] | None = None, table_id: str = "t1") -> None:
        self.config = config or TableConfig()
        self.state: TableState = initial_state()
        self.log: list[Any] = []
        self.now = T0
        self.run(CreateTable(table_id, self.config, self.now))
        for seat, stack in (stacks or {}).items():
            pid = (players or {}).get(seat, f"p{seat}")
            self.run(SitDown(pid, seat, stack, self.now))

    def run(self, command: Any) -> list[Any]:
        events = decide(self.state, command)
        before = chips_in_play(self.state) + self.state.rake_taken  # the rake leaves at HandEnded
        state = self.state
        for event in events:
            state = evolve(state, event)
            if hand_running(state) or type(event).__name__ == "HandEnded":
                assert chips_in_play(state) + state.rake_taken == before, f"chips not conserved at {event}"
        self.state = state
        self.log.extend(events)
        assert replay(self.log) == self.state
        return events

    def start(self, deck: Sequence[int], extra: dict | None = None) -> list[Any]:
        return self.run(StartHand(tuple(deck), COMMITMENT, self.now, extra or {}))

    def act(self, seat: int, action: ActionKind | str, amount: int | None = None) -> list[Any]:
        pid = self.state.seats[seat].player_id
        return self.run(Act(pid, ActionKind(action), amount, self.now))

    def pid(self, seat: int) -> str:
        return self.state.seats[seat].player_id


def of_type(events: Iterable[Any], name: str) -> list[Any]:
    return [e for e in events if type(e).__name__ == name]


def stacks(state: TableState) -> dict[int, int]:
    return {seat: s.stack for seat, s in sorted(state.seats.items())}


def deal_table(hands: dict[int, str], stacks: int | dict[int, int] = 10_000,
               config: TableConfig | None = None, later_streets_live: Sequence[Sequence[int]] = ()) -> Table:
    """A table with a player in each seat of ``hands``, and a hand started whose deal gives them
    exactly those cards ([down, down, door, 4th, 5th, 6th, 7th] per seat)."""
    seats = sorted(hands)
    table = Table(config or TableConfig(min_buy_in=1),
                  stacks={seat: stacks if isinstance(stacks, int) else stacks[seat] for seat in seats})
    table.start(stacked_deck(deal_sequence(seats, hands, later_streets_live)))
    return table


def options(table: Table, seat: int) -> dict[str, tuple[int, ...]]:
    """The legal actions of ``seat`` as {"CALL": (), "RAISE": (400,), ...}."""
    from stud_service.engine import legal_actions

    legal = legal_actions(table.state, table.pid(seat))
    return {str(kind): amounts for kind, amounts in legal.options}


def play_passively(table: Table, fold: Iterable[int] = (), max_steps: int = 200) -> list[Any]:
    """Until the hand ends: post the bring-in when due, fold the ``fold`` seats at their first chance
    after third street, else check, else call.  Returns the events."""
    from stud_service.engine import to_act

    fold_seats = set(fold)
    events: list[Any] = []
    for _ in range(max_steps):
        seat = to_act(table.state)
        if seat is None:
            return events
        legal = options(table, seat)
        if "BRING_IN" in legal:
            events += table.act(seat, "BRING_IN", legal["BRING_IN"][0])
        elif seat in fold_seats and table.state.hand.street >= 4:
            events += table.act(seat, "FOLD")
        elif "CHECK" in legal:
            events += table.act(seat, "CHECK")
        else:
            events += table.act(seat, "CALL")
    raise AssertionError("the hand did not end")


def check_side_pots(committed: Mapping[int, int], folds: Sequence[int],
                    pots: Sequence[tuple[int, Sequence[int]]], paid: Mapping[int, int]) -> None:
    """RULES.md §5, checked from first principles: ``pots`` ((amount, contenders), main pot first) are
    consecutive layers of ``committed`` holding every chip; each is contested by the live players who
    put in its top level, or, if all of those folded (``folds``, in order), by the last of them to
    fold; and no seat is ``paid`` more than its own chips plus, from each opponent, the lesser of
    what the two put in."""
    assert sum(amount for amount, _ in pots) == sum(committed.values())
    live = set(committed) - set(folds)
    levels = sorted(set(committed.values()))
    below = 0
    for amount, contenders in pots:
        assert amount > 0 or len(pots) == 1  # nothing put in (the bring-in came back uncalled): one pot of 0
        below += amount
        top = next(level for level in levels if sum(min(c, level) for c in committed.values()) == below)
        matched = {seat for seat, chips in committed.items() if chips >= top}
        if matched & live:
            assert tuple(contenders) == tuple(sorted(matched & live)), (pots, committed, folds)
        else:
            assert tuple(contenders) == (max(matched, key=list(folds).index),), (pots, committed, folds)
    for seat, won in paid.items():
        own = committed[seat]
        assert won <= own + sum(min(own, theirs) for other, theirs in committed.items() if other != seat), \
            f"seat {seat} paid {won} from {dict(committed)}"
