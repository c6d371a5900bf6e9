"""The same-network seating rule (Table.same_network_seating; Tournament.same_network_seating at a sit & go's
registration) over both ports, with real servers and clients.

Over loopback every client is 127.0.0.1 to the server, so the rule is tested through the device id, and
through other loopback addresses: a TCP forwarder whose connections to the server come from 127.0.0.2 (the
same /24 as 127.0.0.1) or 127.0.1.5 (another /24). The address rules themselves are property-tested in
test_session_networks.py.
"""

from __future__ import annotations

import asyncio
import contextlib
import io
import uuid
from collections.abc import AsyncIterator

import grpc
import pyqwest
import pytest
from google.protobuf import duration_pb2
from grpc_fixtures import (
    TOKEN_SECRET,
    TRANSPORTS,
    WEB_TRANSPORTS,
    ServiceUnderTest,
    table_spec,
    whole_service,
)
from sealing_keys import TEST_KEYRING
from tcp_proxy import TcpProxy

from stud_service.auth import Role, mint_token
from stud_service.bots import StudClient
from stud_service.bots.client import OWN_CONNECTION, new_request_id
from stud_service.bots.connect_stub import WebChannel
from stud_service.server.api.errors import error_info
from stud_service.server.proto_gen import table_pb2, tournament_pb2, tournament_service_pb2
from stud_service.sessions import TrustedProxies

DEVICE = table_pb2.SAME_NETWORK_SEATING_DEVICE
ADDRESS = table_pb2.SAME_NETWORK_SEATING_ADDRESS
PREFIX = table_pb2.SAME_NETWORK_SEATING_PREFIX
BUY_IN = 4_000


def someone(name: str) -> str:
    """A player id no other test uses: the rule looks at a seated player's sessions anywhere."""
    return f"{name}-{uuid.uuid4().hex[:6]}"


@contextlib.asynccontextmanager
async def client_at(address: str, web_url: str, transport: str, player: str, device: str | None = None,
                    source: str | None = None, forwarded_for: str | None = None) -> AsyncIterator[StudClient]:
    """A client of its own connection over ``transport``; from ``source`` (through a forwarder) if given;
    sending ``forwarded_for`` as X-Forwarded-For if given."""
    port = int((web_url if transport in WEB_TRANSPORTS else address).rsplit(":", 1)[1])
    proxy = TcpProxy(port, source=source) if source else None
    if proxy is not None:
        await proxy.start()
    token = mint_token(TOKEN_SECRET, player, Role.PLAYER)
    # The web client's own connection (closed with it), not the process's shared pool; one, as the docstring
    # says: a call made as the last one's connection goes back to the pool would otherwise open another.
    http = pyqwest.HTTPTransport(http_version=pyqwest.HTTPVersion.HTTP1, max_connections_per_address=1)
    try:
        if transport in WEB_TRANSPORTS:
            protocol, codec = WEB_TRANSPORTS[transport]
            base = proxy.url if proxy else web_url
            channel: grpc.aio.Channel | WebChannel = WebChannel(base, protocol, codec, pyqwest.Client(http))
        else:
            channel = grpc.aio.insecure_channel(proxy.address if proxy else address, options=OWN_CONNECTION)
        client = StudClient(channel, token, device)
        if forwarded_for is not None:
            client.metadata += (("x-forwarded-for", forwarded_for),)
        try:
            yield client
        finally:
            await channel.close()
    finally:
        await http.aclose()
        if proxy is not None:
            await proxy.close()


def service_client(service: ServiceUnderTest, transport: str, player: str, device: str | None = None,
                   source: str | None = None):
    return client_at(service.address, service.web_url, transport, player, device, source)


async def refusal(call) -> tuple[grpc.StatusCode, str, dict[str, str]]:
    with pytest.raises(grpc.aio.AioRpcError) as caught:
        await call
    info = error_info(caught.value)
    assert info is not None
    return caught.value.code(), info.reason, dict(info.metadata)


