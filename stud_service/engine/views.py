"""What one viewer may see (DESIGN.md, "Hidden information").

- ``Viewer.seat(player_id)``: the player's own down cards, everyone's up cards, shown hands.
- ``Viewer.observer()``: up cards, shown hands, and how many cards each seat holds face down.
- ``Viewer.auditor()``: everything (the deck order, every down card, mucked hands' cards in the
  deals) but only for hands that have ended; while a hand runs an auditor sees what an observer does.

``view_event(state, event, viewer)``: ``state`` is the table state at or after ``event`` (the
store's current state will do); it tells whether the event's hand has ended and which seat the
viewer held.  Hidden down cards become ``"card": null, "hidden": true``; the deck order becomes
``"deck": null``.  Mucked hands are never revealed by HandMucked or HandEnded (the CardDealt events
of the log hold them, for the auditor).
"""

from __future__ import annotations

import enum
from dataclasses import dataclass
from typing import Any

from stud_service.engine.codec import event_to_json
from stud_service.engine.config import config_to_json
from stud_service.engine.events import CardDealt, HandStarted
from stud_service.engine.legal import legal_actions
from stud_service.engine.state import TableState, action_deadline_ms, to_act


class ViewerKind(enum.StrEnum):
    SEAT = "SEAT"
    OBSERVER = "OBSERVER"
    AUDITOR = "AUDITOR"


@dataclass(frozen=True, slots=True)
class Viewer:
    kind: ViewerKind
    player_id: str | None = None

    @classmethod
    def seat(cls, player_id: str) -> Viewer:
        return cls(ViewerKind.SEAT, player_id)

    @classmethod
    def observer(cls) -> Viewer:
        return cls(ViewerKind.OBSERVER)

    @classmethod
    def auditor(cls) -> Viewer:
        return cls(ViewerKind.AUDITOR)


def hand_has_ended(state: TableState, hand_number: int) -> bool:
    return state.hand_number > hand_number or (state.hand_number == hand_number and state.hand is None)


def _viewer_seat(state: TableState, viewer: Viewer, hand_number: int) -> int | None:
    if viewer.kind is not ViewerKind.SEAT:
        return None
    hand = state.hand
    if hand is not None and hand.number == hand_number:
        for seat, player in hand.players.items():
            if player.player_id == viewer.player_id:
                return seat
        return None
    return state.seat_of(viewer.player_id) if viewer.player_id is not None else None


def view_event(state: TableState, event: Any, viewer: Viewer) -> dict[str, Any] | None:
    """The JSON of ``event`` as ``viewer`` may see it."""
    data = event_to_json(event)
    hand_number = getattr(event, "hand", None)
    if hand_number is None:
        return data
    if viewer.kind is ViewerKind.AUDITOR and hand_has_ended(state, hand_number):
        return data
    if isinstance(event, HandStarted):
        data["deck"] = None
    elif (isinstance(event, CardDealt) and not event.face_up and event.seat is not None
          and event.seat != _viewer_seat(state, viewer, hand_number)):
            data["card"] = None
            data["hidden"] = True
    return data


def view_state(state: TableState, viewer: Viewer) -> dict[str, Any]:
    """The table as ``viewer`` may see it: seats, the running hand (own down cards only for a seat;
    counts for others), who is to act with the deadline, and the viewer's legal actions."""
    hand = state.hand
    out: dict[str, Any] = {
        "table_id": state.table_id,
        "config": config_to_json(state.config) if state.config is not None else None,
        "seats": [{"seat": seat, "player_id": s.player_id, "stack": s.stack, "sitting_out": s.sitting_out,
                   "leaving": s.leaving} for seat, s in sorted(state.seats.items())],
        "hand_number": state.hand_number,
        "hand": None,
        "to_act": to_act(state),
        "deadline_ms": action_deadline_ms(state),
        "legal_actions": None,
    }
    if hand is None:
        return out
    own = _viewer_seat(state, viewer, hand.number)
    out["hand"] = {
        "number": hand.number,
        "street": hand.street,
        "pot": sum(p.committed for p in hand.players.values()),
        "bet_level": hand.level,
        "community": list(hand.community),
        "players": [{
            "seat": seat, "player_id": p.player_id, "up": list(p.up),
            "down": list(p.down) if seat == own else None, "down_count": len(p.down),
            "folded": p.folded, "all_in": p.all_in, "bet": p.bet, "committed": p.committed,
        } for seat, p in sorted(hand.players.items())],
    }
    if own is not None and viewer.player_id is not None:
        out["legal_actions"] = legal_actions(state, viewer.player_id).to_json()
    return out
