"""Key-encryption keys: loading and validating the keyring, the key registry's startup check, rotation
(rewrap, retire) and ``stud-service serve`` refusing to start, with one line naming the key id."""

from __future__ import annotations

import asyncio
import base64
import json
import os
import random
import subprocess
import sys
from pathlib import Path

import pytest
from grpc_fixtures import serve_command
from test_sealing_store import a_hand

from stud_service.db import DatabaseSettings, open_pool
from stud_service.sealing import (
    KeyFilePermissions,
    Keyring,
    KeyringError,
    MissingKey,
    NoKeyring,
    SealingError,
    TruncatedKey,
    WrongKey,
    open_sealed_store,
    parse_keyring,
    resolve_keyring,
)
from stud_service.sealing.keyring import new_key, read_keyring_file, write_keyring_file
from stud_service.sealing.rotation import key_status, retire, rewrap

K1, K2 = new_key(), new_key()


def text(active: str, **keys: bytes | str) -> str:
    return json.dumps(
        {
            "active": active,
            "keys": {
                kid: key if isinstance(key, str) else base64.b64encode(key).decode()
                for kid, key in keys.items()
            },
        }
    )


def key_file(tmp_path: Path, content: str, mode: int = 0o600) -> Path:
    path = tmp_path / "keys.json"
    path.write_text(content)
    path.chmod(mode)
    return path


def test_a_keyring_file_loads_and_never_shows_its_keys(tmp_path):
    ring = read_keyring_file(key_file(tmp_path, text("k2", k1=K1, k2=K2)))
    assert ring.active == "k2" and ring.keys == {"k1": K1, "k2": K2}
    assert base64.b64encode(K1).decode() not in repr(ring)


def test_a_truncated_key_is_refused_naming_its_id():
    short = base64.b64encode(K1[:31]).decode()
    with pytest.raises(TruncatedKey, match="key 'k1' is 31 bytes, not 32") as refused:
        parse_keyring(text("k2", k1=short, k2=K2), "STUD_KEYS")
    assert refused.value.kid == "k1" and short not in str(refused.value)
    with pytest.raises(TruncatedKey, match="key 'k2' is not valid base64"):
        parse_keyring(text("k2", k2=base64.b64encode(K2).decode()[:-3]), "STUD_KEYS")


@pytest.mark.parametrize(
    "content, words",
    [
        (text("k3", k1=K1), "the active key 'k3' is not in its keys"),
        (text("k1", **{"bad id!": K1, "k1": K1}), "is not a key id"),
        ("{not json", "not JSON"),
        ('{"active": "k1"}', "expected a JSON object"),
    ],
    ids=["active-key-missing", "bad-key-id", "not-json", "no-keys"],  # K1 is random: never in an id
)
def test_a_malformed_keyring_is_refused(content, words):
    with pytest.raises(SealingError, match=words):
        parse_keyring(content, "STUD_KEYS")


@pytest.mark.parametrize("mode", [0o644, 0o604, 0o666])
def test_a_key_file_others_can_read_is_refused_saying_chmod_600(tmp_path, mode):
    path = key_file(tmp_path, text("k1", k1=K1), mode)
    with pytest.raises(KeyFilePermissions, match=f"chmod 600 {path}"):
        read_keyring_file(path)


def test_the_embedded_quick_start_keeps_one_development_keyring(tmp_path, monkeypatch):
    monkeypatch.delenv("STUD_KEYS_FILE", raising=False)
    monkeypatch.delenv("STUD_KEYS", raising=False)
    settings = DatabaseSettings(url=None, data_dir=tmp_path / "data")
    first = resolve_keyring(None, settings)
    path = tmp_path / "data" / "keys.json"
    assert path.stat().st_mode & 0o777 == 0o600
    assert resolve_keyring(None, settings).keys == first.keys  # kept, not made again
    assert first.development and resolve_keyring(None, settings).development  # so real money is refused


