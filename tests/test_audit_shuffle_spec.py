"""The shuffle specification (docs/fairness.md), reimplemented from its text alone, agrees with the service.

This is what an outside verifier would write from the section "The specification" of docs/fairness.md:
``hashlib`` and ``hmac`` only, nothing of ``stud_service`` in the computation.  The test vectors and the
spec's constants (card names, the salt label) are read out of that text itself, so the text, its vectors
and the service cannot drift apart: the vectors must come out of this reimplementation and out of the
service, and for random seeds the two must agree on the deck, the salts, the root and every card proof.
Last, a client that knows only the specification follows one hand on a real server and checks its commitments.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import re
import tomllib
import uuid
from pathlib import Path
from typing import Any

from grpc_fixtures import TOKEN_SECRET, table_spec, wait_for_turn, wait_for_view
from hypothesis import given, settings
from hypothesis import strategies as st

from stud_service import deck_proof, shuffle
from stud_service.auth import Role, mint_token
from stud_service.bots.client import StudClient, events_of
from stud_service.server.proto_gen import audit_service_pb2, audit_service_pb2_grpc, table_pb2

FAIRNESS = (Path(__file__).resolve().parent.parent / "docs" / "fairness.md").read_text(encoding="utf-8")
SECTION = FAIRNESS[FAIRNESS.index("## The specification\n"):]

DECK_SIZE = 52


def _spec_constants() -> tuple[list[str], bytes]:
    """The card names (§1.1) and the salt label (§3.12), as the specification writes them."""
    names = re.search(r"ranks `([^`]+)` = 0\.\.12, suits\s+`([^`]+)` = 0\.\.3", SECTION)
    label = re.search(r'message = "([^"]+)" \|\| u8\(p\)', SECTION)
    assert names and label, "the shuffle specification no longer says the card codes or the salt label"
    ranks, suits = names.group(1).split(), names.group(2).split()
    return [rank + suit for rank in ranks for suit in suits], label.group(1).encode("ascii")


CARD_NAMES, SALT_LABEL = _spec_constants()


# --- the specification, from its text -----------------------------------------------------------------------

def message(client_seeds: dict[int, str]) -> bytes:
    """§2.7: u32be(seat) || u32be(len) || seed, seats ascending."""
    return b"".join(
        seat.to_bytes(4, "big") + len(seed.encode()).to_bytes(4, "big") + seed.encode()
        for seat, seed in sorted(client_seeds.items())
    )


def deck_of(server_seed: bytes, client_seeds: dict[int, str]) -> list[int]:
    """§2.8-2.10: the HMAC-SHA256 counter stream, rejection sampling, Fisher-Yates from the last position."""
    m = message(client_seeds)
    words: list[int] = []
    counter = 0

    def next_word() -> int:
        nonlocal counter
        if not words:
            block = hmac.new(server_seed, m + counter.to_bytes(8, "big"), hashlib.sha256).digest()
            words.extend(int.from_bytes(block[i:i + 4], "big") for i in range(0, 32, 4))
            counter += 1
        return words.pop(0)

    deck = list(range(DECK_SIZE))
    for i in range(DECK_SIZE - 1, 0, -1):
        n = i + 1
        limit = (2**32 // n) * n
        while (x := next_word()) >= limit:
            pass
        j = x % n
        deck[i], deck[j] = deck[j], deck[i]
    return deck


def salt_of(server_seed: bytes, position: int) -> bytes:
    """§3.12."""
    return hmac.new(server_seed, SALT_LABEL + bytes([position]), hashlib.sha256).digest()


def leaf_hash_of(position: int, card: int, salt: bytes) -> bytes:
    """§3.13: SHA-256(0x00 || u8(p) || u8(card) || salt)."""
    return hashlib.sha256(b"\x00" + bytes([position, card]) + salt).digest()


def _largest_power_of_two_below(n: int) -> int:
    k = 1
    while k * 2 < n:
        k *= 2
    return k


def mth(hashes: list[bytes]) -> bytes:
    """§3.14: RFC 9162 Merkle Tree Hash over leaf hashes."""
    if len(hashes) == 1:
        return hashes[0]
    k = _largest_power_of_two_below(len(hashes))
    return hashlib.sha256(b"\x01" + mth(hashes[:k]) + mth(hashes[k:])).digest()


def path_of(hashes: list[bytes], m: int) -> list[bytes]:
    """§3.15: the audit path, the sibling nearest the leaf first."""
    if len(hashes) == 1:
        return []
    k = _largest_power_of_two_below(len(hashes))
    if m < k:
        return path_of(hashes[:k], m) + [mth(hashes[k:])]
    return path_of(hashes[k:], m - k) + [mth(hashes[:k])]


def proof_checks(proof: dict[str, Any], root_hex: str) -> bool:
    """§3.16: the specification's check of a JSON card proof against deck_root."""
    position, card = proof["position"], proof["card"]
    try:
        salt = bytes.fromhex(proof["salt"])
        path = [bytes.fromhex(h) for h in proof["path"]]
    except (TypeError, ValueError):
        return False
    if not (isinstance(position, int) and isinstance(card, int)):
        return False
    if not (0 <= position < DECK_SIZE and 0 <= card < DECK_SIZE and len(salt) == 32):
        return False
    if any(len(h) != 32 for h in path):
        return False
    r = leaf_hash_of(position, card, salt)
    fn, sn = position, DECK_SIZE - 1
    for h in path:
        if sn == 0:
            return False
        if fn & 1 or fn == sn:
            r = hashlib.sha256(b"\x01" + h + r).digest()
            while fn and not fn & 1:
                fn >>= 1
                sn >>= 1
        else:
            r = hashlib.sha256(b"\x01" + r + h).digest()
        fn >>= 1
        sn >>= 1
    return sn == 0 and r.hex() == root_hex


