"""Text as the records of who called (the access log, player sessions) keep it: a caller's oversized or
garbled name cannot bloat or garble the log.

A module of its own, below both: the sessions' records must not import the access log's package, whose
reading imports the audit, which reads the sessions.
"""

from __future__ import annotations

MAX_FIELD_CHARS = 200


def clip(text: str) -> str:
    """``text`` as a record keeps it: at most MAX_FIELD_CHARS characters, with no control characters."""
    return "".join(ch if ch.isprintable() else "?" for ch in text[:MAX_FIELD_CHARS])
