"""The public keys that sign bearer tokens: a JWKS (RFC 7517) from a file or an https URL, cached.

The set is read once at start (a failure then stops the service: better than refusing every call), then
again when it is older than ``max_age`` or a token names a key (``kid``) it does not hold, so a key the
identity provider has just added is found and one it has removed stops verifying. Reads happen at most once
every ``min_interval`` seconds whatever the tokens say, so tokens with made-up ``kid`` values cannot make us
hammer the provider; a failed read keeps the keys we have. A read happens on the calling thread (the event
loop) and takes at most FETCH_TIMEOUT_SECONDS: the interval bounds how often that can be. Only signing keys
of the accepted asymmetric types are kept: a symmetric (``oct``) key in the set is ignored, so an HS256
token can never verify.
"""

from __future__ import annotations

import ipaddress
import json
import logging
import threading
import time
import urllib.parse
import urllib.request
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

import jwt

from stud_service.observability.logging import RateLimitedLog

# The asymmetric algorithms accepted, and the one each key type / curve signs with.
ALGORITHMS = ("RS256", "ES256", "EdDSA")
DEFAULT_MAX_AGE_SECONDS = 300.0
DEFAULT_MIN_INTERVAL_SECONDS = 30.0
FETCH_TIMEOUT_SECONDS = 3.0
MAX_JWKS_BYTES = 1 << 20

_log = logging.getLogger(__name__)
_read_failed = RateLimitedLog(_log, 60.0)


class JwksError(ValueError):
    """The key set cannot be read or holds no usable key."""


def _is_loopback(host: str) -> bool:
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def check_location(location: str) -> str:
    """``location`` if it is a file path or an https URL (plain http only on loopback, for development)."""
    parsed = urllib.parse.urlsplit(location)
    if parsed.scheme in ("", "file"):
        return location
    if parsed.scheme == "https" and parsed.hostname:
        return location
    if parsed.scheme == "http" and parsed.hostname and _is_loopback(parsed.hostname):
        return location
    raise JwksError("the JWKS location must be a file or an https URL (http only on loopback)")


def _read(location: str) -> bytes:
    parsed = urllib.parse.urlsplit(location)
    if parsed.scheme in ("", "file"):
        return Path(parsed.path if parsed.scheme else location).read_bytes()[: MAX_JWKS_BYTES + 1]
    request = urllib.request.Request(location, headers={"Accept": "application/json"})
    with urllib.request.urlopen(request, timeout=FETCH_TIMEOUT_SECONDS) as reply:  # noqa: S310 (checked)
        return reply.read(MAX_JWKS_BYTES + 1)


def parse_jwks(document: Mapping[str, Any]) -> dict[str, jwt.PyJWK]:
    """The usable signing keys of a JWKS document, by ``kid``; JwksError if there is none."""
    return {kid: key for kid, (key, _) in _usable(document).items()}


def _usable(document: Mapping[str, Any]) -> dict[str, tuple[jwt.PyJWK, str]]:
    """Each usable key by ``kid``, with its JWK as canonical text (to tell a changed set from the same)."""
    keys: dict[str, tuple[jwt.PyJWK, str]] = {}
    for entry in document.get("keys", ()) if isinstance(document, Mapping) else ():
        if not isinstance(entry, Mapping) or entry.get("kty") not in ("RSA", "EC", "OKP"):
            continue
        kid = entry.get("kid")
        if not isinstance(kid, str) or not kid or entry.get("use", "sig") != "sig":
            continue
        try:
            key = jwt.PyJWK(dict(entry))
        except (jwt.PyJWKError, jwt.InvalidKeyError, ValueError, TypeError):
            continue
        if key.algorithm_name in ALGORITHMS:
            keys[kid] = (key, json.dumps(entry, sort_keys=True))
    if not keys:
        raise JwksError("the JWKS holds no RS256, ES256 or EdDSA signing key with a kid")
    return keys


class JwksKeys:
    """The current signing keys of one JWKS location."""

    def __init__(
        self,
        location: str,
        *,
        max_age: float = DEFAULT_MAX_AGE_SECONDS,
        min_interval: float = DEFAULT_MIN_INTERVAL_SECONDS,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.location = location if location == "-" else check_location(location)
        self._max_age = max_age
        self._min_interval = min_interval
        self._clock = clock
        self._lock = threading.Lock()
        self._keys: dict[str, jwt.PyJWK] = {}
        self._texts: dict[str, str] = {}
        self._loaded_at = float("-inf")
        self._tried_at = float("-inf")
        self.generation = 0  # +1 whenever the set changes: verdicts cached under an older one are void
        self.reads = 0

    @classmethod
    def fixed(cls, document: Mapping[str, Any]) -> JwksKeys:
        """Keys given in memory, never read again (the embedded demo's own development key)."""
        keys = cls("-", max_age=float("inf"), min_interval=float("inf"))
        keys._install(_usable(document))
        return keys

    def load(self) -> None:
        """Read the set now; JwksError if it cannot be read or holds no usable key (at start-up)."""
        if self.location == "-":
            return
        with self._lock:
            self._tried_at = self._clock()
            self._install(self._fetch())

    def key(self, kid: str) -> jwt.PyJWK | None:
        """The key named ``kid``, reading the set again first when it is stale or lacks that key."""
        self._refresh_if(kid not in self._keys)
        return self._keys.get(kid)

    def current_generation(self) -> int:
        """``generation`` after reading the set again if it is stale (a cached verdict is checked with it)."""
        self._refresh_if(False)
        return self.generation

    def _refresh_if(self, missing: bool) -> None:
        now = self._clock()
        if (missing or now - self._loaded_at > self._max_age) and now - self._tried_at >= self._min_interval:
            self._refresh(now)

    def _refresh(self, now: float) -> None:
        with self._lock:
            if now - self._tried_at < self._min_interval:  # another thread just read it
                return
            self._tried_at = now
            try:
                self._install(self._fetch())
            except (OSError, JwksError) as error:
                _read_failed.warning("could not read the JWKS; keeping the keys already known: %s",
                                     type(error).__name__)

    def _fetch(self) -> dict[str, tuple[jwt.PyJWK, str]]:
        self.reads += 1
        try:
            raw = _read(self.location)
        except OSError as error:
            raise JwksError(f"could not read the JWKS at {self.location}: {type(error).__name__}") from error
        if len(raw) > MAX_JWKS_BYTES:
            raise JwksError("the JWKS is larger than 1 MiB")
        try:
            return _usable(json.loads(raw))
        except (ValueError, UnicodeDecodeError) as error:
            if isinstance(error, JwksError):
                raise
            raise JwksError("the JWKS is not JSON") from error

    def _install(self, keys: dict[str, tuple[jwt.PyJWK, str]]) -> None:
        texts = {kid: text for kid, (_, text) in keys.items()}
        if texts != self._texts:  # a key added, removed or replaced under its kid
            self.generation += 1
        self._keys, self._texts = {kid: key for kid, (key, _) in keys.items()}, texts
        self._loaded_at = self._clock()
