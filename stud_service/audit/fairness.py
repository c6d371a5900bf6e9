"""Checking the provably fair shuffle of one hand (``stud_service.shuffle`` and ``stud_service.deck_proof``
have the algorithms), from what one viewer may see.

What a hand's log publishes (hands dealt since the deck is committed as a Merkle tree):

* ``ShuffleCommitted`` (before any client seed for the hand could be set): ``commitment``, SHA-256 of the
  server seed; the seed itself stays sealed in it.
* ``HandStarted``: the same ``commitment``; ``extra``: ``client_seeds`` (seat -> text), ``deck_root``
  (the Merkle root of the salted deck) and ``commitment_version`` (the ShuffleCommitted's version).
* the cards each viewer saw: the k-th ``CardDealt`` of a hand is ``deck[k]`` (no burn cards, RULES.md §2);
  a ``HandShown`` lists a seat's cards in the order they were dealt to it.

A viewer gets a ``CardProof`` of every card they saw (``proofs_for_viewer``): face-up cards and shown hands
to everyone, a down card to its owner, never another seat's unshown down card.  ``check_shuffle`` proves
each of those cards was at that position of the deck committed to before the deal, and that the commitment
came first (commitment version < every client seed used < HandStarted).  The server seed, and with it the
whole deck, only reaches auditors: with it the check also recomputes the deck, its root and every card.

Hands logged before (no ``deck_root``) carry the seed in ``HandEnded.server_seed`` (or, for v1 hands, the
auditor's ``HandStarted.extra.server_seed``) and verify the old way: the seed against the commitment, the
deck it fixes against every card seen.
"""

from __future__ import annotations

import hmac
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from stud_service.cards import card_str
from stud_service.deck_proof import CardProof, DeckTree, check_card_proof
from stud_service.shuffle import commitment, deck_order


@dataclass(frozen=True)
class ShuffleProblem:
    """``index``: which of the checked events is wrong (0 = HandStarted, k >= 1 = the k-th card dealt);
    ``message`` says how."""

    index: int
    message: str


@dataclass(frozen=True)
class CommitmentOrder:
    """Where the hand's commitment and client seeds sit in the table's log.

    ``committed``: the commitment of the ShuffleCommitted event at ``commitment_version`` (None: there is
    none there) and ``committed_hand`` the hand it names; ``seed_versions``: for each seat of the hand's
    client seeds, the version of the ClientSeedSet that set it (None: none found after the commitment)."""

    commitment_version: int
    committed: str | None
    committed_hand: int | None
    seed_versions: Mapping[int, int | None]
    started_version: int


@dataclass(frozen=True)
class ShuffleEvidence:
    """What one viewer can check about one hand's deck."""

    commitment: str
    server_seed: str | None  # hex; only when revealed to this viewer (or logged in the open by older hands)
    client_seeds: dict[int, str]  # seat -> seed text
    dealt: tuple[int | None, ...]  # the cards dealt, in order; None where the viewer did not see it
    recorded_deck: tuple[int, ...] | None = None  # HandStarted.deck, when the viewer may see it
    committed_seed: str | None = None  # HandStarted.extra["server_seed"] of older hands, auditors only
    deck_root: str | None = None  # None: a hand logged before the Merkle commitment
    shown: Mapping[int, int] = field(default_factory=dict)  # deck position -> card, from shown hands
    proofs: tuple[CardProof, ...] = ()
    order: CommitmentOrder | None = None
    hand: int | None = None

    @property
    def seen(self) -> dict[int, int]:
        """Every card this viewer saw, by deck position."""
        seen = {position: card for position, card in enumerate(self.dealt) if card is not None}
        for position, card in self.shown.items():
            seen.setdefault(position, card)
        return seen


def client_seeds_from_extra(extra: Any) -> dict[int, str]:
    seeds = extra.get("client_seeds") if isinstance(extra, dict) else None
    if not isinstance(seeds, dict):
        return {}
    return {int(seat): str(seed) for seat, seed in seeds.items()}


def shown_positions(dealt_seats: Sequence[int | None], shown: Mapping[int, Sequence[int]]) -> dict[int, int]:
    """Deck position -> card of every shown card: a seat's i-th shown card is the i-th card dealt to it."""
    by_seat: dict[int, list[int]] = {}
    for position, seat in enumerate(dealt_seats):
        if seat is not None:
            by_seat.setdefault(seat, []).append(position)
    out: dict[int, int] = {}
    for seat, cards in shown.items():
        for position, card in zip(by_seat.get(seat, ()), cards, strict=False):
            out[position] = card
    return out


