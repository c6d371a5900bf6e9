"""``stud-service audit``: checkpoints of the event log, the money reconciliation, integrity, tournaments.

    stud-service audit checkpoint [-o FILE] [--key-file FILE]      every stream's head and hash, signed
    stud-service audit verify --checkpoint FILE [--key-file FILE]  does the log still extend that checkpoint?
    stud-service audit verify --tournament ID [--json]   a tournament against the rules: every event what its
                                                         command implies, every draw, every hand of its tables
    stud-service audit tournament-summary ID [--as PLAYER] [--json]    places and prizes, as rooms give them
    stud-service audit tournament-hands ID [--format phh|pokerstars] [--as PLAYER] [-o FILE]
                                                         every hand of a tournament in one file
    stud-service audit money [--as-of TIME | --checkpoint FILE [--key-file FILE]] [--currency CUR] [--json]
                                                         do the books balance? (docs/reconciliation.md)
    stud-service audit access [--since TIME] [--until TIME] [--principal WHO] [--method M] [--json]
                                                         the access log, oldest first (docs/access-log.md)
    stud-service audit integrity [--since TIME] [--until TIME] [--player WHO] [--top N] [--json]
                                 [--plots FILE.png]      collusion and chip-dumping evidence
                                                         (docs/integrity.md)
    stud-service audit sessions [--since TIME] [--until TIME] [--player WHO] [--address NET] [--device ID]
                                [--json]                 player sessions, oldest first
    stud-service audit purge-sessions --before DAY [--dry-run]
                                                         purge the session streams of the days before DAY
                                                         (docs/player-protection.md, "Retention")

The key is ``$STUD_CHECKPOINT_KEY`` (at least 32 bytes) unless ``--key-file`` names a file holding it.
Store checkpoints outside the database: a log rewritten and re-hashed after one fails ``verify`` with the
stream and version.  Exit codes: 0 ok (``money``: the books balance), 1 verification failed (``money``: a
discrepancy; ``integrity``: a pair flagged), 2 refused (no key, unreadable file, bad time, no such
tournament, ...).  The tournament commands read sealed hands with the keyring (``--keys-file``, as
``stud-service hands`` does).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import re
import sys
from collections.abc import Awaitable, Callable
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from stud_service.commands.recorded import recorded_store
from stud_service.currency import money_text
from stud_service.db import DatabaseUnavailable, add_database_arguments, settings_from_args
from stud_service.sealing.startup import add_keys_argument
from stud_service.wording import counted


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "audit",
        help="signed checkpoints of the event log; the money reconciliation; the access log; integrity;"
        " tournaments",
        description=__doc__.splitlines()[0],
    )
    commands = parser.add_subparsers(dest="audit_command", metavar="ACTION", required=True)
    checkpoint = commands.add_parser("checkpoint", help="print every table's signed head")
    checkpoint.add_argument("-o", "--output", type=Path, help="write to this file (default: standard output)")
    checkpoint.add_argument("--key-file", help="file holding the signing key")
    add_database_arguments(checkpoint)
    checkpoint.set_defaults(func=run_checkpoint)
    verify = commands.add_parser("verify", help="check the log against a checkpoint; verify a tournament")
    what = verify.add_mutually_exclusive_group(required=True)
    what.add_argument("--checkpoint", type=Path, help="a file made by 'audit checkpoint'")
    what.add_argument("--tournament", metavar="ID", help="verify this tournament and its tables' hands")
    verify.add_argument("--key-file", help="file holding the signing key")
    verify.add_argument("--json", action="store_true", help="the tournament's report as JSON")
    add_database_arguments(verify)
    add_keys_argument(verify)
    verify.set_defaults(func=run_verify)
    summary = commands.add_parser("tournament-summary", help="a tournament's places and prizes")
    summary.add_argument("tournament", metavar="ID", help="the tournament's id")
    summary.add_argument("--as", dest="viewer", help="the summary this player gets (where they finished)")
    summary.add_argument("--json", action="store_true", help="the summary as JSON")
    add_database_arguments(summary)
    summary.set_defaults(func=run_tournament_summary)
    histories = commands.add_parser("tournament-hands", help="every hand of a tournament in one file")
    histories.add_argument("tournament", metavar="ID", help="the tournament's id")
    histories.add_argument("--format", choices=("phh", "pokerstars"), default="pokerstars",
                           help="PokerStars' text or PHH (default pokerstars)")
    histories.add_argument("--as", dest="viewer", help="only this player's hands, as they saw them")
    histories.add_argument("-o", "--output", type=Path, help="write to this file (default: standard output)")
    add_database_arguments(histories)
    add_keys_argument(histories)
    histories.set_defaults(func=run_tournament_hands)
    money = commands.add_parser("money", help="reconcile every unit of money in the log")
    cut = money.add_mutually_exclusive_group()
    cut.add_argument("--as-of", help="reconcile the log as it was at this ISO-8601 time (default UTC)")
    cut.add_argument("--checkpoint", type=Path, help="reconcile at a signed checkpoint's heads")
    money.add_argument("--key-file", help="file holding the checkpoint key (with --checkpoint)")
    money.add_argument("--currency", help="report this ISO 4217 currency only")
    money.add_argument("--json", action="store_true", help="the whole report as JSON")
    add_database_arguments(money)
    money.set_defaults(func=run_money)
    access = commands.add_parser("access", help="list the access log: privileged calls and commands")
    access.add_argument("--since", help="only records at or after this ISO-8601 time (default UTC)")
    access.add_argument("--until", help="only records before this ISO-8601 time (default UTC)")
    access.add_argument("--principal", help="only this principal's records (token subject or OS user)")
    access.add_argument("--method", help="only this method (full name, bare name, or cli:COMMAND)")
    access.add_argument("--json", action="store_true", help="one JSON object per record")
    add_database_arguments(access)
    access.set_defaults(func=run_access)
    integrity = commands.add_parser("integrity", help="rank pairs of players by evidence of collusion")
    integrity.add_argument("--since", help="only hands recorded at or after this ISO-8601 time (default UTC)")
    integrity.add_argument("--until", help="only hands recorded before this ISO-8601 time (default UTC)")
    integrity.add_argument("--player", help="only the pairs this player belongs to")
    integrity.add_argument("--top", type=int, help="pairs shown (default 10; with --json: every pair)")
    integrity.add_argument("--json", action="store_true", help="the report as JSON")
    integrity.add_argument("--plots", type=Path, help="draw the top pairs into this PNG (needs matplotlib)")
    add_database_arguments(integrity)
    integrity.set_defaults(func=run_integrity)
    sessions = commands.add_parser("sessions", help="list player sessions: address, device, start, end")
    sessions.add_argument("--since", help="only sessions started at or after this ISO-8601 time (UTC)")
    sessions.add_argument("--until", help="only sessions started before this ISO-8601 time (default UTC)")
    sessions.add_argument("--player", help="only this player's sessions")
    sessions.add_argument("--address", help="only sessions from this address or network (10.0.0.0/24)")
    sessions.add_argument("--device", help="only sessions with this device id")
    sessions.add_argument("--json", action="store_true", help="one JSON object per session")
    add_database_arguments(sessions)
    sessions.set_defaults(func=run_sessions)
    purge = commands.add_parser("purge-sessions",
                                help="purge the player sessions of the days before a day (retention)")
    purge.add_argument("--before", required=True, help="a UTC day, YYYY-MM-DD: the days before it are purged")
    purge.add_argument("--dry-run", action="store_true", help="say what would be purged; purge nothing")
    add_database_arguments(purge)
    purge.set_defaults(func=run_purge_sessions)


def _key(args: argparse.Namespace) -> bytes | None:
    from stud_service.audit.checkpoint import CheckpointKeyError, key_from

    try:
        return key_from(key_file=args.key_file)
    except (CheckpointKeyError, OSError) as error:
        print(f"stud-service audit {args.audit_command}: {error}", file=sys.stderr)
        return None


def run_checkpoint(args: argparse.Namespace) -> int:
    from stud_service.audit.checkpoint import make_checkpoint

    key = _key(args)
    if key is None:
        return 2

    async def main() -> dict:
        async with recorded_store(args, "audit checkpoint", "tables/-") as store:
            return await make_checkpoint(store, key)

    try:
        checkpoint = asyncio.run(main())
    except DatabaseUnavailable as error:
        print(f"stud-service audit checkpoint: {error}", file=sys.stderr)
        return 2
    text = json.dumps(checkpoint, indent=2) + "\n"
    if args.output is not None:
        args.output.write_text(text)
        tables, others = len(checkpoint["tables"]), len(checkpoint["streams"])
        print(f"checkpoint of {counted(tables + others, 'stream')} ({counted(tables, 'table')} and"
              f" {counted(others, 'other stream')}: accounts, the house, tournaments)"
              f" written to {args.output}", file=sys.stderr)
    else:
        sys.stdout.write(text)
    return 0


def _key_and_checkpoint(args: argparse.Namespace) -> tuple[bytes, dict] | None:
    """The key and the ``--checkpoint`` file's JSON; None (the reason printed) when either is missing."""
    key = _key(args)
    if key is None:
        return None
    try:
        return key, json.loads(args.checkpoint.read_text())
    except (OSError, ValueError) as error:
        where = f"stud-service audit {args.audit_command}"
        print(f"{where}: cannot read {args.checkpoint}: {error}", file=sys.stderr)
        return None


