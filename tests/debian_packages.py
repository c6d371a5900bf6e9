"""Debian packages the tests need (Chromium for the browser tests, dieharder for the RNG battery's smoke run):
found, or installed with apt-get first when missing and the tests run as root (CI's fresh machine);
otherwise the test fails saying what to install (never skips)."""

from __future__ import annotations

import fcntl
import os
import subprocess
import tempfile
from pathlib import Path

import pytest

APT_TIMEOUT_SECONDS = 900


def install_debian_package(package: str, path: Path) -> Path:
    """``path`` once Debian's ``package`` is installed: now, if ``path`` is missing and we are root.
    One process installs at a time (apt-get refuses a second one its lock); the others then find it."""
    if path.exists():
        return path
    if os.geteuid() != 0:
        pytest.fail(f"these tests need Debian's {package} at {path}: `sudo apt-get install -y {package}`")
    with open(Path(tempfile.gettempdir()) / f"stud-test-{package}-install.lock", "a") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if path.exists():  # installed meanwhile by the process that held the lock
            return path
        return _apt_get(package, path)


def _apt_get(package: str, path: Path) -> Path:
    env = {**os.environ, "DEBIAN_FRONTEND": "noninteractive"}
    install = ["apt-get", "install", "-y", "--no-install-recommends", package]
    for command in (["apt-get", "update"], install):
        done = subprocess.run(command, env=env, capture_output=True, text=True, timeout=APT_TIMEOUT_SECONDS,
                              check=False)
        if done.returncode != 0:
            output = (done.stdout + done.stderr)[-2000:]
            pytest.fail(f"`{' '.join(command)}` failed ({done.returncode}): {output}")
    if not path.exists():
        pytest.fail(f"apt-get installed {package}, but {path} is still missing")
    return path
