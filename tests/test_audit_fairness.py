"""Fairness proofs that reveal only what was shown (stud_service.audit.fairness, history, phh).

Every viewer of a simulated hand can check every card they saw against the deck root committed before
the deal; nobody but an auditor gets the server seed, and no viewer gets the proof (and so the card) of
another seat's down card that was never shown.
"""

from __future__ import annotations

import dataclasses
import tomllib

import pytest

from stud_service.audit.fairness import (
    check_shuffle,
    proofs_for_viewer,
    visible_positions,
    what_was_proven,
)
from stud_service.audit.history import FULL, PUBLIC, shuffle_evidence
from stud_service.audit.phh import shuffle_evidence_from_phh, to_phh
from stud_service.audit.records import HandRecord
from stud_service.audit.simulate import as_logged_before_proofs, simulate_table
from stud_service.deck_proof import CardProof, MalformedProof
from stud_service.engine import Variant
from stud_service.shuffle import commitment


def records(variant: Variant = Variant.STUD, count: int = 25, seed: int = 41) -> list[HandRecord]:
    return simulate_table(f"fair-{variant.lower()}", variant, count, seed=seed).hand_records()


def hidden_from(record: HandRecord, own_seat: int | None) -> set[int]:
    """Deck positions of the down cards of other seats whose hands were never shown."""
    shown = {seat for seat, _cards in record.ended["shown"]}
    dealt = [s.payload for s in record.events if s.type == "CardDealt"]
    return {
        position
        for position, deal in enumerate(dealt)
        if not deal["face_up"] and deal["seat"] is not None and deal["seat"] != own_seat
        and deal["seat"] not in shown
    }


@pytest.mark.parametrize("variant", list(Variant))
def test_every_viewer_verifies_every_card_they_saw_and_no_more(variant: Variant) -> None:
    checked = 0
    for record in records(variant):
        seats = [(seat, player) for seat, player, _stack in record.seats]
        for mode, own in [(PUBLIC, None), *[(player, seat) for seat, player in seats]]:
            evidence = shuffle_evidence(record, mode)
            assert check_shuffle(evidence) is None, (record.hand, mode)
            assert evidence.server_seed is None and evidence.deck_root
            proven = {proof.position for proof in evidence.proofs}
            assert proven == set(evidence.seen)  # a proof for every card seen, none for any other
            assert not proven & hidden_from(record, own)
            checked += len(proven)
        full = shuffle_evidence(record, FULL)
        assert check_shuffle(full) is None and full.server_seed == record.server_seed().hex()
    assert checked > 1000


def test_an_observer_gets_no_down_card_of_an_unshown_hand() -> None:
    for record in records(count=40):
        payloads = [s.payload for s in record.events if s.payload.get("hand") == record.hand]
        proofs = proofs_for_viewer(payloads, record.server_seed(), None)
        assert {p.position for p in proofs} == set(visible_positions(payloads, None))
        assert not {p.position for p in proofs} & hidden_from(record, None)


def test_the_commitment_order_is_checked() -> None:
    record = next(r for r in records(count=60) if r.commitment_order().seed_versions)
    evidence = shuffle_evidence(record, PUBLIC)
    order = evidence.order
    seat, seed_version = next(iter(order.seed_versions.items()))
    assert order.commitment_version < seed_version < order.started_version
    assert record.commitment.payload["next_hand"] == record.hand

    def problem(**changes: object) -> str:
        found = check_shuffle(dataclasses.replace(evidence, order=dataclasses.replace(order, **changes)))
        assert found is not None and found.index == 0
        return found.message

    too_early = {**order.seed_versions, seat: order.commitment_version - 1}
    assert "is not between the commitment" in problem(seed_versions=too_early)
    assert "was not set after the commitment" in problem(seed_versions={**order.seed_versions, seat: None})
    assert "not the one committed" in problem(committed=commitment(bytes(32)))
    assert "commits hand" in problem(committed_hand=record.hand + 1)
    assert "no ShuffleCommitted" in problem(committed=None)
    assert "does not come before the deal" in problem(commitment_version=order.started_version + 1)


