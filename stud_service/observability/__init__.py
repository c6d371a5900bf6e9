"""What the service tells its operators: Prometheus metrics and structured logs.

- :mod:`stud_service.observability.metrics` -- a :class:`~.metrics.Metrics` object per server, with its own
  registry, and :func:`~.metrics.start_metrics_server` to expose it over HTTP.
- :mod:`stud_service.observability.logging` -- :func:`~.logging.configure_logging` (JSON or text lines),
  :func:`~.logging.log_context` / :func:`~.logging.table_logger` to put table and hand ids on every line
  about them, and the redaction that keeps hole cards, seeds, tokens and passwords out of the logs.
"""

from stud_service.observability.logging import configure_logging, log_context, table_logger
from stud_service.observability.metrics import Metrics, MetricsServer, start_metrics_server

__all__ = [
    "Metrics",
    "MetricsServer",
    "configure_logging",
    "log_context",
    "start_metrics_server",
    "table_logger",
]
