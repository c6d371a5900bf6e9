"""From the pair tally to a ranked list: each statistic as a z-score against what chance and the same
players' play against everyone else would give, combined into one score, with the reasons in words.

Each statistic only counts in its suspicious direction (a pair that fights harder than chance is not
suspect), and each is measured against a baseline from the same log:

- ``chip_flow``: the net chips one moved to the other over the spread of the per-hand flows (a sign test in
  chips: honest players' flows cancel out, a dump does not);
- ``soft_play``: how often one folded to the other's bet while showing the better up cards, against how often
  the same player folded with the better up cards to everyone else (two proportions);
- ``check_down``: heads-up betting rounds in which neither bet, against the share of all heads-up rounds in
  the log in which nobody bet;
- ``raise_wars``: rounds in which one raised over the other with a third player caught in between, against
  the log's rate per round that the two began with a third player in the hand (Poisson).

The score is the root of the sum of the squared positive z-scores. Action timing is reported beside them
(how much faster or slower one acts facing the other's bets) but left out of the score: think times depend
on the players' devices and networks, and a bot's are whatever it was written to take. Shared networks and
devices come from player sessions (``SessionOverlaps``); until the log holds sessions they are ``None``, not
zero.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field, replace
from statistics import NormalDist
from typing import Protocol

from stud_service.audit.integrity.fold import Facing, PairTally, Tally

REASON_Z = 3.0  # a statistic at or past this z-score is named among a pair's reasons
FLAG_SCORE = 5.0  # a pair at or above this score is flagged for review (docs/integrity.md: false positives)
MIN_RESPONSES = 5  # fewer responses or rounds than this give no z-score: too few to mean anything
PRIOR_TRIES = 20  # how many rounds of the log's habits a player's own are weighed against (``shrunk_rate``)
SESSION_WEIGHT = 3.0  # what one kind of shared session (network, device) adds, as a z-score


@dataclass(frozen=True)
class Overlap:
    """Sessions two players shared: the same network (address or prefix) or the same device id."""

    shared_network_sessions: int
    shared_device_sessions: int


class SessionOverlaps(Protocol):
    """Where the same-network and same-device overlaps come from: the player sessions in the log
    (issue 31, point 4). Pairs without an entry shared nothing."""

    def overlaps(self, pairs: Iterable[tuple[str, str]]) -> Mapping[tuple[str, str], Overlap]: ...


@dataclass(frozen=True)
class SoftPlay:
    """``actor`` facing ``bettor``'s bets with the better up cards, against two baselines: ``actor`` facing
    everyone else's bets, and everyone else facing ``bettor``'s (a wild bettor is folded to more by all)."""

    actor: str
    bettor: str
    faced: int  # responses to the bettor's bets
    folds: int
    faced_better: int
    folds_better: int
    actor_others_faced_better: int
    actor_others_folds_better: int
    bettor_others_faced_better: int
    bettor_others_folds_better: int
    z: float  # the smaller of the two z-scores


@dataclass(frozen=True)
class Timing:
    """``actor``'s mean think time facing ``bettor``'s bets, and facing everyone else's (ms)."""

    actor: str
    bettor: str
    mean_ms: float | None
    others_mean_ms: float | None
    actions: int
    z: float


@dataclass(frozen=True)
class PairFinding:
    a: str
    b: str
    hands: int
    flow: float  # net chips from a to b (negative: from b to a)
    a_to_b: float
    b_to_a: float
    showdown_flow: float
    flow_expected: float  # from a's results against everyone but b, and b's against everyone but a
    flow_z: float
    soft_play: tuple[SoftPlay, SoftPlay]  # a facing b, b facing a
    heads_up_rounds: int
    heads_up_checked: int
    check_down_z: float
    raise_wars: int
    three_way_rounds: int
    raise_wars_expected: float
    raise_wars_z: float
    timing: tuple[Timing, Timing]
    overlap: Overlap | None  # None: the log holds no player sessions yet
    score: float
    reasons: tuple[str, ...]

    @property
    def flagged(self) -> bool:
        return self.score >= FLAG_SCORE

    @property
    def soft_play_z(self) -> float:
        return max(s.z for s in self.soft_play)

    @property
    def giver(self) -> str:
        """Whose chips went to the other, net."""
        return self.a if self.flow >= 0 else self.b

    @property
    def receiver(self) -> str:
        return self.b if self.flow >= 0 else self.a


