"""Run a command with a CPU hog of its own beside it: the test suite on a busy machine (``make test-loaded``).

    python scripts/cpu_hog.py [--cores 1] [--max-minutes 60] -- .venv/bin/pytest [args...]

Each hog is a process spinning on one core. It stops when the command ends, after ``--max-minutes``
whatever happens, or as soon as this script is gone (killed, not only ended), so none is left behind.
The exit status is the command's.
"""

from __future__ import annotations

import argparse
import multiprocessing
import os
import subprocess
import sys
import time

SPINS_BETWEEN_CHECKS = 200_000  # a few milliseconds of work between looks at the clock and the parent


def spin(until: float, parent: int) -> None:
    """Keep one core busy until the monotonic time ``until``, or until ``parent`` is no longer ours."""
    while time.monotonic() < until and os.getppid() == parent:
        for _ in range(SPINS_BETWEEN_CHECKS):
            pass


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--cores", type=int, default=1, help="cores to keep busy (default 1)")
    parser.add_argument("--max-minutes", type=float, default=60.0, help="the hogs stop by then at the latest")
    parser.add_argument("command", nargs=argparse.REMAINDER, help="the command to run, after --")
    args = parser.parse_args(argv)
    command = args.command[1:] if args.command[:1] == ["--"] else args.command
    if not command or args.cores < 1 or args.max_minutes <= 0:
        parser.error("give a command after --, at least one core and a positive --max-minutes")
    until = time.monotonic() + args.max_minutes * 60
    hogs = [
        multiprocessing.Process(target=spin, args=(until, os.getpid()), name=f"cpu-hog-{n}", daemon=True)
        for n in range(args.cores)
    ]
    for hog in hogs:
        hog.start()
    busy = f"{args.cores} core(s) busy for at most {args.max_minutes:g} min"
    print(f"cpu_hog: {busy} beside: {' '.join(command)}", flush=True)
    try:
        return subprocess.call(command)
    finally:
        for hog in hogs:
            hog.terminate()
        for hog in hogs:
            hog.join(10)


if __name__ == "__main__":
    sys.exit(main())
