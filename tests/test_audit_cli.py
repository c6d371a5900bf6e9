"""``stud-service hands ...`` and ``stud-service audit ...`` against the test PostgreSQL (the audit issue)."""

from __future__ import annotations

import asyncio
import json
import re
import tomllib
import uuid

import pytest
import pytest_asyncio

from stud_service.audit.checkpoint import key_from, make_checkpoint
from stud_service.audit.simulate import simulate_table, store_table
from stud_service.cli import main
from stud_service.engine import Variant
from stud_service.store import GENESIS_HASH, canonical_json, chain_hash

KEY = "cli-checkpoint-key-0123456789abcdef0123"


@pytest_asyncio.fixture(scope="module")
async def cli_table(event_store) -> str:
    table = simulate_table(f"cli-{uuid.uuid4().hex[:10]}", Variant.STUD_HI_LO, 12, seed=21)
    await store_table(event_store, table)
    return table.table_id


def run(capsys, database_url: str, *argv: str) -> tuple[int, str, str]:
    code = main([*argv, "--database-url", database_url])
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def test_list_show_replay_and_export(capsys, database_url, cli_table):
    code, out, _ = run(capsys, database_url, "hands", "list", "--table", cli_table, "--page-size", "5")
    assert code == 0 and len(out.splitlines()) == 5 and f"tables/{cli_table}/hands/1 " in out
    code, out, _ = run(capsys, database_url, "hands", "show", cli_table, "3")
    assert code == 0 and "Third street:" in out and any(symbol in out for symbol in "♣♦♥♠")
    code, out, _ = run(capsys, database_url, "hands", "replay", cli_table, "3", "--public")
    steps = [json.loads(line) for line in out.splitlines()]
    assert steps[0]["event"]["type"] == "HandStarted" and steps[0]["event"]["deck"] is None
    assert steps[-1]["event"]["type"] == "HandEnded"
    code, out, _ = run(capsys, database_url, "hands", "export", cli_table, "3", "--format", "pokerstars")
    assert code == 0 and out.startswith("PokerStars Hand #") and "7 Card Stud Hi/Lo Limit" in out


def test_amounts_print_in_the_tables_currency_and_stay_raw_in_json(capsys, database_url, cli_table):
    """The simulated table plays for USD: a person reads dollars, a program reads the smallest unit."""
    code, out, _ = run(capsys, database_url, "hands", "list", "--table", cli_table, "--page-size", "5")
    assert code == 0 and all(re.search(r"  pot +\$[\d,]+(\.\d\d)?  ", line) for line in out.splitlines()), out
    code, out, _ = run(capsys, database_url, "hands", "list", "--table", cli_table, "--json")
    rows = [json.loads(line) for line in out.splitlines()]
    assert code == 0 and all(isinstance(row["pot"], int) and row["currency"] == "USD" for row in rows)
    code, out, _ = run(capsys, database_url, "hands", "show", cli_table, "3")
    header = out.splitlines()[0]
    assert re.search(r" Stud Hi-Lo \$\d+/\$\d+, ante \$[\d.]+, bring-in \$[\d.]+ — ", header), header
    assert re.search(r"wins \$[\d,]+(\.\d\d)? from the", out)
    assert re.search(r"Stacks after the hand: \d \$", out)


def test_verify_many_hands_shows_progress(capsys, database_url, cli_table):
    code, out, err = run(capsys, database_url, "hands", "verify", cli_table)
    assert code == 0 and "12 of 12 hands verified" in out
    assert "12/12 hands, 0 failed" in err and "[" in err


def test_verify_shuffle_from_the_log_and_from_an_exported_phh(capsys, database_url, cli_table, tmp_path):
    code, out, _ = run(capsys, database_url, "hands", "verify-shuffle", cli_table, "2")
    assert code == 0 and "shuffle OK" in out
    path = tmp_path / "hand.phh"
    code, _, _ = run(
        capsys, database_url, "hands", "export", cli_table, "2", "--format", "phh", "-o", str(path)
    )
    assert code == 0
    assert main(["hands", "verify-shuffle", "--phh", str(path)]) == 0
    assert "shuffle OK" in capsys.readouterr().out
    text = path.read_text()
    path.write_text(text.replace(tomllib.loads(text)["_server_seed"], "ab" * 32))  # a forged reveal
    assert main(["hands", "verify-shuffle", "--phh", str(path)]) == 1
    assert "shuffle FAILED" in capsys.readouterr().out


