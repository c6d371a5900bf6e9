"""Page tokens: opaque to clients, versioned, authenticated, and bound to the request they continue.

A token is ``v1.<position>.<tag>``: ``position`` the listing's own place (base64url text), ``tag`` an
HMAC-SHA256 over the listing's name, the position and the request's other parameters (AIP-158: a token
used with different filters is refused, a changed page size is fine). A token that was not issued, was
altered, or comes from another listing or other filters is INVALID_ARGUMENT / MALFORMED_REQUEST, so
nothing a client makes up ever reaches a query.

The key is derived from ``STUD_PAGE_TOKEN_KEY`` (a development HS256 secret when that is unset), which
every replica shares: no database read per page. Page tokens guard no secret, only integrity; changing
the key voids the open ones, and a client then starts again from the first page.
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import hmac
import json
from collections.abc import Sequence

from stud_service.server.api.errors import malformed

VERSION = "v1"
# Longer than any token we issue (a position is a stream id and a time, under 200 characters).
MAX_TOKEN_CHARS = 512
_KEY_LABEL = b"stud-service page tokens v1"

Binding = Sequence[str | int | None]


def _b64(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).decode().rstrip("=")


def _unb64(text: str) -> bytes:
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))


class PageTokens:
    """Issues and opens the page tokens of one listing (e.g. ``"ListTables"``)."""

    def __init__(self, secret: str, listing: str) -> None:
        self._key = hmac.new(secret.encode(), _KEY_LABEL, hashlib.sha256).digest()
        self._listing = listing

    def issue(self, position: str, binding: Binding) -> str:
        """A token for the page after ``position``, valid only with the same ``binding`` (the filters)."""
        body = _b64(position.encode())
        return f"{VERSION}.{body}.{self._tag(body, binding)}"

    def open(self, token: str, binding: Binding) -> str:
        """The position in ``token``; MALFORMED_REQUEST unless we issued it for this listing and binding."""
        refusal = malformed(
            "page_token is not one this service issued for this request (with these filters)", "page_token"
        )
        if len(token) > MAX_TOKEN_CHARS or not token.isascii():
            raise refusal
        version, _, rest = token.partition(".")
        body, _, tag = rest.partition(".")
        if version != VERSION or not hmac.compare_digest(tag, self._tag(body, binding)):
            raise refusal
        try:
            return _unb64(body).decode()
        except (binascii.Error, ValueError):  # only if the key leaked: the tag was good
            raise refusal from None

    def _tag(self, body: str, binding: Binding) -> str:
        signed = json.dumps([self._listing, body, list(binding)], separators=(",", ":")).encode()
        return _b64(hmac.new(self._key, signed, hashlib.sha256).digest())
