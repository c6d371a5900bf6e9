"""The hostile-input suite's server and what it checks after every request.

``hostile_world(database_url)`` starts the whole service as ``serve`` wires it (gRPC port with health and
reflection, web port, its JSON log captured), with tables in every state a case may meet: a real-money
table with funded players seated, a play-chip one, a full one with a waiting list, one whose first hand is
over. Dealing is then turned off, so that nothing but the calls themselves writes to the log.

``World.run(case, transport)`` sends one case and returns its violations:

- the status is never UNKNOWN or INTERNAL (nor DATA_LOSS), and every refusal carries an ErrorInfo reason
  (a watch that reaches its deadline waiting for news is not a refusal); on the web port no 5xx comes
  without one either;
- the call logged no ERROR line;
- a refused call changed nothing: the fingerprint of ``events`` (every stream's events, the access log left
  out: an operator's or auditor's call is recorded before it is checked) and the money totals (every
  account's and house account's balance, by currency) are the same after it as before;
- a request with text no id can be in an id field, or a malformed request id, is not answered OK;
- an exact retry (same request id, same request) changes nothing; the same request id with another
  request, after a first call that succeeded, is refused.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import time
from collections import Counter
from collections.abc import AsyncIterator
from dataclasses import dataclass, field, replace
from typing import Any

import grpc
import psutil
import psycopg
from google.protobuf import duration_pb2, timestamp_pb2
from google.protobuf.descriptor import MethodDescriptor
from grpc_fixtures import TOKEN_SECRET, settle_table, table_spec, whole_service
from grpc_health.v1 import health_pb2
from grpc_reflection.v1alpha import reflection_pb2
from hostile_cases import Case, Names, cases_for
from hostile_wire import (
    GRPC_TRANSPORT,
    JSON_TRANSPORTS,
    WATCH_SECONDS,
    Http1,
    Outcome,
    authorization,
    connect_request,
    grpc_web_request,
    over_grpc,
    over_web,
    route_request,
)

from stud_service.auth import Role, mint_token
from stud_service.bots import Bot, StudClient
from stud_service.bots.player import cautious_strategy
from stud_service.server.api.audit_service import AuditService
from stud_service.server.api.cashier_service import CashierService
from stud_service.server.api.table_service import TableService
from stud_service.server.api.tournament_service import TournamentService
from stud_service.server.grpc.reflection import V1_SERVICE_NAME
from stud_service.server.proto_gen import table_pb2, tournament_pb2, tournament_service_pb2

NEVER = frozenset({"UNKNOWN", "INTERNAL", "DATA_LOSS"})
MONEY_TABLE, CHIPS_TABLE, FULL_TABLE, PLAYED_TABLE = "hz-money", "hz-chips", "hz-full", "hz-played"
CONTROL_TABLE = "hz-control"  # paused, resumed and closed by the operator's controls (RULES.md §12)
PLAYER, STANDING_PLAYER = "alice", "dora"
FUNDS = 1_000_000
STUD_SERVICES = (TableService.DESCRIPTOR, AuditService.DESCRIPTOR, CashierService.DESCRIPTOR,
                 TournamentService.DESCRIPTOR)
TOURNAMENT = "hz-cup"  # a money tournament taking registrations, far from its start


def tournament_spec() -> tournament_pb2.Tournament:
    """A $10 + $1 tournament of up to 10,000 players starting in ten years: it only takes registrations."""
    start = timestamp_pb2.Timestamp(seconds=int(time.time()) + 10 * 365 * 86_400)
    return tournament_pb2.Tournament(kind=tournament_pb2.TOURNAMENT_KIND_SCHEDULED, start_time=start,
                                     max_entrants=10_000, buy_in=1_000, fee=100, currency_code="USD")


def grpc_only_services() -> list[Any]:
    """Health and reflection (both versions): on the gRPC port only."""
    from google.protobuf import descriptor_pool

    v1 = descriptor_pool.Default().FindServiceByName(V1_SERVICE_NAME)
    return [health_pb2.DESCRIPTOR.services_by_name["Health"],
            reflection_pb2.DESCRIPTOR.services_by_name["ServerReflection"], v1]


def methods_over(transport: str) -> list[MethodDescriptor]:
    """Every method a transport serves: the stud services everywhere (a route only where the method has
    one), health and reflection on the gRPC port."""
    services = [*STUD_SERVICES, *(grpc_only_services() if transport == GRPC_TRANSPORT else [])]
    return [method for service in services for method in service.methods]


class LogLines:
    """The service's JSON log as it is written (a stream for its handler): lines at ERROR or above kept."""

    def __init__(self) -> None:
        self.lines = 0
        self.errors: list[str] = []
        self._pending = ""

    def flush(self) -> None:
        pass

    def write(self, text: str) -> int:
        self._pending += text
        *complete, self._pending = self._pending.split("\n")
        for line in complete:
            self.lines += 1
            with contextlib.suppress(ValueError):
                if json.loads(line).get("level") in ("ERROR", "CRITICAL"):
                    self.errors.append(line[:2000])
        return len(text)


