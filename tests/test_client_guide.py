"""docs/clients.md and its minimal client: the client plays a hand against a real server, and the guide names
only methods, messages and fields the protos have, so neither can drift from the API unnoticed."""

from __future__ import annotations

import asyncio
import re
import sys
from pathlib import Path

import grpc
from google.protobuf import descriptor_pool
from grpc_fixtures import TOKEN_SECRET, table_spec, wait_for_view

from stud_service.auth import Role, mint_token
from stud_service.bots import Bot, StudClient
from stud_service.server.proto_gen import (  # noqa: F401  (events_pb2, table_pb2: their types in POOL)
    errors_pb2,
    events_pb2,
    table_pb2,
    table_service_pb2,
)

ROOT = Path(__file__).resolve().parent.parent
GUIDE = ROOT / "docs" / "clients.md"
CLIENT = ROOT / "examples" / "minimal_client.py"
POOL = descriptor_pool.Default()
SERVICE = POOL.FindServiceByName("stud.v1.TableService")


async def test_the_minimal_client_plays_a_hand_and_leaves(spawn_server, make_database) -> None:
    """`stud-service serve` on a fresh database with one table, bob (a bot) seated: the client must find the
    table in the lobby itself, sit down, play a hand with bob and leave."""
    server = await spawn_server(await make_database(migrated=True))
    async with grpc.aio.insecure_channel(server.address) as channel:
        operator = StudClient(channel, mint_token(TOKEN_SECRET, "house", Role.OPERATOR))
        await operator.create_table("guide", table_spec())
        name = "tables/guide"
        bob = Bot(StudClient(channel, mint_token(TOKEN_SECRET, "bob")), "guide", 2, seed=5)
        await bob.sit(10_000)
        token = mint_token(TOKEN_SECRET, "carol", Role.PLAYER)
        process = await asyncio.create_subprocess_exec(
            *(sys.executable, str(CLIENT), "--target", server.address, "--token", token),
            cwd=ROOT,
            stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.PIPE,
        )
        bob_plays = asyncio.ensure_future(bob.run(hands=1000))
        try:
            out, err = await asyncio.wait_for(process.communicate(), timeout=60)
        finally:
            bob_plays.cancel()
            if process.returncode is None:
                process.kill()
        output = out.decode()
        assert process.returncode == 0, err.decode()[-3000:]
        lines = output.splitlines()
        assert f"lobby {name} VARIANT_SEVEN_CARD_STUD 200/400 seated 1/8 open 7 waiting 0" in lines, output
        assert f"seated {name} seat 1 buy-in 2000" in lines, output
        acted = r"acted ACTION_TYPE_(CHECK|CALL|BRING_IN) \d+"
        assert any(re.fullmatch(acted, line) for line in lines), output
        assert any(re.fullmatch(r"hand \d+ ended, stack \d+", line) for line in lines), output
        assert lines[-1] == f"left {name}", output
        # The server agrees: carol has left, at once or when the hand she was dealt into next has ended.
        spectator = StudClient(channel, mint_token(TOKEN_SECRET, "spectator"))
        view = await wait_for_view(spectator, "guide", lambda v: all(s.player_id != "carol" for s in v.seats))
        assert view.hand.hand_number >= 1


def _guide() -> str:
    return GUIDE.read_text()


def test_the_readme_links_the_guide() -> None:
    assert "(docs/clients.md)" in (ROOT / "README.md").read_text()


def test_every_method_the_guide_names_exists() -> None:
    methods = {method.name for method in SERVICE.methods}
    audit = {method.name for method in POOL.FindServiceByName("stud.v1.AuditService").methods}
    named = set(re.findall(r"`([A-Z][a-z][A-Za-z]*)`", _guide()))
    called = set(re.findall(r"stub\.([A-Z][A-Za-z]+)\(", _guide() + CLIENT.read_text()))
    assert called <= methods, called - methods
    built = set(re.findall(r"table_service_pb2\.([A-Z][A-Za-z]+)", _guide() + CLIENT.read_text()))
    assert built and all(hasattr(table_service_pb2, name) for name in built), built
    # Every backquoted CamelCase word is a method, a message, an enum or a known non-proto name.
    known = methods | audit | {"ErrorInfo", "RetryInfo", "Status", "Timestamp", "Duration"}
    for word in named - known:
        assert _is_proto_type(word), f"docs/clients.md names `{word}`, which is no method, message or enum"


def _is_proto_type(word: str) -> bool:
    for kind in (POOL.FindMessageTypeByName, POOL.FindEnumTypeByName):
        try:
            kind(f"stud.v1.{word}")
        except KeyError:
            continue
        return True
    return False


def test_every_field_and_reason_the_guide_names_exists() -> None:
    text = _guide()
    # `Message.field` references, e.g. `TableView.legal_actions`, `ActRequest.turn`.
    for message, field in re.findall(r"`([A-Z][A-Za-z]+)\.([a-z_]+)`", text):
        if message in {"ErrorInfo", "RetryInfo"}:
            continue
        descriptor = POOL.FindMessageTypeByName(f"stud.v1.{message}")
        assert field in descriptor.fields_by_name, f"{message} has no field {field}"
    reasons = set(errors_pb2.ErrorReason.keys())
    quoted = set(re.findall(r"`([A-Z][A-Z_]{3,})`", text))
    status_codes = {code.name for code in grpc.StatusCode}
    constants = set(re.findall(r"^([A-Z][A-Z_]+) = ", CLIENT.read_text(), flags=re.M))
    readme = (ROOT / "README.md").read_text()
    for word in quoted - status_codes - constants:
        if word.startswith("STUD_"):
            assert f"`{word}`" in readme, f"docs/clients.md names the setting {word}, which the README lacks"
            continue
        if word.startswith(("ACTION_TYPE_", "VARIANT_", "STREET_", "SIT_OUT_REASON_", "WAITING_LIST_LEFT_")):
            continue
        assert word in reasons, f"docs/clients.md names `{word}`, which is no stud.v1.ErrorReason"


def test_the_guide_shows_the_minimal_client_as_it_is() -> None:
    """Every Python block of the guide is a verbatim excerpt of examples/minimal_client.py."""
    client = CLIENT.read_text()
    blocks = re.findall(r"```python\n(.*?)```", _guide(), flags=re.S)
    assert blocks, "the guide shows no code"
    for block in blocks:
        assert block in client, f"this block of docs/clients.md is not in {CLIENT.name}:\n{block}"
