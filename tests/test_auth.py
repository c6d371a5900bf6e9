"""Bearer tokens (stud_service.auth) and `stud-service token`."""

from __future__ import annotations

import argparse
import doctest

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