def run_verify(args: argparse.Namespace) -> int:
    from stud_service.audit.checkpoint import verify_checkpoint

    if args.tournament is not None:
        return run_verify_tournament(args)
    read = _key_and_checkpoint(args)
    if read is None:
        return 2
    key, checkpoint = read

    async def main():  # type: ignore[no-untyped-def]
        async with recorded_store(args, "audit verify", "tables/-") as store:
            return await verify_checkpoint(store, checkpoint, key)

    try:
        report = asyncio.run(main())
    except DatabaseUnavailable as error:
        print(f"stud-service audit verify: {error}", file=sys.stderr)
        return 2
    for finding in report.purged:
        print(f"PURGED {finding.table_id} (checkpointed at version {finding.version}): {finding.message}")
    for finding in report.findings:
        stream = finding.table_id if "/" in finding.table_id else f"tables/{finding.table_id}"
        where = f"{stream} version {finding.version}" if finding.table_id else "checkpoint"
        print(f"FAIL {where}: {finding.message}")
    if report.ok:
        created = checkpoint.get("created_at")
        checked = counted(report.tables_checked, "stream still extends", "streams still extend")
        print(f"OK: {checked} the checkpoint of {created}")
        return 0
    return 1


def _refuse(message: str) -> int:
    print(f"stud-service audit money: {message}", file=sys.stderr)
    return 2


