"""JSON request bodies on the web port (Connect JSON, unary and streaming, and the JSON routes' bodies),
against the whole service on a real PostgreSQL, with raw HTTP so the bytes are exactly the test's:

- a value of the wrong type is INVALID_ARGUMENT / MALFORMED_REQUEST naming its field (ErrorInfo ``field``,
  the proto path), in words rather than the parser's own text, and appends nothing;
- a field the server does not know is ignored, as in binary: a client built from newer protos is served;
- every refusal written as Connect error JSON has the same shape: each detail's base64 ``value`` with its
  readable ``debug`` copy, whoever wrote it (the service's own code or the connectrpc library).
"""

from __future__ import annotations

import json
import struct

import pytest
from web_calls import BUY_IN, OPERATOR
from web_fixtures import RawResponse, WebWorld, assert_refused, bearer, envelopes, error_info, raw_request

CONNECT_JSON = {"content-type": "application/json", "connect-protocol-version": "1"}


async def connect_json(world: WebWorld, method: str, body: bytes, token: str | None = None) -> RawResponse:
    """A Connect unary call with a JSON body, exactly as given."""
    headers = {**CONNECT_JSON, **({"authorization": token} if token else {})}
    return await raw_request(world.port, "POST", f"/stud.v1.TableService/{method}", body, headers)


async def watch_error(world: WebWorld, body: bytes) -> dict:
    """A Connect WatchTable call with a JSON request (one envelope): the error its end message holds."""
    headers = {"content-type": "application/connect+json", "connect-protocol-version": "1",
               "authorization": bearer("alice")}
    response = await raw_request(world.port, "POST", "/stud.v1.TableService/WatchTable",
                                 struct.pack(">BI", 0, len(body)) + body, headers)
    assert response.status == 200 and response.headers["content-type"] == "application/connect+json"
    flags, end = envelopes(response.body)[-1]
    assert flags == 0x02, response.body[:200]
    return json.loads(end)["error"]


@pytest.mark.parametrize(("body", "field", "words"), [
    (b'{"pageSize": "many"}', "page_size", 'page_size takes an integer from -2147483648 to 2147483647, not'
                                           ' "many"'),
    (b'{"pageSize": 1.5}', "page_size", "not 1.5"),
    (b'{"pageSize": 99999999999}', "page_size", "from -2147483648 to 2147483647"),
    (b'{"pageToken": 7}', "page_token", "page_token takes a string, not 7"),
])
async def test_a_wrong_typed_value_over_connect_json_names_its_field(
    web_world: WebWorld, body: bytes, field: str, words: str
) -> None:
    response = await connect_json(web_world, "ListTables", body)
    info = assert_refused(response, 400, "invalid_argument", "MALFORMED_REQUEST")
    assert dict(info.metadata) == {"field": field}
    message = response.json()["message"]
    assert words in message and "int()" not in message and "Failed to parse" not in message, message


async def test_a_wrong_typed_value_in_a_nested_message_names_the_innermost_field(web_world: WebWorld) -> None:
    body = json.dumps({"tableId": "t-json-nested", "table": {"stakes": {"ante": "lots"}}}).encode()
    response = await connect_json(web_world, "CreateTable", body, OPERATOR)
    info = assert_refused(response, 400, "invalid_argument", "MALFORMED_REQUEST")
    assert dict(info.metadata) == {"field": "table.stakes.ante"}
    assert (await raw_request(web_world.port, "GET", "/v1/tables/t-json-nested")).status == 404


async def test_an_unknown_enum_name_is_still_refused_with_its_field(web_world: WebWorld) -> None:
    """Unknown fields are ignored; an unknown value is not: the server could not act on it."""
    table_id = await web_world.new_table()
    head = await web_world.head(table_id)
    body = json.dumps({"name": f"tables/{table_id}", "seat": 1, "action": "ACTION_TYPE_ALL_IN", "turn": "1"})
    response = await connect_json(web_world, "Act", body.encode(), bearer("alice"))
    info = assert_refused(response, 400, "invalid_argument", "MALFORMED_REQUEST")
    assert dict(info.metadata) == {"field": "action"}
    assert "ACTION_TYPE_FOLD" in response.json()["message"]
    assert await web_world.head(table_id) == head


async def test_a_wrong_typed_value_in_a_connect_stream_request_names_its_field(web_world: WebWorld) -> None:
    table_id = await web_world.new_table()
    request = {"name": f"tables/{table_id}", "afterVersion": "soon"}
    error = await watch_error(web_world, json.dumps(request).encode())
    assert error["code"] == "invalid_argument"
    assert dict(error_info(error).metadata) == {"field": "after_version"}  # its debug copy checked too


@pytest.mark.parametrize(("route", "body", "field"), [
    (":sitDown", {"seat": "one", "buyIn": str(BUY_IN)}, "seat"),
    (":sitDown", {"seat": 1, "buyIn": {"amount": 1}}, "buy_in"),
    (":act", {"seat": 1, "action": "ACTION_TYPE_CALL", "turn": [1]}, "turn"),
])
async def test_a_wrong_typed_value_in_a_route_body_names_its_field_and_appends_nothing(
    web_world: WebWorld, route: str, body: dict, field: str
) -> None:
    table_id = await web_world.new_table()
    head = await web_world.head(table_id)
    response = await raw_request(web_world.port, "POST", f"/v1/tables/{table_id}{route}",
                                 json.dumps(body).encode(), {"authorization": bearer("alice")})
    info = assert_refused(response, 400, "invalid_argument", "MALFORMED_REQUEST")
    assert dict(info.metadata) == {"field": field}
    assert await web_world.head(table_id) == head


