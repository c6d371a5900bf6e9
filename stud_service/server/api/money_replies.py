"""ReconcileMoney's reply: the money report (``audit.money``) as a ``stud.v1.MoneyReconciliation``."""

from __future__ import annotations

import re

from stud_service.audit.money import MoneyReport
from stud_service.server.api.convert import timestamp
from stud_service.server.proto_gen import audit_pb2

CURRENCY_CODE = re.compile(r"[A-Z]{3}")  # ISO 4217
MAX_DISCREPANCIES = 1000  # a reply stays far below gRPC's message size limit however broken the log


def reconciliation_proto(report: MoneyReport, full: bool) -> audit_pb2.MoneyReconciliation:
    reply = audit_pb2.MoneyReconciliation(
        balanced=report.ok,
        events_in_log=report.events_in_log,
        events_read=report.events_read,
        currencies=[
            audit_pb2.CurrencyBooks(
                currency=t.currency, deposits=t.deposits, withdrawals=t.withdrawals, balances=t.balances,
                chips_at_tables=t.chips_at_tables, rake_taken=t.rake_taken, house_balance=t.house_balance,
                unswept_rake=t.unswept_rake, difference=t.difference, accounts=t.accounts, tables=t.tables,
                prize_pools=t.prize_pools, fees=t.fees, tournaments=t.tournaments,
            )
            for _code, t in sorted(report.totals.items())
        ],
        discrepancies=[
            audit_pb2.MoneyDiscrepancy(stream=d.stream_id, version=d.version or 0, message=d.message,
                                       currency=d.currency)
            for d in report.discrepancies[:MAX_DISCREPANCIES]
        ],
        discrepancy_count=len(report.discrepancies),
    )
    if report.as_of is not None:
        reply.as_of.CopyFrom(timestamp(report.as_of))
    if full:
        reply.tables.extend(
            audit_pb2.TableBooks(
                table=name, currency=t.currency, buy_ins=t.buy_ins, top_ups=t.top_ups, cash_outs=t.cash_outs,
                rake_taken=t.rake_taken, rake_swept=t.rake_swept, chips=t.chips, chips_in_hand=t.in_hand,
                hands_ended=t.hands_ended,
            )
            for name, t in sorted(report.tables.items())
        )
        reply.accounts.extend(
            audit_pb2.AccountBooks(
                account=name, player_id=a.player_id, currency=a.currency, deposits=a.deposits,
                withdrawals=a.withdrawals, buy_ins=a.buy_ins, cash_outs=a.cash_outs, balance=a.balance,
            )
            for name, a in sorted(report.accounts.items())
        )
    return reply
