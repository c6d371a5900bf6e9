"""Decks dealt by the production shuffle, in batches the card tests count.

Deck i is ``stud_service.shuffle.fisher_yates(list(range(52)), u32_stream(seed_i, {}).__next__)``, which is
what ``deck_order(seed_i, {})`` runs (docs/fairness.md §2), with the values the shuffle reads counted on the
way so the rejections of step 3 can be shown; ``dealt_deck`` is checked against ``deck_order`` by the tests
and by every report. Seeds come from ``seeds.SeedSource`` (label ``DECK_LABEL``): the OS CSPRNG as in
production, or derived from a master seed for a reproducible run.
"""

from __future__ import annotations

import itertools
import multiprocessing
import operator
import random
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass

import numpy as np

from stud_service.cards import DECK_SIZE
from stud_service.rng.seeds import DECK_LABEL, SeedSource
from stud_service.shuffle import fisher_yates, u32_stream

DRAWS_PER_DECK = DECK_SIZE - 1  # Fisher–Yates draws once for each position from 51 down to 1


def dealt_deck(server_seed: bytes, stream: Iterator[int] | None = None) -> tuple[list[int], int]:
    """The deck ``server_seed`` deals (no client seeds) and how many stream values were rejected
    (``stream``, for the tests: other values in the place of the seed's)."""
    values = u32_stream(server_seed, {}) if stream is None else stream
    counter = itertools.count()
    # zip takes a value from the stream, then one from the counter: the counter counts values read.
    next_value = map(operator.itemgetter(0), zip(values, counter, strict=False)).__next__
    deck = fisher_yates(list(range(DECK_SIZE)), next_value)
    return deck, next(counter) - DRAWS_PER_DECK


@dataclass(frozen=True)
class Batch:
    first: int  # index of its first deck
    decks: np.ndarray  # (n, 52) uint8, deck[k] the k-th card dealt
    rejections: int  # stream values rejected by the shuffle's draws (docs/fairness.md §2.9)


Deal = Callable[[bytes], tuple[list[int], int]]  # a seed -> (deck, values rejected): ``dealt_deck``


def deal_batch(seeds: SeedSource, first: int, count: int, deal: Deal = dealt_deck) -> Batch:
    seeder = seeds.seeder(DECK_LABEL)
    decks = np.empty((count, DECK_SIZE), dtype=np.uint8)
    rejections = 0
    for row in range(count):
        deck, rejected = deal(seeder(first + row))
        decks[row] = deck
        rejections += rejected
    return Batch(first, decks, rejections)


def _deal_batch_args(args: tuple[SeedSource, int, int, Deal]) -> Batch:
    return deal_batch(*args)


def batches(seeds: SeedSource, decks: int, batch: int, jobs: int = 1,
            deal: Deal = dealt_deck) -> Iterator[Batch]:
    """``decks`` decks in batches of ``batch``, in order; ``jobs`` processes deal them (``deal`` is the
    production shuffle; the tests pass deliberately biased ones, which must fail the report)."""
    work = [(seeds, first, min(batch, decks - first), deal) for first in range(0, decks, batch)]
    if jobs <= 1:
        yield from map(_deal_batch_args, work)
        return
    with multiprocessing.get_context("spawn").Pool(jobs) as pool:
        yield from pool.imap(_deal_batch_args, work)


@dataclass(frozen=True)
class Throughput:
    decks: int
    ours_per_second: float  # dealt_deck with seeds as ``seeds`` gives them
    system_random_per_second: float  # random.SystemRandom().shuffle of a 52-card list

    @property
    def ratio(self) -> float:
        return self.ours_per_second / self.system_random_per_second


def _rate(run: Callable[[int], object], count: int) -> float:
    start = time.perf_counter()
    for index in range(count):
        run(index)
    return count / (time.perf_counter() - start)


THROUGHPUT_DECKS = 20_000  # per round and contender: the rates settle well before


def measure_throughput(seeds: SeedSource, decks: int = THROUGHPUT_DECKS, rounds: int = 3) -> Throughput:
    """Decks a second, one process: the report's sampler against ``random.SystemRandom().shuffle`` (the
    standard library's shuffle on the OS CSPRNG), alternated ``rounds`` times, best of each."""
    seeder = seeds.seeder(DECK_LABEL)
    system = random.SystemRandom()
    cards = list(range(DECK_SIZE))
    ours = theirs = 0.0
    for _ in range(rounds):
        ours = max(ours, _rate(lambda index: dealt_deck(seeder(index)), decks))
        theirs = max(theirs, _rate(lambda _index: system.shuffle(cards), decks))
    return Throughput(decks, ours, theirs)