def _as_of(text: str) -> datetime:
    moment = datetime.fromisoformat(text)
    return moment if moment.tzinfo is not None else moment.replace(tzinfo=UTC)


def _refuser(command: str) -> Callable[[str], int]:
    """Print why ``stud-service audit {command}`` refuses, and give its exit code (2)."""

    def refuse(message: str) -> int:
        print(f"stud-service audit {command}: {message}", file=sys.stderr)
        return 2

    return refuse


def _time_bounds(args: argparse.Namespace) -> tuple[datetime | None, datetime | None]:
    """``--since`` and ``--until``; ValueError naming the flag that is not an ISO-8601 time."""
    bounds = []
    for flag, text in (("--since", args.since), ("--until", args.until)):
        try:
            bounds.append(_as_of(text) if text else None)
        except ValueError:
            raise ValueError(f"{flag} must be an ISO-8601 time, not {text!r}") from None
    return bounds[0], bounds[1]


def _ms(when: datetime | None) -> int | None:
    return None if when is None else int(when.timestamp() * 1000)


Page = Callable[[Any, str], Awaitable[tuple[list[Any], str]]]  # (store, position) -> items, next position


def _listing(args: argparse.Namespace, command: str, resource: str, read_page: Page) -> list[Any]:
    """Every item of a listing of the database of ``args``, the access of ``stud-service audit {command}``
    recorded first; ``read_page(store, position)`` gives a page's items and the next position."""

    async def main() -> list[Any]:
        found: list[Any] = []
        async with recorded_store(args, f"audit {command}", resource) as store:
            position = ""
            while True:
                items, position = await read_page(store, position)
                found.extend(items)
                if not position:
                    return found

    return asyncio.run(main())


