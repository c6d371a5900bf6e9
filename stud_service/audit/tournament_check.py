"""Check a tournament's events against the rules, without a database: every event is what the command
it came from implies, every draw is the one its committed seed gives, every hand report is the table's.

``check_tournament(items, hands)`` walks the stream ``(version, payload)`` by command: it infers each
command from the first event it caused (a ``TableHandEnded`` comes from ``EndTableHand`` with that
report, a ``PlayerRegistered`` from ``Register``, ...; the draw it commits is the stream's next
``DrawCommitted``), decides it with the pure ``decide`` on the state folded so far, and compares the events
decided with the ones logged.  Because ``decide`` draws seats, moves, broken tables' players and shared
places' odd units from the seed each ``DrawRevealed`` reveals, the comparison recomputes every draw
(docs/tournaments.md, "Draws an auditor verifies").  On its own it checks that each revealed seed opens
the commitment logged before it; and, from the tables' own streams (``hands``: each hand's HandRecord by
(table, hand), None when the table lacks it), that each hand was dealt at its level to the players the
tournament seated there with their chips, and that each ``TableHandEnded`` reports the chips of the
table's hand (``hand_chips``).  Then the arithmetic: chips conserved after every hand, places a
permutation of 1..players (shared places as ranges), prizes and payouts adding up to the pool.

A draw's ``secret`` may be sealed at rest (``null`` with a ``sealed`` member when read without keys): the
check needs only the revealed seeds, so it ignores the secret but where it holds a seed, which must then
be the one revealed.  The replay stops at its first mismatch: what follows would only repeat it.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from stud_service.audit.records import HandRecord, stream_id_for
from stud_service.audit.tournament_log import TOURNAMENT_PREFIX, tournament_stream_id
from stud_service.engine.codec import EventDecodeError
from stud_service.shuffle import commitment
from stud_service.tournaments import (
    AdvanceLevel,
    CancelTournament,
    CreateTournament,
    DealTableHand,
    EndTableHand,
    NextDraw,
    ReEnter,
    Register,
    StartTournament,
    Status,
    TournamentError,
    Unregister,
    decide,
    event_from_json,
    event_to_json,
    initial_state,
)
from stud_service.tournaments.draws import draw_secret, opens, seed_of
from stud_service.tournaments.events import DrawCommitted
from stud_service.tournaments.evolve import apply_in_place
from stud_service.tournaments.rules.levels import level_number
from stud_service.tournaments.state import entries_total

CHECKS = ("chain", "draws", "replay", "hands", "chips", "places", "prizes")
# A stand-in for a draw whose seed the log does not show (the last one committed, never revealed, its
# secret sealed): it lets decide run; the comparison then takes the logged commitment as given.
_STAND_IN_SEED = bytes(32)


@dataclass(frozen=True)
class TournamentProblem:
    check: str
    stream: str
    version: int | None
    message: str

    def __str__(self) -> str:
        where = f"{self.stream} version {self.version}" if self.version is not None else self.stream
        return f"{self.check} check failed at {where}: {self.message}"


def readable(payload: Mapping[str, Any]) -> dict[str, Any]:
    """The payload as the codec reads it: a draw's sealed secret read without keys is left out."""
    data = {key: value for key, value in payload.items() if key != "sealed"}
    if data.get("type") == "DrawCommitted" and not isinstance(data.get("secret"), dict):
        data["secret"] = {}
    return data


def _compared(payload: Mapping[str, Any]) -> dict[str, Any]:
    """What the comparison looks at: everything but a draw's secret (sealed at rest, checked apart)."""
    return {key: value for key, value in readable(payload).items() if key != "secret"}


def _fields(payload: Mapping[str, Any]) -> str:
    return ", ".join(f"{key}={value}" for key, value in payload.items() if key not in ("type", "v"))


def _difference(expected: Mapping[str, Any], found: Mapping[str, Any]) -> str:
    if expected.get("type") != found.get("type"):
        found_text = f"{found.get('type')}({_fields(found)})"
        return f"expected {expected['type']}({_fields(expected)}), found {found_text}"
    keys = [key for key in expected if expected.get(key) != found.get(key)]
    keys += [key for key in found if key not in expected]
    return f"{expected['type']}: " + "; ".join(
        f"{key} expected {expected.get(key)!r}, found {found.get(key)!r}" for key in keys)


