"""The provably fair shuffle: a deck order fixed by seeds, the server's committed before any player's.

The specification, with test vectors, is docs/fairness.md ("The specification"); this module is its
deck, ``stud_service.deck_proof`` its Merkle tree of salted cards and the per-card proofs.

For every hand the service draws a fresh 32-byte **server seed** from the operating system's CSPRNG
(``secrets.token_bytes``) and publishes its **commitment** (in ``ShuffleCommitted``) before any client
seed for that hand can be set::

    commitment = lowercase hex of SHA-256(server_seed)

Players may then contribute **client seeds** (any bytes; text is taken as its UTF-8 bytes), keyed by seat.
The deck follows from both:

1. Canonical client-seed message ``M``: for each seat in increasing seat order,
   ``u32be(seat) || u32be(len(seed)) || seed``.  No client seeds: ``M`` is empty.
2. Random byte stream: blocks ``HMAC-SHA256(key=server_seed, msg=M || u64be(k))`` for k = 0, 1, 2, ...
   concatenated.  The stream is read 4 bytes at a time, each read as a big-endian unsigned 32-bit
   integer ``x``.
3. Uniform draw in ``[0, n)``: let ``limit = floor(2**32 / n) * n``; read ``x`` values until one is
   ``< limit`` (larger values are rejected, which removes modulo bias); the draw is ``x mod n``.
4. Fisher–Yates: start from ``deck = [0, 1, ..., 51]`` (card codes of ``stud_service.cards``:
   ``rank_index * 4 + suit_index``); for ``i`` from 51 down to 1: ``j = draw(i + 1)``;
   swap ``deck[i]`` and ``deck[j]``.
5. Cards are dealt from the front: ``deck[0]`` is the first card dealt, ``deck[1]`` the second, ...

The seed is not published with the hand: ``HandStarted`` publishes the deck's Merkle root, each card is
proven to whoever may see it, and only auditors and operators (or everyone after the operator's delayed
reveal) get the seed and so can recompute the whole deck as above.

>>> seed = bytes(range(32))
>>> commitment(seed)
'630dcd2966c4336691125448bbb25b4ff412a49c732db2c8abc1b8581bd710dd'
>>> deck_order(seed, {})[:5]
[43, 50, 47, 9, 33]
>>> deck_order(seed, {1: "alice", 3: "bob"})[:5]
[13, 7, 20, 34, 11]
>>> from stud_service.deck_proof import DeckTree
>>> DeckTree.build(deck_order(seed, {}), seed).root_hex
'2f393d24471836e37a984d05b7ded3724806c90e5046fc2df8f168f65410cb44'
"""

from __future__ import annotations

import hashlib
import hmac
import secrets
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass
from typing import Any

from stud_service.cards import DECK_SIZE
from stud_service.deck_proof import deck_root

SERVER_SEED_BYTES = 32
_U32_RANGE = 1 << 32

ClientSeeds = Mapping[int, bytes | str]


@dataclass(frozen=True)
class ShuffledDeck:
    """A deck order with what is needed to prove it later."""

    cards: tuple[int, ...]
    server_seed: bytes
    client_seeds: dict[int, bytes]
    commitment: str


def new_server_seed() -> bytes:
    """32 bytes from the operating system's CSPRNG."""
    return secrets.token_bytes(SERVER_SEED_BYTES)


def commitment(server_seed: bytes) -> str:
    """Lowercase hex SHA-256 of the server seed, published before the deal."""
    return hashlib.sha256(server_seed).hexdigest()


def _as_bytes(seed: bytes | str) -> bytes:
    return seed.encode("utf-8") if isinstance(seed, str) else bytes(seed)


def canonical_client_seeds(client_seeds: ClientSeeds) -> bytes:
    """Step 1: ``u32be(seat) || u32be(len) || seed`` per seat, seats ascending."""
    parts = []
    for seat in sorted(client_seeds):
        seed = _as_bytes(client_seeds[seat])
        parts.append(seat.to_bytes(4, "big") + len(seed).to_bytes(4, "big") + seed)
    return b"".join(parts)


