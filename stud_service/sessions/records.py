"""A player session and its events in the log.

A session is one player's calls over one connection (docs/player-protection.md). It is recorded when its
first call arrives and when it ends, never per call; the tables it touches after its first call are recorded
as it touches them (in the background, a few events per session at most), so a session whose replica crashed
still names them. All three events of a session are in one stream, ``sessions/{YYYY-MM-DD}/{writer}``: the
UTC day it started and the replica serving it. Version 1::

    {"type": "PlayerSessionStarted", "v": 1, "session": "4f1c...", "player": "alice", "transport": "grpc",
     "connection": "ipv4:10.0.0.7:51234", "address": "10.0.0.7", "device": "d-81f0...", "writer": "9c2e...",
     "tables": ["tables/t1"], "at_ms": 1764600000000}
    {"type": "PlayerSessionTables", "v": 1, "session": "4f1c...", "tables": ["tables/t2"], "at_ms": ...}
    {"type": "PlayerSessionEnded", "v": 1, "session": "4f1c...", "reason": "idle", "tables": [...],
     "calls": 212, "at_ms": ...}
    {"type": "SessionStreamClosed", "v": 1, "writer": "9c2e...", "at_ms": ...}

The last says that every session of its stream has ended and that none will start there: its writer writes
it when a day is over and its sessions of that day have ended, and for all its streams when it stops; for a
crashed writer, the replica that closes its sessions does (``sessions.recovery``). A stream that does not end
with it may hold open sessions.

Text fields are cut as the access log cuts them (``access.records.clip``). A session carries the address and
device the player's client presented, and no token, card or amount.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from stud_service.record_text import clip

SESSION_STARTED = "PlayerSessionStarted"
SESSION_TABLES = "PlayerSessionTables"
SESSION_ENDED = "PlayerSessionEnded"
STREAM_CLOSED = "SessionStreamClosed"  # every session of the stream has ended, and none will start there
SESSION_TYPES = (SESSION_STARTED, SESSION_TABLES, SESSION_ENDED, STREAM_CLOSED)
STREAM_PREFIX = "sessions/"
FORMAT_VERSION = 1


class Transport(enum.StrEnum):
    GRPC = "grpc"
    WEB = "web"


class EndReason(enum.StrEnum):
    """Why a session ended (``stud.v1.SessionEnd``)."""

    CLOSED = "closed"  # its connection closed (the web port sees that)
    IDLE = "idle"  # no call for the idle time-out and no stream open (gRPC never says a connection closed)
    SHUTDOWN = "shutdown"  # its replica stopped
    REPLICA_LOST = "replica_lost"  # its replica stopped heartbeating; another one closed it


def day_of(at_ms: int) -> str:
    return datetime.fromtimestamp(at_ms / 1000, UTC).strftime("%Y-%m-%d")


def stream_for(start_ms: int, writer: str) -> str:
    """The stream of a session started at ``start_ms`` on ``writer``: ``sessions/{day}/{writer}``."""
    return f"{STREAM_PREFIX}{day_of(start_ms)}/{writer}"


def writer_of(stream_id: str) -> str:
    """The writer a session stream belongs to (the part after its day)."""
    return stream_id[len(STREAM_PREFIX):].partition("/")[2]


@dataclass(frozen=True, slots=True)
class SessionStart:
    session_id: str
    player_id: str
    transport: Transport
    connection: str  # the peer, as gRPC names it
    address: str  # the client's IP address, "" when the connection has none
    device: str  # the client's x-stud-device-id, "" when it sent none
    writer: str  # the replica serving it
    at_ms: int
    tables: tuple[str, ...] = ()  # the table its first call named, if any

    def to_event(self) -> dict[str, Any]:
        return {
            "type": SESSION_STARTED, "v": FORMAT_VERSION, "session": self.session_id,
            "player": clip(self.player_id), "transport": self.transport.value,
            "connection": clip(self.connection), "address": clip(self.address), "device": clip(self.device),
            "writer": clip(self.writer), "tables": [clip(table) for table in self.tables],
            "at_ms": self.at_ms,
        }

    @classmethod
    def from_event(cls, payload: dict[str, Any]) -> SessionStart:
        return cls(
            session_id=payload["session"], player_id=payload["player"],
            transport=Transport(payload["transport"]),
            connection=payload["connection"], address=payload["address"], device=payload["device"],
            writer=payload["writer"], at_ms=int(payload["at_ms"]), tables=tuple(payload.get("tables") or ()),
        )


def tables_event(session_id: str, tables: tuple[str, ...], at_ms: int) -> dict[str, Any]:
    """Tables a session named for the first time since its last record of them."""
    return {"type": SESSION_TABLES, "v": FORMAT_VERSION, "session": session_id,
            "tables": [clip(table) for table in tables], "at_ms": at_ms}


def stream_closed_event(writer: str, at_ms: int) -> dict[str, Any]:
    return {"type": STREAM_CLOSED, "v": FORMAT_VERSION, "writer": clip(writer), "at_ms": at_ms}


@dataclass(frozen=True, slots=True)
class SessionEnd:
    session_id: str
    reason: EndReason
    at_ms: int
    tables: tuple[str, ...]  # every table the session named
    calls: int

    def to_event(self) -> dict[str, Any]:
        return {"type": SESSION_ENDED, "v": FORMAT_VERSION, "session": self.session_id,
                "reason": self.reason.value, "tables": [clip(table) for table in self.tables],
                "calls": self.calls, "at_ms": self.at_ms}

    @classmethod
    def from_event(cls, payload: dict[str, Any]) -> SessionEnd:
        return cls(session_id=payload["session"], reason=EndReason(payload["reason"]),
                   at_ms=int(payload["at_ms"]), tables=tuple(payload.get("tables") or ()),
                   calls=int(payload.get("calls") or 0))


@dataclass(frozen=True, slots=True)
class PlayerSession:
    """A session as the log holds it: its start, its end if it has ended, every table it named, and where
    its start lies in the log."""

    start: SessionStart
    end: SessionEnd | None
    tables: tuple[str, ...]
    stream_id: str
    version: int

    @property
    def open(self) -> bool:
        return self.end is None
