"""The settings table (docs/settings.md) is the one place every setting is listed: each ``serve`` flag has a
row, each row's flag exists, and the documented defaults are the ones ``serve`` really uses."""

from __future__ import annotations

import argparse
import re
from pathlib import Path

import pytest

from stud_service.cli import build_parser
from stud_service.observability.logging import DEFAULT_LOG_FORMAT, DEFAULT_LOG_LEVEL

SETTINGS_DOC = Path(__file__).resolve().parents[1] / "docs" / "settings.md"


def documented_rows() -> list[tuple[str | None, str, str | None]]:
    """(flag, environment variable, default) of every row of the settings table."""
    rows = []
    for line in SETTINGS_DOC.read_text().splitlines():
        cells = [cell.strip() for cell in line.strip().strip("|").split("|")]
        if len(cells) < 4 or not (env := re.fullmatch(r"`([A-Z][A-Z0-9_]*)`", cells[1])):
            continue
        flag = re.fullmatch(r"`(--[a-z0-9-]+)`", cells[0])
        default = re.match(r"`([^`]*)`", cells[2])
        rows.append((flag.group(1) if flag else None, env.group(1), default.group(1) if default else None))
    return rows


def serve_parser() -> argparse.ArgumentParser:
    parser = build_parser()
    (subparsers,) = [a for a in parser._actions if isinstance(a, argparse._SubParsersAction)]
    return subparsers.choices["serve"]


def serve_flags() -> dict[str, argparse.Action]:
    return {
        option: action
        for action in serve_parser()._actions
        for option in action.option_strings
        if option.startswith("--") and option != "--help"
    }


def test_the_table_has_rows():
    assert len(documented_rows()) >= 10


def test_every_serve_flag_is_documented_and_every_documented_flag_exists():
    documented = {flag for flag, _, _ in documented_rows() if flag}
    assert set(serve_flags()) == documented


def test_each_flag_reads_the_environment_variable_its_row_names(monkeypatch: pytest.MonkeyPatch):
    """Set every variable to a recognisable value: the flag's default must become that value."""
    values = {
        "STUD_ACCEPT_DEVELOPMENT_KEYRING": "True",
        "STUD_ACTION_CLOCK_SECONDS": "17",
        "STUD_HAND_PAUSE_SECONDS": "2.5",
        "STUD_RAKE_SWEEP_SECONDS": "12.5",
        "STUD_LIMIT_COOLING_OFF_SECONDS": "3600.0",
        "STUD_INACTIVITY_TIMEOUT_SECONDS": "600.0",
        "STUD_REALITY_CHECK_POLL_SECONDS": "2.5",
        "STUD_LEASE_SECONDS": "3.5",
        "STUD_APPEND_SPIN_US": "250",
        "STUD_MAX_WAITING_CALLS": "2500",
        "STUD_KEEPALIVE_MIN_CLIENT_PING_SECONDS": "7.5",
        "STUD_KEEPALIVE_PING_SECONDS": "45.0",
        "STUD_KEEPALIVE_TIMEOUT_SECONDS": "12.5",
        "STUD_STORE_TIMEOUT_SECONDS": "1.5",
        "STUD_UNREADY_AFTER_SECONDS": "7.5",
        "STUD_WEB_HEARTBEAT_SECONDS": "12.5",
        "STUD_WEB_HEADER_TIMEOUT_SECONDS": "2.5",
        "STUD_WEB_BODY_TIMEOUT_SECONDS": "7.5",
        "STUD_WEB_MAX_CONNECTIONS_PER_ADDRESS": "16",
        "STUD_LOG_FORMAT": "text",
        "STUD_TOKEN_LEEWAY_SECONDS": "12.5",
        "STUD_TOKEN_JWKS_MAX_AGE_SECONDS": "60.0",
        "STUD_TOKEN_JWKS_MIN_INTERVAL_SECONDS": "5.0",
        "STUD_SESSION_IDLE_SECONDS": "150.0",
    }
    for flag, env, _ in documented_rows():
        if flag:
            monkeypatch.setenv(env, values.get(env, f"value-of-{env.lower()}"))
    args = serve_parser().parse_args([])
    for flag, env, _ in documented_rows():
        if flag:
            got = getattr(args, flag.removeprefix("--").replace("-", "_"))
            assert str(got) == values.get(env, f"value-of-{env.lower()}"), flag


def test_the_documented_defaults_are_the_serve_defaults(monkeypatch: pytest.MonkeyPatch):
    for _, env, _ in documented_rows():
        monkeypatch.delenv(env, raising=False)
    args = serve_parser().parse_args([])
    checked = 0
    for flag, _, default in documented_rows():
        if not flag or default is None:
            continue
        got = getattr(args, flag.removeprefix("--").replace("-", "_"))
        if isinstance(got, int | float):
            assert got == float(default), flag
        elif got is not None:
            assert got == default, flag
        checked += 1
    assert checked >= 5
    # Left unset by serve, these take the logging setup's defaults: those must be the documented ones.
    documented = {env: default for _, env, default in documented_rows()}
    assert documented["STUD_LOG_FORMAT"] == DEFAULT_LOG_FORMAT
    assert documented["STUD_LOG_LEVEL"] == DEFAULT_LOG_LEVEL
