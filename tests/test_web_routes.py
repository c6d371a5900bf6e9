"""The protos' ``google.api.http`` JSON routes on the web port, with real HTTP clients (pyqwest; http.client
for requests no client library would send) against the whole service on a real PostgreSQL.

Every route the protos declare is enumerated from the descriptors and called with a valid request
(tests/web_calls.py, the request transcoded as its annotation says); then path variables, the body forms,
query parameters of each type, the refusals (each Connect error JSON whose base64 ErrorInfo matches its
"debug"), and the NDJSON watch with resumption.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Callable
from urllib.parse import quote

import pytest
from web_calls import BUY_IN, CALLS, OPERATOR, seated
from web_fixtures import (
    METHODS,
    RouteCaller,
    RouteError,
    WebWorld,
    assert_refused,
    bearer,
    binding,
    error_info,
    method_named,
    raw_request,
)

from stud_service.auth import Role
from stud_service.server.proto_gen import table_service_pb2
from stud_service.server.web import routes as json_routes
from stud_service.server.web.app import MAX_REQUEST_BYTES

ROUTED = [method for method in METHODS if method.GetOptions().HasExtension(json_routes.annotations_pb2.http)]
AUDITOR = bearer("auditor", Role.AUDITOR)


def test_every_method_declares_a_route_and_the_server_serves_each() -> None:
    assert [m.name for m in ROUTED] == [m.name for m in METHODS]
    served = json_routes.routes({method.containing_service: _Servicer() for method in METHODS})
    assert sorted((r.http_method, r.method.full_name) for r in served) == sorted(
        (binding(m)[0], m.full_name) for m in ROUTED
    )


class _Servicer:
    def __getattr__(self, name: str) -> None:
        return None


@pytest.mark.parametrize("name", [method.name for method in ROUTED])
async def test_each_route_answers(web_world: WebWorld, name: str) -> None:
    """Path variables, body "*", body "table" (CreateTable) and query parameters, each method's own."""
    await CALLS[name](web_world, RouteCaller(web_world.base_url))


async def get(world: WebWorld, path: str, token: str = OPERATOR) -> dict:
    response = await raw_request(world.port, "GET", path, headers={"authorization": token})
    assert response.status == 200, response.body[:300]
    return response.json()


async def test_query_parameters_of_each_type(web_world: WebWorld) -> None:
    for _ in range(2):
        await web_world.new_table()
    # An integer, and a page token handed back.
    page = await get(web_world, "/v1/tables?page_size=1")
    assert len(page["tables"]) == 1 and page["nextPageToken"]
    following = await get(web_world, f"/v1/tables?pageSize=1&pageToken={quote(page['nextPageToken'])}")
    assert following["tables"] != page["tables"]
    # Enums by name and by number; the JSON answers with names.
    hand = f"/v1/{web_world.hand}"
    by_name = await get(web_world, f"{hand}:export?format=HISTORY_FORMAT_POKERSTARS", AUDITOR)
    by_number = await get(web_world, f"{hand}:export?format=2", AUDITOR)
    assert by_name == by_number and by_name["format"] == "HISTORY_FORMAT_POKERSTARS"
    # Timestamps (RFC 3339), filtering the hands.
    hands = f"/v1/tables/{web_world.finished_table}/hands"
    assert (await get(web_world, f"{hands}?start_time=2000-01-01T00:00:00Z", AUDITOR))["hands"]
    assert "hands" not in await get(web_world, f"{hands}?startTime=2999-01-01T00:00:00Z", AUDITOR)
    # Booleans (a watch's include_views) are in test_an_ndjson_watch_...


@pytest.mark.parametrize(("path", "field"), [
    ("/v1/tables?page_size=ten", "page_size"),
    ("/v1/tables?no_such_field=1", "no_such_field"),
    ("/v1/tables?page_size=1&page_size=2", "page_size"),  # no GET takes a repeated field: one value each
    (f"/v1/tables/t1/hands?start_time={quote('yesterday')}", "start_time"),
    ("/v1/tables/t1:watch?include_views=maybe", "include_views"),
    ("/v1/tables/t1/hands/1:export?format=HISTORY_FORMAT_NONE", "format"),
])
async def test_a_bad_query_parameter_is_malformed_and_names_the_field(
    web_world: WebWorld, path: str, field: str
) -> None:
    response = await raw_request(web_world.port, "GET", path, headers={"authorization": AUDITOR})
    info = assert_refused(response, 400, "invalid_argument", "MALFORMED_REQUEST")
    assert info.metadata["field"] == field