Tree = tuple[list[int], list[bytes], str, list[dict[str, Any]]]


def outsider_tree(server_seed: bytes, client_seeds: dict[int, str]) -> Tree:
    """Deck, salts, deck_root and the 52 JSON card proofs, all from the specification's text."""
    deck = deck_of(server_seed, client_seeds)
    salts = [salt_of(server_seed, p) for p in range(DECK_SIZE)]
    leaves = [leaf_hash_of(p, deck[p], salts[p]) for p in range(DECK_SIZE)]
    proofs = [
        {"position": p, "card": c, "salt": salts[p].hex(), "path": [h.hex() for h in path_of(leaves, p)]}
        for p, c in enumerate(deck)
    ]
    return deck, salts, mth(leaves).hex(), proofs


# --- the specification's vectors ----------------------------------------------------------------------------

def readme_vectors() -> list[dict[str, list[str]]]:
    """Each ```text block of the section that starts with `vector`: name -> value lines."""
    vectors = []
    for block in re.findall(r"```text\n(.*?)```", SECTION, flags=re.S):
        if not block.startswith("vector"):
            continue
        vector: dict[str, list[str]] = {}
        name = ""
        for line in block.splitlines():
            if line.startswith(" "):
                vector[name].append(line.strip())
            elif line.strip():
                name, _, value = line.partition(" ")
                vector[name] = [value.strip()]
        vectors.append(vector)
    return vectors


VECTORS = readme_vectors()


def _seeds(vector: dict[str, list[str]]) -> tuple[bytes, dict[int, str]]:
    seeds = json.loads(vector["client_seeds"][0])
    return bytes.fromhex(vector["server_seed"][0]), {int(seat): seed for seat, seed in seeds.items()}


def _cards(value: str) -> list[int]:
    """`43 50 47 = Qs Ah Ks`: the codes, checked against the names the specification gives them."""
    codes, _, names = value.partition(" = ")
    cards = [int(code) for code in codes.split()]
    assert [CARD_NAMES[c] for c in cards] == names.split()
    return cards


def _indexed(vector: dict[str, list[str]], name: str) -> dict[int, list[str]]:
    """`path[51]` -> {51: lines}."""
    found = {}
    for key, lines in vector.items():
        if (m := re.fullmatch(re.escape(name) + r"\[(\d+)\]", key)):
            found[int(m.group(1))] = lines
    return found


def test_the_readme_has_both_vectors_with_every_value():
    assert len(VECTORS) == 2
    assert VECTORS[0]["server_seed"] == [bytes(range(32)).hex()]
    assert json.loads(VECTORS[0]["client_seeds"][0]) == {}
    assert json.loads(VECTORS[1]["client_seeds"][0])
    wanted = {"server_seed", "M", "commitment", "deck[0:5]", "salt[0]", "leaf_hash[0]", "deck_root",
              "path[0]"}
    for vector in VECTORS:
        assert wanted <= set(vector)


def test_the_readme_vectors_follow_from_the_readme_text():
    for vector in VECTORS:
        seed, client_seeds = _seeds(vector)
        deck, salts, root, proofs = outsider_tree(seed, client_seeds)
        expected_m = vector["M"][0]
        assert message(client_seeds).hex() == ("" if expected_m == "(empty)" else expected_m)
        assert hashlib.sha256(seed).hexdigest() == vector["commitment"][0]
        assert deck[:5] == _cards(vector["deck[0:5]"][0])
        for position, lines in _indexed(vector, "deck").items():
            assert [deck[position]] == _cards(lines[0])
        for position, lines in _indexed(vector, "salt").items():
            assert salts[position].hex() == lines[0]
        assert leaf_hash_of(0, deck[0], salts[0]).hex() == vector["leaf_hash[0]"][0]
        assert root == vector["deck_root"][0]
        for position, lines in _indexed(vector, "path").items():
            assert proofs[position]["path"] == lines
            assert proof_checks(proofs[position], root)


