"""Bearer tokens (stud_service.auth) and `stud-service token`."""

from __future__ import annotations

import argparse
import base64
import doctest
import json

import jwt
import pytest

from stud_service import auth
from stud_service.auth import AuthError, Principal, Role, bearer_token, mint_token, verify_token
from stud_service.commands import token as token_command

SECRET = "a-test-secret-of-at-least-32-bytes"


def test_module_docstring_examples_run() -> None:
    assert doctest.testmod(auth).failed == 0


@pytest.mark.parametrize("role", list(Role))
def test_a_minted_token_verifies_to_its_player_and_role(role: Role) -> None:
    assert verify_token(SECRET, mint_token(SECRET, "alice", role)) == Principal("alice", role)


def test_a_token_signed_with_another_secret_is_refused() -> None:
    forged = mint_token("another-secret-of-at-least-32-bytes", "alice", Role.OPERATOR)
    with pytest.raises(AuthError) as caught:
        verify_token(SECRET, forged)
    assert caught.value.reason == "TOKEN_INVALID"


def test_an_unsigned_token_is_refused() -> None:
    unsigned = jwt.encode({"sub": "alice", "role": "operator", "exp": 2**40}, key=None, algorithm="none")
    with pytest.raises(AuthError, match="not valid"):
        verify_token(SECRET, unsigned)


def test_an_expired_token_is_refused() -> None:
    old = mint_token(SECRET, "alice", ttl_seconds=10, now=1_000_000)
    with pytest.raises(AuthError) as caught:
        verify_token(SECRET, old)
    assert caught.value.reason == "TOKEN_EXPIRED"


def test_an_unknown_role_or_missing_subject_is_refused() -> None:
    for claims in ({"sub": "alice", "role": "dealer", "exp": 2**40}, {"role": "player", "exp": 2**40}):
        with pytest.raises(AuthError) as caught:
            verify_token(SECRET, jwt.encode(claims, SECRET, algorithm="HS256"))
        assert caught.value.reason == "TOKEN_INVALID"


@pytest.mark.parametrize("header", [None, "", "Basic abc", "Bearer ", "Bearer"])
def test_a_missing_bearer_token_is_reported_as_missing(header: str | None) -> None:
    with pytest.raises(AuthError) as caught:
        bearer_token(header)
    assert caught.value.reason == "TOKEN_MISSING"


def test_the_bearer_scheme_is_case_insensitive() -> None:
    assert bearer_token("bearer abc.def") == "abc.def"


