"""Audit: replay and verify any hand, the provably fair shuffle end to end, hand histories.

Public API (import from ``stud_service.audit``)::

    # reading hands back from the event log
    page = await list_hands(store, table_id=None, player_id=None, since=None, until=None,
                            page_size=50, page_token="")      -> HandPage(hands, next_page_token)
    record = await load_hand(store, table_id, hand)           -> HandRecord (HandNotFound)

    # verifying
    report = await verify_hand(store, table_id, hand)         -> HandReport(.ok, .checks, .first_problem)
    check_shuffle(evidence_from_payloads(payloads))           -> ShuffleProblem | None  (public data only)

    # replaying and histories
    replay_steps(record, mode="full" | "public" | player_id)  -> [ReplayStep(version, event, state)]
    player_history(record, player_id)                         -> events as that player was entitled to see
                                                                 (NotYourHand, HandStillRunning)

    # exports (complete hands only; ``player_id`` redacts to that player's view)
    to_phh(record, player_id=None) -> str (TOML)       to_pokerstars(record, player_id=None) -> str

    # external checkpoints (HMAC-SHA256 signed heads of every table)
    checkpoint = await make_checkpoint(store, key)     await verify_checkpoint(store, checkpoint, key)

Errors (``stud_service.audit.errors``): HandNotFound (NOT_FOUND), HandStillRunning (FAILED_PRECONDITION),
NotYourHand (PERMISSION_DENIED).
"""
