"""Property tests over many random hands with random legal play (RULES.md as a whole).

2-8 players, all three variants, random stakes and options, random stacks (short ones too, for
all-ins and side pots), and a random mix of legal actions, timeouts, sit-outs, leaving mid-hand,
top-ups, the waiting list of a full table (joining, leaving, offers taken or let run out), an operator
pausing, resuming, changing settings, voiding hands and closing the table (RULES.md §12), hands voided as
interrupted, and illegal commands.  After every event: chips are conserved; at the end: replay equals
the state built step by step, every hand ended, no card was dealt twice in a hand, every event
round-trips through JSON, and no view shows a seat another seat's down card before it is shown.
"""

from __future__ import annotations

import contextlib
import json
import random
from typing import Any

import pytest
from engine_helpers import check_side_pots
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from stud_service.engine import (
    Act,
    ActionKind,
    AntePosted,
    BettingRoundStarted,
    BringInTiebreak,
    CardDealt,
    CloseTable,
    CreateTable,
    DomainError,
    ExpireSeatOffers,
    HandEnded,
    HandShown,
    HandStarted,
    HandVoided,
    JoinWaitingList,
    Leave,
    LeaveWaitingList,
    PauseTable,
    PlayerActed,
    PlayerLeft,
    PlayerSeated,
    PlayerToppedUp,
    ResumeTable,
    SendChat,
    SitDown,
    SitIn,
    SitOut,
    StartHand,
    TableConfig,
    Timeout,
    TopUp,
    UncalledBetReturned,
    UpdateTableSettings,
    Variant,
    Viewer,
    VoidHand,
    VoidInterruptedHand,
    action_deadline_ms,
    can_start_hand,
    chips_in_play,
    decide,
    event_from_json,
    event_to_json,
    evolve,
    execute,
    hand_void_deadline_ms,
    legal_actions,
    replay,
    sit_out_reason,
    state_from_json,
    state_to_json,
    time_bank_reserve_ms,
    to_act,
    turn_number,
    view_event,
    view_state,
)
from stud_service.engine.rules.waiting import open_seats

MAX_COMMANDS_PER_HAND = 400


