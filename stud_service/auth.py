"""Bearer tokens: signed JWTs naming a player and a role.

Claims: ``sub`` the player id, ``role`` (or the claim ``TokenSettings.role_claim`` names) one of ``player``,
``operator``, ``auditor``, ``exp``, optionally ``iat`` / ``nbf``; with an identity provider also ``iss`` and
``aud``. A token may be valid at most its role's :class:`MaxLifetimes` (``exp`` − ``iat``; without ``iat``,
``exp`` − now): a stolen token that never expires is a key for good. In production the tokens come from the
operator's identity provider, signed RS256, ES256 or EdDSA and checked against its JWKS
(``stud_service.jwks``); HS256 with one shared secret (``STUD_TOKEN_SECRET``) is for development only and is
never accepted beside a JWKS (an HS256 token "signed" with a public key is the classic algorithm-confusion
forgery). Tokens are never logged, and no refusal repeats one.

>>> token = mint_token("a-development-secret-32-bytes-long", "alice", Role.OPERATOR, ttl_seconds=60)
>>> verify_token("a-development-secret-32-bytes-long", token)
Principal(player_id='alice', role=<Role.OPERATOR: 'operator'>)
"""

from __future__ import annotations

import enum
import os
import re
import time
from dataclasses import dataclass, field, fields
from typing import Any

import jwt

from stud_service.jwks import ALGORITHMS, JwksKeys

ALGORITHM = "HS256"
SECRET_ENV = "STUD_TOKEN_SECRET"
DEFAULT_LEEWAY_SECONDS = 30  # clocks of the identity provider and of our hosts may differ this much
DEFAULT_ROLE_CLAIM = "role"
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


_UNITS = {"s": 1, "m": 60, "h": 3600, "d": 86400}
_SPAN = re.compile(r"(\d+(?:\.\d+)?)([smhd]?)")


def _seconds(text: str) -> int:
    """``90``, ``90s``, ``15m``, ``1.5h``, ``2d`` -> whole seconds (at least 1); ValueError otherwise."""
    matched = _SPAN.fullmatch(text.strip().lower())
    if matched is None:
        raise ValueError(f"{text!r} is not a duration (a number of seconds, or with s, m, h or d)")
    seconds = round(float(matched.group(1)) * _UNITS[matched.group(2) or "s"])
    if seconds < 1:
        raise ValueError(f"{text!r}: a token lifetime is at least a second")
    return seconds


def _span(seconds: int) -> str:
    """``seconds`` in the largest unit it is a whole number of: "36500 days", "90 minutes", "86401 s"."""
    for unit, name in ((86400, "day"), (3600, "hour"), (60, "minute")):
        if seconds >= unit and seconds % unit == 0:
            count = seconds // unit
            return f"{count} {name}{'s' if count != 1 else ''}"
    return f"{seconds} s"


@dataclass(frozen=True)
class MaxLifetimes:
    """The longest a token of each role may be valid, in seconds: ``exp`` − ``iat``, or ``exp`` − now for a
    token without ``iat``. Operators move money and auditors read every card of every finished hand, so
    their tokens are short; a player's lasts a session."""

    player: int = 24 * 3600
    operator: int = 3600
    auditor: int = 3600

    def __post_init__(self) -> None:
        for role in fields(self):
            if getattr(self, role.name) < 1:
                raise ValueError(f"the {role.name} token lifetime must be at least a second")

    def of(self, role: Role) -> int:
        return int(getattr(self, role.value))

    @classmethod
    def parse(cls, text: str) -> MaxLifetimes:
        """``--max-token-lifetime``: one duration for every role (``2h``), or roles named
        (``player=12h,operator=30m``; a role not named keeps its default)."""
        text = text.strip()
        if "=" not in text:
            seconds = _seconds(text)
            return cls(**{role.value: seconds for role in Role})
        values: dict[str, int] = {}
        for part in text.split(","):
            name, _, value = part.partition("=")
            name = name.strip().lower()
            if name not in {role.value for role in Role} or name in values:
                raise ValueError(f"{part.strip()!r}: name each of player, operator, auditor at most once")
            values[name] = _seconds(value)
        return cls(**values)


