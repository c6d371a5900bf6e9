"""Pair statistics folded from the tables' event logs: who sat with whom, and how they played each other.

Pure (no database, no engine import: it must keep up with a log of millions of events): feed it the events
of table streams (``tables/{table}``), each stream's in version order, streams in any order, and ``tally``
holds, per pair of players dealt into the same hands:

- hands together, and the chips that moved from one to the other (each hand's losses shared among its
  winners in proportion to what each won), at showdown or not;
- each player's responses to the other's bet, raise or completion: folds, and folds while showing the better
  up cards (RULES.md §4's ranking of boards: the engine's ``native.board_rank_*``);
- betting rounds the two played heads-up, and how many of those nobody bet in;
- raise wars: a round in which one raised over the other's bet or raise after a third player had called in
  between (caught in between, paying twice);
- how long each took to act facing the other's bet (``at_ms`` since the previous action or the round's
  start; timeouts left out).

Only events in the clear are read: face-up cards, actions, pots and awards. A face-down card (sealed at rest,
``CardDealt.face_up`` false) and the deck are never read, so nothing here depends on a hidden card. A hand
that had not ended when the log was read counts its actions, not its chips.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable
from typing import Any

from stud_service import native
from stud_service.engine.events import started_game

TABLES = "tables/"
# The table events the fold reads; the rest (seats, seeds, face-down cards) tell nothing of how two played.
INTEGRITY_TYPES = (
    "HandStarted", "AntePosted", "CardDealt", "BettingRoundStarted", "PlayerActed", "UncalledBetReturned",
    "HandVoided", "HandEnded",
)
AGGRESSIVE = frozenset(("BET", "RAISE", "COMPLETE"))  # the bring-in is forced: nobody folds "to" it


def pair_key(a: str, b: str) -> tuple[str, str]:
    return (a, b) if a < b else (b, a)


class Moments:
    """A count, sum and sum of squares (of think times, in ms): enough for a mean and its spread."""

    __slots__ = ("n", "total", "squares")

    def __init__(self) -> None:
        self.n = 0
        self.total = 0.0
        self.squares = 0.0

    def add(self, value: float) -> None:
        self.n += 1
        self.total += value
        self.squares += value * value

    def minus(self, other: Moments) -> Moments:
        rest = Moments()
        rest.n, rest.total = self.n - other.n, self.total - other.total
        rest.squares = self.squares - other.squares
        return rest

    @property
    def mean(self) -> float | None:
        return self.total / self.n if self.n else None

    @property
    def variance(self) -> float:
        if self.n < 2:
            return 0.0
        return max(0.0, (self.squares - self.total * self.total / self.n) / (self.n - 1))


class Facing:
    """One player's responses to another's bets (``actor`` facing ``bettor``), or to everyone's."""

    __slots__ = ("faced", "folds", "faced_better", "folds_better", "think")

    def __init__(self) -> None:
        self.faced = 0  # responses to the bettor's bet, raise or completion
        self.folds = 0
        self.faced_better = 0  # ... while the responder's up cards beat the bettor's
        self.folds_better = 0
        self.think = Moments()


class PairTally:
    """What two players did together; ``a`` < ``b``, and ``flow`` is from ``a`` to ``b``."""

    __slots__ = ("a", "b", "hands", "flow", "flow_squares", "a_to_b", "b_to_a", "showdown_flow",
                 "heads_up_rounds", "heads_up_checked", "raise_wars", "three_way_rounds", "a_facing_b",
                 "b_facing_a")

    def __init__(self, a: str, b: str) -> None:
        self.a, self.b = a, b
        self.hands = 0
        self.flow = 0.0  # net chips from a to b over the hands (a's losses to b less b's to a)
        self.flow_squares = 0.0  # the sum of each hand's net flow squared: its spread under chance
        self.a_to_b = 0.0
        self.b_to_a = 0.0
        self.showdown_flow = 0.0  # the part of ``flow`` moved in hands that ended with cards shown
        self.heads_up_rounds = 0
        self.heads_up_checked = 0  # heads-up rounds with no bet, raise or completion
        self.raise_wars = 0
        self.three_way_rounds = 0  # rounds the two began with at least one other player in the hand
        self.a_facing_b = Facing()
        self.b_facing_a = Facing()

    def facing(self, actor: str) -> Facing:
        return self.a_facing_b if actor == self.a else self.b_facing_a


class PlayerTally:
    __slots__ = ("player_id", "hands", "net", "facing", "faced_by")

    def __init__(self, player_id: str) -> None:
        self.player_id = player_id
        self.hands = 0
        self.net = 0  # chips won less chips put in, over the hands read
        self.facing = Facing()  # this player facing anyone's bet
        self.faced_by = Facing()  # anyone facing this player's bets


