"""Verify one hand: one report, a clear pass or fail, and the first problem found.

Checks, each independent of the others:

``chain``    the log's SHA-256 hash chain over the hand's versions, and its links to the events on
             either side (``EventStore.verify``): an edited, deleted, inserted or reordered event breaks it.
``shuffle``  the commitment came before the client seeds and the deal, the server seed matches it, and
             with the client seeds it fixes the deck root, the recorded deck and every card dealt, each
             of which has a proof against the root (``audit.fairness``; older hands: the revealed seed).
``replay``   re-deciding the hand from its HandStarted reproduces every recorded event and result,
             and every action was legal under the table's rules (``audit.replay_check``).
``chips``    an independent count: antes, bets and returns make the pots, the pots are paid out in full,
             and the stacks after the hand follow; chips in play stay constant through the replay.

The first problem is the one at the lowest version (a problem with no version comes last).
"""

from __future__ import annotations

from dataclasses import dataclass

from stud_service.audit.errors import HandStillRunning
from stud_service.audit.fairness import check_shuffle
from stud_service.audit.history import FULL, shuffle_evidence
from stud_service.audit.records import HandRecord, fetch, load_hand, stream_id_for
from stud_service.audit.replay_check import chips_ledger, replay_hand
from stud_service.store import EventStore

CHECKS = ("chain", "shuffle", "replay", "chips")


@dataclass(frozen=True)
class Problem:
    check: str
    version: int | None
    message: str

    def __str__(self) -> str:
        where = f"version {self.version}" if self.version is not None else "no version"
        return f"{self.check} check failed at {where}: {self.message}"


@dataclass(frozen=True)
class CheckResult:
    name: str
    problem: Problem | None = None

    @property
    def ok(self) -> bool:
        return self.problem is None


@dataclass(frozen=True)
class HandReport:
    table_id: str
    hand: int
    checks: tuple[CheckResult, ...]

    @property
    def ok(self) -> bool:
        return all(check.ok for check in self.checks)

    @property
    def first_problem(self) -> Problem | None:
        problems = [check.problem for check in self.checks if check.problem is not None]
        if not problems:
            return None
        return min(problems, key=lambda p: (p.version is None, p.version or 0, CHECKS.index(p.check)))

    def summary(self) -> str:
        verdict = "PASS" if self.ok else f"FAIL: {self.first_problem}"
        return f"tables/{self.table_id}/hands/{self.hand}: {verdict}"

    def to_json(self) -> dict:
        first = self.first_problem
        return {
            "table_id": self.table_id,
            "hand": self.hand,
            "ok": self.ok,
            "checks": [
                {
                    "name": c.name,
                    "ok": c.ok,
                    "version": c.problem.version if c.problem else None,
                    "message": c.problem.message if c.problem else "",
                }
                for c in self.checks
            ],
            "first_problem": None
            if first is None
            else {"check": first.check, "version": first.version, "message": first.message},
        }


def check_record(record: HandRecord) -> list[CheckResult]:
    """The shuffle, replay and chips checks of a loaded hand (no database access)."""
    items = [(stored.version, stored.payload) for stored in record.events]
    payloads = [payload for _version, payload in items if payload.get("hand") == record.hand]
    results = []
    shuffle_problem = check_shuffle(shuffle_evidence(record, FULL))
    if shuffle_problem is None:
        results.append(CheckResult("shuffle"))
    else:
        versions = [v for v, p in items if p.get("hand") == record.hand and p.get("type") == "CardDealt"]
        index = shuffle_problem.index
        version = versions[index - 1] if 0 < index <= len(versions) else record.first_version
        if index == 0 and "revealed" in shuffle_problem.message:
            # The seed is read from the hand's ShuffleCommitted (older hands: revealed by HandEnded).
            version = record.commitment.version if record.commitment is not None else next(
                (v for v, p in items if p.get("type") == "HandEnded"), record.first_version
            )
        results.append(CheckResult("shuffle", Problem("shuffle", version, shuffle_problem.message)))
    replayed = replay_hand(items, record.hand, record.sitting_out)
    chips_problem = None
    replay_problem = None
    if replayed is not None:
        problem = Problem(
            replayed.check if replayed.check != "legality" else "replay",
            replayed.version,
            ("illegal action: " if replayed.check == "legality" else "") + replayed.message,
        )
        if replayed.check == "chips":
            chips_problem = problem
        else:
            replay_problem = problem
    results.append(CheckResult("replay", replay_problem))
    if chips_problem is None:
        ledger = chips_ledger(payloads)
        if ledger is not None:
            ended = next((v for v, p in items if p.get("type") == "HandEnded"), None)
            chips_problem = Problem("chips", ended, ledger)
    results.append(CheckResult("chips", chips_problem))
    return results


async def verify_loaded(store: EventStore, record: HandRecord) -> HandReport:
    chain = await store.verify(stream_id_for(record.table_id), record.hand)
    chain_result = (
        CheckResult("chain")
        if chain.ok
        else CheckResult(
            "chain", Problem("chain", chain.first_bad_version, chain.reason or "hash chain broken")
        )
    )
    if not record.complete:
        if not chain.ok:  # a deleted HandEnded must fail loudly, not pass for a running hand
            return HandReport(record.table_id, record.hand, (chain_result,))
        later = await fetch(
            store,
            "SELECT min(version) FROM events WHERE stream_id = %s AND hand > %s",
            (stream_id_for(record.table_id), record.hand),
        )
        if later and later[0][0] is not None:  # the hand's end was cut out and the chain re-made
            problem = Problem(
                "replay", int(later[0][0]), f"hand {record.hand} never ended, yet a later hand started here"
            )
            return HandReport(record.table_id, record.hand, (chain_result, CheckResult("replay", problem)))
        raise HandStillRunning(f"hand {record.hand} of table {record.table_id!r} is still running")
    return HandReport(record.table_id, record.hand, (chain_result, *check_record(record)))


async def verify_hand(store: EventStore, table_id: str, hand: int) -> HandReport:
    """Verify one hand; HandNotFound / HandStillRunning if there is nothing finished to verify."""
    return await verify_loaded(store, await load_hand(store, table_id, hand))
