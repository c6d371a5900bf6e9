"""Engine throughput against PokerKit, measured side by side in the same run.

1. Full hands of random legal play at a 6-player Seven Card Stud table ($2/$4 in cents, ante 50,
   bring-in 100, stacks of 100 big bets, fresh each hand), per second.  Both engines play the same
   policy: the bring-in posts 70% / completes 30%; otherwise fold 1 : check-or-call 4 : bet, complete
   or raise 2 (never folding when a check is free).  Ours goes through the service path:
   ``legal_actions`` for the player to act, then ``execute`` (decide + the new state).  PokerKit
   runs its ``FixedLimitSevenCardStud`` state machine with automations for antes, dealing, bet
   collection, showdown and chip pushing/pulling.
2. Replay: ours folds each recorded hand's events from scratch (``replay(hand_events)``, the
   "replay any hand" audit path); PokerKit re-applies each recorded hand's operations (its deals
   and actions, with the same automations) to a fresh state.  Reported as events (ours) or
   operations (PokerKit) per second.

The hands are played in alternating rounds (ours, then PokerKit's, ``--rounds`` times) after a short
warm-up of both, so that a busy shared machine weighs on both sides alike; the ratio of each round
is printed too, as a range.

The first line says whether the engine ran compiled by mypyc (the default build, see setup.py) or as
plain Python (built with ``STUD_PURE_PYTHON=1``).

Run: ``.venv/bin/python benchmarks/bench_engine.py [--variant STUD|STUD_HI_LO|RAZZ] [--hands N]
[--peer-hands N] [--rounds R] [--seed S]``
(needs ``pip install pokerkit``, part of the ``bench`` extra).
"""

from __future__ import annotations

import argparse
import random
import sys
import time
import warnings
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import headline  # noqa: E402  (benchmarks/headline.py: the script's own folder is on sys.path)

from stud_service.engine import (  # noqa: E402
    ActionKind,
    PlayerSeated,
    StartHand,
    TableConfig,
    TableCreated,
    Variant,
    execute,
    legal_actions,
    replay,
)


def engine_build() -> str:
    """Whether the engine modules run compiled by mypyc (setup.py) or as plain Python."""
    decide_module = sys.modules["stud_service.engine.decide"]
    return "plain Python" if (decide_module.__file__ or "").endswith(".py") else "compiled by mypyc"


PLAYERS = 6
STACK = 40_000
ANTE, BRING_IN, SMALL_BET, BIG_BET = 50, 100, 200, 400


# --- ours -------------------------------------------------------------------------------------

PEER_GAMES = {Variant.STUD: "FixedLimitSevenCardStud", Variant.RAZZ: "FixedLimitRazz",
              Variant.STUD_HI_LO: "FixedLimitSevenCardStudHighLowSplitEightOrBetter"}
NAMES = {Variant.STUD: "Seven Card Stud", Variant.RAZZ: "Razz", Variant.STUD_HI_LO: "Stud Hi-Lo"}


def our_table(variant: Variant = Variant.STUD) -> Any:
    config = TableConfig(variant=variant, ante=ANTE, bring_in=BRING_IN, small_bet=SMALL_BET, big_bet=BIG_BET,
                         min_buy_in=1, max_buy_in=STACK)
    return replay([TableCreated("bench", config, 0)]
                  + [PlayerSeated(f"p{seat}", seat, STACK, 0) for seat in range(1, PLAYERS + 1)])


WEIGHTS = {ActionKind.FOLD: 1, ActionKind.CHECK: 4, ActionKind.CALL: 4, ActionKind.BET: 2,
           ActionKind.RAISE: 2, ActionKind.COMPLETE: 2}


def our_choice(rng: random.Random, options: tuple) -> tuple[ActionKind, int | None]:
    """The policy above.  ``options`` lists FOLD after CHECK when a check is free, so a free fold is
    dropped by looking at the first option."""
    first = options[0][0]
    if first is ActionKind.BRING_IN:
        kind, amounts = options[1] if len(options) > 1 and rng.random() >= 0.7 else options[0]
        return kind, amounts[0]
    free_check = first is ActionKind.CHECK
    total = 0
    for kind, _ in options:
        if not (free_check and kind is ActionKind.FOLD):
            total += WEIGHTS[kind]
    pick = rng.random() * total
    for kind, amounts in options:
        if free_check and kind is ActionKind.FOLD:
            continue
        pick -= WEIGHTS[kind]
        if pick < 0:
            return kind, (amounts[0] if amounts else None)
    kind, amounts = options[-1]
    return kind, (amounts[0] if amounts else None)