@pytest.mark.parametrize("body", [
    b'{"seat": 1, "buyIn": ',  # not JSON
    b'{"seat": "one"}',  # a field of the wrong type
    b"\xff\xfe{}",  # not UTF-8
    b"[1, 2]",  # JSON, not an object
])
async def test_a_body_that_is_not_the_request_is_malformed_and_appends_nothing(
    web_world: WebWorld, body: bytes
) -> None:
    table_id = await web_world.new_table()
    head = await web_world.head(table_id)
    response = await raw_request(web_world.port, "POST", f"/v1/tables/{table_id}:sitDown", body,
                                 {"authorization": bearer("alice"), "content-type": "application/json"})
    assert_refused(response, 400, "invalid_argument", "MALFORMED_REQUEST")
    assert await web_world.head(table_id) == head


async def test_create_table_takes_the_table_as_the_body_and_the_rest_from_the_query(
    web_world: WebWorld,
) -> None:
    body = json.dumps({"stakes": {"smallBet": "200", "bigBet": "400", "ante": "50", "bringIn": "100"},
                       "minBuyIn": "2000", "maxBuyIn": "40000", "playMoney": True,
                       "variant": "VARIANT_RAZZ"}).encode()
    response = await raw_request(web_world.port, "POST", "/v1/tables?table_id=t-routes-razz&request_id=r-1",
                                 body, {"authorization": OPERATOR})
    assert response.status == 200, response.body
    assert response.json()["name"] == "tables/t-routes-razz" and response.json()["variant"] == "VARIANT_RAZZ"
    # The whole request as the body is not this route's form: "tableId" and "table" are no fields of a Table,
    # ignored as unknown fields are, and a Table with nothing set is refused.
    whole = json.dumps({"tableId": "t-other", "table": {}}).encode()
    refused = await raw_request(web_world.port, "POST", "/v1/tables", whole, {"authorization": OPERATOR})
    assert_refused(refused, 400, "invalid_argument", "MALFORMED_REQUEST")
    assert (await raw_request(web_world.port, "GET", "/v1/tables/t-other")).status == 404


async def test_a_query_parameter_on_a_whole_body_route_is_malformed_and_appends_nothing(
    web_world: WebWorld,
) -> None:
    """A route whose body is the whole request reads nothing from the query: a field put there (by mistake,
    or misspelt) must not be dropped silently."""
    table_id = await web_world.new_table()
    response = await raw_request(web_world.port, "POST", f"/v1/tables/{table_id}:sitDown?buy_in=9000",
                                 json.dumps({"seat": 1, "buyIn": str(BUY_IN)}).encode(),
                                 {"authorization": bearer("alice")})
    info = assert_refused(response, 400, "invalid_argument", "MALFORMED_REQUEST")
    assert info.metadata["field"] == "buy_in"
    assert await web_world.head(table_id) == 2


@pytest.mark.parametrize(("method", "path"), [
    ("GET", "/v1/nothing"),
    ("GET", "/v1/tables/t1:fly"),
    ("GET", "/v1/tables/t1/extra:view"),  # a `*` segment holds no "/"
    ("DELETE", "/v1/tables"),  # a known path, not with this method
    ("GET", "/v1/tables/t1:act"),
    ("POST", "/v1/tables/t1:view"),
    ("GET", "/stud.v1.TableService/NoSuchMethod"),
    ("GET", "/no/such/file.js"),
])
async def test_an_unknown_route_or_method_is_refused_unknown_route(
    web_world: WebWorld, method: str, path: str
) -> None:
    response = await raw_request(web_world.port, method, path, b"{}" if method == "POST" else None,
                                 {"authorization": OPERATOR})
    info = assert_refused(response, 501, "unimplemented", "UNKNOWN_ROUTE")
    assert info.metadata["path"] == path


