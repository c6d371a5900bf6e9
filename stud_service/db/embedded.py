"""The embedded PostgreSQL: a real server run by the ``pgserver`` package in a local data directory.

The data directory is initialised on first use and reused afterwards; a server already running on
it (for instance started by another process of ours) is shared rather than started twice. ``stop``
releases our handle; pgserver stops the server when the last process using it lets go.
"""

from __future__ import annotations

import logging
import warnings
from pathlib import Path

_log = logging.getLogger(__name__)


class EmbeddedPostgres:
    """A pgserver-managed PostgreSQL in ``pgdata``; ``url`` is valid between ``start`` and ``stop``."""

    def __init__(self, pgdata: Path, *, delete_on_stop: bool = False) -> None:
        self.pgdata = Path(pgdata)
        self._delete_on_stop = delete_on_stop
        self._server = None

    @property
    def url(self) -> str:
        if self._server is None:
            raise RuntimeError("the embedded PostgreSQL is not running")
        return self._server.get_uri()

    def start(self) -> str:
        """Start (or attach to) the server and return its URL. Blocking: from async code use a thread."""
        with warnings.catch_warnings():
            # pgserver asks platformdirs for a runtime directory when it is imported; without
            # $XDG_RUNTIME_DIR (a service account, a container, ssh without a login session) platformdirs
            # warns and uses /tmp/runtime-UID, which serves pgserver as well (its socket goes beside the
            # data directory when it can). That warning only, and only here.
            warnings.filterwarnings("ignore", message=".*XDG_RUNTIME_DIR", category=UserWarning)
            import pgserver  # imported here: only needed when no database URL is given

        self.pgdata.parent.mkdir(parents=True, exist_ok=True)
        _log.info("starting embedded PostgreSQL in %s", self.pgdata)
        self._server = pgserver.get_server(
            self.pgdata, cleanup_mode="delete" if self._delete_on_stop else "stop"
        )
        return self._server.get_uri()

    def stop(self) -> None:
        """Release the server (stopping it if we are its last user). Safe to call twice."""
        server, self._server = self._server, None
        if server is not None:
            server.cleanup()

    def __enter__(self) -> EmbeddedPostgres:
        self.start()
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.stop()
