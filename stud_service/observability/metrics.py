"""Prometheus metrics for one server.

Each server builds one :class:`Metrics`; it owns a private :class:`~prometheus_client.CollectorRegistry`,
so several servers (or tests) in one process never collide on metric names. The server calls the
recording methods where things happen and exposes the registry with :func:`start_metrics_server`::

    metrics = Metrics()
    metrics.watch_pool(pool)                      # database pool use, read at scrape time
    server = start_metrics_server("0.0.0.0:9090", metrics.registry)
    ...
    metrics.hand_started("razz")
    with metrics.time_action("bet"):
        ...                                       # decide + append
    server.close()

Metric names (all prefixed ``stud_``):

===================================  =========  ==========================================================
name                                 type       meaning
===================================  =========  ==========================================================
hands_started_total{variant}         counter    hands dealt, by each hand's own game (RULES.md §13)
hands_finished_total{variant}        counter    hands that reached the end (showdown or last player left)
actions_total{action,outcome}        counter    player actions handled; outcome is ``ok`` or ``error``
action_latency_seconds{action}       histogram  time from receiving an action to its events being appended
append_conflicts_total               counter    appends refused because another writer got there first
append_retries_total                 counter    appends retried after reloading the stream
timeouts_fired_total                 counter    action clocks that ran out (RULES.md section 7)
action_clock_failures_total{task}    counter    a table's clock, seat offers or dealer failed (not the store)
tables_past_deadline                 gauge      tables whose action clock here is over 10 s past its deadline
open_tables                          gauge      tables this replica currently has loaded
active_watchers                      gauge      open event streams to clients on this replica
build_info{version,python}           gauge      always 1: the service's version and the Python running it
db_pool_*{pool}                      mixed      psycopg_pool ``get_stats()`` of each watched pool (times
                                                in seconds: ``*_seconds_total``)
===================================  =========  ==========================================================
"""

from __future__ import annotations

import platform
import threading
import time
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Protocol
from wsgiref.simple_server import WSGIServer

from prometheus_client import (
    CollectorRegistry,
    Counter,
    Gauge,
    Histogram,
    Info,
    PlatformCollector,
    ProcessCollector,
    start_http_server,
)
from prometheus_client.core import CounterMetricFamily, GaugeMetricFamily, Metric
from prometheus_client.registry import Collector

from stud_service import __version__

NAMESPACE = "stud"

# Seconds. An action is one decide + one append round trip to PostgreSQL: a few ms when healthy,
# so the buckets are dense at the low end and reach out far enough to show a struggling database.
ACTION_LATENCY_BUCKETS: tuple[float, ...] = (
    0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0,
)


class SupportsPoolStats(Protocol):
    """What we need from a psycopg_pool ``ConnectionPool`` or ``AsyncConnectionPool``."""

    def get_stats(self) -> dict[str, int]: ...


# psycopg_pool stats keys -> (metric suffix, help). Measures are instantaneous values ...
_POOL_GAUGES: dict[str, tuple[str, str]] = {
    "pool_min": ("min_connections", "Configured minimum pool size."),
    "pool_max": ("max_connections", "Configured maximum pool size."),
    "pool_size": ("connections", "Connections currently open (in use, idle or being prepared)."),
    "pool_available": ("idle_connections", "Connections idle in the pool, ready to be handed out."),
    "requests_waiting": ("requests_waiting", "Requests currently waiting for a connection."),
}
# ... and the rest are counters since the pool was created (psycopg_pool omits those still at zero).
_POOL_COUNTERS: dict[str, tuple[str, str]] = {
    "requests_num": ("requests", "Connection requests made to the pool."),
    "requests_queued": ("requests_queued", "Connection requests that had to wait."),
    "requests_errors": ("request_errors", "Connection requests that failed (timeout, pool closed)."),
    "returns_bad": ("bad_returns", "Connections returned in a bad state."),
    "connections_num": ("connection_attempts", "Connection attempts made to the server."),
    "connections_errors": ("connection_errors", "Connection attempts that failed."),
    "connections_lost": ("connections_lost", "Connections found broken by the pool's checks."),
}
# psycopg_pool counts time in milliseconds; Prometheus wants base units, so these are exported in seconds.
_POOL_TIME_COUNTERS: dict[str, tuple[str, str]] = {
    "requests_wait_ms": ("request_wait_seconds", "Total time requests spent waiting for a connection."),
    "usage_ms": ("usage_seconds", "Total time connections spent handed out."),
    "connections_ms": ("connection_seconds", "Total time spent establishing connections."),
}


