"""Prometheus metrics: recorded through ``Metrics``, scraped over HTTP, read back with prometheus_client's
parser."""

from __future__ import annotations

import platform
import urllib.request
from collections.abc import Iterator
from pathlib import Path

import pgserver
import pytest
from prometheus_client.parser import text_string_to_metric_families
from psycopg_pool import ConnectionPool

import stud_service
from stud_service.observability.metrics import (
    Metrics,
    MetricsServer,
    parse_listen,
    start_metrics_server,
)

Samples = dict[tuple[str, tuple[tuple[str, str], ...]], float]


def scrape(server: MetricsServer) -> Samples:
    """Every sample on the endpoint, keyed by (name, sorted labels)."""
    with urllib.request.urlopen(server.url, timeout=30) as response:
        assert response.status == 200
        text = response.read().decode()
    samples: Samples = {}
    for family in text_string_to_metric_families(text):
        for sample in family.samples:
            samples[(sample.name, tuple(sorted(sample.labels.items())))] = sample.value
    return samples


def value(samples: Samples, name: str, **labels: str) -> float:
    return samples.get((name, tuple(sorted(labels.items()))), 0.0)


@pytest.fixture
def metrics() -> Metrics:
    return Metrics()


@pytest.fixture
def endpoint(metrics: Metrics) -> Iterator[MetricsServer]:
    server = start_metrics_server("127.0.0.1:0", metrics.registry)
    assert server is not None
    yield server
    server.close()


def play_a_short_hand(metrics: Metrics) -> None:
    """What the server records while dealing and playing one Razz hand that ends on a timeout fold."""
    metrics.table_opened()
    metrics.hand_started("razz")
    for action in ("bring_in", "complete", "call", "fold"):
        with metrics.time_action(action):
            pass
    metrics.append_conflict()
    metrics.append_retry()
    metrics.timeout_fired()
    metrics.hand_finished("razz")


def test_scrape_after_a_hand_shows_hands_actions_latency_conflicts_and_timeouts_moving(
    metrics: Metrics, endpoint: MetricsServer
) -> None:
    before = scrape(endpoint)
    play_a_short_hand(metrics)
    after = scrape(endpoint)

    def moved(name: str, **labels: str) -> float:
        return value(after, name, **labels) - value(before, name, **labels)

    assert moved("stud_hands_started_total", variant="razz") == 1
    assert moved("stud_hands_finished_total", variant="razz") == 1
    for action in ("bring_in", "complete", "call", "fold"):
        assert moved("stud_actions_total", action=action, outcome="ok") == 1
        assert moved("stud_action_latency_seconds_count", action=action) == 1
        # Every observation lands in the +Inf bucket, and an empty block is faster than 5 s.
        assert moved("stud_action_latency_seconds_bucket", action=action, le="+Inf") == 1
        assert moved("stud_action_latency_seconds_bucket", action=action, le="5.0") == 1
    assert moved("stud_append_conflicts_total") == 1
    assert moved("stud_append_retries_total") == 1
    assert moved("stud_timeouts_fired_total") == 1
    assert moved("stud_open_tables") == 1


def test_an_action_that_raises_is_counted_as_error_and_still_timed(metrics: Metrics, endpoint: MetricsServer):
    with pytest.raises(RuntimeError), metrics.time_action("raise"):
        raise RuntimeError("illegal amount")
    samples = scrape(endpoint)
    assert value(samples, "stud_actions_total", action="raise", outcome="error") == 1
    assert value(samples, "stud_actions_total", action="raise", outcome="ok") == 0
    assert value(samples, "stud_action_latency_seconds_count", action="raise") == 1


def test_open_tables_and_active_watchers_gauges_go_up_and_back_down(
    metrics: Metrics, endpoint: MetricsServer
):
    metrics.table_opened()
    metrics.table_opened()
    with metrics.track_watcher(), metrics.track_watcher():
        during = scrape(endpoint)
    metrics.table_closed()
    after = scrape(endpoint)
    assert value(during, "stud_active_watchers") == 2
    assert value(during, "stud_open_tables") == 2
    assert value(after, "stud_active_watchers") == 0
    assert value(after, "stud_open_tables") == 1


