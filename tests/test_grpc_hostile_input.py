"""Hostile input gets a precise refusal, fast, and appends nothing: bytes that are no message, invalid
text, huge input, out-of-range timestamps, forged page tokens, a watch from beyond the head.

(Issue 13, point 4.)
"""

from __future__ import annotations

import base64
import io
import json
import logging
import time
import urllib.request

import grpc
import jwt
import pytest
from google.protobuf import duration_pb2, timestamp_pb2
from grpc_fixtures import TOKEN_SECRET, TRANSPORTS, table_spec, wait_for_view, whole_service
from grpc_health.v1 import health_pb2, health_pb2_grpc
from prometheus_client.parser import text_string_to_metric_families

from stud_service.auth import Role, mint_token
from stud_service.server.api.errors import error_info
from stud_service.server.proto_gen import (
    audit_service_pb2,
    audit_service_pb2_grpc,
    table_pb2,
    table_service_pb2,
    table_service_pb2_grpc,
)
from stud_service.server.tables.live import stream_id_for

SERVICES = [
    table_service_pb2.DESCRIPTOR.services_by_name["TableService"],
    audit_service_pb2.DESCRIPTOR.services_by_name["AuditService"],
]
METHODS = [method for service in SERVICES for method in service.methods]


def not_messages(message) -> list[bytes]:
    """Bytes that are not a ``message``: a truncated varint, a field cut short, and each string field
    holding bytes that are not UTF-8."""
    invalid_text = [
        bytes([field.number << 3 | 2, 2]) + b"\xc3\x28"
        for field in message.fields
        if field.type == field.TYPE_STRING and field.number < 16
    ]
    return [b"\xff\xff\xff\xff", b"\x0a\x05ab", *invalid_text]


def raw_call(channel: grpc.aio.Channel, method) -> grpc.aio.UnaryUnaryMultiCallable:
    path = f"/{method.containing_service.full_name}/{method.name}"
    if method.server_streaming:
        return channel.unary_stream(path)
    return channel.unary_unary(path)


async def first_reply_or_error(call) -> grpc.aio.AioRpcError | None:
    try:
        if isinstance(call, grpc.aio.UnaryStreamCall):
            async for _reply in call:
                return None
            return None
        await call
    except grpc.aio.AioRpcError as error:
        return error
    return None


@pytest.mark.parametrize("method", METHODS, ids=lambda method: method.name)
async def test_bytes_that_are_no_message_are_malformed_request_with_at_most_a_log_line(
    grpc_service, method, caplog
) -> None:
    """Before auth, a request that does not parse is INVALID_ARGUMENT / MALFORMED_REQUEST, not UNKNOWN,
    and logs no traceback: at most one throttled line for any number of them."""
    with caplog.at_level(logging.INFO):
        for _ in range(10):
            for data in not_messages(method.input_type):
                error = await first_reply_or_error(raw_call(grpc_service.channel, method)(data, timeout=30))
                assert error is not None and error.code() == grpc.StatusCode.INVALID_ARGUMENT, error
                info = error_info(error)
                assert info is not None and info.reason == "MALFORMED_REQUEST"
                assert method.input_type.full_name in error.details()
    assert not [record for record in caplog.records if record.levelno >= logging.ERROR]
    assert len([record for record in caplog.records if "does not parse" in record.getMessage()]) <= 1


def auth(player: str, role: Role = Role.PLAYER) -> tuple[tuple[str, str], ...]:
    return (("authorization", f"Bearer {mint_token(TOKEN_SECRET, player, role)}"),)


OPERATOR, AUDITOR = auth("house", Role.OPERATOR), auth("reader", Role.AUDITOR)


async def refusal(call) -> grpc.aio.AioRpcError:
    with pytest.raises(grpc.aio.AioRpcError) as caught:
        await call
    return caught.value


async def assert_malformed(call, field: str, reason: str = "MALFORMED_REQUEST") -> grpc.aio.AioRpcError:
    error = await refusal(call)
    info = error_info(error)
    assert (error.code(), info and info.reason) == (grpc.StatusCode.INVALID_ARGUMENT, reason), error
    assert info.metadata.get("field") == field, (info.metadata, error.details())
    return error


