"""The C core under the compiler's sanitizers: no memory error, no undefined behaviour, no data race.

csrc/check/sanitize_driver.c calls every entry point with good and bad input (including threaded
batches and enumeration). Built here with -fsanitize=address,undefined and with -fsanitize=thread;
any report makes the run fail. Needs the C compiler that building the package needs anyway.
"""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
CSRC = ROOT / "csrc"
COMPILER = os.environ.get("CC") or shutil.which("cc") or shutil.which("gcc") or shutil.which("clang")

pytestmark = pytest.mark.skipif(COMPILER is None, reason="no C compiler on PATH")


def _build_and_run(tmp_path: Path, sanitizers: str, extra_env: dict[str, str]) -> subprocess.CompletedProcess:
    binary = tmp_path / f"driver-{sanitizers.replace(',', '-')}"
    sources = sorted(str(path) for path in CSRC.glob("*.c")) + [str(CSRC / "check" / "sanitize_driver.c")]
    subprocess.run(
        [str(COMPILER), "-std=c11", "-O1", "-g", "-Wall", "-Wextra", "-Werror", "-D_POSIX_C_SOURCE=200809L",
         f"-fsanitize={sanitizers}", "-fno-sanitize-recover=all", f"-I{CSRC}", *sources, "-o", str(binary),
         "-lpthread"],
        check=True, capture_output=True, text=True,
    )
    return subprocess.run([str(binary)], capture_output=True, text=True, env={**os.environ, **extra_env},
                          timeout=120)


def test_c_core_is_clean_under_address_and_undefined_behaviour_sanitizers(tmp_path: Path) -> None:
    run = _build_and_run(tmp_path, "address,undefined", {"ASAN_OPTIONS": "detect_leaks=1"})
    assert run.returncode == 0, run.stderr


@pytest.mark.long
def test_c_core_is_clean_under_thread_sanitizer(tmp_path: Path) -> None:
    run = _build_and_run(tmp_path, "thread", {"TSAN_OPTIONS": "halt_on_error=1"})
    assert run.returncode == 0, run.stderr
