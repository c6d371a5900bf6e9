"""The same-network seating rule at SitDown (Table.same_network_seating; docs/player-protection.md).

At a table with a rule, a SitDown is refused FAILED_PRECONDITION / SAME_NETWORK_AT_TABLE when the caller's
session (the connection the SitDown comes on: its address and device id) shares, with a session of a player
seated there, a device id (every rule), and under ADDRESS the address, under PREFIX the network (/24, /64).
A seated player's sessions compared are those still open and their newest (``sessions.current_sessions``):
a player whose connection dropped is still the player of that network. The seated player is never named.

The check reads the log, so it runs before the SitDown is decided; the players it checked travel with the
command, and a SitDown decided against a table where someone else sat down meanwhile is checked again
(:class:`SeatedMeanwhile`), so two players of one network sitting down at once on two replicas cannot both
pass. Without sessions on this replica (``--player-sessions off``) such a table refuses every SitDown
(PLAYER_SESSIONS_OFF): the rule cannot be checked.

A tournament with the rule (Tournament.same_network_seating) is checked the same way at RegisterTournament,
against the players registered (:func:`others_entered`); its own seating (the draw, moves) never is.
"""

from __future__ import annotations

from collections.abc import Iterable

import grpc

from stud_service.engine.config import SameNetworkRule
from stud_service.engine.state import TableState
from stud_service.server.api.errors import RequestError
from stud_service.server.api.sessions import Caller
from stud_service.sessions import PlayerSessions, SessionStart, same_address, same_network
from stud_service.sessions.networks import parse_address
from stud_service.sessions.reading import current_sessions
from stud_service.store import EventStore
from stud_service.tournaments import Status, TournamentState

# Checked again this many times when players keep sitting down while a SitDown is being checked.
CHECK_ATTEMPTS = 3



class SeatedMeanwhile(Exception):
    """Someone sat down at the table after the check read its players: check again."""


def others_seated(state: TableState, player: str) -> frozenset[str]:
    return frozenset(seat.player_id for seat in state.seats.values() if seat.player_id != player)


def still_checked(state: TableState, player: str, checked: frozenset[str]) -> None:
    """SeatedMeanwhile unless every player seated now (but ``player``) was among ``checked``."""
    if not others_seated(state, player) <= checked:
        raise SeatedMeanwhile


def others_entered(state: TournamentState, player: str) -> frozenset[str]:
    """The players a registration in a tournament is kept apart from: before the start every player
    registered, after it (late registration) those still in."""
    players = state.registered if state.status is Status.REGISTERING else state.seat_of
    return frozenset(other for other in players if other != player)


def still_entered(state: TournamentState, player: str, checked: frozenset[str]) -> None:
    """SeatedMeanwhile unless every player ``others_entered`` names now was among ``checked``."""
    if not others_entered(state, player) <= checked:
        raise SeatedMeanwhile


def shared(rule: SameNetworkRule, caller: Caller, session: SessionStart) -> str | None:
    """What ``caller``'s session shares with ``session`` under ``rule``: "device", "address", "network",
    or None."""
    if caller.device and caller.device == session.device:
        return "device"
    if rule is SameNetworkRule.DEVICE or caller.address is None:
        return None
    theirs = parse_address(session.address)
    if theirs is None:
        return None
    if same_address(caller.address, theirs):
        return "address"
    if rule is SameNetworkRule.PREFIX and same_network(caller.address, theirs):
        return "network"
    return None


async def check_seating(store: EventStore, sessions: PlayerSessions, rule: SameNetworkRule, caller: Caller,
                        seated: Iterable[str], where: str = "table") -> None:
    """Refuse (SAME_NETWORK_AT_TABLE, PLAYER_SESSIONS_OFF) a SitDown from ``caller`` next to ``seated`` (with
    ``where`` "tournament": a registration beside the players registered)."""
    if not sessions.enabled:
        raise RequestError(grpc.StatusCode.FAILED_PRECONDITION, "PLAYER_SESSIONS_OFF",
                           f"this {where} keeps players of one network apart, which needs player sessions;"
                           " this replica records none (--player-sessions off)")
    others = "a player seated at this table" if where == "table" else f"a player in this {where}"
    for sessions_of_player in (await current_sessions(store, list(seated))).values():
        for session in sessions_of_player:
            matched = shared(rule, caller, session)
            if matched is not None:
                raise RequestError(
                    grpc.StatusCode.FAILED_PRECONDITION, "SAME_NETWORK_AT_TABLE",
                    f"{others} shares your {matched}: this {where} keeps players of one household apart",
                    {"matched": matched})
