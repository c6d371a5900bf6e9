"""Event log throughput, measured side by side in the same run against the machine's own limits.

1. Appends: single-event commands per second with 1, 8 and 32 writers, each on its own stream
   (``EventStore.append`` with its defaults, as the service runs it: expected-version check,
   request-id bookkeeping, hash chain, durable commit waited for by spinning up to 1 ms, NOTIFY).
   The peer is pgbench, PostgreSQL's own benchmark, on the same server at the same concurrency,
   running one single-row INSERT of a similar JSON event per transaction (custom script, prepared
   statements). pgbench runs its clients on ``-j 2`` threads; our side is shown both from one
   process (the service's shape: one event loop) and, to match pgbench's threads, from two
   processes sharing the writers (each with its own pool and EventStore; their rates added). Also
   shown at 8 writers: the designs we did not take (group commit through a function running a
   statement per command; no group commit, with each append's NOTIFY after its commit or inside
   its transaction, where PostgreSQL's notify lock serialises the commits), and a minimal client
   batching the same way into pgbench's own table with no chain, head or request id: what batching
   from Python costs alone.
2. Replay: one 100,000-event stream of real game events (a simulated table) read back and folded
   with the engine (``replay_table``), in events per second, 5 runs alternating with the replay of
   an earlier commit (``REPLAY_BASELINE``: its codec, reads and fold loaded from git beside ours,
   with today's engine); beside it, the raw read of the same rows without decoding and the
   in-memory decode + fold, the two halves' own ceilings. Then the load of 100 tables of 20 hands
   at once, each snapshotted at its last hand but one (``load_table``, as a takeover or a restart
   loads them), against the same tables folded from their first event.
3. Multi-stream appends (``--only multi``): (a) single-stream appends per second of this build
   against the append path of an earlier commit (``--baseline``, default the one before
   ``append_all``: its ``_writer`` and ``eventlog`` loaded beside ours from git), runs alternating
   in the same process, ``--rounds`` of each (short ``--seconds`` runs keep both under the same
   load on a shared host), and the client time per append of both with the statements not sent;
   (b) buy-in + leave cycles per second, each cycle two commands of a table event and an account
   event appended together (``append_all``), against the same cycles with the table events alone.

Run: ``.venv/bin/python benchmarks/bench_store.py [--seconds S] [--database-url URL]``
Without a URL it starts an embedded PostgreSQL in a temporary directory (fsync on, as in service).
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import multiprocessing
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
import types
import uuid
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import headline  # noqa: E402  (benchmarks/headline.py: the script's own folder is on sys.path)
import psycopg  # noqa: E402
from psycopg.conninfo import make_conninfo  # noqa: E402

from stud_service.db import EmbeddedPostgres, open_pool  # noqa: E402
from stud_service.store import EventStore, StreamAppend, apply_migrations, canonical_json  # noqa: E402

EVENT = {
    "type": "PlayerActed", "v": 1, "hand": 17, "seat": 3, "player_id": "player-0003",
    "action": "RAISE", "amount": 800, "street": 4, "now_ms": 1764475200000,
}
REPLAY_EVENTS = 100_000
BASELINE = "6169320"  # the last commit before EventStore.append_all
REPLAY_BASELINE = "5d3ec31"  # the last commit before the compiled codec and the one-row pages
# A buy-in and a leave as the money model writes them: the table's event and the account's entry.
SEATED = {"type": "PlayerSeated", "v": 1, "seat": 3, "player_id": "player-0003", "buy_in": 20000,
          "now_ms": 1764475200000}
DEBITED = {"type": "BuyInDebited", "v": 1, "table_id": "bench", "table_version": 1, "amount": 20000,
           "top_up": False, "balance": 80000, "at_ms": 1764475200000}
LEFT = {"type": "PlayerLeft", "v": 1, "seat": 3, "player_id": "player-0003", "cash_out": 20000,
        "now_ms": 1764475200000}
CREDITED = {"type": "CashOutCredited", "v": 1, "table_id": "bench", "table_version": 2, "amount": 20000,
            "balance": 100000, "at_ms": 1764475200000}
PGBENCH_THREADS = 2  # pgbench -j; our multi-process figures use as many client processes


def find_pgbench() -> str:
    candidates = []
    try:
        import pgserver._commands as pgcommands  # the server's own version, when embedded

        candidates.append(str(Path(pgcommands.POSTGRES_BIN_PATH) / "pgbench"))
    except Exception:  # noqa: BLE001 - pgserver layout is not public API
        pass
    candidates.append(shutil.which("pgbench") or "")
    try:
        bindir = subprocess.run(["pg_config", "--bindir"], capture_output=True, text=True).stdout.strip()
        candidates.append(os.path.join(bindir, "pgbench"))
    except OSError:
        pass
    candidates += sorted(str(p) for p in Path("/usr/lib/postgresql").glob("*/bin/pgbench"))
    for candidate in candidates:
        if candidate and os.access(candidate, os.X_OK):
            return candidate
    raise SystemExit("pgbench not found (install the PostgreSQL client tools)")


# --- appends ----------------------------------------------------------------------------------


async def our_appends(store: EventStore, writers: int, seconds: float, mode: str = "store") -> float:
    """Appends per second. ``mode``: "store" = ``EventStore.append`` (group commit, announcement
    after commit); "single" = each writer calls the append function in its own transaction, NOTIFY
    sent after commit; "notify-in-tx" = the same with the NOTIFY inside the append's transaction."""
    run = uuid.uuid4().hex[:8]
    deadline = time.perf_counter() + seconds
    counts = [0] * writers
    payload = canonical_json(EVENT).decode()

    async def writer(index: int) -> None:
        stream_id = f"bench-{run}-{index}"
        version = 0
        while time.perf_counter() < deadline:
            if mode == "store":
                await store.append(stream_id, version, [EVENT])
            else:
                async with store.pool.connection() as conn:
                    async with conn.transaction():
                        await conn.execute(
                            "SELECT * FROM stud_append_commands(ARRAY[%s], ARRAY[%s::bigint], '{NULL}', %s)",
                            (stream_id, version, payload),
                        )
                        if mode == "notify-in-tx":
                            await conn.execute(
                                "SELECT pg_notify('stud_events', %s)", (f"{stream_id}:{version + 1}",)
                            )
                    if mode == "single":
                        await conn.execute(
                            "SELECT stud_announce_many(%s, %s)", ([stream_id], [version + 1])
                        )
            version += 1
        counts[index] = version

    started = time.perf_counter()
    await asyncio.gather(*(writer(i) for i in range(writers)))
    return sum(counts) / (time.perf_counter() - started)