def run_money(args: argparse.Namespace) -> int:
    from stud_service.audit.checkpoint import FORMAT, signature_ok
    from stud_service.audit.money_log import audit_money, heads_of

    as_of = heads = None
    if args.currency is not None and not re.fullmatch(r"[A-Z]{3}", args.currency):
        return _refuse(f"--currency must be an ISO 4217 code (three capital letters), not {args.currency!r}")
    if args.as_of is not None:
        try:
            as_of = _as_of(args.as_of)
        except ValueError:
            return _refuse(f"--as-of must be an ISO-8601 time, not {args.as_of!r}")
    position = f"as of {as_of.isoformat()}" if as_of else "at the head"
    if args.checkpoint is not None:
        read = _key_and_checkpoint(args)
        if read is None:
            return 2
        key, checkpoint = read
        if not isinstance(checkpoint, dict) or not signature_ok(checkpoint, key):
            return _refuse(f"{args.checkpoint} is not a checkpoint signed under this key")
        if checkpoint.get("format") != FORMAT:
            return _refuse(f"{args.checkpoint} lists tables only (format 1): make a new checkpoint")
        heads = heads_of(checkpoint)
        position = f"at the checkpoint of {checkpoint.get('created_at')}"

    async def main():  # type: ignore[no-untyped-def]
        async with recorded_store(args, "audit money", "money") as store:
            return await audit_money(store, as_of, heads, args.currency)

    try:
        report = asyncio.run(main())
    except DatabaseUnavailable as error:
        return _refuse(str(error))
    if args.json:
        print(json.dumps(report.to_json(), indent=2))
        return 0 if report.ok else 1
    print(f"money {position}: {report.events_in_log} events in the log, {report.events_read} read")
    for currency, totals in sorted(report.totals.items()):
        def money(amount: int, code: str = currency) -> str:
            return money_text(amount, code)

        print(
            f"{currency}: deposits {money(totals.deposits)} - withdrawals {money(totals.withdrawals)}"
            f" = balances {money(totals.balances)} + chips at tables {money(totals.chips_at_tables)}"
            f" + rake taken {money(totals.rake_taken)} + prize pools {money(totals.prize_pools)}"
            f" + fees {money(totals.fees)} (difference {money(totals.difference)});"
            f" house {money(totals.house_balance)}, unswept rake {money(totals.unswept_rake)};"
            f" {totals.accounts} accounts, {totals.tables} tables, {totals.tournaments} tournaments"
        )
    play = sum(1 for table in report.tables.values() if not table.currency)
    if play:
        print(f"play chips: {play} tables checked per hand and per table")
    for discrepancy in report.discrepancies:
        print(f"FAIL {discrepancy}")
    print("PASS: the books balance" if report.ok else f"FAIL: {len(report.discrepancies)} discrepancies")
    return 0 if report.ok else 1


def run_access(args: argparse.Namespace) -> int:
    from stud_service.access import list_access_records

    refuse = _refuser("access")
    try:
        since, until = _time_bounds(args)
    except ValueError as error:
        return refuse(str(error))

    async def page(store: Any, position: str) -> tuple[list[Any], str]:
        found = await list_access_records(store, since_ms=_ms(since), until_ms=_ms(until),
                                          principal_id=args.principal, method=args.method, page_size=1000,
                                          position=position)
        return list(found.records), found.next_position

    try:
        records = _listing(args, "access", "accessRecords", page)
    except DatabaseUnavailable as error:
        return refuse(str(error))
    for stored in records:
        record = stored.record
        if args.json:
            print(json.dumps({
                "time": record.at.isoformat(), "principal": record.principal_id, "role": record.role,
                "method": record.method, "resource": record.resource, "peer": record.peer,
                "outcome": record.outcome.value, "reason": record.reason,
                "stream": stored.stream_id, "version": stored.version,
            }))
        else:
            verdict = record.outcome.value + (f" {record.reason}" if record.reason else "")
            print(f"{record.at:%Y-%m-%d %H:%M:%S.%f}"[:-3] + f"  {record.principal_id} ({record.role})"
                  f"  {record.method}  {record.resource or '-'}  from {record.peer}  {verdict}")
    return 0


