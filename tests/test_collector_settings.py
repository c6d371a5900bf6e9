"""The garbage collector's settings of a serving process (``--gc-thresholds``): parsed strictly, applied
by the service host once it has started (what startup made frozen out of later collections), and left
alone when asked for Python's own."""

from __future__ import annotations

import asyncio
import gc
import json
import subprocess
import sys
from collections.abc import Awaitable, Callable
from typing import Any

import pytest
from test_k8s_settings_doc import serve_parser

from stud_service.commands.serve import run
from stud_service.server.collector import DEFAULT_THRESHOLDS, parse_thresholds

TOKEN_SECRET = "collector-tests-secret-0123456789abcdef"


@pytest.mark.parametrize(
    ("text", "expected"),
    [("10000,10,100", (10_000, 10, 100)), (" 700, 10 ,10 ", (700, 10, 10)), ("python", None),
     ("Python", None), ("off", None)],
)
def test_thresholds_parse(text: str, expected: tuple[int, int, int] | None):
    assert parse_thresholds(text) == expected


@pytest.mark.parametrize("text", ["10000,10", "1,2,3,4", "0,10,10", "-5,10,10", "a,b,c", "10000;10;100"])
def test_bad_thresholds_are_refused(text: str):
    with pytest.raises(ValueError, match="--gc-thresholds"):
        parse_thresholds(text)


def test_serve_tunes_the_collector_by_default(monkeypatch: pytest.MonkeyPatch):
    monkeypatch.delenv("STUD_GC_THRESHOLDS", raising=False)
    args = serve_parser().parse_args([])
    assert parse_thresholds(args.gc_thresholds) == DEFAULT_THRESHOLDS != gc.get_threshold()


def test_serve_refuses_bad_thresholds_before_starting(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
):
    monkeypatch.setenv("STUD_TOKEN_SECRET", TOKEN_SECRET)
    args = serve_parser().parse_args(["--gc-thresholds", "10,0,10", "--token-hs256", "on"])
    assert run(args) == 2
    assert "--gc-thresholds" in capsys.readouterr().err


# A host in a process of its own: freezing the test process's objects would keep whatever later tests leave
# in cycles (connections, servers) from ever being collected.
_SERVED = """
import asyncio, gc, json, sys
from stud_service.bots.client import wait_until_serving
from stud_service.server.host import ServiceHost, ServiceOptions

async def main():
    thresholds = json.loads(sys.argv[2])
    options = ServiceOptions(token_secret=sys.argv[3], database_url=sys.argv[1], listen="127.0.0.1:0",
                             pool_size=2, gc_thresholds=tuple(thresholds) if thresholds else None)
    before = gc.get_threshold(), gc.get_freeze_count()
    async with ServiceHost(options) as host:
        await wait_until_serving(f"127.0.0.1:{host.port}", timeout=30)
        print(json.dumps({"before": before, "serving": [gc.get_threshold(), gc.get_freeze_count()]}))

asyncio.run(main())
"""


def _served(url: str, thresholds: tuple[int, int, int] | None) -> dict[str, list[Any]]:
    """The collector's thresholds and frozen-object count before a host starts and while it serves."""
    done = subprocess.run([sys.executable, "-c", _SERVED, url, json.dumps(thresholds), TOKEN_SECRET],
                          capture_output=True, text=True, timeout=120, check=True)
    return json.loads(done.stdout.strip().splitlines()[-1])


async def test_the_host_sets_the_thresholds_and_freezes_startup_once_started(
    make_database: Callable[..., Awaitable[str]],
):
    seen = await asyncio.to_thread(_served, await make_database(migrated=False), (12_345, 11, 99))
    assert seen["serving"][0] == [12_345, 11, 99]
    assert seen["before"][1] == 0
    assert seen["serving"][1] > 1_000  # the modules, classes and server objects startup made


async def test_without_thresholds_the_host_leaves_the_collector_alone(
    make_database: Callable[..., Awaitable[str]],
):
    seen = await asyncio.to_thread(_served, await make_database(migrated=False), None)
    assert seen["serving"] == [list(gc.get_threshold()), 0] == [seen["before"][0], seen["before"][1]]
