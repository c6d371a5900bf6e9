"""What the web port refuses on the wire, before a request reaches the application: hypercorn's HTTP/1.1
(h11) and HTTP/2 (h2) protocols with the guards they lack, and a bound on the connections one address holds.

hypercorn offers no hook for these, so :func:`install` puts subclasses of its protocol classes in the places
it builds them from (hypercorn and h11 are pinned in pyproject.toml for that reason; tests/test_web_edges.py
holds each guard to its behaviour). Nothing here parses HTTP: h11 and h2 do, and the guards read what they
parsed.

HTTP/1.1 (:class:`GuardedH11Protocol`, on h11 via :class:`StrictH11Connection`):

- a request with both Content-Length and Transfer-Encoding, or with Transfer-Encoding in HTTP/1.0, is
  refused (h11 itself refuses two different Content-Lengths and any Transfer-Encoding but chunked): a proxy
  in front and this port could frame it differently, and one request would become two (request smuggling);
- bytes after a request that closes the connection (HTTP/1.0, ``Connection: close``) are dropped unread, as
  RFC 9112 §9.6 says. h11 reads them as a protocol error, and hypercorn answered that error with a bare 400
  while the application went on to run the request it already had in full: the client was told "400" about a
  call that ran;
- a head (request line and headers) over :data:`HEAD_LIMIT` bytes is refused 431, whether it came in one read
  or in several (h11 measures only a head still incomplete);
- a chunk that would take the body over the request limit is refused when its size line arrives, not after
  waiting for bytes that never come;
- a head must arrive in full within the header timeout of its first byte (408);
- every refusal carries the port's error body (Connect error JSON with an ErrorInfo reason), where
  hypercorn's own had none.

HTTP/2 (:class:`GuardedH2Protocol`): a frame header announcing a frame larger than the connection takes ends
the connection at once (GOAWAY FRAME_SIZE_ERROR); h2 checks the size only once the whole frame is in, so a
client could hold the connection (and h2's buffer) for as long as it liked.

Connections (:class:`GuardedProtocolWrapper`): an address holding ``max_connections_per_address`` already
has its next connection closed before anything is read from it; and when a connection closes, the port's
``connection_closed`` hears of it (the player sessions on that connection end: server.api.sessions).
"""

from __future__ import annotations

import asyncio
import collections
from collections.abc import Callable
from dataclasses import dataclass
from itertools import chain
from typing import Any

import h11
import hypercorn.asyncio.tcp_server
import hypercorn.protocol
from google.rpc import status_pb2
from h2.frame_buffer import FrameBuffer
from hypercorn.config import Config
from hypercorn.events import Closed, Event, RawData
from hypercorn.protocol import ProtocolWrapper
from hypercorn.protocol.h2 import H2Protocol
from hypercorn.protocol.h11 import H11Protocol
from hyperframe.frame import Frame

from stud_service.server.api.errors import malformed, refusal_for
from stud_service.server.web import routes as json_routes
from stud_service.server.web.call import peer_name
from stud_service.server.web.early import error_document
from stud_service.server.web.limits import MAX_REQUEST_BYTES, request_timeout, request_too_large

# The largest request head (request line and headers) taken, as HTTP/2's header list (hypercorn's
# h2_max_header_list_size): a long token fits many times over.
HEAD_LIMIT = 64 * 1024
_MESSAGE_CHARS = 120  # of h11's explanation, which may quote the request


@dataclass
class PortLimits:
    """What one client may hold of the port (0: no limit)."""

    header_timeout_seconds: float = 10.0
    max_connections_per_address: int = 128


class PortConfig(Config):
    """hypercorn's Config with the port's limits, the connections each address holds now, and who is told
    when a connection closes (its peer, as gRPC names one: ``ipv4:10.0.0.7:51234``)."""

    def __init__(self, limits: PortLimits, connection_closed: Callable[[str], None] | None = None) -> None:
        super().__init__()
        self.limits = limits
        self.connections: collections.Counter[str] = collections.Counter()
        self.connection_closed = connection_closed
        self.h11_max_incomplete_size = HEAD_LIMIT
        self.h2_max_header_list_size = HEAD_LIMIT