async def minimal_group_commit(store: EventStore, writers: int, seconds: float) -> float:
    """The least a client can do per append with group commit: writers queue a fixed event, one
    task inserts each queue as one multi-row INSERT into pgbench's table (no hash chain, no head,
    no request id, no NOTIFY). Shows what the Python client and the batching cost by themselves."""
    payload = canonical_json(EVENT).decode()
    queue: list[asyncio.Future[None]] = []
    wake = asyncio.Event()
    deadline = time.perf_counter() + seconds
    counts = [0] * writers

    async def committer() -> None:
        async with store.pool.connection() as conn:
            while True:
                await wake.wait()
                wake.clear()
                batch, queue[:] = list(queue), []
                await conn.execute(
                    "INSERT INTO bench_rows (stream_id, payload) SELECT 'minimal', p::jsonb"
                    " FROM unnest(string_to_array(%s, E'\\n')) AS p",
                    ("\n".join([payload] * len(batch)),),
                    prepare=True,
                )
                for future in batch:
                    future.set_result(None)
                if queue:
                    wake.set()

    async def writer(index: int) -> None:
        loop = asyncio.get_running_loop()
        while time.perf_counter() < deadline:
            future = loop.create_future()
            queue.append(future)
            wake.set()
            await future
            counts[index] += 1

    task = asyncio.ensure_future(committer())
    started = time.perf_counter()
    await asyncio.gather(*(writer(i) for i in range(writers)))
    elapsed = time.perf_counter() - started
    task.cancel()
    with contextlib.suppress(asyncio.CancelledError):
        await task
    return sum(counts) / elapsed


def _append_process(url: str, writers: int, seconds: float, start: Any, results: Any) -> None:
    async def run() -> float:
        pool = await open_pool(url, min_size=4, max_size=40)
        store = EventStore(pool)
        try:
            await our_appends(store, writers, 0.3)  # warm: connections open, statements prepared
            start.wait()
            return await our_appends(store, writers, seconds)
        finally:
            await store.close()
            await pool.close()

    results.put(asyncio.run(run()))


