"""What one viewer may see of an event: the log holds every card, clients get only their share.

What an event hides is decided by the engine (``stud_service.engine.views.redact_event_json``, the
one owner of those rules, DESIGN.md "Hidden information"); this module supplies what the server knows
and the engine's view of a single event cannot: who was dealt into which seat of each hand (decided by
player id as of that hand, not by seat number: seats change hands between hands), remembered from
``HandStarted`` as a watch streams by, and whether the hand has ended (an auditor then sees it all;
otherwise what an observer sees).

Anything this module cannot attribute to the viewer is hidden, never guessed.
"""

from __future__ import annotations

from collections.abc import Collection
from typing import Any

from stud_service.engine.events import CHAT_EVENTS
from stud_service.engine.views import (
    WAITING_LIST_EVENTS,
    redact_chat_json,
    redact_event_json,
    redact_waiting_list_json,
)


class EventRedactor:
    """Redacts one viewer's events in log order; remembers who sat where in each hand."""

    def __init__(self, viewer_player_id: str | None, auditor: bool = False) -> None:
        self.viewer = viewer_player_id
        self.auditor = auditor
        self._hand_players: dict[int, dict[int, str]] = {}

    def know_hand(self, hand: int, players: dict[int, str]) -> None:
        """Who was dealt in at which seat in ``hand`` (for a watch resumed in the middle of a hand)."""
        self._hand_players = {hand: dict(players)}

    def knows_hand(self, hand: int) -> bool:
        return hand in self._hand_players

    def redact(
        self, payload: dict[str, Any], hands_ended: int = 0, deleted_chat: Collection[int] = ()
    ) -> dict[str, Any]:
        """``payload`` as the viewer may see it; ``hands_ended``: hands 1..N are over (auditors see all);
        ``deleted_chat``: the chat messages an operator deleted so far (only auditors read them)."""
        kind = payload.get("type")
        if kind in WAITING_LIST_EVENTS:
            return payload if self.auditor else redact_waiting_list_json(payload, self.viewer)
        if kind in CHAT_EVENTS:
            return payload if self.auditor else redact_chat_json(payload, deleted_chat)
        hand = payload.get("hand")
        if self.auditor and isinstance(hand, int) and hand <= hands_ended:
            if kind == "HandStarted":
                self.know_hand(hand, {int(seat): player for seat, player, *_ in payload.get("seats", ())})
            return payload
        if kind == "HandStarted":
            seats = payload.get("seats", ())
            self.know_hand(payload["hand"], {int(seat): player for seat, player, *_ in seats})
        own_seat = None
        if kind == "CardDealt" and self.viewer is not None:
            dealt_in = self._hand_players.get(hand, {}) if isinstance(hand, int) else {}
            own_seat = next((seat for seat, player in dealt_in.items() if player == self.viewer), None)
        return redact_event_json(payload, own_seat)
