"""Resource names: one parser per kind and one rule per id, on every method that takes a name and every
transport (issue 37, point 2).

A name that is not one of its kind (NUL, too long, a path trick, an id outside its rule, empty) is refused
INVALID_ARGUMENT / MALFORMED_REQUEST naming its field before anything reads or writes the log: nothing is
appended (not even an access record: the request touched nothing) and nothing is logged at ERROR. A player
id is exactly what a token's ``sub`` may be, so every id a token can carry names a player, and nothing else.

The methods are found from the protos' ``google.api.http`` bindings (``{name=players/*}``: a player's name),
so a method added tomorrow is covered the day it is added.
"""

from __future__ import annotations

import logging
import re
import time
from collections.abc import AsyncIterator, Awaitable, Callable
from typing import Any

import grpc
import jwt
import psycopg
import pytest
import pytest_asyncio
from google.api import annotations_pb2
from google.protobuf import message_factory
from google.protobuf.descriptor import MethodDescriptor
from grpc_fixtures import (
    NEXT_HAND_PAUSE,
    TOKEN_SECRET,
    WEB_TRANSPORTS,
    ServiceUnderTest,
    service_under_test,
    table_spec,
)
from hypothesis import given
from hypothesis import strategies as st
from web_fixtures import METHODS, assert_refused, raw_request

from stud_service.auth import AuthError, Role, TokenVerifier, mint_token, valid_player_id
from stud_service.bots.connect_stub import WebChannel
from stud_service.ledger.names import account_name_of_stream
from stud_service.server.api.errors import RequestError, error_info
from stud_service.server.api.names import ACCOUNTS, HANDS, PLAYER_ID, PLAYERS, TABLES, TOURNAMENTS
from stud_service.server.proto_gen import (
    cashier_service_pb2,
    cashier_service_pb2_grpc,
    table_service_pb2,
    table_service_pb2_grpc,
)
from stud_service.server.tables.settings import RuntimeSettings

TRANSPORTS = ("grpc", "connect-json", "grpc-web")  # connect-proto shares connect-json's path
ROLES = (Role.PLAYER, Role.OPERATOR, Role.AUDITOR)
HUGE = "x" * 100_000
EMOJI = "\U0001f0a1\U0001f600"

# Names each kind must refuse, by the route template its field is bound to.
REFUSED: dict[str, list[str]] = {
    "tables/*": [
        "", "tables/", "tables/\x00", "tables/a\x00", "tables/" + "a" * 64, "tables/a/b", "tables/../b",
        f"tables/{EMOJI}", "tables/A", "tables/ a", "tables/" + HUGE, "players/a",
    ],
    "tournaments/*": [
        "", "tournaments/", "tournaments/\x00", "tournaments/a\x00", "tournaments/" + "a" * 57,
        "tournaments/a/b", "tournaments/../b", f"tournaments/{EMOJI}", "tournaments/A", "tournaments/ a",
        "tournaments/" + HUGE, "tables/a",
    ],
    "tables/*/hands/*": [
        "", "tables/t/hands/", "tables/t/hands/\x00", "tables/t/hands/1\x00", "tables/t/hands/0",
        "tables/t/hands/01", "tables/t/hands/1/2", "tables/t/hands/" + "9" * 19, f"tables/t/hands/{EMOJI}",
        "tables/" + "a" * 64 + "/hands/1", "tables/t\x00/hands/1", "tables/t/hands/" + HUGE, "tables/t",
    ],
    "players/*": [
        "", "players/", "players/\x00", "players/a\x00", "players/" + "a" * 65, "players/" + "a" * 70,
        "players/ ", "players/a\nb", "players/\u2028", "players/" + HUGE, "player/a", "tables/a",
    ],
    "players/*/accounts/*": [
        "", "players/\x00/accounts/USD", "players/a\x00/accounts/USD", "players//accounts/USD",
        "players/" + "a" * 65 + "/accounts/USD", "players/a/accounts/usd", "players/a/accounts/US\x00",
        "players/a/accounts/XYZ", "players/a/accounts/USD/", "house/accounts/\x00",
        f"players/{EMOJI}/accounts/",
        "players/" + HUGE + "/accounts/USD", "players/a",
    ],
}
# A field that may be left empty: ListHands' parent ("" or "tables/-": every table).
OPTIONAL = {("ListHands", "parent")}


