"""The ledger's accounts, entries and standings as ``stud.v1`` messages (proto/stud/v1/account.proto)."""

from __future__ import annotations

from stud_service.ledger.accounts import Account
from stud_service.ledger.names import player_stream
from stud_service.ledger.players import PlayerStanding
from stud_service.server.api.convert import timestamp, timestamp_ms
from stud_service.server.proto_gen import account_pb2
from stud_service.store import StoredEvent

_KINDS = {
    "FundsDeposited": account_pb2.ACCOUNT_ENTRY_KIND_DEPOSIT,
    "FundsWithdrawn": account_pb2.ACCOUNT_ENTRY_KIND_WITHDRAWAL,
    "CashOutCredited": account_pb2.ACCOUNT_ENTRY_KIND_CASH_OUT,
    "RakeSwept": account_pb2.ACCOUNT_ENTRY_KIND_RAKE,
    "EntryDebited": account_pb2.ACCOUNT_ENTRY_KIND_TOURNAMENT_ENTRY,
    "EntryRefunded": account_pb2.ACCOUNT_ENTRY_KIND_TOURNAMENT_REFUND,
    "PrizeCredited": account_pb2.ACCOUNT_ENTRY_KIND_TOURNAMENT_PRIZE,
}
_DEBITS = ("FundsWithdrawn", "BuyInDebited", "EntryDebited")
_TOURNAMENT_ENTRIES = {
    "EntryDebited": "entry into", "EntryRefunded": "refund from", "PrizeCredited": "prize from",
}


def account_to_proto(name: str, account: Account) -> account_pb2.Account:
    reply = account_pb2.Account(
        name=name,
        player_id=account.player_id or "",
        currency_code=account.currency,
        balance=account.balance,
        version=account.version,
        at_tables=[
            account_pb2.TableStake(table=f"tables/{table}", amount=amount)
            for table, amount in sorted(account.at_tables.items())
        ],
    )
    if account.opened_ms is not None:
        reply.create_time.CopyFrom(timestamp_ms(account.opened_ms))
    return reply


def _description(kind: str, payload: dict) -> str:
    table = f"tables/{payload.get('table_id', '')}"
    if kind == "FundsDeposited":
        return f"deposit {payload['reference']}"
    if kind == "FundsWithdrawn":
        return f"withdrawal {payload['reference']}"
    if kind == "BuyInDebited":
        return f"{'top-up' if payload.get('top_up') else 'buy-in'} at {table}"
    if kind == "CashOutCredited":
        return f"cash-out from {table}"
    if kind in _TOURNAMENT_ENTRIES:
        return f"{_TOURNAMENT_ENTRIES[kind]} tournaments/{payload.get('tournament_id', '')}"
    if kind == "RakeSwept":
        first, last = payload["first_hand"], payload["last_hand"]
        hands = f"hand {last}" if first == last else f"hands {first}-{last}"
        return f"rake of {hands} at {table}"
    return kind


def entry_to_proto(account_name: str, stored: StoredEvent) -> account_pb2.AccountEntry:
    payload = stored.payload
    kind = payload["type"]
    amount = int(payload.get("amount", 0))
    if kind == "BuyInDebited":
        entry_kind = (
            account_pb2.ACCOUNT_ENTRY_KIND_TOP_UP
            if payload.get("top_up")
            else account_pb2.ACCOUNT_ENTRY_KIND_BUY_IN
        )
    else:
        entry_kind = _KINDS.get(kind, account_pb2.ACCOUNT_ENTRY_KIND_UNSPECIFIED)
    entry = account_pb2.AccountEntry(
        account=account_name,
        version=stored.version,
        kind=entry_kind,
        amount=-amount if kind in _DEBITS else amount,
        balance=int(payload.get("balance", 0)),
        payment_reference=payload.get("reference", ""),
        table=f"tables/{payload['table_id']}" if "table_id" in payload else "",
        table_version=int(payload.get("table_version", 0)),
        first_hand=int(payload.get("first_hand", 0)),
        last_hand=int(payload.get("last_hand", 0)),
        description=_description(kind, payload),
        tournament=f"tournaments/{payload['tournament_id']}" if "tournament_id" in payload else "",
        tournament_version=int(payload.get("tournament_version", 0)),
    )
    entry.create_time.CopyFrom(timestamp(stored.recorded_at))
    return entry


def standing_to_proto(standing: PlayerStanding) -> account_pb2.PlayerStanding:
    reply = account_pb2.PlayerStanding(
        name=player_stream(standing.player_id), suspended=standing.suspended, reason=standing.reason
    )
    if standing.changed_ms is not None:
        reply.update_time.CopyFrom(timestamp_ms(standing.changed_ms))
    return reply
