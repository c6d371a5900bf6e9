"""``stud-service token``: mint a development bearer token, or make a development key pair and its JWKS.

With ``--key`` the token is signed as an identity provider would sign it (EdDSA, ES256 or RS256, with the
key's ``kid``), for a service started with ``--token-jwks`` on the matching ``jwks.json``; without it, HS256
with ``$STUD_TOKEN_SECRET``, for a service started with ``--token-hs256 on``.
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

from stud_service.auth import DEFAULT_MAX_LIFETIMES, SECRET_ENV, Role, mint_token, secret_from_env

KEY_FILE_ENV = "STUD_TOKEN_KEY_FILE"
# Every way to sign, for a person who gave none (the service they run takes one of the two).
NO_KEY = (
    f"no key to sign with: --key PEM (or ${KEY_FILE_ENV}; `stud-service token --new-key DIR` makes one) for a"
    f" service started with --token-jwks DIR/jwks.json, or --secret (or ${SECRET_ENV}) for one started"
    " with --token-hs256 on (the demo keeps its key to itself: it prints its own tokens)"
)


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "token", help="mint a bearer token (JWT) for development",
        description="Print a signed token for a player, or write a development key pair (--new-key). The key "
        f"is --key (or ${KEY_FILE_ENV}); without one, HS256 with --secret or ${SECRET_ENV}.",
    )
    parser.add_argument("--player", help="player id (the token's subject)")
    parser.add_argument("--role", choices=[role.value for role in Role], default=Role.PLAYER.value,
                        help="the token's role claim (default player)")
    parser.add_argument(
        "--ttl", type=int, default=None,
        help="lifetime in seconds (default: the longest a service accepts by default for the role,"
        f" --max-token-lifetime: {DEFAULT_MAX_LIFETIMES.player} for a player,"
        f" {DEFAULT_MAX_LIFETIMES.operator} for an operator or auditor)",
    )
    parser.add_argument("--key", default=os.environ.get(KEY_FILE_ENV),
                        help=f"PEM private key to sign with (default: ${KEY_FILE_ENV})")
    parser.add_argument("--issuer", default=os.environ.get("STUD_TOKEN_ISSUER"),
                        help="iss claim (default: $STUD_TOKEN_ISSUER)")
    parser.add_argument("--audience", default=os.environ.get("STUD_TOKEN_AUDIENCE"),
                        help="aud claim (default: $STUD_TOKEN_AUDIENCE)")
    parser.add_argument("--secret", help=f"HS256 signing secret (default: ${SECRET_ENV})")
    parser.add_argument("--new-key", metavar="DIR", type=Path,
                        help="write DIR/token-key.pem and DIR/jwks.json (a new development key) and exit")
    parser.add_argument("--algorithm", choices=("EdDSA", "ES256", "RS256"), default="EdDSA",
                        help="the new key's algorithm (default EdDSA)")
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from stud_service.dev_keys import SigningKey

    try:
        if args.new_key is not None:
            key_path, jwks_path = SigningKey.generate(args.algorithm).save(args.new_key)
            print(f"wrote {key_path} (private: keep it here) and {jwks_path} (for --token-jwks)")
            return 0
        if not args.player:
            raise ValueError("--player is required")
        role = Role(args.role)
        if args.ttl is not None and args.ttl < 1:
            raise ValueError("--ttl must be at least 1 second")
        if args.ttl is not None and args.ttl > DEFAULT_MAX_LIFETIMES.of(role):
            print(f"stud-service token: warning: a service with the default --max-token-lifetime refuses a"
                  f" {role.value} token valid over {DEFAULT_MAX_LIFETIMES.of(role)} s", file=sys.stderr)
        if args.key:
            signing = SigningKey.load(Path(args.key))
            print(signing.mint(args.player, role, args.ttl, issuer=args.issuer, audience=args.audience))
        else:
            if not (args.secret or os.environ.get(SECRET_ENV)):
                raise ValueError(NO_KEY)
            secret = secret_from_env(args.secret)
            print(mint_token(secret, args.player, role, args.ttl, issuer=args.issuer, audience=args.audience))
    except (ValueError, OSError) as error:
        print(f"stud-service token: {error}", file=sys.stderr)
        return 2
    return 0