def named_field(method: MethodDescriptor) -> tuple[str, str] | None:
    """The request field the method's route binds a name to, and the template: ("name", "players/*")."""
    rule = method.GetOptions().Extensions[annotations_pb2.http]
    kind = rule.WhichOneof("pattern")
    found = re.search(r"\{([a-z_]+)=([^}]+)\}", getattr(rule, kind)) if kind else None
    return (found.group(1), found.group(2)) if found else None


NAMED = [(method, *named_field(method)) for method in METHODS if named_field(method) is not None]


def test_every_method_with_a_name_is_covered_and_every_template_has_hostile_names() -> None:
    assert {template for _m, _f, template in NAMED} == set(REFUSED)
    assert len(NAMED) >= 32  # 11 TableService, 7 AuditService, 7 CashierService, 7 TournamentService methods


@pytest_asyncio.fixture(scope="module", loop_scope="session")
async def service(make_database) -> AsyncIterator[ServiceUnderTest]:
    """All three services on both ports over a database of this module's own (no table deals: the only
    writes are the calls')."""
    url = await make_database(migrated=True)
    settings = RuntimeSettings(next_hand_pause=NEXT_HAND_PAUSE)
    async with service_under_test(url, settings) as served:
        yield served


@pytest_asyncio.fixture(scope="module", loop_scope="session")
async def events(service: ServiceUnderTest) -> AsyncIterator[Callable[[], Awaitable[int]]]:
    """``await events()``: how many events the service's log holds, access records among them; not the
    player sessions' records, which are a connection's (its start, its end after idling), written in the
    background whatever the calls made on it."""
    async with await psycopg.AsyncConnection.connect(service.database_url, autocommit=True) as conn:

        async def count() -> int:
            row = await (await conn.execute(
                "SELECT count(*) FROM events WHERE stream_id NOT LIKE 'sessions/%'")).fetchone()
            assert row is not None
            return int(row[0])

        yield count


def metadata(role: Role, player: str | None = None) -> tuple[tuple[str, str], ...]:
    token = mint_token(TOKEN_SECRET, player or f"who-{role.value}", role)
    return (("authorization", f"Bearer {token}"),)


class Caller:
    """Calls over one transport: the gRPC port, or the web port with a protocol and codec."""

    def __init__(self, service: ServiceUnderTest, transport: str) -> None:
        self.service = service
        self.web = None if transport == "grpc" else WebChannel(service.web_url, *WEB_TRANSPORTS[transport])

    def _callable(self, method: MethodDescriptor, request: Any) -> Any:
        if self.web is not None:
            return getattr(self.web.stub(method.containing_service), method.name)
        path = f"/{method.containing_service.full_name}/{method.name}"
        reply = message_factory.GetMessageClass(method.output_type).FromString
        channel = self.service.channel
        kind = channel.unary_stream if method.server_streaming else channel.unary_unary
        return kind(path, request_serializer=type(request).SerializeToString, response_deserializer=reply)

    async def __call__(self, method: MethodDescriptor, request: Any,
                       sent: tuple[tuple[str, str], ...]) -> grpc.aio.AioRpcError | None:
        """The error the call ended with, or None (a watch is read to its first message)."""
        try:
            answer = self._callable(method, request)(request, metadata=sent, timeout=10)
            if method.server_streaming:
                await answer.read()
                answer.cancel()
            else:
                await answer
        except grpc.aio.AioRpcError as error:
            return error
        return None

    async def close(self) -> None:
        if self.web is not None:
            await self.web.close()