# Every stream's events but the records of who called (the access log's and the player sessions': a refused
# call's caller is recorded as any caller is), in one digest; every account's last balance by currency. The
# three ranges of stream ids around the callers' are read through the primary key: a scan of every event
# would read the callers' records too, thousands of them by the end of a spray, twice a case.
_FINGERPRINT = """
SELECT count(*), coalesce(md5(string_agg(stream_id || ':' || version || ':' || encode(hash, 'hex'), ','
                                         ORDER BY stream_id, version)), '')
FROM (SELECT stream_id, version, hash FROM events WHERE stream_id < 'access/'
      UNION ALL
      SELECT stream_id, version, hash FROM events WHERE stream_id >= 'access0' AND stream_id < 'sessions/'
      UNION ALL
      SELECT stream_id, version, hash FROM events WHERE stream_id >= 'sessions0') others
"""
_NOT_CALLERS = ("(stream_id < 'access/' OR stream_id >= 'access0')"
                " AND (stream_id < 'sessions/' OR stream_id >= 'sessions0')")
_MONEY = """
SELECT split_part(stream_id, '/', 2), sum(coalesce((payload->>'balance')::numeric, 0))::text
FROM (SELECT DISTINCT ON (stream_id) stream_id, payload FROM events
      WHERE stream_id LIKE 'accounts/%' OR stream_id LIKE 'house/%' ORDER BY stream_id, version DESC) last
GROUP BY 1 ORDER BY 1
"""
_NEWEST = f"""
SELECT stream_id, version, type FROM events
WHERE {_NOT_CALLERS} AND recorded_at >= %s ORDER BY recorded_at, version
LIMIT 20
"""


@dataclass(frozen=True)
class Fingerprint:
    events: int
    digest: str
    money: tuple[tuple[str, str], ...]


@dataclass
class Violation:
    case: str
    transport: str
    problem: str

    def __str__(self) -> str:
        return f"[{self.transport}] {self.case}: {self.problem}"


