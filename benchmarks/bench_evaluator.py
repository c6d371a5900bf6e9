"""The C hand evaluator against the evaluators a user would otherwise pick, measured in the same run.

- batch: random seven-card hands per second through ``evaluate_high_batch`` (one and two threads), against
  phevaluator's C core called hand by hand from a C loop (phevaluator's Python package has no batch call, so a
  small C loop compiled here with cffi calls its exported ``evaluate_7cards`` through a function pointer; our
  single-hand ``stud_eval_high`` runs in the same loop for a like-for-like C figure);
- single calls from Python: ``high_value`` (an int, like the peers) and ``evaluate_high`` (value, category,
  best five and description), against phevaluator's ``evaluate_cards``, treys' ``Evaluator.evaluate`` and
  pokerkit's ``StandardHighHand.from_game``;
- enumeration of all 133,784,560 seven-card hands: ``enumerate_high_counts`` against phevaluator's C core over
  the same nested loops; treys and pokerkit are estimated from their single-call rate (hours otherwise).

Every contestant gets the same hands. phevaluator's ranks are checked to order every hand exactly as ours.

Run: ``make bench`` or ``.venv/bin/python benchmarks/bench_evaluator.py`` (needs the ``bench`` extra and a C
compiler). Prints rates (best of several rounds) and the ratio ours / peer; larger ratios favour us.
"""

from __future__ import annotations

import ctypes
import importlib
import os
import sys
import tempfile
from collections.abc import Callable
from math import comb

import headline  # benchmarks/headline.py, as timing
from cffi import FFI
from timing import best_seconds  # benchmarks/timing.py: the script's own folder is on sys.path

from stud_service import native
from stud_service.cards import card_str

BATCH_HANDS = 4_000_000
PYTHON_HANDS = 200_000
ALL_SEVEN_CARD_HANDS = comb(52, 7)

LOOP_SOURCE = r"""
#include <stddef.h>
#include <stdint.h>

typedef int (*seven_args_fn)(int, int, int, int, int, int, int);
typedef int (*array_fn)(const int *, int);

void loop_seven_args(uintptr_t fn, const uint8_t *cards, size_t n_hands, int32_t *out)
{
    seven_args_fn f = (seven_args_fn)fn;
    for (size_t i = 0; i < n_hands; i++) {
        const uint8_t *h = cards + 7 * i;
        out[i] = f(h[0], h[1], h[2], h[3], h[4], h[5], h[6]);
    }
}

void loop_array(uintptr_t fn, const uint8_t *cards, size_t n_hands, int32_t *out)
{
    array_fn f = (array_fn)fn;
    int hand[7];
    for (size_t i = 0; i < n_hands; i++) {
        for (int k = 0; k < 7; k++) hand[k] = cards[7 * i + k];
        out[i] = f(hand, 7);
    }
}

uint64_t enumerate_seven_args(uintptr_t fn)
{
    seven_args_fn f = (seven_args_fn)fn;
    uint64_t checksum = 0;
    for (int a = 0; a < 46; a++)
    for (int b = a + 1; b < 47; b++)
    for (int c = b + 1; c < 48; c++)
    for (int d = c + 1; d < 49; d++)
    for (int e = d + 1; e < 50; e++)
    for (int g = e + 1; g < 51; g++)
    for (int h = g + 1; h < 52; h++)
        checksum += (uint64_t)f(a, b, c, d, e, g, h);
    return checksum;
}
"""

LOOP_CDEF = """
void loop_seven_args(uintptr_t fn, const uint8_t *cards, size_t n_hands, int32_t *out);
void loop_array(uintptr_t fn, const uint8_t *cards, size_t n_hands, int32_t *out);
uint64_t enumerate_seven_args(uintptr_t fn);
"""


def build_loops() -> object:
    """Compiles the C loops once per run, with the same optimisation level as the core."""
    builder = FFI()
    builder.cdef(LOOP_CDEF)
    builder.set_source("_bench_loops", LOOP_SOURCE, extra_compile_args=["-O3"])
    target = tempfile.mkdtemp(prefix="bench-loops-")
    builder.compile(tmpdir=target, verbose=False)
    sys.path.insert(0, target)
    return importlib.import_module("_bench_loops")


