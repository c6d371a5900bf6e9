"""The kernel's round-trip time of each client's TCP connection, found by the client's address.

grpc.aio measures the round trip of the HTTP/2 PING frames it sends (keepalive, BDP probes) but exposes
neither that nor the connection's socket.  The kernel measures every TCP connection's round trip from the
acknowledgements of what it sends (those pings included) and keeps a smoothed value (``tcpi_rtt``, in
microseconds) that any process may read for its own sockets through the ``sock_diag`` netlink interface
(what ``ss -ti`` shows).  One dump of the established connections gives every client's at once: a replica
takes one at most every ``FRESH_SECONDS``, whatever the number of its clients and views, and looks a client up
in it by its address and port.

Behind a proxy or load balancer that ends TCP, this is the round trip to the proxy.  On a system without
``sock_diag`` (not Linux) no client has a measure.
"""

from __future__ import annotations

import ipaddress
import socket
import struct
import threading
import time
from dataclasses import dataclass
from typing import Any

NETLINK_SOCK_DIAG = 4
SOCK_DIAG_BY_FAMILY = 20
NLM_F_REQUEST = 0x1
NLM_F_DUMP = 0x300
NLMSG_ERROR = 2
NLMSG_DONE = 3
INET_DIAG_INFO = 2
TCP_ESTABLISHED = 1
_NLMSG_HEADER = struct.Struct("=IHHII")
# struct inet_diag_msg: family, state, timer, retrans; then inet_diag_sockid (sport, dport, src[16], dst[16],
# if, cookie[2]); then expires, rqueue, wqueue, uid, inode.
_DIAG_MSG = struct.Struct("=BBBB2s2s16s16sI8sIIIII")
# struct tcp_info: eight one-byte fields, then u32s; tcpi_rtt is the 16th u32 (after tcpi_rcv_ssthresh).
_TCPI_RTT_OFFSET = 8 + 15 * 4
# A dump this young answers every lookup; an older one is taken again (a view per event per watcher must not
# cost a netlink round each).
FRESH_SECONDS = 1.0
_RECEIVE_BYTES = 1 << 16
# Peer strings whose parse is kept (a client keeps its connection, and every view for it looks it up).
MAX_PEERS = 100_000

Address = ipaddress.IPv4Address | ipaddress.IPv6Address
# A remote end as a dump holds it: the packed address (an IPv4-mapped IPv6 one as IPv4) and the port.
Key = tuple[bytes, int]
_V4_MAPPED_PREFIX = bytes(10) + b"\xff\xff"


@dataclass(frozen=True, slots=True)
class Peer:
    """A client's end of a TCP connection: its address and port."""

    address: Address
    port: int


def parse_peer(peer: str) -> Peer | None:
    """The client's end from gRPC's peer string (``ipv4:10.0.0.7:51234``, ``ipv6:[::1]:51234``, with
    %-escapes as gRPC writes them); None for anything else (a Unix socket, in-process)."""
    kind, _, rest = peer.partition(":")
    if kind not in ("ipv4", "ipv6"):
        return None
    host, sep, port = rest.replace("%5B", "[").replace("%5D", "]").rpartition(":")
    if not sep or not port.isdigit():
        return None
    try:
        return Peer(ipaddress.ip_address(host.strip("[]").split("%")[0]), int(port))
    except ValueError:
        return None


def _request(family: int) -> bytes:
    # struct inet_diag_req_v2: family, protocol, ext (ask for the tcp_info), pad, states; an empty sockid.
    body = struct.pack("=BBBBI", family, socket.IPPROTO_TCP, 1 << (INET_DIAG_INFO - 1), 0,
                       1 << TCP_ESTABLISHED) + bytes(48)
    flags = NLM_F_REQUEST | NLM_F_DUMP
    header = _NLMSG_HEADER.pack(_NLMSG_HEADER.size + len(body), SOCK_DIAG_BY_FAMILY, flags, 1, 0)
    return header + body


