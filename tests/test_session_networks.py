"""Where a call comes from (stud_service.sessions.networks, .devices): the same-network rule's address rules
(IPv4 /24, IPv6 /64, IPv4-mapped IPv6), peers as gRPC names them, the trusted proxies' X-Forwarded-For, and
the device id's bounds."""

from __future__ import annotations

import ipaddress

import pytest
from hypothesis import given
from hypothesis import strategies as st

from stud_service.sessions import (
    DeviceIdError,
    TrustedProxies,
    device_id_of,
    network_of,
    parse_network,
    peer_address,
    same_address,
    same_network,
)
from stud_service.sessions.networks import parse_address, plain

ipv4s = st.integers(0, 2**32 - 1).map(ipaddress.IPv4Address)
# IPv6 addresses that are not IPv4-mapped: those are read as IPv4 (tested apart).
ipv6s = st.integers(0, 2**128 - 1).map(ipaddress.IPv6Address).filter(lambda a: a.ipv4_mapped is None)
ports = st.integers(0, 65535)


def mapped(address: ipaddress.IPv4Address) -> ipaddress.IPv6Address:
    return ipaddress.IPv6Address(f"::ffff:{address}")


@given(ipv4s, ipv4s)
def test_two_ipv4_addresses_are_one_network_when_they_share_their_first_24_bits(a, b):
    assert same_network(a, b) == (int(a) >> 8 == int(b) >> 8)
    assert same_address(a, b) == (a == b)


@given(ipv4s, st.integers(0, 255))
def test_every_address_of_a_slash_24_is_one_network(a, last):
    other = ipaddress.IPv4Address((int(a) & ~0xFF) | last)
    assert same_network(a, other)
    assert network_of(a) == network_of(other) == ipaddress.IPv4Network(f"{other}/24", strict=False)


@given(ipv6s, ipv6s)
def test_two_ipv6_addresses_are_one_network_when_they_share_their_first_64_bits(a, b):
    assert same_network(a, b) == (int(a) >> 64 == int(b) >> 64)


@given(ipv6s, st.integers(0, 2**64 - 1))
def test_every_address_of_a_slash_64_is_one_network(a, interface):
    other = ipaddress.IPv6Address((int(a) >> 64 << 64) | interface)
    if other.ipv4_mapped is None:
        assert same_network(a, other)
        assert network_of(other).prefixlen == 64


@given(ipv4s, ipv4s)
def test_an_ipv4_mapped_ipv6_address_is_the_ipv4_address_it_maps(a, b):
    assert plain(mapped(a)) == a
    assert same_address(mapped(a), a)
    assert same_network(mapped(a), b) == same_network(a, b) == same_network(a, mapped(b))
    assert network_of(mapped(a)) == network_of(a)


@given(ipv4s, ipv6s)
def test_an_ipv4_address_and_an_ipv6_one_are_never_one_network(a, b):
    assert not same_network(a, b)
    assert not same_address(a, b)


@given(ipv4s, ports)
def test_an_ipv4_peer_is_read_as_grpc_names_it(a, port):
    assert peer_address(f"ipv4:{a}:{port}") == a


@given(ipv6s, ports)
def test_an_ipv6_peer_is_read_as_grpc_names_it(a, port):
    assert peer_address(f"ipv6:[{a}]:{port}") == a
    assert parse_address(f"[{a}]:{port}") == parse_address(str(a)) == a


@given(ipv4s, ports)
def test_an_ipv4_client_of_a_dual_stack_socket_is_its_ipv4_address(a, port):
    assert peer_address(f"ipv6:[::ffff:{a}]:{port}") == a


@pytest.mark.parametrize("peer", ["unix:/tmp/s.sock", "", "ipv4:", "ipv4:nonsense:1", "ipv6:[::1", "local:x"])
def test_a_peer_without_an_ip_address_has_none(peer):
    assert peer_address(peer) is None


@given(ipv4s, st.integers(0, 32))
def test_a_network_of_mapped_addresses_is_the_ipv4_network(a, prefix):
    network = ipaddress.IPv4Network(f"{a}/{prefix}", strict=False)
    as_mapped = f"::ffff:{network.network_address}/{96 + prefix}"
    assert parse_network(as_mapped) == network
    assert parse_network(str(network)) == network


