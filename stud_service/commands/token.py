"""``stud-service token``: mint a development bearer token from the configured secret."""

from __future__ import annotations

import argparse
import sys

from stud_service.auth import DEFAULT_TTL_SECONDS, SECRET_ENV, Role, mint_token, secret_from_env


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "token", help="mint a bearer token (JWT) for development",
        description=f"Print a signed token for a player. The secret is --secret or ${SECRET_ENV}.",
    )
    parser.add_argument("--player", required=True, help="player id (the token's subject)")
    parser.add_argument("--role", choices=[role.value for role in Role], default=Role.PLAYER.value)
    parser.add_argument("--secret", help=f"signing secret (default: ${SECRET_ENV})")
    parser.add_argument("--ttl", type=int, default=DEFAULT_TTL_SECONDS, help="lifetime in seconds")
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    try:
        secret = secret_from_env(args.secret)
        print(mint_token(secret, args.player, Role(args.role), ttl_seconds=args.ttl))
    except ValueError as error:
        print(f"stud-service token: {error}", file=sys.stderr)
        return 2
    return 0
