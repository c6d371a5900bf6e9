"""Bearer tokens: signed JWTs (HS256) naming a player and a role.

Claims: ``sub`` the player id, ``role`` one of ``player``, ``operator``, ``auditor``, ``iat`` and ``exp``.
The signing secret comes from configuration (``STUD_TOKEN_SECRET``). Tokens are never logged.

>>> token = mint_token("a-development-secret-32-bytes-long", "alice", Role.OPERATOR, ttl_seconds=60)
>>> verify_token("a-development-secret-32-bytes-long", token)
Principal(player_id='alice', role=<Role.OPERATOR: 'operator'>)
"""

from __future__ import annotations

import enum
import os
import time
from dataclasses import dataclass

import jwt

ALGORITHM = "HS256"
SECRET_ENV = "STUD_TOKEN_SECRET"
DEFAULT_TTL_SECONDS = 24 * 3600
MIN_SECRET_BYTES = 32  # RFC 7518 section 3.2: an HS256 key as long as the hash
_MAX_PLAYER_ID = 64


class Role(enum.StrEnum):
    PLAYER = "player"
    OPERATOR = "operator"
    AUDITOR = "auditor"


@dataclass(frozen=True)
class Principal:
    """Who a verified token speaks for."""

    player_id: str
    role: Role


class AuthError(Exception):
    """A token is missing, malformed, forged or expired; ``reason`` names which for ErrorInfo."""

    def __init__(self, reason: str, message: str) -> None:
        self.reason = reason
        super().__init__(message)


def secret_from_env(explicit: str | None = None) -> str:
    """The signing secret: ``explicit`` if given, else ``$STUD_TOKEN_SECRET``."""
    secret = explicit or os.environ.get(SECRET_ENV, "")
    if len(secret.encode()) < MIN_SECRET_BYTES:
        raise ValueError(f"the token secret must be at least {MIN_SECRET_BYTES} bytes (set {SECRET_ENV})")
    return secret


def valid_player_id(player_id: str) -> bool:
    return 0 < len(player_id) <= _MAX_PLAYER_ID and player_id.isprintable() and not player_id.isspace()


def mint_token(secret: str, player_id: str, role: Role = Role.PLAYER,
               ttl_seconds: int = DEFAULT_TTL_SECONDS, now: float | None = None) -> str:
    if not valid_player_id(player_id):
        raise ValueError(f"bad player id {player_id!r}")
    issued = int(time.time() if now is None else now)
    claims = {"sub": player_id, "role": Role(role).value, "iat": issued, "exp": issued + ttl_seconds}
    return jwt.encode(claims, secret, algorithm=ALGORITHM)


def verify_token(secret: str, token: str) -> Principal:
    """The token's principal; AuthError(TOKEN_EXPIRED | TOKEN_INVALID) otherwise."""
    return _verify(secret, token)[0]


class TokenVerifier:
    """``verify_token`` with a bounded memory of tokens already verified, until each one expires.

    A client sends the same token with every call; checking its signature once is enough.
    """

    def __init__(self, secret: str, max_entries: int = 10_000) -> None:
        self._secret = secret
        self._max_entries = max_entries
        self._known: dict[str, tuple[Principal, int]] = {}

    def verify(self, token: str) -> Principal:
        known = self._known.get(token)
        if known is not None and time.time() < known[1]:
            return known[0]
        principal, expires = _verify(self._secret, token)
        if len(self._known) >= self._max_entries:
            self._known.clear()
        self._known[token] = (principal, expires)
        return principal


def _verify(secret: str, token: str) -> tuple[Principal, int]:
    try:
        claims = jwt.decode(
            token, secret, algorithms=[ALGORITHM], options={"require": ["sub", "exp", "role"]}
        )
    except jwt.ExpiredSignatureError as error:
        raise AuthError("TOKEN_EXPIRED", "the token has expired") from error
    except jwt.InvalidTokenError as error:
        raise AuthError("TOKEN_INVALID", "the token is not valid") from error
    player_id, role = claims.get("sub"), claims.get("role")
    if not isinstance(player_id, str) or not valid_player_id(player_id):
        raise AuthError("TOKEN_INVALID", "the token names no valid player")
    try:
        return Principal(player_id=player_id, role=Role(role)), int(claims["exp"])
    except ValueError as error:
        raise AuthError("TOKEN_INVALID", "the token's role is unknown") from error


def bearer_token(authorization: str | None) -> str:
    """The token in an ``authorization: Bearer <token>`` header value; AuthError(TOKEN_MISSING) otherwise."""
    if not authorization:
        raise AuthError("TOKEN_MISSING", "no bearer token in the authorization metadata")
    scheme, _, token = authorization.strip().partition(" ")
    if scheme.lower() != "bearer" or not token.strip():
        raise AuthError("TOKEN_MISSING", "the authorization metadata is not 'Bearer <token>'")
    return token.strip()
