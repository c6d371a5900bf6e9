"""Whether the database is reachable, and takes writes, as this process sees it: for readiness
(``server.grpc.readiness``).

Observed for free from what the store already does: every read and append reports its outcome here,
and so does the notification listener's connection. Nothing is probed while the store is busy and
answering; :meth:`StoreHealth.needs_probe` says when a light probe is due (the store has been failing,
or quiet for a while, so a silent outage is noticed too). A database can answer reads and still refuse
every write (out of disk, read-only): appends report that apart (:meth:`StoreHealth.writes_refused`),
and the first write that succeeds after it, an append or a probe, clears it.
"""

from __future__ import annotations

import time
from collections.abc import Callable


class StoreHealth:
    def __init__(self, clock: Callable[[], float] = time.monotonic) -> None:
        self._clock = clock
        self._down_since: float | None = None
        self._last_success = clock()
        self._writes_refused_since: float | None = None

    def succeeded(self) -> None:
        self._down_since = None
        self._last_success = self._clock()

    def failed(self) -> None:
        if self._down_since is None:
            self._down_since = self._clock()

    def wrote(self) -> None:
        """A write succeeded: the database takes writes (and answers)."""
        self._writes_refused_since = None
        self.succeeded()

    def writes_refused(self) -> None:
        """The database refused a write as it would refuse any (out of disk, read-only)."""
        if self._writes_refused_since is None:
            self._writes_refused_since = self._clock()

    def writes_refused_for(self) -> float:
        """Seconds since a write was first refused, none succeeding after it; 0.0 while writes go in."""
        return 0.0 if self._writes_refused_since is None else self._clock() - self._writes_refused_since

    def failing(self) -> bool:
        """Whether the last thing tried failed (nothing has succeeded since)."""
        return self._down_since is not None

    def unreachable_for(self) -> float:
        """Seconds since the first failure with no success after it; 0.0 while reachable."""
        return 0.0 if self._down_since is None else self._clock() - self._down_since

    def needs_probe(self, quiet: float) -> bool:
        """Down, or nothing succeeded for ``quiet`` seconds: only a probe can tell how things stand."""
        return self._down_since is not None or self._clock() - self._last_success >= quiet
