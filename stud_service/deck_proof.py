"""Proofs of single cards against a deck committed before the deal, revealing nothing else.

The deck is committed to as a Merkle tree (RFC 6962 / RFC 9162 §2.1, SHA-256) of 52 salted leaves, one
per deck position, in position order; the root (``deck_root``) is published with the hand.  A card is
proven by its position, its code, its salt and its inclusion proof (audit path).  The salts are derived
from the server seed, so whoever holds the seed can rebuild the tree, and whoever does not learns from a
proof only the one card it proves: the sibling hashes cover salted leaves, and a salt is 32 bytes no one
can guess.

* salt of position ``p``: ``HMAC-SHA256(key=server_seed, msg=b"stud-service/deck-salt/v1" || u8(p))``
* leaf data: ``u8(p) || u8(card) || salt[p]``; leaf hash: ``SHA-256(0x00 || leaf data)``
* interior node: ``SHA-256(0x01 || left || right)``; a list of n > 1 leaves splits at the largest power
  of two smaller than n (left: that many leaves, right: the rest); the hash of no leaves is SHA-256("").
* inclusion proof of leaf m in n leaves: RFC 9162 §2.1.3.1 ``PATH(m, D_n)``, checked by §2.1.3.2.

JSON form of a proof: ``{"position": p, "card": c, "salt": "<hex>", "path": ["<hex>", ...]}``.
"""

from __future__ import annotations

import hashlib
import hmac
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from stud_service.cards import DECK_SIZE

SALT_DOMAIN = b"stud-service/deck-salt/v1"
HASH_BYTES = 32
_LEAF_PREFIX = b"\x00"
_NODE_PREFIX = b"\x01"
_MAX_PATH = 64  # no tree here is deeper; a longer path is malformed, not merely wrong


class MalformedProof(ValueError):
    """A proof's JSON is not a proof: a missing field, a wrong type, a bad hex string or length."""


def deck_salts(server_seed: bytes) -> tuple[bytes, ...]:
    """The 52 per-position salts the server seed fixes: HMAC-SHA256 of the domain and the position, the
    keyed state (the key's pads and the domain) computed once and copied per position (``hmac`` copies)."""
    keyed = hmac.new(server_seed, SALT_DOMAIN, "sha256")
    salts = []
    for position in range(DECK_SIZE):
        salt = keyed.copy()
        salt.update(bytes((position,)))
        salts.append(salt.digest())
    return tuple(salts)


def hash_leaf(data: bytes) -> bytes:
    """RFC 6962 leaf hash: SHA-256(0x00 || data)."""
    return hashlib.sha256(_LEAF_PREFIX + data).digest()


def hash_children(left: bytes, right: bytes) -> bytes:
    """RFC 6962 interior node: SHA-256(0x01 || left || right)."""
    return hashlib.sha256(_NODE_PREFIX + left + right).digest()


def leaf_hash(position: int, card: int, salt: bytes) -> bytes:
    """The leaf of ``card`` at deck ``position``: SHA-256(0x00 || u8(p) || u8(card) || salt)."""
    return hash_leaf(bytes([position, card]) + salt)


def _split(n: int) -> int:
    """The largest power of two smaller than n (n > 1)."""
    return 1 << ((n - 1).bit_length() - 1)


def _subtree(leaves: Sequence[bytes], lo: int, hi: int, cache: dict[tuple[int, int], bytes] | None) -> bytes:
    if cache is not None and (lo, hi) in cache:
        return cache[(lo, hi)]
    n = hi - lo
    if n == 0:
        digest = hashlib.sha256(b"").digest()
    elif n == 1:
        digest = leaves[lo]
    else:
        k = lo + _split(n)
        digest = hash_children(_subtree(leaves, lo, k, cache), _subtree(leaves, k, hi, cache))
    if cache is not None:
        cache[(lo, hi)] = digest
    return digest


def merkle_root(leaves: Sequence[bytes]) -> bytes:
    """RFC 6962 Merkle Tree Hash over already hashed ``leaves`` (``leaf_hash``/``hash_leaf``).

    Computed level by level, pairing neighbours and carrying an odd last node up unchanged: the same
    tree as splitting at the largest power of two, without the recursion (verification runs it per hand)."""
    if not leaves:
        return hashlib.sha256(b"").digest()
    level = list(leaves)
    while len(level) > 1:
        paired = [hash_children(level[i], level[i + 1]) for i in range(0, len(level) - 1, 2)]
        if len(level) % 2:
            paired.append(level[-1])
        level = paired
    return level[0]


def _path(leaves: Sequence[bytes], index: int, lo: int, hi: int,
          cache: dict[tuple[int, int], bytes] | None) -> list[bytes]:
    n = hi - lo
    if n <= 1:
        return []
    k = lo + _split(n)
    if index < k:
        return _path(leaves, index, lo, k, cache) + [_subtree(leaves, k, hi, cache)]
    return _path(leaves, index, k, hi, cache) + [_subtree(leaves, lo, k, cache)]