def rate(count: int, seconds: float) -> float:
    return count / seconds


def fmt_rate(per_second: float) -> str:
    if per_second >= 1e6:
        return f"{per_second / 1e6:8.1f} M/s"
    return f"{per_second / 1e3:8.1f} k/s"


def fmt_seconds(seconds: float) -> str:
    return f"{seconds:8.3f} s" if seconds < 600 else f"{seconds / 3600:8.1f} h"


def row(what: str, ours: str, peer_name: str, peer: str, ratio: float) -> None:
    print(f"{what:<44} {ours:>14}   {peer_name:<30} {peer:>14}   {ratio:8.2f}x")


def main() -> None:
    import phevaluator
    from phevaluator import _pheval
    from pokerkit import Card as PokerkitCard
    from pokerkit import StandardHighHand
    from treys import Card as TreysCard
    from treys import Evaluator as TreysEvaluator

    threads = os.cpu_count() or 1
    print(f"C hand evaluator benchmark — {threads} CPU(s), Python {sys.version.split()[0]}, "
          f"phevaluator {getattr(phevaluator, '__version__', '0.6+')}")
    loops = build_loops()
    ffi = FFI()

    hands = native.random_hands(seed=2026, n_hands=BATCH_HANDS, cards_per_hand=7)
    out = bytearray(4 * BATCH_HANDS)
    out_ptr = ffi.from_buffer("int32_t[]", out)
    hands_ptr = ffi.from_buffer("uint8_t[]", hands)
    pheval_fn = ctypes.cast(ctypes.CDLL(_pheval.__file__).evaluate_7cards, ctypes.c_void_p).value
    ours_fn = int(native.ffi.cast("uintptr_t", native.ffi.addressof(native.lib, "stud_eval_high")))

    print(f"\n{'':<44} {'ours':>14}   {'peer':<30} {'peer':>14}   ours/peer")

    # ---- batch -------------------------------------------------------------------------------
    ours_batch = {
        n: best_seconds(lambda n=n: native.evaluate_high_batch(hands, BATCH_HANDS, 7, n_threads=n), 5)
        for n in sorted({1, threads})
    }
    pheval_loop = best_seconds(
        lambda: loops.lib.loop_seven_args(pheval_fn, hands_ptr, BATCH_HANDS, out_ptr), 5
    )
    pheval_ranks = list(memoryview(out).cast("i"))
    ours_values = native.evaluate_high_batch(hands, BATCH_HANDS, 7)
    agree = sum(1 for ours, theirs in zip(ours_values, pheval_ranks, strict=True) if ours == 7463 - theirs)
    ours_loop = best_seconds(lambda: loops.lib.loop_array(ours_fn, hands_ptr, BATCH_HANDS, out_ptr), 5)
    peer = rate(BATCH_HANDS, pheval_loop)
    for n, seconds in ours_batch.items():
        row(f"batch, random 7-card hands, {n} thread(s)", fmt_rate(rate(BATCH_HANDS, seconds)),
            "phevaluator C, loop in C", fmt_rate(peer), rate(BATCH_HANDS, seconds) / peer)
    row("single-hand C call, loop in C", fmt_rate(rate(BATCH_HANDS, ours_loop)),
        "phevaluator C, loop in C", fmt_rate(peer), pheval_loop / ours_loop)
    # No peer evaluates Razz or eight-or-better lows in C; ours are shown for scale.
    for name, batch in (("ace-to-five low", native.evaluate_low_batch),
                        ("eight-or-better", native.evaluate_eight_or_better_batch)):
        seconds = best_seconds(lambda batch=batch: batch(hands, BATCH_HANDS, 7), 3)
        print(f"{'batch, ' + name + ', 1 thread':<44} {fmt_rate(rate(BATCH_HANDS, seconds)):>14}   (no peer)")

    # ---- single calls from Python ------------------------------------------------------------
    sample = [list(hands[7 * i:7 * i + 7]) for i in range(PYTHON_HANDS)]

    def per_hand(function: Callable[[list[int]], object], count: int) -> float:
        subset = sample[:count]
        return rate(count, best_seconds(lambda: [function(hand) for hand in subset], 3))

    ours_value = per_hand(native.high_value, PYTHON_HANDS)
    ours_full = per_hand(native.evaluate_high, PYTHON_HANDS)
    pheval_cards = per_hand(lambda hand: phevaluator.evaluate_cards(*hand), PYTHON_HANDS)
    pheval_raw = per_hand(lambda hand: _pheval.evaluate_7cards(*hand), PYTHON_HANDS)
    treys_ints = {code: TreysCard.new(card_str(code)) for code in range(52)}
    treys_eval = TreysEvaluator()
    treys_sample = [[treys_ints[code] for code in hand] for hand in sample[:50_000]]
    treys_rate = rate(len(treys_sample), best_seconds(
        lambda: [treys_eval.evaluate(hand[:5], hand[5:]) for hand in treys_sample], 3))
    pokerkit_cards = {code: next(iter(PokerkitCard.parse(card_str(code)))) for code in range(52)}
    pokerkit_sample = [[pokerkit_cards[code] for code in hand] for hand in sample[:3_000]]
    pokerkit_rate = rate(len(pokerkit_sample), best_seconds(
        lambda: [StandardHighHand.from_game(hand[:2], hand[2:]) for hand in pokerkit_sample], 2))

    print()
    single_calls = [
        ("high_value(cards)", ours_value, "phevaluator evaluate_cards", pheval_cards),
        ("high_value(cards)", ours_value, "phevaluator _pheval.evaluate_7cards", pheval_raw),
        ("high_value(cards)", ours_value, "treys Evaluator.evaluate", treys_rate),
        ("high_value(cards)", ours_value, "pokerkit StandardHighHand", pokerkit_rate),
        ("evaluate_high(cards), full", ours_full, "phevaluator evaluate_cards", pheval_cards),
        ("evaluate_high(cards), full", ours_full, "treys Evaluator.evaluate", treys_rate),
        ("evaluate_high(cards), full", ours_full, "pokerkit StandardHighHand", pokerkit_rate),
    ]
    for call, ours_rate, peer_name, peer_rate in single_calls:
        ratio = ours_rate / peer_rate
        row(f"Python call: {call}", fmt_rate(ours_rate), peer_name, fmt_rate(peer_rate), ratio)

    # ---- enumeration -------------------------------------------------------------------------
    ours_enum = {n: best_seconds(lambda n=n: native.enumerate_high_counts(7, n_threads=n), 3)
                 for n in sorted({1, threads})}
    pheval_enum = best_seconds(lambda: loops.lib.enumerate_seven_args(pheval_fn), 1)
    print()
    for n, seconds in ours_enum.items():
        row(f"enumerate all 7-card hands, {n} thread(s)", fmt_seconds(seconds), "phevaluator C, nested loops",
            fmt_seconds(pheval_enum), pheval_enum / seconds)
    for name, peer_rate in (("treys (estimated)", treys_rate), ("pokerkit (estimated)", pokerkit_rate)):
        estimate = ALL_SEVEN_CARD_HANDS / peer_rate
        row(f"enumerate all 7-card hands, {max(ours_enum)} thread(s)", fmt_seconds(ours_enum[max(ours_enum)]),
            name, fmt_seconds(estimate), estimate / ours_enum[max(ours_enum)])

    print(f"\nphevaluator orders {agree:,} of {BATCH_HANDS:,} random hands exactly as we do "
          f"(its rank 1 = best, ours 7462 = best).")
    batch = rate(BATCH_HANDS, ours_batch[1])
    headline.record(
        __file__,
        what="random 7-card hands, batch API, 1 thread",
        figure=f"{batch / 1e6:.0f} M hands/s",
        peer=f"phevaluator's C core called from a C loop: {peer / 1e6:.0f} M hands/s",
        ratio=f"{batch / peer:.1f}×",
        goal="≥ 60 M hands/s",
        met=batch >= 60e6,
    )

if __name__ == "__main__":
    main()
