"""Re-deciding a hand from its log: every action legal, every consequence the engine's own.

A hand is replayed from its ``HandStarted`` alone (it carries the table's config and the players with
their stacks).  Each player decision in the log becomes the command that must have caused it
(``PlayerActed`` -> ``Act`` or, with ``timeout``, ``Timeout``; ``TimeBankStarted`` -> ``Timeout``;
``LeaveRequested`` -> ``Leave``; a seat's own requests -> ``SitOut``/``SitIn``/``SetClientSeed``;
``HandVoided`` -> the operator's ``VoidHand`` or, ``automatic``, ``VoidInterruptedHand``); ``decide`` must
accept it and return exactly the events recorded after it.  An operator's pausing or closing the table
during the hand is applied as it comes (a closed table's players leave when the hand ends, RULES.md §12).
Everything the dealer does (cards, rounds, showdown, pots, the result) is therefore recomputed, never
trusted, and so is the time bank (§7), from the reserves the hand's ``TimeBanksAtStart`` says it started
with.  Table events about seats not dealt into the hand (and the waiting list's, and the table chat) are not
the hand's business and are skipped.
"""

from __future__ import annotations

from collections.abc import Collection, Sequence
from dataclasses import dataclass
from typing import Any

from stud_service.engine import (
    Act,
    ActionKind,
    DomainError,
    EventDecodeError,
    HandStarted,
    InvalidEvent,
    Leave,
    SetClientSeed,
    SitIn,
    SitOut,
    StartHand,
    TableState,
    Timeout,
    VoidHand,
    VoidInterruptedHand,
    chips_in_play,
    decide,
    event_from_json,
    event_to_json,
    initial_state,
)
from stud_service.engine.events import CHAT_EVENTS, hand_game
from stud_service.engine.evolve import apply_in_place
from stud_service.engine.rules.rotation import counted_before
from stud_service.engine.state import SeatState
from stud_service.engine.time_bank import banks_before_hand
from stud_service.store import canonical_json

AMOUNT_ACTIONS = frozenset({ActionKind.BRING_IN, ActionKind.COMPLETE, ActionKind.BET, ActionKind.RAISE})
_SEAT_REQUESTS = frozenset(
    {"PlayerSatOut", "PlayerSatIn", "ClientSeedSet", "PlayerToppedUp", "PlayerSeated", "PlayerLeft"}
)
# Table events no decision inside the hand causes: the dealer's commitment to the next hand's seed, and the
# waiting list's comings and goings (no seat of the hand changes with them), and the table chat
# (docs/chat.md), which changes nothing in the hand.
_TABLE_EVENTS = frozenset({"ShuffleCommitted", "WaitingListJoined", "WaitingListLeft", "SeatOffered"}) \
    | CHAT_EVENTS
# An operator's commands about the table, applied to the replay as they come (RULES.md §12).
_CONTROL_EVENTS = frozenset({"TablePaused", "TableResumed", "TableClosed"})


@dataclass(frozen=True)
class ReplayProblem:
    version: int
    check: str  # "replay" (a consequence differs), "legality" (decide refused) or "chips"
    message: str


def state_before_hand(started: HandStarted, sitting_out: Collection[int] = ()) -> TableState:
    """The table as the hand found it, as far as the hand can tell: its config and the players dealt in;
    ``sitting_out``: the seats among them that sat out (at a tournament table they are dealt in and act at
    once by the timeout rule, RULES.md §11; the table's events before the hand say who they are)."""
    state = initial_state()
    state.table_id = started.table_id
    state.config = started.config
    state.seats = {seat: SeatState(player, stack, sitting_out=seat in sitting_out)
                   for seat, player, stack in started.seats}
    state.hand_number = started.hand - 1
    # RULES.md §13: where a mixed table stood in its rotation, so the hand is dealt in its game again and its
    # end says, as it did, whether its game is over
    state.rotation_hands = counted_before(started.config, hand_game(started), started.game_hand)
    return state