async def test_a_huge_name_is_quoted_by_a_short_prefix_only(grpc_service) -> None:
    """A megabyte of bad input is refused as INVALID_ARGUMENT, not echoed (RESOURCE_EXHAUSTED)."""
    tables = table_service_pb2_grpc.TableServiceStub(grpc_service.channel)
    audit = audit_service_pb2_grpc.AuditServiceStub(grpc_service.channel)
    huge = "x" * 1_000_000
    for call, field in (
        (tables.GetTable(table_service_pb2.GetTableRequest(name=huge), metadata=OPERATOR), "name"),
        (tables.SitDown(table_service_pb2.SitDownRequest(name="tables/" + huge), metadata=OPERATOR), "name"),
        (audit.GetHand(audit_service_pb2.GetHandRequest(name=huge), metadata=AUDITOR), "name"),
        (audit.ListHands(audit_service_pb2.ListHandsRequest(parent=huge), metadata=AUDITOR), "parent"),
    ):
        error = await assert_malformed(call, field)
        # the name's first characters and the rule of the kind (server.api.names), nothing more
        assert len(error.details()) < 400 and " characters)" in error.details()


async def test_text_the_log_cannot_hold_is_refused_naming_the_field(grpc_service) -> None:
    """NUL (and other control characters) in a display name, a player id filter, a request id, a table
    name or a token's subject never reach PostgreSQL: INVALID_ARGUMENT with the field, nothing appended."""
    tables = table_service_pb2_grpc.TableServiceStub(grpc_service.channel)
    audit = audit_service_pb2_grpc.AuditServiceStub(grpc_service.channel)
    for index, name in enumerate(["a\x00b", "tab\there", "line\nbreak"]):
        table_id = f"t-nul-{index}-{time.monotonic_ns()}"
        request = table_service_pb2.CreateTableRequest(table_id=table_id, table=table_spec(display_name=name))
        await assert_malformed(
            tables.CreateTable(request, metadata=OPERATOR), "table.display_name", "INVALID_CONFIG"
        )
        assert await grpc_service.store.head(stream_id_for(table_id)) == 0
    nul_player = audit_service_pb2.ListHandsRequest(player_id="al\x00ice")
    await assert_malformed(audit.ListHands(nul_player, metadata=AUDITOR), "player_id")
    await assert_malformed(
        tables.CreateTable(table_service_pb2.CreateTableRequest(table=table_spec(), request_id="r\x00"),
                           metadata=OPERATOR),
        "request_id",
    )
    await assert_malformed(
        tables.GetTable(table_service_pb2.GetTableRequest(name="tables/a\x00"), metadata=OPERATOR), "name"
    )
    forged_sub = jwt.encode({"sub": "bob\x00", "role": "player", "exp": int(time.time()) + 60}, TOKEN_SECRET)
    error = await refusal(tables.ListTables(
        table_service_pb2.ListTablesRequest(), metadata=(("authorization", f"Bearer {forged_sub}"),)
    ))
    assert (error.code(), error_info(error).reason) == (grpc.StatusCode.UNAUTHENTICATED, "TOKEN_INVALID")


@pytest.mark.parametrize(
    "stamp",
    [
        timestamp_pb2.Timestamp(seconds=2**62),
        timestamp_pb2.Timestamp(seconds=-(2**62)),
        timestamp_pb2.Timestamp(seconds=253_402_300_800),  # 10000-01-01
        timestamp_pb2.Timestamp(seconds=0, nanos=-1),
        timestamp_pb2.Timestamp(seconds=0, nanos=1_000_000_000),
    ],
    ids=["far-future", "far-past", "year-10000", "negative-nanos", "nanos-overflow"],
)
@pytest.mark.parametrize("field", ["start_time", "end_time"])
async def test_a_timestamp_out_of_range_in_list_hands_is_malformed(grpc_service, stamp, field) -> None:
    audit = audit_service_pb2_grpc.AuditServiceStub(grpc_service.channel)
    request = audit_service_pb2.ListHandsRequest(**{field: stamp})
    await assert_malformed(audit.ListHands(request, metadata=AUDITOR), field)