class Tally:
    """Everything the fold has counted (``IntegrityFold.tally``)."""

    def __init__(self) -> None:
        self.pairs: dict[tuple[str, str], PairTally] = {}
        self.players: dict[str, PlayerTally] = {}
        self.events_read = 0
        self.hands = 0
        self.tables: set[str] = set()
        # Counted by the whole group and spread over its pairs once, in ``finish``: a hand of eight players
        # makes 28 pairs, and the same groups come back hand after hand.
        self.dealt: Counter[tuple[str, ...]] = Counter()
        self.three_way: Counter[tuple[str, ...]] = Counter()
        self.finished = False

    def pair(self, a: str, b: str) -> PairTally:
        key = pair_key(a, b)
        tally = self.pairs.get(key)
        if tally is None:
            tally = self.pairs[key] = PairTally(*key)
        return tally

    def player(self, player_id: str) -> PlayerTally:
        tally = self.players.get(player_id)
        if tally is None:
            tally = self.players[player_id] = PlayerTally(player_id)
        return tally

    def finish(self) -> Tally:
        if self.finished:
            return self
        for group, count in self.dealt.items():
            for index, a in enumerate(group):
                self.player(a).hands += count
                for b in group[index + 1:]:
                    self.pair(a, b).hands += count
        for group, count in self.three_way.items():
            for index, a in enumerate(group):
                for b in group[index + 1:]:
                    self.pair(a, b).three_way_rounds += count
        self.dealt.clear()
        self.three_way.clear()
        self.finished = True
        return self


