"""One access record and its event in the log.

The event (``AccessRecorded``, version 1)::

    {"type": "AccessRecorded", "v": 1, "principal": "alice", "role": "operator",
     "method": "/stud.v1.CashierService/Deposit", "resource": "players/bob/accounts/USD",
     "peer": "ipv4:10.0.0.7:51234", "outcome": "allowed", "reason": "", "at_ms": 1764600000000}

It names the call, never its content: no token, seed, card, amount or reason text is ever in one.
Text fields are cut to ``MAX_FIELD_CHARS`` so a caller's oversized name cannot bloat the log.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from stud_service.record_text import clip

ACCESS_RECORDED = "AccessRecorded"
STREAM_PREFIX = "access/"
FORMAT_VERSION = 1


class Outcome(enum.StrEnum):
    """The access decision, taken from the caller's role before the call does its work."""

    ALLOWED = "allowed"
    REFUSED = "refused"


@dataclass(frozen=True, slots=True)
class AccessRecord:
    """Who (``principal_id``, ``role``) called what (``method`` on ``resource``), when (``at_ms``, the
    service's clock), from where (``peer``), and what the service decided (``outcome``, with the
    ErrorReason in ``reason`` when refused, else "")."""

    principal_id: str
    role: str
    method: str
    resource: str
    peer: str
    outcome: Outcome
    reason: str
    at_ms: int

    def to_event(self) -> dict[str, Any]:
        return {
            "type": ACCESS_RECORDED,
            "v": FORMAT_VERSION,
            "principal": clip(self.principal_id),
            "role": clip(self.role),
            "method": clip(self.method),
            "resource": clip(self.resource),
            "peer": clip(self.peer),
            "outcome": self.outcome.value,
            "reason": clip(self.reason),
            "at_ms": self.at_ms,
        }

    @classmethod
    def from_event(cls, payload: dict[str, Any]) -> AccessRecord:
        return cls(
            principal_id=payload["principal"],
            role=payload["role"],
            method=payload["method"],
            resource=payload["resource"],
            peer=payload["peer"],
            outcome=Outcome(payload["outcome"]),
            reason=payload.get("reason") or "",
            at_ms=int(payload["at_ms"]),
        )

    @property
    def at(self) -> datetime:
        return datetime.fromtimestamp(self.at_ms / 1000, UTC)


@dataclass(frozen=True, slots=True)
class StoredAccessRecord:
    """A record and where it lies in the log (its stream and version: what the hash chain covers)."""

    record: AccessRecord
    stream_id: str
    version: int
