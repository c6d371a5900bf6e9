"""The deck's Merkle commitment (stud_service.deck_proof): RFC 6962 hashing, inclusion proofs, card proofs.

The reference vectors are Certificate Transparency's: the eight leaves, the tree heads of every prefix
(``kSHA256Roots``) and the audit paths (``kSHA256Paths``) of google/certificate-transparency
``cpp/merkletree/merkle_tree_test.cc`` (the same values are in its ``python/ct/crypto/merkle_test.py``),
the test data of RFC 6962 implementations since.
"""

from __future__ import annotations

import hashlib
import hmac

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from stud_service.deck_proof import (
    SALT_DOMAIN,
    CardProof,
    DeckTree,
    MalformedProof,
    check_card_proof,
    deck_salts,
    hash_leaf,
    inclusion_path,
    leaf_hash,
    merkle_root,
    verify_inclusion,
)
from stud_service.shuffle import deck_order

CT_LEAVES = [
    bytes.fromhex(h)
    for h in ("", "00", "10", "2021", "3031", "40414243", "5051525354555657",
              "606162636465666768696a6b6c6d6e6f")
]
CT_ROOTS = [  # MTH of the first 1, 2, ..., 8 leaves
    "6e340b9cffb37a989ca544e6bb780a2c78901d3fb33738768511a30617afa01d",
    "fac54203e7cc696cf0dfcb42c92a1d9dbaf70ad9e621f4bd8d98662f00e3c125",
    "aeb6bcfe274b70a14fb067a5e5578264db0fa9b51af5e0ba159158f329e06e77",
    "d37ee418976dd95753c1c73862b9398fa2a2cf9b4ff0fdfe8b30cd95209614b7",
    "4e3bbb1f7b478dcfe71fb631631519a3bca12c9aefca1612bfce4c13a86264d4",
    "76e67dadbcdf1e10e1b74ddc608abd2f98dfb16fbce75277b5232a127f2087ef",
    "ddb89be403809e325750d3d263cd78929c2942b7942a34b77e122c9594a74c8c",
    "5dc9da79a70659a9ad559cb701ded9a2ab9d823aad2f4960cfe370eff4604328",
]
# (leaf index from 0, tree size, path); the CT file numbers leaves from 1.
CT_PATHS = [
    (0, 1, []),
    (0, 8, ["96a296d224f285c67bee93c30f8a309157f0daa35dc5b87e410b78630a09cfc7",
            "5f083f0a1a33ca076a95279832580db3e0ef4584bdff1f54c8a360f50de3031e",
            "6b47aaf29ee3c2af9af889bc1fb9254dabd31177f16232dd6aab035ca39bf6e4"]),
    (5, 8, ["bc1a0643b12e4d2d7c77918f44e0f4f79a838b6cf9ec5b5c283e1f4d88599e6b",
            "ca854ea128ed050b41b35ffc1b87b8eb2bde461e9e3b5596ece6b9d5975a0ae0",
            "d37ee418976dd95753c1c73862b9398fa2a2cf9b4ff0fdfe8b30cd95209614b7"]),
    (2, 3, ["fac54203e7cc696cf0dfcb42c92a1d9dbaf70ad9e621f4bd8d98662f00e3c125"]),
    (1, 5, ["6e340b9cffb37a989ca544e6bb780a2c78901d3fb33738768511a30617afa01d",
            "5f083f0a1a33ca076a95279832580db3e0ef4584bdff1f54c8a360f50de3031e",
            "bc1a0643b12e4d2d7c77918f44e0f4f79a838b6cf9ec5b5c283e1f4d88599e6b"]),
]
SEED = bytes(range(32))


def test_empty_tree_is_the_hash_of_nothing() -> None:
    assert merkle_root([]).hex() == hashlib.sha256(b"").hexdigest()


@pytest.mark.parametrize("size", range(1, 9))
def test_tree_heads_match_certificate_transparency(size: int) -> None:
    leaves = [hash_leaf(data) for data in CT_LEAVES[:size]]
    assert merkle_root(leaves).hex() == CT_ROOTS[size - 1]


@pytest.mark.parametrize(("index", "size", "path"), CT_PATHS)
def test_audit_paths_match_certificate_transparency(index: int, size: int, path: list[str]) -> None:
    leaves = [hash_leaf(data) for data in CT_LEAVES[:size]]
    assert [node.hex() for node in inclusion_path(leaves, index)] == path
    root = bytes.fromhex(CT_ROOTS[size - 1])
    assert verify_inclusion(leaves[index], index, size, [bytes.fromhex(n) for n in path], root)


