"""What one viewer may see of an event: the log holds every card, clients get only their share.

Rules (DESIGN.md "Hidden information"):

- ``HandStarted`` never leaves the server with its ``deck`` or the server seed in ``extra``;
- a face-down ``CardDealt`` keeps its card only for the player it was dealt to (decided by player id
  as of that hand, not by seat number: seats change hands between hands);
- shown hands (``HandShown``, ``HandEnded.shown``) are public; mucked hands carry no cards;
- an auditor sees every event of a hand that has ended, and otherwise what an observer sees.

Anything this module cannot attribute to the viewer is hidden, never guessed.
"""

from __future__ import annotations

from typing import Any

_SECRET_EXTRA_KEYS = frozenset({"server_seed"})


class EventRedactor:
    """Redacts one viewer's events in log order; remembers who sat where in each hand."""

    def __init__(self, viewer_player_id: str | None, auditor: bool = False) -> None:
        self.viewer = viewer_player_id
        self.auditor = auditor
        self._hand_players: dict[int, dict[int, str]] = {}

    def know_hand(self, hand: int, players: dict[int, str]) -> None:
        """Who was dealt in at which seat in ``hand`` (for a watch resumed in the middle of a hand)."""
        self._hand_players = {hand: dict(players)}

    def redact(self, payload: dict[str, Any], hands_ended: int = 0) -> dict[str, Any]:
        """``payload`` as the viewer may see it; ``hands_ended``: hands 1..N are over (auditors see all)."""
        kind = payload.get("type")
        hand = payload.get("hand")
        if self.auditor and isinstance(hand, int) and hand <= hands_ended:
            if kind == "HandStarted":
                self.know_hand(hand, {int(seat): player for seat, player, *_ in payload.get("seats", ())})
            return payload
        if kind == "HandStarted":
            seats = payload.get("seats", ())
            self.know_hand(payload["hand"], {int(seat): player for seat, player, *_ in seats})
            shown = {key: value for key, value in payload.items() if key != "deck"}
            extra = payload.get("extra")
            if isinstance(extra, dict):
                shown["extra"] = {key: value for key, value in extra.items() if key not in _SECRET_EXTRA_KEYS}
            return shown
        if kind == "CardDealt" and not payload.get("face_up"):
            seat = payload.get("seat")
            owner = self._hand_players.get(payload.get("hand"), {}).get(seat) if seat is not None else None
            if seat is not None and (self.viewer is None or owner != self.viewer):
                return {**payload, "card": None}
            return payload
        if "deck" in payload:
            return {key: value for key, value in payload.items() if key != "deck"}
        return payload