def test_the_service_gives_the_readme_vectors():
    for vector in VECTORS:
        seed, client_seeds = _seeds(vector)
        assert shuffle.commitment(seed) == vector["commitment"][0]
        deck = shuffle.deck_order(seed, client_seeds)
        assert deck[:5] == _cards(vector["deck[0:5]"][0])
        for position, lines in _indexed(vector, "deck").items():
            assert [deck[position]] == _cards(lines[0])
        salts = deck_proof.deck_salts(seed)
        for position, lines in _indexed(vector, "salt").items():
            assert salts[position].hex() == lines[0]
        assert deck_proof.leaf_hash(0, deck[0], salts[0]).hex() == vector["leaf_hash[0]"][0]
        tree = deck_proof.DeckTree.build(deck, seed)
        assert tree.root_hex == vector["deck_root"][0]
        for position, lines in _indexed(vector, "path").items():
            proof = tree.proof(position)
            assert [h.hex() for h in proof.path] == lines
            assert deck_proof.check_card_proof(proof, tree.root_hex)
        deal = shuffle.prepare_deal(seed, client_seeds, commitment_version=1)
        assert deal.commitment == vector["commitment"][0]
        assert deal.extra["deck_root"] == vector["deck_root"][0]
        assert deal.extra["client_seeds"] == json.loads(vector["client_seeds"][0])


def test_the_readme_check_refuses_a_changed_proof():
    seed, client_seeds = _seeds(VECTORS[0])
    _, _, root, proofs = outsider_tree(seed, client_seeds)
    proof = proofs[0]
    assert proof_checks(proof, root)
    assert not proof_checks({**proof, "card": (proof["card"] + 1) % DECK_SIZE}, root)
    assert not proof_checks({**proof, "position": 1}, root)
    assert not proof_checks({**proof, "position": DECK_SIZE}, root)
    assert not proof_checks({**proof, "salt": salt_of(seed, 1).hex()}, root)
    assert not proof_checks({**proof, "path": proof["path"][:-1]}, root)
    assert not proof_checks({**proof, "path": [*proof["path"], proof["path"][-1]]}, root)
    assert not proof_checks({**proof, "path": list(reversed(proof["path"]))}, root)


client_seed_maps = st.dictionaries(
    st.integers(min_value=1, max_value=8),
    st.text(alphabet=st.characters(min_codepoint=0x21, max_codepoint=0x2FFF, exclude_categories=("Cs",)),
            min_size=1, max_size=64),
    max_size=8,
)


@settings(max_examples=60, deadline=None)
@given(server_seed=st.binary(min_size=32, max_size=32), client_seeds=client_seed_maps)
def test_the_readme_text_and_the_service_agree(server_seed: bytes, client_seeds: dict[int, str]):
    deck, salts, root, proofs = outsider_tree(server_seed, client_seeds)
    assert shuffle.commitment(server_seed) == hashlib.sha256(server_seed).hexdigest()
    assert shuffle.deck_order(server_seed, client_seeds) == deck
    assert list(deck_proof.deck_salts(server_seed)) == salts
    tree = deck_proof.DeckTree.build(deck, server_seed)
    assert tree.root_hex == root
    assert shuffle.prepare_deal(server_seed, client_seeds, 1).extra["deck_root"] == root
    for position in range(DECK_SIZE):
        served = tree.proof(position).to_json()
        assert served == proofs[position]
        assert proof_checks(served, root)
        assert deck_proof.check_card_proof(deck_proof.CardProof.from_json(proofs[position]), root)


# --- a client that knows only the specification, against a real server --------------------------------------

def _metadata(player: str, role: Role = Role.PLAYER) -> list[tuple[str, str]]:
    return [("authorization", f"Bearer {mint_token(TOKEN_SECRET, player, role)}")]


async def _table_events(client: StudClient, table_id: str, up_to: int) -> list[Any]:
    """Every event of the table from version 2 (after TableCreated) to ``up_to``, as the watch sends them."""
    events: list[Any] = []
    stream = client.watch(table_id, after_version=1, batch_events=True)
    async for message in stream:
        events.extend(events_of(message))
        if events and events[-1].version >= up_to:
            stream.cancel()
            return events
    raise AssertionError("the watch ended early")


async def _fold_out(clients: list[StudClient], table_id: str) -> None:
    """Play hand 1 to its end, folding whenever a fold is legal."""
    while not (await clients[0].view(table_id)).hand.complete:
        client, turn = await wait_for_turn(clients, table_id)
        if turn.hand.hand_number != 1:
            break
        folds = [a for a in turn.legal_actions if a.type == table_pb2.ACTION_TYPE_FOLD]
        action = (folds or list(turn.legal_actions))[0]
        await client.act(table_id, turn.viewer_seat, action.type, action.amount, turn.turn)
    await wait_for_view(clients[0], table_id, lambda v: v.hand.hand_number > 1 or v.hand.complete)