async def test_a_route_whose_body_is_one_field_names_the_field_with_its_path(web_world: WebWorld) -> None:
    """CreateTable's route takes the Table as the body: the field at fault is `table.variant`."""
    body = json.dumps({"variant": "VARIANT_OMAHA"}).encode()
    response = await raw_request(web_world.port, "POST", "/v1/tables?table_id=t-json-variant", body,
                                 {"authorization": OPERATOR})
    info = assert_refused(response, 400, "invalid_argument", "MALFORMED_REQUEST")
    assert dict(info.metadata) == {"field": "table.variant"}


async def test_unknown_fields_are_ignored_over_connect_json_as_in_binary(web_world: WebWorld) -> None:
    """A client built from newer protos sends a field this server does not know yet: it is served."""
    body = json.dumps({"pageSize": 1, "sortOrder": "NEWEST_FIRST", "filter": {"variant": "RAZZ"}}).encode()
    response = await connect_json(web_world, "ListTables", body)
    assert response.status == 200, response.body[:300]
    assert len(response.json()["tables"]) == 1


async def test_unknown_fields_are_ignored_in_route_bodies_and_nested_messages(web_world: WebWorld) -> None:
    table_id = await web_world.new_table()
    body = json.dumps({"seat": 1, "buyIn": str(BUY_IN), "nickname": "al", "preferences": {"muck": True}})
    response = await raw_request(web_world.port, "POST", f"/v1/tables/{table_id}:sitDown", body.encode(),
                                 {"authorization": bearer("alice")})
    assert response.status == 200, response.body[:300]
    assert response.json()["view"]["viewerSeat"] == 1
    stakes = {"smallBet": "200", "bigBet": "400", "ante": "50", "bringIn": "100"}
    table = {"variant": "VARIANT_RAZZ", "minBuyIn": "2000", "maxBuyIn": "40000", "playMoney": True,
             "stakes": {**stakes, "straddle": "800"}, "tournament": {"levels": 12}}
    created = await raw_request(web_world.port, "POST", "/v1/tables?table_id=t-json-newer",
                                json.dumps(table).encode(), {"authorization": OPERATOR})
    assert created.status == 200, created.body[:300]
    assert created.json()["stakes"] == stakes


@pytest.mark.parametrize("body", [b'{"pageSize": 1, "pageSize": 2}', b'{"pageSize": ', b"[1]", b"\xff{}"])
async def test_a_body_that_is_no_json_object_is_malformed(web_world: WebWorld, body: bytes) -> None:
    response = await connect_json(web_world, "ListTables", body)
    assert_refused(response, 400, "invalid_argument", "MALFORMED_REQUEST")


async def test_every_connect_refusal_has_the_debug_copy_the_routes_give(web_world: WebWorld) -> None:
    """A refusal the service raises and one the connectrpc library writes have the same shape as the JSON
    routes' refusals: details with "type", "value" and "debug" (checked equal by error_info)."""
    missing = await connect_json(web_world, "GetTable", b'{"name": "tables/t-never-created"}')
    assert_refused(missing, 404, "not_found", "NO_TABLE")
    anonymous = await connect_json(web_world, "GetTableView", b'{"name": "tables/t-never-created"}')
    assert_refused(anonymous, 401, "unauthenticated", "TOKEN_MISSING")
    streamed = await watch_error(web_world, b'{"name": "tables/t-never-created"}')
    assert error_info(streamed).reason == "NO_TABLE"
    assert [sorted(detail) for detail in streamed["details"]] == [["debug", "type", "value"]]


@pytest.mark.parametrize("body", [b'{"name": "tables/t-\\ud800"}', b'{"\\udfff": 1}',
                                  b'{"requestId": "\\ud800"}', b'{"name": ["\\ud83c"]}'],
                         ids=["in-a-value", "as-a-key", "in-a-route-body", "in-an-array"])
async def test_a_lone_surrogate_escape_is_malformed_not_internal(web_world: WebWorld, body: bytes) -> None:
    """JSON can escape half of a UTF-16 pair (``\\ud800``), which no UTF-8 text holds: INVALID_ARGUMENT over
    Connect JSON and the routes, never INTERNAL (an error message quoting it could not be sent)."""
    table_id = await web_world.new_table()
    head = await web_world.head(table_id)
    response = await connect_json(web_world, "SitOut", body, bearer("alice"))
    assert_refused(response, 400, "invalid_argument", "MALFORMED_REQUEST")
    routed = await raw_request(web_world.port, "POST", f"/v1/tables/{table_id}:sitOut", body,
                               {"authorization": bearer("alice")})
    assert_refused(routed, 400, "invalid_argument", "MALFORMED_REQUEST")
    assert await web_world.head(table_id) == head