def test_a_forged_or_missing_proof_names_the_position() -> None:
    record = records(count=3)[2]
    evidence = shuffle_evidence(record, PUBLIC)
    first = evidence.proofs[0]
    forged = CardProof(first.position, (first.card + 1) % 52, first.salt, first.path)
    problem = check_shuffle(dataclasses.replace(evidence, proofs=(forged, *evidence.proofs[1:])))
    assert problem is not None and problem.index == first.position + 1
    assert f"proof of position {first.position} " in problem.message
    problem = check_shuffle(dataclasses.replace(evidence, proofs=evidence.proofs[1:]))
    assert problem is not None
    assert f"no proof for the card seen at position {first.position}" in problem.message


def test_a_shown_card_is_checked_at_the_position_the_deal_gave_it() -> None:
    record = next(r for r in records(count=30) if r.ended["shown"])
    evidence = shuffle_evidence(record, PUBLIC)
    hidden_shown = sorted(set(evidence.shown) - {p for p, c in enumerate(evidence.dealt) if c is not None})
    assert hidden_shown, "a shown hand holds down cards an observer saw only at the showdown"
    position = hidden_shown[0]
    tampered = {**evidence.shown, position: (evidence.shown[position] + 1) % 52}
    problem = check_shuffle(dataclasses.replace(evidence, shown=tampered))
    assert problem is not None and f"position {position}" in problem.message


def test_hands_logged_before_proofs_verify_the_old_way() -> None:
    for record in records(count=5):
        old = as_logged_before_proofs(record)
        assert old.commitment_version is None and old.commitment_order() is None
        assert old.server_seed() == record.server_seed()
        assert check_shuffle(shuffle_evidence(old, FULL)) is None
        for mode in (PUBLIC, record.seats[0][1]):
            # Its seed reveals every card: only to whoever may have it (an auditor, a delayed reveal).
            hidden = shuffle_evidence(old, mode)
            assert hidden.server_seed is None
            assert "no server seed was revealed to this viewer" in check_shuffle(hidden).message
            evidence = shuffle_evidence(old, mode, reveal_seed=True)
            assert evidence.deck_root is None and evidence.server_seed == record.server_seed().hex()
            assert check_shuffle(evidence) is None
            assert "revealed seed" in what_was_proven(evidence)


def test_a_players_export_holds_their_proofs_and_no_seed() -> None:
    record = next(r for r in records(count=30) if len(r.seats) >= 3)
    seat, player, _stack = record.seats[1]
    text = to_phh(record, player)
    data = tomllib.loads(text)
    assert "_server_seed" not in data and record.server_seed().hex() not in text
    assert data["_deck_root"] == record.started["extra"]["deck_root"]
    positions = {proof["position"] for proof in data["_proofs"]}
    assert positions and not positions & hidden_from(record, seat)
    evidence = shuffle_evidence_from_phh(text)
    assert check_shuffle(evidence) is None and set(evidence.seen) == positions
    assert "server seed was not revealed" in what_was_proven(evidence)
    auditor = shuffle_evidence_from_phh(to_phh(record))
    assert check_shuffle(auditor) is None and auditor.server_seed == record.server_seed().hex()
    assert "fixes that root and the whole deck" in what_was_proven(auditor)
    public = tomllib.loads(to_phh(record, PUBLIC))
    assert not {p["position"] for p in public["_proofs"]} & hidden_from(record, None)


def test_exports_of_hands_dealt_out_after_an_all_in_prove_what_each_viewer_saw() -> None:
    """The PHH of a hand whose betting ended before seventh street holds shows that keep the down cards
    face down (``sm ????7c...``): they show no hand, so each export proves just what its viewer saw."""
    dealt_out = [
        record for record in records(count=150, seed=100)
        if any(" sm " in action and "??" in action for action in tomllib.loads(to_phh(record))["actions"])
    ]
    assert len(dealt_out) >= 20
    for record in dealt_out:
        for mode in (FULL, PUBLIC, *(player for _seat, player, _stack in record.seats)):
            evidence = shuffle_evidence_from_phh(to_phh(record, None if mode == FULL else mode))
            assert check_shuffle(evidence) is None
            assert dict(evidence.shown) == dict(shuffle_evidence(record, mode).shown)


def test_a_malformed_proof_in_an_export_names_its_position() -> None:
    record = records(count=2)[1]
    text = to_phh(record, record.seats[0][1])
    salt = tomllib.loads(text)["_proofs"][0]["salt"]
    position = tomllib.loads(text)["_proofs"][0]["position"]
    with pytest.raises(MalformedProof, match=f"salt of the proof of position {position}"):
        shuffle_evidence_from_phh(text.replace(salt, salt[:-2], 1))