def u32_stream(server_seed: bytes, client_seeds: ClientSeeds) -> Iterator[int]:
    """Step 2: the HMAC-SHA256 counter stream, as big-endian u32 values."""
    message = canonical_client_seeds(client_seeds)
    counter = 0
    while True:
        block = hmac.new(server_seed, message + counter.to_bytes(8, "big"), hashlib.sha256).digest()
        for offset in range(0, len(block), 4):
            yield int.from_bytes(block[offset:offset + 4], "big")
        counter += 1


def uniform_below(n: int, next_u32: Callable[[], int]) -> int:
    """Step 3: a uniform integer in [0, n) by rejection sampling (no modulo bias)."""
    if not 0 < n <= _U32_RANGE:
        raise ValueError(f"cannot draw below {n}")
    limit = (_U32_RANGE // n) * n
    while True:
        x = next_u32()
        if x < limit:
            return x % n


def fisher_yates(cards: list[int], next_u32: Callable[[], int]) -> list[int]:
    """Step 4: shuffle ``cards`` in place (and return it), last position first."""
    for i in range(len(cards) - 1, 0, -1):
        j = uniform_below(i + 1, next_u32)
        cards[i], cards[j] = cards[j], cards[i]
    return cards


def deck_order(server_seed: bytes, client_seeds: ClientSeeds) -> list[int]:
    """The deck, first card dealt first, fixed by the seeds."""
    stream = u32_stream(server_seed, client_seeds)
    return fisher_yates(list(range(DECK_SIZE)), stream.__next__)


def shuffle_deck(client_seeds: ClientSeeds | None = None) -> ShuffledDeck:
    """A fresh server seed and the deck it (with the client seeds) fixes."""
    seeds = {seat: _as_bytes(seed) for seat, seed in (client_seeds or {}).items()}
    server_seed = new_server_seed()
    return ShuffledDeck(
        cards=tuple(deck_order(server_seed, seeds)),
        server_seed=server_seed,
        client_seeds=seeds,
        commitment=commitment(server_seed),
    )


def verify_deck(server_seed: bytes, client_seeds: ClientSeeds, published_commitment: str,
                dealt: Mapping[int, int] | None = None) -> bool:
    """True when the seed matches the commitment and every ``{deck position: card}`` in ``dealt`` agrees."""
    if not hmac.compare_digest(commitment(server_seed), published_commitment.lower()):
        return False
    deck = deck_order(server_seed, client_seeds)
    return all(deck[position] == card for position, card in (dealt or {}).items())


@dataclass(frozen=True)
class PreparedDeal:
    """What the dealer passes to ``StartHand``: the deck, the commitment and the hand's public extra
    (``client_seeds`` by seat, ``deck_root`` of the salted Merkle tree, ``commitment_version``: the
    version of the ShuffleCommitted event that committed the seed before any client seed was set)."""

    cards: tuple[int, ...]
    commitment: str
    extra: dict[str, Any]


def seed_secret(server_seed: bytes, member: str = "server_seed") -> dict[str, str]:
    """What a ShuffleCommitted keeps (sealed at rest) of the seed it commits: ``{"server_seed": hex}``
    (another commit-then-reveal names its own ``member``)."""
    return {member: server_seed.hex()}


def seed_from_secret(secret: Any, member: str = "server_seed") -> bytes | None:
    """The seed a ShuffleCommitted's ``secret`` holds (``seed_secret``, under ``member``); None when it holds
    none."""
    seed = secret.get(member) if isinstance(secret, dict) else None
    if not isinstance(seed, str):
        return None
    try:
        return bytes.fromhex(seed)
    except ValueError:
        return None


def new_commitment() -> tuple[bytes, str]:
    """A fresh server seed and its commitment, published (ShuffleCommitted) before the hand's client seeds."""
    server_seed = new_server_seed()
    return server_seed, commitment(server_seed)


def prepare_deal(
    server_seed: bytes, client_seeds: Mapping[int, str], commitment_version: int
) -> PreparedDeal:
    """The deal a committed ``server_seed`` and the players' ``client_seeds`` fix (the dealer's and the
    simulator's alike)."""
    cards = tuple(deck_order(server_seed, client_seeds))
    return PreparedDeal(
        cards=cards,
        commitment=commitment(server_seed),
        extra={
            "client_seeds": {str(seat): str(seed) for seat, seed in sorted(client_seeds.items())},
            "deck_root": deck_root(cards, server_seed),
            "commitment_version": int(commitment_version),
        },
    )
