"""The garbage collector's settings of a serving process (``--gc-thresholds``): parsed strictly, applied
by the service host once it has started (what startup made frozen out of later collections), and left
alone when asked for Python's own."""

from __future__ import annotations

import gc
from collections.abc import Awaitable, Callable, Iterator

import pytest
from test_k8s_settings_doc import serve_parser

from stud_service.bots.client import wait_until_serving
from stud_service.commands.serve import run
from stud_service.server.collector import DEFAULT_THRESHOLDS, parse_thresholds
from stud_service.server.host import ServiceHost, ServiceOptions

TOKEN_SECRET = "collector-tests-secret-0123456789abcdef"


@pytest.fixture
def collector_restored() -> Iterator[None]:
    """The test process's thresholds as they were before, whatever the test set. What a test froze stays
    frozen: unfreezing would let a later collection finalize a stopped server's gRPC objects out of turn."""
    thresholds = gc.get_threshold()
    try:
        yield
    finally:
        gc.set_threshold(*thresholds)


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


async def _served(options: ServiceOptions) -> tuple[tuple[int, int, int], int]:
    """The collector's thresholds and frozen-object count while a host with ``options`` serves calls."""
    async with ServiceHost(options) as host:
        await wait_until_serving(f"127.0.0.1:{host.port}", timeout=30)
        return gc.get_threshold(), gc.get_freeze_count()


async def test_the_host_sets_the_thresholds_and_freezes_startup_once_started(
    make_database: Callable[..., Awaitable[str]], collector_restored: None
):
    options = ServiceOptions(token_secret=TOKEN_SECRET, database_url=await make_database(migrated=False),
                             listen="127.0.0.1:0", pool_size=2, gc_thresholds=(12_345, 11, 99))
    before = gc.get_freeze_count()
    thresholds, frozen = await _served(options)
    assert thresholds == (12_345, 11, 99)
    assert frozen > before + 1_000  # the modules, classes and server objects startup made


async def test_without_thresholds_the_host_leaves_the_collector_alone(
    make_database: Callable[..., Awaitable[str]], collector_restored: None
):
    before, frozen_before = gc.get_threshold(), gc.get_freeze_count()
    options = ServiceOptions(token_secret=TOKEN_SECRET, database_url=await make_database(migrated=False),
                             listen="127.0.0.1:0", pool_size=2)
    thresholds, frozen = await _served(options)
    assert thresholds == before
    assert frozen <= frozen_before  # nothing more frozen (frozen objects freed by their count go)
