"""Serving the web port with hypercorn, in the service's own event loop, on a socket bound here (port 0
picks a free one: tests read the bound port back)."""

from __future__ import annotations

import asyncio
import contextlib
import logging
import socket
from collections.abc import Callable
from dataclasses import dataclass, field

from hypercorn.asyncio import serve

from stud_service.server.grpc.app import TlsFiles
from stud_service.server.web import wire
from stud_service.server.web.wire import PortConfig, PortLimits

_log = logging.getLogger(__name__)

# An idle keep-alive connection is closed after this long; a watch stream is never idle that long while
# heartbeats are on (see --web-heartbeat-seconds).
KEEP_ALIVE_SECONDS = 75.0


def parse_listen(listen: str) -> tuple[str, int]:
    host, sep, port = listen.rpartition(":")
    if not sep or not port.isdigit():
        raise ValueError(f"--web-listen {listen!r} is not HOST:PORT")
    return host.strip("[]") or "0.0.0.0", int(port)


@dataclass
class WebServer:
    port: int
    tls: bool
    _stop: asyncio.Event = field(default_factory=asyncio.Event)
    _task: asyncio.Task[None] | None = None

    async def shutdown(self, grace: float) -> None:
        """Stop accepting, give requests ``grace`` seconds, then end."""
        self._stop.set()
        if self._task is not None:
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await asyncio.wait_for(self._task, grace + 1.0)


async def start_web_server(app: object, listen: str, tls: TlsFiles | None, grace: float,
                           limits: PortLimits | None = None,
                           connection_closed: Callable[[str], None] | None = None) -> WebServer:
    """Serve ``app`` on ``listen``; ``connection_closed`` is told the peer of each connection that closes."""
    host, port = parse_listen(listen)
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    sock = socket.socket(family, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        sock.bind((host, port))
    except OSError as error:
        sock.close()
        raise OSError(f"cannot listen on {listen} (web port): {error.strerror}") from None
    sock.listen(1024)
    sock.setblocking(False)
    wire.install()
    config = PortConfig(limits or PortLimits(), connection_closed)
    config.bind = [f"fd://{sock.fileno()}"]
    config.keep_alive_timeout = KEEP_ALIVE_SECONDS
    config.graceful_timeout = grace
    config.accesslog = None
    config.errorlog = logging.getLogger("stud_service.web.server")
    config.include_server_header = False
    if tls is not None:
        config.certfile, config.keyfile = str(tls.cert_file), str(tls.key_file)
    server = WebServer(port=sock.getsockname()[1], tls=tls is not None)

    async def run() -> None:
        try:
            await serve(app, config, shutdown_trigger=server._stop.wait)  # type: ignore[arg-type]
        finally:
            sock.close()

    server._task = asyncio.ensure_future(run())
    await asyncio.sleep(0)  # let hypercorn take the socket before anyone connects
    _log.info("web port serving on %d (%s)", server.port, "TLS" if tls else "plaintext")
    return server
