"""What observability costs per action, against the plain libraries it is built on, measured in the same run.

- a log line: our JSON formatter with context and redaction, against the standard library's text formatter
  and against a bare ``json.dumps`` of the same fields (no redaction);
- recording an action: ``Metrics.time_action`` (counter + histogram + timing), against calling
  prometheus-client's ``Counter.inc`` and ``Histogram.observe`` directly;
- a scrape: rendering our registry after 10,000 recorded actions, against a bare registry holding the
  same series.

Run: ``.venv/bin/python benchmarks/bench_observability.py``. Prints microseconds per operation (best of 5)
and the ratio ours / peer.
"""

from __future__ import annotations

import io
import json
import logging
import time

import headline  # benchmarks/headline.py, as timing
from prometheus_client import CollectorRegistry, Counter, Histogram, generate_latest
from timing import best_microseconds  # benchmarks/timing.py: the script's own folder is on sys.path

from stud_service.observability.logging import JsonFormatter, log_context
from stud_service.observability.metrics import ACTION_LATENCY_BUCKETS, Metrics


def log_record() -> logging.LogRecord:
    record = logging.LogRecord(
        "stud_service.server", logging.INFO, __file__, 1, "seat %d raises to %d", (3, 400), None
    )
    record.seat = 3
    record.amount = 400
    record.street = 5
    record.down_cards = [12, 51]
    return record


def bench_log_line() -> list[tuple[str, float, float, str]]:
    ours = JsonFormatter()
    text = logging.Formatter("%(asctime)s %(levelname)s %(name)s %(message)s")

    def ours_line() -> str:
        with log_context(table="t-1", hand="t-1/h-7"):
            return ours.format(log_record())

    def text_line() -> str:
        return text.format(log_record())

    def json_line() -> str:
        record = log_record()
        return json.dumps({
            "ts": record.created, "level": record.levelname, "logger": record.name,
            "msg": record.getMessage(), "seat": record.seat, "amount": record.amount, "street": record.street,
        })

    ours_us = best_microseconds(ours_line, 5_000)
    text_us = best_microseconds(text_line, 5_000)
    json_us = best_microseconds(json_line, 5_000)
    return [
        ("log line (vs stdlib text Formatter)", ours_us, text_us, "µs/line"),
        ("log line (vs bare json.dumps, no redaction)", ours_us, json_us, "µs/line"),
    ]


def bench_action_metrics() -> list[tuple[str, float, float, str]]:
    metrics = Metrics(process_metrics=False)
    registry = CollectorRegistry()
    actions = Counter("actions", "", ["action", "outcome"], registry=registry)
    latency = Histogram("latency_seconds", "", ["action"], registry=registry, buckets=ACTION_LATENCY_BUCKETS)

    def ours() -> None:
        with metrics.time_action("bet"):
            pass

    def bare() -> None:
        start = time.perf_counter()
        actions.labels("bet", "ok").inc()
        latency.labels("bet").observe(time.perf_counter() - start)

    row = ("record one action (vs bare prometheus-client)", best_microseconds(ours, 50_000),
           best_microseconds(bare, 50_000), "µs/action")

    for action in ("bring_in", "complete", "bet", "raise", "call", "check", "fold") * 1500:
        metrics.observe_action(action, 0.004)
        actions.labels(action, "ok").inc()
        latency.labels(action).observe(0.004)
    scrape = ("scrape /metrics after 10k actions (vs bare registry)",
              best_microseconds(lambda: generate_latest(metrics.registry), 200),
              best_microseconds(lambda: generate_latest(registry), 200), "µs/scrape")
    return [row, scrape]


def main() -> None:
    logging.getLogger().addHandler(logging.StreamHandler(io.StringIO()))
    rows = bench_log_line() + bench_action_metrics()
    width = max(len(name) for name, *_ in rows)
    print(f"{'operation':<{width}}  {'ours':>9}  {'peer':>9}  {'ours/peer':>9}  unit")
    for name, ours, peer, unit in rows:
        print(f"{name:<{width}}  {ours:9.2f}  {peer:9.2f}  {ours / peer:9.2f}  {unit}")
    _name, line_us, text_us, _unit = rows[0]
    headline.record(
        __file__,
        what="one JSON log line with the table and hand in context, redacted",
        figure=f"{line_us:.1f} µs",
        peer=f"the standard library's text formatter: {text_us:.1f} µs",
        ratio=f"{line_us / text_us:.1f}× the time",
    )


if __name__ == "__main__":
    main()
