"""GetIntegrityReport's reply: the integrity report (``audit.integrity``) as a ``stud.v1.IntegrityReport``."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from stud_service.audit.integrity import FLAG_SCORE, IntegrityReport, PairFinding, integrity_report
from stud_service.server.api.errors import malformed
from stud_service.server.api.names import PLAYER_ID
from stud_service.server.proto_gen import audit_pb2
from stud_service.store import EventStore

DEFAULT_PAIRS = 50
MAX_PAIRS = 1000


def _pair_proto(pair: PairFinding) -> audit_pb2.PairEvidence:
    reply = audit_pb2.PairEvidence(
        player_ids=[pair.a, pair.b], hands=pair.hands, score=pair.score, flagged=pair.flagged,
        reasons=list(pair.reasons), flow_from=pair.giver, flow_to=pair.receiver,
        net_flow=round(abs(pair.flow)),
        flow_expected=round(pair.flow_expected if pair.flow >= 0 else -pair.flow_expected),
        flow_at_showdown=round(abs(pair.showdown_flow)), flow_z=pair.flow_z,
        soft_play=[
            audit_pb2.SoftPlayEvidence(
                player_id=s.actor, bettor_id=s.bettor, faced=s.faced, folds=s.folds,
                faced_better=s.faced_better, folds_better=s.folds_better,
                player_others_faced_better=s.actor_others_faced_better,
                player_others_folds_better=s.actor_others_folds_better,
                bettor_others_faced_better=s.bettor_others_faced_better,
                bettor_others_folds_better=s.bettor_others_folds_better, z=s.z,
            )
            for s in pair.soft_play
        ],
        heads_up_rounds=pair.heads_up_rounds, heads_up_checked=pair.heads_up_checked,
        check_down_z=pair.check_down_z, raise_wars=pair.raise_wars, three_way_rounds=pair.three_way_rounds,
        raise_wars_expected=pair.raise_wars_expected, raise_wars_z=pair.raise_wars_z,
        timing=[
            audit_pb2.TimingEvidence(player_id=t.actor, bettor_id=t.bettor, mean_ms=t.mean_ms or 0.0,
                                     others_mean_ms=t.others_mean_ms or 0.0, actions=t.actions, z=t.z)
            for t in pair.timing
        ],
    )
    if pair.overlap is not None:
        reply.sessions.CopyFrom(audit_pb2.SessionOverlap(
            shared_network_sessions=pair.overlap.shared_network_sessions,
            shared_device_sessions=pair.overlap.shared_device_sessions,
        ))
    return reply


def integrity_proto(report: IntegrityReport, pairs: int) -> audit_pb2.IntegrityReport:
    return audit_pb2.IntegrityReport(
        events_in_log=report.events_in_log, events_read=report.events_read, hands=report.hands,
        tables=report.tables, players=report.players, pair_count=len(report.pairs),
        flagged_count=len(report.flagged), flag_score=FLAG_SCORE, sessions_recorded=report.sessions_recorded,
        heads_up_checked_rate=report.baselines.heads_up_checked_rate,
        raise_wars_per_round=report.baselines.raise_wars_per_round,
        pairs=[_pair_proto(pair) for pair in report.pairs[:pairs]],
    )


async def integrity_reply(
    store: EventStore, request: Any, since: datetime | None, until: datetime | None
) -> audit_pb2.IntegrityReport:
    """The report of the hands in [since, until), for the request's player (if any), its top pairs."""
    if request.page_size < 0:
        raise malformed("page_size must not be negative", "page_size")
    player_id = PLAYER_ID.check(request.player_id, "player_id") if request.player_id else None
    report = await integrity_report(store, since=since, until=until)
    if player_id is not None:
        report = report.involving(player_id)
    return integrity_proto(report, min(request.page_size or DEFAULT_PAIRS, MAX_PAIRS))
