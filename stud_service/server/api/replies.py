"""What the service sends about one table, built once per table version and shared by every call:

- each viewer's ``TableView`` at the table's latest version (the ``Act`` reply and the same player's
  watch stream show the same view; observers all share one, and each player's is a copy of it with the
  player's own share added);
- the ``Table`` resource at the latest version (every view embeds it);
- each event as ``TableEvent`` for everyone allowed all of it (only a few events are redacted, and
  those per viewer).

Messages handed out are shared: callers copy them into their replies and never change them.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime
from typing import Any

from stud_service.server.api.convert import timestamp
from stud_service.server.api.events_proto import event_proto
from stud_service.server.proto_gen import events_pb2, table_pb2

MAX_VIEWERS = 32  # cached views per table: the seated players and a few observer classes
PUBLIC_EVENTS = 512  # events per table whose message is kept for the next watcher

__all__ = ["ReplyCache", "event_proto", "timestamp"]


class ReplyCache:
    """One table's shared reply parts (see the module docstring)."""

    __slots__ = ("_events", "_table", "_views")

    def __init__(self) -> None:
        self._views: dict[str | None, tuple[int, table_pb2.TableView]] = {}
        self._table: tuple[int, table_pb2.Table] | None = None
        self._events: dict[int, events_pb2.TableEvent] = {}

    def view(
        self, viewer: str | None, version: int, build: Callable[[], table_pb2.TableView]
    ) -> table_pb2.TableView:
        cached = self._views.get(viewer)
        if cached is not None and cached[0] == version:
            return cached[1]
        view = build()
        if cached is None or cached[0] < version:
            if cached is None and len(self._views) >= MAX_VIEWERS:
                self._views.clear()
            self._views[viewer] = (version, view)
        return view

    def table(self, version: int, build: Callable[[], table_pb2.Table]) -> table_pb2.Table:
        if self._table is not None and self._table[0] == version:
            return self._table[1]
        table = build()
        if self._table is None or self._table[0] < version:
            self._table = (version, table)
        return table

    def public_event(
        self, version: int, payload: dict[str, Any], recorded_at: datetime
    ) -> events_pb2.TableEvent:
        event = self._events.get(version)
        if event is None:
            event = event_proto(version, payload, recorded_at)
            if len(self._events) >= PUBLIC_EVENTS:
                self._events.clear()
            self._events[version] = event
        return event