def test_verify_shuffle_of_a_players_export_proves_their_cards_and_names_a_forged_one(
    capsys, database_url, cli_table, tmp_path
):
    code, out, _ = run(capsys, database_url, "hands", "export", cli_table, "2", "--format", "phh")
    player = tomllib.loads(out)["players"][0]
    code, out, _ = run(capsys, database_url, "hands", "verify-shuffle", cli_table, "2", "--as", player)
    assert code == 0 and "server seed was not revealed" in out
    path = tmp_path / "mine.phh"
    code, _, _ = run(
        capsys, database_url, "hands", "export", cli_table, "2", "--format", "phh", "--as", player,
        "-o", str(path),
    )
    text = path.read_text()
    data = tomllib.loads(text)
    assert code == 0 and "_server_seed" not in data and data["_proofs"]
    assert main(["hands", "verify-shuffle", "--phh", str(path)]) == 0
    out = capsys.readouterr().out
    assert "shuffle OK" in out and "each proven at its dealing position" in out
    proof = data["_proofs"][-1]
    forged = dict(proof, card=(proof["card"] + 1) % 52)
    path.write_text(text.replace(_inline(proof), _inline(forged)))
    assert main(["hands", "verify-shuffle", "--phh", str(path)]) == 1
    assert f"shuffle FAILED — the proof of position {proof['position']} " in capsys.readouterr().out
    path.write_text(text.replace(proof["salt"], "zz" * 32))
    assert main(["hands", "verify-shuffle", "--phh", str(path)]) == 2
    assert f"the salt of the proof of position {proof['position']} is not hex" in capsys.readouterr().err


def _inline(proof: dict) -> str:
    """A proof as the export writes it (a TOML inline table)."""
    from stud_service.audit.phh import _toml

    return _toml(proof)


def test_unknown_hand_is_refused(capsys, database_url, cli_table):
    code, _, err = run(capsys, database_url, "hands", "show", cli_table, "99")
    assert code == 2 and "no hand 99" in err


async def _rehash_with_edit(db_pool, table_id: str) -> None:
    stream = f"tables/{table_id}"
    async with db_pool.connection() as conn:
        cursor = await conn.execute(
            "SELECT version, payload FROM events WHERE stream_id = %s ORDER BY version", (stream,)
        )
        prev = GENESIS_HASH
        for version, payload in await cursor.fetchall():
            if payload["type"] == "PlayerSeated":
                payload = {**payload, "buy_in": payload["buy_in"] + 1}
            digest = chain_hash(prev, canonical_json(payload))
            await conn.execute(
                "UPDATE events SET payload = %s::jsonb, prev_hash = %s, hash = %s"
                " WHERE stream_id = %s AND version = %s",
                (canonical_json(payload).decode(), prev, digest, stream, version),
            )
            prev = digest


@pytest.mark.parametrize("with_key", [True, False])
async def test_audit_checkpoint_then_verify(
    capsys, database_url, event_store, db_pool, tmp_path, monkeypatch, with_key
):
    if not with_key:
        monkeypatch.delenv("STUD_CHECKPOINT_KEY", raising=False)
        assert main(["audit", "checkpoint", "--database-url", database_url]) == 2
        assert "at least 32 bytes" in capsys.readouterr().err
        return
    monkeypatch.setenv("STUD_CHECKPOINT_KEY", KEY)
    table = simulate_table(f"cli-{uuid.uuid4().hex[:10]}", Variant.RAZZ, 3, seed=22)
    await store_table(event_store, table)
    path = tmp_path / "checkpoint.json"
    # The CLI runs its own event loop: call it from a worker thread, off the tests' loop.
    code = await asyncio.to_thread(
        main, ["audit", "checkpoint", "-o", str(path), "--database-url", database_url]
    )
    assert code == 0
    written = json.loads(path.read_text())
    tables, others = len(written["tables"]), len(written["streams"])
    said = re.search(r"checkpoint of ([\d,]+) streams? \(([\d,]+) tables? and ([\d,]+) other streams?: ",
                     capsys.readouterr().err)
    assert said and [int(n.replace(",", "")) for n in said.groups()] == [tables + others, tables, others]
    mine = [t for t in written["tables"] if t["table"] == table.table_id]
    assert len(mine) == 1
    # Other tests tamper with their own tables on this database: keep to this one.
    signed = await make_checkpoint(event_store, key_from(KEY), table_ids=[table.table_id])
    path.write_text(json.dumps(signed))
    code = await asyncio.to_thread(
        main, ["audit", "verify", "--checkpoint", str(path), "--database-url", database_url]
    )
    assert code == 0 and "OK: 1 stream still extends the checkpoint" in capsys.readouterr().out
    await _rehash_with_edit(db_pool, table.table_id)
    code = await asyncio.to_thread(
        main, ["audit", "verify", "--checkpoint", str(path), "--database-url", database_url]
    )
    out = capsys.readouterr().out
    assert code == 1 and f"FAIL tables/{table.table_id} version {mine[0]['version']}" in out
