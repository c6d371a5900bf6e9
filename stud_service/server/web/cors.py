"""CORS for the web port: pages from the configured origins may call the API; none is allowed by default.

The page the port serves itself is same-origin and needs none of this. A preflight (OPTIONS with
``Access-Control-Request-Method``) from an allowed origin is answered 204 here; from any other origin 403,
without CORS headers, so the browser refuses the call. Headers are those Connect and gRPC-Web clients send
and read (connectrpc.com/docs/cors), and the device id a player's client sends (``x-stud-device-id``).
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Iterable
from typing import Any

ASGIApp = Callable[[dict[str, Any], Callable[[], Awaitable[dict[str, Any]]], Callable[..., Awaitable[None]]],
                   Awaitable[None]]

ALLOWED_METHODS = b"GET, POST, OPTIONS"
ALLOWED_HEADERS = (
    b"authorization, content-type, connect-protocol-version, connect-timeout-ms, connect-accept-encoding, "
    b"connect-content-encoding, grpc-timeout, x-grpc-web, x-user-agent, x-request-id, x-stud-device-id"
)
EXPOSED_HEADERS = (
    b"grpc-status, grpc-message, grpc-status-details-bin, connect-content-encoding, content-encoding"
)
PREFLIGHT_MAX_AGE = b"7200"


def origins(setting: str) -> frozenset[str]:
    """``--web-origins``: comma-separated origins (scheme://host[:port]); "" or "none": none."""
    items = [item.strip().rstrip("/") for item in setting.split(",")]
    return frozenset(item for item in items if item and item.lower() != "none")


class Cors:
    def __init__(self, app: ASGIApp, allowed: Iterable[str]) -> None:
        self._app = app
        self._allowed = frozenset(allowed)

    async def __call__(self, scope: dict[str, Any], receive: Any, send: Any) -> None:
        if scope["type"] != "http":
            await self._app(scope, receive, send)
            return
        headers = dict(scope.get("headers", ()))
        origin = headers.get(b"origin", b"").decode("latin-1")
        allowed = origin in self._allowed
        if scope["method"] == "OPTIONS" and b"access-control-request-method" in headers:
            await _preflight(send, origin if allowed else None)
            return
        if not self._allowed:
            await self._app(scope, receive, send)
            return
        # With origins configured, every answer depends on the Origin header: a cache in between must not
        # hand an answer without CORS headers (to another origin, or to none) to an allowed origin.
        added = [(b"vary", b"Origin")]
        if allowed:
            added += [(b"access-control-allow-origin", origin.encode("latin-1")),
                      (b"access-control-expose-headers", EXPOSED_HEADERS)]

        async def with_cors(message: dict[str, Any]) -> None:
            if message["type"] == "http.response.start":
                message = {**message, "headers": [*message.get("headers", ()), *added]}
            await send(message)

        await self._app(scope, receive, with_cors)


async def _preflight(send: Any, origin: str | None) -> None:
    headers = [(b"vary", b"Origin"), (b"content-length", b"0")]
    if origin is not None:
        headers += [
            (b"access-control-allow-origin", origin.encode("latin-1")),
            (b"access-control-allow-methods", ALLOWED_METHODS),
            (b"access-control-allow-headers", ALLOWED_HEADERS),
            (b"access-control-max-age", PREFLIGHT_MAX_AGE),
        ]
    await send({"type": "http.response.start", "status": 204 if origin else 403, "headers": headers})
    await send({"type": "http.response.body", "body": b""})
