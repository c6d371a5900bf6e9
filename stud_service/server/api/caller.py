"""Who is calling: the principal of a call's ``authorization: Bearer <JWT>`` metadata."""

from __future__ import annotations

import secrets
from contextvars import ContextVar
from dataclasses import dataclass

import grpc

from stud_service.auth import Principal, Role, TokenSettings, TokenVerifier, bearer_token
from stud_service.server.api.call import Call
from stud_service.server.api.errors import RequestError


@dataclass(frozen=True)
class CallerKeys:
    """What the services check callers and their page tokens with: one verifier, one page-token key."""

    tokens: TokenVerifier
    page_token_key: str

    @classmethod
    def of(cls, keys: CallerKeys | TokenSettings | str, page_token_key: str | None = None) -> CallerKeys:
        """``keys`` as CallerKeys: a development HS256 secret also keys the page tokens (as it always did);
        without a page-token key and a secret, a random one holds for this process only."""
        if isinstance(keys, CallerKeys):
            return keys
        settings = keys if isinstance(keys, TokenSettings) else TokenSettings(hs256_secret=keys)
        key = page_token_key or settings.hs256_secret or secrets.token_hex(32)
        return cls(TokenVerifier(settings), key)


# The principal verified for the call being served. A servicer's decorators (the access log's) and the
# method they wrap each ask for it; the token is verified once per call. gRPC serves each call in a task
# of its own, so each call sees only what it set itself.
_verified: ContextVar[tuple[object, TokenVerifier, Principal] | None] = ContextVar(
    "stud_verified_principal", default=None
)


def principal_of(call: Call, tokens: TokenVerifier) -> Principal:
    """The caller's principal; AuthError (UNAUTHENTICATED) when the token is missing, forged or expired."""
    verified = _verified.get()
    if verified is not None and verified[0] is call and verified[1] is tokens:
        return verified[2]
    authorization = None
    for key, value in call.invocation_metadata() or ():
        if key == "authorization":
            authorization = value
            break
    principal = tokens.verify(bearer_token(authorization))
    _verified.set((call, tokens, principal))
    return principal


def optional_principal_of(call: Call, tokens: TokenVerifier) -> Principal | None:
    """For public calls: None when no token is sent; a token that is sent is checked as above."""
    if not any(key == "authorization" for key, _ in call.invocation_metadata() or ()):
        return None
    return principal_of(call, tokens)


def playing(principal: Principal) -> str:
    """The caller's player id, for a call that takes part in a game; an auditor's token only reads."""
    if principal.role is Role.AUDITOR:
        raise RequestError(grpc.StatusCode.PERMISSION_DENIED, "AUDITOR_READ_ONLY",
                           "an auditor token cannot take part in a game")
    return principal.player_id
