"""Tokens from an identity provider: a real server on loopback checks RS256, ES256 and EdDSA tokens against a
JWKS served over real HTTP, and refuses every token it should, UNAUTHENTICATED with a precise reason, without
ever repeating the token."""

from __future__ import annotations

import base64
import hashlib
import hmac
import http.server
import json
import os
import subprocess
import sys
import threading
import time
from collections.abc import AsyncIterator, Iterator
from dataclasses import dataclass, field
from typing import Any

import grpc
import jwt
import pytest
import pytest_asyncio
from cryptography.hazmat.primitives import serialization
from grpc_fixtures import TOKEN_SECRET, ServiceUnderTest, table_spec

from stud_service.auth import Role, TokenSettings, mint_token, token_claims
from stud_service.bots import StudClient
from stud_service.bots.client import error_reason
from stud_service.dev_keys import SigningKey
from stud_service.jwks import JwksKeys
from stud_service.server.api.caller import CallerKeys
from stud_service.server.api.table_service import TableService
from stud_service.server.grpc.app import start_server

ISSUER, AUDIENCE = "https://login.example.test/", "stud-service"
MAX_AGE, MIN_INTERVAL = 300.0, 30.0
ALGORITHMS = ("RS256", "ES256", "EdDSA")


class Clock:
    """The JWKS cache's clock, moved by hand: the refresh rules are tested without waiting."""

    def __init__(self) -> None:
        self.now = 1_000.0

    def __call__(self) -> float:
        return self.now


@dataclass
class IdentityProvider:
    """Signing keys, and the JWKS a real HTTP server on loopback publishes for them."""

    keys: dict[str, SigningKey]
    published: list[str]
    url: str = ""
    reads: int = 0
    clock: Clock = field(default_factory=Clock)

    def document(self) -> dict[str, Any]:
        return {"keys": [jwk for name in self.published for jwk in self.keys[name].jwks()["keys"]]}

    def token(self, name: str, player: str = "alice", as_role: Role = Role.PLAYER, **changes: Any) -> str:
        claims = {**token_claims(player, as_role, 600, issuer=ISSUER, audience=AUDIENCE), **changes}
        claims = {claim: value for claim, value in claims.items() if value is not None}  # iat=None: no iat
        key = self.keys[name]
        return jwt.encode(claims, key.private_key, algorithm=name.split("-")[0], headers={"kid": key.kid})


@pytest.fixture(scope="module")
def idp() -> Iterator[IdentityProvider]:
    keys = {name: SigningKey.generate(name) for name in ALGORITHMS}
    keys["EdDSA-new"] = SigningKey.generate("EdDSA")
    provider = IdentityProvider(keys, published=list(ALGORITHMS))

    class Handler(http.server.BaseHTTPRequestHandler):
        def do_GET(self) -> None:  # noqa: N802 (http.server's name)
            provider.reads += 1
            body = json.dumps(provider.document()).encode()
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *args: object) -> None:
            pass

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    provider.url = f"http://127.0.0.1:{server.server_address[1]}/.well-known/jwks.json"
    try:
        yield provider
    finally:
        server.shutdown()
        server.server_close()


@pytest_asyncio.fixture(scope="module")
async def channel(grpc_service: ServiceUnderTest, idp: IdentityProvider) -> AsyncIterator[grpc.aio.Channel]:
    """A TableService checking the provider's tokens, on the session's runtime and database."""
    jwks = JwksKeys(idp.url, max_age=MAX_AGE, min_interval=MIN_INTERVAL, clock=idp.clock)
    jwks.load()
    settings = TokenSettings(jwks=jwks, issuer=ISSUER, audience=AUDIENCE, leeway_seconds=30)
    running = await start_server(TableService(grpc_service.runtime, CallerKeys.of(settings)), "127.0.0.1:0")
    async with grpc.aio.insecure_channel(f"127.0.0.1:{running.port}") as channel:
        yield channel
    await running.server.stop(0)


def _b64(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).decode().rstrip("=")


def hs256(claims: dict[str, Any], secret: bytes, kid: str) -> str:
    """An HS256 token made by hand: PyJWT itself refuses to use a public key as an HMAC secret."""
    signed = f"{_b64(json.dumps({'alg': 'HS256', 'typ': 'JWT', 'kid': kid}).encode())}." \
             f"{_b64(json.dumps(claims).encode())}"
    return f"{signed}.{_b64(hmac.new(secret, signed.encode(), hashlib.sha256).digest())}"


async def refused(channel: grpc.aio.Channel, token: str, reason: str, words: str) -> None:
    with pytest.raises(grpc.aio.AioRpcError) as caught:
        await StudClient(channel, token).view("none-such")
    error = caught.value
    assert (error.code(), error_reason(error)) == (grpc.StatusCode.UNAUTHENTICATED, reason), error.details()
    assert words in error.details()
    for part in token.split("."):  # no part of the token comes back, not even its header
        assert not part or part not in (error.details() or "") + repr(error.trailing_metadata())