def test_short_secrets_are_refused(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(auth.SECRET_ENV, raising=False)
    with pytest.raises(ValueError):
        auth.secret_from_env(None)
    with pytest.raises(ValueError):
        auth.secret_from_env("short")


def _token_cli(argv: list[str]) -> argparse.Namespace:
    parser = argparse.ArgumentParser()
    token_command.register(parser.add_subparsers())
    return parser.parse_args(["token", *argv])


def test_token_command_mints_an_operator_token_from_the_environment_secret(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv(auth.SECRET_ENV, SECRET)
    args = _token_cli(["--player", "alice", "--role", "operator"])
    assert args.func(args) == 0
    assert verify_token(SECRET, capsys.readouterr().out.strip()) == Principal("alice", Role.OPERATOR)


def test_token_command_without_any_key_names_every_way_to_sign(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    for name in (auth.SECRET_ENV, token_command.KEY_FILE_ENV):
        monkeypatch.delenv(name, raising=False)
    args = _token_cli(["--player", "alice", "--role", "auditor"])
    assert args.func(args) == 2
    said = capsys.readouterr().err
    for option in ("--key", token_command.KEY_FILE_ENV, "--new-key", "--token-jwks", "--secret",
                   auth.SECRET_ENV, "--token-hs256"):
        assert option in said, (option, said)


@pytest.mark.parametrize(
    ("role", "lifetime"), [(Role.PLAYER, 86400), (Role.OPERATOR, 3600), (Role.AUDITOR, 3600)]
)
def test_token_command_mints_tokens_as_long_as_the_default_limit_and_warns_past_it(
    role: Role, lifetime: int, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv(auth.SECRET_ENV, SECRET)
    args = _token_cli(["--player", "alice", "--role", role.value])
    assert args.func(args) == 0
    minted = capsys.readouterr()
    claims = jwt.decode(minted.out.strip(), SECRET, algorithms=["HS256"])
    assert claims["exp"] - claims["iat"] == lifetime and not minted.err
    assert verify_token(SECRET, minted.out.strip()) == Principal("alice", role)
    args = _token_cli(["--player", "alice", "--role", role.value, "--ttl", str(lifetime + 1)])
    assert args.func(args) == 0
    longer = capsys.readouterr()
    assert "refuses" in longer.err
    with pytest.raises(AuthError, match="--max-token-lifetime") as caught:
        verify_token(SECRET, longer.out.strip())
    assert caught.value.reason == "TOKEN_INVALID"


@pytest.mark.parametrize(
    ("text", "lifetimes"),
    [
        ("player=24h,operator=1h,auditor=1h", auth.MaxLifetimes()),
        ("2h", auth.MaxLifetimes(7200, 7200, 7200)),
        ("player=12h, operator=30m", auth.MaxLifetimes(43200, 1800, 3600)),
        ("auditor=90", auth.MaxLifetimes(86400, 3600, 90)),
        ("1.5d", auth.MaxLifetimes(129600, 129600, 129600)),
    ],
)
def test_max_token_lifetime_reads_one_duration_or_one_per_role(
    text: str, lifetimes: auth.MaxLifetimes
) -> None:
    assert auth.MaxLifetimes.parse(text) == lifetimes
    assert auth.MaxLifetimes.parse(auth.DEFAULT_MAX_LIFETIMES_TEXT) == auth.DEFAULT_MAX_LIFETIMES


@pytest.mark.parametrize("text", ["", "0", "-1h", "1w", "root=1h", "player=1h,player=2h", "player", "1h,2h"])
def test_serve_refuses_a_max_token_lifetime_it_cannot_read(
    text: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    from stud_service.commands import serve

    monkeypatch.setenv(auth.SECRET_ENV, SECRET)
    with pytest.raises(ValueError, match="--max-token-lifetime"):
        serve.token_settings(_serve_args("--token-hs256", "on", f"--max-token-lifetime={text}"))


def test_a_configured_max_token_lifetime_is_the_one_checked(monkeypatch: pytest.MonkeyPatch) -> None:
    from stud_service.commands import serve

    monkeypatch.setenv(auth.SECRET_ENV, SECRET)
    settings = serve.token_settings(_serve_args("--token-hs256", "on", "--max-token-lifetime", "player=10m"))
    assert settings.max_lifetimes == auth.MaxLifetimes(600, 3600, 3600)
    verifier = auth.TokenVerifier(settings)
    assert verifier.verify(mint_token(SECRET, "alice", ttl_seconds=600)) == Principal("alice", Role.PLAYER)
    with pytest.raises(AuthError, match="10 minutes a player token may be"):
        verifier.verify(mint_token(SECRET, "alice", ttl_seconds=601))


def test_token_command_without_a_secret_fails_cleanly(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.delenv(auth.SECRET_ENV, raising=False)
    args = _token_cli(["--player", "bob"])
    assert args.func(args) == 2
    assert "secret" in capsys.readouterr().err


def test_the_verifier_remembers_a_good_token_and_still_refuses_a_forged_one() -> None:
    verifier = auth.TokenVerifier(SECRET)
    token = mint_token(SECRET, "alice", Role.PLAYER)
    assert verifier.verify(token) == verifier.verify(token) == Principal("alice", Role.PLAYER)
    forged = mint_token("another-secret-of-at-least-32-bytes", "alice", Role.OPERATOR)
    with pytest.raises(AuthError):
        verifier.verify(forged)


def test_the_verifier_forgets_a_token_when_it_expires() -> None:
    import time

    verifier = auth.TokenVerifier(auth.TokenSettings(hs256_secret=SECRET, leeway_seconds=0))
    issued = time.time()
    token = mint_token(SECRET, "alice", ttl_seconds=2, now=issued)
    assert verifier.verify(token).player_id == "alice"  # at least a second left
    time.sleep(int(issued) + 2 - time.time() + 0.05)
    with pytest.raises(AuthError) as caught:
        verifier.verify(token)
    assert caught.value.reason == "TOKEN_EXPIRED"


# -- tokens from an identity provider (JWKS) and development keys ----------------------------------------

ISSUER, AUDIENCE = "https://login.example.test/", "stud-service"


def _jwks_settings(location: str, **changes: object) -> auth.TokenSettings:
    from stud_service.jwks import JwksKeys

    keys = JwksKeys(location)
    keys.load()
    return auth.TokenSettings(jwks=keys, issuer=ISSUER, audience=AUDIENCE, **changes)  # type: ignore[arg-type]


@pytest.mark.parametrize("algorithm", ["EdDSA", "ES256", "RS256"])
def test_token_new_key_writes_a_private_key_and_a_jwks_that_verifies_its_tokens(
    algorithm: str, tmp_path, capsys: pytest.CaptureFixture[str]
) -> None:
    args = _token_cli(["--new-key", str(tmp_path), "--algorithm", algorithm])
    assert args.func(args) == 0
    assert (tmp_path / "token-key.pem").stat().st_mode & 0o077 == 0  # the private key: owner only
    jwks = json.loads((tmp_path / "jwks.json").read_text())
    assert [key["alg"] for key in jwks["keys"]] == [algorithm] and "d" not in jwks["keys"][0]
    capsys.readouterr()
    args = _token_cli(["--key", str(tmp_path / "token-key.pem"), "--player", "ann", "--role", "auditor",
                       "--issuer", ISSUER, "--audience", AUDIENCE])
    assert args.func(args) == 0
    token = capsys.readouterr().out.strip()
    assert jwt.get_unverified_header(token)["alg"] == algorithm
    assert verify_token(_jwks_settings(str(tmp_path / "jwks.json")), token) == Principal("ann", Role.AUDITOR)


def test_a_configured_role_claim_is_read(tmp_path) -> None:
    from stud_service.dev_keys import SigningKey

    key = SigningKey.generate()
    (tmp_path / "jwks.json").write_text(json.dumps(key.jwks()))
    claims = auth.token_claims("ann", Role.OPERATOR, issuer=ISSUER, audience=AUDIENCE)
    claims["https://stud.example/role"] = claims.pop("role")
    token = jwt.encode(claims, key.private_key, algorithm="EdDSA", headers={"kid": key.kid})
    settings = _jwks_settings(str(tmp_path / "jwks.json"), role_claim="https://stud.example/role")
    assert verify_token(settings, token) == Principal("ann", Role.OPERATOR)
    with pytest.raises(AuthError, match="'role'"):
        verify_token(_jwks_settings(str(tmp_path / "jwks.json")), token)


def test_a_jwks_with_only_symmetric_or_unnamed_keys_is_refused(tmp_path) -> None:
    from stud_service.dev_keys import new_private_key, public_jwk
    from stud_service.jwks import JwksError, parse_jwks

    secret = {"kty": "oct", "kid": "s", "k": base64.urlsafe_b64encode(SECRET.encode()).decode().rstrip("=")}
    unnamed = {k: v for k, v in public_jwk(new_private_key()).items() if k != "kid"}
    encryption = {**public_jwk(new_private_key("RS256")), "use": "enc"}
    for keys in ([], [secret], [unnamed], [encryption], ["not a key"]):
        with pytest.raises(JwksError):
            parse_jwks({"keys": keys})
    good = public_jwk(new_private_key("ES256"))
    assert list(parse_jwks({"keys": [secret, unnamed, good]})) == [good["kid"]]


@pytest.mark.parametrize("location", ["http://login.example.test/jwks.json", "ftp://127.0.0.1/jwks", "https://"])
def test_a_jwks_url_must_be_https_except_on_loopback(location: str) -> None:
    from stud_service.jwks import JwksError, JwksKeys

    with pytest.raises(JwksError):
        JwksKeys(location)
    for allowed in ("https://login.example.test/jwks.json", "http://127.0.0.1:8080/jwks", "http://[::1]/j",
                    "http://localhost/jwks", "/etc/stud/jwks.json"):
        JwksKeys(allowed)


def test_a_jwks_that_cannot_be_read_at_start_stops_the_service(tmp_path) -> None:
    from stud_service.jwks import JwksError, JwksKeys

    for document in (None, "not json", json.dumps({"keys": []})):
        path = tmp_path / "jwks.json"
        if document is not None:
            path.write_text(document)
        with pytest.raises(JwksError):
            JwksKeys(str(path)).load()


def _serve_args(*argv: str) -> argparse.Namespace:
    from stud_service.commands import serve

    parser = argparse.ArgumentParser()
    serve.add_service_arguments(parser)
    return parser.parse_args(list(argv))


@pytest.mark.parametrize(
    ("argv", "words"),
    [
        ((), "--token-jwks"),
        (("--token-hs256", "on", "--token-jwks", "/x.json"), "exclude each other"),
        (("--token-hs256", "yes"), "'on' or 'off'"),
        (("--token-jwks", "/x.json", "--token-issuer", ISSUER), "issuer and audience"),
        (("--token-jwks", "http://idp.example.test/jwks"), "https"),
        (("--token-hs256", "on"), "32 bytes"),
    ],
)
def test_serve_refuses_token_settings_that_are_incomplete_or_contradict(
    argv: tuple[str, ...], words: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    from stud_service.commands import serve

    for name in ("STUD_TOKEN_JWKS", "STUD_TOKEN_HS256", "STUD_TOKEN_ISSUER", "STUD_TOKEN_AUDIENCE",
                 auth.SECRET_ENV):
        monkeypatch.delenv(name, raising=False)
    with pytest.raises(ValueError, match=words):
        serve.token_settings(_serve_args(*argv))


def test_serve_accepts_hs256_only_when_turned_on(monkeypatch: pytest.MonkeyPatch) -> None:
    from stud_service.commands import serve

    monkeypatch.setenv(auth.SECRET_ENV, SECRET)
    settings = serve.token_settings(_serve_args("--token-hs256", "on"))
    assert settings.jwks is None and settings.hs256_secret == SECRET


def test_page_tokens_get_their_own_key_when_there_is_no_shared_secret(tmp_path) -> None:
    from stud_service.dev_keys import SigningKey
    from stud_service.jwks import JwksKeys
    from stud_service.server.api.caller import CallerKeys

    jwks = JwksKeys.fixed(SigningKey.generate().jwks())
    settings = auth.TokenSettings(jwks=jwks, issuer=ISSUER, audience=AUDIENCE)
    assert CallerKeys.of(settings, "page-key").page_token_key == "page-key"
    assert CallerKeys.of(SECRET).page_token_key == SECRET  # development: the secret, as before
    random_keys = {CallerKeys.of(settings).page_token_key for _ in range(2)}
    assert len(random_keys) == 2 and all(len(key) == 64 for key in random_keys)


class _Call:
    """A served call's context as far as principal_of reads it: its metadata."""

    def __init__(self, token: str) -> None:
        self.metadata = (("authorization", f"Bearer {token}"),)

    def invocation_metadata(self):
        return self.metadata


def test_a_calls_token_is_verified_once_however_often_its_principal_is_asked_for() -> None:
    """The access log's decorator and the method it wraps both ask: one signature check per call; another
    call (its own context, in its own task) is checked again."""
    import asyncio

    from stud_service.auth import TokenSettings, TokenVerifier
    from stud_service.server.api.caller import principal_of

    secret = "caller-tests-secret-of-32-bytes-or-more"
    tokens = TokenVerifier(TokenSettings(hs256_secret=secret))
    checked = []
    verify = tokens.verify
    tokens.verify = lambda token: checked.append(token) or verify(token)  # type: ignore[method-assign]

    async def serve(call: _Call) -> list[Principal]:
        return [principal_of(call, tokens) for _ in range(3)]

    async def main() -> list[list[Principal]]:
        calls = [_Call(mint_token(secret, player)) for player in ("ann", "bob")]
        return await asyncio.gather(*(asyncio.ensure_future(serve(call)) for call in calls))

    ann, bob = asyncio.run(main())
    assert [p.player_id for p in ann] == ["ann"] * 3 and [p.player_id for p in bob] == ["bob"] * 3
    assert len(checked) == 2
