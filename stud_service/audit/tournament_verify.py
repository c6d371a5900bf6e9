"""Verify a tournament: one report, a clear pass or fail, every problem named by its stream and version.

``verify_tournament(store, tournament_id)`` checks

``chain``                the hash chain of ``tournaments/{id}`` (``EventStore.verify``);
``draws`` ... ``prizes`` the stream against the rules and its tables' streams (``tournament_check``:
                         each event is what its command implies, each draw recomputed from its revealed
                         seed, each hand report the table's, chips, places and prizes);
and every hand its tables dealt and ended, as ``audit.verify`` verifies a hand (chain, shuffle, replay,
chips), unless ``hands`` is False.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass
from typing import Any

from stud_service.audit.errors import HandNotFound
from stud_service.audit.records import HandRecord, load_hand
from stud_service.audit.tournament_check import TournamentProblem, check_tournament, first_problem
from stud_service.audit.tournament_log import load_tournament, tournament_stream_id
from stud_service.audit.verify import HandReport, verify_loaded
from stud_service.store import EventStore

HANDS_AT_ONCE = 8  # hands read and verified concurrently: a few of the pool's connections


@dataclass(frozen=True)
class TournamentReport:
    tournament_id: str
    events: int
    problems: tuple[TournamentProblem, ...]
    hands: tuple[HandReport, ...]

    @property
    def ok(self) -> bool:
        return not self.problems and all(report.ok for report in self.hands)

    @property
    def failed_hands(self) -> list[HandReport]:
        return [report for report in self.hands if not report.ok]

    def first_problem(self) -> str | None:
        """The tournament's first problem, else the first failing hand's."""
        problem = first_problem(self.problems)
        if problem is not None:
            return str(problem)
        failed = self.failed_hands
        return f"tables/{failed[0].table_id}: {failed[0].first_problem}" if failed else None

    def summary(self) -> str:
        stream = tournament_stream_id(self.tournament_id)
        counts = f"{self.events} events, {len(self.hands)} hands"
        verdict = "PASS" if self.ok else f"FAIL: {self.first_problem()}"
        return f"{stream} ({counts}): {verdict}"

    def to_json(self) -> dict[str, Any]:
        return {
            "tournament_id": self.tournament_id,
            "ok": self.ok,
            "events": self.events,
            "hands": len(self.hands),
            "problems": [
                {"check": p.check, "stream": p.stream, "version": p.version, "message": p.message}
                for p in self.problems
            ],
            "failed_hands": [report.to_json() for report in self.failed_hands],
            "first_problem": self.first_problem(),
        }


def _slim(record: HandRecord | None) -> HandRecord | None:
    """What the tournament's check reads of a hand (its HandStarted and HandEnded): a tournament of a
    thousand players deals tens of thousands of hands, which need not all stay in memory whole."""
    if record is None:
        return None
    kept = tuple(stored for stored in record.events
                 if stored.type in ("HandStarted", "HandEnded") and stored.payload.get("hand") == record.hand)
    return HandRecord(record.table_id, record.hand, kept)


async def _hand_or_none(store: EventStore, table_id: str, hand: int) -> HandRecord | None:
    try:
        return await load_hand(store, table_id, hand)
    except HandNotFound:
        return None


async def verify_tournament(store: EventStore, tournament_id: str, hands: bool = True) -> TournamentReport:
    """Verify the tournament (see the module); NoTournament when it has no events."""
    events = await load_tournament(store, tournament_id)
    stream = tournament_stream_id(tournament_id)
    chain = await store.verify(stream)
    problems: list[TournamentProblem] = []
    if not chain.ok:
        problems.append(TournamentProblem("chain", stream, chain.first_bad_version,
                                          chain.reason or "hash chain broken"))
    items = [(stored.version, stored.payload) for stored in events]
    named = list(dict.fromkeys(
        (str(payload["table_id"]), int(payload["hand"])) for _version, payload in items
        if payload.get("type") in ("TableHandDealt", "TableHandEnded")
        and isinstance(payload.get("table_id"), str) and isinstance(payload.get("hand"), int)))
    records: dict[tuple[str, int], HandRecord | None] = {}
    reports: list[HandReport] = []
    for start in range(0, len(named), HANDS_AT_ONCE):
        chunk = named[start:start + HANDS_AT_ONCE]
        loaded = await asyncio.gather(*(_hand_or_none(store, *key) for key in chunk))
        if hands:
            finished = [record for record in loaded if record is not None and record.complete]
            reports.extend(await asyncio.gather(*(verify_loaded(store, record) for record in finished)))
        records.update(zip(chunk, (_slim(record) for record in loaded), strict=True))
    problems.extend(check_tournament(tournament_id, items, records))
    return TournamentReport(tournament_id, len(items), tuple(problems), tuple(reports))
