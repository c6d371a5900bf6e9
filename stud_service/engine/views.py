"""What one viewer may see (DESIGN.md, "Hidden information").

- ``Viewer.seat(player_id)``: the player's own down cards, everyone's up cards, shown hands.
- ``Viewer.observer()``: up cards, shown hands, and how many cards each seat holds face down.
- ``Viewer.auditor()``: everything (the deck order, every down card, mucked hands' cards in the
  deals) but only for hands that have ended; while a hand runs an auditor sees what an observer does.

``view_event(state, event, viewer, dealt_in=None)``: ``state`` is the table state at or after
``event`` (the store's current state will do); it tells whether the event's hand has ended.  Whose
down cards a seat viewer sees is decided by player id as of the event's hand, never by the seat the
viewer holds now (seats change players between hands): the running hand's players, or ``dealt_in``
(seat -> player id, from that hand's HandStarted) for an earlier hand; without it an earlier hand's
down cards stay hidden.  Hidden down cards become ``"card": null, "hidden": true``; the deck order
becomes ``"deck": null``; no server seed is ever in a view (ShuffleCommitted's secret, and the seed
older hands kept in HandStarted and revealed in HandEnded, are dropped: the audit API gives seeds to
auditors, README "The provably fair shuffle").  Mucked hands are never revealed by HandMucked or
HandEnded (the CardDealt events of the log hold them, for the auditor).
"""

from __future__ import annotations

import enum
from collections.abc import Collection, Mapping
from dataclasses import dataclass
from typing import Any

from stud_service.engine.codec import event_to_json
from stud_service.engine.config import config_to_json
from stud_service.engine.events import CardDealt, ShuffleCommitted
from stud_service.engine.legal import legal_actions
from stud_service.engine.state import (
    TableState,
    action_deadline_ms,
    running_clock,
    time_bank_reserve_ms,
    to_act,
)


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


def _viewer_seat(
    state: TableState, viewer: Viewer, hand_number: int, dealt_in: Mapping[int, str] | None = None
) -> int | None:
    """The seat the viewer was dealt into in hand ``hand_number``; None when nothing says so."""
    if viewer.kind is not ViewerKind.SEAT:
        return None
    hand = state.hand
    if hand is not None and hand.number == hand_number:
        for seat, player in hand.players.items():
            if player.player_id == viewer.player_id:
                return seat
        return None
    # An earlier hand: only that hand's seating tells; the viewer's seat now may be someone else's then.
    for seat, player_id in (dealt_in or {}).items():
        if player_id == viewer.player_id:
            return seat
    return None


def view_event(
    state: TableState, event: Any, viewer: Viewer, dealt_in: Mapping[int, str] | None = None
) -> dict[str, Any] | None:
    """The JSON of ``event`` as ``viewer`` may see it; ``dealt_in``: seat -> player id of the event's
    hand (its HandStarted seats), needed only for a seat viewer's own down cards of an earlier hand."""
    data = event_to_json(event)
    hand_number = getattr(event, "hand", None)
    if isinstance(event, ShuffleCommitted):
        return redact_event_json(data, None)  # a future hand's seed: nobody's, not even an auditor's
    if hand_number is None:
        if viewer.kind is ViewerKind.AUDITOR:
            return data
        return redact_chat_json(redact_waiting_list_json(data, viewer.player_id), state.chat.deleted)
    if viewer.kind is ViewerKind.AUDITOR and hand_has_ended(state, hand_number):
        return data
    own_seat = None
    if isinstance(event, CardDealt) and not event.face_up:
        own_seat = _viewer_seat(state, viewer, hand_number, dealt_in)
    return redact_event_json(data, own_seat)


def redact_event_json(data: dict[str, Any], own_seat: int | None) -> dict[str, Any]:
    """An event's JSON as the player dealt into ``own_seat`` of its hand may see it (None: anyone else).

    The one place that decides what a hand's event hides: HandStarted loses its deck order
    (``"deck": null``) and any server seed (hands logged before seeds were sealed kept it there); a
    ShuffleCommitted loses its ``secret`` (the committed seed) and a HandEnded its revealed
    ``server_seed`` (older hands revealed it to everyone; now only an auditor, or everyone after the
    operator's delayed reveal, gets it, through the audit API); a face-down CardDealt to another seat
    becomes ``"card": null, "hidden": true``.  Returns ``data`` itself when it hides nothing (callers may
    cache its text); never changes ``data``."""
    kind = data.get("type")
    if kind == "ShuffleCommitted":
        return {key: value for key, value in data.items() if key != "secret"}
    if kind == "HandEnded":
        return {key: value for key, value in data.items() if key != "server_seed"} if "server_seed" in data \
            else data
    if kind == "HandStarted":
        shown = {**data, "deck": None}
        extra = data.get("extra")
        if isinstance(extra, dict) and "server_seed" in extra:
            shown["extra"] = {key: value for key, value in extra.items() if key != "server_seed"}
        return shown
    if kind == "CardDealt" and not data.get("face_up"):
        seat = data.get("seat")
        if seat is not None and seat != own_seat:
            return {**data, "card": None, "hidden": True}
    return data


WAITING_LIST_EVENTS = frozenset({"WaitingListJoined", "WaitingListLeft", "SeatOffered"})


def redact_waiting_list_json(data: dict[str, Any], viewer_player_id: str | None) -> dict[str, Any]:
    """A waiting-list event's JSON as ``viewer_player_id`` may see it: who waits is shown to that player
    alone (others see the list move and which seat is held, ``"player_id": null``).  Returns ``data``
    itself when it hides nothing; never changes ``data``."""
    if data.get("type") in WAITING_LIST_EVENTS and data.get("player_id") != viewer_player_id:
        return {**data, "player_id": None}
    return data


CHAT_MODERATION_EVENTS = frozenset({"ChatMessageDeleted", "ChatMuteSet"})


def redact_chat_json(data: dict[str, Any], deleted: Collection[int]) -> dict[str, Any]:
    """A chat event's JSON as anyone but an auditor may see it: a message an operator deleted (its number is
    in ``deleted``) without its text, ``"text": null, "deleted": true``; an operator's deletion or mute
    without the operator, ``"by": null``.  Returns ``data`` itself when it hides nothing."""
    kind = data.get("type")
    if kind == "ChatMessageSent" and data.get("number") in deleted:
        return {**data, "text": None, "deleted": True}
    if kind in CHAT_MODERATION_EVENTS:
        return {**data, "by": None}
    return data


def view_state(state: TableState, viewer: Viewer) -> dict[str, Any]:
    """The table as ``viewer`` may see it: seats (with each one's time bank reserve, §7, at a table that has
    one), the running hand (own down cards only for a seat; counts for others), who is to act with the
    running clock ("ACTION" or "TIME_BANK") and its deadline, and the viewer's legal actions."""
    hand = state.hand
    banks = state.config is not None and state.config.time_bank_seconds > 0
    out: dict[str, Any] = {
        "table_id": state.table_id,
        "config": config_to_json(state.config) if state.config is not None else None,
        "seats": [{"seat": seat, "player_id": s.player_id, "stack": s.stack, "sitting_out": s.sitting_out,
                   "leaving": s.leaving, "time_bank_ms": time_bank_reserve_ms(state, seat) if banks else None}
                  for seat, s in sorted(state.seats.items())],
        "hand_number": state.hand_number,
        "status": state.control.status,
        "status_reason": state.control.reason,
        "hand": None,
        "to_act": to_act(state),
        "deadline_ms": action_deadline_ms(state),
        "clock": running_clock(state),
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
