"""The ``stud-service`` command line.

Each subcommand lives in its own module under ``stud_service.commands`` and
exposes ``register(subparsers)``, which adds its parser and sets ``func`` (a
callable taking the parsed namespace and returning an exit code).
"""

from __future__ import annotations

import argparse
import importlib
import os
import sys
from collections.abc import Sequence

# gRPC's fork handlers are for a child that goes on using gRPC without exec; this process's children (the
# embedded PostgreSQL, pg_ctl) exec at once, and the handlers, run in a child forked while gRPC threads
# work, have crashed it before its exec.
os.environ.setdefault("GRPC_ENABLE_FORK_SUPPORT", "false")

# Modules under stud_service.commands, in the order their commands are listed in --help.
COMMAND_MODULES: tuple[str, ...] = (
    "demo", "serve", "eval", "token", "migrate", "hands", "audit", "keys", "rng",
)


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="stud-service",
        description="Seven Card Stud, Stud Hi-Lo and Razz game service.",
    )
    subparsers = parser.add_subparsers(dest="command", metavar="COMMAND", required=True)
    for name in COMMAND_MODULES:
        importlib.import_module(f"stud_service.commands.{name}").register(subparsers)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    return int(args.func(args) or 0)


if __name__ == "__main__":
    sys.exit(main())
