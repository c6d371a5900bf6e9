"""The store's own spans, for what OpenTelemetry's psycopg instrumentation cannot see.

The append writer's hot path talks to libpq directly (``_wire``), and one batch task commits the
commands of many calls (``_writer``). While ``tracer`` is None (tracing off, the default) nothing
here runs and nothing of OpenTelemetry is imported; ``stud_service.observability.tracing`` sets it.
"""

from __future__ import annotations

import contextvars
from collections.abc import Coroutine, Sequence
from typing import Any, TypeVar

T = TypeVar("T")

tracer: Any = None  # an opentelemetry Tracer while tracing is on


def detached(quiet: bool = False) -> contextvars.Context | None:
    """For a background task (a clock, the dealer, the announcer): the current context less its trace,
    so what the task does later is not filed under the call that happened to start it. ``quiet``: and
    no spans at all, for a loop nobody needs to follow (the readiness check's ping every second). None
    while tracing is off: the task then takes the current context, as asyncio does by default."""
    if tracer is None:
        return None
    from opentelemetry import context

    empty = context.Context()
    if quiet:  # the key OpenTelemetry's instrumentations check before they make a span
        empty = context.set_value(context._SUPPRESS_INSTRUMENTATION_KEY, True, empty)
    task_context = contextvars.copy_context()
    task_context.run(context.attach, empty)
    return task_context


def capture() -> Any:
    """The caller's trace context, for the batch that will carry its command."""
    from opentelemetry import context

    return context.get_current()


async def batch(work: Coroutine[Any, Any, T], callers: Sequence[Any]) -> T:
    """Run ``work`` (one group commit) in a span under the first caller's trace, linked to the
    other callers' spans, so each call's trace leads to the transaction that wrote its events."""
    from opentelemetry import trace

    traced = [
        (caller, span)
        for caller in callers
        if caller is not None and (span := trace.get_current_span(caller).get_span_context()).is_valid
    ]  # the dealer's and the clocks' commands have no trace to join
    parent = traced[0][0] if traced else None  # None: a trace of the batch's own (the task has none)
    links = [trace.Link(span) for _, span in traced[1:]]
    with tracer.start_as_current_span(
        "append batch", context=parent, links=links, attributes={"stud.append.commands": len(callers)}
    ):
        return await work


def statement(sql: bytes) -> Any:
    """A client span for one statement run through libpq: its text (placeholders, never values)."""
    from opentelemetry import trace

    text = sql.decode()
    return tracer.start_as_current_span(
        text.split(None, 1)[0],
        kind=trace.SpanKind.CLIENT,
        attributes={"db.system": "postgresql", "db.statement": text},
    )