def our_hand(rng: random.Random, table: Any) -> list[Any]:
    deck = list(range(52))
    rng.shuffle(deck)
    log, state = execute(table, StartHand(tuple(deck), "00", 0))
    from stud_service.engine import Act  # local: keeps the hot loop's globals small

    while state.hand is not None:
        hand = state.hand
        player_id = hand.players[hand.to_act].player_id
        kind, amount = our_choice(rng, legal_actions(state, player_id).options)
        events, state = execute(state, Act(player_id, kind, amount, 0))
        log += events
    return log


# --- PokerKit ---------------------------------------------------------------------------------

def pokerkit_automations(deal: bool) -> tuple:
    from pokerkit import Automation

    automations = [Automation.ANTE_POSTING, Automation.BET_COLLECTION, Automation.BLIND_OR_STRADDLE_POSTING,
                   Automation.CARD_BURNING, Automation.HOLE_CARDS_SHOWING_OR_MUCKING, Automation.HAND_KILLING,
                   Automation.CHIPS_PUSHING, Automation.CHIPS_PULLING]
    if deal:
        automations.append(Automation.HOLE_DEALING)
    return tuple(automations)


def pokerkit_state(automations: tuple, variant: Variant) -> Any:
    import pokerkit

    game = getattr(pokerkit, PEER_GAMES[variant])
    return game.create_state(automations, True, ANTE, BRING_IN, SMALL_BET, BIG_BET,
                             (STACK,) * PLAYERS, PLAYERS, mode=pokerkit.Mode.CASH_GAME)


def pokerkit_hand(rng: random.Random, automations: tuple, variant: Variant) -> Any:
    state = pokerkit_state(automations, variant)
    while state.status:
        if state.can_post_bring_in():
            if rng.random() < 0.7 or not state.can_complete_bet_or_raise_to():
                state.post_bring_in()
            else:
                state.complete_bet_or_raise_to()
            continue
        weighted = []
        if state.can_fold() and state.checking_or_calling_amount:
            weighted.append(("fold", 1))
        if state.can_check_or_call():
            weighted.append(("call", 4))
        if state.can_complete_bet_or_raise_to():
            weighted.append(("raise", 2))
        choice = rng.choices([k for k, _ in weighted], [w for _, w in weighted])[0]
        if choice == "fold":
            state.fold()
        elif choice == "call":
            state.check_or_call()
        else:
            state.complete_bet_or_raise_to()
    return state


def pokerkit_replay(operations: list[Any], automations: tuple, variant: Variant) -> int:
    """Re-apply one hand's recorded deals and decisions; returns the operations the state ran."""
    state = pokerkit_state(automations, variant)
    for op in operations:
        name = type(op).__name__
        if name == "HoleDealing":
            state.deal_hole(op.cards)
        elif name == "BringInPosting":
            state.post_bring_in()
        elif name == "Folding":
            state.fold()
        elif name == "CheckingOrCalling":
            state.check_or_call()
        elif name == "CompletionBettingOrRaisingTo":
            state.complete_bet_or_raise_to(op.amount)
    return len(state.operations)


# --- the run ----------------------------------------------------------------------------------