def run_integrity(args: argparse.Namespace) -> int:
    from stud_service.audit.integrity import integrity_report, report_json, report_text

    refuse = _refuser("integrity")
    try:
        bounds = _time_bounds(args)
    except ValueError as error:
        return refuse(str(error))
    if args.top is not None and args.top < 1:
        return refuse(f"--top must be at least 1, not {args.top}")
    if args.plots is not None:
        try:
            import matplotlib  # noqa: F401  (refused before anything is read)
        except ImportError:
            return refuse("--plots needs matplotlib: pip install 'stud-service[report]'")

    async def main():  # type: ignore[no-untyped-def]
        async with recorded_store(args, "audit integrity", "tables/-") as store:
            return await integrity_report(store, since=bounds[0], until=bounds[1])

    try:
        report = asyncio.run(main())
    except DatabaseUnavailable as error:
        return refuse(str(error))
    if args.player:
        report = report.involving(args.player)
    top = args.top or 10
    if args.json:
        print(json.dumps(report_json(report, top=args.top), indent=2))
    else:
        sys.stdout.write(report_text(report, top))
    if args.plots is not None:
        from stud_service.audit.integrity.plots import write_plots

        write_plots(report, args.plots, top)
        print(f"plots of the top {min(top, len(report.pairs))} pairs written to {args.plots}",
              file=sys.stderr)
    return 1 if report.flagged else 0


def _on_tournament(args: argparse.Namespace, command: str, action: Any, keys: bool = True) -> int:
    """Run ``action(store)`` on the event log, the access to ``tournaments/{id}`` recorded first; the
    refusals (no such tournament or hand, an event the code cannot read, no database, no keys) print and
    exit 2."""
    from stud_service.audit.errors import AuditError
    from stud_service.engine.codec import EventDecodeError
    from stud_service.sealing import SealingError, resolve_keyring
    from stud_service.store import StoreError
    from stud_service.tournaments import TournamentError

    async def main() -> int:
        keyring = resolve_keyring(args.keys_file, settings_from_args(args)) if keys else None
        resource = f"tournaments/{args.tournament}"
        async with recorded_store(args, f"audit {command}", resource, keyring=keyring) as store:
            return await action(store)

    try:
        return asyncio.run(main())
    except (AuditError, TournamentError, EventDecodeError, DatabaseUnavailable, StoreError,
            SealingError) as error:
        print(f"stud-service audit {command}: {error}", file=sys.stderr)
        return 2


def run_verify_tournament(args: argparse.Namespace) -> int:
    from stud_service.audit.tournament_verify import verify_tournament

    async def action(store: Any) -> int:
        report = await verify_tournament(store, args.tournament)
        if args.json:
            print(json.dumps(report.to_json(), indent=2))
        else:
            for problem in report.problems:
                print(f"FAIL {problem}")
            for hand in report.failed_hands:
                print(f"FAIL {hand.summary()}")
            print(report.summary())
        return 0 if report.ok else 1

    return _on_tournament(args, "verify", action)


def run_tournament_summary(args: argparse.Namespace) -> int:
    from stud_service.audit.tournament_log import load_tournament
    from stud_service.audit.tournament_summary import tournament_summary

    async def action(store: Any) -> int:
        events = await load_tournament(store, args.tournament)
        summary = tournament_summary(stored.payload for stored in events)
        if args.json:
            print(json.dumps(summary.to_json(), indent=2))
        else:
            sys.stdout.write(summary.to_text(args.viewer))
        return 0

    return _on_tournament(args, "tournament-summary", action, keys=False)