@pytest.mark.parametrize("transport", TRANSPORTS)
async def test_the_device_rule_keeps_one_device_from_two_seats(grpc_service, operator, new_table, transport):
    table_id = await new_table(same_network_seating=DEVICE)
    assert (await operator.get_table(table_id)).same_network_seating == DEVICE
    async with (service_client(grpc_service, transport, someone("alice"), "phone-1") as alice,
                service_client(grpc_service, transport, someone("bob"), "phone-1") as bob,
                service_client(grpc_service, transport, someone("carol"), "phone-2") as carol,
                service_client(grpc_service, transport, someone("dave")) as dave):
        await alice.sit_down(table_id, 1, BUY_IN)
        before = (await operator.get_table(table_id)).version
        code, reason, metadata = await refusal(bob.sit_down(table_id, 2, BUY_IN))
        assert (code, reason, metadata) == (grpc.StatusCode.FAILED_PRECONDITION, "SAME_NETWORK_AT_TABLE",
                                            {"matched": "device"})
        assert (await operator.get_table(table_id)).version == before  # nothing appended
        await carol.sit_down(table_id, 2, BUY_IN)  # the same address (loopback): the rule is DEVICE
        await dave.sit_down(table_id, 3, BUY_IN)  # no device id: nothing to share
        assert (await operator.get_table(table_id)).seated_players == 3


@pytest.mark.parametrize("transport", TRANSPORTS)
async def test_the_address_rule_refuses_the_same_address_and_seats_another(grpc_service, new_table,
                                                                           transport):
    table_id = await new_table(same_network_seating=ADDRESS)
    async with (service_client(grpc_service, transport, someone("alice")) as alice,
                service_client(grpc_service, transport, someone("bob")) as bob,
                service_client(grpc_service, transport, someone("carol"), source="127.0.0.2") as carol):
        await alice.sit_down(table_id, 1, BUY_IN)  # from 127.0.0.1
        assert (await refusal(bob.sit_down(table_id, 2, BUY_IN)))[1:] == ("SAME_NETWORK_AT_TABLE",
                                                                            {"matched": "address"})
        await carol.sit_down(table_id, 2, BUY_IN)  # 127.0.0.2: another address


@pytest.mark.parametrize("transport", TRANSPORTS)
async def test_the_prefix_rule_refuses_the_same_slash_24_and_seats_another(grpc_service, new_table,
                                                                           transport):
    table_id = await new_table(same_network_seating=PREFIX)
    async with (service_client(grpc_service, transport, someone("alice")) as alice,
                service_client(grpc_service, transport, someone("carol"), source="127.0.0.2") as carol,
                service_client(grpc_service, transport, someone("erin"), "tablet-9", source="127.0.1.5")
                as erin,
                service_client(grpc_service, transport, someone("frank"), "tablet-9", source="127.0.2.5")
                as frank):
        await alice.sit_down(table_id, 1, BUY_IN)
        assert (await refusal(carol.sit_down(table_id, 2, BUY_IN)))[1:] == ("SAME_NETWORK_AT_TABLE",
                                                                              {"matched": "network"})
        await erin.sit_down(table_id, 2, BUY_IN)  # 127.0.1.5: another /24
        # Another /24 again, but the device erin plays on: every rule compares devices.
        assert (await refusal(frank.sit_down(table_id, 3, BUY_IN)))[2] == {"matched": "device"}


@pytest.mark.parametrize("transport", TRANSPORTS)
async def test_without_the_rule_one_network_and_one_device_sit_together(grpc_service, new_table, transport):
    table_id = await new_table()
    async with (service_client(grpc_service, transport, someone("alice"), "phone-1") as alice,
                service_client(grpc_service, transport, someone("bob"), "phone-1") as bob):
        await alice.sit_down(table_id, 1, BUY_IN)
        await bob.sit_down(table_id, 2, BUY_IN)


