"""OpenTelemetry traces of the service's calls, exported over OTLP/HTTP when configured.

Off by default. When on, each call gets a server span (the gRPC port through the grpc.aio
interceptor, the web port through the ASGI middleware), and under it the PostgreSQL statements the
call made: psycopg's instrumentation for queries through cursors, the store's own spans
(``stud_service.store.spans``) for the group commit that wrote the call's events. Health checks
are left out: probes every few seconds would drown the traces that matter.

What a span may hold: statement texts with their placeholders (never the parameters: hole cards and
seeds are parameters, sealed or not), method names, status codes, peer addresses. No request
header is recorded on either port, so bearer tokens stay out, whatever the ``OTEL_*`` variables say.

Nothing of OpenTelemetry is imported until :func:`start_tracing` runs, so with tracing off the
service neither pays for the import nor runs any of it (the store checks one module attribute).
The packages come with the ``tracing`` extra: ``pip install 'stud-service[tracing]'``.
"""

from __future__ import annotations

import os
import socket
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

# The standard variables that turn the exporter on without --otlp-endpoint.
OTLP_ENDPOINT_VARIABLES = ("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT", "OTEL_EXPORTER_OTLP_ENDPOINT")
SERVICE_NAME = "stud-service"
_HEALTH_SERVICE = "grpc.health.v1.Health"
_OFF = ("", "off", "none", "disabled")


class TracingUnavailable(RuntimeError):
    """Tracing was asked for but the ``tracing`` extra is not installed."""


def wanted(endpoint: str | None, environ: Mapping[str, str] = os.environ) -> bool:
    """Whether traces are to be exported: ``--otlp-endpoint`` given, or a standard OTLP endpoint
    variable set, and the SDK not disabled (``OTEL_SDK_DISABLED=true``)."""
    if environ.get("OTEL_SDK_DISABLED", "").strip().lower() == "true":
        return False
    if endpoint is not None and endpoint.strip().lower() not in _OFF:
        return True
    return any(environ.get(name, "").strip() for name in OTLP_ENDPOINT_VARIABLES)


@dataclass
class Tracing:
    """Tracing as started: the provider, the gRPC interceptors, and what to undo at the end."""

    provider: Any  # opentelemetry.sdk.trace.TracerProvider
    interceptors: tuple[Any, ...]
    _undo: list[Any] = field(default_factory=list)

    def asgi(self, app: Any) -> Any:
        """``app`` (the web port's ASGI application) with a server span per request."""
        from opentelemetry.instrumentation.asgi import OpenTelemetryMiddleware

        return OpenTelemetryMiddleware(
            app,
            tracer_provider=self.provider,
            # Given explicitly, so no OTEL_INSTRUMENTATION_HTTP_CAPTURE_HEADERS_* variable can add
            # the Authorization header (a bearer token) or a cookie to the spans.
            http_capture_headers_server_request=[],
            http_capture_headers_server_response=[],
            # No span per ASGI message: a watch stream would add one for each message it sends.
            exclude_spans=["receive", "send"],
        )

    def shutdown(self) -> None:
        """Stop instrumenting and flush the spans not yet exported."""
        for undo in reversed(self._undo):
            undo()
        self._undo.clear()
        self.provider.shutdown()


def start_tracing(endpoint: str | None, exporter: Any = None) -> Tracing:
    """Instrument psycopg and the store and make the gRPC interceptors, exporting to ``endpoint``
    (an OTLP/HTTP base URL such as ``http://collector:4318``; spans go to its ``/v1/traces``), or,
    when it is off, where the ``OTEL_EXPORTER_OTLP_*`` variables say. ``exporter``: a span
    exporter of the caller's (tests) instead, exporting each span as it ends.

    Call before the database pool opens: only connections made afterwards are instrumented. One at a
    time in a process: psycopg's instrumentation and the store's tracer are the process's.
    """
    try:
        from opentelemetry import trace
        from opentelemetry.instrumentation.grpc import aio_server_interceptor, filters
        from opentelemetry.instrumentation.psycopg import PsycopgInstrumentor
        from opentelemetry.sdk.resources import Resource
        from opentelemetry.sdk.trace import TracerProvider
        from opentelemetry.sdk.trace.export import BatchSpanProcessor, SimpleSpanProcessor
    except ImportError as error:
        raise TracingUnavailable(
            f"traces need the tracing extra (pip install 'stud-service[tracing]'): {error}"
        ) from None

    from stud_service.store import spans

    provider = TracerProvider(resource=Resource.create(_resource_defaults()))  # OTEL_TRACES_SAMPLER applies
    if exporter is not None:
        provider.add_span_processor(SimpleSpanProcessor(exporter))
    else:
        from opentelemetry.exporter.otlp.proto.http.trace_exporter import OTLPSpanExporter

        url = None if endpoint is None or endpoint.strip().lower() in _OFF else endpoint
        traces_url = url.rstrip("/") + "/v1/traces" if url else None  # None: the exporter reads OTEL_*
        provider.add_span_processor(BatchSpanProcessor(OTLPSpanExporter(endpoint=traces_url)))
    tracing = Tracing(
        provider,
        (aio_server_interceptor(provider, filters.negate(filters.service_name(_HEALTH_SERVICE))),),
    )
    # Statement texts only: capture_parameters stays off, and no sqlcommenter (it would put the
    # trace ids into every statement text, which defeats the server's statement cache).
    PsycopgInstrumentor().instrument(tracer_provider=provider, skip_dep_check=True)
    tracing._undo.append(PsycopgInstrumentor().uninstrument)
    spans.tracer = trace.get_tracer("stud_service.store", tracer_provider=provider)
    tracing._undo.append(lambda: setattr(spans, "tracer", None))
    return tracing


def _resource_defaults() -> dict[str, str]:
    """The service's name and this replica's, unless OTEL_SERVICE_NAME / OTEL_RESOURCE_ATTRIBUTES
    say otherwise (attributes given here would win over theirs)."""
    defaults: dict[str, str] = {}
    given = os.environ.get("OTEL_RESOURCE_ATTRIBUTES", "")
    if not os.environ.get("OTEL_SERVICE_NAME") and "service.name=" not in given:
        defaults["service.name"] = SERVICE_NAME
    if "service.instance.id=" not in given:
        defaults["service.instance.id"] = socket.gethostname()  # the pod's name on Kubernetes
    return defaults
