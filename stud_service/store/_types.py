"""What the event store, its writer and its notification hub share.

The store (``eventlog``) owns a writer (``_writer``) and a hub (``subscribe``); these depend on the
pieces here, never on the store or on each other: a command's encoded events and its parts as the
writer takes them, the rows it answers with, and the channel the writer announces on and the hub
listens to.
"""

from __future__ import annotations

from dataclasses import dataclass

from stud_service.store.models import Fence

NOTIFY_CHANNEL = "stud_events"

AppendRow = tuple[str, int | None, int]  # outcome, first version, last (or actual) version


@dataclass(slots=True)
class EncodedCommand:
    """One command's events as the log stores them: canonical JSON (the bytes each hash covers),
    with the type and hand read from each event. Not changed once made."""

    texts: list[bytes]
    types: list[str]
    hands: list[int | None]


@dataclass(slots=True)
class Part:
    """One stream's share of a command."""

    stream_id: str
    expected: int
    request_id: str | None
    fingerprint: str | None  # hex, stored beside request_id
    events: EncodedCommand
    lead: bool = True  # the command's first part: its request id tells a retry from a new command
    fence: Fence | None = None  # on the lead part: the lease the command's writer must hold