def random_config(rng: random.Random, seats: int = 8) -> TableConfig:
    small = rng.choice([2, 10, 200, 1000])
    bring_in = max(1, small // rng.choice([2, 4])) if small > 2 else 1
    bank = random_time_bank(rng)
    return TableConfig(
        variant=rng.choice(list(Variant)), ante=rng.choice([0, small // 5, small // 2]), bring_in=bring_in,
        small_bet=small, big_bet=2 * small, min_buy_in=1, max_buy_in=small * 60,
        seats=seats, action_clock_seconds=(clock := rng.choice([5, 30])),
        seat_offer_seconds=rng.choice([1, 60]),
        bring_in_tiebreak=rng.choice(list(BringInTiebreak)), uncapped_heads_up=rng.random() < 0.3,
        interrupted_hand_void_seconds=clock + bank.get("time_bank_seconds", 0) + 1 if rng.random() < 0.3
        else 0,
        **random_rake(rng, small), **bank)


def random_time_bank(rng: random.Random) -> dict[str, int]:
    """A third of the tables have a time bank (RULES.md §7), most of those with refills."""
    if rng.random() < 0.67:
        return {}
    refill = rng.random() < 0.7
    return {"time_bank_seconds": rng.choice([1, 20, 600]), "time_bank_refill_seconds": 1 if refill else 0,
            "time_bank_refill_hands": rng.choice([1, 3]) if refill else 0}


def random_rake(rng: random.Random, small: int) -> dict[str, int]:
    """Half the tables take rake (RULES.md §10), with caps that bind now and then."""
    if rng.random() < 0.5:
        return {}
    return {"rake_basis_points": rng.choice([1, 500, 1000]), "rake_cap_2": rng.choice([1, small]),
            "rake_cap_3_4": rng.choice([2, 3 * small]), "rake_cap_5_plus": rng.choice([3, 5 * small])}


class Run:
    """One random table session with the invariant checks."""

    def __init__(self, rng: random.Random) -> None:
        self.rng = rng
        self.state = replay([])
        self.log: list[Any] = []
        self.now = 1_000
        self.bank = 0  # chips brought to the table minus chips taken away
        self.newcomers = 0
        self.waiters = 0

    def run(self, command: Any) -> list[Any]:
        start = self.state
        snapshot = state_to_json(start)
        events = decide(start, command)
        executed, after = execute(start, command)
        assert executed == events
        for event in events:
            before = self.state
            self.state = evolve(self.state, event)
            assert before is not self.state
            if isinstance(event, PlayerSeated):
                self.bank += event.buy_in
            elif isinstance(event, PlayerToppedUp):
                self.bank += event.amount
            elif isinstance(event, PlayerLeft):
                self.bank -= event.cash_out
            # The rake leaves the table at HandEnded (§10): chips at the table + rake taken is constant.
            assert chips_in_play(self.state) + self.state.rake_taken == self.bank, \
                f"chips not conserved after {event}"
            check_turn(before, self.state, event)
            check_nobody_acts_once_betting_is_over(self.state)
            check_sit_out_reasons(self.state)
            check_time_banks(self.state)
            data = event_to_json(event)
            assert event_from_json(json.loads(json.dumps(data))) == event
        assert after == self.state  # execute's state is the fold of its events
        state = self.state
        assert all(state.seat_of(player) is None for player in state.waiting)  # nobody seated waits
        assert all(player in state.waiting and seat not in state.seats for player, seat, _ in state.offers)
        assert state_to_json(start) == snapshot  # decide, execute and evolve never change their input
        self.log.extend(events)
        return events

    def try_illegal(self) -> None:
        """A random command that may be refused: if it is, the state must be unchanged."""
        snapshot = state_to_json(self.state)
        seats = list(self.state.seats)
        pid = self.state.seats[self.rng.choice(seats)].player_id if seats else "ghost"
        command = self.rng.choice([
            Act(pid, self.rng.choice(list(ActionKind)), self.rng.choice([None, 0, 1, 100, 10**9]), self.now),
            Act("ghost", ActionKind.CALL, None, self.now),
            Timeout(self.now),
            TopUp(pid, self.rng.choice([1, 10**9]), self.now),
            StartHand(tuple(range(52)), "ab", self.now),
            SitDown(pid, 1, 100, self.now),
            JoinWaitingList(pid, self.now),
            LeaveWaitingList("ghost", self.now),
            ExpireSeatOffers(self.now),
            SendChat(pid, self.rng.choice(["gl", "x" * 201, "a\x00b", "Kd", "\u202e"]), self.now),
        ])
        try:
            self.run(command)
        except DomainError as error:
            refused_again = None
            with contextlib.suppress(DomainError):
                execute(self.state, command)
                refused_again = False
            assert refused_again is None, "execute accepted what decide refused"
            assert error.reason.isupper() and error.grpc_code_name.isupper() and str(error)
            assert state_to_json(self.state) == snapshot

    def random_action(self) -> None:
        seat = to_act(self.state)
        assert seat is not None
        pid = self.state.seats[seat].player_id
        roll = self.rng.random()
        if roll < 0.03:
            deadline = action_deadline_ms(self.state)
            assert deadline is not None
            self.now = deadline + self.rng.choice([0, 5])
            self.run(Timeout(self.now))
            return
        if roll < 0.04:
            self.run(Leave(pid, self.now))
            return
        if roll < 0.05:
            self.run(SitOut(pid, self.now))
            return
        if roll < 0.08:
            self.try_illegal()
            return
        if roll < 0.085:  # RULES.md §12: an operator voids the hand, or it stood still too long
            deadline = hand_void_deadline_ms(self.state)
            if deadline is not None and self.rng.random() < 0.5:
                self.now = deadline + self.rng.choice([0, 5])
                self.run(VoidInterruptedHand(self.now))
            else:
                self.run(VoidHand(self.state.hand.number, "ops", "fault", self.now))
            return
        legal = legal_actions(self.state, pid)
        assert legal.options, "the player to act must have something to do"
        weights = {ActionKind.FOLD: 1, ActionKind.CHECK: 4, ActionKind.CALL: 5, ActionKind.BRING_IN: 3,
                   ActionKind.COMPLETE: 2, ActionKind.BET: 3, ActionKind.RAISE: 3}
        kind, amounts = self.rng.choices(legal.options, [weights[k] for k, _ in legal.options])[0]
        amount = self.rng.choice(amounts) if amounts else None
        self.now += self.rng.randint(0, 2_000)
        void_at = hand_void_deadline_ms(self.state)
        if void_at is not None and self.now >= void_at:
            # A player this late (past a short time bank, unanswered by a Timeout) finds the hand stood
            # still past the table's limit: §12 voids it rather than play on.
            self.run(VoidInterruptedHand(self.now))
            return
        self.run(Act(pid, kind, amount, self.now))

    def between_hands(self) -> None:
        config = self.state.config
        assert config is not None
        for seat_state in list(self.state.seats.values()):
            if seat_state.sitting_out and self.rng.random() < 0.7:
                if seat_state.stack == 0:
                    self.run(TopUp(seat_state.player_id, self.rng.randint(1, config.max_buy_in), self.now))
                self.run(SitIn(seat_state.player_id, self.now))
            elif self.rng.random() < 0.03:
                self.run(Leave(seat_state.player_id, self.now))
        self.waiting_list_churn()
        self.operator_between_hands()
        free = open_seats(config.seats, self.state.seats, self.state.offers)
        if free and (len(self.state.seats) < 2 or self.rng.random() < 0.1):
            self.newcomers += 1
            buy_in = self.rng.randint(1, config.max_buy_in)
            self.run(SitDown(f"n{self.newcomers}", self.rng.choice(free), buy_in, self.now))

    def operator_between_hands(self) -> None:
        """RULES.md §12: a pause and a resume, a change of settings (the table deals on)."""
        if self.rng.random() < 0.05:
            self.run(PauseTable("ops", "a short break", self.now))
            self.try_illegal()
            self.run(ResumeTable("ops", "back", self.now))
        if self.rng.random() < 0.05:
            clock = self.rng.choice([5, 30, 45])
            bank = self.state.config.time_bank_seconds if self.state.config is not None else 0
            void = self.rng.choice([0, clock + bank + 1])  # past the clock and the reserve (§7)
            settings = {"action_clock_seconds": clock, "interrupted_hand_void_seconds": void}
            self.run(UpdateTableSettings("ops", "new clocks", settings, self.now))

    def waiting_list_churn(self) -> None:
        """The waiting list: offered players take the seat, decline it or let it run out; newcomers wait."""
        config = self.state.config
        assert config is not None
        for offer in self.state.offers:
            if offer not in self.state.offers:  # passed on by the command before
                continue
            player, seat, deadline = offer
            roll = self.rng.random()
            if roll < 0.4:
                self.run(SitDown(player, seat, self.rng.randint(1, config.max_buy_in), self.now))
            elif roll < 0.6:
                self.run(LeaveWaitingList(player, self.now))
            elif roll < 0.9:
                self.now = max(self.now, deadline)
                self.run(ExpireSeatOffers(self.now))
        if not open_seats(config.seats, self.state.seats, self.state.offers) and self.rng.random() < 0.5:
            self.waiters += 1
            self.run(JoinWaitingList(f"w{self.waiters}", self.now))

    def play_hands(self, hands: int) -> None:
        """Up to ``hands`` hands, with the comings and goings between them; fewer if the table empties."""
        for _ in range(hands):
            if not can_start_hand(self.state):
                self.between_hands()
            if not can_start_hand(self.state):
                return
            self.play_hand()
            self.between_hands()

    def play_hand(self) -> None:
        deck = list(range(52))
        self.rng.shuffle(deck)
        self.now += 1_000
        start = len(self.log)
        self.run(StartHand(tuple(deck), "cafe", self.now, {"seed": self.rng.randint(0, 9)}))
        for _ in range(MAX_COMMANDS_PER_HAND):
            if self.state.hand is None:
                break
            self.random_action()
        assert self.state.hand is None, "the hand did not end"
        check_hand(self.log[start:], self.state)


def check_turn(before: Any, after: Any, event: Any) -> None:
    """A turn begins only when an event gives a player the action, and its number is new; anything
    else (another player's sitting out, topping up, seating) leaves the turn as it was."""
    begins = isinstance(event, PlayerActed | BettingRoundStarted) and to_act(after) is not None
    assert after.turns == before.turns + begins, f"turn count after {event}"
    assert turn_number(after) == (after.turns if to_act(after) is not None else 0)
    if not begins and to_act(after) is not None:
        assert turn_number(after) == turn_number(before), f"{event} changed the turn"


def check_nobody_acts_once_betting_is_over(state: Any) -> None:
    """§4: nobody is asked to act once all live players but one are all-in and that one has matched
    the highest bet (nor, of course, when one player is left)."""
    seat = to_act(state)
    if seat is None:
        return
    live = [player for player in state.hand.players.values() if not player.folded]
    with_chips = [player for player in live if not player.all_in]
    assert len(live) >= 2 and seat in {player.seat for player in with_chips}
    assert len(with_chips) >= 2 or state.hand.players[seat].bet < state.hand.level, \
        f"seat {seat} asked to act with nobody else able to bet and nothing to match"


def check_time_banks(state: Any) -> None:
    """§7: a reserve is never negative and never above its maximum."""
    maximum = state.config.time_bank_seconds * 1000 if state.config is not None else 0
    for seat in state.seats:
        assert 0 <= time_bank_reserve_ms(state, seat) <= maximum


def check_sit_out_reasons(state: Any) -> None:
    """A seat sitting out says why; one with no chips outside the hand must top up ("busted")."""
    in_hand = state.hand.players if state.hand is not None else {}
    for seat, seat_state in state.seats.items():
        reason = sit_out_reason(state, seat)
        if not seat_state.sitting_out:
            assert reason is None
        elif seat_state.stack == 0 and seat not in in_hand:
            assert reason == "busted"
        else:
            assert reason in ("request", "timeout", "busted")


def check_hand(events: list[Any], state: Any) -> None:
    """No card dealt twice; results pay out exactly the pots; views hide others' down cards."""
    dealt = [e.card for e in events if isinstance(e, CardDealt)]
    assert len(dealt) == len(set(dealt))
    started = next(e for e in events if isinstance(e, HandStarted))
    assert dealt == list(started.deck[:len(dealt)])
    ended = [e for e in events if isinstance(e, HandEnded)]
    assert len(ended) == 1
    voided = [e for e in events if isinstance(e, HandVoided)]
    if voided:  # §12: every chip back, no pot, no rake, no card shown
        assert dict(voided[0].returned) == {seat: chips for seat, chips in put_in(events).items() if chips}
        assert ended[0].pots == () and ended[0].rake == 0 and ended[0].shown == ()
        assert dict(ended[0].stacks) == {seat: stack for seat, _player, stack in started.seats}
        assert not any(isinstance(e, HandShown) for e in events)
    for pot in ended[0].pots:  # less the rake taken from it (RULES.md §10)
        assert sum(a["amount"] for a in pot["awards"]) == pot["amount"] - pot["rake"]
    assert ended[0].rake == sum(pot["rake"] for pot in ended[0].pots)
    if not voided:
        check_hand_pots(events, ended[0])
    # HandStarted carries everything needed to replay the hand alone (DESIGN.md).
    alone = replay([e for e in events if hasattr(e, "hand")])
    assert alone.hand is None
    assert {seat: alone.seats[seat].stack for seat, _ in ended[0].stacks} == dict(ended[0].stacks)
    check_views(events, started)


def put_in(events: list[Any]) -> dict[int, int]:
    """What each seat dealt in put into the hand: antes and bets, less uncalled bets returned."""
    started = next(e for e in events if isinstance(e, HandStarted))
    committed = {seat: 0 for seat, _, _ in started.seats}
    for event in events:
        if isinstance(event, AntePosted):
            committed[event.seat] += event.amount
        elif isinstance(event, PlayerActed):
            committed[event.seat] += event.chips
        elif isinstance(event, UncalledBetReturned):
            committed[event.seat] -= event.amount
    return committed


def check_hand_pots(events: list[Any], ended: HandEnded) -> None:
    """§5: the pots hold what each seat put in, each goes to players eligible for it (the last to fold
    of its players if all of them folded), and nobody wins from an opponent more than they put in
    against them."""
    committed = put_in(events)
    folds = [e.seat for e in events if isinstance(e, PlayerActed) and e.action is ActionKind.FOLD]
    pots = sorted(ended.pots, key=lambda pot: pot["pot"])
    paid: dict[int, int] = {}
    for pot in pots:
        assert {award["seat"] for award in pot["awards"]} <= set(pot["eligible"])
        for award in pot["awards"]:
            paid[award["seat"]] = paid.get(award["seat"], 0) + award["amount"]
    check_side_pots(committed, folds, [(pot["amount"], pot["eligible"]) for pot in pots], paid)


def check_views(events: list[Any], started: HandStarted) -> None:
    seats = [seat for seat, _, _ in started.seats]
    down = {e.card: e.seat for e in events if isinstance(e, CardDealt) and not e.face_up and e.seat}
    # Views are taken as the events stream out, against the state after each one.
    running = None
    for event in (e for e in events if hasattr(e, "hand")):  # the hand's own events replay it alone
        running = evolve(running, event) if running is not None else _seed_state(event)
        shown: set[int] = set()
        for seat in seats + [None]:
            viewer = Viewer.seat(started.seats[seats.index(seat)][1]) if seat else Viewer.observer()
            data = view_event(running, event, viewer)
            assert data is not None
            if isinstance(event, HandStarted):
                assert data["deck"] is None
            visible = _cards_in(data) - shown
            for card in visible:
                owner = down.get(card)
                assert owner is None or owner == seat or isinstance(event, HandShown | HandEnded), \
                    f"seat {seat} saw seat {owner}'s down card in {data}"
            if running.hand is not None:
                for player in view_state(running, viewer)["hand"]["players"]:
                    assert player["down"] is None or player["seat"] == seat
    auditor = view_event(running, started, Viewer.auditor())
    assert auditor is not None and auditor["deck"] == list(started.deck)


def _seed_state(event: Any) -> Any:
    return replay([event])


def _cards_in(data: Any) -> set[int]:
    found: set[int] = set()
    if isinstance(data, dict):
        for key, value in data.items():
            if key == "card" and isinstance(value, int):
                found.add(value)
            elif key in ("cards", "deck") and isinstance(value, list):
                found.update(v for v in value if isinstance(v, int))
            else:
                found |= _cards_in(value)
    elif isinstance(data, list):
        for value in data:
            found |= _cards_in(value)
    return found


@pytest.mark.long
@pytest.mark.timeout(600)  # a thousand random tables: 50 s on an idle machine, over 180 s on a crowded one
@settings(max_examples=1000, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 2**64), players=st.integers(2, 8), hands=st.integers(1, 4))
def test_random_play_keeps_every_invariant(seed: int, players: int, hands: int) -> None:
    """RULES.md §1-§7: chips conserved, hands end, no card twice, replay == step by step,
    JSON round trips, views hide down cards (DESIGN.md, Hidden information)."""
    rng = random.Random(seed)
    run = Run(rng)
    config = random_config(rng, rng.choice([8, players]))  # a table the players fill, now and then
    run.run(CreateTable("t", config, run.now))
    for seat in rng.sample(range(1, config.seats + 1), players):
        run.run(SitDown(f"p{seat}", seat, rng.choice([1, config.ante + 1, rng.randint(1, config.max_buy_in)]),
                        run.now))
    run.play_hands(hands)
    if rng.random() < 0.2:  # §12: closed between hands, every player leaves with their stack
        run.run(CloseTable("ops", "closing time", run.now))
        assert run.state.seats == {} and chips_in_play(run.state) == 0
    assert replay(run.log) == run.state
    assert state_from_json(json.loads(json.dumps(state_to_json(run.state)))) == run.state