class _TableHands:
    """One table's hands, event by event."""

    def __init__(self, table_id: str, tally: Tally) -> None:
        self.table_id = table_id
        self.tally = tally
        self.hand: int | None = None
        self.players: dict[int, str] = {}
        self.put: dict[int, int] = {}
        self.up: dict[int, list[int]] = {}
        self.board_ranks: dict[int, int] = {}
        self.live: set[int] = set()
        self.razz = False
        self.last_ms = 0
        self.aggressor: int | None = None
        self.callers: list[int] = []  # seats that called since the last bet or raise, this round
        self.round_pair: tuple[str, str] | None = None  # the two players of a heads-up round
        self.round_bet = False
        self.wars: set[tuple[str, str]] = set()

    def add(self, version: int, payload: dict[str, Any]) -> None:
        kind = payload["type"]
        if kind == "PlayerActed":
            if payload["hand"] == self.hand:
                self.acted(payload)
        elif kind == "CardDealt":
            seat = payload["seat"]
            if payload["face_up"] and seat is not None and payload["hand"] == self.hand:
                self.up[seat].append(payload["card"])
                self.board_ranks.pop(seat, None)
        elif kind == "AntePosted":
            if payload["hand"] == self.hand:
                self.put[payload["seat"]] += payload["amount"]
        elif kind == "BettingRoundStarted":
            if payload["hand"] == self.hand:
                self.round_started(payload["at_ms"])
        elif kind == "UncalledBetReturned":
            if payload["hand"] == self.hand:
                self.put[payload["seat"]] -= payload["amount"]
        elif kind == "HandVoided":  # RULES.md §12: every chip went back; nobody won or lost any
            if payload["hand"] == self.hand:
                for seat, amount in payload["returned"]:
                    self.put[seat] -= amount
        elif kind == "HandStarted":
            self.started(payload)
        elif kind == "HandEnded" and payload["hand"] == self.hand:
            self.ended(payload)

    def started(self, payload: dict[str, Any]) -> None:
        self.hand = payload["hand"]
        self.players = {seat: player for seat, player, _stack in payload["seats"]}
        self.put = dict.fromkeys(self.players, 0)
        self.up = {seat: [] for seat in self.players}
        self.board_ranks = {}
        self.live = set(self.players)
        self.razz = started_game(payload) == "RAZZ"  # the hand's game (RULES.md §13)
        self.last_ms = payload["at_ms"]
        self.aggressor, self.callers, self.round_pair, self.round_bet = None, [], None, False
        self.wars = set()
        self.tally.hands += 1
        self.tally.dealt[tuple(sorted(self.players.values()))] += 1

    def board(self, seat: int) -> int:
        rank = self.board_ranks.get(seat)
        if rank is None:
            cards = self.up[seat]
            if not cards:
                rank = -1
            else:
                rank = (native.board_rank_razz if self.razz else native.board_rank_high)(cards[:4])
            self.board_ranks[seat] = rank
        return rank

    def close_round(self) -> None:
        tally = self.tally
        if self.round_pair is not None:
            pair = tally.pair(*self.round_pair)
            pair.heads_up_rounds += 1
            if not self.round_bet:
                pair.heads_up_checked += 1
        for key in self.wars:
            tally.pair(*key).raise_wars += 1
        self.wars = set()

    def round_started(self, at_ms: int) -> None:
        self.close_round()
        self.last_ms = at_ms
        self.aggressor, self.callers, self.round_bet = None, [], False
        live = [self.players[seat] for seat in self.live]
        self.round_pair = pair_key(*live) if len(live) == 2 else None
        if len(live) >= 3:
            self.tally.three_way[tuple(sorted(live))] += 1

    def acted(self, payload: dict[str, Any]) -> None:
        seat = payload["seat"]
        action = payload["action"]
        at_ms = payload["at_ms"]
        self.put[seat] += payload["chips"]
        think = at_ms - self.last_ms
        self.last_ms = at_ms
        bettor = self.aggressor
        if bettor is not None and bettor != seat and bettor in self.players:
            actor, other = self.players[seat], self.players[bettor]
            mine = self.tally.pair(actor, other).facing(actor)
            everyone = self.tally.player(actor).facing
            bettors = self.tally.player(other).faced_by
            better = self.board(seat) > self.board(bettor)
            folded = action == "FOLD"
            for facing in (mine, everyone, bettors):
                facing.faced += 1
                if folded:
                    facing.folds += 1
                if better:
                    facing.faced_better += 1
                    if folded:
                        facing.folds_better += 1
                if not payload.get("timeout"):
                    facing.think.add(think)
        if action == "FOLD":
            self.live.discard(seat)
        elif action in AGGRESSIVE:
            self.round_bet = True
            if bettor is not None and bettor != seat:
                caught = any(c != seat and c != bettor and c in self.live for c in self.callers)
                if caught:
                    self.wars.add(pair_key(self.players[seat], self.players[bettor]))
            self.aggressor, self.callers = seat, []
        elif action == "CALL" and bettor is not None:
            self.callers.append(seat)

    def ended(self, payload: dict[str, Any]) -> None:
        self.close_round()
        won = dict.fromkeys(self.players, 0)
        for pot in payload["pots"]:
            for award in pot["awards"]:
                won[award["seat"]] += award["amount"]
        tally = self.tally
        net = {seat: won[seat] - self.put[seat] for seat in self.players}
        for seat, result in net.items():
            tally.player(self.players[seat]).net += result
        winnings = sum(result for result in net.values() if result > 0)
        if winnings:
            showdown = bool(payload["shown"])
            winners = [(self.players[s], result) for s, result in net.items() if result > 0]
            for seat, result in net.items():
                if result >= 0:
                    continue
                loser = self.players[seat]
                for winner, amount in winners:
                    moved = -result * amount / winnings
                    pair = tally.pair(loser, winner)
                    signed = moved if loser == pair.a else -moved
                    pair.flow += signed
                    pair.flow_squares += moved * moved
                    if loser == pair.a:
                        pair.a_to_b += moved
                    else:
                        pair.b_to_a += moved
                    if showdown:
                        pair.showdown_flow += signed
        self.hand = None


class IntegrityFold:
    """Feed table streams' events (each stream in version order), then read ``tally.finish()``."""

    def __init__(self) -> None:
        self.tally = Tally()
        self.tables: dict[str, _TableHands] = {}
        self.malformed: list[tuple[str, int, str]] = []  # (stream, version, why): skipped, reported

    def feed(self, rows: Iterable[tuple[str, int, dict[str, Any]]]) -> None:
        """``(stream_id, version, payload)`` rows, grouped by stream."""
        current, table, read = None, None, 0
        for stream_id, version, payload in rows:
            read += 1
            if stream_id != current:
                current = stream_id
                table = None
                if stream_id.startswith(TABLES):
                    table = self.tables.get(stream_id)
                    if table is None:
                        table = self.tables[stream_id] = _TableHands(stream_id[len(TABLES):], self.tally)
                        self.tally.tables.add(stream_id)
            if table is not None:
                try:
                    table.add(version, payload)
                except (AttributeError, KeyError, TypeError, ValueError, IndexError) as error:
                    # A payload of an unexpected shape: the hand is dropped, the rest of the log still read.
                    self.malformed.append((stream_id, version, f"{payload.get('type')!r}: {error!r}"))
                    table.hand = None
        self.tally.events_read += read


def fold_rows(rows: Iterable[tuple[str, int, dict[str, Any]]]) -> Tally:
    """The tally of ``(stream_id, version, payload)`` rows, grouped by stream, each in version order."""
    fold = IntegrityFold()
    fold.feed(rows)
    return fold.tally.finish()