async def test_the_edges_of_the_timestamp_range_are_accepted(grpc_service) -> None:
    audit = audit_service_pb2_grpc.AuditServiceStub(grpc_service.channel)
    request = audit_service_pb2.ListHandsRequest(
        start_time=timestamp_pb2.Timestamp(seconds=-62_135_596_800),
        end_time=timestamp_pb2.Timestamp(seconds=253_402_300_799, nanos=999_999_999),
        page_size=1,
    )
    await audit.ListHands(request, metadata=AUDITOR)


def tampered(token: str) -> list[str]:
    """The token with one character changed in each part, cut short, and in another version."""
    version, body, tag = token.split(".")

    def swap(text: str) -> str:
        return ("B" if text[0] != "B" else "C") + text[1:]

    return [
        f"{version}.{swap(body)}.{tag}",
        f"{version}.{body}.{swap(tag)}",
        f"{version}.{body}.{tag[:-1]}",
        f"v2.{body}.{tag}",
        f"{version}.{body}",
    ]


def unsigned(payload: object) -> str:
    """A token as the service used to issue them: base64 of the position, nothing to check it."""
    return base64.urlsafe_b64encode(json.dumps(payload).encode()).decode()


async def test_list_tables_page_tokens_are_checked(grpc_service, new_table) -> None:
    """AIP-158: the next page's token works; an altered, forged or foreign one is INVALID_ARGUMENT."""
    tables = table_service_pb2_grpc.TableServiceStub(grpc_service.channel)
    await new_table()
    await new_table()
    first = await tables.ListTables(table_service_pb2.ListTablesRequest(page_size=1), metadata=OPERATOR)
    assert first.next_page_token
    second = await tables.ListTables(
        table_service_pb2.ListTablesRequest(page_size=1, page_token=first.next_page_token), metadata=OPERATOR
    )
    assert second.tables[0].name > first.tables[0].name
    for token in (
        *tampered(first.next_page_token),
        base64.urlsafe_b64encode(b"tables/\x00").decode(),
        base64.urlsafe_b64encode(b"tables/" + b"z" * 5000).decode(),
        "\u202e" * 10,
    ):
        request = table_service_pb2.ListTablesRequest(page_size=1, page_token=token)
        await assert_malformed(tables.ListTables(request, metadata=OPERATOR), "page_token")


async def test_list_hands_page_tokens_are_checked_and_bound_to_the_filters(
    grpc_service, new_table, make_player
) -> None:
    """A ListHands token continues the same listing only: other filters, another listing's token, an
    altered token, or one decoding to Infinity / NaN / a huge number are INVALID_ARGUMENT."""
    tables = table_service_pb2_grpc.TableServiceStub(grpc_service.channel)
    audit = audit_service_pb2_grpc.AuditServiceStub(grpc_service.channel)
    since = timestamp_pb2.Timestamp(seconds=int(time.time()) - 1)
    for _ in range(2):
        table_id = await new_table()
        alice, bob = make_player("alice"), make_player("bob")
        await alice.sit_down(table_id, 1, 10_000)
        await bob.sit_down(table_id, 2, 10_000)
        await wait_for_view(alice, table_id, lambda view: view.table.hands_started >= 1)
    listing = audit_service_pb2.ListHandsRequest(parent="tables/-", start_time=since, page_size=1)
    first = await audit.ListHands(listing, metadata=AUDITOR)
    assert first.next_page_token
    following = audit_service_pb2.ListHandsRequest()
    following.CopyFrom(listing)
    following.page_token = first.next_page_token
    following.page_size = 5  # AIP-158: the page size may change between pages
    second = await audit.ListHands(following, metadata=AUDITOR)
    assert second.hands and second.hands[0].name != first.hands[0].name

    other_filters = [
        audit_service_pb2.ListHandsRequest(parent="tables/-", page_size=1),
        audit_service_pb2.ListHandsRequest(parent="tables/-", start_time=since, player_id="bob", page_size=1),
        audit_service_pb2.ListHandsRequest(
            parent="tables/-", start_time=timestamp_pb2.Timestamp(seconds=since.seconds - 1), page_size=1
        ),
    ]
    for request in other_filters:
        request.page_token = first.next_page_token
        await assert_malformed(audit.ListHands(request, metadata=AUDITOR), "page_token")
    tables_token = (
        await tables.ListTables(table_service_pb2.ListTablesRequest(page_size=1), metadata=OPERATOR)
    ).next_page_token
    started = "2026-01-01T00:00:00+00:00"
    forged = [
        *tampered(first.next_page_token),
        tables_token,
        unsigned([started, "tables/x", 1]),
        unsigned([started, "tables/x", float("inf")]),  # json.dumps writes Infinity
        unsigned([started, "tables/x", float("nan")]),
        unsigned([started, "tables/x", 10**30]),
    ]
    for token in forged:
        request = audit_service_pb2.ListHandsRequest()
        request.CopyFrom(listing)
        request.page_token = token
        await assert_malformed(audit.ListHands(request, metadata=AUDITOR), "page_token")