@dataclass
class World:
    host: Any
    channel: grpc.aio.Channel
    log: LogLines
    conn: psycopg.AsyncConnection
    names: Names
    usual_callers: dict[str, str] = field(default_factory=dict)
    http: dict[str, Http1] = field(default_factory=dict)
    outcomes: Counter[str] = field(default_factory=Counter)
    sent: int = 0
    _cases: dict[str, list[Case]] = field(default_factory=dict)

    @property
    def web_port(self) -> int:
        return int(self.host.web_port)

    def cases(self, method: MethodDescriptor) -> list[Case]:
        if method.full_name not in self._cases:
            usual = self.usual_callers.get(method.full_name, "operator")
            self._cases[method.full_name] = cases_for(method, self.names, usual)
        return self._cases[method.full_name]

    async def fingerprint(self) -> Fingerprint:
        cursor = await self.conn.execute(_FINGERPRINT)
        count, digest = await cursor.fetchone()  # type: ignore[misc]
        money = await (await self.conn.execute(_MONEY)).fetchall()
        return Fingerprint(int(count), str(digest), tuple((str(c), str(total)) for c, total in money))

    async def newest_events(self, since: Any) -> list[tuple[str, int, str]]:
        return [tuple(row) for row in await (await self.conn.execute(_NEWEST, (since,))).fetchall()]

    async def db_now(self) -> Any:
        return (await (await self.conn.execute("SELECT clock_timestamp()")).fetchone())[0]  # type: ignore[index]

    def http_for(self, transport: str) -> Http1:
        if transport not in self.http:
            self.http[transport] = Http1(self.web_port)
        return self.http[transport]

    async def send(self, case: Case, transport: str, watch_seconds: float = WATCH_SECONDS) -> Outcome:
        """``case``'s answer; over gRPC a watch silent for ``watch_seconds`` is waiting for news."""
        token = authorization(case.caller, self.names.player)
        method = case.method
        self.sent += 1
        if transport == GRPC_TRANSPORT:
            return await over_grpc(self.channel, method, case.binary_body(), token, watch_seconds)
        json_codec = transport in JSON_TRANSPORTS
        if transport == "route":
            request = route_request(method, case.json_document(), token)
        elif case.framing is not None and transport == "grpc-web":
            request = grpc_web_request(method, case.framing, token, raw_body=True)
        elif case.framing is not None:
            request = connect_request(method, case.framing, json_codec, token, raw_body=True)
        elif transport == "grpc-web":
            request = grpc_web_request(method, case.binary_body(), token)
        else:
            body = _json_body(case) if json_codec else case.binary_body()
            request = connect_request(method, body, json_codec, token)
        return await over_web(self.http_for(transport), transport, request)

    async def run(self, case: Case, transport: str, first: Outcome | None = None) -> list[Violation]:
        """Send ``case`` (and its follow-ups) and check every invariant; the violations found."""
        before = await self.fingerprint()
        started = await self.db_now()
        errors = len(self.log.errors)
        outcome = await self.send(case, transport)
        self.outcomes[f"{outcome.code} {outcome.reason or ''}".strip()] += 1
        found = [Violation(case.name, transport, problem) for problem in judge(case, outcome, first)]
        changed = outcome.waiting is False and (not outcome.ok or case.relation == "retry")
        if changed:
            after = await self.fingerprint()
            if after != before:
                newest = await self.newest_events(started)
                what = "an exact retry" if outcome.ok else f"a refusal ({outcome})"
                found.append(Violation(case.name, transport, f"{what} changed the log or the money: "
                                       f"{before} -> {after}; newest events {newest}"))
        await asyncio.sleep(0)  # let a log line written just after the answer arrive
        if len(self.log.errors) > errors:
            found.append(Violation(case.name, transport, f"ERROR logged ({outcome}): "
                                   f"{self.log.errors[errors][:600]}"))
        for follow_up in case.then:
            found += await self.run(follow_up, transport, first=outcome)
        return found


def judge(case: Case, outcome: Outcome, first: Outcome | None) -> list[str]:
    """What is wrong with ``outcome`` as the answer to ``case`` (nothing: an empty list). Health and
    reflection are gRPC's own protocols: their refusals (NOT_FOUND for a service no one checks) carry no
    ErrorInfo by design; the rest holds for them too."""
    problems = []
    ours = case.method.containing_service.full_name.startswith("stud.")
    if outcome.code in NEVER:
        problems.append(f"answered {outcome}")
    elif not outcome.ok and not outcome.reason and not outcome.waiting and ours:
        problems.append(f"refused without an ErrorInfo reason: {outcome}")
    if outcome.http_status is not None and outcome.http_status >= 500 and not outcome.reason \
            and not outcome.waiting:
        problems.append(f"a 5xx without a reason: {outcome}")
    if outcome.ok and case.never_ok:
        problems.append("answered OK to text no id can be")
    if case.relation == "reused" and first is not None and first.ok and outcome.ok:
        problems.append("a request id reused for another request was accepted")
    if case.relation == "retry" and first is not None and first.ok and not outcome.ok:
        problems.append(f"an exact retry of a call that succeeded was refused: {outcome}")
    return problems


def _json_body(case: Case) -> bytes:
    document = case.json_document()
    return document if isinstance(document, bytes) else json.dumps(document).encode()


