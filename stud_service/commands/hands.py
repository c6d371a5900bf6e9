"""``stud-service hands``: list, show, replay, verify and export hands from the event log.

    stud-service hands list [--table T] [--player P] [--since ISO] [--until ISO] [--page-size N]
    stud-service hands show TABLE HAND [--as PLAYER]
    stud-service hands replay TABLE HAND [--as PLAYER | --public]
    stud-service hands verify [TABLE [HAND]] [--json]              (a progress bar when verifying many)
    stud-service hands verify-shuffle TABLE HAND [--as PLAYER] | --phh FILE
                                   (what that viewer may check: the cards they saw, by their proofs)
    stud-service hands export TABLE HAND --format phh|pokerstars [--as PLAYER] [-o FILE]

Exit codes: 0 ok, 1 a verification failed, 2 a refusal (no such hand, hand still running, ...).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
from collections.abc import Awaitable, Callable
from datetime import datetime
from pathlib import Path
from typing import Any, TextIO

from stud_service.commands.recorded import recorded_store
from stud_service.currency import money_text
from stud_service.db import DatabaseUnavailable, add_database_arguments, settings_from_args
from stud_service.sealing.startup import add_keys_argument


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "hands", help="list, show, replay, verify and export hands", description=__doc__.splitlines()[0]
    )
    commands = parser.add_subparsers(dest="hands_command", metavar="ACTION", required=True)

    listing = commands.add_parser("list", help="list hands, oldest first")
    listing.add_argument("--table", help="only this table's hands")
    listing.add_argument("--player", help="only hands this player was dealt into")
    listing.add_argument("--since", type=datetime.fromisoformat, help="started at or after (ISO 8601)")
    listing.add_argument("--until", type=datetime.fromisoformat, help="started before (ISO 8601)")
    listing.add_argument("--page-size", type=int, default=50, help="per page (default 50; at most 1000)")
    listing.add_argument("--page-token", default="", help="the next page, as the previous one printed it")
    listing.add_argument("--json", action="store_true", help="one JSON object per hand")
    add_database_arguments(listing)
    add_keys_argument(listing)
    listing.set_defaults(func=_runner(_list))

    show = commands.add_parser("show", help="a readable account of a hand (cards with suit symbols)")
    _hand_arguments(show)
    show.add_argument("--as", dest="viewer", help="only what this player saw")
    show.set_defaults(func=_runner(_show))

    replay = commands.add_parser("replay", help="the hand event by event with the table after each (JSON)")
    _hand_arguments(replay)
    who = replay.add_mutually_exclusive_group()
    who.add_argument("--as", dest="viewer", help="as this player saw it")
    who.add_argument("--public", action="store_true", help="as an observer saw it")
    replay.set_defaults(func=_runner(_replay))

    verify = commands.add_parser("verify", help="verify hands: chain, shuffle, replay, chips")
    verify.add_argument("table", nargs="?", help="one table (default: every table)")
    verify.add_argument("hand", nargs="?", type=int, help="one hand of that table")
    verify.add_argument("--json", action="store_true", help="the reports as JSON lines")
    add_database_arguments(verify)
    add_keys_argument(verify)
    verify.set_defaults(func=_runner(_verify))

    shuffle = commands.add_parser("verify-shuffle", help="check a hand's deck against its commitment")
    shuffle.add_argument("table", nargs="?", help="table id (the {table} of tables/{table}); not with --phh")
    shuffle.add_argument("hand", nargs="?", type=int, help="hand number there, from 1; not with --phh")
    shuffle.add_argument("--phh", type=Path, help="check an exported PHH file instead (no database)")
    shuffle.add_argument("--as", dest="viewer", help="as this player may check it (default: an observer)")
    add_database_arguments(shuffle)
    add_keys_argument(shuffle)
    shuffle.set_defaults(func=_verify_shuffle)

    export = commands.add_parser("export", help="a hand history in PHH or PokerStars text")
    _hand_arguments(export)
    export.add_argument("--format", choices=("phh", "pokerstars"), default="phh",
                        help="PHH (the poker hand history standard) or PokerStars' text (default phh)")
    export.add_argument("--as", dest="viewer", help="only what this player saw")
    export.add_argument("-o", "--output", type=Path, help="write to this file (default: standard output)")
    export.set_defaults(func=_runner(_export))


def _hand_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("table", help="table id (the {table} of tables/{table})")
    parser.add_argument("hand", type=int, help="hand number, from 1")
    add_database_arguments(parser)
    add_keys_argument(parser)


def _runner(action: Callable[[Any, argparse.Namespace, TextIO], Awaitable[int]]) -> Callable[..., int]:
    def run(args: argparse.Namespace) -> int:
        from stud_service.audit.errors import AuditError
        from stud_service.sealing import SealingError, resolve_keyring
        from stud_service.store import StoreError

        async def main() -> int:
            keyring = resolve_keyring(args.keys_file, settings_from_args(args))
            command = f"hands {args.hands_command}"
            async with recorded_store(args, command, _resource(args), max_size=4, keyring=keyring) as store:
                return await action(store, args, sys.stdout)

        try:
            return asyncio.run(main())
        except (AuditError, DatabaseUnavailable, StoreError, SealingError) as error:
            print(f"stud-service hands {args.hands_command}: {error}", file=sys.stderr)
            return 2

    return run


def _resource(args: argparse.Namespace) -> str:
    """What a hands command is about, as its access record names it."""
    table, hand = getattr(args, "table", None), getattr(args, "hand", None)
    if table and hand is not None:
        return f"tables/{table}/hands/{hand}"
    return f"tables/{table}" if table else "tables/-"


async def _list(store: Any, args: argparse.Namespace, out: TextIO) -> int:
    from stud_service.audit.catalog import list_hands

    page = await list_hands(
        store,
        table_id=args.table,
        player_id=args.player,
        since=args.since,
        until=args.until,
        page_size=args.page_size,
        page_token=args.page_token,
    )
    for summary in page.hands:
        if args.json:
            print(
                json.dumps(
                    {
                        "name": summary.name,
                        "started_at": summary.started_at.isoformat(),
                        "variant": summary.variant,
                        "players": [p for _s, p, _stack in summary.players],
                        "complete": summary.complete,
                        "pot": summary.pot,
                        "currency": summary.currency,
                    }
                ),
                file=out,
            )
        else:
            state = "" if summary.complete else "  (running)"
            players = ", ".join(player for _seat, player, _stack in summary.players)
            print(
                f"{summary.name}  {summary.started_at:%Y-%m-%d %H:%M:%S}  {summary.variant:<10}"
                f"  pot {money_text(summary.pot, summary.currency):>12}  {players}{state}",
                file=out,
            )
    if page.next_page_token:
        print(f"next page: --page-token {page.next_page_token}", file=sys.stderr)
    return 0


async def _show(store: Any, args: argparse.Namespace, out: TextIO) -> int:
    from stud_service.audit.narrate import narrate
    from stud_service.audit.records import load_hand

    out.write(narrate(await load_hand(store, args.table, args.hand), args.viewer))
    return 0


async def _replay(store: Any, args: argparse.Namespace, out: TextIO) -> int:
    from stud_service.audit.history import FULL, PUBLIC, replay_steps
    from stud_service.audit.records import load_hand

    mode = args.viewer or (PUBLIC if args.public else FULL)
    for step in replay_steps(await load_hand(store, args.table, args.hand), mode):
        print(
            json.dumps(
                {"version": step.version, "event": step.event, "state": step.state}, ensure_ascii=False
            ),
            file=out,
        )
    return 0


class ProgressBar:
    """A one-line progress bar on standard error, redrawn in place."""

    def __init__(self, total: int, stream: TextIO | None = None, width: int = 30) -> None:
        self.total = max(total, 1)
        self.stream = stream or sys.stderr
        self.width = width
        self.done = 0
        self.failed = 0

    def advance(self, ok: bool) -> None:
        self.done += 1
        self.failed += 0 if ok else 1
        filled = self.width * self.done // self.total
        self.stream.write(
            f"\r[{'#' * filled}{'.' * (self.width - filled)}] {self.done}/{self.total} hands,"
            f" {self.failed} failed"
        )
        self.stream.flush()

    def close(self) -> None:
        self.stream.write("\n")


async def _verify(store: Any, args: argparse.Namespace, out: TextIO) -> int:
    from stud_service.audit.catalog import list_hands
    from stud_service.audit.errors import HandStillRunning
    from stud_service.audit.verify import verify_hand

    if args.hand is not None:
        targets = [(args.table, args.hand)]
    else:
        targets, token = [], ""
        while True:
            page = await list_hands(store, table_id=args.table, page_size=1000, page_token=token)
            targets.extend((s.table_id, s.hand) for s in page.hands if s.complete)
            token = page.next_page_token
            if not token:
                break
    bar = ProgressBar(len(targets)) if len(targets) > 1 and not args.json else None
    failures = []
    for table_id, hand in targets:
        try:
            report = await verify_hand(store, table_id, hand)
        except HandStillRunning:
            if len(targets) == 1:
                raise
            continue
        if args.json:
            print(json.dumps(report.to_json()), file=out)
        elif bar is None:
            print(report.summary(), file=out)
            for check in report.checks:
                print(f"  {check.name:<8} {'ok' if check.ok else 'FAIL: ' + str(check.problem)}", file=out)
        if bar is not None:
            bar.advance(report.ok)
        if not report.ok:
            failures.append(report)
    if bar is not None:
        bar.close()
        for report in failures:
            print(report.summary(), file=out)
        print(f"{len(targets) - len(failures)} of {len(targets)} hands verified", file=out)
    return 1 if failures else 0


def _verify_shuffle(args: argparse.Namespace) -> int:
    from stud_service.audit.fairness import check_shuffle

    if args.phh is not None:
        import tomllib

        from stud_service.audit.phh import shuffle_evidence_from_phh

        try:
            evidence = shuffle_evidence_from_phh(args.phh.read_text())
        except (OSError, ValueError, KeyError, tomllib.TOMLDecodeError) as error:
            print(f"stud-service hands verify-shuffle: {args.phh}: {error}", file=sys.stderr)
            return 2
        return _shuffle_verdict(check_shuffle(evidence), evidence, str(args.phh))
    if args.table is None or args.hand is None:
        print("stud-service hands verify-shuffle: give TABLE HAND, or --phh FILE", file=sys.stderr)
        return 2

    async def from_log(store: Any, args: argparse.Namespace, out: TextIO) -> int:
        from stud_service.audit.history import PUBLIC, shuffle_evidence
        from stud_service.audit.records import load_hand

        # What an observer (or the player named) may check: their cards' proofs, never the seed.
        record = (await load_hand(store, args.table, args.hand)).require_complete()
        evidence = shuffle_evidence(record, args.viewer or PUBLIC)
        return _shuffle_verdict(check_shuffle(evidence), evidence, f"tables/{args.table}/hands/{args.hand}")

    return _runner(from_log)(args)


def _shuffle_verdict(problem: Any, evidence: Any, name: str) -> int:
    from stud_service.audit.fairness import what_was_proven

    if problem is None:
        print(f"{name}: shuffle OK — {what_was_proven(evidence)}")
        return 0
    print(f"{name}: shuffle FAILED — {problem.message}")
    return 1


async def _export(store: Any, args: argparse.Namespace, out: TextIO) -> int:
    from stud_service.audit.phh import to_phh
    from stud_service.audit.pokerstars import to_pokerstars
    from stud_service.audit.records import load_hand
    from stud_service.audit.tournament_log import tournament_info_for

    record = await load_hand(store, args.table, args.hand)
    tournament = await tournament_info_for(store, record)  # a tournament table's hand: its header
    text = (to_phh if args.format == "phh" else to_pokerstars)(record, args.viewer, tournament)
    if args.output is not None:
        args.output.write_text(text)
    else:
        out.write(text)
    return 0