@dataclass(frozen=True)
class Baselines:
    """The log-wide rates each pair is measured against."""

    heads_up_checked_rate: float
    raise_wars_per_round: float


@dataclass
class IntegrityReport:
    pairs: list[PairFinding]  # every pair that sat together, highest score first
    baselines: Baselines
    events_read: int
    hands: int
    tables: int
    players: int
    sessions_recorded: bool
    events_in_log: int = 0
    malformed: list[tuple[str, int, str]] = field(default_factory=list)

    @property
    def flagged(self) -> list[PairFinding]:
        return [pair for pair in self.pairs if pair.flagged]

    def involving(self, player_id: str) -> IntegrityReport:
        """The report with only the pairs ``player_id`` belongs to (the baselines stay the whole log's)."""
        pairs = [pair for pair in self.pairs if player_id in (pair.a, pair.b)]
        return IntegrityReport(pairs, self.baselines, self.events_read, self.hands, self.tables, self.players,
                               self.sessions_recorded, self.events_in_log, self.malformed)


_NORMAL = NormalDist()
_MAX_Z = 38.0  # the z-score of the smallest tail a float holds; past it every tail is "never by chance"
_EXACT_UP_TO = 5_000  # longer series take the normal approximation (their tails are near normal by then)


def tail_z(tail: float) -> float:
    """The z-score with the same upper tail: how unlikely a count at least this high is by chance."""
    if tail <= 0.0:
        return _MAX_Z
    return min(_MAX_Z, -_NORMAL.inv_cdf(min(tail, 1.0 - 1e-16)))


def binomial_z(hits: int, tries: int, rate: float) -> float:
    """hits of tries against ``rate``, from the exact binomial tail P(X >= hits) (0 with too few tries)."""
    if tries < MIN_RESPONSES or not 0 < rate < 1 or hits <= tries * rate:
        return 0.0
    if tries > _EXACT_UP_TO:
        return (hits - tries * rate) / math.sqrt(tries * rate * (1 - rate))
    log_p, log_q = math.log(rate), math.log1p(-rate)
    head = math.lgamma(tries + 1)
    terms = [head - math.lgamma(k + 1) - math.lgamma(tries - k + 1) + k * log_p + (tries - k) * log_q
             for k in range(hits, tries + 1)]
    top = max(terms)
    return tail_z(math.exp(top) * sum(math.exp(term - top) for term in terms))


def rate_of(hits: int, tries: int) -> float:
    """A baseline rate that is never exactly 0 or 1 (one imagined hit and miss more: Laplace's rule)."""
    return (hits + 1) / (tries + 2)


def shrunk_rate(hits: int, tries: int, log_rate: float) -> float:
    """A player's rate drawn toward the log's by ``PRIOR_TRIES`` imagined tries at the log's rate: a player
    seen a few times has the log's habits, not none."""
    return (hits + PRIOR_TRIES * log_rate) / (tries + PRIOR_TRIES)


def poisson_z(seen: int, expected: float) -> float:
    """``seen`` events where ``expected`` were, from the exact Poisson tail P(X >= seen)."""
    if seen <= expected or seen < 2:
        return 0.0  # one raise war is no pattern, however few were expected
    if expected <= 0:
        return _MAX_Z
    if seen > _EXACT_UP_TO:
        return (seen - expected) / math.sqrt(expected)
    log_rate = math.log(expected)
    # Past the mean the terms shrink at least geometrically: a few hundred after ``seen`` hold the whole tail.
    terms = [k * log_rate - expected - math.lgamma(k + 1) for k in range(seen, seen + 400)]
    top = max(terms)
    return tail_z(math.exp(top) * sum(math.exp(term - top) for term in terms))


def _soft_play(actor: str, bettor: str, facing: Facing, tally: Tally) -> SoftPlay:
    mine, theirs = tally.players[actor].facing, tally.players[bettor].faced_by
    actor_faced = mine.faced_better - facing.faced_better
    actor_folds = mine.folds_better - facing.folds_better
    bettor_faced = theirs.faced_better - facing.faced_better
    bettor_folds = theirs.folds_better - facing.folds_better
    z = min(binomial_z(facing.folds_better, facing.faced_better, rate_of(actor_folds, actor_faced)),
            binomial_z(facing.folds_better, facing.faced_better, rate_of(bettor_folds, bettor_faced)))
    return SoftPlay(actor, bettor, facing.faced, facing.folds, facing.faced_better, facing.folds_better,
                    actor_faced, actor_folds, bettor_faced, bettor_folds, z)


