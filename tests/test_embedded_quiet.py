"""A command on the embedded PostgreSQL prints what it did and nothing of how pgserver found a directory."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path


def test_a_command_on_the_embedded_database_prints_no_runtime_dir_warning(tmp_path: Path) -> None:
    # As a service account or a container runs it: no login session, so no $XDG_RUNTIME_DIR.
    env = {name: value for name, value in os.environ.items()
           if name not in ("XDG_RUNTIME_DIR", "DATABASE_URL", "STUD_DATA_DIR", "PYTHONWARNINGS")}
    done = subprocess.run(
        [sys.executable, "-m", "stud_service.cli", "migrate", "--data-dir", str(tmp_path / "data")],
        capture_output=True, text=True, timeout=300, env=env,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    assert "applied" in done.stdout or "up to date" in done.stdout
    assert "XDG_RUNTIME_DIR" not in done.stderr and "RuntimeDirWarning" not in done.stderr, done.stderr