@pytest.mark.parametrize("transport", TRANSPORTS)
@pytest.mark.parametrize(("method", "field", "template"), NAMED, ids=[m.name for m, _f, _t in NAMED])
async def test_a_name_not_of_its_kind_is_refused_naming_its_field_and_changes_nothing(
    service, events, transport, method, field, template, caplog
) -> None:
    """Every role: INVALID_ARGUMENT / MALFORMED_REQUEST with ``field`` (or the role's own refusal, which may
    come first); for a malformed name nothing is appended, not even an access record; no ERROR line."""
    request_class = message_factory.GetMessageClass(method.input_type)
    caller = Caller(service, transport)
    with caplog.at_level(logging.WARNING):
        for name in REFUSED[template]:
            if not name and (method.name, field) in OPTIONAL:
                continue
            malformed_for = []
            for role in ROLES:
                before = await events()
                error = await caller(method, request_class(**{field: name}), metadata(role))
                assert error is not None, (method.name, role, name[:80])
                info = error_info(error)
                assert info is not None, (method.name, role, error.code(), error.details())
                if error.code() == grpc.StatusCode.PERMISSION_DENIED:
                    continue  # the role may not make this call at all
                assert (error.code(), info.reason, info.metadata.get("field")) == (
                    grpc.StatusCode.INVALID_ARGUMENT, "MALFORMED_REQUEST", field
                ), (method.name, role, name[:80], error.details())
                assert len(error.details()) < 400  # a huge name is quoted by a prefix only
                assert await events() == before, (method.name, role, name[:80])
                malformed_for.append(role)
            assert malformed_for, (method.name, name[:80])  # some role gets as far as the name
    await caller.close()
    assert not [r.getMessage() for r in caplog.records if r.levelno >= logging.ERROR]


async def test_a_table_id_not_of_its_rule_creates_nothing_and_records_nothing(service, events) -> None:
    tables = table_service_pb2_grpc.TableServiceStub(service.channel)
    for table_id in ("\x00", "a\x00", "a" * 64, "a/b", EMOJI, "A", "-a", " a", HUGE):
        before = await events()
        request = table_service_pb2.CreateTableRequest(table_id=table_id, table=table_spec())
        with pytest.raises(grpc.aio.AioRpcError) as refused:
            await tables.CreateTable(request, metadata=metadata(Role.OPERATOR))
        info = error_info(refused.value)
        assert (refused.value.code(), info.reason, info.metadata["field"]) == (
            grpc.StatusCode.INVALID_ARGUMENT, "MALFORMED_REQUEST", "table_id"
        )
        assert await events() == before


@pytest.mark.parametrize(
    ("http_method", "path", "field"),
    [
        ("GET", "/v1/players/%00", "name"),
        ("POST", "/v1/players/%00:suspend", "name"),
        ("POST", "/v1/players/a%00:reinstate", "name"),
        ("POST", "/v1/players/" + "a" * 70 + ":suspend", "name"),
        ("GET", "/v1/players/%00/accounts/USD", "name"),
        ("GET", "/v1/players/%00/accounts/USD/entries", "parent"),
        ("POST", "/v1/players/%00/accounts/USD:deposit", "account"),
        ("GET", "/v1/tables/%00/hands/1", "name"),
        ("GET", "/v1/tables/t/hands/%00:verify", "name"),
        ("GET", "/v1/tables/%00/hands", "parent"),
        ("GET", "/v1/tables/%00:view", "name"),
        ("GET", "/v1/tournaments/%00", "name"),
        ("POST", "/v1/tournaments/A:register", "name"),
        ("GET", "/v1/tournaments/" + "a" * 57 + ":view", "name"),
    ],
)
async def test_the_json_routes_refuse_the_same_names(
    service, events, http_method, path, field, caplog
) -> None:
    """The issue's own cases, as a curl user sends them (an operator's token: the role that may)."""
    before = await events()
    token = mint_token(TOKEN_SECRET, "house", Role.OPERATOR)
    body = b"{}" if http_method == "POST" else None
    with caplog.at_level(logging.WARNING):
        response = await raw_request(service.web.port, http_method, path, body,
                                     {"authorization": f"Bearer {token}", "content-type": "application/json"})
    info = assert_refused(response, 400, "invalid_argument", "MALFORMED_REQUEST")
    assert info.metadata["field"] == field
    assert await events() == before
    assert not [r.getMessage() for r in caplog.records if r.levelno >= logging.ERROR]


