"""The kernel's round-trip time of a client's TCP connection, found by the client's address.

grpc.aio measures the round trip of the HTTP/2 PING frames it sends (keepalive, BDP probes) but exposes
neither that nor the connection's socket.  The kernel measures every TCP connection's round trip from the
acknowledgements of what it sends (those pings included) and keeps a smoothed value (``tcpi_rtt``, in
microseconds) that any process may read for its own sockets through the ``sock_diag`` netlink interface
(what ``ss -ti`` shows).  The socket is found by the client's address and port: a dump filtered in the
kernel by the remote end.

Behind a proxy or load balancer that ends TCP, this is the round trip to the proxy.  On a system without
``sock_diag`` (not Linux) every lookup finds nothing.
"""

from __future__ import annotations

import ipaddress
import socket
import struct
import time
from dataclasses import dataclass

NETLINK_SOCK_DIAG = 4
SOCK_DIAG_BY_FAMILY = 20
NLM_F_REQUEST = 0x1
NLM_F_DUMP = 0x300
NLMSG_ERROR = 2
NLMSG_DONE = 3
INET_DIAG_INFO = 2
INET_DIAG_REQ_BYTECODE = 1
INET_DIAG_BC_D_COND = 8
TCP_ESTABLISHED = 1
_NLMSG_HEADER = struct.Struct("=IHHII")
_DIAG_MSG_SIZE = 72  # struct inet_diag_msg
# struct tcp_info: eight one-byte fields, then u32s; tcpi_rtt is the 16th u32 (after tcpi_rcv_ssthresh).
_TCPI_RTT_OFFSET = 8 + 15 * 4
# A measure this young is used again rather than asked of the kernel once more (a view per event per
# watcher must not cost a netlink round each).
FRESH_SECONDS = 1.0
_CACHE_LIMIT = 4096


@dataclass(frozen=True, slots=True)
class Peer:
    """A client's end of a TCP connection: its address and port."""

    address: ipaddress.IPv4Address | ipaddress.IPv6Address
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


def _filter(family: int, address: bytes, port: int) -> bytes:
    """sock_diag bytecode: the remote end is ``address``:``port`` (accept), else reject."""
    cond = struct.pack("=BBxxi", family, len(address) * 8, port) + address  # struct inet_diag_hostcond
    length = 4 + len(cond)
    return struct.pack("=BBH", INET_DIAG_BC_D_COND, length, length + 4) + cond


def _request(family: int, address: bytes, port: int) -> bytes:
    bytecode = _filter(family, address, port)
    attribute = struct.pack("=HH", 4 + len(bytecode), INET_DIAG_REQ_BYTECODE) + bytecode
    # struct inet_diag_req_v2: family, protocol, ext (the tcp_info), pad, states; then an empty sockid.
    body = struct.pack("=BBBBI", family, socket.IPPROTO_TCP, 1 << (INET_DIAG_INFO - 1), 0,
                       1 << TCP_ESTABLISHED) + bytes(48) + attribute
    return _NLMSG_HEADER.pack(_NLMSG_HEADER.size + len(body), SOCK_DIAG_BY_FAMILY, NLM_F_REQUEST | NLM_F_DUMP,
                              1, 0) + body


def _first_rtt(data: bytes) -> tuple[int | None, bool]:
    """The first tcpi_rtt (µs) in a netlink reply, and whether the dump is over."""
    offset = 0
    while offset + _NLMSG_HEADER.size <= len(data):
        length, kind, _flags, _seq, _pid = _NLMSG_HEADER.unpack_from(data, offset)
        if length < _NLMSG_HEADER.size:
            return None, True
        if kind in (NLMSG_DONE, NLMSG_ERROR):
            return None, True
        if kind == SOCK_DIAG_BY_FAMILY:
            at = offset + _NLMSG_HEADER.size + _DIAG_MSG_SIZE
            end = offset + length
            while at + 4 <= end:
                size, attribute = struct.unpack_from("=HH", data, at)
                if size < 4:
                    break
                if attribute == INET_DIAG_INFO and size >= 4 + _TCPI_RTT_OFFSET + 4:
                    return struct.unpack_from("=I", data, at + 4 + _TCPI_RTT_OFFSET)[0], True
                at += (size + 3) & ~3
        offset += (length + 3) & ~3
    return None, False


def _ask_kernel(family: int, address: bytes, port: int) -> int | None:
    with socket.socket(socket.AF_NETLINK, socket.SOCK_RAW, NETLINK_SOCK_DIAG) as sock:
        sock.settimeout(0.5)
        sock.sendto(_request(family, address, port), (0, 0))
        while True:
            rtt, done = _first_rtt(sock.recv(65536))
            if done:
                return rtt


def kernel_round_trip_us(peer: Peer) -> int | None:
    """The smoothed round trip (µs) of this host's established TCP connection to ``peer``, or None."""
    candidates: list[tuple[int, bytes]] = []
    if isinstance(peer.address, ipaddress.IPv4Address):
        candidates.append((socket.AF_INET, peer.address.packed))
        # A dual-stack listener holds IPv4 clients in IPv6 sockets, as ::ffff:a.b.c.d.
        candidates.append((socket.AF_INET6, ipaddress.IPv6Address(f"::ffff:{peer.address}").packed))
    else:
        candidates.append((socket.AF_INET6, peer.address.packed))
    try:
        for family, address in candidates:
            rtt = _ask_kernel(family, address, peer.port)
            if rtt is not None:
                return rtt
    except OSError:  # no sock_diag here (not Linux, or refused): no measure
        return None
    return None


class TcpRoundTrips:
    """Kernel measures by peer string, each asked of the kernel at most once per FRESH_SECONDS."""

    def __init__(self) -> None:
        self._known: dict[str, tuple[float, int | None]] = {}

    def round_trip_us(self, peer: str) -> int | None:
        now = time.monotonic()
        known = self._known.get(peer)
        if known is not None and now - known[0] < FRESH_SECONDS:
            return known[1]
        parsed = parse_peer(peer)
        rtt = kernel_round_trip_us(parsed) if parsed is not None else None
        if len(self._known) >= _CACHE_LIMIT:
            self._known.clear()  # peers come and go: forget them all now and then rather than track each
        self._known[peer] = (now, rtt)
        return rtt
