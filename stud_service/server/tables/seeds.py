"""The seeds a table deals from: committed a hand ahead, read back from the log, dealt with the client seeds.

Each hand's server seed is drawn and committed to (``ShuffleCommitted``) in the append that deals the hand
before it or, for a table's first hand, in the append that creates the table: before any player can sit
down and send a client seed for it (docs/fairness.md, "What is committed, and when"). Every replica reads
the committed seed back from the sealed log into its memory (:class:`SeedCommitment`), so whichever deals
the hand deals it from that seed and the client seeds sent since.
"""

from __future__ import annotations

import logging
from typing import Any

from stud_service.engine import Command, CommitShuffle, StartHand, TableState
from stud_service.engine.state import players_ready
from stud_service.server.tables.live import LiveTable, SeedCommitment, TableMoved
from stud_service.shuffle import new_commitment, prepare_deal, seed_from_secret, seed_secret

_log = logging.getLogger(__name__)


def commit_next_hand(now: int) -> CommitShuffle:
    """A fresh server seed for the next hand, committed to (docs/fairness.md, "The specification")."""
    server_seed, commitment = new_commitment()
    return CommitShuffle(commitment, seed_secret(server_seed), now)


def committed_seed(payload: dict[str, Any], version: int) -> SeedCommitment | None:
    """The committed seed of a ShuffleCommitted as read back (opened) from the log; None without one."""
    seed = seed_from_secret(payload.get("secret"))
    if seed is None:
        return None
    return SeedCommitment(int(payload["next_hand"]), str(payload["commitment"]), seed, version)


def deal_commands(live: LiveTable, state: TableState, now: int) -> tuple[Command, Command]:
    """The next hand, dealt from the seed committed for it and the client seeds sent since, with the
    commitment of the hand after it (so client seeds sent during this hand come after that one's)."""
    committed = live.next_seed
    if committed is None or committed.hand != state.hand_number + 1:
        raise TableMoved("the next hand's seed is not committed yet")
    # Client seeds of the players dealt in, keyed by seat (stud_service.shuffle); JSON keys are text.
    seeds = {
        seat: live.client_seeds[state.seats[seat].player_id]
        for seat in players_ready(state)
        if state.seats[seat].player_id in live.client_seeds
    }
    deal = prepare_deal(committed.server_seed, seeds, committed.version)
    if deal.commitment != committed.commitment:  # the log was altered: never deal from an uncommitted seed
        _log.error(
            "hand %d at %s: the committed seed does not match its commitment (version %d); not dealing",
            committed.hand, live.stream_id, committed.version,
        )
        raise TableMoved("the committed seed does not match its commitment")
    return StartHand(deal.cards, deal.commitment, now, deal.extra), commit_next_hand(now)