def run_round(variant: Variant, hands: int, peer_hands: int, rng: random.Random, peer_rng: random.Random,
              table: Any, automations: tuple[tuple, tuple]) -> dict[str, float]:
    """One round: our hands and replays, then PokerKit's, timed apart (seconds and counts)."""
    started = time.perf_counter()
    logs = [our_hand(rng, table) for _ in range(hands)]
    ours_play = time.perf_counter() - started
    started = time.perf_counter()
    for log in logs:
        replay(log)
    ours_replay = time.perf_counter() - started

    with_dealing, without_dealing = automations
    started = time.perf_counter()
    peer_states = [pokerkit_hand(peer_rng, with_dealing, variant) for _ in range(peer_hands)]
    peer_play = time.perf_counter() - started
    recorded = [list(state.operations) for state in peer_states]
    started = time.perf_counter()
    peer_ops = sum(pokerkit_replay(ops, without_dealing, variant) for ops in recorded)
    peer_replay = time.perf_counter() - started
    return {"ours_play": ours_play, "ours_replay": ours_replay, "events": sum(len(log) for log in logs),
            "peer_play": peer_play, "peer_replay": peer_replay, "peer_ops": peer_ops}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--hands", type=int, default=5_000, help="hands for our engine")
    parser.add_argument("--peer-hands", type=int, default=500, help="hands for PokerKit")
    parser.add_argument("--rounds", type=int, default=5,
                        help="the hands are played in this many alternating rounds (ours, then PokerKit's), "
                             "so that both sides see the same load on a shared machine")
    parser.add_argument("--seed", type=int, default=2024)
    parser.add_argument("--variant", type=Variant, choices=list(Variant), default=Variant.STUD)
    args = parser.parse_args(argv)
    variant = args.variant
    warnings.filterwarnings("ignore")  # PokerKit warns on dealing chosen cards during replay
    try:
        import pokerkit  # noqa: F401
    except ImportError:
        print("pokerkit is not installed: pip install pokerkit (the bench extra)")
        return 1

    rng, peer_rng = random.Random(args.seed), random.Random(args.seed)
    table = our_table(variant)
    automations = (pokerkit_automations(True), pokerkit_automations(False))
    run_round(variant, 20, 2, random.Random(-1), random.Random(-1), table, automations)  # warm both up
    per_round, peer_per_round = args.hands // args.rounds, args.peer_hands // args.rounds
    rounds = [run_round(variant, per_round, peer_per_round, rng, peer_rng, table, automations)
              for _ in range(args.rounds)]
    hands, peer_hands = per_round * args.rounds, peer_per_round * args.rounds
    total = {key: sum(r[key] for r in rounds) for key in rounds[0]}
    round_ratios = sorted((per_round / r["ours_play"]) / (peer_per_round / r["peer_play"]) for r in rounds)

    ours_hps, peer_hps = hands / total["ours_play"], peer_hands / total["peer_play"]
    ours_eps, peer_ops_ps = total["events"] / total["ours_replay"], total["peer_ops"] / total["peer_replay"]
    print(f"{NAMES[variant]}, {PLAYERS} players, random legal play, {hands:,} hands (PokerKit "
          f"{peer_hands:,}) in {args.rounds} alternating rounds, Python {sys.version.split()[0]}, "
          f"engine {engine_build()}")
    print(f"{'':34}{'stud-service':>16}{'PokerKit':>14}{'ratio':>9}")
    print(f"{'hands played per second':34}{ours_hps:>16,.0f}{peer_hps:>14,.0f}{ours_hps / peer_hps:>8.1f}x")
    print(f"{'  ratio in each round':34}{'':30}{round_ratios[0]:>5.1f}x to {round_ratios[-1]:.1f}x")
    print(f"{'replay: events/operations per s':34}{ours_eps:>16,.0f}{peer_ops_ps:>14,.0f}"
          f"{ours_eps / peer_ops_ps:>8.1f}x")
    print(f"{'  per hand (events / operations)':34}{total['events'] / hands:>16.1f}"
          f"{total['peer_ops'] / peer_hands:>14.1f}")
    ours_rhps, peer_rhps = hands / total["ours_replay"], peer_hands / total["peer_replay"]
    print(f"{'replay: hands per second':34}{ours_rhps:>16,.0f}{peer_rhps:>14,.0f}"
          f"{ours_rhps / peer_rhps:>8.1f}x")
    print(f"goals: >= 20x PokerKit's hands per second ({'met' if ours_hps >= 20 * peer_hps else 'NOT met'}); "
          f">= 200,000 events replayed per second ({'met' if ours_eps >= 200_000 else 'NOT met'})")
    headline.record(
        __file__,
        what=f"full hands of {NAMES[variant]}, {PLAYERS} players, random legal play ({engine_build()})",
        figure=f"{ours_hps:,.0f} hands/s",
        peer=f"PokerKit with automations, same policy: {peer_hps:,.0f} hands/s",
        ratio=f"{ours_hps / peer_hps:.1f}× (rounds {round_ratios[0]:.1f}–{round_ratios[-1]:.1f}×)",
        goal="≥ 20× PokerKit",
        met=ours_hps >= 20 * peer_hps,
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