class _Walk:
    def __init__(self, tournament_id: str, items: Sequence[tuple[int, dict[str, Any]]],
                 hands: Mapping[tuple[str, int], HandRecord | None]) -> None:
        self.stream = tournament_stream_id(tournament_id)
        self.items = items
        self.hands = hands
        self.problems: list[TournamentProblem] = []
        self.commitments: dict[int, tuple[int, dict[str, Any]]] = {}
        self.seeds: dict[int, bytes] = {}
        self.state = initial_state()

    def problem(self, check: str, version: int | None, message: str, stream: str | None = None) -> None:
        self.problems.append(TournamentProblem(check, stream or self.stream, version, message))

    # -- the draws --------------------------------------------------------------------------------------

    def check_draws(self) -> None:
        """Each revealed seed opens the commitment logged before it; a secret logged in the clear holds
        the seed revealed."""
        for version, payload in self.items:
            kind = payload.get("type")
            if kind == "DrawCommitted":
                self.commitments.setdefault(int(payload.get("draw", 0)), (version, payload))
            elif kind == "DrawRevealed":
                self._revealed(version, payload)
        for draw, (version, payload) in self.commitments.items():
            held = seed_of(payload.get("secret"))
            if held is None:
                continue
            if draw in self.seeds and held != self.seeds[draw]:
                self.problem("draws", version, f"draw {draw}'s secret is not the seed revealed for it")
            elif not opens(held, str(payload.get("commitment", ""))):
                self.problem("draws", version, f"draw {draw}'s secret does not open its commitment")
            else:
                self.seeds.setdefault(draw, held)

    def _revealed(self, version: int, payload: Mapping[str, Any]) -> None:
        draw = int(payload.get("draw", 0))
        committed = self.commitments.get(draw)
        if committed is None:
            self.problem("draws", version, f"draw {draw} is revealed but was never committed before")
            return
        try:
            seed = bytes.fromhex(str(payload.get("seed", "")))
        except ValueError:
            self.problem("draws", version, f"draw {draw}'s revealed seed is not hex")
            return
        commitment = str(committed[1].get("commitment", ""))
        if not opens(seed, commitment):
            self.problem("draws", version, f"draw {draw}'s revealed seed {seed.hex()[:16]}... does not open "
                                           f"its commitment {commitment[:16]}... (version {committed[0]})")
            return
        self.seeds[draw] = seed

    def next_draw(self, draw: int) -> NextDraw:
        """The NextDraw a command brought for ``draw``: its logged commitment with the seed revealed for
        it, or a stand-in when the log shows no seed (the comparison then takes the commitment logged)."""
        committed = self.commitments.get(draw)
        seed = self.seeds.get(draw)
        if committed is not None and seed is not None:
            return NextDraw(str(committed[1]["commitment"]), draw_secret(seed))
        return NextDraw(commitment(_STAND_IN_SEED), draw_secret(_STAND_IN_SEED))

    # -- the replay -------------------------------------------------------------------------------------

    def command_at(self, index: int) -> Any:
        """The command whose first event is the one at ``index`` (None: no command begins with it)."""
        payload = self.items[index][1]
        kind, at = payload.get("type"), payload.get("at_ms", 0)
        following = self.items[index + 1][1] if index + 1 < len(self.items) else {}
        upcoming = self.state.draw + 1

        def next_draw() -> NextDraw:
            return self.next_draw(upcoming)

        if kind == "TournamentCreated":
            return CreateTournament(payload["tournament_id"], event_from_json(readable(payload)).config,
                                    self.next_draw(1), at, str(payload.get("by", "")))
        if kind == "PlayerRegistered":
            return Register(payload["player_id"], at, next_draw())
        if kind == "PlayerUnregistered":
            return Unregister(payload["player_id"], at)
        if kind == "PlayerReEntered":
            return ReEnter(payload["player_id"], at, next_draw())
        if kind == "TournamentStarted" or (kind == "TournamentCancelled" and payload.get("by") == ""):
            return StartTournament(at, next_draw())
        if kind == "TournamentCancelled":
            return CancelTournament(payload["by"], payload["reason"], at)
        if kind == "DrawRevealed" and following.get("type") == "TournamentCancelled" and following.get("by"):
            return CancelTournament(following["by"], following["reason"], at)
        if kind in ("LevelStarted", "BreakStarted"):
            return AdvanceLevel(at, next_draw())
        if kind == "TableHandDealt":
            return DealTableHand(payload["table_id"], payload["hand"], at)
        if kind == "TableHandEnded":
            chips = tuple(tuple(row) for row in payload["chips"])
            return EndTableHand(payload["table_id"], payload["hand"], chips, at, next_draw())
        return None

    def replay(self) -> bool:
        """Decide each command again and compare; False at the first mismatch (reported)."""
        index = 0
        items = self.items
        while index < len(items):
            version, payload = items[index]
            try:
                command = self.command_at(index)
            except (EventDecodeError, KeyError, TypeError, ValueError) as error:
                self.problem("replay", version, f"{payload.get('type')} is malformed: {error}")
                return False
            if command is None:
                self.problem("replay", version, f"{payload.get('type')} begins no command: no command of the "
                                                "rules causes it without the events before it")
                return False
            try:
                expected = [event_to_json(event) for event in decide(self.state, command)]
            except TournamentError as error:
                name = type(command).__name__
                self.problem("replay", version, f"{name} (implied by {payload.get('type')}) is refused by "
                                                f"the rules: {error}")
                return False
            if not self._compare(index, expected, type(command).__name__):
                return False
            for offset in range(len(expected)):
                self._fold(*items[index + offset])
            index += len(expected)
        return True

    def _compare(self, index: int, expected: list[dict[str, Any]], command: str) -> bool:
        items = self.items
        revealed: int | None = None
        for offset, wanted in enumerate(expected):
            if wanted["type"] == "DrawRevealed":
                revealed = wanted["draw"]
            if wanted["type"] == "DrawCommitted":
                committed = self.commitments.get(wanted["draw"])
                if committed is not None:  # the commitment is the command's input: logged as it came
                    wanted["commitment"] = committed[1].get("commitment")
            if index + offset >= len(items):
                last = items[-1][0]
                self.problem("replay", last, f"the log ends before the {command} it holds is over: "
                                             f"expected {wanted['type']}({_fields(_compared(wanted))}) next")
                return False
            version, found = items[index + offset]
            if _compared(wanted) != _compared(found):
                seed = f" with draw {revealed}'s revealed seed" if revealed is not None else ""
                self.problem("replay", version, f"not what {command}{seed} implies: "
                                                f"{_difference(_compared(wanted), _compared(found))}")
                return False
        return True

    def _fold(self, version: int, payload: dict[str, Any]) -> None:
        """Apply a logged event (a draw's secret: the seed revealed for it), then check it against the
        tables' streams and the chips."""
        event = event_from_json(readable(payload))
        if isinstance(event, DrawCommitted) and event.draw in self.seeds:
            secret = draw_secret(self.seeds[event.draw])
            event = DrawCommitted(event.draw, event.commitment, secret, event.at_ms)
        kind = payload["type"]
        if kind == "TableHandDealt":
            self._hand_dealt(version, payload)
        apply_in_place(self.state, event)
        if kind == "TableHandEnded":
            self._hand_ended(version, payload)
            self._chips_conserved(version)

    # -- the tables' hands ------------------------------------------------------------------------------

    def _hand(self, version: int, table_id: str, hand: int, ended: bool) -> HandRecord | None:
        """The table's hand, which must have ended if the tournament says it did."""
        record = self.hands.get((table_id, hand))
        if record is None or (ended and not record.complete):
            state = "never ended" if record is not None else "is not in it"
            self.problem("hands", version, f"hand {hand} of tables/{table_id} {state}")
            return None
        return record

    def _hand_dealt(self, version: int, payload: Mapping[str, Any]) -> None:
        """The table dealt the hand at the level the tournament dealt it at, to the players it seated
        there, with their chips."""
        table_id, hand = str(payload["table_id"]), int(payload["hand"])
        record = self._hand(version, table_id, hand, ended=False)
        if record is None:
            return
        state = self.state
        assert state.config is not None
        level = state.config.levels[int(payload["index"])]
        config = record.started.get("config", {})
        where = stream_id_for(table_id)
        started = record.first_version
        wanted = {"tournament_id": state.tournament_id, "ante": level.ante, "bring_in": level.bring_in,
                  "small_bet": level.small_bet, "big_bet": level.big_bet,
                  "tournament_level": level_number(state.config.levels, int(payload["index"]))}
        wrong = [f"{key} {config.get(key)!r}, the tournament's {value!r}" for key, value in wanted.items()
                 if config.get(key) != value]
        if wrong:
            self.problem("hands", started, f"hand {hand} was dealt with " + "; ".join(wrong), where)
        seated = sorted((seat, player, state.chips.get(player)) for seat, player in
                        state.tables.get(table_id, {}).items())
        if sorted(tuple(row) for row in record.started["seats"]) != seated:
            self.problem("hands", started, f"hand {hand} was dealt to {record.started['seats']}, the "
                                           f"tournament seated {seated} there", where)

    def _hand_ended(self, version: int, payload: Mapping[str, Any]) -> None:
        """The report is the chips of the table's hand."""
        table_id, hand = str(payload["table_id"]), int(payload["hand"])
        record = self.hands.get((table_id, hand))
        if record is None:
            return  # reported when it was dealt
        if self._hand(version, table_id, hand, ended=True) is None:
            return
        try:
            table = _table_report(record)
        except (KeyError, TypeError, ValueError) as error:
            self.problem("hands", record.first_version, f"hand {hand} cannot be read: {error!r}",
                         stream_id_for(table_id))
            return
        reported = [list(row) for row in payload["chips"]]
        if reported != table:
            self.problem("hands", version, f"TableHandEnded reports {reported} for hand {hand} of "
                                           f"{table_id}, the table's hand gives {table}")

    # -- the arithmetic ---------------------------------------------------------------------------------

    def _chips_conserved(self, version: int) -> None:
        state = self.state
        assert state.config is not None
        entered = entries_total(state) * state.config.starting_stack
        held = sum(state.chips[player] for player in state.seat_of)
        if held != entered:
            self.problem("chips", version, f"the players still in hold {held} chips, the "
                                           f"{entries_total(state)} entries brought {entered}")

    def check_places(self) -> None:
        state = self.state
        last = self.items[-1][0]
        groups: dict[tuple[int, int], list[str]] = {}
        for player, (place, last_place) in state.places.items():
            groups.setdefault((place, last_place), []).append(player)
        expected_place = len(state.registered)
        for (place, last_place), players in sorted(groups.items(), reverse=True):
            if last_place != expected_place or last_place - place + 1 != len(players):
                who = ", ".join(sorted(players))
                self.problem("places", last, f"place {place}-{last_place} ({who}) does not follow on: the "
                                             f"next place down was {expected_place}")
                return
            expected_place = place - 1
        if state.status is Status.FINISHED and expected_place != 0:
            self.problem("places", last, f"the places stop at {expected_place + 1}: they are not 1.."
                                         f"{len(state.registered)}")

    def check_prizes(self) -> None:
        state = self.state
        assert state.config is not None
        last = self.items[-1][0]
        if state.status is Status.CANCELLED and not state.places and not state.cancel_payouts:
            return  # cancelled before the start: the refunds were decided again with the rest
        pool = entries_total(state) * state.config.buy_in
        if state.prizes is not None and state.pool != pool:
            self.problem("prizes", last, f"the pool is {state.pool}, {entries_total(state)} buy-ins of "
                                         f"{state.config.buy_in} make {pool}")
        paid = sum(state.prizes_won.values()) + sum(state.cancel_payouts.values())
        if state.status in (Status.FINISHED, Status.CANCELLED) and paid != pool:
            self.problem("prizes", last, f"prizes and payouts add up to {paid}, the pool is {pool}")