# -- setting the world up ---------------------------------------------------------------------------------


def client(world_channel: grpc.aio.Channel, who: str, role: Role = Role.PLAYER) -> StudClient:
    return StudClient(world_channel, mint_token(TOKEN_SECRET, who, role))


def bots_for(channel: grpc.aio.Channel, table_id: str, players: list[tuple[str, int]]) -> list[Bot]:
    """Bots for ``players`` (id, seat), seated already at the table."""
    return [Bot(client(channel, player), table_id, seat, strategy=cautious_strategy, seed=seat)
            for player, seat in players]


async def play_hands(bots: list[Bot], hands: int = 1, timeout: float = 60.0) -> None:
    async with asyncio.timeout(timeout):
        await asyncio.gather(*(bot.run(hands) for bot in bots))


async def set_up_tables(channel: grpc.aio.Channel, runtime: Any) -> None:
    operator = client(channel, "house", Role.OPERATOR)
    for player in (PLAYER, "bob", "carol"):
        await operator.deposit(player, FUNDS)
    await operator.create_table(PLAYED_TABLE, table_spec())
    await operator.create_table(MONEY_TABLE, table_spec(play_money=False, currency_code="USD", max_seats=6))
    await operator.create_table(CHIPS_TABLE, table_spec())
    await operator.create_table(CONTROL_TABLE, table_spec())
    offer = duration_pb2.Duration(seconds=3_600)  # no offer runs out while the suite sprays
    await operator.create_table(FULL_TABLE, table_spec(max_seats=2, seat_offer_time=offer))
    alice, bob = client(channel, PLAYER), client(channel, "bob")
    await alice.sit_down(PLAYED_TABLE, 1, 5_000)
    await bob.sit_down(PLAYED_TABLE, 2, 5_000)
    bots = bots_for(channel, PLAYED_TABLE, [(PLAYER, 1), ("bob", 2)])
    await play_hands(bots)
    runtime.settings = replace(runtime.settings, auto_deal=False)  # from here on only calls write
    await settle_table(bots, operator, PLAYED_TABLE)  # a hand dealt meanwhile is played out
    await alice.sit_down(MONEY_TABLE, 1, 5_000)
    await bob.sit_down(MONEY_TABLE, 2, 5_000)
    await alice.sit_down(CHIPS_TABLE, 1, 5_000)
    await alice.sit_down(CONTROL_TABLE, 1, 5_000)
    await alice.sit_down(FULL_TABLE, 1, 5_000)
    await bob.sit_down(FULL_TABLE, 2, 5_000)
    await client(channel, "carol").join_waiting_list(FULL_TABLE)
    await operator.tournaments.CreateTournament(tournament_service_pb2.CreateTournamentRequest(
        tournament=tournament_spec(), tournament_id=TOURNAMENT), metadata=operator.metadata)


async def usual_callers(world: World) -> dict[str, str]:
    """For each method, the first role whose token the method lets past its checks of who may call (a
    refusal other than UNAUTHENTICATED or PERMISSION_DENIED): hostile values come from it, to get deep."""
    found = {}
    for method in methods_over(GRPC_TRANSPORT):
        found[method.full_name] = "operator"
        for role in ("player", "operator", "auditor"):
            case = next(case for case in cases_for(method, world.names, role) if case.caller == role)
            outcome = await world.send(case, GRPC_TRANSPORT)
            if outcome.code not in ("UNAUTHENTICATED", "PERMISSION_DENIED"):
                found[method.full_name] = role
                break
    return found


@contextlib.asynccontextmanager
async def hostile_world(database_url: str, **options: Any) -> AsyncIterator[World]:
    """The world on ``database_url``; ``options``: ServiceOptions of the test's own."""
    log = LogLines()
    async with whole_service(database_url, TOKEN_SECRET, log, web_listen="127.0.0.1:0",
                             rake_sweep_seconds=3_600.0, **options) as service:
        host = service.host
        await set_up_tables(service.channel, host.runtime)
        names = Names(tables=(MONEY_TABLE, CHIPS_TABLE, FULL_TABLE, PLAYED_TABLE), hand_table=PLAYED_TABLE,
                      control_table=CONTROL_TABLE,
                      player=PLAYER, standing_player=STANDING_PLAYER, table_spec=table_spec,
                      tournament=TOURNAMENT, tournament_spec=tournament_spec)
        async with await psycopg.AsyncConnection.connect(database_url, autocommit=True) as conn:
            world = World(host, service.channel, log, conn, names)
            world.usual_callers = await usual_callers(world)
            try:
                yield world
            finally:
                for http in world.http.values():
                    await http.close()


