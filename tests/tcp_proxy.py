"""A loopback TCP forwarder whose connections a test can cut, as a network failure would: both sides
are aborted (reset), with nothing more sent either way. New connections are forwarded as before.

:meth:`TcpProxy.cut_at_commit` cuts the connection that carries one write of a database client, found by
bytes only that write sends (a request id, a payment reference): after the server answered it (the write
committed, its answer lost) or before it reached the server (nothing written). While ``refusing`` is set, new
connections are dropped at once, as from a database that is away.

``source``: the address its connections to the target come from (another loopback address, ``127.0.0.2``:
on Linux the whole of 127.0.0.0/8 is the loopback), so a server sees its clients at another address."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator
from dataclasses import dataclass, field


@dataclass
class _Trap:
    marker: bytes
    committed: bool
    away: bool  # then the database is away: all connections cut, new ones dropped until ``refusing`` clears
    sprung: asyncio.Future[None] = field(default_factory=lambda: asyncio.get_running_loop().create_future())


@dataclass
class _Connection:
    writers: tuple[asyncio.StreamWriter, asyncio.StreamWriter]
    lose_answer: _Trap | None = None  # its next answer from the server is dropped and the connection cut

    def abort(self) -> None:
        for writer in self.writers:
            writer.transport.abort()


class TcpProxy:
    def __init__(self, target_port: int, host: str = "127.0.0.1", source: str | None = None) -> None:
        self._target = (host, target_port)
        self._host = host
        self._source = (source, 0) if source else None
        self._server: asyncio.Server | None = None
        self._open: set[asyncio.StreamWriter] = set()
        self._pipes: set[asyncio.Task[None]] = set()
        self._trap: _Trap | None = None
        self.refusing = False
        self.refused = 0  # connections refused while ``refusing``

    @property
    def port(self) -> int:
        assert self._server is not None
        return self._server.sockets[0].getsockname()[1]

    @property
    def address(self) -> str:
        return f"{self._host}:{self.port}"

    @property
    def url(self) -> str:
        return f"http://{self._host}:{self.port}"

    async def start(self) -> None:
        self._server = await asyncio.start_server(self._accept, self._host, 0)

    def cut(self) -> int:
        """Abort every open connection, both the client's side and the server's; how many were open."""
        writers, self._open = self._open, set()
        for writer in writers:
            writer.transport.abort()
        return len(writers) // 2

    def cut_at_commit(self, marker: bytes, *, committed: bool, away: bool = False) -> asyncio.Future[None]:
        """Cut the next connection whose client sends ``marker``: ``committed``, once the server has answered
        those bytes (the answer is dropped); else before they reach the server. With ``away`` every other
        connection goes too, and new ones are refused until ``refusing`` is cleared. Done once cut."""
        self._trap = _Trap(marker, committed, away)
        return self._trap.sprung

    def _spring(self, trap: _Trap, connection: _Connection) -> None:
        if trap.away:
            self.refusing = True
            self.cut()
        connection.abort()
        trap.sprung.set_result(None)

    async def close(self) -> None:
        self.cut()
        if self._server is not None:
            self._server.close()
            await self._server.wait_closed()
        for pipe in self._pipes:
            pipe.cancel()

    async def _accept(self, client_reader: asyncio.StreamReader, client_writer: asyncio.StreamWriter) -> None:
        if self.refusing:
            self.refused += 1
            client_writer.transport.abort()
            return
        server_reader, server_writer = await asyncio.open_connection(*self._target, local_addr=self._source)
        self._open |= {client_writer, server_writer}
        connection = _Connection((client_writer, server_writer))
        pipes = [asyncio.ensure_future(self._upstream(client_reader, server_writer, connection)),
                 asyncio.ensure_future(self._downstream(server_reader, client_writer, connection))]
        self._pipes.update(pipes)
        await asyncio.gather(*pipes, return_exceptions=True)
        self._pipes.difference_update(pipes)
        for writer in (client_writer, server_writer):
            self._open.discard(writer)
            writer.transport.abort()


    async def _upstream(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter,
                        connection: _Connection) -> None:
        """Client to server, watching for the trap's marker."""
        with contextlib.suppress(ConnectionError, OSError):
            while data := await reader.read(65536):
                if (trap := self._trap) is not None and trap.marker in data:
                    self._trap = None
                    if not trap.committed:
                        self._spring(trap, connection)
                        return
                    connection.lose_answer = trap
                writer.write(data)
                await writer.drain()
        with contextlib.suppress(ConnectionError, OSError, RuntimeError):
            writer.write_eof()

    async def _downstream(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter,
                          connection: _Connection) -> None:
        """Server to client; an answer the trap is waiting for is dropped and the connection cut."""
        with contextlib.suppress(ConnectionError, OSError):
            while data := await reader.read(65536):
                if (trap := connection.lose_answer) is not None:
                    self._spring(trap, connection)
                    return
                writer.write(data)
                await writer.drain()
        with contextlib.suppress(ConnectionError, OSError, RuntimeError):
            writer.write_eof()


@contextlib.asynccontextmanager
async def tcp_proxy(target_port: int) -> AsyncIterator[TcpProxy]:
    proxy = TcpProxy(target_port)
    await proxy.start()
    try:
        yield proxy
    finally:
        await proxy.close()
