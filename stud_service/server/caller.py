"""Who is calling: the principal of a call's ``authorization: Bearer <JWT>`` metadata."""

from __future__ import annotations

import grpc

from stud_service.auth import Principal, TokenVerifier, bearer_token


def principal_of(context: grpc.aio.ServicerContext, tokens: TokenVerifier) -> Principal:
    """The caller's principal; AuthError (UNAUTHENTICATED) when the token is missing, forged or expired."""
    authorization = None
    for key, value in context.invocation_metadata() or ():
        if key == "authorization":
            authorization = value
            break
    return tokens.verify(bearer_token(authorization))


def optional_principal_of(context: grpc.aio.ServicerContext, tokens: TokenVerifier) -> Principal | None:
    """For public calls: None when no token is sent; a token that is sent is checked as above."""
    if not any(key == "authorization" for key, _ in context.invocation_metadata() or ()):
        return None
    return principal_of(context, tokens)
