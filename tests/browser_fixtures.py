"""Fixtures for the browser tests: Debian's Chromium, driven by Playwright, headless.

``chromium_path``  /usr/bin/chromium, installed with apt-get first when it is missing and the tests run
                   as root (CI's fresh machine); otherwise the tests fail saying what to install (never skip).
``browser``        one headless Chromium for the session (Playwright's async API, in the session's loop)

Never a browser Playwright downloads: the one the machine's package manager keeps up to date.
"""

from __future__ import annotations

import fcntl
import os
import subprocess
import tempfile
from collections.abc import AsyncIterator
from pathlib import Path

import pytest
import pytest_asyncio
from playwright.async_api import Browser, async_playwright

CHROMIUM = Path("/usr/bin/chromium")
# Headless and quiet: no GPU, no sandbox (CI runs as root, where Chromium's sandbox refuses to start), and
# none of the background traffic (updates, sync, QUIC probes) a machine without a network would wait on.
# Playwright starts every launch on a fresh temporary profile (user-data-dir) and deletes it afterwards.
CHROMIUM_ARGS = (
    "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
    "--disable-background-networking", "--disable-component-update", "--disable-sync",
)
APT_TIMEOUT_SECONDS = 900
INSTALL_LOCK = Path(tempfile.gettempdir()) / "stud-test-chromium-install.lock"


def install_chromium(path: Path = CHROMIUM) -> Path:
    """``path`` once Debian's ``chromium`` package is installed: now, if it is missing and we are root.
    One process installs at a time (apt-get refuses a second one its lock); the others then find it."""
    if path.exists():
        return path
    if os.geteuid() != 0:
        pytest.fail(f"the browser tests need Debian's Chromium at {path}: `sudo apt-get install -y chromium`")
    with open(INSTALL_LOCK, "a") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if path.exists():  # installed meanwhile by the process that held the lock
            return path
        return _apt_get_chromium(path)


def _apt_get_chromium(path: Path) -> Path:
    env = {**os.environ, "DEBIAN_FRONTEND": "noninteractive"}
    install = ["apt-get", "install", "-y", "--no-install-recommends", "chromium"]
    for command in (["apt-get", "update"], install):
        done = subprocess.run(command, env=env, capture_output=True, text=True, timeout=APT_TIMEOUT_SECONDS,
                              check=False)
        if done.returncode != 0:
            output = (done.stdout + done.stderr)[-2000:]
            pytest.fail(f"`{' '.join(command)}` failed ({done.returncode}): {output}")
    if not path.exists():
        pytest.fail(f"apt-get installed chromium, but {path} is still missing")
    return path


@pytest.fixture(scope="session")
def chromium_path() -> Path:
    return install_chromium()


@pytest_asyncio.fixture(scope="session")
async def browser(chromium_path: Path) -> AsyncIterator[Browser]:
    async with async_playwright() as playwright:
        launched = await playwright.chromium.launch(
            executable_path=str(chromium_path), headless=True, args=list(CHROMIUM_ARGS)
        )
        try:
            yield launched
        finally:
            await launched.close()
