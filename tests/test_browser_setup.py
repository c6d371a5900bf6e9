"""The browser tests' set-up: Debian's Chromium is found, installed by apt-get when missing and we are root,
and otherwise named in a failure; the browser it launches is that one."""

from __future__ import annotations

import subprocess
from pathlib import Path
from typing import Any

import pytest
from browser_fixtures import CHROMIUM, install_chromium
from playwright.async_api import Browser


def test_a_present_chromium_is_used_as_it_is(chromium_path: Path) -> None:
    assert chromium_path == CHROMIUM and install_chromium(chromium_path) == CHROMIUM


def test_a_missing_chromium_is_named_in_the_failure_when_we_cannot_install_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr("os.geteuid", lambda: 1000)
    with pytest.raises(pytest.fail.Exception, match="apt-get install -y chromium"):
        install_chromium(tmp_path / "chromium")


def test_a_missing_chromium_is_installed_with_apt_get_as_root(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """apt-get itself is not run here (it would change the machine): the commands it would be given are."""
    missing = tmp_path / "chromium"
    commands: list[list[str]] = []

    def apt_get(command: list[str], **options: Any) -> subprocess.CompletedProcess[str]:
        commands.append(command)
        assert options["env"]["DEBIAN_FRONTEND"] == "noninteractive"
        if command[:2] == ["apt-get", "install"]:
            missing.write_text("#!/bin/sh\n")
        return subprocess.CompletedProcess(command, 0, "", "")

    monkeypatch.setattr("os.geteuid", lambda: 0)
    monkeypatch.setattr(subprocess, "run", apt_get)
    assert install_chromium(missing) == missing
    assert commands == [
        ["apt-get", "update"], ["apt-get", "install", "-y", "--no-install-recommends", "chromium"]
    ]


async def test_the_browser_is_debians_chromium_headless(browser: Browser) -> None:
    page = await browser.new_page()
    try:
        agent = await page.evaluate("navigator.userAgent")
    finally:
        await page.close()
    assert "HeadlessChrome" in agent
    assert browser.version.split(".")[0] == _debian_chromium_version().split(".")[0]


def _debian_chromium_version() -> str:
    done = subprocess.run([str(CHROMIUM), "--version"], capture_output=True, text=True, check=True)
    return done.stdout.split()[1]  # "Chromium 156.0.8078.114 built on Debian ..."