@pytest.mark.parametrize("transport", TRANSPORTS)
async def test_a_watch_after_a_version_beyond_the_head_is_out_of_range(operator, new_table) -> None:
    """Resuming after a version the table has not reached would wait for ever: OUT_OF_RANGE at once, with
    the head version in the metadata; resuming from the head itself is fine. Over both ports."""
    tables = operator.stub
    table_id = await new_table()
    head = (await tables.GetTable(table_service_pb2.GetTableRequest(name=f"tables/{table_id}"),
                                  metadata=OPERATOR)).version
    for after in (head + 1, 2**62, 2**63 - 1):
        request = table_service_pb2.WatchTableRequest(name=f"tables/{table_id}", after_version=after)
        error = await first_reply_or_error(tables.WatchTable(request, metadata=OPERATOR, timeout=30))
        assert error is not None and error.code() == grpc.StatusCode.OUT_OF_RANGE, error
        info = error_info(error)
        assert info.reason == "VERSION_OUT_OF_RANGE" and info.metadata["version"] == str(head)
    at_head = tables.WatchTable(
        table_service_pb2.WatchTableRequest(name=f"tables/{table_id}", after_version=head),
        metadata=OPERATOR, timeout=0.5,
    )
    error = await first_reply_or_error(at_head)
    assert error is not None and error.code() == grpc.StatusCode.DEADLINE_EXCEEDED  # waiting for news


@pytest.mark.parametrize(
    ("fields", "field"),
    [
        ({"stakes": table_pb2.Stakes(small_bet=2**62, big_bet=2**62, bring_in=1)}, "table.stakes.small_bet"),
        ({"stakes": table_pb2.Stakes(small_bet=10**11, big_bet=10**11, bring_in=1)}, "table.max_buy_in"),
        ({"max_buy_in": 2**63 - 1}, "table.max_buy_in"),
        ({"min_buy_in": 10**12 + 1, "max_buy_in": 10**12 + 1}, "table.min_buy_in"),
        ({"action_clock": 10**12}, "table.action_clock"),
        ({"action_clock": 86_401}, "table.action_clock"),
    ],
    ids=["stakes-2^62", "default-buy-in", "buy-in-2^63-1", "min-buy-in", "clock-10^12s", "clock-a-day+1"],
)
async def test_operator_configs_beyond_the_bounds_are_invalid_config_naming_the_field(
    grpc_service, fields, field
) -> None:
    """Issue 13 point 5: such tables used to be created and then fail every view; now CreateTable refuses
    them with INVALID_CONFIG naming the Table field, and nothing is appended."""
    tables = table_service_pb2_grpc.TableServiceStub(grpc_service.channel)
    table_id = f"t-big-{time.monotonic_ns()}"
    spec = table_spec(**{name: value for name, value in fields.items() if name != "stakes"})
    if "stakes" in fields:
        spec.stakes.CopyFrom(fields["stakes"])
        spec.ClearField("min_buy_in")
        spec.ClearField("max_buy_in")
    request = table_service_pb2.CreateTableRequest(table_id=table_id, table=spec)
    await assert_malformed(tables.CreateTable(request, metadata=OPERATOR), field, "INVALID_CONFIG")
    assert await grpc_service.store.head(stream_id_for(table_id)) == 0