async def accepted(channel: grpc.aio.Channel, token: str) -> None:
    """Past authentication: the table does not exist."""
    with pytest.raises(grpc.aio.AioRpcError) as caught:
        await StudClient(channel, token).view("none-such")
    assert caught.value.code() == grpc.StatusCode.NOT_FOUND, caught.value.details()


@pytest.mark.parametrize("algorithm", ALGORITHMS)
async def test_rs256_es256_and_eddsa_tokens_are_accepted(channel, idp, table_id, algorithm: str) -> None:
    operator = StudClient(channel, idp.token(algorithm, "house", Role.OPERATOR))
    await operator.create_table(table_id, table_spec())
    player = StudClient(channel, idp.token(algorithm, "alice"))
    await player.sit_down(table_id, 1, 5_000)
    seats = (await player.view(table_id)).seats
    assert [seat.player_id for seat in seats if seat.player_id] == ["alice"]


async def test_an_expired_token_is_refused_past_the_leeway_only(channel, idp) -> None:
    now = int(time.time())
    await refused(channel, idp.token("EdDSA", exp=now - 60), "TOKEN_EXPIRED", "expired")
    await accepted(channel, idp.token("EdDSA", exp=now - 10))  # a clock 10 s behind the provider's


async def test_a_token_not_valid_yet_is_refused(channel, idp) -> None:
    later = int(time.time()) + 120
    await refused(channel, idp.token("ES256", nbf=later, iat=later), "TOKEN_INVALID", "not valid yet")
    await accepted(channel, idp.token("ES256", nbf=int(time.time()) + 10))


async def test_a_token_valid_longer_than_its_role_may_be_is_refused_saying_why(channel, idp) -> None:
    """Issue 37: tokens with exp 100 years ahead were accepted. The default limits: a day for a player, an
    hour for an operator or auditor, measured exp - iat, or exp - now for a token without iat."""
    now = int(time.time())
    century = now + 100 * 365 * 86400
    await refused(channel, idp.token("EdDSA", exp=century), "TOKEN_INVALID", "36500 days (exp - iat)")
    await refused(channel, idp.token("EdDSA", exp=century, iat=None), "TOKEN_INVALID", "(exp - now")
    await refused(channel, idp.token("RS256", "house", Role.OPERATOR, exp=now + 2 * 3600), "TOKEN_INVALID",
                  "longer than the 1 hour an operator token may be (--max-token-lifetime)")
    await refused(channel, idp.token("ES256", "eve", Role.AUDITOR, iat=now - 3600, exp=now + 60),
                  "TOKEN_INVALID", "61 minutes (exp - iat), longer than the 1 hour an auditor token may be")
    # iat given: made a second after ``now`` (a busy host), the token would be a day long to the second.
    await refused(channel, idp.token("EdDSA", iat=now, exp=now + 86400 + 1), "TOKEN_INVALID",
                  "86401 s (exp - iat), longer than the 1 day a player token may be")
    await accepted(channel, idp.token("EdDSA", exp=now + 86400))
    await accepted(channel, idp.token("EdDSA", exp=now + 86400, iat=None))
    await accepted(channel, idp.token("RS256", "house", Role.OPERATOR, exp=now + 3600))


async def test_a_wrong_or_missing_issuer_or_audience_is_refused(channel, idp) -> None:
    await refused(channel, idp.token("RS256", iss="https://evil.example.test/"), "TOKEN_INVALID", "issuer")
    await refused(channel, idp.token("RS256", aud="another-app"), "TOKEN_INVALID", "audience")
    claims = token_claims("alice", issuer=ISSUER)  # no aud at all
    key = idp.keys["RS256"]
    token = jwt.encode(claims, key.private_key, algorithm="RS256", headers={"kid": key.kid})
    await refused(channel, token, "TOKEN_INVALID", "'aud'")


async def test_a_token_without_a_role_or_subject_is_refused(channel, idp) -> None:
    await refused(channel, idp.token("EdDSA", role="dealer"), "TOKEN_INVALID", "role")
    await refused(channel, idp.token("EdDSA", sub=""), "TOKEN_INVALID", "player")


async def test_alg_none_is_refused(channel, idp) -> None:
    claims = token_claims("house", Role.OPERATOR, 600, issuer=ISSUER, audience=AUDIENCE)
    for kid in (idp.keys["EdDSA"].kid, None):
        unsigned = jwt.encode(claims, None, algorithm="none", headers={"kid": kid} if kid else None)
        await refused(channel, unsigned, "TOKEN_INVALID", "algorithm")