class Refusal(h11.RemoteProtocolError):
    """A request the guards refuse: h11's error, with the answer the port gives."""

    def __init__(self, status: status_pb2.Status, http_status: int) -> None:
        super().__init__(status.message, error_status_hint=http_status)
        self.status = status
        self.http_status = http_status


def _answer_to(error: h11.RemoteProtocolError | None, hint: int) -> tuple[int, status_pb2.Status]:
    """The HTTP status and refusal for h11's ``error`` (hypercorn passes on only its status ``hint``)."""
    if isinstance(error, Refusal):
        return error.http_status, error.status
    if hint == 431:
        return 431, request_too_large(f"the request's head is larger than {HEAD_LIMIT} bytes", HEAD_LIMIT)
    problem = str(error) if error is not None else "the request does not parse"
    if len(problem) > _MESSAGE_CHARS:
        problem = problem[: _MESSAGE_CHARS - 3] + "..."
    status = refusal_for(malformed(f"the request is not valid HTTP/1.1: {problem}"))
    return json_routes.http_status(status), status


def _head_size(request: h11.Request) -> int:
    lines = (len(name) + len(value) + 4 for name, value in request.headers.raw_items())
    return len(request.method) + len(request.target) + 12 + sum(lines)


class StrictH11Connection(h11.Connection):
    """h11's server connection with the request checks h11 leaves out (see the module's notes)."""

    def __init__(self, max_incomplete_event_size: int) -> None:
        super().__init__(h11.SERVER, max_incomplete_event_size=max_incomplete_event_size)
        self.problem: h11.RemoteProtocolError | None = None  # why the request was refused, for the answer
        self._body_bytes = 0
        self._stopped = False

    def stop_reading(self) -> None:
        """Read nothing more: the connection is being refused."""
        self._stopped = True

    def _reading(self) -> bool:
        # Nothing after a request that closes the connection is read either (RFC 9112 §9.6).
        return not self._stopped and self.their_state is not h11.MUST_CLOSE

    def receive_data(self, data: bytes) -> None:
        if data and not self._reading():
            return
        super().receive_data(data)

    def next_event(self) -> Any:
        if not self._reading():
            return h11.NEED_DATA  # bytes that came with the closing request: never read, never an error
        try:
            event = super().next_event()
        except h11.RemoteProtocolError as error:
            self.problem = error
            raise
        try:
            if isinstance(event, h11.Request):
                self._check_head(event)
                self._body_bytes = 0
            elif isinstance(event, h11.Data):
                self._body_bytes += len(event.data)
            self._check_chunk()
        except h11.RemoteProtocolError as error:
            self.problem = error
            # As h11 does with its own errors: the peer's state is ERROR, so nothing more is read and
            # hypercorn drops the application's answer, if it still sends one, instead of failing on it.
            self._process_error(self.their_role)
            raise
        return event

    def _check_head(self, request: h11.Request) -> None:
        if _head_size(request) > HEAD_LIMIT:
            raise h11.RemoteProtocolError("request head too large", error_status_hint=431)
        names = {name for name, _ in request.headers}
        if b"transfer-encoding" in names and b"content-length" in names:
            raise self._malformed("both Content-Length and Transfer-Encoding: a request may have one")
        if b"transfer-encoding" in names and request.http_version == b"1.0":
            raise self._malformed("Transfer-Encoding in an HTTP/1.0 request")

    def _check_chunk(self) -> None:
        # h11 keeps the size still to come of the chunk being read; it reads any size up to 2^80.
        pending = getattr(self._reader, "_bytes_in_chunk", 0)
        if self._body_bytes + pending > MAX_REQUEST_BYTES:
            message = f"a chunk takes the request body over {MAX_REQUEST_BYTES} bytes"
            status = request_too_large(message, MAX_REQUEST_BYTES)
            raise Refusal(status, json_routes.http_status(status))

    @staticmethod
    def _malformed(problem: str) -> Refusal:
        status = refusal_for(malformed(f"the request is not valid HTTP/1.1: {problem}"))
        return Refusal(status, json_routes.http_status(status))