class PoolStatsCollector(Collector):
    """Reads ``get_stats()`` from every registered pool at scrape time (no background polling)."""

    def __init__(self) -> None:
        self._pools: dict[str, SupportsPoolStats] = {}
        # Pools that come and go (a Citus worker's, opened when first needed): asked for at each scrape.
        self._sources: list[Callable[[], Mapping[str, SupportsPoolStats]]] = []
        self._lock = threading.Lock()

    def add(self, name: str, pool: SupportsPoolStats) -> None:
        with self._lock:
            self._pools[name] = pool

    def add_source(self, source: Callable[[], Mapping[str, SupportsPoolStats]]) -> None:
        with self._lock:
            self._sources.append(source)

    def remove(self, name: str) -> None:
        with self._lock:
            self._pools.pop(name, None)

    def describe(self) -> list[Metric]:
        # An empty description stops the registry from calling collect() at registration time.
        return []

    def collect(self) -> Iterator[Metric]:
        with self._lock:
            pools = dict(self._pools)
            for source in self._sources:
                pools.update(source())
            stats_by_pool = {name: dict(pool.get_stats()) for name, pool in pools.items()}
        prefix = f"{NAMESPACE}_db_pool_"
        in_use = GaugeMetricFamily(
            prefix + "connections_in_use", "Connections currently handed out to callers.", labels=["pool"]
        )
        for name, stats in stats_by_pool.items():
            in_use.add_metric([name], stats.get("pool_size", 0) - stats.get("pool_available", 0))
        yield in_use
        for key, (suffix, doc) in _POOL_GAUGES.items():
            family = GaugeMetricFamily(prefix + suffix, doc, labels=["pool"])
            for name, stats in stats_by_pool.items():
                family.add_metric([name], stats.get(key, 0))
            yield family
        for key, (suffix, doc) in _POOL_COUNTERS.items():
            counter = CounterMetricFamily(prefix + suffix, doc, labels=["pool"])
            for name, stats in stats_by_pool.items():
                counter.add_metric([name], stats.get(key, 0))
            yield counter
        for key, (suffix, doc) in _POOL_TIME_COUNTERS.items():
            counter = CounterMetricFamily(prefix + suffix, doc, labels=["pool"])
            for name, stats in stats_by_pool.items():
                counter.add_metric([name], stats.get(key, 0) / 1000)
            yield counter