async def test_hs256_tokens_are_refused_when_public_keys_are_configured(channel, idp) -> None:
    """Algorithm confusion: an HS256 token whose secret is the public key a verifier might use as one."""
    claims = token_claims("house", Role.OPERATOR, 600, issuer=ISSUER, audience=AUDIENCE)
    for name in ALGORITHMS:
        key = idp.keys[name]
        public = key.private_key.public_key()
        pem = public.public_bytes(serialization.Encoding.PEM, serialization.PublicFormat.SubjectPublicKeyInfo)
        jwk_text = json.dumps(key.jwks()["keys"][0]).encode()
        for secret in (pem, jwk_text, b"any-secret-of-at-least-32-bytes-long!!"):
            await refused(channel, hs256(claims, secret, key.kid), "TOKEN_INVALID", "algorithm")


async def test_a_forged_signature_is_refused(channel, idp) -> None:
    genuine = idp.token("ES256", "house", Role.OPERATOR)
    impostor = SigningKey.generate("ES256")  # same algorithm, the genuine key's kid, another key
    claims = token_claims("house", Role.OPERATOR, 600, issuer=ISSUER, audience=AUDIENCE)
    kid = idp.keys["ES256"].kid
    forged = jwt.encode(claims, impostor.private_key, algorithm="ES256", headers={"kid": kid})
    await accepted(channel, genuine)
    await refused(channel, forged, "TOKEN_INVALID", "not valid")
    # A key of another type under a known kid: the key decides the algorithm, never the token.
    eddsa_kid = idp.keys["EdDSA"].kid
    mixed = jwt.encode(claims, idp.keys["ES256"].private_key, algorithm="ES256", headers={"kid": eddsa_kid})
    await refused(channel, mixed, "TOKEN_INVALID", "does not match its key")


async def test_an_unknown_kid_reads_the_jwks_again_at_most_once_per_interval(channel, idp) -> None:
    idp.clock.now += MIN_INTERVAL  # whatever earlier tests read
    reads = idp.reads
    made_up = jwt.encode(token_claims("alice", issuer=ISSUER, audience=AUDIENCE),
                         idp.keys["EdDSA"].private_key, algorithm="EdDSA", headers={"kid": "made-up"})
    await refused(channel, made_up, "TOKEN_INVALID", "key this service does not know")
    assert idp.reads == reads + 1
    for _ in range(5):  # a flood of unknown kids: no more reads within the interval
        await refused(channel, made_up, "TOKEN_INVALID", "key this service does not know")
    assert idp.reads == reads + 1

    # The provider publishes a new key and signs with it: found at the next read allowed.
    idp.published.append("EdDSA-new")
    await refused(channel, idp.token("EdDSA-new"), "TOKEN_INVALID", "key this service does not know")
    idp.clock.now += MIN_INTERVAL
    await accepted(channel, idp.token("EdDSA-new"))
    assert idp.reads == reads + 2


async def test_key_rotation_an_old_key_removed_stops_verifying(channel, idp) -> None:
    if "EdDSA-new" not in idp.published:
        idp.published.append("EdDSA-new")
    idp.clock.now += MAX_AGE + MIN_INTERVAL
    old, new = idp.token("EdDSA", "olga"), idp.token("EdDSA-new", "olga")
    await accepted(channel, old)  # both keys in the set during the rotation
    await accepted(channel, new)
    idp.published.remove("EdDSA")
    idp.clock.now += MAX_AGE + 1  # the cached set is stale: the next call reads the new one
    await refused(channel, old, "TOKEN_INVALID", "key this service does not know")  # its verdict was cached
    await accepted(channel, new)
    idp.published.insert(0, "EdDSA")
    idp.clock.now += MAX_AGE + 1
    await accepted(channel, old)


async def test_serve_checks_tokens_minted_by_the_token_command_against_a_jwks_file(
    spawn_server, make_database, tmp_path, table_id
) -> None:
    """The whole development path: ``token --new-key``, ``serve --token-jwks``, ``token --key``."""
    environment = {name: value for name, value in os.environ.items() if name != "STUD_TOKEN_SECRET"}

    def cli(*argv: str) -> str:
        command = [sys.executable, "-m", "stud_service.cli", *argv]
        done = subprocess.run(command, capture_output=True, text=True, timeout=60, env=environment)
        assert done.returncode == 0, done.stderr
        return done.stdout.strip()

    cli("token", "--new-key", str(tmp_path), "--algorithm", "ES256")
    server = await spawn_server(
        await make_database(migrated=True), "--token-hs256", "off", "--token-jwks",
        str(tmp_path / "jwks.json"), "--token-issuer", ISSUER, "--token-audience", AUDIENCE,
    )
    mint = ("token", "--key", str(tmp_path / "token-key.pem"), "--issuer", ISSUER, "--audience", AUDIENCE)
    async with grpc.aio.insecure_channel(server.address) as channel:
        await StudClient(channel, cli(*mint, "--player", "house", "--role", "operator")).create_table(
            table_id, table_spec()
        )
        player = StudClient(channel, cli(*mint, "--player", "alice"))
        assert (await player.get_table(table_id)).name == f"tables/{table_id}"
        await refused(channel, mint_token(TOKEN_SECRET, "alice"), "TOKEN_INVALID", "algorithm")
    assert TOKEN_SECRET not in server.log_text()
