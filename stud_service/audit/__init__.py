"""Audit: replay and verify any hand, the provably fair shuffle end to end, hand histories.

Public API (import from ``stud_service.audit``)::

    # reading hands back from the event log
    page = await list_hands(store, table_id=None, player_id=None, since=None, until=None,
                            page_size=50, page_token="")      -> HandPage(hands, next_page_token)
    record = await load_hand(store, table_id, hand)           -> HandRecord (HandNotFound)
    HandRecord.from_payloads(table_id, hand, payloads)        a record from event JSON (no database)

    # verifying
    report = await verify_hand(store, table_id, hand)         -> HandReport(.ok, .checks, .first_problem)
    check_shuffle(shuffle_evidence(record, mode))             -> ShuffleProblem | None  (what ``mode`` may
        check: the proofs of the cards it saw against the deck root, the commitment order; the seed and
        the whole deck for ``full`` only)
    proofs_for_viewer(payloads, server_seed, own_seat)        -> [CardProof] (face-up, shown, own down cards)

    # replaying and histories
    replay_steps(record, mode="full" | "public" | player_id)  -> [ReplayStep(version, event, state)]
    player_history(record, player_id)                         -> [(version, event as that player saw it)]
    narrate(record, viewer=None)                              -> readable text, suit symbols

    # exports (finished hands only; ``player_id`` redacts to that player's view)
    to_phh(record, player_id=None) -> str (TOML)       to_pokerstars(record, player_id=None) -> str

    # tournaments (docs/tournaments.md, "Histories and audit")
    to_phh(record, player_id, tournament) / to_pokerstars(record, player_id, tournament)
        a tournament table's hand with its tournament's header: tournament_info_for(store, record)
    report = await verify_tournament(store, tournament_id)    -> TournamentReport(.ok, .problems, .hands)
    check_tournament(tournament_id, items, hands)             the same check, no database
    tournament_summary(payloads).to_text(player_id) / .to_json()
    await tournament_histories(store, tournament_id, "phh" | "pokerstars", player_id=None)

    # external checkpoints (HMAC-SHA256 signed heads of every table, account, house, player, tournament and
    # tournament money stream)
    checkpoint = await make_checkpoint(store, key)
    report = await verify_checkpoint(store, checkpoint, key)

    # the money reconciliation (docs/reconciliation.md): stud_service.audit.money_log / .money
    report = await audit_money(store, as_of=None, heads=None, currency=None)
                                -> MoneyReport(.ok, .totals, .tables, .accounts, .discrepancies)
    report = reconcile(rows)    the same fold over (stream, version, payload) rows, no database

Errors (``stud_service.audit.errors``): HandNotFound (NOT_FOUND), HandStillRunning (FAILED_PRECONDITION),
NotYourHand (PERMISSION_DENIED); a tournament that does not exist is the tournaments' own NoTournament
(NOT_FOUND).  Running hands are never exported or revealed.
"""

from stud_service.audit.catalog import HandPage, HandSummary, list_hands
from stud_service.audit.checkpoint import CheckpointReport, make_checkpoint, verify_checkpoint
from stud_service.audit.errors import AuditError, HandNotFound, HandStillRunning, NotYourHand
from stud_service.audit.fairness import (
    ShuffleEvidence,
    ShuffleProblem,
    check_shuffle,
    evidence_from_payloads,
    proofs_for_viewer,
)
from stud_service.audit.history import ReplayStep, player_history, replay_steps, shuffle_evidence
from stud_service.audit.narrate import narrate
from stud_service.audit.phh import to_phh
from stud_service.audit.pokerstars import to_pokerstars
from stud_service.audit.records import HandRecord, load_hand
from stud_service.audit.verify import CheckResult, HandReport, Problem, verify_hand

__all__ = [
    "AuditError", "CheckResult", "CheckpointReport", "HandNotFound", "HandPage", "HandRecord", "HandReport",
    "HandStillRunning", "HandSummary", "NotYourHand", "Problem", "ReplayStep", "ShuffleEvidence",
    "ShuffleProblem", "check_shuffle", "evidence_from_payloads", "list_hands", "load_hand", "make_checkpoint",
    "narrate", "player_history", "proofs_for_viewer", "replay_steps", "shuffle_evidence", "to_phh",
    "to_pokerstars", "verify_checkpoint", "verify_hand",
]