@pytest.mark.parametrize("size", range(1, 34))
def test_every_leaf_of_every_size_verifies_and_no_other_place_does(size: int) -> None:
    leaves = [hash_leaf(b"leaf %d" % i) for i in range(size)]
    root = merkle_root(leaves)
    for index in range(size):
        path = inclusion_path(leaves, index)
        assert verify_inclusion(leaves[index], index, size, path, root)
        assert not verify_inclusion(leaves[index], index, size, path + (root,), root)
        assert not verify_inclusion(leaves[index], index, size, path[:-1], root) or not path
        assert not verify_inclusion(leaves[index], size, size, path, root)
        for other in range(size):
            if other != index:
                assert not verify_inclusion(leaves[index], other, size, path, root)


def test_salts_follow_the_specification() -> None:
    salts = deck_salts(SEED)
    assert len(salts) == 52 and len(set(salts)) == 52
    assert salts[7] == hmac.new(SEED, SALT_DOMAIN + b"\x07", hashlib.sha256).digest()
    assert leaf_hash(7, 12, salts[7]) == hashlib.sha256(b"\x00\x07\x0c" + salts[7]).digest()


def test_a_deck_tree_proves_each_card_at_its_position() -> None:
    deck = deck_order(SEED, {1: "alice"})
    tree = DeckTree.build(deck, SEED)
    assert tree.root == merkle_root(tree.leaves)
    for position in range(52):
        proof = tree.proof(position)
        assert proof.card == deck[position] and len(proof.path) in (4, 5, 6)
        assert check_card_proof(proof, tree.root_hex)
        assert check_card_proof(CardProof.from_json(proof.to_json()), tree.root_hex)
    assert not check_card_proof(tree.proof(0), DeckTree.build(deck, bytes(32)).root_hex)
    assert not check_card_proof(tree.proof(0), "not hex")


def _tampered(proof: CardProof, what: str, index: int, flip: int) -> CardProof:
    if what == "card":
        return CardProof(proof.position, (proof.card + 1 + flip % 51) % 52, proof.salt, proof.path)
    if what == "position":
        return CardProof((proof.position + 1 + flip % 51) % 52, proof.card, proof.salt, proof.path)
    if what == "salt":
        salt = bytearray(proof.salt)
        salt[index % len(salt)] ^= 1 + flip % 255
        return CardProof(proof.position, proof.card, bytes(salt), proof.path)
    path = [bytearray(node) for node in proof.path]
    node = path[index % len(path)]
    node[flip % len(node)] ^= 1 + index % 255
    return CardProof(proof.position, proof.card, proof.salt, tuple(bytes(n) for n in path))


@settings(max_examples=150, deadline=None)
@given(
    seed=st.binary(min_size=32, max_size=32),
    position=st.integers(0, 51),
    what=st.sampled_from(["card", "position", "salt", "path"]),
    index=st.integers(0, 1000),
    flip=st.integers(0, 1000),
)
def test_every_proof_verifies_and_any_change_fails(seed: bytes, position: int, what: str,
                                                   index: int, flip: int) -> None:
    tree = DeckTree.build(deck_order(seed, {}), seed)
    proof = tree.proof(position)
    assert check_card_proof(proof, tree.root_hex)
    assert not check_card_proof(_tampered(proof, what, index, flip), tree.root_hex)


@pytest.mark.parametrize(
    ("data", "names"),
    [
        ([], "JSON object"),
        ({"position": 1, "card": 2, "salt": "00" * 32}, "lacks path"),
        ({"position": 52, "card": 2, "salt": "00" * 32, "path": []}, "position"),
        ({"position": True, "card": 2, "salt": "00" * 32, "path": []}, "position"),
        ({"position": 3, "card": "As", "salt": "00" * 32, "path": []}, "card of the proof of position 3"),
        ({"position": 3, "card": 2, "salt": "00" * 31, "path": []}, "salt of the proof of position 3"),
        ({"position": 3, "card": 2, "salt": "zz" * 32, "path": []}, "not hex"),
        ({"position": 4, "card": 2, "salt": "00" * 32, "path": "ab"}, "path of the proof of position 4"),
        ({"position": 4, "card": 2, "salt": "00" * 32, "path": ["00" * 32, 7]}, "hash 1 of the path"),
    ],
)
def test_malformed_proof_json_is_a_precise_error(data: object, names: str) -> None:
    with pytest.raises(MalformedProof, match=names):
        CardProof.from_json(data)
    assert issubclass(MalformedProof, ValueError)


@settings(max_examples=60, deadline=None)
@given(seed=st.binary(min_size=0, max_size=100))
def test_salts_are_hmac_sha256_for_any_seed(seed: bytes) -> None:
    """The salts' precomputed pads give exactly the library's HMAC, short, block-sized and long keys."""
    expected = [hmac.new(seed, SALT_DOMAIN + bytes([p]), hashlib.sha256).digest() for p in range(52)]
    assert list(deck_salts(seed)) == expected
