"""What the store asks of a sealer (``EventStore(pool, sealer=...)``): the store only calls it.

``seal`` runs on every payload before it is encoded, so the hash chain covers what is stored (the sealed
form); ``open`` runs on every payload read back. Both return their argument itself when there is nothing to
do: the cost for an event without secrets is a dict lookup, not a copy.
"""

from __future__ import annotations

from typing import Any, Protocol


class PayloadSealer(Protocol):
    def seal(self, stream_id: str, version: int, payload: dict[str, Any]) -> dict[str, Any]:
        """``payload`` as stored at ``version`` of the stream (a sealed box is bound to its place)."""
        ...

    def open(self, stream_id: str, version: int, payload: dict[str, Any]) -> dict[str, Any]: ...

    def seal_snapshot(self, stream_id: str, version: int, state: dict[str, Any]) -> dict[str, Any]:
        """A snapshot's state as stored: a table's state may hold the cards of its last hand."""
        ...

    def open_snapshot(self, stream_id: str, version: int, state: dict[str, Any]) -> dict[str, Any] | None:
        """The state of a stored snapshot; None when it cannot be opened (the store then ignores it: a
        snapshot only shortens a replay)."""
        ...

    def recalled(self, stream_id: str) -> None:
        """Called after the store answered :class:`KeyNotInMemory` by opening the stream's newest sealed
        events, just before it seals once more."""


class KeyNotInMemory(Exception):
    """Raised by ``seal`` when it needs a key that opening the stream's recent sealed events provides (after
    a restart, or when another replica started the hand): the store reads them and seals once more."""


RECALL_EVENTS = 64  # the stream's newest sealed events read to recall its keys: more than a hand has