class Metrics:
    """The service's metrics, registered in their own registry (``self.registry``)."""

    def __init__(self, registry: CollectorRegistry | None = None, *, process_metrics: bool = True) -> None:
        self.registry = registry if registry is not None else CollectorRegistry()
        reg = self.registry
        ns = NAMESPACE
        self.hands_started = Counter("hands_started", "Hands dealt.", ["variant"], namespace=ns, registry=reg)
        self.hands_finished = Counter(
            "hands_finished", "Hands that reached their end.", ["variant"], namespace=ns, registry=reg
        )
        self.actions = Counter(
            "actions", "Player actions handled, by type and outcome (ok or error).",
            ["action", "outcome"], namespace=ns, registry=reg,
        )
        self.action_latency = Histogram(
            "action_latency_seconds", "Time from receiving an action to its events being appended.",
            ["action"], namespace=ns, registry=reg, buckets=ACTION_LATENCY_BUCKETS,
        )
        self.append_conflicts = Counter(
            "append_conflicts", "Appends refused because the stream had moved on (expected version).",
            namespace=ns, registry=reg,
        )
        self.append_retries = Counter(
            "append_retries", "Appends retried after reloading the stream.", namespace=ns, registry=reg
        )
        self.timeouts_fired = Counter(
            "timeouts_fired", "Action clocks that ran out.", namespace=ns, registry=reg
        )
        self.action_clock_failures = Counter(
            "action_clock_failures",
            "A table's background task (action clock, seat offers, dealing) failed for a reason other than"
            " an unreachable store; it is tried again with backoff.",
            ["task"], namespace=ns, registry=reg,
        )
        self.tables_past_deadline = Gauge(
            "tables_past_deadline",
            "Tables whose action clock runs on this replica and is over 10 s past its deadline.",
            namespace=ns, registry=reg,
        )
        self.malformed_requests = Counter(
            "malformed_requests",
            "gRPC requests refused because their bytes are not the method's request message (any service:"
            " health and reflection too); refused INVALID_ARGUMENT, logged at most once a minute.",
            ["method"], namespace=ns, registry=reg,
        )
        self.standby_reads = Counter(
            "standby_reads",
            "Calls that may read a hot standby (history, audits, listings), by the server that answered: the"
            " standby, or the primary when the standby was behind, away or failing.",
            ["served_by"], namespace=ns, registry=reg,
        )
        self.open_tables = Gauge("open_tables", "Tables loaded on this replica.", namespace=ns, registry=reg)
        self.active_watchers = Gauge(
            "active_watchers", "Client event streams open on this replica.", namespace=ns, registry=reg
        )
        self.build = Info("build", "The running service's version and Python.", namespace=ns, registry=reg)
        self.build.info({"version": __version__, "python": platform.python_version()})
        self.pools = PoolStatsCollector()
        reg.register(self.pools)
        if process_metrics:
            ProcessCollector(registry=reg)
            PlatformCollector(registry=reg)

    # -- recording -------------------------------------------------------------------------------

    def hand_started(self, variant: str) -> None:
        self.hands_started.labels(variant=variant).inc()

    def hand_finished(self, variant: str) -> None:
        self.hands_finished.labels(variant=variant).inc()

    def observe_action(self, action: str, seconds: float, *, ok: bool = True) -> None:
        self.actions.labels(action=action, outcome="ok" if ok else "error").inc()
        self.action_latency.labels(action=action).observe(seconds)

    @contextmanager
    def time_action(self, action: str) -> Iterator[None]:
        """Count and time one action; an exception escaping the block counts it as ``error``."""
        start = time.perf_counter()
        ok = False
        try:
            yield
            ok = True
        finally:
            self.observe_action(action, time.perf_counter() - start, ok=ok)

    def append_conflict(self) -> None:
        self.append_conflicts.inc()

    def append_retry(self) -> None:
        self.append_retries.inc()

    def timeout_fired(self) -> None:
        self.timeouts_fired.inc()

    def action_clock_failed(self, task: str) -> None:
        self.action_clock_failures.labels(task=task.replace(" ", "_")).inc()

    def malformed_request(self, method: str) -> None:
        self.malformed_requests.labels(method=method).inc()

    def table_opened(self) -> None:
        self.open_tables.inc()

    def table_closed(self) -> None:
        self.open_tables.dec()

    @contextmanager
    def track_watcher(self) -> Iterator[None]:
        """Hold the active-watchers gauge up for as long as a client stream is open."""
        self.active_watchers.inc()
        try:
            yield
        finally:
            self.active_watchers.dec()

    def watch_pool(self, pool: SupportsPoolStats, name: str = "main") -> None:
        """Report ``pool.get_stats()`` as ``stud_db_pool_*{pool=name}`` at every scrape."""
        self.pools.add(name, pool)

    def unwatch_pool(self, name: str = "main") -> None:
        self.pools.remove(name)

    def watch_pools(self, source: Callable[[], Mapping[str, SupportsPoolStats]]) -> None:
        """Report every pool ``source()`` names at a scrape (its name the label), as :meth:`watch_pool`."""
        self.pools.add_source(source)


@dataclass
class MetricsServer:
    """A running metrics HTTP endpoint (``GET /metrics``) on a daemon thread."""

    host: str
    port: int
    _httpd: WSGIServer
    _thread: threading.Thread

    @property
    def url(self) -> str:
        host = f"[{self.host}]" if ":" in self.host else self.host
        return f"http://{host}:{self.port}/metrics"

    def close(self) -> None:
        self._httpd.shutdown()
        self._httpd.server_close()
        self._thread.join(timeout=5)


DISABLED_LISTEN_VALUES = frozenset({"", "off", "none", "disabled"})


def parse_listen(listen: str, default_host: str = "0.0.0.0") -> tuple[str, int]:
    """Split ``host:port`` (``[::]:9090``, ``:9090`` and a bare ``9090`` also accepted)."""
    text = listen.strip()
    if text.isdigit():
        return default_host, int(text)
    host, sep, port = text.rpartition(":")
    if not sep or not port.isdigit():
        raise ValueError(f"listen address must look like host:port, got {listen!r}")
    host = host.removeprefix("[").removesuffix("]") or default_host
    return host, int(port)


def start_metrics_server(listen: str, registry: CollectorRegistry) -> MetricsServer | None:
    """Serve ``registry`` at ``http://<listen>/metrics``; ``listen`` of ``""`` or ``off`` disables it.

    Port 0 picks a free port (see ``MetricsServer.port``).
    """
    if listen.strip().lower() in DISABLED_LISTEN_VALUES:
        return None
    host, port = parse_listen(listen)
    httpd, thread = start_http_server(port, addr=host, registry=registry)
    return MetricsServer(host=host, port=httpd.server_port, _httpd=httpd, _thread=thread)
