"""The provably fair shuffle (stud_service.shuffle): commitment, deck order, no modulo bias."""

from __future__ import annotations

import doctest
import hashlib
import hmac

import pytest

from stud_service import shuffle
from stud_service.shuffle import (
    commitment,
    deck_order,
    fisher_yates,
    shuffle_deck,
    uniform_below,
    verify_deck,
)

SEED = bytes(range(32))
KNOWN_DECK = [
    13, 7, 20, 34, 11, 9, 14, 51, 24, 5, 0, 3, 23, 37, 27, 30, 19, 31, 15, 41, 45, 44, 49, 21, 18, 4,
    47, 22, 28, 38, 32, 48, 25, 12, 1, 36, 50, 35, 29, 33, 10, 43, 26, 2, 8, 39, 17, 46, 40, 16, 42, 6,
]
KNOWN_ROOT = "bb17921562dd0ae37f3d110ed8967651bda7266122f63df5e6a03a83d65fc5d5"  # deck_root of KNOWN_DECK


def reference_deck(server_seed: bytes, client_seeds: dict[int, bytes]) -> list[int]:
    """The algorithm written again from the module docstring alone, as an outsider would."""
    message = b"".join(
        seat.to_bytes(4, "big") + len(seed).to_bytes(4, "big") + seed
        for seat, seed in sorted(client_seeds.items())
    )
    stream = b""
    counter = 0
    position = 0

    def next_u32() -> int:
        nonlocal stream, counter, position
        if position + 4 > len(stream):
            stream += hmac.new(server_seed, message + counter.to_bytes(8, "big"), hashlib.sha256).digest()
            counter += 1
        value = int.from_bytes(stream[position:position + 4], "big")
        position += 4
        return value

    deck = list(range(52))
    for i in range(51, 0, -1):
        n = i + 1
        limit = (2**32 // n) * n
        x = next_u32()
        while x >= limit:
            x = next_u32()
        j = x % n
        deck[i], deck[j] = deck[j], deck[i]
    return deck


def test_module_docstring_examples_run() -> None:
    assert doctest.testmod(shuffle).failed == 0


def test_known_answer_vector() -> None:
    """A fixed vector so any reimplementation (or change) can be checked byte for byte."""
    assert commitment(SEED) == "630dcd2966c4336691125448bbb25b4ff412a49c732db2c8abc1b8581bd710dd"
    assert deck_order(SEED, {1: "alice", 3: b"bob"}) == KNOWN_DECK


@pytest.mark.parametrize("index", range(20))
def test_matches_an_independent_reimplementation(index: int) -> None:
    server_seed = hashlib.sha256(b"seed %d" % index).digest()
    client_seeds = {seat: b"client %d/%d" % (index, seat) for seat in range(1, 1 + index % 9)}
    assert deck_order(server_seed, client_seeds) == reference_deck(server_seed, client_seeds)


def test_deck_is_a_permutation_and_deterministic() -> None:
    deck = deck_order(SEED, {2: "x"})
    assert sorted(deck) == list(range(52))
    assert deck == deck_order(SEED, {2: "x"})


def test_client_seeds_change_the_deck_and_are_read_in_seat_order() -> None:
    assert deck_order(SEED, {1: "a"}) != deck_order(SEED, {})
    assert deck_order(SEED, {1: "a"}) != deck_order(SEED, {2: "a"})
    assert deck_order(SEED, {1: "a", 2: "b"}) == deck_order(SEED, {2: "b", 1: "a"})
    assert deck_order(SEED, {1: "é"}) == deck_order(SEED, {1: "é".encode()})


def test_rejection_sampling_discards_values_that_would_bias_the_draw() -> None:
    """For n = 3 the top value 2**32 - 1 lies past the last whole multiple of 3 and must be redrawn."""
    values = iter([2**32 - 1, 2**32 - 2, 7])
    assert uniform_below(3, values.__next__) == (2**32 - 2) % 3
    assert next(values) == 7  # exactly one value was rejected, one accepted


def test_rejection_sampling_for_fifty_two() -> None:
    limit = (2**32 // 52) * 52
    values = iter([limit, limit + 51, limit - 1])
    assert uniform_below(52, values.__next__) == (limit - 1) % 52


def test_fisher_yates_swaps_from_the_last_position_down() -> None:
    """Always drawing 0 swaps positions 3, 2, 1 in turn with the front: [0, 1, 2, 3] -> [1, 2, 3, 0]."""
    assert fisher_yates([0, 1, 2, 3], lambda: 0) == [1, 2, 3, 0]


def test_fresh_shuffles_use_new_32_byte_seeds_and_verify() -> None:
    first, second = shuffle_deck(), shuffle_deck({1: "mine"})
    assert len(first.server_seed) == 32 and first.server_seed != second.server_seed
    assert first.commitment == commitment(first.server_seed)
    dealt = {0: second.cards[0], 51: second.cards[51]}
    assert verify_deck(second.server_seed, {1: "mine"}, second.commitment, dealt)


def test_verification_fails_on_a_wrong_seed_or_card() -> None:
    deck = shuffle_deck()
    assert not verify_deck(bytes(32), {}, deck.commitment)
    wrong_card = (deck.cards[0] + 1) % 52
    assert not verify_deck(deck.server_seed, {}, deck.commitment, {0: wrong_card})


def test_each_card_lands_in_each_position_uniformly() -> None:
    """Chi-square over 6,000 shuffles (fixed seeds: reproducible) of where three cards land."""
    shuffles = 6000
    counts = {card: [0] * 52 for card in (0, 25, 51)}
    for index in range(shuffles):
        deck = deck_order(hashlib.sha256(index.to_bytes(4, "big")).digest(), {})
        for position, card in enumerate(deck):
            if card in counts:
                counts[card][position] += 1
    expected = shuffles / 52
    for positions in counts.values():
        chi_square = sum((observed - expected) ** 2 / expected for observed in positions)
        assert chi_square < 87.97  # 51 degrees of freedom, p = 0.001


def test_prepare_deal_fixes_the_deck_and_publishes_its_root() -> None:
    from stud_service.deck_proof import DeckTree
    from stud_service.shuffle import new_commitment, prepare_deal

    server_seed, published = new_commitment()
    assert len(server_seed) == 32 and published == commitment(server_seed)
    deal = prepare_deal(server_seed, {3: "bob", 1: "alice"}, commitment_version=7)
    assert deal.cards == tuple(deck_order(server_seed, {1: "alice", 3: "bob"}))
    assert deal.commitment == published
    assert deal.extra == {
        "client_seeds": {"1": "alice", "3": "bob"},
        "deck_root": DeckTree.build(deal.cards, server_seed).root_hex,
        "commitment_version": 7,
    }
    assert "server_seed" not in deal.extra  # the seed stays in the sealed ShuffleCommitted


def test_prepare_deal_known_answer() -> None:
    """The root of the known-answer deck, for reimplementations of the specification (docs/fairness.md)."""
    from stud_service.shuffle import prepare_deal

    deal = prepare_deal(SEED, {1: "alice", 3: "bob"}, 1)
    assert list(deal.cards) == KNOWN_DECK
    assert deal.extra["deck_root"] == KNOWN_ROOT
