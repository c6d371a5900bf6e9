"""Checking the provably fair shuffle of one hand (``stud_service.shuffle`` has the algorithm).

What a hand's log publishes: ``HandStarted.commitment`` (SHA-256 of the server seed, before any card),
``HandStarted.extra["client_seeds"]`` (seat -> text, the players' contributions) and, once the hand is
over, ``HandEnded.server_seed`` (the seed itself, hex).  From those anyone recomputes the deck and
checks it against the commitment and against every card they saw dealt: the k-th ``CardDealt`` of a
hand is ``deck[k]`` (no burn cards, RULES.md §2).
"""

from __future__ import annotations

import hmac
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from stud_service.shuffle import commitment, deck_order


@dataclass(frozen=True)
class ShuffleProblem:
    """``index``: which of the checked events is wrong (0 = HandStarted); ``message`` says how."""

    index: int
    message: str


@dataclass(frozen=True)
class ShuffleEvidence:
    """What the log publishes about one hand's deck."""

    commitment: str
    server_seed: str | None  # hex, revealed at the hand's end
    client_seeds: dict[int, str]  # seat -> seed text
    dealt: tuple[int | None, ...]  # the cards dealt, in order; None where the viewer did not see it
    recorded_deck: tuple[int, ...] | None = None  # HandStarted.deck, when the viewer may see it
    committed_seed: str | None = None  # HandStarted.extra["server_seed"], auditors only


def client_seeds_from_extra(extra: Any) -> dict[int, str]:
    seeds = extra.get("client_seeds") if isinstance(extra, dict) else None
    if not isinstance(seeds, dict):
        return {}
    return {int(seat): str(seed) for seat, seed in seeds.items()}


def evidence_from_payloads(payloads: Iterable[Mapping[str, Any]]) -> ShuffleEvidence:
    """Collect the evidence from a hand's event payloads (full or redacted: hidden cards are None)."""
    started: Mapping[str, Any] = {}
    seed = None
    ended_v1 = False
    dealt: list[int | None] = []
    for payload in payloads:
        kind = payload.get("type")
        if kind == "HandStarted":
            started = payload
        elif kind == "CardDealt":
            card = payload.get("card")
            dealt.append(card if isinstance(card, int) else None)
        elif kind == "HandEnded":
            seed = payload.get("server_seed")
            ended_v1 = payload.get("v") == 1
    extra = started.get("extra")
    deck = started.get("deck")
    committed = extra.get("server_seed") if isinstance(extra, dict) else None
    if not isinstance(seed, str) and ended_v1 and isinstance(committed, str):
        seed = committed  # hands logged before HandEnded carried the reveal (v1): the auditor's copy
    return ShuffleEvidence(
        commitment=str(started.get("commitment", "")),
        server_seed=seed if isinstance(seed, str) else None,
        client_seeds=client_seeds_from_extra(extra),
        dealt=tuple(dealt),
        recorded_deck=tuple(deck) if isinstance(deck, list | tuple) else None,
        committed_seed=committed if isinstance(committed, str) else None,
    )


def check_shuffle(evidence: ShuffleEvidence) -> ShuffleProblem | None:
    """None when the revealed seed matches the commitment and fixes every card seen; else the first
    problem.  ``index`` 0 is the HandStarted/HandEnded pair, k >= 1 the k-th card dealt."""
    seed_hex = evidence.server_seed
    if seed_hex is None:
        return ShuffleProblem(0, "no server seed was revealed at the hand's end")
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
    if evidence.recorded_deck is not None and tuple(deck) != evidence.recorded_deck:
        return ShuffleProblem(0, "the recorded deck is not the one the seeds fix")
    for position, card in enumerate(evidence.dealt):
        if card is not None and deck[position] != card:
            return ShuffleProblem(
                position + 1, f"card {position + 1} dealt is not the deck's card at position {position}"
            )
    return None