async def test_any_id_a_token_can_carry_names_a_player_who_can_be_suspended_and_read(service) -> None:
    """Slashes, emoji, spaces inside, 64 characters: a token may carry them as its sub, so the operator can
    suspend and reinstate that player, and the player reads their own standing."""
    cashier = cashier_service_pb2_grpc.CashierServiceStub(service.channel)
    operator = metadata(Role.OPERATOR, "house")
    for player in ("a/b", "players/x", EMOJI, "josé garcía", "a" * 64, "x/accounts/USD", "/"):
        name = f"players/{player}"
        suspended = await cashier.SuspendPlayer(
            cashier_service_pb2.SuspendPlayerRequest(name=name, reason="review"), metadata=operator
        )
        assert suspended.standing.name == name and suspended.standing.suspended
        own = await cashier.GetPlayerStanding(
            cashier_service_pb2.GetPlayerStandingRequest(name=name), metadata=metadata(Role.PLAYER, player)
        )
        assert own.suspended
        reinstated = await cashier.ReinstatePlayer(
            cashier_service_pb2.ReinstatePlayerRequest(name=name), metadata=operator
        )
        assert not reinstated.suspended


# -- the rules themselves (no server) --------------------------------------------------------------------

# Any text a client can send, with what trips parsers over-represented.
texts = st.one_of(
    st.text(st.characters(exclude_categories=("Cs",)), max_size=80),
    st.text(st.sampled_from(["a", "/", " ", "\x00", "\n", "\u00a0", "\U0001f600", "é", ":"]), max_size=70),
)


@given(player=texts)
def test_a_player_name_is_accepted_exactly_when_a_token_can_carry_its_id(player: str) -> None:
    verifier = TokenVerifier(TOKEN_SECRET)
    forged = jwt.encode({"sub": player, "role": "player", "exp": int(time.time()) + 60}, TOKEN_SECRET)
    try:
        carried = verifier.verify(forged).player_id == player
    except AuthError:
        carried = False
    assert carried == valid_player_id(player) == PLAYER_ID.holds(player)
    for kind, name in ((PLAYERS, f"players/{player}"), (ACCOUNTS, f"players/{player}/accounts/USD")):
        try:
            parsed = kind.parse(name)
        except RequestError as error:
            assert not carried and error.metadata == {"field": "name"}
        else:
            assert carried and (parsed if kind is PLAYERS else parsed.player_id) == player


def test_names_put_the_player_last_so_any_player_id_round_trips() -> None:
    for player in ("alice", "a/accounts/EUR", "x/y"):
        name = ACCOUNTS.parse(f"players/{player}/accounts/USD")
        assert (name.player_id, name.currency) == (player, "USD")
        assert name.name == f"players/{player}/accounts/USD"
        assert account_name_of_stream(name.stream_id) == name
    house = ACCOUNTS.parse("house/accounts/EUR")
    assert house.player_id is None and house.stream_id == "house/EUR"
    assert PLAYERS.parse("players/a/b") == "a/b"
    assert TABLES.parse("tables/t-1") == "t-1" and HANDS.parse("tables/t-1/hands/7") == ("t-1", 7)
    assert TOURNAMENTS.parse("tournaments/" + "a" * 56) == "a" * 56  # with "-t99999", still a table id


@pytest.mark.parametrize("template", sorted(REFUSED))
def test_each_kind_refuses_its_hostile_names_with_the_field_and_a_short_message(template: str) -> None:
    kind = {"tables/*": TABLES, "tables/*/hands/*": HANDS, "players/*": PLAYERS,
            "players/*/accounts/*": ACCOUNTS, "tournaments/*": TOURNAMENTS}[template]
    for name in REFUSED[template]:
        with pytest.raises(RequestError) as refused:
            kind.parse(name, "parent")
        assert refused.value.metadata == {"field": "parent"} and len(refused.value.message) < 400
