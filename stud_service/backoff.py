"""Capped, jittered exponential backoff for loops that wait for the database to come back.

Every background loop that meets an unreachable store (the dealer, action clocks, the table
followers and their subscription, the notification listener, the lease rounds) waits with one of
these between attempts: quickly at first, so a blip costs little, then no more than ``cap`` seconds,
so play resumes within about ``cap`` seconds of the database's return. Jitter (a random delay between
half and all of the exponential bound) keeps many tables and replicas from retrying in lockstep.
"""

from __future__ import annotations

import asyncio
import random

INITIAL_DELAY = 0.05
MAX_DELAY = 1.0


class Backoff:
    """``await backoff.wait()`` after each failure; ``reset()`` after a success."""

    def __init__(self, initial: float = INITIAL_DELAY, cap: float = MAX_DELAY) -> None:
        self.initial = initial
        self.cap = cap
        self.failures = 0

    def next_delay(self) -> float:
        bound = min(self.cap, self.initial * 2**self.failures)
        self.failures = min(self.failures + 1, 32)  # 2**32 * initial is far past any cap
        return random.uniform(bound / 2, bound)  # half fixed, half jitter: never a busy retry

    async def wait(self) -> None:
        await asyncio.sleep(self.next_delay())

    def reset(self) -> None:
        self.failures = 0
