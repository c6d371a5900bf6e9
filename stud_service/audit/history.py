"""What each viewer may see of a finished hand: its events redacted, and its replay step by step.

- ``full`` (auditors): every event and every card, the deck and seeds included.
- ``public``: what an observer saw live: up cards, shown hands, the commitment; no down cards, no deck.
- a player id: what that player saw: their own down cards as well (RULES.md §5: mucked hands stay hidden).

A player may only ask about hands they were dealt into (``NotYourHand``), and nobody gets a running
hand (``HandStillRunning``).  ``HandStarted`` never shows the deck to anyone but an auditor.  The proof
of the shuffle follows the same rule (``shuffle_evidence``): a viewer gets the proofs of the cards they
saw, and only an auditor the server seed (older hands revealed it in ``HandEnded``, so theirs carry it).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from stud_service.audit.errors import NotYourHand
from stud_service.audit.fairness import (
    ShuffleEvidence,
    evidence_from_payloads,
    proofs_for_viewer,
)
from stud_service.audit.records import HandRecord
from stud_service.audit.replay_check import state_before_hand
from stud_service.engine import Viewer, event_from_json, view_state
from stud_service.engine.evolve import apply_in_place
from stud_service.engine.state import TableState
from stud_service.engine.views import redact_event_json

FULL = "full"
PUBLIC = "public"


def redact_payload(payload: dict[str, Any], own_seat: int | None) -> dict[str, Any]:
    """``payload`` as the player at ``own_seat`` (None: an observer) saw it (the engine's rules)."""
    return redact_event_json(payload, own_seat)


def _own_seat(record: HandRecord, mode: str) -> int | None:
    if mode in (FULL, PUBLIC):
        return None
    seat = record.seat_of(mode)
    if seat is None:
        raise NotYourHand(f"player {mode!r} was not dealt into hand {record.hand}")
    return seat


def hand_events(record: HandRecord, mode: str = FULL) -> list[tuple[int, dict[str, Any]]]:
    """The hand's own events as ``mode`` may see them (``full``, ``public`` or a player id)."""
    record.require_complete()
    own = _own_seat(record, mode)
    events = [(s.version, s.payload) for s in record.events if s.payload.get("hand") == record.hand]
    if mode == FULL:
        return events
    return [(version, redact_payload(payload, own)) for version, payload in events]


def hand_chat(record: HandRecord, mode: str = FULL) -> list[tuple[int, dict[str, Any]]]:
    """The table chat said during the hand (between its HandStarted and its HandEnded: docs/chat.md), as
    ``mode`` may read it: an auditor every message, a deleted one marked ``"deleted": true``; anyone else
    only the messages an operator did not delete."""
    record.require_complete()
    _own_seat(record, mode)  # a stranger's export is refused as hand_events refuses it
    ended = max(stored.version for stored in record.events
                if stored.type == "HandEnded" and stored.payload.get("hand") == record.hand)
    said = []
    for stored in record.events:
        if stored.type != "ChatMessageSent" or not record.first_version < stored.version < ended:
            continue
        deleted = stored.payload.get("number") in record.deleted_chat
        if deleted and mode != FULL:
            continue
        said.append((stored.version, {**stored.payload, "deleted": True} if deleted else stored.payload))
    return said


def with_chat(record: HandRecord, mode: str = FULL) -> list[tuple[int, dict[str, Any]]]:
    """The hand's events as ``mode`` may see them with its chat (``hand_chat``) in log order."""
    return sorted(hand_events(record, mode) + hand_chat(record, mode), key=lambda item: item[0])


def player_history(record: HandRecord, player_id: str) -> list[tuple[int, dict[str, Any]]]:
    """A player's own history of a hand they played."""
    return hand_events(record, player_id)


def shuffle_evidence(
    record: HandRecord, mode: str = FULL, reveal_seed: bool | None = None
) -> ShuffleEvidence:
    """What ``mode`` can check about the hand's deck: its view of the events, the proofs the service
    hands it (face-up cards, shown hands and its own down cards; none for ``full``, whose seed proves
    every card) and the commitment order; the server seed only for ``full``, or when ``reveal_seed``
    says it is public."""
    own = _own_seat(record, mode)
    payloads = [payload for _version, payload in hand_events(record, mode)]
    seed = record.server_seed()
    revealed = seed if (mode == FULL if reveal_seed is None else reveal_seed) else None
    if record.commitment_version is None or seed is None:
        # An older hand: no proofs, only its seed proves the deck (and gives away every card).
        return evidence_from_payloads(payloads, server_seed=revealed, order=record.commitment_order())
    full = [stored.payload for stored in record.events if stored.payload.get("hand") == record.hand]
    proofs = [] if mode == FULL else proofs_for_viewer(full, seed, own)
    return evidence_from_payloads(payloads, proofs, revealed, record.commitment_order())


@dataclass(frozen=True)
class ReplayStep:
    version: int
    event: dict[str, Any]
    state: Any  # the engine's view JSON, or what a renderer made


def full_state(state: TableState) -> dict[str, Any]:
    """The table with every card: the auditor's view of a replayed moment."""
    view = view_state(state, Viewer.auditor())
    hand = state.hand
    if hand is not None and view["hand"] is not None:
        for player in view["hand"]["players"]:
            player["down"] = list(hand.players[player["seat"]].down)
        view["hand"]["deck_position"] = hand.next_card
    view["legal_actions"] = None
    return view


# Renders the table after one replayed event: (state, version, the event as shown) -> a step's state.
# The state is changed in place by the next event: a renderer copies what it keeps.
Render = Callable[[TableState, int, dict[str, Any]], Any]


def replay_steps(record: HandRecord, mode: str = FULL, render: Render | None = None) -> list[ReplayStep]:
    """The hand event by event, with the table after each as ``mode`` would have seen it: the engine's
    view JSON (``full_state`` / ``view_state``), or what ``render`` makes of the state (the caller's
    renderer then applies ``mode``'s rules)."""
    events = hand_events(record, mode)
    own = _own_seat(record, mode)
    raw = {s.version: s.payload for s in record.events}
    started = event_from_json(raw[events[0][0]])
    state = state_before_hand(started, record.sitting_out)
    viewer = Viewer.observer() if own is None else Viewer.seat(mode)
    steps = []
    for version, shown in events:
        apply_in_place(state, event_from_json(raw[version]))
        if render is not None:
            table = render(state, version, shown)
        else:
            table = full_state(state) if mode == FULL else view_state(state, viewer)
        steps.append(ReplayStep(version, shown, table))
    return steps
