"""The tournament's draws (RULES.md §11): seats, the player moved, a broken table's players, shared places'
odd units.  Every draw reads a seed committed before it, as the shuffle does, so an auditor recomputes it.

Commit-then-reveal: the tournament's log holds ``DrawCommitted(draw, commitment, secret)`` with its
creation and again after each draw, so the seed of the next draw is fixed before anything it decides is
known (entrants, hand results).  ``commitment`` is the lowercase hex SHA-256 of the 32-byte seed
(``stud_service.shuffle.commitment``); ``secret`` (``{"seed": hex}``) is sealed at rest and never shown.
A command whose events draw reveals the seed first (``DrawRevealed(draw, seed)``) and commits the next.

The random stream of a seed is the shuffle's (README "The provably fair shuffle", steps 2 and 3) with a
client-seed message of seat 0 holding ``tournament-draw``: blocks ``HMAC-SHA256(key=seed,
msg=u32be(0) || u32be(15) || b"tournament-draw" || u64be(k))``, read as big-endian u32 values, each draw
below n by rejection (``shuffle.uniform_below``); a deck never has a seat 0, so no deck shares a stream
with a draw.  One seed serves every draw of the command that reveals it, read in the order of the events
that follow its DrawRevealed.  A shuffle is ``shuffle.fisher_yates`` of the list as given.

>>> draw = Draw(bytes(range(32)))
>>> draw.below(10), draw.shuffled(["ann", "bob", "cy"])
(3, ['bob', 'ann', 'cy'])
"""

from __future__ import annotations

import hmac
from collections.abc import Iterable, Sequence
from typing import Any, TypeVar

from stud_service.shuffle import (
    SERVER_SEED_BYTES,
    commitment,
    fisher_yates,
    seed_from_secret,
    seed_secret,
    u32_stream,
    uniform_below,
)

DRAW_STREAM_LABEL = b"tournament-draw"
SEED_BYTES = SERVER_SEED_BYTES  # as the shuffle's: 32 bytes from the operating system's CSPRNG
DRAW_SECRET_MEMBER = "seed"  # a DrawCommitted's secret: {"seed": hex}
T = TypeVar("T")


class Draw:
    """The random stream of one revealed seed."""

    def __init__(self, seed: bytes) -> None:
        self.seed = seed
        self._next = u32_stream(seed, {0: DRAW_STREAM_LABEL}).__next__

    def below(self, n: int) -> int:
        """A uniform integer in [0, n)."""
        return uniform_below(n, self._next)

    def choice(self, items: Sequence[T]) -> T:
        return items[self.below(len(items))]

    def shuffled(self, items: Iterable[T]) -> list[T]:
        return fisher_yates(list(items), self._next)  # type: ignore[arg-type]


def draw_secret(seed: bytes) -> dict[str, str]:
    """What a DrawCommitted keeps of its seed (sealed at rest, like a ShuffleCommitted's)."""
    return seed_secret(seed, DRAW_SECRET_MEMBER)


def seed_of(secret: Any) -> bytes | None:
    """The seed a DrawCommitted's ``secret`` holds, or None when it holds none."""
    return seed_from_secret(secret, DRAW_SECRET_MEMBER)


def is_commitment(text: object) -> bool:
    """64 lowercase hex digits, as ``shuffle.commitment`` writes them."""
    return isinstance(text, str) and len(text) == 64 and not text.strip("0123456789abcdef")


def opens(seed: bytes, committed: str) -> bool:
    """The seed is the one ``committed`` commits to."""
    return hmac.compare_digest(commitment(seed), committed)