# -- afterwards: every table plays on ---------------------------------------------------------------------


async def every_table_plays_a_hand(world: World, timeout: float = 90.0) -> dict[str, int]:
    """Dealing back on; at every table of the log, bots for the players seated there (and new ones where fewer
    than two can play) play one hand (a paused table resumed first; a closed one, which never deals again,
    holds nobody). The hands each table had started before, by table."""
    world.host.runtime.settings = replace(world.host.runtime.settings, auto_deal=True)
    operator = client(world.channel, "house", Role.OPERATOR)
    tables = [table.name.removeprefix("tables/") for table in await _all_tables(operator)]
    started = {}
    games = []
    for table_id in tables:
        view = await operator.view(table_id)
        if view.table.status == table_pb2.TABLE_STATUS_CLOSED:
            assert not view.seats and not view.table.waiting_players, f"{table_id} is closed with players"
            continue
        if view.table.status == table_pb2.TABLE_STATUS_PAUSED:
            await operator.resume_table(table_id, "the spray is over")
            view = await operator.view(table_id)
        started[table_id] = view.table.hands_started
        games.append(_play_on(world, operator, table_id, view))
    async with asyncio.timeout(timeout):
        await asyncio.gather(*games)
    return started


async def _all_tables(operator: StudClient) -> list[Any]:
    tables, token = [], ""
    while True:
        page = await operator.list_tables(page_size=100, page_token=token)
        tables += list(page.tables)
        token = page.next_page_token
        if not token:
            return tables


async def _play_on(world: World, operator: StudClient, table_id: str, view: Any) -> None:
    """Get at least two players sitting in at ``table_id`` (the seated ones back in, a player a seat is
    offered to into it, newcomers in free seats), wake the dealer with an event, and play a hand."""
    config = view.table
    players: dict[str, int] = {}
    woke = False
    for seat in view.seats:
        if not seat.player_id:
            continue
        player = client(world.channel, seat.player_id)
        if seat.stack == 0:
            await player.leave(table_id)
            woke = True
            continue
        if seat.sitting_out:
            await player.sit_in(table_id)
            woke = True
        players[seat.player_id] = seat.seat
    for known in (PLAYER, "bob", "carol"):  # the players the world put on waiting lists
        offer = (await client(world.channel, known).view(table_id)).seat_offer
        if offer.seat and known not in players:
            await client(world.channel, known).sit_down(table_id, offer.seat, config.min_buy_in)
            players[known] = offer.seat
            woke = True
    taken = {seat.seat for seat in (await operator.view(table_id)).seats if seat.player_id}
    free = [seat for seat in range(1, config.max_seats + 1) if seat not in taken]
    for seat in free:
        if len(players) >= 2 and woke:
            break
        newcomer = f"bot-{table_id}-{seat}"[:64]
        if not config.play_money:
            await operator.deposit(newcomer, config.min_buy_in, config.currency_code)
        try:
            await client(world.channel, newcomer).sit_down(table_id, seat, config.min_buy_in)
        except grpc.aio.AioRpcError as refused:  # a seat held for the player waiting first
            if refused.code() != grpc.StatusCode.FAILED_PRECONDITION:
                raise
            continue
        players[newcomer] = seat
        woke = True
    assert len(players) >= 2, f"{table_id}: no two players can play ({view})"
    if not woke:  # everyone sitting in already: one sits out and back in, which deals the next hand
        player = client(world.channel, next(iter(players)))
        await player.sit_out(table_id)
        await player.sit_in(table_id)
    await play_hands(bots_for(world.channel, table_id, list(players.items())))


def rss() -> int:
    return psutil.Process().memory_info().rss