def _timing(actor: str, bettor: str, facing: Facing, everyone: Facing) -> Timing:
    mine, others = facing.think, everyone.think.minus(facing.think)
    z = 0.0
    if mine.n >= MIN_RESPONSES and others.n >= MIN_RESPONSES:
        spread = mine.variance / mine.n + others.variance / others.n
        if spread > 0:
            z = ((mine.mean or 0.0) - (others.mean or 0.0)) / math.sqrt(spread)
    return Timing(actor, bettor, mine.mean, others.mean, mine.n, z)


def _habits(pair: PairTally) -> tuple[int, int, int, int, int]:
    return (pair.hands, pair.heads_up_rounds, pair.heads_up_checked, pair.three_way_rounds, pair.raise_wars)


def _pair_rate(log_rate: float, a_rate: float, b_rate: float) -> float:
    """What two players' habits with everyone else predict for them together: the log's rate scaled by how
    far each stands from it (a pair of raisers wars more, a pair of callers checks more); below 1."""
    if log_rate <= 0:
        return 0.0
    return min(0.999, a_rate * b_rate / log_rate)


def _rate(total: float, hands: int) -> float:
    return total / hands if hands > 0 else 0.0


def _chips(amount: float) -> str:
    return f"{amount:,.0f}"


def reasons_for(f: PairFinding, checked_rate: float) -> tuple[str, ...]:
    """The statistics of ``f`` at or past ``REASON_Z``, in words (timing and sessions included)."""
    reasons = []
    if f.flow_z >= REASON_Z:
        reasons.append(
            f"chips flow from {f.giver} to {f.receiver}: {_chips(abs(f.flow))} net over {f.hands} hands"
            f" ({_chips(abs(f.showdown_flow))} of it at showdown), where their play with everyone else"
            f" predicts {_chips(f.flow_expected if f.flow >= 0 else -f.flow_expected)}, z {f.flow_z:.1f}"
        )
    for soft in f.soft_play:
        if soft.z >= REASON_Z:
            reasons.append(
                f"{soft.actor} folded to {soft.bettor}'s bets with the better up cards {soft.folds_better} of"
                f" {soft.faced_better} times; to everyone else's {soft.actor_others_folds_better} of"
                f" {soft.actor_others_faced_better}; everyone else to {soft.bettor}'s"
                f" {soft.bettor_others_folds_better} of {soft.bettor_others_faced_better}; z {soft.z:.1f}"
            )
    if f.check_down_z >= REASON_Z:
        reasons.append(
            f"heads-up, nobody bet in {f.heads_up_checked} of {f.heads_up_rounds} rounds, against"
            f" {checked_rate:.0%} of heads-up rounds in the log, z {f.check_down_z:.1f}"
        )
    if f.raise_wars_z >= REASON_Z:
        reasons.append(
            f"{f.raise_wars} raise wars with a third player caught in between, against"
            f" {f.raise_wars_expected:.1f} expected, z {f.raise_wars_z:.1f}"
        )
    for timing in f.timing:
        if abs(timing.z) >= REASON_Z and timing.mean_ms is not None and timing.others_mean_ms is not None:
            reasons.append(
                f"{timing.actor} acts in {timing.mean_ms:,.0f} ms on average facing {timing.bettor}'s bets,"
                f" {timing.others_mean_ms:,.0f} ms facing everyone else's, z {timing.z:.1f} (not scored)"
            )
    if f.overlap is not None:
        if f.overlap.shared_network_sessions:
            reasons.append(f"sessions on the same network: {f.overlap.shared_network_sessions}")
        if f.overlap.shared_device_sessions:
            reasons.append(f"sessions on the same device: {f.overlap.shared_device_sessions}")
    return tuple(reasons)


