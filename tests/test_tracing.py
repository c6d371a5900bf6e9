"""Traces: one Act over gRPC and one over Connect each give a server span with the PostgreSQL statements of
its append under it, and no span holds a token or a statement's parameters; traces reach an OTLP/HTTP
collector when ``otlp_endpoint`` is set; with tracing off nothing of OpenTelemetry is imported."""

from __future__ import annotations

import asyncio
import io
import subprocess
import sys
import threading
import uuid
from collections.abc import AsyncIterator, Awaitable, Callable, Iterator
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import grpc
import pytest
import pytest_asyncio
from grpc_fixtures import table_spec, whole_service
from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import ExportTraceServiceRequest
from opentelemetry.sdk.trace import ReadableSpan
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter
from opentelemetry.trace import SpanKind

from stud_service.auth import Role, mint_token
from stud_service.bots import StudClient
from stud_service.bots.client import error_reason
from stud_service.observability import tracing
from stud_service.server.host import ServiceHost
from stud_service.server.proto_gen import table_pb2
from stud_service.store import spans

TOKEN_SECRET = "tracing-tests-secret-0123456789abcdef0123"
APPEND = "INSERT INTO events"  # the group commit's statement (either path names the table it writes)


@dataclass
class Traced:
    host: ServiceHost
    channel: object
    spans: InMemorySpanExporter

    def token(self, player: str, role: Role = Role.PLAYER) -> str:
        return mint_token(TOKEN_SECRET, player, role)

    def client(self, player: str, role: Role = Role.PLAYER, web: bool = False) -> StudClient:
        if web:
            return StudClient.over_web(f"http://127.0.0.1:{self.host.web_port}", self.token(player, role))
        return StudClient(self.channel, self.token(player, role))  # type: ignore[arg-type]


@pytest_asyncio.fixture(scope="module", loop_scope="session")
async def traced(make_database: Callable[..., Awaitable[str]]) -> AsyncIterator[Traced]:
    exporter = InMemorySpanExporter()
    async with whole_service(
        await make_database(migrated=False), TOKEN_SECRET, io.StringIO(),
        span_exporter=exporter, web_listen="127.0.0.1:0",
    ) as running:
        yield Traced(running.host, running.channel, exporter)


async def to_act(service: Traced, table_id: str, players: list[str]) -> tuple[str, object]:
    """The player whose turn it is (once the dealer has dealt) and their view."""
    for _ in range(3000):
        for player in players:
            view = await service.client(player).view(table_id)
            if view.legal_actions:
                return player, view
        await asyncio.sleep(0.01)
    raise AssertionError("no one came to act")


def server_span(spans: tuple[ReadableSpan, ...], path: str) -> ReadableSpan:
    found = [s for s in spans if s.kind is SpanKind.SERVER and path in (s.name + str(s.attributes))]
    assert len(found) == 1, [(s.name, s.kind) for s in spans]
    return found[0]


def under(spans: tuple[ReadableSpan, ...], root: ReadableSpan) -> list[ReadableSpan]:
    """Every span whose chain of parents leads to ``root``."""
    by_id = {s.context.span_id: s for s in spans}
    found = []
    for span in spans:
        parent = span.parent
        while parent is not None and parent.span_id != root.context.span_id:
            parent = by_id[parent.span_id].parent if parent.span_id in by_id else None
        if parent is not None:
            found.append(span)
    return found


def everything_said(spans: tuple[ReadableSpan, ...]) -> str:
    """Every name, attribute, event and status text of ``spans``, as one string to search."""
    parts: list[str] = []
    for span in spans:
        parts += [span.name, str(span.status.description), *map(str, span.attributes.items())]
        for event in span.events:
            parts += [event.name, *map(str, event.attributes.items())]
    return "\n".join(parts)