def _hand_cards(payloads: Iterable[Mapping[str, Any]]) -> tuple[Mapping[str, Any], list[Mapping[str, Any]],
                                                                 dict[int, list[int]], Mapping[str, Any]]:
    started: Mapping[str, Any] = {}
    ended: Mapping[str, Any] = {}
    deals: list[Mapping[str, Any]] = []
    shown: dict[int, list[int]] = {}
    for payload in payloads:
        kind = payload.get("type")
        if kind == "HandStarted":
            started = payload
        elif kind == "CardDealt":
            deals.append(payload)
        elif kind == "HandShown":
            shown[int(payload["seat"])] = [int(card) for card in payload.get("cards") or ()]
        elif kind == "HandEnded":
            ended = payload
    return started, deals, shown, ended


def evidence_from_payloads(
    payloads: Iterable[Mapping[str, Any]],
    proofs: Sequence[CardProof] = (),
    server_seed: bytes | None = None,
    order: CommitmentOrder | None = None,
) -> ShuffleEvidence:
    """The evidence in a hand's event payloads (full or redacted: hidden cards are None), with the
    ``proofs`` the viewer was given, the ``server_seed`` if it was revealed to them, and the
    commitment ``order`` read from the log."""
    started, deals, shown, ended = _hand_cards(payloads)
    extra = started.get("extra")
    extra = extra if isinstance(extra, dict) else {}
    root = extra.get("deck_root")
    committed = extra.get("server_seed")
    seed: Any = server_seed.hex() if server_seed is not None else None
    if seed is None and not isinstance(root, str):  # older hands revealed the seed in the log itself
        seed = ended.get("server_seed")
        if not isinstance(seed, str) and ended.get("v") == 1 and isinstance(committed, str):
            seed = committed  # v1 hands: the auditor's copy in HandStarted
    deck = started.get("deck")
    dealt = tuple(d.get("card") if isinstance(d.get("card"), int) else None for d in deals)
    return ShuffleEvidence(
        commitment=str(started.get("commitment", "")),
        server_seed=seed if isinstance(seed, str) else None,
        client_seeds=client_seeds_from_extra(extra),
        dealt=dealt,
        recorded_deck=tuple(deck) if isinstance(deck, list | tuple) else None,
        committed_seed=committed if isinstance(committed, str) else None,
        deck_root=root if isinstance(root, str) else None,
        shown=shown_positions([d.get("seat") for d in deals], shown),
        proofs=tuple(proofs),
        order=order,
        hand=started.get("hand") if isinstance(started.get("hand"), int) else None,
    )


def visible_positions(payloads: Iterable[Mapping[str, Any]], own_seat: int | None) -> list[int]:
    """The deck positions a viewer may see: face-up and community cards, shown hands, and the down cards
    dealt to ``own_seat`` (None: an observer)."""
    _started, deals, shown, _ended = _hand_cards(payloads)
    visible = {
        position
        for position, deal in enumerate(deals)
        if deal.get("face_up") or deal.get("seat") is None
        or (own_seat is not None and deal.get("seat") == own_seat)
    }
    visible.update(position for position, deal in enumerate(deals) if deal.get("seat") in shown)
    return sorted(visible)


def proofs_for_viewer(payloads: Iterable[Mapping[str, Any]], server_seed: bytes,
                      own_seat: int | None) -> list[CardProof]:
    """The proofs the service hands a viewer of the hand in ``payloads``: one per visible card (face-up
    cards, shown hands, ``own_seat``'s down cards); never another seat's unshown down card."""
    payloads = list(payloads)
    started, _deals, _shown, _ended = _hand_cards(payloads)
    tree = DeckTree.build(deck_order(server_seed, client_seeds_from_extra(started.get("extra"))), server_seed)
    return [tree.proof(position) for position in visible_positions(payloads, own_seat)]


def all_dealt_proofs(payloads: Iterable[Mapping[str, Any]], server_seed: bytes) -> list[CardProof]:
    """The proof of every card dealt in the hand (what an auditor may see)."""
    payloads = list(payloads)
    started, deals, _shown, _ended = _hand_cards(payloads)
    tree = DeckTree.build(deck_order(server_seed, client_seeds_from_extra(started.get("extra"))), server_seed)
    return [tree.proof(position) for position in range(len(deals))]


def _index(position: int, dealt: int) -> int:
    """The ShuffleProblem index of a deck position: its CardDealt when one was dealt, else HandStarted."""
    return position + 1 if position < dealt else 0


def _check_order(evidence: ShuffleEvidence) -> ShuffleProblem | None:
    order = evidence.order
    if order is None:
        return None
    version = order.commitment_version
    if order.committed is None:
        return ShuffleProblem(
            0, f"no ShuffleCommitted event at version {version}, the commitment the hand names"
        )
    if evidence.hand is not None and order.committed_hand != evidence.hand:
        return ShuffleProblem(
            0,
            f"the ShuffleCommitted at version {version} commits hand {order.committed_hand},"
            f" not {evidence.hand}",
        )
    if not hmac.compare_digest(order.committed.lower(), evidence.commitment.lower()):
        return ShuffleProblem(0, f"HandStarted's commitment is not the one committed at version {version}")
    if not version < order.started_version:
        return ShuffleProblem(0, f"the commitment (version {version}) does not come before the deal"
                                 f" (version {order.started_version})")
    for seat in sorted(evidence.client_seeds):
        seed_version = order.seed_versions.get(seat)
        if seed_version is None:
            return ShuffleProblem(
                0, f"seat {seat}'s client seed was not set after the commitment (version {version})"
                   " and before the deal"
            )
        if not version < seed_version < order.started_version:
            return ShuffleProblem(
                0, f"seat {seat}'s client seed (version {seed_version}) is not between the commitment"
                   f" (version {version}) and the deal (version {order.started_version})"
            )
    return None