async def test_a_body_too_large_is_refused_and_appends_nothing(web_world: WebWorld) -> None:
    table_id = await web_world.new_table()
    head = await web_world.head(table_id)
    body = json.dumps({"seat": 1, "buyIn": "5000", "requestId": "x" * MAX_REQUEST_BYTES}).encode()
    response = await raw_request(web_world.port, "POST", f"/v1/tables/{table_id}:sitDown", body,
                                 {"authorization": bearer("alice")})
    info = assert_refused(response, 429, "resource_exhausted", "REQUEST_TOO_LARGE")
    assert info.metadata["limit"] == str(MAX_REQUEST_BYTES)
    assert await web_world.head(table_id) == head


async def test_a_refusal_is_connect_error_json_with_the_reason_and_appends_nothing(
    web_world: WebWorld,
) -> None:
    table_id = await seated(web_world, "alice")
    head = await web_world.head(table_id)
    path = f"/v1/tables/{table_id}:sitDown"
    body = json.dumps({"seat": 1, "buyIn": str(BUY_IN)}).encode()
    taken = await raw_request(web_world.port, "POST", path, body, {"authorization": bearer("bob")})
    assert_refused(taken, 400, "failed_precondition", "SEAT_TAKEN")
    anonymous = await raw_request(web_world.port, "POST", path, body)
    assert_refused(anonymous, 401, "unauthenticated", "TOKEN_MISSING")
    forged = await raw_request(web_world.port, "POST", path, body, {"authorization": "Bearer not.a.token"})
    assert forged.status == 401 and error_info(forged.json()).reason.startswith("TOKEN_")
    missing = await raw_request(web_world.port, "GET", "/v1/tables/t-never-created", headers={
        "authorization": OPERATOR})
    assert_refused(missing, 404, "not_found", "NO_TABLE")
    assert await web_world.head(table_id) == head


async def ndjson(world: WebWorld, path: str, token: str, lines: int,
                 until: Callable[[dict], bool] = lambda line: True) -> list[dict]:
    """The first ``lines`` lines of a streaming route, and on to the first line ``until`` accepts."""
    caller = RouteCaller(world.base_url)
    found: list[dict] = []

    def done(found: list[dict]) -> bool:
        return len(found) >= lines and any(until(line) for line in found)

    async with caller.http.stream("GET", world.base_url + path, {"authorization": token}) as response:
        assert response.status == 200
        assert response.headers["content-type"] == "application/x-ndjson"
        pending = b""
        async with asyncio.timeout(60):
            async for chunk in response.content:
                pending += bytes(chunk)
                while b"\n" in pending and not done(found):
                    line, pending = pending.split(b"\n", 1)
                    found.append(json.loads(line))
                if done(found):
                    break
    return found


async def test_an_ndjson_watch_streams_events_and_resumes_after_a_version(web_world: WebWorld) -> None:
    table_id = await seated(web_world, "alice")
    path = f"/v1/tables/{table_id}:watch"
    first = await ndjson(web_world, f"{path}?include_views=true", bearer("alice"), 1)
    assert first[0]["result"]["view"]["version"] == str(await web_world.head(table_id))
    await web_world.grpc_client("bob").sit_down(table_id, 2, BUY_IN)  # a hand is dealt
    # include_views=1 (a boolean): each burst's last message carries the view (on a loaded machine the first
    # burst, the events logged before the watch began, may be long).
    lines = await ndjson(web_world, f"{path}?after_version=1&includeViews=1", bearer("alice"), 8,
                         until=lambda line: "view" in line["result"])
    events = [line["result"]["event"] for line in lines]
    assert [int(event["version"]) for event in events] == list(range(2, 2 + len(lines)))
    resumed = await ndjson(web_world, f"{path}?afterVersion=5", bearer("alice"), 2)
    assert [int(line["result"]["event"]["version"]) for line in resumed] == [6, 7]


async def test_an_ndjson_watch_refused_before_it_starts_is_an_error_response(web_world: WebWorld) -> None:
    table_id = await web_world.new_table()
    head = await web_world.head(table_id)
    caller = RouteCaller(web_world.base_url)
    request = table_service_pb2.WatchTableRequest(name=f"tables/{table_id}", after_version=head + 5)
    with pytest.raises(RouteError) as caught:
        async for _ in caller.stream(method_named("WatchTable"), request, bearer("alice")):
            pass
    assert caught.value.status == 400 and error_info(caught.value.document).reason == "VERSION_OUT_OF_RANGE"