class GuardedH11Protocol(H11Protocol):
    """hypercorn's HTTP/1.1 protocol on :class:`StrictH11Connection`, with a header timeout and refusals
    that carry the port's error body."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.connection = StrictH11Connection(self.config.h11_max_incomplete_size)
        self._head_timer: asyncio.TimerHandle | None = None

    async def handle(self, event: Event) -> None:
        if isinstance(event, RawData) and event.data and self._head_timer is None and self._awaiting_head():
            timeout = _limits(self.config).header_timeout_seconds
            if timeout > 0:
                self._head_timer = asyncio.get_running_loop().call_later(timeout, self._head_overdue)
        try:
            await super().handle(event)
        finally:
            if self._head_timer is not None and (isinstance(event, Closed) or not self._awaiting_head()):
                self._head_timer.cancel()
                self._head_timer = None

    def _awaiting_head(self) -> bool:
        connection = self.connection
        return (isinstance(connection, StrictH11Connection) and self.stream is None
                and connection.their_state is h11.IDLE and connection.our_state is h11.IDLE)

    def _head_overdue(self) -> None:
        self._head_timer = None
        if self._awaiting_head():
            # Before anything else runs: a head completing now must not start a request beside the refusal.
            self.connection.stop_reading()  # type: ignore[union-attr]
            timeout = _limits(self.config).header_timeout_seconds
            status = request_timeout(f"the request's head did not arrive in full within {timeout:g} s")
            self.task_group.spawn(self._refuse, 408, status)

    async def _refuse(self, http_status: int, status: status_pb2.Status) -> None:
        body = error_document(status)
        headers = [(b"content-type", b"application/json"), (b"content-length", str(len(body)).encode()),
                   (b"connection", b"close")]
        await self._send_h11_event(h11.Response(
            status_code=http_status, headers=list(chain(headers, self.config.response_headers("h11")))))
        await self._send_h11_event(h11.Data(data=body))
        await self._send_h11_event(h11.EndOfMessage())
        await self.send(Closed())

    async def _send_error_response(self, status_code: int) -> None:
        problem = getattr(self.connection, "problem", None)
        await self._refuse(*_answer_to(problem, status_code))


class _EagerFrameBuffer(FrameBuffer):
    """h2's frame buffer, refusing a frame too large as soon as its header is in."""

    def __next__(self) -> Frame:
        if len(self._data) >= 9:
            _, length = Frame.parse_frame_header(memoryview(self._data[:9]))
            self._validate_frame_length(length)  # h2 answers it with GOAWAY FRAME_SIZE_ERROR
        return super().__next__()


class GuardedH2Protocol(H2Protocol):
    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.connection.incoming_buffer = _EagerFrameBuffer(server=True)


class GuardedProtocolWrapper(ProtocolWrapper):
    """One connection: closed at once when its address holds the most connections allowed already."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._counted: str | None = None  # the address this connection is counted against, until it ends
        self._refused = False

    async def initiate(self) -> None:
        counts: collections.Counter[str] | None = getattr(self.config, "connections", None)
        if counts is not None and self.client is not None:
            address, limit = self.client[0], _limits(self.config).max_connections_per_address
            if 0 < limit <= counts[address]:
                self._refused = True
                await self.send(Closed())
                return
            counts[address] += 1
            self._counted = address
        await super().initiate()

    async def handle(self, event: Event) -> None:
        if self._refused:
            return
        try:
            await super().handle(event)
        finally:
            if isinstance(event, Closed) and self._counted is not None:
                counts = self.config.connections  # type: ignore[attr-defined]
                counts[self._counted] -= 1
                if counts[self._counted] <= 0:
                    del counts[self._counted]
                self._counted = None
                closed = getattr(self.config, "connection_closed", None)
                if closed is not None and self.client is not None:
                    closed(peer_name(self.client))


_DEFAULT_LIMITS = PortLimits(header_timeout_seconds=0, max_connections_per_address=0)


def _limits(config: Config) -> PortLimits:
    return getattr(config, "limits", _DEFAULT_LIMITS)  # another server's Config: no limits of ours


def install() -> None:
    """Make hypercorn build the guarded protocols (for every server in this process; a server whose Config
    is not a :class:`PortConfig` gets the wire checks without the port's limits)."""
    hypercorn.protocol.H11Protocol = GuardedH11Protocol  # type: ignore[misc]
    hypercorn.protocol.H2Protocol = GuardedH2Protocol  # type: ignore[misc]
    hypercorn.asyncio.tcp_server.ProtocolWrapper = GuardedProtocolWrapper  # type: ignore[misc]
