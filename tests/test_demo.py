"""``stud-service demo``, as a person runs it: bots play, the books balance, and with ``--stay`` the table
plays on at the printed URL until Ctrl-C, with a token that lets a person play it; the books balance again."""

from __future__ import annotations

import json
import re
import signal
import socket
import subprocess
import sys
import time
import urllib.request
from collections.abc import Awaitable, Callable
from typing import IO

import pytest

WATCH_LINE = re.compile(
    r"^Watch it: (http://127\.0\.0\.1:\d+/)#/tables/(demo-[0-9a-f]+)\?token=(eyJ[\w-]+\.[\w-]+\.[\w-]+)$")
TOKEN_LINE = re.compile(r"^eyJ[\w-]+\.[\w-]+\.[\w-]+$")
BALANCED = "balanced to the cent"


def _lines_until(stream: IO[str], pattern: re.Pattern[str], seen: list[str], timeout: float) -> re.Match[str]:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        line = stream.readline()
        if not line:
            break
        seen.append(line.rstrip("\n"))
        matched = pattern.match(seen[-1])
        if matched:
            return matched
    raise AssertionError("the demo did not print what was expected:\n" + "\n".join(seen[-40:]))


def _post(url: str, token: str, body: dict) -> dict:
    request = urllib.request.Request(url, data=json.dumps(body).encode(), method="POST", headers={
        "authorization": f"Bearer {token}", "content-type": "application/json"})
    with urllib.request.urlopen(request, timeout=30) as response:
        return json.loads(response.read())


def _get(url: str, token: str | None = None) -> dict:
    headers = {"authorization": f"Bearer {token}"} if token else {}
    with urllib.request.urlopen(urllib.request.Request(url, headers=headers), timeout=10) as response:
        return json.loads(response.read())


@pytest.mark.long
@pytest.mark.timeout(600)  # a whole demo, then the person's hand played out on its action clock
@pytest.mark.parametrize("twice", [False, True], ids=["ctrl-c", "ctrl-c-twice"])
async def test_demo_stay_keeps_the_table_playing_at_the_printed_url_until_ctrl_c(
    make_database: Callable[..., Awaitable[str]], twice: bool,
) -> None:
    """The printed link watches alone (its spectator token), the auditor's token verifies hands, and Ctrl-C
    with the person still in a hand cashes everyone out, the person too, when that hand ends (a second Ctrl-C
    voids it), and the books balance with nothing left at the table."""
    url = await make_database(migrated=False)
    demo = subprocess.Popen(
        [sys.executable, "-m", "stud_service.cli", "demo", "--hands", "2", "--players", "3", "--stay",
         "--database-url", url, "--web-listen", "127.0.0.1:0"],
        stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
    )
    seen: list[str] = []
    try:
        assert demo.stdout is not None
        base, table_id, spectator = _lines_until(demo.stdout, WATCH_LINE, seen, timeout=120).groups()
        assert any(BALANCED in line for line in seen), "the first summary reconciles the books"
        token = _lines_until(demo.stdout, TOKEN_LINE, seen, timeout=60).group(0)
        auditor = _lines_until(demo.stdout, TOKEN_LINE, seen, timeout=60).group(0)
        lobby = _get(base + "v1/tables")
        (table,) = [t for t in lobby["tables"] if t["name"] == f"tables/{table_id}"]
        # The link's own token watches: a spectator, seated nowhere.
        watched = _get(base + f"v1/tables/{table_id}:view", spectator)
        assert len(watched["seats"]) == 3 and "viewerSeat" not in watched
        # The auditor's token verifies the hands played before.
        assert _get(base + f"v1/tables/{table_id}/hands/1:verify", auditor)["passed"] is True
        # The bots sat down again; the person's token is a player's, seated nowhere yet, with money to buy in.
        view = _get(base + f"v1/tables/{table_id}:view", token)
        assert len(view["seats"]) == 3 and "viewerSeat" not in view
        assert int(table.get("version", "0")) > 0
        waiting = time.monotonic()
        while int(_get(base + f"v1/tables/{table_id}")["version"]) <= int(table["version"]):
            assert time.monotonic() - waiting < 60, "the bots stopped playing"  # they play on, slowly
            time.sleep(0.5)
        # The person takes the free seat and is dealt in; Ctrl-C while that hand runs and they never act.
        _post(base + f"v1/tables/{table_id}:sitDown", token, {"seat": 8, "buyIn": "2000"})
        waiting = time.monotonic()
        while not any(seat["seat"] == 8 and seat.get("inHand") for seat in
                      _get(base + f"v1/tables/{table_id}:view", token)["seats"]):
            assert time.monotonic() - waiting < 90, "the person was not dealt in"
            time.sleep(0.2)
        demo.send_signal(signal.SIGINT)
        if twice:  # the person never acts: their hand is still in play
            _lines_until(demo.stdout, re.compile(r"^Stopping: "), seen, timeout=60)
            demo.send_signal(signal.SIGINT)
        rest, _ = demo.communicate(timeout=300)
        seen += rest.splitlines()
    finally:
        if demo.poll() is None:
            demo.kill()
            demo.wait()
    assert demo.returncode == 0, "\n".join(seen[-40:])
    assert not any("Traceback" in line or "TimeoutError" in line for line in seen), "\n".join(seen[-40:])
    assert sum(BALANCED in line for line in seen) == 2, "the books balance again after Ctrl-C"
    assert any("players/you/accounts/USD" in line for line in seen)
    final = [line for line in seen if line.startswith("Reconciliation (auditor)")][-1]
    assert "+ at tables $0 +" in final, "everyone, the person too, is cashed out: " + final
    assert "still seated" not in "\n".join(seen)
    assert any(line.startswith("Voiding the hand in play") for line in seen) == twice