@pytest.mark.parametrize("web", [False, True], ids=["grpc", "connect"])
async def test_an_act_is_one_server_span_with_its_append_under_it(traced: Traced, web: bool) -> None:
    table_id = f"trace-{uuid.uuid4().hex[:10]}"
    traced.spans.clear()
    await traced.client("house", Role.OPERATOR).create_table(table_id, table_spec())
    players = [f"p{uuid.uuid4().hex[:6]}", f"q{uuid.uuid4().hex[:6]}"]
    for seat, player in enumerate(players, start=1):
        await traced.client(player).sit_down(table_id, seat, 10_000)
    player, view = await to_act(traced, table_id, players)
    client = traced.client(player, web=web)
    request_id = f"req-{uuid.uuid4().hex}"
    await asyncio.sleep(0.2)  # the dealer's own appends (no call's) are done by now
    before = len(traced.spans.get_finished_spans())

    choice = view.legal_actions[0]
    await client.act(table_id, view.viewer_seat, choice.type, choice.amount, view.turn, request_id=request_id)
    await asyncio.sleep(0.1)  # the server span ends as the reply is sent
    everything = traced.spans.get_finished_spans()
    spans = everything[before:]

    act = server_span(spans, "/stud.v1.TableService/Act")
    sql = [s for s in under(spans, act) if s.attributes.get("db.system") == "postgresql"]
    statements = [str(s.attributes.get("db.statement", "")) for s in sql]
    assert any(APPEND in text for text in statements), statements
    assert all(s.kind is SpanKind.CLIENT for s in sql)
    # Background work (the dealer the second SitDown woke, the announcer) has traces of its own: no span
    # since the table was made hangs under a call that was over before the span began.
    by_id = {s.context.span_id: s for s in everything}
    for span in everything:
        parent = by_id.get(span.parent.span_id) if span.parent is not None else None
        assert span.parent is None or (parent is not None and span.start_time <= parent.end_time), span.name
    # Statement texts only: the table id and the request id are parameters of the append (so are its
    # events, with their cards, and the sealed seeds); none is in any span, nor is the bearer token.
    said = everything_said(spans)
    for secret in (table_id, request_id, traced.token(player), "Bearer"):
        assert secret not in said


@pytest.mark.parametrize("web", [False, True], ids=["grpc", "connect"])
async def test_a_refusal_keeps_its_status_and_reason_and_its_span_records_the_code(
    traced: Traced, web: bool
) -> None:
    before = len(traced.spans.get_finished_spans())
    with pytest.raises(grpc.aio.AioRpcError) as refused:
        await traced.client("nobody", web=web).act(
            f"missing-{uuid.uuid4().hex[:8]}", 1, table_pb2.ACTION_TYPE_FOLD, 0, 1)
    assert refused.value.code() is grpc.StatusCode.NOT_FOUND
    assert error_reason(refused.value) == "NO_TABLE"
    await asyncio.sleep(0.1)
    act = server_span(traced.spans.get_finished_spans()[before:], "/stud.v1.TableService/Act")
    # The caller's mistake, not the server's: the span records the code, and its status stays unset (as
    # the semantic conventions want of a server span for NOT_FOUND and HTTP 4xx).
    if web:
        assert act.attributes["http.status_code"] == 404
    else:
        assert act.attributes["rpc.grpc.status_code"] == grpc.StatusCode.NOT_FOUND.value[0]


async def test_a_watch_stream_is_one_server_span_that_ends_with_the_stream(traced: Traced) -> None:
    table_id = f"watch-{uuid.uuid4().hex[:10]}"
    await traced.client("house", Role.OPERATOR).create_table(table_id, table_spec())
    before = len(traced.spans.get_finished_spans())
    stream = traced.client("watcher").watch(table_id)
    first = await anext(aiter(stream))
    assert first.ByteSize() > 0  # the table's first event
    stream.cancel()
    for _ in range(1500):
        spans = traced.spans.get_finished_spans()[before:]
        if any(s.kind is SpanKind.SERVER for s in spans):
            break
        await asyncio.sleep(0.02)
    server_span(spans, "/stud.v1.TableService/WatchTable")


async def test_the_readiness_ping_makes_no_spans(traced: Traced) -> None:
    before = len(traced.spans.get_finished_spans())
    await asyncio.sleep(4.0)  # the ping runs once the store has been quiet for 2.5 s (unready-after / 2)
    spans = traced.spans.get_finished_spans()[before:]
    assert not [s for s in spans if s.attributes.get("db.statement") == "SELECT 1"]


