"""Server CPU per action with 1, 2 and 3 replicas on one database, and an idle replica beside a busy one.

Tables are owned by one replica at a time, and ownership follows the clients (docs/deployment.md
"Ownership"). This measures what that buys:

1. The same load (``--tables`` tables, three bots each, as in ``bench_service.py``) spread over N replicas,
   each replica's bots playing its share of the tables through it; the total server CPU of all replicas
   per action, for N = 1, 2, 3. Goal: at 3 replicas within 1.15x of 1 replica. Each table is claimed by the
   replica its bots play through, so it is owned there and no replica follows another's tables; what an
   extra replica still costs is its own group commits being smaller (fewer tables per batch).
2. Two replicas, every bot playing through A; B has no clients. B's CPU per action against A's. A's clients
   claim every table, so B owns, loads and follows none of them: its cost is its lease rounds.

``--append-spin-us`` sets every replica's ``--append-spin-us`` (default: the serve default, 1000 µs; the
k8s configmap sets 0); the run prints which.

Run: ``.venv/bin/python benchmarks/bench_replicas.py [--seconds 10] [--tables 8]`` (``DATABASE_URL`` as for
``bench_service.py``).
"""

from __future__ import annotations

import argparse
import asyncio
import sys
import threading
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import headline  # noqa: E402  (benchmarks/headline.py)
from bench_service import SERVE_OPTIONS, Database, LoadResult, Server, cpu_seconds, play  # noqa: E402

SETTLE_SECONDS = 3.0  # after the tables exist: the replicas' lease rounds share them out


def replica(url: str, spin_us: int | None) -> Server:
    """One ``serve`` replica on ``url``; ``spin_us``: its ``--append-spin-us`` (None: the default)."""
    spin = [] if spin_us is None else ["--append-spin-us", str(spin_us)]
    return Server(["-m", "stud_service.cli", "serve", "--database-url", url, *SERVE_OPTIONS, *spin])


def spread(
    replicas: int, tables: int, seconds: float, db: Database, spin_us: int | None
) -> tuple[list[LoadResult], list[float]]:
    """``tables`` tables over ``replicas`` fresh replicas on one fresh database; each replica's share of the
    bots plays through it. Every load's result, and each replica's CPU seconds over the whole window."""
    url = db.another()
    servers = [replica(url, spin_us) for _ in range(replicas)]
    try:
        for server in servers:
            asyncio.run(server.wait_ready())
        shares = [tables // replicas + (1 if i < tables % replicas else 0) for i in range(replicas)]
        results: list[LoadResult | None] = [None] * replicas
        before = [cpu_seconds(server.process.pid) for server in servers]

        def one(index: int) -> None:
            server = servers[index]
            results[index] = play(server.port, shares[index], seconds, server.process.pid)

        threads = [threading.Thread(target=one, args=(i,)) for i in range(replicas) if shares[i]]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        cpu = [cpu_seconds(server.process.pid) - start for server, start in zip(servers, before, strict=True)]
        return [r for r in results if r is not None], cpu
    finally:
        for server in servers:
            server.stop()


def idle_beside_busy(
    tables: int, seconds: float, db: Database, spin_us: int | None
) -> tuple[LoadResult, float, float]:
    """Two replicas; every bot plays through A. A's result, and A's and B's CPU seconds in A's window."""
    url = db.another()
    busy, idle = replica(url, spin_us), replica(url, spin_us)
    try:
        asyncio.run(busy.wait_ready())
        asyncio.run(idle.wait_ready())
        time.sleep(SETTLE_SECONDS)
        idle_before = cpu_seconds(idle.process.pid)
        result = play(busy.port, tables, seconds, busy.process.pid)
        # play() measures A over its window; B is read over the whole run (setup included: an upper bound).
        return result, result.server_cpu, cpu_seconds(idle.process.pid) - idle_before
    finally:
        busy.stop()
        idle.stop()


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=int, default=10)
    parser.add_argument("--tables", type=int, default=8)
    parser.add_argument("--replicas", type=int, nargs="+", default=[1, 2, 3])
    parser.add_argument(
        "--append-spin-us", type=int, default=None,
        help="every replica's --append-spin-us (default: the serve default, 1000; the k8s configmap sets 0)",
    )
    args = parser.parse_args()
    db = Database()
    db.start()
    spin = "the serve default" if args.append_spin_us is None else f"{args.append_spin_us} µs"
    print(f"append spin: {spin}")
    try:
        per_action: dict[int, float] = {}
        for replicas in args.replicas:
            results, cpu = spread(replicas, args.tables, args.seconds, db, args.append_spin_us)
            actions = sum(r.actions for r in results)
            measured_cpu = sum(r.server_cpu for r in results)  # each replica over its own load's window
            per_action[replicas] = measured_cpu / max(actions, 1) * 1000
            rate = sum(r.rate for r in results)
            print(
                f"{replicas} replica(s), {args.tables} tables: {rate:.0f} actions/s, server CPU"
                f" {per_action[replicas]:.2f} ms/action in the window (each replica:"
                f" {', '.join(f'{r.server_cpu / max(r.actions, 1) * 1000:.2f}' for r in results)});"
                f" whole run {sum(cpu):.1f} s CPU over {actions} actions"
            )
        if 1 in per_action:
            for replicas, value in per_action.items():
                ratio = value / per_action[1]
                print(f"  {replicas} replica(s): {ratio:.2f}x of 1 replica (goal at 3: <= 1.15x)")
        result, busy_cpu, idle_cpu = idle_beside_busy(args.tables, args.seconds, db, args.append_spin_us)
        actions = max(result.actions, 1)
        print(
            f"idle replica beside a busy one, {args.tables} tables, bots through A only: A"
            f" {busy_cpu / actions * 1000:.2f} ms/action, B {idle_cpu / actions * 1000:.3f} ms/action"
            f" ({idle_cpu / max(busy_cpu, 1e-9):.1%} of A; goal < 5%)"
        )
    finally:
        db.stop()
    most = max(per_action)
    if 1 in per_action and most > 1:
        headline.record(
            __file__,
            what=f"total server CPU per action, {args.tables} money tables, the same bots spread over {most}"
                 " replicas on one database (each table owned where its bots play)",
            figure=f"{per_action[most]:.2f} ms per action at {most} replicas",
            peer=f"1 replica, same run: {per_action[1]:.2f} ms; an idle replica beside a busy one:"
                 f" {idle_cpu / max(busy_cpu, 1e-9):.1%} of its CPU",
            ratio=f"{per_action[most] / per_action[1]:.2f}× at {most}",
            goal=f"≤ 1.15× at {most}; idle < 5 %",
            met=per_action[most] <= 1.15 * per_action[1] and idle_cpu < 0.05 * busy_cpu,
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
