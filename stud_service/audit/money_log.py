"""Reading the money streams for ``audit.money``: one consistent snapshot of the whole log, optionally cut.

Every stream is read in one REPEATABLE READ, READ ONLY transaction, so the streams agree with each other
whatever is being appended meanwhile.  A cut picks an earlier position that is just as consistent:

- ``as_of`` (a time): the events recorded at or before it.  A transaction's rows share one
  ``recorded_at`` (PostgreSQL's ``now()`` is the transaction's start), so a cut never splits one;
- ``heads`` (from a signed checkpoint): each listed stream up to its listed version, streams not listed
  left out (they came later); an event at a listed head whose hash differs is itself a discrepancy.

Table streams are read for their money events only (``money.TABLE_MONEY_TYPES``): cards and seat changes
move no chips, and skipping them in the query is most of what makes the audit fast. Tournament streams
likewise (``money_tournaments.TOURNAMENT_MONEY_TYPES``); their money streams (``pools/``) are read whole.
"""

from __future__ import annotations

from collections.abc import Iterator
from datetime import datetime
from typing import Any

from stud_service.audit.money import ACCOUNTS, HOUSE, TABLE_MONEY_TYPES, TABLES, MoneyFold, MoneyReport
from stud_service.audit.money_tournaments import POOLS, TOURNAMENT_MONEY_TYPES, TOURNAMENTS
from stud_service.store import EventStore
from stud_service.store._json import loads

MONEY_PREFIXES = (TABLES, ACCOUNTS, HOUSE, TOURNAMENTS, POOLS)
# Rows fetched at a time: each batch is parsed and folded between two awaits, so in a server the fold
# holds the event loop for a few milliseconds at a time, never for the whole log.
BATCH_ROWS = 5_000

_CUT = (
    " AND (%(as_of)s::timestamptz IS NULL OR e.recorded_at <= %(as_of)s)"
    " AND (%(streams)s::text[] IS NULL OR e.version <= h.head)"
)
_HEADS = (
    " LEFT JOIN unnest(%(streams)s::text[], %(versions)s::bigint[]) AS h(stream_id, head)"
    " ON h.stream_id = e.stream_id"
)
_WHERE_MONEY = (
    " WHERE (%(streams)s::text[] IS NULL OR h.head IS NOT NULL)"
    " AND ((starts_with(e.stream_id, 'tables/') AND e.type = ANY(%(types)s))"
    " OR (starts_with(e.stream_id, 'tournaments/') AND e.type = ANY(%(tournament_types)s))"
    " OR starts_with(e.stream_id, 'accounts/') OR starts_with(e.stream_id, 'house/')"
    " OR starts_with(e.stream_id, 'pools/'))"
)


_COUNT_BY_TIME = (
    "SELECT count(*), now() FROM events e" + _HEADS
    + " WHERE (%(streams)s::text[] IS NULL OR h.head IS NOT NULL)" + _CUT
)
# A stream's head version is the count of its events: without a time cut, one step down each stream's
# key counts the log, where count(*) would read it all a second time.
_COUNT_BY_HEADS = (
    "SELECT coalesce(sum(least(t.version, coalesce(h.head, t.version))), 0), now() FROM streams s"
    " CROSS JOIN LATERAL (SELECT version FROM events e WHERE e.stream_id = s.stream_id"
    " ORDER BY version DESC LIMIT 1) t"
    " LEFT JOIN unnest(%(streams)s::text[], %(versions)s::bigint[]) AS h(stream_id, head)"
    " ON h.stream_id = s.stream_id WHERE (%(streams)s::text[] IS NULL OR h.head IS NOT NULL)"
)


def heads_of(checkpoint: dict[str, Any]) -> dict[str, tuple[int, str]]:
    """A checkpoint's ``{stream_id: (version, hash hex)}`` (``audit.checkpoint``'s tables and streams)."""
    tables = checkpoint.get("tables") or ()
    heads = {TABLES + str(t["table"]): (int(t["version"]), str(t["hash"])) for t in tables}
    for entry in checkpoint.get("streams") or ():
        heads[str(entry["stream"])] = (int(entry["version"]), str(entry["hash"]))
    return heads


def _parsed(rows: list[tuple[str, int, str]]) -> Iterator[tuple[str, int, dict[str, Any]]]:
    for stream_id, version, text in rows:
        yield stream_id, version, loads(text)


async def audit_money(
    store: EventStore,
    as_of: datetime | None = None,
    heads: dict[str, tuple[int, str]] | None = None,
    currency: str | None = None,
) -> MoneyReport:
    """Reconcile the log (at ``as_of`` or at a checkpoint's ``heads``); ``currency``: that one only."""
    params: dict[str, Any] = {
        "as_of": as_of,
        "streams": list(heads) if heads is not None else None,
        "versions": [version for version, _hash in heads.values()] if heads is not None else None,
        "types": list(TABLE_MONEY_TYPES),
        "tournament_types": list(TOURNAMENT_MONEY_TYPES),
    }
    fold = MoneyFold()
    async with store.pool.connection() as conn, conn.transaction():
        await conn.execute("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ, READ ONLY")
        cursor = await conn.execute(_COUNT_BY_TIME if as_of is not None else _COUNT_BY_HEADS, params)
        events_in_log, read_at = await cursor.fetchone()
        named = conn.cursor("money_events")
        await named.execute(
            "SELECT e.stream_id, e.version, e.payload::text FROM events e" + _HEADS + _WHERE_MONEY + _CUT
            + " ORDER BY e.stream_id, e.version",
            params,
        )
        while rows := await named.fetchmany(BATCH_ROWS):
            fold.feed(_parsed(rows))
        await named.close()
        if heads is not None:
            await _check_heads(conn, heads, fold)
    report = fold.finish()
    report.events_in_log, report.as_of = int(events_in_log), as_of or read_at
    return report.only(currency) if currency else report


async def _check_heads(conn: Any, heads: dict[str, tuple[int, str]], fold: MoneyFold) -> None:
    cursor = await conn.execute(
        "SELECT e.stream_id, e.hash FROM events e"
        " JOIN unnest(%s::text[], %s::bigint[]) AS h(stream_id, head)"
        " ON h.stream_id = e.stream_id AND e.version = h.head",
        (list(heads), [version for version, _hash in heads.values()]),
    )
    found = {stream_id: bytes(digest).hex() for stream_id, digest in await cursor.fetchall()}
    for stream_id, (version, digest) in sorted(heads.items()):
        if not stream_id.startswith(MONEY_PREFIXES):
            continue
        if stream_id not in found:
            fold.problem(stream_id, version, "the checkpointed event is gone", _currency_of(fold, stream_id))
        elif found[stream_id] != digest:
            fold.problem(
                stream_id, version,
                "the event at the checkpointed version no longer has the checkpointed hash:"
                " the stream was rewritten at or before it",
                _currency_of(fold, stream_id),
            )


def _currency_of(fold: MoneyFold, stream_id: str) -> str:
    if stream_id.startswith(TABLES):
        table = fold.tables.get(stream_id)
        return table.figures.currency if table is not None else ""
    if stream_id.startswith(TOURNAMENTS):
        tournament = fold.tournaments.get(stream_id)
        return tournament.figures.currency if tournament is not None else ""
    return stream_id.split("/")[1] if "/" in stream_id else ""