DEFAULT_MAX_LIFETIMES = MaxLifetimes()
DEFAULT_MAX_LIFETIMES_TEXT = "player=24h,operator=1h,auditor=1h"  # --max-token-lifetime's default, as written


def mint_token(secret: str, player_id: str, role: Role = Role.PLAYER,
               ttl_seconds: int | None = None, now: float | None = None,
               issuer: str | None = None, audience: str | None = None) -> str:
    """A development HS256 token signed with ``secret``, valid ``ttl_seconds`` (default: the longest the
    service accepts by default for the role)."""
    claims = token_claims(player_id, role, ttl_seconds, now, issuer, audience)
    return jwt.encode(claims, secret, algorithm=ALGORITHM)


def token_claims(player_id: str, role: Role = Role.PLAYER, ttl_seconds: int | None = None,
                 now: float | None = None, issuer: str | None = None,
                 audience: str | None = None) -> dict[str, Any]:
    """The claims of a token for ``player_id``: what an identity provider must put in one, too."""
    if not valid_player_id(player_id):
        raise ValueError(f"bad player id {player_id!r}")
    issued = int(time.time() if now is None else now)
    ttl = DEFAULT_MAX_LIFETIMES.of(Role(role)) if ttl_seconds is None else ttl_seconds
    claims: dict[str, Any] = {
        "sub": player_id, "role": Role(role).value, "iat": issued, "nbf": issued, "exp": issued + ttl,
    }
    if issuer:
        claims["iss"] = issuer
    if audience:
        claims["aud"] = audience
    return claims


@dataclass(frozen=True)
class TokenSettings:
    """Which tokens the service accepts: from a JWKS (production) or HS256 with a secret (development)."""

    jwks: JwksKeys | None = None
    hs256_secret: str | None = None
    issuer: str | None = None
    audience: str | None = None
    leeway_seconds: float = DEFAULT_LEEWAY_SECONDS
    role_claim: str = DEFAULT_ROLE_CLAIM
    max_lifetimes: MaxLifetimes = field(default_factory=MaxLifetimes)

    def __post_init__(self) -> None:
        if (self.jwks is None) == (self.hs256_secret is None):
            raise ValueError("tokens are checked either against a JWKS or, in development, an HS256 secret")
        if self.jwks is not None and not (self.issuer and self.audience):
            raise ValueError("with a JWKS, the token issuer and audience must be set")
        if self.hs256_secret is not None and len(self.hs256_secret.encode()) < MIN_SECRET_BYTES:
            raise ValueError(f"the token secret must be at least {MIN_SECRET_BYTES} bytes (set {SECRET_ENV})")
        if not 0 <= self.leeway_seconds <= 300:
            raise ValueError("the token leeway must be 0 to 300 seconds")


def verify_token(keys: str | TokenSettings, token: str) -> Principal:
    """The token's principal; AuthError(TOKEN_EXPIRED | TOKEN_INVALID) otherwise."""
    return TokenVerifier(keys).verify(token)