async def test_a_seated_player_whose_connection_closed_still_holds_the_network(grpc_service, new_table):
    """The rule compares a seated player's open sessions and their newest: leaving the connection (and so
    ending the session, on the web port at once) does not open the table to the same device."""
    table_id = await new_table(same_network_seating=DEVICE)
    alice_id = someone("alice")
    async with service_client(grpc_service, "connect-json", alice_id, "laptop-3") as alice:
        await alice.sit_down(table_id, 1, BUY_IN)
    async with service_client(grpc_service, "grpc", someone("bob"), "laptop-3") as bob:
        assert (await refusal(bob.sit_down(table_id, 2, BUY_IN)))[1] == "SAME_NETWORK_AT_TABLE"


async def test_a_seated_player_sitting_down_again_is_told_so_not_refused_for_the_network(grpc_service,
                                                                                         new_table):
    table_id = await new_table(same_network_seating=ADDRESS)
    async with service_client(grpc_service, "grpc", someone("alice"), "pad") as alice:
        await alice.sit_down(table_id, 1, BUY_IN)
        assert (await refusal(alice.sit_down(table_id, 2, BUY_IN)))[1] == "ALREADY_SEATED"


@pytest.mark.parametrize("transport", TRANSPORTS)
async def test_behind_a_trusted_proxy_the_forwarded_address_is_the_players(make_database, transport):
    """With 127.0.0.1 a trusted proxy (--trusted-proxies), X-Forwarded-For names each client; from anyone
    else it would be ignored."""
    url = await make_database(migrated=True)
    async with whole_service(url, TOKEN_SECRET, io.StringIO(), keyring=TEST_KEYRING, web_listen="127.0.0.1:0",
                             trusted_proxies=TrustedProxies.parse("127.0.0.1")) as service:
        host = service.host
        address, web_url = f"127.0.0.1:{host.port}", f"http://127.0.0.1:{host.web_port}"
        operator = StudClient(service.channel, mint_token(TOKEN_SECRET, "house", Role.OPERATOR))
        table_id = f"t-{uuid.uuid4().hex[:8]}"
        await operator.create_table(table_id, table_spec(same_network_seating=PREFIX))
        async with (client_at(address, web_url, transport, "alice", forwarded_for="203.0.113.5") as alice,
                    client_at(address, web_url, transport, "bob", forwarded_for="198.51.100.7, 203.0.113.6")
                    as bob,
                    client_at(address, web_url, transport, "carol", forwarded_for="198.51.100.8") as carol):
            await alice.sit_down(table_id, 1, BUY_IN)
            # bob's client is 203.0.113.6 (the rightmost address the trusted proxy did not write itself).
            assert (await refusal(bob.sit_down(table_id, 2, BUY_IN)))[2] == {"matched": "network"}
            await carol.sit_down(table_id, 2, BUY_IN)


async def test_without_sessions_a_table_or_sit_and_go_with_the_rule_seats_and_registers_nobody(make_database):
    url = await make_database(migrated=True)
    async with whole_service(url, TOKEN_SECRET, io.StringIO(), keyring=TEST_KEYRING,
                             player_sessions=False) as service:
        operator = StudClient(service.channel, mint_token(TOKEN_SECRET, "house", Role.OPERATOR))
        alice = StudClient(service.channel, mint_token(TOKEN_SECRET, "alice", Role.PLAYER), "pad")
        await operator.create_table("kept-apart", table_spec(same_network_seating=DEVICE))
        await operator.create_table("open", table_spec())
        kept_apart, open_one = await new_sit_and_go(operator, DEVICE), await new_sit_and_go(operator, 0)
        for call in (alice.sit_down("kept-apart", 1, BUY_IN), register(alice, kept_apart)):
            code, reason, _ = await refusal(call)
            assert (code, reason) == (grpc.StatusCode.FAILED_PRECONDITION, "PLAYER_SESSIONS_OFF")
        await alice.sit_down("open", 1, BUY_IN)
        await register(alice, open_one)