def our_appends_processes(url: str, writers: int, seconds: float, processes: int) -> float:
    """Appends per second with ``writers`` spread over ``processes`` client processes."""
    context = multiprocessing.get_context("spawn")
    shares = [share for i in range(processes) if (share := writers // processes + (i < writers % processes))]
    start = context.Barrier(len(shares))
    results = context.Queue()
    workers = [
        context.Process(target=_append_process, args=(url, share, seconds, start, results))
        for share in shares
    ]
    for worker in workers:
        worker.start()
    total = sum(results.get() for _ in workers)
    for worker in workers:
        worker.join()
    return total


def pgbench_inserts(pgbench: str, url: str, clients: int, seconds: float, workdir: str) -> float:
    script = os.path.join(workdir, "insert.sql")
    with open(script, "w") as f:
        f.write(
            "INSERT INTO bench_rows (stream_id, payload) VALUES ('pgbench-' || :client_id, '"
            + canonical_json(EVENT).decode() + "'::jsonb);\n"
        )
    os.chmod(workdir, 0o755)
    os.chmod(script, 0o644)
    out = subprocess.run(
        [pgbench, "-n", "-M", "prepared", "-f", script, "-c", str(clients),
         "-j", str(min(clients, PGBENCH_THREADS)), "-T", str(max(1, round(seconds))), url],
        capture_output=True, text=True, check=True,
    ).stdout
    return float(re.search(r"tps = ([\d.]+)", out).group(1))


# --- multi-stream appends --------------------------------------------------------------------


def load_baseline_modules(rev: str, paths: dict[str, str]) -> dict[str, types.ModuleType]:
    """Modules of commit ``rev`` (``{short name: path}``), read from git and loaded under other
    names beside ours, in the order given; each one's imports of the others (by their package
    names) point at the loaded ones. The rest of the package is today's."""
    root = Path(__file__).resolve().parent.parent
    prefix = f"stud_bench_{re.sub(r'[^0-9a-zA-Z]', '_', rev)}"
    loaded: dict[str, types.ModuleType] = {}
    for short, path in paths.items():
        text = subprocess.run(["git", "-C", str(root), "show", f"{rev}:{path}"],
                              capture_output=True, text=True, check=True).stdout
        for earlier, earlier_path in paths.items():
            if earlier in loaded:
                package_name = earlier_path.removesuffix(".py").replace("/", ".")
                text = text.replace(f"from {package_name} import", f"from {prefix}_{earlier} import")
        module = types.ModuleType(f"{prefix}_{short}")
        sys.modules[module.__name__] = module  # before running it: dataclasses look their module up
        exec(compile(text, f"{rev}:{path}", "exec"), module.__dict__)
        loaded[short] = module
    return loaded


def load_baseline_store(rev: str) -> type:
    """The EventStore class of commit ``rev``: its ``eventlog`` and ``_writer`` modules."""
    return load_baseline_modules(rev, {
        "writer": "stud_service/store/_writer.py", "eventlog": "stud_service/store/eventlog.py",
    })["eventlog"].EventStore


async def cycles(store: EventStore, writers: int, seconds: float, two_streams: bool) -> float:
    """Buy-in + leave cycles per second, each writer on its own table (and account). A cycle is
    two commands, each with a request id as SitDown and Leave send: with ``two_streams`` each is
    the table event and the account entry in one ``append_all``; without, the table event alone."""
    run = uuid.uuid4().hex[:8]
    deadline = time.perf_counter() + seconds
    counts = [0] * writers

    async def writer(index: int) -> None:
        table, account = f"tables/bench-{run}-{index}", f"accounts/USD/bench-{run}-{index}"
        table_version = account_version = 0
        n = 0
        while time.perf_counter() < deadline:
            for table_event, account_event in ((SEATED, DEBITED), (LEFT, CREDITED)):
                request_id = f"{run}-{index}-{n}-{table_event['type']}"
                if two_streams:
                    seated, debited = await store.append_all([
                        StreamAppend(table, table_version, [table_event], request_id=request_id),
                        StreamAppend(account, account_version, [account_event]),
                    ])
                    table_version, account_version = seated.version, debited.version
                else:
                    result = await store.append(table, table_version, [table_event], request_id)
                    table_version = result.version
            n += 1
        counts[index] = n

    started = time.perf_counter()
    await asyncio.gather(*(writer(i) for i in range(writers)))
    return sum(counts) / (time.perf_counter() - started)


async def alternate(
    runs: tuple[Callable[[], Awaitable[float]], Callable[[], Awaitable[float]]], rounds: int
) -> tuple[float, float, float]:
    """Run the two ``runs`` (each returning a rate) one after the other, ``rounds`` times, swapping
    which goes first. Returns both median rates and the median of the rounds' ratios (first /
    second), in which a load on the host that changes between rounds cancels out."""
    rates: tuple[list[float], list[float]] = ([], [])
    for round_no in range(rounds):
        for side in (0, 1) if round_no % 2 == 0 else (1, 0):
            rates[side].append(await runs[side]())
    ratios = [x / y for x, y in zip(*rates, strict=True)]
    return statistics.median(rates[0]), statistics.median(rates[1]), statistics.median(ratios)


@contextlib.contextmanager
def statements_not_sent(*stores: Any) -> Any:
    """The writers' batch statements answered at once without reaching the server (and their
    connections stubbed): what is left is the client's own time per append, which a busy host
    disturbs far less than a round trip."""
    from stud_service.store._wire import PreparedStatement

    async def answered(self: Any, conn: Any, params: Any, spin: float = 0.0) -> None:
        await asyncio.sleep(0)

    async def no_connection() -> Any:
        return object()

    saved = PreparedStatement.run
    PreparedStatement.run = answered  # type: ignore[method-assign]
    for subject in stores:
        subject._writer._take_connection = no_connection
        subject._writer._keep_connection = lambda conn: None
    try:
        yield
    finally:
        PreparedStatement.run = saved  # type: ignore[method-assign]


async def client_time(store: EventStore, writers: int, seconds: float) -> float:
    """Microseconds of this process's CPU per append."""
    started = time.process_time()
    rate = await our_appends(store, writers, seconds)
    return (time.process_time() - started) / (rate * seconds) * 1e6


async def print_multi(store: EventStore, url: str, seconds: float, rounds: int, baseline: str) -> None:
    baseline_class = load_baseline_store(baseline)
    stubbed = (EventStore(store.pool, announce=False), baseline_class(store.pool, announce=False))
    with statements_not_sent(*stubbed):
        print(f"\nClient time per single-stream append (µs of CPU; statements not sent), this build"
              f" against {baseline}, alternating, medians of {rounds} x {seconds:g} s; ratio = time"
              " this build / before, lower is better")
        print(f"{'writers':>8} {'this build':>11} {baseline:>11} {'ratio':>6}")
        for writers in (1, 8, 32):
            mine, base, ratio = await alternate(
                (lambda w=writers: client_time(stubbed[0], w, seconds),
                 lambda w=writers: client_time(stubbed[1], w, seconds)), rounds)
            print(f"{writers:>8} {mine:>11.1f} {base:>11.1f} {ratio:>6.2f}")
    for subject in stubbed:
        await subject.close()
    # A pool of its own: both writers prepare statements of the same names on their connections.
    baseline_pool = await open_pool(url, min_size=4, max_size=40)
    baseline_store = baseline_class(baseline_pool)
    try:
        await our_appends(baseline_store, 8, 0.3)  # warm: connections open, statements prepared
        print(f"\nSingle-stream appends per second, this build against {baseline} (same run, runs"
              f" alternating; medians of {rounds} x {seconds:g} s, ratio = median of the rounds' ratios)")
        print(f"{'writers':>8} {'this build':>11} {baseline:>11} {'ratio':>6}")
        for writers in (1, 8, 32):
            mine, base, ratio = await alternate(
                (lambda w=writers: our_appends(store, w, seconds),
                 lambda w=writers: our_appends(baseline_store, w, seconds)), rounds)
            print(f"{writers:>8} {mine:>11,.0f} {base:>11,.0f} {ratio:>6.2f}")
    finally:
        await baseline_store.close()
        await baseline_pool.close()
    print(f"\nBuy-in + leave cycles per second (2 commands each; as above, {rounds} x {seconds:g} s)")
    print(f"{'writers':>8} {'table + account':>16} {'table only':>11} {'ratio':>6}")
    for writers in (1, 8, 32):
        both, alone, ratio = await alternate(
            (lambda w=writers: cycles(store, w, seconds, True),
             lambda w=writers: cycles(store, w, seconds, False)), rounds)
        print(f"{writers:>8} {both:>16,.0f} {alone:>11,.0f} {ratio:>6.2f}")


# --- replay -----------------------------------------------------------------------------------


async def build_replay_stream(store: EventStore, stream_id: str) -> int:
    """One table of random legal play, appended 1,000 events at a time until 100,000 are stored."""
    from stud_service.audit.simulate import simulate_table
    from stud_service.engine import Variant, event_to_json

    table = simulate_table(stream_id, Variant.STUD, hands=REPLAY_EVENTS // 50, seed=1)
    version = 0
    batch: list[dict] = []
    for events in table.commands:
        batch.extend(event_to_json(e) for e in events)
        if len(batch) >= 1000:
            version = (await store.append(stream_id, version, batch)).version
            batch = []
            if version >= REPLAY_EVENTS:
                return version
    if batch:
        version = (await store.append(stream_id, version, batch)).version
    return version


def load_baseline_replay(rev: str) -> Callable[[EventStore, str], Awaitable[Any]]:
    """``replay_table`` as commit ``rev`` had it: its codec, its reads and its fold (with today's
    engine), run against our store."""
    modules = load_baseline_modules(rev, {
        "codec": "stud_service/engine/codec.py", "writer": "stud_service/store/_writer.py",
        "eventlog": "stud_service/store/eventlog.py", "tables": "stud_service/store/tables.py",
    })
    tables = modules["tables"]
    # The tables module takes its decoder from the engine package: point it at the baseline's.
    tables.event_from_json = modules["codec"].event_from_json
    tables.EventDecodeError = modules["codec"].EventDecodeError
    baseline_read = modules["eventlog"].EventStore.iter_payloads

    class Reads:  # our store, read the baseline's way
        def __init__(self, store: EventStore) -> None:
            self.store = store

        def iter_payloads(self, stream_id: str, after_version: int = 0) -> Any:
            return baseline_read(self.store, stream_id, after_version)

    return lambda store, stream_id: tables.replay_table(Reads(store), stream_id)


async def bench_replay(store: EventStore, baseline: str, rounds: int) -> dict[str, Any]:
    from stud_service.engine import event_from_json, replay
    from stud_service.store.tables import replay_table

    results: dict[str, Any] = {}
    stream_id = f"tables/bench-replay-{uuid.uuid4().hex[:8]}"
    events = await build_replay_stream(store, stream_id)
    results["events"] = events
    baseline_replay = load_baseline_replay(baseline)

    async with store.pool.connection() as conn:  # a settled table, as an old stream would be
        await conn.execute("VACUUM ANALYZE events")
    ours: list[float] = []
    theirs: list[float] = []
    await replay_table(store, stream_id)  # warms the server's cache
    for _ in range(rounds):  # alternating, so both see the same load on a shared host
        for rates, replay_it in ((ours, replay_table), (theirs, baseline_replay)):
            started = time.perf_counter()
            loaded = await replay_it(store, stream_id)
            rates.append(loaded.version / (time.perf_counter() - started))
    results["replay"], results["baseline"] = ours, theirs

    started = time.perf_counter()
    async with store.pool.connection() as conn:
        cur = await conn.execute(
            "SELECT version, payload::text FROM events WHERE stream_id = %s ORDER BY version", (stream_id,)
        )
        rows = await cur.fetchall()
    results["raw_read"] = len(rows) / (time.perf_counter() - started)

    payloads = [p for _, p in [x async for x in store.iter_payloads(stream_id)]]
    started = time.perf_counter()
    replay(event_from_json(p) for p in payloads)
    results["memory_fold"] = len(payloads) / (time.perf_counter() - started)
    return results


async def bench_load_tables(store: EventStore, tables: int, hands: int) -> dict[str, float]:
    """``tables`` tables of ``hands`` hands each, snapshotted at their last hand but one (so the last
    hand is folded from its events, as after a takeover mid-session): seconds to load them all
    concurrently with ``load_table``, and with the snapshots ignored (``replay_table``)."""
    from stud_service.audit.simulate import simulate_table
    from stud_service.engine import Variant, event_to_json, replay
    from stud_service.store.tables import load_table, replay_table, save_snapshot

    prefix = f"tables/bench-load-{uuid.uuid4().hex[:8]}"
    ids = []
    total = 0
    for index in range(tables):
        stream_id = f"{prefix}-{index}"
        events = [e for command in simulate_table(stream_id, Variant.STUD, hands, seed=index).commands
                  for e in command]
        await store.append(stream_id, 0, [event_to_json(e) for e in events])
        ends = [i for i, e in enumerate(events, 1) if type(e).__name__ == "HandEnded"]
        await save_snapshot(store, stream_id, ends[-2], replay(events[:ends[-2]]))
        ids.append(stream_id)
        total += len(events)
    async with store.pool.connection() as conn:
        await conn.execute("VACUUM ANALYZE events")
    results: dict[str, float] = {"events": total}
    for label, load in (("snapshots", load_table), ("no_snapshots", replay_table),
                        ("snapshots_again", load_table)):
        started = time.perf_counter()
        loaded = await asyncio.gather(*(load(store, stream_id) for stream_id in ids))
        results[label] = time.perf_counter() - started
        assert sum(table.version for table in loaded) == total
    return results


# --- main -------------------------------------------------------------------------------------


async def main_async(
    url: str, seconds: float, workdir: str, processes: int, only: str | None, rounds: int = 20,
    baseline: str = BASELINE,
) -> None:
    await apply_migrations(url)
    async with await psycopg.AsyncConnection.connect(url, autocommit=True) as conn:
        await conn.execute(
            "CREATE TABLE IF NOT EXISTS bench_rows (id bigserial PRIMARY KEY, stream_id text NOT NULL,"
            " payload jsonb NOT NULL, recorded_at timestamptz NOT NULL DEFAULT now())"
        )
        cur = await conn.execute("SELECT version()")
        print((await cur.fetchone())[0].split(",")[0])
    pgbench = find_pgbench()
    pool = await open_pool(url, min_size=4, max_size=40)
    store = EventStore(pool)
    try:
        if only == "replay":
            await print_replay(store)
            return
        if only == "multi":
            await print_multi(store, url, seconds, rounds, baseline)
            return
        print(f"\nAppends per second ({seconds:g} s each; peer: {pgbench} -M prepared,"
              " one-row INSERT per transaction)")
        multi = f"{processes} processes"
        print(f"{'writers':>8} {'1 process':>10} {multi:>12} {'pgbench':>10} {'ratio':>7} {'ratio':>7}")
        at_eight: tuple[float, float] = (0.0, 1.0)  # the headline: ours from one process, pgbench
        for writers in (1, 8, 32):
            ours = await our_appends(store, writers, seconds)
            spread = (
                await asyncio.to_thread(our_appends_processes, url, writers, seconds, processes)
                if writers > 1 else ours
            )
            peer = await asyncio.to_thread(pgbench_inserts, pgbench, url, writers, seconds, workdir)
            print(f"{writers:>8} {ours:>10,.0f} {spread:>12,.0f} {peer:>10,.0f}"
                  f" {ours / peer:>7.2f} {spread / peer:>7.2f}")
            if writers == 8:
                at_eight = (ours, peer)
        print("\nAt 8 writers, the choices behind the append path (ratio to the first line):")
        base = await our_appends(store, 8, seconds)
        print(f"  {'EventStore.append (group commit, NOTIFY in the next batch)':<62} {base:>8,.0f}   1.00")
        checked = EventStore(store.pool)
        # The group commit before the one-statement batch: every batch through the checked function.
        slow_path = checked._writer._append_parts
        checked._writer._append_rows = (  # type: ignore[method-assign]
            lambda conn, batch, prevs: slow_path(conn, batch, list(range(len(batch))))
        )
        rates = [("group commit, checked path (stud_append_parts)",
                  await our_appends(checked, 8, seconds))]
        await checked.close()
        for mode, label in (("single", "one transaction per append, NOTIFY after commit"),
                            ("notify-in-tx", "one transaction per append, NOTIFY inside it")):
            rates.append((label, await our_appends(store, 8, seconds, mode)))
        rates.append(("minimal client: same batching, pgbench's table, no chain",
                      await minimal_group_commit(store, 8, seconds)))
        for label, rate in rates:
            print(f"  {label:<62} {rate:>8,.0f}   {rate / base:.2f}")
        if only is None:
            await print_replay(store)
            await print_multi(store, url, seconds, rounds, baseline)
        ours, peer = at_eight
        headline.record(
            __file__,
            what="durable single-event appends (EventStore.append as the service runs it), 8 writers on 8"
                 " streams, one process",
            figure=f"{ours:,.0f} appends/s",
            peer=f"pgbench, one-row INSERT per transaction, same server and concurrency: {peer:,.0f} tps",
            ratio=f"{ours / peer:.2f}×",
            goal="≥ 0.8× pgbench",
            met=ours >= 0.8 * peer,
        )
    finally:
        await store.close()
        await pool.close()


async def print_replay(store: EventStore, baseline: str = REPLAY_BASELINE, rounds: int = 5) -> None:
    print(f"\nReplay of one {REPLAY_EVENTS:,}-event stream (events per second; {rounds} runs of each,"
          f" alternating with {baseline}'s replay)")
    results = await bench_replay(store, baseline, rounds)
    ours, theirs = results["replay"], results["baseline"]
    ratios = sorted(a / b for a, b in zip(ours, theirs, strict=True))
    print(f"  stream length                         {results['events']:>12,.0f} events")
    print(f"  read + decode + fold (replay_table)   {min(ours):>12,.0f} – {max(ours):,.0f}")
    print(f"  the same, as {baseline:<24} {min(theirs):>12,.0f} – {max(theirs):,.0f}"
          f"   ratio {ratios[0]:.2f}–{ratios[-1]:.2f} (median {statistics.median(ratios):.2f})")
    print(f"  raw read of the rows, no decode       {results['raw_read']:>12,.0f}"
          f"   ratio {max(ours) / results['raw_read']:.2f}")
    print(f"  decode + fold in memory, no database  {results['memory_fold']:>12,.0f}"
          f"   ratio {max(ours) / results['memory_fold']:.2f}")
    tables, hands = 100, 20
    loads = await bench_load_tables(store, tables, hands)
    print(f"\nLoading {tables} tables of {hands} hands at once ({loads['events']:,.0f} events),"
          " each snapshotted at its last hand but one")
    print(f"  load_table (snapshot + the last hand)  {loads['snapshots']:>8.3f} s"
          f"   (run again: {loads['snapshots_again']:.3f} s)")
    print(f"  replay_table (every event)             {loads['no_snapshots']:>8.3f} s"
          f"   ratio {loads['snapshots'] / loads['no_snapshots']:.2f}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=8.0, help="duration of each append run")
    parser.add_argument("--database-url", help="benchmark this server (default: a fresh embedded one)")
    parser.add_argument("--only", choices=("appends", "replay", "multi"),
                        help="run one part of the benchmark")
    parser.add_argument("--rounds", type=int, default=20, help="alternating runs per figure (multi)")
    parser.add_argument("--baseline", default=BASELINE, help="commit whose append path (multi) compares")
    args = parser.parse_args()
    workdir = tempfile.mkdtemp(prefix="stud-bench-")
    embedded = None
    try:
        if args.database_url:
            url = args.database_url
        else:
            embedded = EmbeddedPostgres(Path(workdir) / "pg", delete_on_stop=True)
            url = embedded.start()
        dbname = f"stud_bench_{uuid.uuid4().hex[:8]}"
        with psycopg.connect(url, autocommit=True) as conn:
            conn.execute(f'CREATE DATABASE "{dbname}"')
        try:
            asyncio.run(main_async(make_conninfo(url, dbname=dbname), args.seconds, workdir,
                                   PGBENCH_THREADS, args.only, args.rounds, args.baseline))
        finally:
            with psycopg.connect(url, autocommit=True) as conn:
                conn.execute(f'DROP DATABASE IF EXISTS "{dbname}" WITH (FORCE)')
    finally:
        if embedded is not None:
            embedded.stop()
        shutil.rmtree(workdir, ignore_errors=True)


if __name__ == "__main__":
    main()