def test_a_real_database_without_a_keyring_is_refused(monkeypatch):
    monkeypatch.delenv("STUD_KEYS_FILE", raising=False)
    monkeypatch.delenv("STUD_KEYS", raising=False)
    with pytest.raises(NoKeyring, match="no keyring"):
        resolve_keyring(None, DatabaseSettings(url="postgresql://db.example/stud", data_dir=Path("/nowhere")))


@pytest.fixture
async def fresh_pool(make_database):
    pool = await open_pool(await make_database(migrated=True), max_size=4)
    yield pool
    await pool.close()


async def test_startup_refuses_a_registered_key_missing_from_the_keyring_or_a_wrong_one(fresh_pool):
    store = await open_sealed_store(fresh_pool, Keyring("k1", {"k1": K1}))  # registers k1
    await store.close()
    with pytest.raises(MissingKey, match="key 'k1' is registered in the database but missing"):
        await open_sealed_store(fresh_pool, Keyring("k2", {"k2": K2}))
    with pytest.raises(WrongKey, match="key 'k1' .* is not the key registered under that id"):
        await open_sealed_store(fresh_pool, Keyring("k1", {"k1": K2}))
    store = await open_sealed_store(fresh_pool, Keyring("k2", {"k1": K1, "k2": K2}))  # k2 joins: fine
    await store.close()


async def test_rotation_old_hands_stay_readable_and_after_rewrap_and_retire_the_old_key_can_go(fresh_pool):
    rng = random.Random(7)
    old = await open_sealed_store(fresh_pool, Keyring("k1", {"k1": K1}))
    hands = {}
    for table in ("tables/a", "tables/b"):
        hands[table] = a_hand(1, rng)[0]
        await old.append(table, 0, hands[table])
    await old.close()

    both = Keyring("k2", {"k1": K1, "k2": K2})
    new = await open_sealed_store(fresh_pool, both)  # k2 active: new hands under k2, old ones readable
    second = a_hand(2, rng)[0]
    await new.append("tables/a", len(hands["tables/a"]), second)
    assert [e.payload for e in await new.read_stream("tables/a")] == hands["tables/a"] + second
    sealed_with = {e.payload.get("sealed", {}).get("kid") for e in await _raw(new, "tables/a")} - {None}
    assert sealed_with == {"k1", "k2"}

    with pytest.raises(SealingError, match="key 'k1' still seals 2 hand\\(s\\) without a re-wrap"):
        await retire(new, both, "k1")
    assert await rewrap(new, both, "k1") == 2
    assert await rewrap(new, both, "k1") == 0  # done already: nothing appended again
    status = {s.kid: s for s in await key_status(new, both)}
    assert (status["k1"].hands, status["k1"].rewrapped, status["k2"].hands) == (2, 2, 1)
    await retire(new, both, "k1")
    await new.close()

    only_new = await open_sealed_store(fresh_pool, Keyring("k2", {"k2": K2}))  # k1 removed from the keyring
    for table, events in hands.items():
        assert [e.payload for e in await only_new.read_stream(table)][: len(events)] == events
    status = {s.kid: s for s in await key_status(only_new, only_new.sealer.keyring)}
    assert status["k1"].retired and not status["k1"].in_keyring
    await only_new.close()


async def _raw(store, stream_id):
    from stud_service.store import EventStore

    return await EventStore(store.pool).read_stream(stream_id)


# -- the real command ----------------------------------------------------------------------------------


def serve(database_url: str, keys: Path | None, **env: str) -> subprocess.CompletedProcess[str]:
    environ = {
        k: v for k, v in os.environ.items() if k not in ("STUD_KEYS_FILE", "STUD_KEYS", "DATABASE_URL")
    }
    environ.update(STUD_TOKEN_SECRET="x" * 32, STUD_TOKEN_HS256="on", **env)
    if keys is not None:
        environ["STUD_KEYS_FILE"] = str(keys)
    return subprocess.run(
        serve_command(database_url, "127.0.0.1:0"),
        env=environ,
        capture_output=True,
        text=True,
        timeout=60,
    )