async def test_a_client_following_the_readme_checks_a_real_hand(grpc_service):
    """§1: the commitment comes before the client seed and the deal; §2-3: the seed an auditor gets fixes
    the deck, its root is HandStarted's deck_root, and every card dealt is the deck's card at its position;
    §4-5: a player gets no seed, and proofs of exactly the cards they saw."""
    table_id = f"spec-{uuid.uuid4().hex[:10]}"
    clients = {name: grpc_service.client(name) for name in ("alice", "bob")}
    await grpc_service.client("house", Role.OPERATOR).create_table(
        table_id, table_spec()
    )
    audit = audit_service_pb2_grpc.AuditServiceStub(grpc_service.channel)
    await clients["alice"].sit_down(table_id, 1, 10_000)
    await audit.SetClientSeed(
        audit_service_pb2.SetClientSeedRequest(name=f"tables/{table_id}", seed="alice's seed ♠"),
        metadata=_metadata("alice"),
    )
    await clients["bob"].sit_down(table_id, 2, 10_000)
    await _fold_out(list(clients.values()), table_id)

    name = f"tables/{table_id}/hands/1"
    auditor = _metadata("eve", Role.AUDITOR)
    full = await audit.GetHand(audit_service_pb2.GetHandRequest(name=name), metadata=auditor)
    started_event = full.events[0]
    started = started_event.hand_started
    # §1: what a player watching the table saw, in order.
    events = await _table_events(clients["bob"], table_id, started_event.version)
    committed = [e for e in events if e.HasField("shuffle_committed") and e.shuffle_committed.next_hand == 1]
    seeds_set = [e for e in events if e.HasField("client_seed_set") and e.version < started_event.version]
    assert len(committed) == 1 and len(seeds_set) == 1
    assert committed[0].shuffle_committed.commitment == started.commitment
    assert started.commitment_version == committed[0].version
    assert started.commitment_version < seeds_set[0].version < started_event.version
    assert dict(started.client_seeds) == {1: "alice's seed ♠"}
    # §2-3: the auditor's seed fixes the commitment, the deck, the root and every card dealt.
    seed = bytes.fromhex(full.server_seed)
    assert hashlib.sha256(seed).hexdigest() == started.commitment
    deck, _, root, _ = outsider_tree(seed, dict(started.client_seeds))
    assert root == started.deck_root == full.deck_root
    assert list(started.deck) == deck
    cards = [e.card_dealt for e in full.events if e.HasField("card_dealt")]
    assert len(cards) >= 6 and [card.card for card in cards] == deck[:len(cards)]
    # §4: a player gets the root and the commitment, not the seed; §5.4: their export proves exactly the cards
    # they saw (their own and the face-up ones) at the positions they were dealt from, and no other.
    mine = await audit.GetHand(audit_service_pb2.GetHandRequest(name=name), metadata=_metadata("bob"))
    assert not mine.server_seed and mine.deck_root == root and mine.deck_commitment == started.commitment
    exported = await audit.ExportHandHistory(
        audit_service_pb2.ExportHandHistoryRequest(name=name, format=audit_service_pb2.HISTORY_FORMAT_PHH),
        metadata=_metadata("bob"),
    )
    phh = tomllib.loads(exported.text)
    assert not phh.get("_server_seed")
    assert phh["_deck_root"] == root and phh["_commitment"] == started.commitment
    face_up = {k for k, card in enumerate(cards) if card.face_up}
    bobs = face_up | {k for k, card in enumerate(cards) if card.seat == 2}
    assert {proof["position"] for proof in phh["_proofs"]} == bobs
    for proof in phh["_proofs"]:
        assert proof_checks(proof, root) and proof["card"] == deck[proof["position"]]
    # §4-5 through VerifyShuffle: bob's cards and the face-up ones to bob, the face-up ones to a stranger.
    for caller, positions in (("bob", bobs), ("carol", face_up)):
        reply = await audit.VerifyShuffle(
            audit_service_pb2.VerifyShuffleRequest(name=name), metadata=_metadata(caller)
        )
        assert reply.passed and not reply.server_seed and reply.deck_root == root
        assert (reply.commitment_version, list(reply.client_seed_versions), reply.hand_started_version) == (
            committed[0].version, [seeds_set[0].version], started_event.version
        )
        proofs = [{"position": p.position, "card": p.card, "salt": p.salt, "path": list(p.path)}
                  for p in reply.proofs]
        assert {proof["position"] for proof in proofs} == positions
        assert all(proof_checks(proof, root) and proof["card"] == deck[proof["position"]] for proof in proofs)