async def test_demo_without_stay_ends_on_its_own_and_says_how_to_stay(
    make_database: Callable[..., Awaitable[str]],
) -> None:
    url = await make_database(migrated=False)
    done = subprocess.run(
        [sys.executable, "-m", "stud_service.cli", "demo", "--hands", "1", "--players", "2",
         "--database-url", url, "--web-listen", "127.0.0.1:0"],
        capture_output=True, text=True, timeout=180,
    )
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    assert BALANCED in done.stdout
    assert "stud-service demo --stay" in done.stdout
    assert ": Seven Card Stud $2/$4, ante $0.50, bring-in $1, raked 5%" in done.stdout


async def test_the_demo_books_read_an_unraked_house_as_nothing_taken(
    make_database: Callable[..., Awaitable[str]], capsys
) -> None:
    """Every hand may end on third street, before any rake: the house has no account yet, and the summary
    says $0 rather than failing on NOT_FOUND."""
    from grpc_fixtures import service_under_test

    from stud_service.auth import Role
    from stud_service.commands.demo import DEPOSIT, _books
    from stud_service.server.tables.settings import RuntimeSettings

    url = await make_database(migrated=True)
    async with service_under_test(url, RuntimeSettings()) as served:
        operator = served.client("house", Role.OPERATOR)
        await operator.deposit("alice", DEPOSIT, reference="demo-books-alice")
        assert await _books(operator, served.client("inspector", Role.AUDITOR), ("alice",)) == 0
    printed = capsys.readouterr().out
    assert "house/accounts/USD" in printed and "$0  (the rake)" in printed
    assert BALANCED in printed


def test_demo_serves_the_web_table_on_a_free_port_when_its_own_is_taken(tmp_path) -> None:
    """The demo's help promises a free port when its default one is taken (a second demo, anything else on
    8080): with the embedded PostgreSQL, a first try that failed on the web port must not leave the second
    one a database that was just stopped."""
    from stud_service.commands.demo import DEMO_WEB_LISTEN
    from stud_service.server.web.server import parse_listen

    host, port = parse_listen(DEMO_WEB_LISTEN)
    holder = socket.socket(socket.AF_INET6 if ":" in host else socket.AF_INET, socket.SOCK_STREAM)
    try:
        holder.bind((host, port))
        holder.listen()
    except OSError:
        pass  # something else holds it already: taken all the same
    try:
        done = subprocess.run(
            [sys.executable, "-m", "stud_service.cli", "demo", "--hands", "1", "--players", "2",
             "--data-dir", str(tmp_path / "demo-data")],
            capture_output=True, text=True, timeout=300,
        )
    finally:
        holder.close()
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    served = re.search(r"the web table on http://127\.0\.0\.1:(\d+)/", done.stdout)
    assert served is not None and int(served.group(1)) not in (0, port), done.stdout[-3000:]
    assert BALANCED in done.stdout


