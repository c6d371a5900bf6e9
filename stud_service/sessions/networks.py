"""Client addresses: where a call comes from, and when two addresses are one network.

The service names a connection as gRPC names its peer: ``ipv4:10.0.0.7:51234``, ``ipv6:[2001:db8::7]:443``
(``unix:/path`` has no address). The same-network rule (docs/player-protection.md) compares addresses:

- the same **address**: equal after an IPv4-mapped IPv6 address (``::ffff:10.0.0.7``, what a dual-stack socket
  reports for an IPv4 client) is read as the IPv4 address it maps;
- the same **network**: the same /24 for IPv4 and the same /64 for IPv6 (a home's router hands out one
  IPv4 /24 behind one public address, and an ISP delegates at least a /64 to each customer). An IPv4 address
  and an IPv6 one are never one network.

Behind a reverse proxy the connection is the proxy's. ``TrustedProxies`` (``--trusted-proxies``) names the
proxies whose ``X-Forwarded-For`` is believed: only then is the client the address the proxies forwarded,
read from the right (each proxy appends the address it received the request from), skipping the trusted
proxies themselves. A header from any other peer is ignored: anyone can send one.
"""

from __future__ import annotations

import ipaddress
from collections.abc import Iterable
from dataclasses import dataclass

IPAddress = ipaddress.IPv4Address | ipaddress.IPv6Address
IPNetwork = ipaddress.IPv4Network | ipaddress.IPv6Network

IPV4_PREFIX = 24
IPV6_PREFIX = 64
FORWARDED_FOR_HEADER = "x-forwarded-for"
# Addresses read from one X-Forwarded-For (all its lines together): a longer chain is cut to its right end,
# the part the trusted proxies wrote.
MAX_FORWARDED_HOPS = 32


def plain(address: IPAddress) -> IPAddress:
    """``address``, an IPv4-mapped IPv6 address as the IPv4 address it maps."""
    if isinstance(address, ipaddress.IPv6Address) and address.ipv4_mapped is not None:
        return address.ipv4_mapped
    return address


def parse_address(text: str) -> IPAddress | None:
    """An address as written in a peer or a forwarded header: ``10.0.0.7``, ``10.0.0.7:51234``,
    ``2001:db8::7``, ``[2001:db8::7]:443``; None when it is none of those."""
    text = text.strip()
    if text.startswith("["):
        host, bracket, _port = text[1:].partition("]")
        if not bracket:
            return None
        text = host
    elif text.count(":") == 1:  # IPv4 with a port (IPv6 has at least two colons)
        text = text.partition(":")[0]
    try:
        return plain(ipaddress.ip_address(text))
    except ValueError:
        return None


def peer_address(peer: str) -> IPAddress | None:
    """The IP address of a peer named as gRPC names it (``ipv4:10.0.0.7:51234``, ``ipv6:[::1]:443``); None
    for one without (``unix:...``) or one that does not parse."""
    kind, _, rest = peer.partition(":")
    if kind not in ("ipv4", "ipv6"):
        return None
    if kind == "ipv6" and not rest.startswith("["):  # some stacks leave the brackets out
        rest = "[" + rest.rpartition(":")[0] + "]"
    return parse_address(rest)


def network_of(address: IPAddress) -> IPNetwork:
    """The network ``address`` belongs to by the rule: its /24 (IPv4) or /64 (IPv6)."""
    address = plain(address)
    prefix = IPV4_PREFIX if isinstance(address, ipaddress.IPv4Address) else IPV6_PREFIX
    return ipaddress.ip_network(f"{address}/{prefix}", strict=False)


def same_address(a: IPAddress, b: IPAddress) -> bool:
    return plain(a) == plain(b)


def same_network(a: IPAddress, b: IPAddress) -> bool:
    """Whether ``a`` and ``b`` share a /24 (IPv4) or a /64 (IPv6)."""
    return network_of(a) == network_of(b)


def parse_network(text: str) -> IPNetwork:
    """An address (one host) or a network in CIDR form (``10.0.0.0/8``, ``2001:db8::/32``); ValueError for
    anything else, host bits set included."""
    text = text.strip()
    network = ipaddress.ip_network(text, strict=True)
    if isinstance(network, ipaddress.IPv6Network) and network.network_address.ipv4_mapped is not None \
            and network.prefixlen >= 96:
        mapped = network.network_address.ipv4_mapped
        return ipaddress.ip_network(f"{mapped}/{network.prefixlen - 96}")
    return network


def within(address: IPAddress, network: IPNetwork) -> bool:
    address = plain(address)
    return address.version == network.version and address in network


@dataclass(frozen=True)
class TrustedProxies:
    """The proxies whose X-Forwarded-For the service believes (``--trusted-proxies``): none by default."""

    networks: tuple[IPNetwork, ...] = ()

    @classmethod
    def parse(cls, setting: str) -> TrustedProxies:
        """``--trusted-proxies``: addresses or CIDR networks, comma separated; "" or "none": none.
        ValueError naming the first entry that is neither."""
        networks = []
        for item in setting.split(","):
            item = item.strip()
            if not item or item.lower() == "none":
                continue
            try:
                networks.append(parse_network(item))
            except ValueError:
                raise ValueError(f"--trusted-proxies: {item!r} is not an address or a network"
                                 " (CIDR, without host bits)") from None
        return cls(tuple(networks))

    def __bool__(self) -> bool:
        return bool(self.networks)

    def trusts(self, address: IPAddress) -> bool:
        return any(within(address, network) for network in self.networks)

    def client(self, connection: IPAddress | None, forwarded_for: Iterable[str]) -> IPAddress | None:
        """The client's address: ``connection``'s, unless a trusted proxy made the connection; then the
        first address from the right of ``forwarded_for`` (the header's values, in order) that is not a
        trusted proxy's. An entry that is not an address ends the walk at the proxy that wrote it (who
        is beyond it is unknown); all of them trusted: the leftmost."""
        if connection is None or not self.trusts(connection):
            return connection
        # Empty list elements are ignored, as HTTP's list syntax says.
        hops = [hop for value in forwarded_for for hop in value.split(",") if hop.strip()]
        hops = hops[-MAX_FORWARDED_HOPS:]
        current = connection
        for hop in reversed(hops):
            address = parse_address(hop)
            if address is None:
                return current
            current = address
            if not self.trusts(address):
                return address
        return current