@pytest.mark.parametrize(
    ("currency", "rake", "field", "play_money"),
    [
        ("usd", None, "table.currency_code", False),
        ("XXX", None, "table.currency_code", False),
        ("USD", None, "table.currency_code", True),
        ("", table_pb2.RakeRule(basis_points=1001, cap_2_players=1, cap_3_to_4_players=1,
                                cap_5_or_more_players=1), "table.rake.basis_points", False),
        ("", table_pb2.RakeRule(basis_points=500, cap_2_players=0, cap_3_to_4_players=1,
                                cap_5_or_more_players=1), "table.rake.cap_2_players", False),
        ("", table_pb2.RakeRule(basis_points=500, cap_2_players=1, cap_3_to_4_players=1,
                                cap_5_or_more_players=10**12 + 1), "table.rake.cap_5_or_more_players", False),
    ],
    ids=["lower-case-code", "not-a-currency", "play-money-with-a-currency", "rate-over-10%", "cap-0",
         "cap-over-10^12"],
)
async def test_a_bad_currency_or_rake_rule_is_invalid_config_naming_the_field(
    grpc_service, currency, rake, field, play_money
) -> None:
    """RULES.md §10 and ISO 4217: refused with the Table field named, nothing appended."""
    tables = table_service_pb2_grpc.TableServiceStub(grpc_service.channel)
    table_id = f"t-money-{time.monotonic_ns()}"
    spec = table_spec(currency_code=currency, play_money=play_money)
    if rake is not None:
        spec.rake.CopyFrom(rake)
    request = table_service_pb2.CreateTableRequest(table_id=table_id, table=spec)
    await assert_malformed(tables.CreateTable(request, metadata=OPERATOR), field, "INVALID_CONFIG")
    assert await grpc_service.store.head(stream_id_for(table_id)) == 0


async def test_a_table_without_a_currency_code_plays_for_usd_and_shows_its_rake_rule(grpc_service) -> None:
    """CreateTable without currency_code: USD; the table's currency and rake rule read back as created."""
    tables = table_service_pb2_grpc.TableServiceStub(grpc_service.channel)
    plain, raked = f"t-usd-{time.monotonic_ns()}", f"t-raked-{time.monotonic_ns()}"
    rule = table_pb2.RakeRule(basis_points=500, cap_2_players=50, cap_3_to_4_players=100,
                              cap_5_or_more_players=300)
    created = await tables.CreateTable(
        table_service_pb2.CreateTableRequest(table_id=plain, table=table_spec(play_money=False)),
        metadata=OPERATOR)
    assert created.currency_code == "USD" and created.rake.basis_points == 0 and not created.play_money
    spec = table_spec(currency_code="EUR", play_money=False)
    spec.rake.CopyFrom(rule)
    request = table_service_pb2.CreateTableRequest(table_id=raked, table=spec)
    await tables.CreateTable(request, metadata=OPERATOR)
    shown = await tables.GetTable(table_service_pb2.GetTableRequest(name=f"tables/{raked}"),
                                  metadata=OPERATOR)
    assert shown.currency_code == "EUR" and shown.rake == rule


async def test_a_table_at_every_bound_serves_its_views(grpc_service, make_player) -> None:
    """The largest settings the bounds allow make a table whose every view works, with a hand dealt."""
    tables = table_service_pb2_grpc.TableServiceStub(grpc_service.channel)
    table_id = f"t-edge-{time.monotonic_ns()}"
    spec = table_pb2.Table(
        stakes=table_pb2.Stakes(small_bet=10**12, big_bet=10**12, ante=10**12, bring_in=10**12 - 1),
        min_buy_in=10**12, max_buy_in=10**12, max_seats=8, action_clock=duration_pb2.Duration(seconds=86_400),
        play_money=True,
    )
    request = table_service_pb2.CreateTableRequest(table_id=table_id, table=spec)
    await tables.CreateTable(request, metadata=OPERATOR)
    players = [make_player(f"edge-{seat}") for seat in range(1, 9)]
    for seat, player in enumerate(players, start=1):
        await player.sit_down(table_id, seat, 10**12)
    view = await wait_for_view(players[0], table_id, lambda view: view.table.hands_started >= 1)
    assert view.table.max_buy_in == 10**12
    await tables.GetTable(table_service_pb2.GetTableRequest(name=f"tables/{table_id}"), metadata=OPERATOR)