def score_pairs(tally: Tally, sessions: SessionOverlaps | None = None) -> IntegrityReport:
    """Every pair of ``tally`` (finished) scored and ranked, highest score first."""
    tally.finish()
    pairs = [pair for pair in tally.pairs.values() if pair.hands]
    rounds = sum(pair.heads_up_rounds for pair in pairs)
    checked_rate = sum(pair.heads_up_checked for pair in pairs) / rounds if rounds else 0.0
    three_way = sum(pair.three_way_rounds for pair in pairs)
    war_rate = sum(pair.raise_wars for pair in pairs) / three_way if three_way else 0.0
    overlaps = sessions.overlaps([(p.a, p.b) for p in pairs]) if sessions is not None else None
    # Each player's net chips moved to others and hands with others, summed over their pairs: what they do
    # with everyone else is what a pair's flow is measured against.
    # The same for heads-up rounds checked through and raise wars: each player's habit with everyone else.
    flow_out: dict[str, float] = {}
    sums: dict[str, list[int]] = {}  # player -> ``_habits`` summed over the player's pairs
    for pair in pairs:
        flow_out[pair.a] = flow_out.get(pair.a, 0.0) + pair.flow
        flow_out[pair.b] = flow_out.get(pair.b, 0.0) - pair.flow
        for player in (pair.a, pair.b):
            mine = sums.setdefault(player, [0, 0, 0, 0, 0])
            for index, value in enumerate(_habits(pair)):
                mine[index] += value
    findings = []
    for pair in pairs:
        soft = (_soft_play(pair.a, pair.b, pair.a_facing_b, tally),
                _soft_play(pair.b, pair.a, pair.b_facing_a, tally))
        everyone_a, everyone_b = tally.players[pair.a].facing, tally.players[pair.b].facing
        timing = (_timing(pair.a, pair.b, pair.a_facing_b, everyone_a),
                  _timing(pair.b, pair.a, pair.b_facing_a, everyone_b))
        habits = _habits(pair)
        a_else = [total - own for total, own in zip(sums[pair.a], habits, strict=True)]
        b_else = [total - own for total, own in zip(sums[pair.b], habits, strict=True)]
        a_rate = _rate(flow_out[pair.a] - pair.flow, a_else[0])  # a's giving per hand, with everyone else
        b_rate = _rate(-(flow_out[pair.b] + pair.flow), b_else[0])  # b's taking
        expected = pair.hands * (a_rate + b_rate) / 2
        spread = math.sqrt(pair.flow_squares)
        flow_z = abs(pair.flow - expected) / spread if spread > 0 else 0.0
        if (pair.flow - expected) * pair.flow < 0:
            flow_z = 0.0  # less than predicted in the flow's own direction: nothing to explain
        check_rate = _pair_rate(checked_rate, shrunk_rate(a_else[2], a_else[1], checked_rate),
                                shrunk_rate(b_else[2], b_else[1], checked_rate))
        check_z = binomial_z(pair.heads_up_checked, pair.heads_up_rounds, check_rate)
        wars_rate = _pair_rate(war_rate, shrunk_rate(a_else[4], a_else[3], war_rate),
                               shrunk_rate(b_else[4], b_else[3], war_rate))
        wars_expected = pair.three_way_rounds * wars_rate
        war_z = poisson_z(pair.raise_wars, wars_expected) if pair.raise_wars else 0.0
        overlap = None if overlaps is None else overlaps.get((pair.a, pair.b), Overlap(0, 0))
        parts = [flow_z, max(s.z for s in soft), check_z, war_z]
        if overlap is not None:
            parts += [SESSION_WEIGHT * bool(overlap.shared_network_sessions),
                      SESSION_WEIGHT * bool(overlap.shared_device_sessions)]
        score = math.sqrt(sum(max(0.0, part) ** 2 for part in parts))
        finding = PairFinding(
            a=pair.a, b=pair.b, hands=pair.hands, flow=pair.flow, a_to_b=pair.a_to_b, b_to_a=pair.b_to_a,
            showdown_flow=pair.showdown_flow, flow_expected=expected, flow_z=flow_z, soft_play=soft,
            heads_up_rounds=pair.heads_up_rounds, heads_up_checked=pair.heads_up_checked,
            check_down_z=check_z, raise_wars=pair.raise_wars, three_way_rounds=pair.three_way_rounds,
            raise_wars_expected=wars_expected,
            raise_wars_z=war_z, timing=timing, overlap=overlap, score=score, reasons=(),
        )
        findings.append(replace(finding, reasons=reasons_for(finding, checked_rate)))
    findings.sort(key=lambda f: (-f.score, f.a, f.b))
    return IntegrityReport(
        pairs=findings,
        baselines=Baselines(checked_rate, war_rate),
        events_read=tally.events_read,
        hands=tally.hands,
        tables=len(tally.tables),
        players=len(tally.players),
        sessions_recorded=sessions is not None,
    )