def run_tournament_hands(args: argparse.Namespace) -> int:
    from stud_service.audit.tournament_export import tournament_histories

    async def action(store: Any) -> int:
        text = await tournament_histories(store, args.tournament, args.format, args.viewer)
        if args.output is not None:
            args.output.write_text(text)
        else:
            sys.stdout.write(text)
        return 0

    return _on_tournament(args, "tournament-hands", action)
def session_json(session) -> dict:  # type: ignore[no-untyped-def]
    """A session as ``audit sessions --json`` writes it (an archive before a purge)."""
    start, end = session.start, session.end
    return {
        "session": start.session_id, "player": start.player_id, "transport": start.transport.value,
        "connection": start.connection, "address": start.address, "device": start.device,
        "start": datetime.fromtimestamp(start.at_ms / 1000, UTC).isoformat(),
        "end": datetime.fromtimestamp(end.at_ms / 1000, UTC).isoformat() if end else None,
        "ended": end.reason.value if end else None, "calls": end.calls if end else None,
        "tables": list(session.tables), "stream": session.stream_id, "version": session.version,
    }


def run_sessions(args: argparse.Namespace) -> int:
    from stud_service.sessions import check_device_id, parse_network
    from stud_service.sessions.reading import list_sessions

    refuse = _refuser("sessions")
    try:
        since, until = _time_bounds(args)
        network = parse_network(args.address) if args.address else None
        device = check_device_id(args.device) if args.device else None
    except ValueError as error:
        return refuse(str(error))

    async def page(store: Any, position: str) -> tuple[list[Any], str]:
        found = await list_sessions(store, player_id=args.player, device=device, network=network,
                                    since_ms=_ms(since), until_ms=_ms(until), page_size=1000,
                                    position=position)
        return list(found.sessions), found.next_position

    try:
        sessions = _listing(args, "sessions", "playerSessions", page)
    except DatabaseUnavailable as error:
        return refuse(str(error))
    for session in sessions:
        document = session_json(session)
        if args.json:
            print(json.dumps(document))
        else:
            until = f"{document['end'][:23]} ({document['ended']}, {document['calls']} calls)" \
                if session.end else "open"
            print(f"{document['start'][:23]} .. {until}  {document['player']}  {document['transport']}"
                  f"  {document['address'] or '-'}  device {document['device'] or '-'}"
                  f"  {' '.join(document['tables']) or '-'}")
    return 0


def run_purge_sessions(args: argparse.Namespace) -> int:
    import time

    from stud_service.access.local import os_user
    from stud_service.sessions.retention import purge_sessions

    refuse = _refuser("purge-sessions")
    try:
        before = datetime.strptime(args.before, "%Y-%m-%d").date()
    except ValueError:
        return refuse(f"--before must be a day, YYYY-MM-DD, not {args.before!r}")
    if before > datetime.now(UTC).date():
        return refuse("--before must not be after today (UTC)")

    async def main():  # type: ignore[no-untyped-def]
        async with recorded_store(args, "audit purge-sessions", f"playerSessions/before/{before}") as store:
            return await purge_sessions(store, before, by=os_user(), at_ms=int(time.time() * 1000),
                                        dry_run=args.dry_run)

    try:
        report = asyncio.run(main())
    except DatabaseUnavailable as error:
        return refuse(str(error))
    verb = "would purge" if args.dry_run else "purged"
    for stream in report.purged:
        print(f"{verb} {stream.stream_id}: {stream.sessions} sessions, head version {stream.version}")
    for stream in report.kept_open:
        print(f"kept {stream}: not marked closed (sessions may be open; its replica alive or not recovered)")
    record = f"; recorded as {report.record[0]} version {report.record[1]}" if report.record else ""
    print(f"{verb} {len(report.purged)} streams, {report.sessions} sessions, of the days before"
          f" {report.before}{record}")
    return 0