def inclusion_path(leaves: Sequence[bytes], index: int,
                   _cache: dict[tuple[int, int], bytes] | None = None) -> tuple[bytes, ...]:
    """RFC 9162 §2.1.3.1 ``PATH(index, leaves)``: the sibling hashes from the leaf up to the root."""
    if not 0 <= index < len(leaves):
        raise IndexError(f"leaf {index} is not in a tree of {len(leaves)}")
    return tuple(_path(leaves, index, 0, len(leaves), _cache))


def verify_inclusion(leaf: bytes, index: int, size: int, path: Sequence[bytes], root: bytes) -> bool:
    """RFC 9162 §2.1.3.2: does ``path`` prove ``leaf`` (a leaf hash) at ``index`` of a tree of ``size``
    leaves with ``root``?"""
    if not 0 <= index < size:
        return False
    fn, sn, r = index, size - 1, leaf
    for p in path:
        if sn == 0:
            return False
        if fn & 1 or fn == sn:
            r = hash_children(p, r)
            while not fn & 1 and fn != 0:
                fn >>= 1
                sn >>= 1
        else:
            r = hash_children(r, p)
        fn >>= 1
        sn >>= 1
    return sn == 0 and hmac.compare_digest(r, root)


def _hex_bytes(value: Any, what: str) -> bytes:
    if not isinstance(value, str) or len(value) != 2 * HASH_BYTES:
        raise MalformedProof(f"{what} must be {2 * HASH_BYTES} hex digits")
    try:
        return bytes.fromhex(value)
    except ValueError:
        raise MalformedProof(f"{what} is not hex") from None


def _small_int(value: Any, what: str) -> int:
    if not isinstance(value, int) or isinstance(value, bool) or not 0 <= value < DECK_SIZE:
        raise MalformedProof(f"{what} must be an integer from 0 to {DECK_SIZE - 1}")
    return value


@dataclass(frozen=True)
class CardProof:
    """The card at deck ``position`` with its salt and its inclusion proof."""

    position: int
    card: int
    salt: bytes
    path: tuple[bytes, ...]

    def to_json(self) -> dict[str, Any]:
        return {
            "position": self.position,
            "card": self.card,
            "salt": self.salt.hex(),
            "path": [node.hex() for node in self.path],
        }

    @classmethod
    def from_json(cls, data: Any) -> CardProof:
        """The proof in ``data``; MalformedProof (naming the position when it is known) otherwise."""
        if not isinstance(data, Mapping):
            raise MalformedProof("a card proof must be a JSON object")
        missing = [key for key in ("position", "card", "salt", "path") if key not in data]
        if missing:
            raise MalformedProof(f"card proof lacks {', '.join(missing)}")
        position = _small_int(data["position"], "a card proof's position")
        where = f"the proof of position {position}"
        card = _small_int(data["card"], f"the card of {where}")
        salt = _hex_bytes(data["salt"], f"the salt of {where}")
        path = data["path"]
        if not isinstance(path, list | tuple) or len(path) > _MAX_PATH:
            raise MalformedProof(f"the path of {where} must be a list of at most {_MAX_PATH} hashes")
        nodes = tuple(_hex_bytes(node, f"hash {i} of the path of {where}") for i, node in enumerate(path))
        return cls(position, card, salt, nodes)

    @property
    def leaf(self) -> bytes:
        return leaf_hash(self.position, self.card, self.salt)


def check_card_proof(proof: CardProof, root_hex: str, size: int = DECK_SIZE) -> bool:
    """True when ``proof`` shows its card at its position of the deck committed to by ``root_hex``."""
    try:
        root = bytes.fromhex(root_hex)
    except (TypeError, ValueError):
        return False
    if len(root) != HASH_BYTES or len(proof.salt) != HASH_BYTES:
        return False
    if not 0 <= proof.card < DECK_SIZE:
        return False
    return verify_inclusion(proof.leaf, proof.position, size, proof.path, root)


@dataclass(frozen=True)
class DeckTree:
    """A dealt deck's Merkle tree: its root and the proof of any position."""

    cards: tuple[int, ...]
    salts: tuple[bytes, ...]
    leaves: tuple[bytes, ...]
    root: bytes
    _nodes: dict[tuple[int, int], bytes] = field(repr=False, compare=False)

    @classmethod
    def build(cls, deck: Sequence[int], server_seed: bytes) -> DeckTree:
        cards = tuple(deck)
        if len(cards) != DECK_SIZE:
            raise ValueError(f"a deck has {DECK_SIZE} cards, not {len(cards)}")
        salts = deck_salts(server_seed)
        leaves = tuple(leaf_hash(position, card, salts[position]) for position, card in enumerate(cards))
        return cls(cards, salts, leaves, merkle_root(leaves), {})  # interior nodes: filled by proof()

    @property
    def root_hex(self) -> str:
        return self.root.hex()

    def proof(self, position: int) -> CardProof:
        path = inclusion_path(self.leaves, position, self._nodes)
        return CardProof(position, self.cards[position], self.salts[position], path)


def deck_root(deck: Sequence[int], server_seed: bytes) -> str:
    """The hex root the dealer publishes for ``deck`` dealt with ``server_seed``."""
    return DeckTree.build(deck, server_seed).root_hex
