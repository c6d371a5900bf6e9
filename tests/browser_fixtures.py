"""Fixtures for the browser tests: Debian's Chromium, driven by Playwright, headless.

``chromium_path``  /usr/bin/chromium, installed with apt-get first when it is missing and the tests run
                   as root (CI's fresh machine); otherwise the tests fail saying what to install (never skip).
``browser``        one headless Chromium for the session (Playwright's async API, in the session's loop)

Never a browser Playwright downloads: the one the machine's package manager keeps up to date.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path

import pytest
import pytest_asyncio
from debian_packages import install_debian_package
from playwright.async_api import Browser, async_playwright

CHROMIUM = Path("/usr/bin/chromium")
# Headless and quiet: no GPU, no sandbox (CI runs as root, where Chromium's sandbox refuses to start), and
# none of the background traffic (updates, sync, QUIC probes) a machine without a network would wait on.
# Playwright starts every launch on a fresh temporary profile (user-data-dir) and deletes it afterwards.
CHROMIUM_ARGS = (
    "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
    "--disable-background-networking", "--disable-component-update", "--disable-sync",
)


def install_chromium(path: Path = CHROMIUM) -> Path:
    """``path`` once Debian's ``chromium`` package is installed (``debian_packages``)."""
    return install_debian_package("chromium", path)


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