# Health checking and reflection, which grpcio's generated handlers serve: the same corrupt bytes.
STANDARD_METHODS = [
    ("/grpc.health.v1.Health/Check", "unary", "grpc.health.v1.HealthCheckRequest"),
    ("/grpc.health.v1.Health/Watch", "server-streaming", "grpc.health.v1.HealthCheckRequest"),
    ("/grpc.reflection.v1.ServerReflection/ServerReflectionInfo", "bidi",
     "grpc.reflection.v1.ServerReflectionRequest"),
    ("/grpc.reflection.v1alpha.ServerReflection/ServerReflectionInfo", "bidi",
     "grpc.reflection.v1alpha.ServerReflectionRequest"),
]
# A truncated varint, a field cut short, and field 1 (a string in each request) not UTF-8.
CORRUPT = [b"\xff\xff\xff\xff", b"\x0a\x05ab", b"\x0a\x02\xc3\x28"]


async def standard_call(
    channel: grpc.aio.Channel, path: str, shape: str, data: bytes
) -> grpc.aio.AioRpcError:
    """``data`` sent as it is (no serializer) to ``path``; the error the call ends with."""
    with pytest.raises(grpc.aio.AioRpcError) as caught:
        if shape == "unary":
            await channel.unary_unary(path, request_serializer=None)(data, timeout=10)
        elif shape == "server-streaming":
            await channel.unary_stream(path, request_serializer=None)(data, timeout=10).read()
        else:
            call = channel.stream_stream(path, request_serializer=None)(timeout=10)
            await call.write(data)
            await call.read()
    return caught.value


async def test_corrupt_bytes_to_health_and_reflection_are_invalid_argument_counted_and_not_errors(
    make_database,
) -> None:
    """Unauthenticated, anyone could send them: each is INVALID_ARGUMENT / MALFORMED_REQUEST as TableService
    answers, never UNKNOWN with Python's exception text; no ERROR line, at most one throttled warning; and
    stud_malformed_requests_total{method} counts every one. Health and reflection still work afterwards."""
    log = io.StringIO()
    async with whole_service(await make_database(migrated=True), TOKEN_SECRET, log) as service:
        for path, shape, request_type in STANDARD_METHODS:
            for data in CORRUPT:
                error = await standard_call(service.channel, path, shape, data)
                info = error_info(error)
                assert (error.code(), info and info.reason) == (
                    grpc.StatusCode.INVALID_ARGUMENT, "MALFORMED_REQUEST"
                ), (path, data, error.details())
                assert error.details() == f"the request is not a valid {request_type} message"
        # grpcio's health servicer has no List: not served, so UNIMPLEMENTED as any unknown method, unlogged
        for data in (*CORRUPT, b""):
            error = await standard_call(service.channel, "/grpc.health.v1.Health/List", "unary", data)
            assert error.code() == grpc.StatusCode.UNIMPLEMENTED and "Python" not in error.details()
        table_path = "/stud.v1.TableService/GetTable"
        assert (await standard_call(service.channel, table_path, "unary", CORRUPT[0])).code() == \
            grpc.StatusCode.INVALID_ARGUMENT
        health = health_pb2_grpc.HealthStub(service.channel)
        assert (await health.Check(health_pb2.HealthCheckRequest())).status == \
            health_pb2.HealthCheckResponse.SERVING
        with urllib.request.urlopen(service.metrics_url, timeout=10) as response:
            scraped = response.read().decode()
    counted = {
        sample.labels["method"]: sample.value
        for family in text_string_to_metric_families(scraped)
        for sample in family.samples if sample.name == "stud_malformed_requests_total"
    }
    assert counted == {**{path: len(CORRUPT) for path, _s, _t in STANDARD_METHODS}, table_path: 1}
    lines = [json.loads(line) for line in log.getvalue().splitlines() if line.strip()]
    assert not [line for line in lines if line["level"] in ("ERROR", "CRITICAL")], lines
    assert len([line for line in lines if "does not parse" in line["msg"]]) <= 1
