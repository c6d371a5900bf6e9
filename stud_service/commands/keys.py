"""``stud-service keys``: the keys that seal cards and seeds at rest (docs/keys.md).

- ``keys generate [--kid ID] [--file PATH [--activate]]``: a new key; printed as a keyring, or added to a file
- ``keys status [--json]``: per key id, the hands it seals, whether the keyring has it, registered / retired
- ``keys rewrap --from OLD [--to NEW]``: wrap OLD's data keys again with NEW (default: the active key)
- ``keys retire OLD``: OLD is no longer needed (refused while a hand sealed with it has no re-wrap)
"""

from __future__ import annotations

import argparse
import asyncio
import json
import secrets
import sys
import time
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

from stud_service.db import DatabaseUnavailable, add_database_arguments, open_database, settings_from_args
from stud_service.sealing.startup import add_keys_argument


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "keys",
        help="generate, inspect, re-wrap and retire the keys sealing cards at rest",
        description=__doc__.splitlines()[0],
    )
    commands = parser.add_subparsers(dest="keys_command", metavar="ACTION", required=True)
    generate = commands.add_parser("generate", help="a new key (printed as a keyring, or added to --file)")
    generate.add_argument("--kid", help="its key id (default: k<date>-<random>)")
    generate.add_argument(
        "--file", type=Path, help="add the key to this keyring file (created 0600 if missing)"
    )
    generate.add_argument("--activate", action="store_true", help="make it the file's active key")
    generate.set_defaults(func=_generate)
    status = commands.add_parser(
        "status", help="per key id: hands sealed, in the keyring, registered, retired"
    )
    status.add_argument("--json", action="store_true", help="one JSON object per key")
    _database(status)
    status.set_defaults(func=_runner(_status, needs_keyring=False))
    rewrap = commands.add_parser("rewrap", help="wrap an old key's data keys again with another key")
    rewrap.add_argument("--from", dest="old", required=True, help="the key id to re-wrap")
    rewrap.add_argument("--to", dest="new", help="the key id to wrap with (default: the active key)")
    _database(rewrap)
    rewrap.set_defaults(func=_runner(_rewrap))
    retire = commands.add_parser("retire", help="record that a key is no longer needed")
    retire.add_argument("old", metavar="OLD", help="the key id to retire")
    _database(retire)
    retire.set_defaults(func=_runner(_retire, needs_keyring=False))


def _database(parser: argparse.ArgumentParser) -> None:
    add_database_arguments(parser)
    add_keys_argument(parser)


def _generate(args: argparse.Namespace) -> int:
    from stud_service.sealing import Keyring, KeyringError
    from stud_service.sealing.keyring import KID_PATTERN, new_key, read_keyring_file, write_keyring_file

    kid = args.kid or f"k{time.strftime('%Y%m%d', time.gmtime())}-{secrets.token_hex(2)}"
    if not KID_PATTERN.fullmatch(kid):
        print(
            f"stud-service keys generate: {kid!r} is not a key id ([A-Za-z0-9._-], 1 to 64)", file=sys.stderr
        )
        return 2
    if args.file is None:
        print(json.dumps(Keyring(kid, {kid: new_key()}).to_json(), indent=2))
        return 0
    try:
        keyring = read_keyring_file(args.file) if args.file.exists() else None
    except KeyringError as error:
        print(f"stud-service keys generate: {error}", file=sys.stderr)
        return 2
    if keyring is not None and kid in keyring.keys:
        print(f"stud-service keys generate: {args.file} has a key {kid!r} already", file=sys.stderr)
        return 2
    keys = {**(keyring.keys if keyring else {}), kid: new_key()}
    active = kid if args.activate or keyring is None else keyring.active
    write_keyring_file(args.file, Keyring(active, keys, str(args.file)))
    print(f"added key {kid!r} to {args.file} (active: {active!r})")
    return 0


def _runner(
    action: Callable[[Any, Any, argparse.Namespace], Awaitable[int]], *, needs_keyring: bool = True
) -> Callable[[argparse.Namespace], int]:
    def run(args: argparse.Namespace) -> int:
        from stud_service.sealing import SealingError, resolve_keyring
        from stud_service.sealing.keyring import load_keyring
        from stud_service.store import EventStore, StoreError

        async def main() -> int:
            settings = settings_from_args(args)
            keyring = (
                resolve_keyring(args.keys_file, settings) if needs_keyring else load_keyring(args.keys_file)
            )
            async with open_database(settings, max_size=2) as database:
                store = EventStore(database.pool)  # the keys' streams and the sealed rows, as stored
                try:
                    return await action(store, keyring, args)
                finally:
                    await store.close()

        try:
            return asyncio.run(main())
        except (SealingError, DatabaseUnavailable, StoreError) as error:
            print(f"stud-service keys {args.keys_command}: {error}", file=sys.stderr)
            return 2

    return run


async def _status(store: Any, keyring: Any, args: argparse.Namespace) -> int:
    from stud_service.sealing.rotation import key_status

    for status in await key_status(store, keyring):
        if args.json:
            print(json.dumps(status.as_json()))
            continue
        marks = [
            word
            for word, on in (
                ("active", status.active),
                ("in keyring", status.in_keyring),
                ("registered", status.registered),
                ("retired", status.retired),
            )
            if on
        ]
        missing = "" if status.in_keyring or keyring is None else ", NOT in keyring"
        print(
            f"{status.kid}: {status.hands} hand(s) sealed, {status.rewrapped} re-wrapped;"
            f" {', '.join(marks) or 'unregistered'}{missing}"
        )
    return 0


async def _rewrap(store: Any, keyring: Any, args: argparse.Namespace) -> int:
    from stud_service.sealing.rotation import rewrap

    count = await rewrap(store, keyring, args.old, args.new)
    print(f"re-wrapped {count} data key(s) of key {args.old!r} with {args.new or keyring.active!r}")
    return 0


async def _retire(store: Any, keyring: Any, args: argparse.Namespace) -> int:
    from stud_service.sealing.rotation import retire

    await retire(store, keyring, args.old)
    print(f"key {args.old!r} is retired: it may now be removed from the keyring")
    return 0