@pytest.mark.parametrize("text", ["10.0.0.1/24", "not an address", "10.0.0.0/33", ""])
def test_a_network_with_host_bits_or_none_is_refused(text):
    with pytest.raises(ValueError):
        parse_network(text)


# -- trusted proxies -------------------------------------------------------------------------------------

PROXIES = TrustedProxies.parse("10.1.0.0/16, 2001:db8:1::/48")


@given(ipv4s, st.lists(ipv4s, max_size=4))
def test_a_forwarded_header_from_an_untrusted_peer_is_ignored(peer, forwarded):
    if not PROXIES.trusts(peer):
        assert PROXIES.client(peer, [", ".join(map(str, forwarded))]) == peer


@given(st.lists(ipv4s, min_size=1, max_size=6), st.lists(st.integers(0, 2**16 - 1), max_size=3))
def test_behind_trusted_proxies_the_client_is_the_rightmost_address_no_trusted_proxy_wrote(chain, hops):
    """X-Forwarded-For is client, proxy1, proxy2...; each proxy appends the address it got the request from.
    Reading from the right, the trusted proxies' own addresses are skipped; the first other is the client."""
    proxies = [ipaddress.IPv4Address(0x0A010000 | hop) for hop in hops]  # 10.1.x.x: trusted
    header = ", ".join(str(a) for a in [*chain, *proxies])
    connection = ipaddress.IPv4Address("10.1.255.254")
    untrusted = [a for a in chain if not PROXIES.trusts(a)]
    expected = untrusted[-1] if untrusted else chain[0]
    assert PROXIES.client(connection, [header]) == expected
    # Split over two header lines, the same.
    assert PROXIES.client(connection, [str(chain[0]), ", ".join(str(a) for a in [*chain[1:], *proxies])]) \
        == expected


def test_a_forwarded_entry_that_is_no_address_stops_at_the_proxy_that_wrote_it():
    connection = ipaddress.IPv4Address("10.1.0.1")
    assert PROXIES.client(connection, ["203.0.113.9, unknown, 10.1.0.7"]) == ipaddress.IPv4Address("10.1.0.7")
    assert PROXIES.client(connection, ["garbage"]) == connection
    assert PROXIES.client(connection, []) == connection


def test_forwarded_addresses_may_carry_ports_and_brackets():
    connection = ipaddress.IPv4Address("10.1.0.1")
    assert PROXIES.client(connection, ["203.0.113.9:4711"]) == ipaddress.IPv4Address("203.0.113.9")
    v6 = ipaddress.IPv6Address("2001:db8:1::5")
    assert PROXIES.client(v6, ["[2001:db8:9::7]:443"]) == ipaddress.IPv6Address("2001:db8:9::7")
    assert PROXIES.client(connection, ["::ffff:198.51.100.4"]) == ipaddress.IPv4Address("198.51.100.4")


@pytest.mark.parametrize("setting", ["", "none", " NONE "])
def test_no_trusted_proxies_by_default(setting):
    assert not TrustedProxies.parse(setting)


@pytest.mark.parametrize("setting", ["10.0.0.1/8", "proxy.example", "10.0.0.0/8,,bad"])
def test_a_trusted_proxy_that_is_no_address_or_network_is_refused(setting):
    with pytest.raises(ValueError, match="--trusted-proxies"):
        TrustedProxies.parse(setting)


# -- device ids ------------------------------------------------------------------------------------------

device_ids = st.text("ABCXYZabcxyz0189._~+/=:-", min_size=1, max_size=128)


@given(device_ids)
def test_a_device_id_of_the_alphabet_up_to_128_characters_is_taken(device):
    assert device_id_of([("authorization", "Bearer x"), ("x-stud-device-id", device)]) == device
    assert device_id_of([("x-stud-device-id", device.encode()), ("x-stud-device-id", device)]) == device


@pytest.mark.parametrize("device", ["", "a" * 129, "has space", "naïve", "tab\t", "new\nline", "semi;colon"])
def test_a_malformed_device_id_is_refused(device):
    with pytest.raises(DeviceIdError, match="x-stud-device-id"):
        device_id_of([("x-stud-device-id", device)])


def test_a_device_id_sent_twice_with_two_values_is_refused_and_none_is_no_device():
    with pytest.raises(DeviceIdError, match="twice"):
        device_id_of([("x-stud-device-id", "a"), ("x-stud-device-id", "b")])
    assert device_id_of([("authorization", "Bearer x")]) == ""
    assert device_id_of(None) == ""