async def test_serve_refuses_to_start_without_the_right_keys(fresh_pool, make_database, tmp_path):
    store = await open_sealed_store(fresh_pool, Keyring("k1", {"k1": K1}))
    await store.close()
    url = fresh_pool.conninfo
    (tmp_path / "a").mkdir()
    (tmp_path / "b").mkdir()
    (tmp_path / "c").mkdir()
    cases = [
        (None, "no keyring"),
        (key_file(tmp_path / "a", text("k2", k2=K2)), "key 'k1' is registered in the database but missing"),
        (key_file(tmp_path / "b", text("k1", k1=K2)), "key 'k1' .* is not the key registered under that id"),
        (key_file(tmp_path / "c", text("k1", k1=base64.b64encode(K1[:20]).decode())), "key 'k1' is 20 bytes"),
        (key_file(tmp_path, text("k1", k1=K1), 0o644), "chmod 600"),
    ]
    for keys, words in cases:
        result = serve(url, keys)
        assert result.returncode == 2, result.stderr[-2000:]
        last = result.stderr.strip().splitlines()[-1]
        assert last.startswith("stud-service serve: "), result.stderr[-2000:]
        import re

        assert re.search(words, last), last
        assert base64.b64encode(K1).decode() not in result.stderr


def test_keys_generate_adds_a_key_to_a_file_kept_0600(tmp_path):
    path = tmp_path / "ring.json"
    run = [sys.executable, "-m", "stud_service.cli", "keys", "generate", "--file", str(path)]
    subprocess.run([*run, "--kid", "k1"], check=True, capture_output=True)
    subprocess.run([*run, "--kid", "k2", "--activate"], check=True, capture_output=True)
    ring = read_keyring_file(path)
    assert ring.active == "k2" and set(ring.keys) == {"k1", "k2"}
    assert path.stat().st_mode & 0o777 == 0o600
    printed = subprocess.run(
        [sys.executable, "-m", "stud_service.cli", "keys", "generate", "--kid", "x"],
        check=True,
        capture_output=True,
        text=True,
    ).stdout
    assert parse_keyring(printed, "printed").active == "x"
    write_keyring_file(path, ring)  # rewriting keeps it private
    assert path.stat().st_mode & 0o777 == 0o600
    with pytest.raises(KeyringError):
        parse_keyring("[]", "x")


async def test_the_keys_commands_report_rewrap_and_retire(fresh_pool, tmp_path, capsys):
    from stud_service.cli import main

    store = await open_sealed_store(fresh_pool, Keyring("k1", {"k1": K1, "k2": K2}))
    await store.append("tables/cli", 0, a_hand(1, random.Random(9))[0])
    await store.close()
    first = key_file(tmp_path, text("k1", k1=K1, k2=K2))

    async def keys(*argv: str, ring: Path = first) -> tuple[int, str]:
        argv = ("keys", *argv, "--database-url", fresh_pool.conninfo, "--keys-file", str(ring))
        code = await asyncio.to_thread(main, list(argv))  # the command runs its own event loop
        captured = capsys.readouterr()
        return code, captured.out + captured.err

    assert await keys("status") == (0, "k1: 1 hand(s) sealed, 0 re-wrapped; active, in keyring, registered\n"
                                       "k2: 0 hand(s) sealed, 0 re-wrapped; in keyring\n")
    code, out = await keys("retire", "k1")
    assert code == 2 and "key 'k1' is the active key" in out
    code, out = await keys("rewrap", "--from", "k1", "--to", "k2")
    assert (code, out) == (0, "re-wrapped 1 data key(s) of key 'k1' with 'k2'\n")
    (tmp_path / "second").mkdir()
    second = key_file(tmp_path / "second", text("k2", k2=K2))
    code, out = await keys("retire", "k1", ring=second)
    assert (code, out) == (0, "key 'k1' is retired: it may now be removed from the keyring\n")
    code, out = await keys("status", "--json", ring=second)
    by_kid = {entry["kid"]: entry for entry in map(json.loads, out.splitlines())}
    assert by_kid["k1"]["retired"] and by_kid["k1"]["rewrapped"] == 1 and not by_kid["k1"]["in_keyring"]
    assert by_kid["k2"]["registered"]