async def test_an_unknown_rule_is_refused_at_create_table(operator):
    code, reason, metadata = await refusal(operator.create_table(
        f"t-{uuid.uuid4().hex[:8]}", table_spec(same_network_seating=9)))
    assert (code, reason, metadata) == (grpc.StatusCode.INVALID_ARGUMENT, "MALFORMED_REQUEST",
                                        {"field": "table.same_network_seating"})


async def test_two_players_of_one_device_sitting_down_at_once_are_not_both_seated(grpc_service, new_table):
    """Both checks may read the table before either sits; the one decided second finds a player it did not
    check and is checked again (SeatedMeanwhile), so one of them is refused."""
    for _ in range(5):
        table_id = await new_table(same_network_seating=DEVICE)
        async with (service_client(grpc_service, "grpc", someone("alice"), "shared") as alice,
                    service_client(grpc_service, "connect-json", someone("bob"), "shared") as bob):
            await asyncio.gather(alice.get_table(table_id), bob.get_table(table_id))  # their sessions begin
            outcomes = await asyncio.gather(alice.sit_down(table_id, 1, BUY_IN),
                                            bob.sit_down(table_id, 2, BUY_IN), return_exceptions=True)
        refused = [o for o in outcomes if isinstance(o, grpc.aio.AioRpcError)]
        assert len(refused) == 1 and error_info(refused[0]).reason == "SAME_NETWORK_AT_TABLE", outcomes


# -- sit & gos: the rule at RegisterTournament ------------------------------------------------------------

def sit_and_go(rule: int, entrants: int = 3) -> tournament_pb2.Tournament:
    """A play-money sit & go of ``entrants`` at one table, keeping players apart by ``rule``."""
    stakes = table_pb2.Stakes(ante=5, bring_in=10, small_bet=20, big_bet=40)
    return tournament_pb2.Tournament(
        display_name="Kept apart", max_entrants=entrants, seats_per_table=entrants, starting_stack=1_000,
        play_money=True, same_network_seating=rule,
        levels=[tournament_pb2.TournamentLevel(stakes=stakes, duration=duration_pb2.Duration(seconds=600))])


async def new_sit_and_go(operator: StudClient, rule: int, entrants: int = 3) -> str:
    tournament_id = f"sng-{uuid.uuid4().hex[:10]}"
    await operator.tournaments.CreateTournament(tournament_service_pb2.CreateTournamentRequest(
        tournament=sit_and_go(rule, entrants), tournament_id=tournament_id, request_id=new_request_id()),
        metadata=operator.metadata)
    return f"tournaments/{tournament_id}"


def register(client: StudClient, tournament: str):
    return client.tournaments.RegisterTournament(tournament_service_pb2.RegisterTournamentRequest(
        name=tournament, request_id=new_request_id()), metadata=client.metadata)


async def get_tournament(client: StudClient, tournament: str) -> tournament_pb2.Tournament:
    request = tournament_service_pb2.GetTournamentRequest(name=tournament)
    return await client.tournaments.GetTournament(request, metadata=client.metadata)


async def opened(operator: StudClient, table_id: str) -> table_pb2.Table:
    """The tournament's table once its owner has created it (in the background, after the start)."""
    for _ in range(300):
        with contextlib.suppress(grpc.aio.AioRpcError):
            return await operator.get_table(table_id)
        await asyncio.sleep(0.1)
    raise AssertionError(f"table {table_id} was never opened")