def _rtt_of(data: bytes, at: int, end: int) -> int | None:
    """tcpi_rtt from the attributes of one socket's message, between ``at`` and ``end``."""
    while at + 4 <= end:
        size, attribute = struct.unpack_from("=HH", data, at)
        if size < 4:
            return None
        if attribute == INET_DIAG_INFO and size >= 4 + _TCPI_RTT_OFFSET + 4:
            return int(struct.unpack_from("=I", data, at + 4 + _TCPI_RTT_OFFSET)[0])
        at += (size + 3) & ~3
    return None


def _read(data: bytes, into: dict[Key, int]) -> bool:
    """Each socket's remote end and round trip in one netlink reply; whether the dump is over."""
    offset = 0
    while offset + _NLMSG_HEADER.size <= len(data):
        length, kind, _flags, _seq, _pid = _NLMSG_HEADER.unpack_from(data, offset)
        if length < _NLMSG_HEADER.size or kind in (NLMSG_DONE, NLMSG_ERROR):
            return True
        if kind == SOCK_DIAG_BY_FAMILY and length >= _NLMSG_HEADER.size + _DIAG_MSG.size:
            fields = _DIAG_MSG.unpack_from(data, offset + _NLMSG_HEADER.size)
            family, remote_port, remote = fields[0], fields[5], fields[7]
            rtt = _rtt_of(data, offset + _NLMSG_HEADER.size + _DIAG_MSG.size, offset + length)
            if rtt is not None:
                packed = remote[:4] if family == socket.AF_INET else remote
                into[_key(packed, int.from_bytes(remote_port, "big"))] = rtt
        offset += (length + 3) & ~3
    return False


def _key(packed: bytes, port: int) -> Key:
    # A dual-stack listener holds an IPv4 client in an IPv6 socket, as ::ffff:a.b.c.d; gRPC names it ipv4.
    if len(packed) == 16 and packed[:12] == _V4_MAPPED_PREFIX:
        return packed[12:], port
    return packed, port


def established_round_trips() -> dict[Key, int]:
    """Every established TCP connection of this network namespace, by its remote end: the kernel's smoothed
    round trip (µs). Empty where there is no ``sock_diag``."""
    found: dict[Key, int] = {}
    try:
        for family in (socket.AF_INET, socket.AF_INET6):
            with socket.socket(socket.AF_NETLINK, socket.SOCK_RAW, NETLINK_SOCK_DIAG) as sock:
                sock.settimeout(1.0)
                sock.sendto(_request(family), (0, 0))
                while not _read(sock.recv(_RECEIVE_BYTES), found):
                    pass
    except OSError:  # not Linux, or refused: no measure rather than a failed call
        return found
    return found


_UNPARSED: Any = object()


class TcpRoundTrips:
    """The kernel's measures by peer string, from a dump of every connection taken at most once per
    ``FRESH_SECONDS``.  The first dump is taken at once; later ones in a thread of their own while lookups
    answer from the last (a dump of thousands of connections takes milliseconds the event loop should not
    wait for)."""

    def __init__(self) -> None:
        self._taken = float("-inf")
        self._known: dict[Key, int] | None = None
        self._refreshing = threading.Lock()
        self._keys: dict[str, Key | None] = {}  # peer strings as parsed: a client keeps its connection
        self.taken_ms = 0  # when the dump lookups answer from was taken (ms since the epoch)

    def round_trip_us(self, peer: str) -> int | None:
        key = self._keys.get(peer, _UNPARSED)
        if key is _UNPARSED:
            if len(self._keys) >= MAX_PEERS:
                self._keys.clear()
            parsed = parse_peer(peer)
            key = self._keys[peer] = None if parsed is None else _key(parsed.address.packed, parsed.port)
        if key is None:
            return None
        if self._known is None:
            self._refresh()
        elif time.monotonic() - self._taken >= FRESH_SECONDS and not self._refreshing.locked():
            threading.Thread(target=self._refresh, name="tcp-round-trips", daemon=True).start()
        known = self._known or {}
        return known.get(key)

    def _refresh(self) -> None:
        if not self._refreshing.acquire(blocking=False):
            return
        try:
            self._taken = time.monotonic()
            taken_ms = int(time.time() * 1000)
            self._known = established_round_trips()  # one assignment: lookups see the old dict or the new
            self.taken_ms = taken_ms
        finally:
            self._refreshing.release()
