"""The server seeds a report's hands and stream blocks use.

In production every hand's server seed is 32 fresh bytes from the operating system's CSPRNG
(``stud_service.shuffle.new_server_seed``). A report does the same unless it is given a master seed: then
seed i of a kind is ``HMAC-SHA256(master, label || u64be(i))``, so a lab that reruns the report with the
seed it printed deals the same decks and reads the same stream, byte for byte. The labels keep the decks
and the stream independent of each other.
"""

from __future__ import annotations

import hmac
from collections.abc import Callable
from dataclasses import dataclass

from stud_service.shuffle import SERVER_SEED_BYTES, new_server_seed

DECK_LABEL = b"stud-service/rng-report/deck/v1"
STREAM_LABEL = b"stud-service/rng-report/stream/v1"
NIST_LABEL = b"stud-service/rng-report/nist/v1"


@dataclass(frozen=True)
class SeedSource:
    """Where seeds come from: ``master`` None is the OS CSPRNG (not reproducible), else derived."""

    master: bytes | None

    @classmethod
    def parse(cls, text: str | None) -> SeedSource:
        """``None`` or ``"os"``: the CSPRNG; otherwise 64 hex digits (32 bytes)."""
        if text is None or text == "os":
            return cls(None)
        try:
            master = bytes.fromhex(text)
        except ValueError as error:
            raise ValueError(f"a master seed is {2 * SERVER_SEED_BYTES} hex digits, not {text!r}") from error
        if len(master) != SERVER_SEED_BYTES:
            raise ValueError(f"a master seed is {2 * SERVER_SEED_BYTES} hex digits, got {len(text)}")
        return cls(master)

    @property
    def reproducible(self) -> bool:
        return self.master is not None

    def describe(self) -> str:
        if self.master is None:
            return "the operating system's CSPRNG (secrets.token_bytes), as in production: not reproducible"
        return f"derived from master seed {self.master.hex()}: HMAC-SHA256(master, label || u64be(i))"

    def seeder(self, label: bytes) -> Callable[[int], bytes]:
        """Seed number i of the kind ``label`` (the CSPRNG ignores both)."""
        master = self.master
        if master is None:
            return lambda _index: new_server_seed()
        return lambda index: hmac.digest(master, label + index.to_bytes(8, "big"), "sha256")
