"""``stud-service audit``: signed external checkpoints of the event log.

    stud-service audit checkpoint [-o FILE] [--key-file FILE]      every table's head version and hash, signed
    stud-service audit verify --checkpoint FILE [--key-file FILE]  does the log still extend that checkpoint?

The key is ``$STUD_CHECKPOINT_KEY`` (at least 32 bytes) unless ``--key-file`` names a file holding it.
Store checkpoints outside the database: a log rewritten and re-hashed after one fails ``verify`` with the
table and version.  Exit codes: 0 ok, 1 verification failed, 2 refused (no key, unreadable file, ...).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
from pathlib import Path

from stud_service.db import DatabaseUnavailable, add_database_arguments, open_database, settings_from_args


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "audit", help="signed checkpoints of the event log", description=__doc__.splitlines()[0]
    )
    commands = parser.add_subparsers(dest="audit_command", metavar="ACTION", required=True)
    checkpoint = commands.add_parser("checkpoint", help="print every table's signed head")
    checkpoint.add_argument("-o", "--output", type=Path, help="write to this file (default: standard output)")
    checkpoint.add_argument("--key-file", help="file holding the signing key")
    add_database_arguments(checkpoint)
    checkpoint.set_defaults(func=run_checkpoint)
    verify = commands.add_parser("verify", help="check the log against a checkpoint")
    verify.add_argument("--checkpoint", type=Path, required=True, help="a file made by 'audit checkpoint'")
    verify.add_argument("--key-file", help="file holding the signing key")
    add_database_arguments(verify)
    verify.set_defaults(func=run_verify)


def _key(args: argparse.Namespace) -> bytes | None:
    from stud_service.audit.checkpoint import CheckpointKeyError, key_from

    try:
        return key_from(key_file=args.key_file)
    except (CheckpointKeyError, OSError) as error:
        print(f"stud-service audit {args.audit_command}: {error}", file=sys.stderr)
        return None


def run_checkpoint(args: argparse.Namespace) -> int:
    from stud_service.audit.checkpoint import make_checkpoint
    from stud_service.store import EventStore

    key = _key(args)
    if key is None:
        return 2

    async def main() -> dict:
        async with open_database(settings_from_args(args), max_size=2) as database:
            return await make_checkpoint(EventStore(database.pool), key)

    try:
        checkpoint = asyncio.run(main())
    except DatabaseUnavailable as error:
        print(f"stud-service audit checkpoint: {error}", file=sys.stderr)
        return 2
    text = json.dumps(checkpoint, indent=2) + "\n"
    if args.output is not None:
        args.output.write_text(text)
        print(f"checkpoint of {len(checkpoint['tables'])} tables written to {args.output}", file=sys.stderr)
    else:
        sys.stdout.write(text)
    return 0


def run_verify(args: argparse.Namespace) -> int:
    from stud_service.audit.checkpoint import verify_checkpoint
    from stud_service.store import EventStore

    key = _key(args)
    if key is None:
        return 2
    try:
        checkpoint = json.loads(args.checkpoint.read_text())
    except (OSError, ValueError) as error:
        print(f"stud-service audit verify: cannot read {args.checkpoint}: {error}", file=sys.stderr)
        return 2

    async def main():  # type: ignore[no-untyped-def]
        async with open_database(settings_from_args(args), max_size=2) as database:
            return await verify_checkpoint(EventStore(database.pool), checkpoint, key)

    try:
        report = asyncio.run(main())
    except DatabaseUnavailable as error:
        print(f"stud-service audit verify: {error}", file=sys.stderr)
        return 2
    for finding in report.findings:
        stream = finding.table_id if "/" in finding.table_id else f"tables/{finding.table_id}"
        where = f"{stream} version {finding.version}" if finding.table_id else "checkpoint"
        print(f"FAIL {where}: {finding.message}")
    if report.ok:
        created = checkpoint.get("created_at")
        print(f"OK: {report.tables_checked} streams still extend the checkpoint of {created}")
        return 0
    return 1
