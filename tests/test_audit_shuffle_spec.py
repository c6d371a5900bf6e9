"""The shuffle as the README documents it, reimplemented from the text alone, agrees with the service.

This is what an outside verifier would write (the audit issue: "document the algorithm precisely so
an outsider can reimplement it"); the test vectors are the ones printed in the README.
"""

from __future__ import annotations

import hashlib
import hmac
import random

from stud_service.shuffle import commitment, deck_order

# The README's card table: code = rank_index * 4 + suit_index, ranks 2..A, suits c d h s.
CARD_CODES = [rank + suit for rank in "23456789TJQKA" for suit in "cdhs"]


def outsider_deck(server_seed: bytes, client_seeds: dict[int, str]) -> list[int]:
    message = b"".join(
        seat.to_bytes(4, "big") + len(seed.encode()).to_bytes(4, "big") + seed.encode()
        for seat, seed in sorted(client_seeds.items())
    )
    words: list[int] = []
    counter = 0

    def next_word() -> int:
        nonlocal counter
        if not words:
            block = hmac.new(server_seed, message + counter.to_bytes(8, "big"), hashlib.sha256).digest()
            words.extend(int.from_bytes(block[i : i + 4], "big") for i in range(0, 32, 4))
            counter += 1
        return words.pop(0)

    deck = list(range(52))
    for i in range(51, 0, -1):
        n = i + 1
        limit = (2**32 // n) * n
        while (x := next_word()) >= limit:
            pass
        j = x % n
        deck[i], deck[j] = deck[j], deck[i]
    return deck


def test_readme_vectors():
    seed = bytes(range(32))
    assert commitment(seed) == "630dcd2966c4336691125448bbb25b4ff412a49c732db2c8abc1b8581bd710dd"
    assert [CARD_CODES[c] for c in deck_order(seed, {})[:5]] == ["Qs", "Ah", "Ks", "4d", "Td"]
    with_seeds = deck_order(seed, {3: "bob", 1: "alice"})
    assert [CARD_CODES[c] for c in with_seeds[:5]] == ["5d", "3s", "7c", "Th", "4s"]


def test_the_documented_algorithm_is_the_service_algorithm():
    rng = random.Random(7)
    for _ in range(200):
        seed = rng.randbytes(32)
        seats = rng.sample(range(1, 9), rng.randint(0, 8))
        seeds = {seat: "".join(rng.choice("abcxyz é♠0") for _ in range(rng.randint(1, 12))) for seat in seats}
        assert outsider_deck(seed, seeds) == deck_order(seed, seeds)