async def test_the_demo_mints_tokens_its_service_accepts_and_renews_the_bots_while_it_stays(
    monkeypatch,
) -> None:
    """Every role's token is within the default --max-token-lifetime (the demo's service keeps the default);
    with --stay the table may play for days, so the bots get new tokens before theirs expire."""
    import asyncio

    import grpc

    from stud_service.auth import DEFAULT_MAX_LIFETIMES, Role, TokenSettings, TokenVerifier
    from stud_service.bots import Bot, StudClient
    from stud_service.commands import demo
    from stud_service.dev_keys import SigningKey
    from stud_service.jwks import JwksKeys

    key = SigningKey.generate()
    verifier = TokenVerifier(TokenSettings(jwks=JwksKeys.fixed(key.jwks()), issuer=demo.DEMO_ISSUER,
                                           audience=demo.DEMO_AUDIENCE))
    for role in Role:
        assert verifier.verify(demo._token(key, "ann", role)).role is role
    assert DEFAULT_MAX_LIFETIMES.player > demo.RENEW_TOKENS_SECONDS
    monkeypatch.setattr(demo, "RENEW_TOKENS_SECONDS", 0.05)
    async with grpc.aio.insecure_channel("127.0.0.1:9") as channel:  # never called: tokens only
        bot = Bot(StudClient(channel, "old"), "t", 1)
        stop = asyncio.Event()
        renewing = asyncio.ensure_future(demo._renew_tokens(key, [(bot, "ann")], stop))
        deadline = time.monotonic() + 30
        while bot.client.metadata == (("authorization", "Bearer old"),) and time.monotonic() < deadline:
            await asyncio.sleep(0.02)
        stop.set()
        await asyncio.wait_for(renewing, 30)
    token = bot.client.metadata[0][1].removeprefix("Bearer ")
    assert verifier.verify(token).player_id == "ann"


@pytest.mark.long
@pytest.mark.timeout(660)  # the demo's own bound is 600 s: its tournament plays one-minute levels to the end
async def test_demo_tournament_plays_a_sit_and_go_of_bots_to_the_end_and_reconciles(
    make_database: Callable[..., Awaitable[str]],
) -> None:
    url = await make_database(migrated=False)
    done = subprocess.run(
        [sys.executable, "-m", "stud_service.cli", "demo", "--tournament", "--seed", "1",
         "--database-url", url, "--web-listen", "127.0.0.1:0"],
        capture_output=True, text=True, timeout=600,
    )
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    out = done.stdout
    assert "━━ Finished in" in out
    assert re.search(r"^\s+1\. \w+ +\$\d+(\.\d\d)?$", out, re.MULTILINE), out  # the winner and their prize
    assert BALANCED in out and "prize pools $0 + fees $6" in out
    assert re.search(r"Audit of the tournament: \d+ events and \d+ hands verified\.", out), out


async def test_demo_mixed_plays_the_rotation_through_all_three_games_and_says_where_it_changed(
    make_database: Callable[..., Awaitable[str]],
) -> None:
    """RULES.md §13: ``--mixed`` plays Razz, Seven Card Stud and Stud Hi-Lo in turn, one hand each here, and
    back to Razz; each hand's header names its game, and the demo prints each change as it comes and in the
    summary."""
    url = await make_database(migrated=False)
    done = subprocess.run(
        [sys.executable, "-m", "stud_service.cli", "demo", "--mixed", "--hands-per-game", "1",
         "--players", "2", "--database-url", url, "--web-listen", "127.0.0.1:0"],
        capture_output=True, text=True, timeout=180,
    )
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    out = done.stdout
    assert ": Mixed games, Razz, Seven Card Stud, Stud Hi-Lo in turn, 1 hand each, $2/$4" in out
    headers = re.findall(r"━━ Hand #(\d) · ([^·]+) ·", out)
    assert [(int(hand), game.strip()) for hand, game in headers] == [
        (1, "Razz"), (2, "Seven Card Stud"), (3, "Stud Hi-Lo"), (4, "Razz")]
    assert "▶▶ The game changes: Seven Card Stud from hand #2, for 1 hand" in out
    assert ("The game changed: after hand #1 to Seven Card Stud; after hand #2 to Stud Hi-Lo;"
            " after hand #3 to Razz") in out
    assert BALANCED in out