def _command_for(event: Any, payload: dict[str, Any], state: TableState) -> Any | None:
    kind = payload["type"]
    if kind == "TimeBankStarted":  # §7: the owner's clock found the action clock run out
        return Timeout(now_ms=event.at_ms)
    if kind == "PlayerActed":
        if event.timeout:
            return Timeout(now_ms=event.at_ms)
        if event.seat not in state.seats:
            return None
        player = state.seats[event.seat].player_id
        amount = event.amount if event.action in AMOUNT_ACTIONS else None
        return Act(player, event.action, amount, now_ms=event.at_ms)
    if kind == "LeaveRequested":
        return Leave(event.player_id, now_ms=event.at_ms)
    if kind == "PlayerSatOut" and event.reason == "request":
        return SitOut(event.player_id, now_ms=event.at_ms)
    if kind == "PlayerSatIn":
        return SitIn(event.player_id, now_ms=event.at_ms)
    if kind == "ClientSeedSet":
        return SetClientSeed(event.player_id, event.seed, now_ms=event.at_ms)
    if kind == "HandVoided":
        if event.automatic:
            return VoidInterruptedHand(now_ms=event.at_ms)
        return VoidHand(event.hand, event.operator, event.reason, now_ms=event.at_ms)
    return None


def _as_logged(recorded: dict[str, Any], expected: dict[str, Any]) -> dict[str, Any]:
    """``expected`` (a HandEnded of today's shape) in the shape of an older ``recorded`` one: v2 was
    logged before the rake (no ``rake``, ``rake_shares`` nor pot ``"rake"``), v1 before the server seed
    was revealed too.  Only a hand without rake had that shape, so a rake the replay finds still shows."""
    version = recorded.get("v")
    if not isinstance(version, int) or version >= 3:
        return expected
    older = {k: v for k, v in expected.items() if k not in ("rake", "rake_shares")}
    older["v"] = version
    if expected.get("rake"):
        older["rake"] = expected["rake"]  # a difference the comparison must report
    older["pots"] = [{k: v for k, v in pot.items() if k != "rake" or v} for pot in expected["pots"]]
    if version == 1:
        older.pop("server_seed", None)
    return older


def _same(recorded: dict[str, Any], expected: dict[str, Any]) -> bool:
    if recorded.get("type") == "HandEnded":
        expected = _as_logged(recorded, expected)
    return canonical_json(recorded) == canonical_json(expected)


def _describe(payload: dict[str, Any]) -> str:
    text = canonical_json(payload).decode()
    return text if len(text) <= 160 else text[:157] + "..."


def replay_hand(
    items: Sequence[tuple[int, dict[str, Any]]], hand: int, sitting_out: Collection[int] = ()
) -> ReplayProblem | None:
    """Re-decide the hand whose events (``(version, payload)`` from its HandStarted on) are ``items``;
    ``sitting_out``: the seats dealt in that sat out when it started (``state_before_hand``).

    None when every command is legal, every recorded event is what ``decide`` returns, and the chips
    on the table stay constant; otherwise the first problem, with the version where it shows.
    """
    if not items:
        return ReplayProblem(0, "replay", f"hand {hand} has no events")
    decoded: list[Any] = []
    for version, payload in items:
        try:
            decoded.append(event_from_json(payload))
        except EventDecodeError as error:
            return ReplayProblem(version, "replay", f"unreadable event: {error}")
    first_version, first_payload = items[0]
    started = decoded[0]
    if not isinstance(started, HandStarted) or started.hand != hand:
        return ReplayProblem(first_version, "replay", f"hand {hand} does not begin with its HandStarted")
    state = state_before_hand(started, sitting_out)
    if len(decoded) > 1:  # §7: the reserves the hand started with, which its TimeBanksAtStart says
        state.banks = banks_before_hand(decoded[1])
    total = chips_in_play(state)
    dealt_in = {seat for seat, _player, _stack in started.seats}
    command: Any = StartHand(started.deck, started.commitment, started.at_ms, started.extra)
    index = 0
    while True:
        version = items[index][0]
        try:
            produced = decide(state, command)
        except DomainError as error:
            return ReplayProblem(version, "legality", f"{error.reason}: {error.message}")
        ended = False
        for event in produced:
            expected = event_to_json(event)
            if index >= len(items):
                return ReplayProblem(
                    items[-1][0] + 1, "replay", f"event missing: the replay next gives {_describe(expected)}"
                )
            recorded_version, recorded = items[index]
            if not _same(recorded, expected):
                return ReplayProblem(
                    recorded_version,
                    "replay",
                    f"recorded {_describe(recorded)}; the replay gives {_describe(expected)}",
                )
            try:
                apply_in_place(state, event)
            except InvalidEvent as error:
                return ReplayProblem(recorded_version, "replay", str(error))
            if type(event).__name__ == "HandEnded":
                ended = True
                if sum(stack for _seat, stack in event.stacks) + event.rake != total:
                    return ReplayProblem(
                        recorded_version,
                        "chips",
                        "the stacks after the hand and the rake do not add up"
                        f" to the {total} chips the players started with",
                    )
            elif state.hand is not None and chips_in_play(state) != total:
                return ReplayProblem(
                    recorded_version, "chips", f"chips in play {chips_in_play(state)} instead of {total}"
                )
            index += 1
        if ended:
            break
        # Find the next event a player's decision caused; skip table events about other seats.
        command = None
        while index < len(items):
            version, payload = items[index]
            event = decoded[index]
            if payload.get("hand") not in (None, hand):
                return ReplayProblem(
                    version, "replay", f"an event of hand {payload.get('hand')} inside hand {hand}"
                )
            if payload["type"] in _TABLE_EVENTS or (
                payload["type"] in _SEAT_REQUESTS and getattr(event, "seat", None) not in dealt_in
            ):
                index += 1
                continue
            if payload["type"] in _CONTROL_EVENTS:
                apply_in_place(state, event)
                index += 1
                continue
            command = _command_for(event, payload, state)
            if command is None:
                return ReplayProblem(
                    version, "replay", f"{payload['type']} here follows from no player's decision"
                )
            break
        if command is None:
            return ReplayProblem(items[-1][0] + 1 if items else 0, "replay", f"hand {hand} never ended")
    for version, payload in items[index:]:
        if payload.get("hand") == hand:
            return ReplayProblem(version, "replay", "an event of the hand after its HandEnded")
    return None