async def test_a_batch_span_joins_the_first_traced_caller_and_links_the_others(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from opentelemetry import context, trace
    from opentelemetry.sdk.trace import TracerProvider
    from opentelemetry.sdk.trace.export import SimpleSpanProcessor

    exporter = InMemorySpanExporter()
    provider = TracerProvider()
    provider.add_span_processor(SimpleSpanProcessor(exporter))
    tracer = provider.get_tracer("test")
    monkeypatch.setattr(spans, "tracer", tracer)
    callers = []
    for name in ("first", "second"):
        with tracer.start_as_current_span(name):
            callers.append(spans.capture())
    untraced = context.Context()  # a command of the dealer's

    async def work() -> str:
        return "done"

    assert await spans.batch(work(), [untraced, *callers]) == "done"
    (batch,) = [s for s in exporter.get_finished_spans() if s.name == "append batch"]
    first, second = (trace.get_current_span(c).get_span_context() for c in callers)
    assert batch.parent.span_id == first.span_id
    assert [link.context.span_id for link in batch.links] == [second.span_id]
    assert batch.attributes["stud.append.commands"] == 3


def test_tracing_is_off_unless_an_endpoint_is_set() -> None:
    assert not tracing.wanted(None, {})
    assert not tracing.wanted("off", {})
    assert tracing.wanted("http://collector:4318", {})
    assert tracing.wanted(None, {"OTEL_EXPORTER_OTLP_ENDPOINT": "http://collector:4318"})
    assert tracing.wanted(None, {"OTEL_EXPORTER_OTLP_TRACES_ENDPOINT": "http://collector:4318/v1/traces"})
    assert not tracing.wanted("http://collector:4318", {"OTEL_SDK_DISABLED": "true"})


def test_with_tracing_off_opentelemetry_is_not_imported() -> None:
    code = (
        "import sys\n"
        "import stud_service.commands.serve, stud_service.server.host, stud_service.store\n"
        "import stud_service.server.web.app, stud_service.observability.tracing\n"
        "loaded = sorted(m for m in sys.modules if m.startswith('opentelemetry'))\n"
        "assert not loaded, loaded\n"
    )
    subprocess.run([sys.executable, "-c", code], check=True, timeout=60)


@pytest.fixture
def collector() -> Iterator[tuple[str, list[ExportTraceServiceRequest]]]:
    """A plain HTTP server taking OTLP/HTTP trace exports, as a collector does."""
    received: list[ExportTraceServiceRequest] = []

    class Handler(BaseHTTPRequestHandler):
        def do_POST(self) -> None:  # noqa: N802 - the http.server API
            body = self.rfile.read(int(self.headers["Content-Length"]))
            if self.path == "/v1/traces":
                received.append(ExportTraceServiceRequest.FromString(body))
            self.send_response(200 if self.path == "/v1/traces" else 404)
            self.send_header("Content-Length", "0")
            self.end_headers()

        def log_message(self, *args: object) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}", received
    finally:
        server.shutdown()
        server.server_close()


async def test_traces_reach_the_otlp_endpoint(
    make_database: Callable[..., Awaitable[str]], collector: tuple[str, list[ExportTraceServiceRequest]]
) -> None:
    endpoint, received = collector
    table_id = f"otlp-{uuid.uuid4().hex[:10]}"
    async with whole_service(
        await make_database(migrated=False), TOKEN_SECRET, io.StringIO(), otlp_endpoint=endpoint
    ) as running:
        operator = StudClient(running.channel, mint_token(TOKEN_SECRET, "house", Role.OPERATOR))
        await operator.create_table(table_id, table_spec())
    # Stopping flushed the batch of spans to the collector.
    spans = [
        span
        for request in received
        for resource in request.resource_spans
        for scope in resource.scope_spans
        for span in scope.spans
    ]
    names = {span.name for span in spans}
    assert "/stud.v1.TableService/CreateTable" in names, names
    services = {
        attribute.value.string_value
        for request in received
        for resource in request.resource_spans
        for attribute in resource.resource.attributes
        if attribute.key == "service.name"
    }
    assert services == {"stud-service"}
