"""docs/clients.md and its minimal client: the client plays a hand against a real server, and the guide names
only methods, messages and fields the protos have, so neither can drift from the API unnoticed."""

from __future__ import annotations

import asyncio
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import grpc
import pytest
from google.protobuf import descriptor_pool
from grpc_fixtures import TOKEN_SECRET, free_port, table_spec, wait_for_view

import stud_service.engine as engine
from stud_service.auth import Role, mint_token
from stud_service.bots import Bot, StudClient
from stud_service.engine import config as engine_config
from stud_service.server.proto_gen import (  # noqa: F401  (events_pb2, table_pb2, ...: their types in POOL)
    cashier_service_pb2,
    errors_pb2,
    events_pb2,
    table_pb2,
    table_service_pb2,
    tournament_service_pb2,
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


NODE_CLIENT = ROOT / "examples" / "node_client.ts"
BUF_GEN = ROOT / "buf.gen.yaml"
BUF = "@bufbuild/buf@1.75.0"  # as tests/test_proto_api.py lints with
# The client's packages, at the versions the web table uses (web/package.json), and esbuild to run TypeScript.
NODE_PACKAGES = ("@bufbuild/protobuf@2.13.0", "@connectrpc/connect@2.3.0", "@connectrpc/connect-node@2.3.0",
                 "esbuild@0.28.2")
needs_node = pytest.mark.skipif(shutil.which("npx") is None or shutil.which("node") is None,
                                reason="Node and npm are not installed")


def _buf_generate(out: Path) -> Path:
    """``npx @bufbuild/buf generate -o OUT`` from the repository's root, as the guide says: OUT/gen."""
    result = subprocess.run(["npx", "--yes", BUF, "generate", "-o", str(out)], cwd=ROOT, capture_output=True,
                            text=True, timeout=300)
    assert result.returncode == 0, result.stdout + result.stderr
    return out / "gen"


def _without_descriptors(text: str) -> str:
    """Generated TypeScript without its embedded descriptors (buf and protoc order option bytes apart)."""
    return re.sub(r'fileDesc\("[^"]*"', 'fileDesc("…"', text)


@needs_node
def test_buf_gen_yaml_generates_the_api_and_google_rpc_for_typescript(tmp_path: Path) -> None:
    """The committed buf.gen.yaml, run as the guide says, writes the stud.v1 code and google/rpc's ErrorInfo:
    the same code the web table is built with (web/src/gen, by protoc with the same plugin)."""
    gen = _buf_generate(tmp_path)
    for name in ("google/rpc/error_details_pb.ts", "stud/v1/table_service_pb.ts", "stud/v1/errors_pb.ts"):
        assert (gen / name).is_file(), name
    assert "export const ErrorInfoSchema" in (gen / "google/rpc/error_details_pb.ts").read_text()
    for built in sorted((ROOT / "web" / "src" / "gen").rglob("*.ts")):
        name = built.relative_to(ROOT / "web" / "src" / "gen")
        assert _without_descriptors((gen / name).read_text()) == _without_descriptors(built.read_text()), name


@pytest.mark.long
@needs_node
async def test_the_node_client_plays_its_part_against_a_real_server(
    spawn_server, make_database, tmp_path: Path
) -> None:
    """examples/node_client.ts, with connect-node over h2c on the web port, against `stud-service serve`."""
    client = tmp_path / "client"
    _buf_generate(client)
    (client / "package.json").write_text('{"private": true, "type": "module"}\n')
    install = subprocess.run(["npm", "install", "--no-audit", "--no-fund", *NODE_PACKAGES], cwd=client,
                             capture_output=True, text=True, timeout=300)
    assert install.returncode == 0, install.stdout + install.stderr
    shutil.copyfile(NODE_CLIENT, client / NODE_CLIENT.name)
    bundle = subprocess.run(
        [str(client / "node_modules" / ".bin" / "esbuild"), NODE_CLIENT.name, "--bundle", "--platform=node",
         "--format=esm", "--target=node20", "--outfile=client.mjs", "--log-level=warning"],
        cwd=client, capture_output=True, text=True, timeout=120,
    )
    assert bundle.returncode == 0, bundle.stdout + bundle.stderr

    web_port = free_port()
    server = await spawn_server(await make_database(migrated=True), "--web-listen", f"127.0.0.1:{web_port}")
    async with grpc.aio.insecure_channel(server.address) as channel:
        await StudClient(channel, mint_token(TOKEN_SECRET, "house", Role.OPERATOR)).create_table(
            "node", table_spec())
    env = {**os.environ, "STUD_URL": f"http://127.0.0.1:{web_port}",
           "STUD_TOKEN": mint_token(TOKEN_SECRET, "ann")}
    process = await asyncio.create_subprocess_exec(
        "node", "client.mjs", cwd=client, env=env,
        stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE,
    )
    try:
        out, err = await asyncio.wait_for(process.communicate(), timeout=60)
    finally:
        if process.returncode is None:
            process.kill()
    lines = out.decode().splitlines()
    assert process.returncode == 0, err.decode()[-3000:]
    assert lines[0] == "lobby tables/node seated 0/8 open 8", lines
    assert re.fullmatch(r"view tables/node version \d+ seats 0", lines[1]), lines
    assert re.fullmatch(r"watch first message at version \d+", lines[2]), lines
    assert lines[3] == "refused NotFound NO_TABLE", lines


def test_the_guide_shows_the_node_client_as_it_is() -> None:
    """The guide's Node code is an excerpt of examples/node_client.ts, and names the generation it needs."""
    client = NODE_CLIENT.read_text()
    typescript = re.findall(r"```ts\n(.*?)```", _guide(), flags=re.S)
    blocks = [block for block in typescript if "connect-node" in block]
    assert blocks, "the guide shows no Node client"
    for block in blocks:
        assert block in client, f"this block of docs/clients.md is not in {NODE_CLIENT.name}:\n{block}"
    command = "npx @bufbuild/buf generate -o"
    assert command in _guide() and command in BUF_GEN.read_text() and command in client
    assert "buf.gen.yaml" in _guide()


def _guide() -> str:
    return GUIDE.read_text()


def test_the_readme_links_the_guide() -> None:
    assert "(docs/clients.md)" in (ROOT / "README.md").read_text()


def test_every_method_the_guide_names_exists() -> None:
    methods = {method.name for method in SERVICE.methods}
    audit = {method.name for method in POOL.FindServiceByName("stud.v1.AuditService").methods}
    cashier = {method.name for method in POOL.FindServiceByName("stud.v1.CashierService").methods}
    protection = {method.name for method in POOL.FindServiceByName("stud.v1.PlayerProtectionService").methods}
    tournaments = {method.name for method in POOL.FindServiceByName("stud.v1.TournamentService").methods}
    named = set(re.findall(r"`([A-Z][a-z][A-Za-z]*)`", _guide()))
    called = set(re.findall(r"stub\.([A-Z][A-Za-z]+)\(", _guide() + CLIENT.read_text()))
    assert called <= methods, called - methods
    built = set(re.findall(r"table_service_pb2\.([A-Z][A-Za-z]+)", _guide() + CLIENT.read_text()))
    assert built and all(hasattr(table_service_pb2, name) for name in built), built
    # Every backquoted CamelCase word is a method, a message, an enum, a known non-proto name or, where the
    # reference says how a table runs, a command of the engine.
    services = {POOL.FindServiceByName(f"stud.v1.{name}").name
                for name in ("TableService", "AuditService", "CashierService", "PlayerProtectionService",
                             "TournamentService")}
    known = methods | audit | cashier | protection | tournaments | services
    known |= {"ErrorInfo", "RetryInfo", "Status", "Timestamp", "Duration"}
    for word in named - known:
        assert _is_proto_type(word) or isinstance(getattr(engine, word, None), type), (
            f"docs/clients.md names `{word}`, which is no method, message, enum or engine command")


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
    settings = (ROOT / "docs" / "settings.md").read_text()
    for word in quoted - status_codes - constants:
        if word.startswith("STUD_"):
            assert f"`{word}`" in settings, f"docs/clients.md names {word}, not in docs/settings.md"
            continue
        if word.startswith(("ACTION_TYPE_", "VARIANT_", "STREET_", "SIT_OUT_REASON_", "WAITING_LIST_LEFT_",
                            "TABLE_STATUS_")):
            continue
        if word.startswith("MAX_"):  # a bound of a table's settings, as the engine names it
            assert hasattr(engine_config, word), f"docs/clients.md names `{word}`, not in engine/config.py"
            continue
        assert word in reasons, f"docs/clients.md names `{word}`, which is no stud.v1.ErrorReason"


def test_the_guide_shows_the_minimal_client_as_it_is() -> None:
    """Every Python block of the guide is a verbatim excerpt of examples/minimal_client.py."""
    client = CLIENT.read_text()
    blocks = re.findall(r"```python\n(.*?)```", _guide(), flags=re.S)
    assert blocks, "the guide shows no code"
    for block in blocks:
        assert block in client, f"this block of docs/clients.md is not in {CLIENT.name}:\n{block}"
