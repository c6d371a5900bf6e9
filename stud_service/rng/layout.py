"""Which deck position goes to which player, face up or down: read from the engine, not assumed.

``dealing_layout(players)`` plays one hand of Seven Card Stud through the engine (``decide`` and
``evolve``, as the service does) with a deck whose card at position k is k, every player checking or
calling to the showdown, so the ``CardDealt`` events name each position's seat, street and face. With 8
players the seventh street is one community card (RULES.md §2).
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache

from stud_service.cards import DECK_SIZE
from stud_service.engine import (
    Act,
    ActionKind,
    CardDealt,
    CreateTable,
    SitDown,
    StartHand,
    TableConfig,
    decide,
    evolve,
    initial_state,
    legal_actions,
    to_act,
)

MIN_PLAYERS = 2
MAX_PLAYERS = 8
_NOW_MS = 1_767_225_600_000  # any fixed time: nothing here depends on it
_NO_COMMITMENT = "00" * 32


@dataclass(frozen=True)
class DealtPosition:
    position: int  # in the deck: deck[position] is this card
    seat: int | None  # None: the community card
    street: int  # 3..7
    face_up: bool


@cache
def dealing_layout(players: int) -> tuple[DealtPosition, ...]:
    """The positions dealt in a hand of ``players`` (seats 1..players) that all reach seventh street."""
    if not MIN_PLAYERS <= players <= MAX_PLAYERS:
        raise ValueError(f"a stud table deals to 2..8 players, not {players}")
    state = initial_state()
    dealt: list[DealtPosition] = []

    def run(command: object) -> None:
        nonlocal state
        for event in decide(state, command):
            state = evolve(state, event)
            if isinstance(event, CardDealt):
                # The deck is 0..51 in order, so the card is its position.
                dealt.append(DealtPosition(event.card, event.seat, event.street, event.face_up))

    run(CreateTable("layout", TableConfig(), _NOW_MS))
    for seat in range(1, players + 1):
        run(SitDown(f"player-{seat}", seat, TableConfig().max_buy_in, _NOW_MS))
    run(StartHand(tuple(range(DECK_SIZE)), _NO_COMMITMENT, _NOW_MS, {}))
    for _ in range(20 * players):
        seat = to_act(state)
        if seat is None:
            break
        player = state.seats[seat].player_id
        options = {kind: amounts for kind, amounts in legal_actions(state, player).options}
        kind = next(k for k in (ActionKind.BRING_IN, ActionKind.CHECK, ActionKind.CALL) if k in options)
        amounts = options[kind]
        run(Act(player, kind, amounts[0] if amounts else None, _NOW_MS))
    if [d.position for d in dealt] != list(range(len(dealt))):
        raise AssertionError("the engine dealt positions out of order")  # the specification's §2.11
    return tuple(dealt)


def player_positions(players: int, seat: int, face_up: bool) -> list[int]:
    """The positions dealt to ``seat`` with that face (the community card is nobody's)."""
    return [d.position for d in dealing_layout(players) if d.seat == seat and d.face_up == face_up]


def door_positions(players: int) -> list[int]:
    """Third street's face-up cards in seat order: the cards that decide the bring-in."""
    return [d.position for d in dealing_layout(players) if d.street == 3 and d.face_up]


def community_positions(players: int) -> list[int]:
    return [d.position for d in dealing_layout(players) if d.seat is None]