def chips_ledger(payloads: Sequence[dict[str, Any]]) -> str | None:
    """An independent count over the recorded events: antes, bets and returns make the pots, each pot
    is paid out in full less the rake taken from it, the pots' rake is the hand's and its contributed
    shares add up to it, and each stack after the hand is start - put in + returned + won.
    None if it all adds up, else what does not."""
    started = payloads[0]
    stacks = {int(seat): int(stack) for seat, _player, stack in started["seats"]}
    put_in = dict.fromkeys(stacks, 0)
    won = dict.fromkeys(stacks, 0)
    for payload in payloads:
        kind = payload["type"]
        if kind == "AntePosted" or kind == "PlayerActed":
            amount = payload["amount"] if kind == "AntePosted" else payload["chips"]
            if amount < 0:
                return f"seat {payload['seat']} put in a negative amount"
            put_in[payload["seat"]] += amount
        elif kind == "UncalledBetReturned":
            put_in[payload["seat"]] -= payload["amount"]
        elif kind == "HandVoided":  # RULES.md §12: each seat gets back what it put in, all of it
            for seat, amount in payload["returned"]:
                if amount != put_in.get(seat):
                    return f"the void returns {amount} to seat {seat}, which put in {put_in.get(seat)}"
                put_in[seat] = 0
            if any(put_in.values()):
                return "the void leaves chips in the hand"
        elif kind == "HandEnded":
            pot_total = 0
            pot_rake = 0
            for pot in payload["pots"]:
                paid = sum(award["amount"] for award in pot["awards"])
                raked = pot.get("rake", 0)
                if raked < 0 or raked > pot["amount"]:
                    return f"pot {pot['pot']} of {pot['amount']} gave a rake of {raked}"
                if paid + raked != pot["amount"]:
                    return f"pot {pot['pot']} of {pot['amount']} paid out {paid} with a rake of {raked}"
                pot_total += pot["amount"]
                pot_rake += raked
                for award in pot["awards"]:
                    won[award["seat"]] += award["amount"]
            if pot_total != sum(put_in.values()):
                return f"the pots hold {pot_total} but {sum(put_in.values())} was put in"
            rake = payload.get("rake", 0)
            if pot_rake != rake:
                return f"the pots gave a rake of {pot_rake} but the hand records {rake}"
            shared = sum(share for _seat, share in payload.get("rake_shares", ()))
            if shared != rake:
                return f"the contributed rake shares add up to {shared}, not the rake of {rake}"
            for seat, stack in payload["stacks"]:
                expected = stacks[seat] - put_in[seat] + won[seat]
                if stack != expected:
                    return f"seat {seat} ends with {stack}, the events give {expected}"
            return None
    return "the hand has no HandEnded"
