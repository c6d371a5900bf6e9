"""A loopback TCP forwarder whose connections a test can cut, as a network failure would: both sides
are aborted (reset), with nothing more sent either way. New connections are forwarded as before.

``source``: the address its connections to the target come from (another loopback address, ``127.0.0.2``:
on Linux the whole of 127.0.0.0/8 is the loopback), so a server sees its clients at another address."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator


class TcpProxy:
    def __init__(self, target_port: int, host: str = "127.0.0.1", source: str | None = None) -> None:
        self._target = (host, target_port)
        self._host = host
        self._source = (source, 0) if source else None
        self._server: asyncio.Server | None = None
        self._open: set[asyncio.StreamWriter] = set()
        self._pipes: set[asyncio.Task[None]] = set()

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

    async def close(self) -> None:
        self.cut()
        if self._server is not None:
            self._server.close()
            await self._server.wait_closed()
        for pipe in self._pipes:
            pipe.cancel()

    async def _accept(self, client_reader: asyncio.StreamReader, client_writer: asyncio.StreamWriter) -> None:
        server_reader, server_writer = await asyncio.open_connection(*self._target, local_addr=self._source)
        self._open |= {client_writer, server_writer}
        pipes = [asyncio.ensure_future(_pipe(client_reader, server_writer)),
                 asyncio.ensure_future(_pipe(server_reader, client_writer))]
        self._pipes.update(pipes)
        await asyncio.gather(*pipes, return_exceptions=True)
        self._pipes.difference_update(pipes)
        for writer in (client_writer, server_writer):
            self._open.discard(writer)
            writer.transport.abort()


async def _pipe(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
    with contextlib.suppress(ConnectionError, OSError):
        while data := await reader.read(65536):
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