def _table_report(record: HandRecord) -> list[list[Any]]:
    """What ``hand_chips`` makes of the hand, from its JSON: the HandStarted's seats and the HandEnded's
    stacks are never sealed, so this needs no keys (unlike decoding the hand)."""
    ended = record.ended
    assert ended is not None
    stacks = {int(seat): int(stack) for seat, stack in ended["stacks"]}
    seats = record.started["seats"]
    return sorted([str(player), int(stack), stacks[int(seat)]] for seat, player, stack in seats)


def check_tournament(tournament_id: str, items: Sequence[tuple[int, dict[str, Any]]],
                     hands: Mapping[tuple[str, int], HandRecord | None]) -> list[TournamentProblem]:
    """Every problem found in the tournament's stream ``items`` and its ``hands`` (see the module)."""
    if not items:
        return [TournamentProblem("replay", tournament_stream_id(tournament_id), None, "no events")]
    walk = _Walk(tournament_id, items, hands)
    walk.check_draws()
    if walk.replay() and walk.state.config is not None:
        walk.check_places()
        walk.check_prizes()
    return walk.problems


def first_problem(problems: Sequence[TournamentProblem]) -> TournamentProblem | None:
    """The first problem: the tournament's stream's before its tables', then by version and check."""
    if not problems:
        return None
    return min(problems, key=lambda p: (not p.stream.startswith(TOURNAMENT_PREFIX), p.version is None,
                                        p.version or 0, CHECKS.index(p.check)))