@pytest.mark.parametrize("transport", TRANSPORTS)
async def test_a_sit_and_go_keeps_one_device_from_two_entries_and_starts_with_its_draw(grpc_service, operator,
                                                                                      transport):
    tournament = await new_sit_and_go(operator, DEVICE)
    assert (await get_tournament(operator, tournament)).same_network_seating == DEVICE
    async with (service_client(grpc_service, transport, someone("alice"), "phone-1") as alice,
                service_client(grpc_service, transport, someone("bob"), "phone-1") as bob,
                service_client(grpc_service, transport, someone("carol"), "phone-2") as carol,
                service_client(grpc_service, transport, someone("dave")) as dave):
        await register(alice, tournament)
        before = (await get_tournament(operator, tournament)).version
        code, reason, metadata = await refusal(register(bob, tournament))
        assert (code, reason, metadata) == (grpc.StatusCode.FAILED_PRECONDITION, "SAME_NETWORK_AT_TABLE",
                                            {"matched": "device"})
        assert (await get_tournament(operator, tournament)).version == before  # nothing appended
        await register(carol, tournament)  # the same address (loopback): the rule is DEVICE
        await register(dave, tournament)  # the last seat: the sit & go starts, its draw seats everyone
        started = await get_tournament(operator, tournament)
        assert started.state == tournament_pb2.TOURNAMENT_STATE_RUNNING
        assert started.players_left == 3 and sum(table.players for table in started.tables) == 3
        # Its tables are seated by the tournament, not by SitDown: they carry no rule of their own.
        table = await opened(operator, started.tables[0].table.removeprefix("tables/"))
        assert table.same_network_seating in (table_pb2.SAME_NETWORK_SEATING_OFF,
                                              table_pb2.SAME_NETWORK_SEATING_UNSPECIFIED)


@pytest.mark.parametrize("transport", TRANSPORTS)
async def test_a_sit_and_go_with_the_prefix_rule_refuses_the_same_slash_24(grpc_service, operator, transport):
    tournament = await new_sit_and_go(operator, PREFIX)
    async with (service_client(grpc_service, transport, someone("alice")) as alice,
                service_client(grpc_service, transport, someone("carol"), source="127.0.0.2") as carol,
                service_client(grpc_service, transport, someone("erin"), source="127.0.1.5") as erin):
        await register(alice, tournament)  # from 127.0.0.1
        assert (await refusal(register(carol, tournament)))[1:] == ("SAME_NETWORK_AT_TABLE",
                                                                     {"matched": "network"})
        await register(erin, tournament)  # 127.0.1.5: another /24
        assert (await get_tournament(operator, tournament)).entrants == 2


async def test_an_unregistered_player_no_longer_keeps_their_device_out(grpc_service, operator):
    tournament = await new_sit_and_go(operator, DEVICE)
    async with (service_client(grpc_service, "grpc", someone("alice"), "phone-7") as alice,
                service_client(grpc_service, "connect-json", someone("bob"), "phone-7") as bob):
        await register(alice, tournament)
        assert (await refusal(register(bob, tournament)))[1] == "SAME_NETWORK_AT_TABLE"
        await alice.tournaments.UnregisterTournament(tournament_service_pb2.UnregisterTournamentRequest(
            name=tournament, request_id=new_request_id()), metadata=alice.metadata)
        await register(bob, tournament)


async def test_an_unknown_rule_is_refused_at_create_tournament(operator):
    code, reason, metadata = await refusal(new_sit_and_go(operator, 9))
    assert (code, reason, metadata) == (grpc.StatusCode.INVALID_ARGUMENT, "MALFORMED_REQUEST",
                                        {"field": "tournament.same_network_seating"})


async def test_two_players_of_one_device_registering_at_once_are_not_both_entered(grpc_service, operator):
    """As at a table: the registration decided second finds a player it did not check and is checked again."""
    for _ in range(5):
        tournament = await new_sit_and_go(operator, DEVICE, entrants=4)
        async with (service_client(grpc_service, "grpc", someone("alice"), "shared") as alice,
                    service_client(grpc_service, "connect-json", someone("bob"), "shared") as bob):
            await asyncio.gather(get_tournament(alice, tournament), get_tournament(bob, tournament))
            outcomes = await asyncio.gather(register(alice, tournament), register(bob, tournament),
                                            return_exceptions=True)
        refused = [o for o in outcomes if isinstance(o, grpc.aio.AioRpcError)]
        assert len(refused) == 1 and error_info(refused[0]).reason == "SAME_NETWORK_AT_TABLE", outcomes