def _check_proofs(evidence: ShuffleEvidence, root: str) -> ShuffleProblem | None:
    """Every proof against the root, and a proof for every card seen (with the seed revealed and
    checked, the seed itself proves the cards: an auditor needs no proofs)."""
    dealt = len(evidence.dealt)
    proven: dict[int, int] = {}
    for proof in evidence.proofs:
        if not check_card_proof(proof, root):
            return ShuffleProblem(
                _index(proof.position, dealt),
                f"the proof of position {proof.position} ({card_str(proof.card)}) does not verify"
                " against the committed deck root",
            )
        proven[proof.position] = proof.card
    for position, card in sorted(evidence.seen.items()):
        if position not in proven and evidence.server_seed is not None:
            continue
        if position not in proven:
            return ShuffleProblem(
                _index(position, dealt), f"no proof for the card seen at position {position}"
            )
        if proven[position] != card:
            return ShuffleProblem(
                _index(position, dealt),
                f"the card seen at position {position} ({card_str(card)}) is not the committed"
                f" {card_str(proven[position])}",
            )
    return None


def _check_seed(evidence: ShuffleEvidence, seed_hex: str) -> ShuffleProblem | None:
    try:
        seed = bytes.fromhex(seed_hex)
    except ValueError:
        return ShuffleProblem(0, "the revealed server seed is not hex")
    if not hmac.compare_digest(commitment(seed), evidence.commitment.lower()):
        return ShuffleProblem(
            0, "the revealed server seed does not match the commitment published before the deal"
        )
    if evidence.committed_seed is not None and evidence.committed_seed != seed_hex:
        return ShuffleProblem(0, "the revealed server seed is not the one the hand was dealt with")
    deck = deck_order(seed, evidence.client_seeds)
    if evidence.deck_root is not None and DeckTree.build(deck, seed).root_hex != evidence.deck_root.lower():
        return ShuffleProblem(0, "the deck root is not the root of the deck the seeds fix")
    if evidence.recorded_deck is not None and tuple(deck) != evidence.recorded_deck:
        return ShuffleProblem(0, "the recorded deck is not the one the seeds fix")
    for position, card in sorted(evidence.seen.items()):
        if deck[position] != card:
            index = _index(position, len(evidence.dealt))
            return ShuffleProblem(
                index, f"card {position + 1} dealt is not the deck's card at position {position}"
            )
    return None


def check_shuffle(evidence: ShuffleEvidence) -> ShuffleProblem | None:
    """None when everything the evidence holds checks out; else the first problem.

    With a deck root: the commitment order; when the seed was revealed to this viewer, the seed against
    the commitment and the deck it fixes against the root and every card; every proof against the root
    and every card seen proven at its position.  Without (older hands): the revealed seed."""
    root = evidence.deck_root
    if root is None:
        if evidence.server_seed is None:
            return ShuffleProblem(
                0, "no server seed was revealed to this viewer, and only the seed proves the deck of a hand"
                   " logged before card proofs",
            )
        return _check_seed(evidence, evidence.server_seed)
    # With the seed, what it fixes comes first: a forged seed or deck shows as such, not as bad proofs.
    return (
        _check_order(evidence)
        or (_check_seed(evidence, evidence.server_seed) if evidence.server_seed is not None else None)
        or _check_proofs(evidence, root)
    )


def what_was_proven(evidence: ShuffleEvidence) -> str:
    """In plain words, what a passing ``check_shuffle`` of ``evidence`` proved (and what it did not)."""
    seen = len(evidence.seen)
    if evidence.deck_root is None:
        return (f"the revealed seed matches commitment {evidence.commitment[:16]}… and fixes all {seen}"
                " cards seen")
    order = evidence.order
    before = (
        f" committed at version {order.commitment_version}, before the {len(evidence.client_seeds)} client"
        f" seed(s) and the deal (version {order.started_version}),"
        if order is not None
        else ""
    )
    proven = (f"{seen} card(s) seen, each proven at its dealing position of the deck{before} with root"
              f" {evidence.deck_root[:16]}…")
    if evidence.server_seed is not None:
        return (f"{proven}; the revealed server seed matches commitment {evidence.commitment[:16]}… and"
                " fixes that root and the whole deck")
    return f"{proven}; the server seed was not revealed, so no other card of the deck is proven or known"
