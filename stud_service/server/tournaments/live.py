"""One tournament's live state on this replica, and the names its parts share.

A :class:`LiveTournament` holds what the replica folded from the tournament's stream ``tournaments/{id}``:
its state and version, and the work that keeps it current (the follower of its stream, the write lock,
its watchers' queues). A :class:`Applied` is one event as a watcher gets it.
"""

from __future__ import annotations

import contextlib
import time
from dataclasses import dataclass, field
from typing import Any

from stud_service.server.tables.live import LiveStream
from stud_service.tournaments import TournamentState, initial_state

STREAM_PREFIX = "tournaments/"


def stream_id_for(tournament_id: str) -> str:
    """A tournament's stream id is its resource name, ``tournaments/{tournament}``."""
    return STREAM_PREFIX + tournament_id


def now_ms() -> int:
    return int(time.time() * 1000)


def shown_state(state: TournamentState) -> TournamentState:
    """The state as the facade hands it out: without the committed draw's secret seed (nobody may see a
    seed before it is drawn from; docs/tournaments.md, "Who sees a draw's seed")."""
    if state.secret is None:
        return state
    shown = state.copy()  # its containers shared until either changes one
    shown.secret = None
    return shown


@dataclass(frozen=True, slots=True)
class Applied:
    """One event as a watch gets it: its version, the domain event, and the state after it (shown)."""

    version: int
    event: Any
    state: TournamentState


@dataclass(eq=False)
class LiveTournament(LiveStream):
    """One tournament's state on this replica (``shown``: the same without the committed seed)."""

    tournament_id: str
    state: TournamentState = field(default_factory=initial_state)
    _shown: tuple[TournamentState, TournamentState] | None = None  # (state, shown_state(state))

    @property
    def shown(self) -> TournamentState:
        """``shown_state(state)``, made when first asked for after a change (a copy of the whole state)."""
        if self._shown is None or self._shown[0] is not self.state:
            self._shown = (self.state, shown_state(self.state))
        return self._shown[1]

    @property
    def stream_id(self) -> str:
        return stream_id_for(self.tournament_id)

    @property
    def log_extra(self) -> dict[str, str]:
        """The fields a log line about the tournament carries."""
        return {"tournament": self.tournament_id}

    def log_scope(self) -> contextlib.AbstractContextManager[None]:
        return contextlib.nullcontext()