class TokenVerifier:
    """Checks tokens, with a bounded memory of tokens already verified, until each one expires.

    A client sends the same token with every call; checking its signature once is enough (until the key
    set changes: a verdict under a key the provider has since removed is not kept).
    """

    def __init__(self, keys: str | TokenSettings, max_entries: int = 10_000) -> None:
        self.settings = keys if isinstance(keys, TokenSettings) else TokenSettings(hs256_secret=keys)
        self._max_entries = max_entries
        self._known: dict[str, tuple[Principal, float, int]] = {}

    def verify(self, token: str) -> Principal:
        jwks = self.settings.jwks
        generation = jwks.current_generation() if jwks is not None else 0
        known = self._known.get(token)
        if known is not None and time.time() < known[1] and known[2] == generation:
            return known[0]
        principal, expires = self._verify(token)
        if len(self._known) >= self._max_entries:
            self._known.clear()
        generation = jwks.generation if jwks is not None else 0
        self._known[token] = (principal, expires + self.settings.leeway_seconds, generation)
        return principal

    def _verify(self, token: str) -> tuple[Principal, int]:
        settings = self.settings
        try:
            header = jwt.get_unverified_header(token)
        except jwt.InvalidTokenError as error:
            raise AuthError("TOKEN_INVALID", "the token is not a JWT") from error
        algorithm = header.get("alg")
        if settings.jwks is None:
            key: Any = settings.hs256_secret
            if algorithm != ALGORITHM:
                raise AuthError("TOKEN_INVALID", "the token is not valid: its algorithm is not accepted")
        else:
            if algorithm not in ALGORITHMS:  # never HS256 (nor "none") beside public keys
                raise AuthError("TOKEN_INVALID", "the token is not valid: its algorithm is not accepted")
            kid = header.get("kid")
            jwk = settings.jwks.key(kid) if isinstance(kid, str) else None
            if jwk is None:
                raise AuthError("TOKEN_INVALID", "the token is signed with a key this service does not know")
            if jwk.algorithm_name != algorithm:
                raise AuthError("TOKEN_INVALID", "the token's algorithm does not match its key")
            key = jwk.key
        claims = self._decode(token, key, algorithm)
        player_id, role_name = claims.get("sub"), claims.get(settings.role_claim)
        if not isinstance(player_id, str) or not valid_player_id(player_id):
            raise AuthError("TOKEN_INVALID", "the token names no valid player")
        try:
            role = Role(role_name)
        except ValueError as error:
            raise AuthError("TOKEN_INVALID", "the token's role is unknown") from error
        expires = int(claims["exp"])  # the decoder checked that exp (and iat, if any) are integers
        self._check_lifetime(role, expires, claims.get("iat"))
        return Principal(player_id=player_id, role=role), expires

    def _check_lifetime(self, role: Role, expires: int, issued: Any) -> None:
        """TOKEN_INVALID when the token is valid longer than its role may be: ``exp`` − ``iat`` (one clock,
        the issuer's), or without ``iat`` ``exp`` − now (two clocks: the leeway allowed)."""
        limit = self.settings.max_lifetimes.of(role)
        if issued is not None:
            lifetime, measured, allowed = expires - int(issued), "exp - iat", limit
        else:
            lifetime, measured = expires - int(time.time()), "exp - now: the token has no iat"
            allowed = limit + int(self.settings.leeway_seconds)
        if lifetime > allowed:
            article = "a" if role is Role.PLAYER else "an"
            raise AuthError(
                "TOKEN_INVALID",
                f"the token is valid for {_span(lifetime)} ({measured}), longer than the {_span(limit)}"
                f" {article} {role.value} token may be (--max-token-lifetime)",
            )

    def _decode(self, token: str, key: Any, algorithm: str) -> dict[str, Any]:
        settings = self.settings
        required = ["sub", "exp", settings.role_claim] + (["iss", "aud"] if settings.jwks else [])
        try:
            return jwt.decode(
                token, key, algorithms=[algorithm], issuer=settings.issuer, audience=settings.audience,
                leeway=settings.leeway_seconds, options={"require": required},
            )
        except jwt.ExpiredSignatureError as error:
            raise AuthError("TOKEN_EXPIRED", "the token has expired") from error
        except jwt.ImmatureSignatureError as error:
            raise AuthError("TOKEN_INVALID", "the token is not valid yet (nbf or iat ahead)") from error
        except jwt.InvalidIssuerError as error:
            raise AuthError("TOKEN_INVALID", "the token's issuer is not accepted") from error
        except jwt.InvalidAudienceError as error:
            raise AuthError("TOKEN_INVALID", "the token's audience is not this service") from error
        except jwt.MissingRequiredClaimError as error:
            raise AuthError("TOKEN_INVALID", f"the token lacks the claim {error.claim!r}") from error
        except jwt.InvalidTokenError as error:
            raise AuthError("TOKEN_INVALID", "the token is not valid") from error


def bearer_token(authorization: str | None) -> str:
    """The token in an ``authorization: Bearer <token>`` header value; AuthError(TOKEN_MISSING) otherwise."""
    if not authorization:
        raise AuthError("TOKEN_MISSING", "no bearer token in the authorization metadata")
    scheme, _, token = authorization.strip().partition(" ")
    if scheme.lower() != "bearer" or not token.strip():
        raise AuthError("TOKEN_MISSING", "the authorization metadata is not 'Bearer <token>'")
    return token.strip()