def test_each_metrics_object_has_its_own_registry_so_two_servers_in_one_process_do_not_clash():
    first, second = Metrics(), Metrics()  # would raise "Duplicated timeseries" on a shared registry
    first.hand_started("stud")
    assert first.registry.get_sample_value("stud_hands_started_total", {"variant": "stud"}) == 1
    assert second.registry.get_sample_value("stud_hands_started_total", {"variant": "stud"}) is None


def test_process_metrics_are_exposed_next_to_ours(endpoint: MetricsServer):
    names = {name for name, _ in scrape(endpoint)}
    assert "process_cpu_seconds_total" in names
    assert "python_info" in names


@pytest.fixture(scope="module")
def postgres_uri(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    data_dir: Path = tmp_path_factory.mktemp("pgdata")
    server = pgserver.get_server(data_dir, cleanup_mode="stop")
    try:
        yield server.get_uri()
    finally:
        server.cleanup()


def test_database_pool_use_is_read_from_a_real_psycopg_pool_at_scrape_time(
    metrics: Metrics, endpoint: MetricsServer, postgres_uri: str
):
    with ConnectionPool(postgres_uri, min_size=1, max_size=3, open=True, name="events") as pool:
        pool.wait(timeout=10)
        metrics.watch_pool(pool, "events")
        with pool.connection() as conn:
            conn.execute("SELECT 1")
            held = scrape(endpoint)
        released = scrape(endpoint)
        metrics.unwatch_pool("events")
        unwatched = scrape(endpoint)

    assert value(held, "stud_db_pool_connections_in_use", pool="events") == 1
    assert value(held, "stud_db_pool_max_connections", pool="events") == 3
    assert value(held, "stud_db_pool_min_connections", pool="events") == 1
    assert value(held, "stud_db_pool_requests_total", pool="events") >= 1
    assert value(released, "stud_db_pool_connections_in_use", pool="events") == 0
    assert value(released, "stud_db_pool_idle_connections", pool="events") >= 1
    assert ("stud_db_pool_connections_in_use", (("pool", "events"),)) not in unwatched
    # Times in Prometheus's base unit: seconds, as floats (psycopg_pool counts milliseconds).
    names = {name for name, _ in held}
    assert not [name for name in names if "milli" in name], sorted(names)
    for time_counter in ("request_wait", "usage", "connection"):
        assert f"stud_db_pool_{time_counter}_seconds_total" in names, sorted(names)
    assert 0 < value(released, "stud_db_pool_usage_seconds_total", pool="events") < 60


def test_the_build_is_a_metric(endpoint: MetricsServer) -> None:
    """``stud_build_info{version,python} 1``: which version each replica runs, e.g. during a rollout."""
    samples = scrape(endpoint)
    labels = (("python", platform.python_version()), ("version", stud_service.__version__))
    assert samples[("stud_build_info", labels)] == 1


@pytest.mark.parametrize(
    ("listen", "expected"),
    [
        ("0.0.0.0:9090", ("0.0.0.0", 9090)),
        (":9090", ("0.0.0.0", 9090)),
        ("9090", ("0.0.0.0", 9090)),
        ("[::]:9090", ("::", 9090)),
        ("127.0.0.1:0", ("127.0.0.1", 0)),
    ],
)
def test_listen_addresses_are_parsed_like_the_grpc_listen_setting(listen: str, expected: tuple[str, int]):
    assert parse_listen(listen) == expected


@pytest.mark.parametrize("listen", ["localhost", "host:port", "1.2.3.4:"])
def test_malformed_listen_addresses_are_refused(listen: str):
    with pytest.raises(ValueError):
        parse_listen(listen)


@pytest.mark.parametrize("listen", ["", "off", "OFF", "none"])
def test_an_empty_or_off_metrics_listen_disables_the_endpoint(listen: str, metrics: Metrics):
    assert start_metrics_server(listen, metrics.registry) is None
