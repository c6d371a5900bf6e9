"""TournamentService on a real server over PostgreSQL, with real clients: an operator creates, anyone reads
the lobby, players register and unregister (with request ids, paying from their accounts), every refusal has
its reason and changes nothing, a player's view shows their table, seat, stack and rank, and a watch gets the
tournament's events typed, resumable from a version. The web port's Connect and JSON routes serve the same
methods (tests/web_calls.py calls each one)."""

from __future__ import annotations

import asyncio
import hashlib
import uuid
from collections.abc import Awaitable

import grpc
import pytest
from google.protobuf import duration_pb2, timestamp_pb2
from grpc_fixtures import wait_for_view

from stud_service.auth import Role
from stud_service.bots import StudClient, error_reason
from stud_service.bots.client import new_request_id
from stud_service.server.api.errors import error_info
from stud_service.server.proto_gen import table_pb2, tournament_pb2, tournament_service_pb2
from stud_service.server.tables.live import now_ms
from stud_service.server.tournaments.runtime import new_draw
from stud_service.tournaments import StartTournament

pytestmark = pytest.mark.asyncio(loop_scope="session")


@pytest.fixture(autouse=True)
def _cancelled_after(tournaments_cancelled_after: None) -> None:
    """The tournaments a test started stop with it (grpc_fixtures.cancel_running_tournaments)."""

T = tournament_service_pb2
BUY_IN, FEE = 1_000, 100


def structure(**fields: object) -> tournament_pb2.Tournament:
    """A $10 + $1 sit & go of three at one table, two ten-minute levels, unless ``fields`` say otherwise."""
    spec = tournament_pb2.Tournament(
        display_name="Tuesday", variant=table_pb2.VARIANT_RAZZ, max_entrants=3, seats_per_table=3,
        starting_stack=1_000, buy_in=BUY_IN, fee=FEE, currency_code="USD",
        levels=[level(5, 10, 20), level(10, 20, 40)],
    )
    for name, value in fields.items():
        if hasattr(value, "CopyFrom"):
            getattr(spec, name).CopyFrom(value)
        elif isinstance(value, list):
            getattr(spec, name).extend(value)
        else:
            setattr(spec, name, value)
    return spec


def level(ante: int, bring_in: int, small_bet: int) -> tournament_pb2.TournamentLevel:
    return tournament_pb2.TournamentLevel(
        stakes=table_pb2.Stakes(ante=ante, bring_in=bring_in, small_bet=small_bet, big_bet=2 * small_bet),
        duration=duration_pb2.Duration(seconds=600))


def fresh(prefix: str = "cup") -> str:
    return f"{prefix}-{uuid.uuid4().hex[:10]}"


def players(count: int) -> list[str]:
    tag = uuid.uuid4().hex[:6]
    return [f"p{number}-{tag}" for number in range(1, count + 1)]


async def create(operator: StudClient, tournament_id: str | None = None, request_id: str | None = None,
                 **fields: object) -> tournament_pb2.Tournament:
    return await operator.tournaments.CreateTournament(
        T.CreateTournamentRequest(tournament=structure(**fields), tournament_id=tournament_id or fresh(),
                                  request_id=request_id or new_request_id()),
        metadata=operator.metadata)


async def get(client: StudClient, tournament: str) -> tournament_pb2.Tournament:
    return await client.tournaments.GetTournament(T.GetTournamentRequest(name=tournament),
                                                  metadata=client.metadata)


async def register(client: StudClient, tournament: str,
                   request_id: str | None = None) -> tournament_pb2.TournamentView:
    reply = await client.tournaments.RegisterTournament(
        T.RegisterTournamentRequest(name=tournament, request_id=request_id or new_request_id()),
        metadata=client.metadata)
    return reply.view


async def unregister(client: StudClient, tournament: str,
                     request_id: str | None = None) -> tournament_pb2.TournamentView:
    reply = await client.tournaments.UnregisterTournament(
        T.UnregisterTournamentRequest(name=tournament, request_id=request_id or new_request_id()),
        metadata=client.metadata)
    return reply.view


async def refused(call: Awaitable[object]) -> tuple[grpc.StatusCode, str | None, dict[str, str]]:
    with pytest.raises(grpc.aio.AioRpcError) as error:
        await call
    info = error_info(error.value)
    return error.value.code(), error_reason(error.value), dict(info.metadata) if info else {}


async def funded(grpc_service, operator: StudClient, names: list[str],
                 amount: int = 5_000) -> list[StudClient]:
    for name in names:
        await operator.deposit(name, amount)
    return [grpc_service.client(name) for name in names]


async def balance(operator: StudClient, player: str) -> int:
    return (await operator.account(player)).balance


async def head(grpc_service, tournament: str) -> int:
    return await grpc_service.store.head(tournament)


# --- creating and the lobby ----------------------------------------------------------------------------

async def test_an_operator_creates_a_tournament_and_anyone_reads_it_in_the_lobby(grpc_service, operator,
                                                                                make_player) -> None:
    tournament_id = fresh()
    created = await create(operator, tournament_id)
    assert created.name == f"tournaments/{tournament_id}" and created.display_name == "Tuesday"
    assert created.state == tournament_pb2.TOURNAMENT_STATE_REGISTERING and created.registration_open
    assert created.variant == table_pb2.VARIANT_RAZZ and created.max_entrants == 3 and created.version == 2
    assert not created.HasField("clock")
    assert list(created.payout_table) == [10_000] and created.prize_pool == 0
    anonymous = grpc_service.connect(None)  # the lobby needs no token
    assert await get(anonymous, created.name) == created
    assert await get(make_player("ann"), created.name) == created
    listed, token = [], ""
    while True:
        request = T.ListTournamentsRequest(page_size=2, page_token=token)
        page = await anonymous.tournaments.ListTournaments(request)
        listed += [tournament.name for tournament in page.tournaments]
        assert len(page.tournaments) <= 2
        token = page.next_page_token
        if not token:
            break
    assert created.name in listed and len(listed) == len(set(listed))


@pytest.mark.parametrize("role", [Role.PLAYER, Role.AUDITOR])
async def test_only_an_operator_creates_or_cancels_a_tournament(grpc_service, operator, role: Role) -> None:
    caller = grpc_service.client("mallory", role)
    tournament_id = fresh()
    code, reason, _ = await refused(create(caller, tournament_id))
    assert (code, reason) == (grpc.StatusCode.PERMISSION_DENIED, "OPERATOR_ONLY")
    assert await refused(get(caller, f"tournaments/{tournament_id}")) == (
        grpc.StatusCode.NOT_FOUND, "NO_TOURNAMENT", {})
    created = await create(operator)
    code, reason, _ = await refused(caller.tournaments.CancelTournament(
        T.CancelTournamentRequest(name=created.name, reason="mine"), metadata=caller.metadata))
    assert (code, reason) == (grpc.StatusCode.PERMISSION_DENIED, "OPERATOR_ONLY")
    assert (await get(caller, created.name)).state == tournament_pb2.TOURNAMENT_STATE_REGISTERING


async def test_a_retried_create_names_the_same_tournament_and_a_reused_id_is_refused(grpc_service,
                                                                                    operator) -> None:
    request_id = new_request_id()
    request = T.CreateTournamentRequest(tournament=structure(), request_id=request_id)  # the server names it
    first = await operator.tournaments.CreateTournament(request, metadata=operator.metadata)
    again = await operator.tournaments.CreateTournament(request, metadata=operator.metadata)
    assert again == first and first.name.startswith("tournaments/tr-")
    assert await head(grpc_service, first.name) == first.version
    request.tournament.display_name = "Wednesday"
    assert await refused(operator.tournaments.CreateTournament(request, metadata=operator.metadata)) == (
        grpc.StatusCode.INVALID_ARGUMENT, "REQUEST_ID_REUSED", {"field": "request_id"})
    tournament_id = first.name.removeprefix("tournaments/")
    code, reason, _ = await refused(create(operator, tournament_id))
    assert (code, reason) == (grpc.StatusCode.ALREADY_EXISTS, "TOURNAMENT_EXISTS")


@pytest.mark.parametrize(("fields", "field"), [
    ({"max_entrants": 10_001}, "tournament.max_entrants"),
    ({"levels": level(5, 30, 20)}, "tournament.levels[0].stakes.bring_in"),
    ({"kind": tournament_pb2.TOURNAMENT_KIND_SCHEDULED}, "tournament.start_time"),
    ({"payouts": [6_000, 3_000]}, "tournament.payouts"),
    ({"currency_code": "ABC"}, "tournament.currency_code"),
])
async def test_a_structure_out_of_bounds_is_refused_naming_its_field(grpc_service, operator, fields: dict,
                                                                    field: str) -> None:
    spec = structure()
    for name, value in fields.items():
        if isinstance(value, list):
            spec.ClearField(name)
            getattr(spec, name).extend(value)
        elif hasattr(value, "CopyFrom"):
            spec.ClearField(name)
            getattr(spec, name).append(value)
        else:
            setattr(spec, name, value)
    tournament_id = fresh()
    reply = operator.tournaments.CreateTournament(
        T.CreateTournamentRequest(tournament=spec, tournament_id=tournament_id), metadata=operator.metadata)
    assert await refused(reply) == (grpc.StatusCode.INVALID_ARGUMENT, "INVALID_CONFIG", {"field": field})
    assert await head(grpc_service, f"tournaments/{tournament_id}") == 0


@pytest.mark.parametrize(("request_fields", "field"), [
    ({"tournament_id": "Not-An-Id"}, "tournament_id"),
    ({"tournament_id": "a" * 57}, "tournament_id"),
    ({"request_id": "with space"}, "request_id"),
])
async def test_a_malformed_create_is_refused_naming_its_field(operator, request_fields: dict,
                                                             field: str) -> None:
    request = T.CreateTournamentRequest(tournament=structure(), **request_fields)
    code, reason, metadata = await refused(
        operator.tournaments.CreateTournament(request, metadata=operator.metadata))
    assert (code, reason, metadata) == (grpc.StatusCode.INVALID_ARGUMENT, "MALFORMED_REQUEST",
                                        {"field": field})
    bare = T.CreateTournamentRequest(tournament_id=fresh())
    assert await refused(operator.tournaments.CreateTournament(bare, metadata=operator.metadata)) == (
        grpc.StatusCode.INVALID_ARGUMENT, "MALFORMED_REQUEST", {"field": "tournament"})


async def test_malformed_names_and_page_tokens_are_refused_naming_the_field(make_player) -> None:
    ann = make_player("ann")
    for name in ("tournaments/", "tournaments/Up", "tables/t1", "tournaments/a/b", "tournaments/" + "a" * 57):
        for call in (get(ann, name), register(ann, name)):
            code, reason, metadata = await refused(call)
            assert (code, reason, metadata) == (grpc.StatusCode.INVALID_ARGUMENT, "MALFORMED_REQUEST",
                                                {"field": "name"}), name
    unknown = f"tournaments/{fresh()}"
    assert await refused(get(ann, unknown)) == (grpc.StatusCode.NOT_FOUND, "NO_TOURNAMENT", {})
    lobby = ann.tournaments.ListTournaments
    assert await refused(lobby(T.ListTournamentsRequest(page_token="v1.made.up"))) == (
        grpc.StatusCode.INVALID_ARGUMENT, "MALFORMED_REQUEST", {"field": "page_token"})
    assert await refused(lobby(T.ListTournamentsRequest(page_size=-1))) == (
        grpc.StatusCode.INVALID_ARGUMENT, "MALFORMED_REQUEST", {"field": "page_size"})


# --- registering ----------------------------------------------------------------------------------------

async def test_registering_pays_from_the_account_and_a_retry_pays_once(grpc_service, operator) -> None:
    (ann_name,) = names = players(1)
    (ann,) = await funded(grpc_service, operator, names)
    tournament = (await create(operator)).name
    request_id = new_request_id()
    view = await register(ann, tournament, request_id)
    assert view.registered and view.entries == 1 and not view.table
    assert view.tournament.entrants == 1 and view.tournament.prize_pool == BUY_IN
    assert view.version == view.tournament.version == await head(grpc_service, tournament)
    assert await balance(operator, ann_name) == 5_000 - BUY_IN - FEE
    again = await register(ann, tournament, request_id)  # a retry: the first call's answer, paid once
    assert again == view and await balance(operator, ann_name) == 5_000 - BUY_IN - FEE
    assert (await get(ann, tournament)).entrants == 1
    left = await unregister(ann, tournament, request_id)  # the same id for another method: a new request
    assert not left.registered and await balance(operator, ann_name) == 5_000


async def test_unregistering_refunds_and_a_second_one_is_not_registered(grpc_service, operator) -> None:
    (ann_name,) = names = players(1)
    (ann,) = await funded(grpc_service, operator, names)
    tournament = (await create(operator)).name
    await register(ann, tournament)
    request_id = new_request_id()
    view = await unregister(ann, tournament, request_id)
    assert not view.registered and view.tournament.entrants == 0
    assert await balance(operator, ann_name) == 5_000
    assert await unregister(ann, tournament, request_id) == view  # the retry: its first answer
    version = await head(grpc_service, tournament)
    assert await refused(unregister(ann, tournament)) == (grpc.StatusCode.NOT_FOUND, "NOT_REGISTERED", {})
    assert await head(grpc_service, tournament) == version and await balance(operator, ann_name) == 5_000
    assert (await register(ann, tournament)).registered  # and may register again


async def test_each_refused_registration_has_its_reason_and_changes_nothing(grpc_service, operator) -> None:
    names = players(5)
    clients = await funded(grpc_service, operator, names[:4])
    broke = grpc_service.client(names[4])  # no account at all
    tournament = (await create(operator)).name
    await register(clients[0], tournament)

    async def entries() -> list[tuple[str, ...]]:
        """The entries in the tournament's log (once it runs, its tables write there too: its head moves)."""
        stored = await grpc_service.store.read_stream(tournament)
        return [(row.payload["type"], row.payload["player_id"]) for row in stored
                if row.payload["type"] in ("PlayerRegistered", "PlayerUnregistered", "PlayerReEntered")]

    async def unchanged(call: Awaitable[object], expected: tuple[grpc.StatusCode, str]) -> None:
        before = await entries()
        balances = [await balance(operator, name) for name in names[:4]]
        code, reason, _ = await refused(call)
        assert (code, reason) == expected
        assert await entries() == before
        assert [await balance(operator, name) for name in names[:4]] == balances

    await unchanged(register(clients[0], tournament), (grpc.StatusCode.ALREADY_EXISTS, "ALREADY_REGISTERED"))
    await unchanged(register(broke, tournament), (grpc.StatusCode.FAILED_PRECONDITION, "INSUFFICIENT_FUNDS"))
    auditor = grpc_service.client("auditor", Role.AUDITOR)
    await unchanged(register(auditor, tournament), (grpc.StatusCode.PERMISSION_DENIED, "AUDITOR_READ_ONLY"))
    await register(clients[1], tournament)
    started = await register(clients[2], tournament)  # the last seat: the sit & go starts
    assert started.tournament.state == tournament_pb2.TOURNAMENT_STATE_RUNNING
    await unchanged(register(clients[3], tournament),
                    (grpc.StatusCode.FAILED_PRECONDITION, "TOURNAMENT_FULL"))
    await unchanged(unregister(clients[0], tournament),
                    (grpc.StatusCode.FAILED_PRECONDITION, "TOURNAMENT_STARTED"))
    await unchanged(clients[0].tournaments.ReEnterTournament(
        T.ReEnterTournamentRequest(name=tournament), metadata=clients[0].metadata),
        (grpc.StatusCode.FAILED_PRECONDITION, "STILL_IN_TOURNAMENT"))
    await unchanged(clients[3].tournaments.ReEnterTournament(
        T.ReEnterTournamentRequest(name=tournament), metadata=clients[3].metadata),
        (grpc.StatusCode.NOT_FOUND, "NOT_REGISTERED"))
    await unchanged(register(clients[3], f"tournaments/{fresh()}"),
                    (grpc.StatusCode.NOT_FOUND, "NO_TOURNAMENT"))


async def test_registration_closes_at_the_start_of_a_tournament_without_late_entries(grpc_service,
                                                                                   operator) -> None:
    names = players(3)
    clients = await funded(grpc_service, operator, names)
    start = now_ms() + 60_000
    created = await create(operator, kind=tournament_pb2.TOURNAMENT_KIND_SCHEDULED, max_entrants=10,
                           start_time=timestamp_pb2.Timestamp(seconds=start // 1000))
    for client in clients[:2]:
        await register(client, created.name)
    # The start, as the tournament's clock gives it when its time comes.
    tournament_id = created.name.removeprefix("tournaments/")
    await grpc_service.runtime.tournaments.execute(tournament_id, StartTournament(start, new_draw()))
    version = await head(grpc_service, created.name)
    assert await refused(register(clients[2], created.name)) == (
        grpc.StatusCode.FAILED_PRECONDITION, "REGISTRATION_CLOSED", {})
    assert await head(grpc_service, created.name) == version
    assert await balance(operator, names[2]) == 5_000
    cancelled = await operator.tournaments.CancelTournament(
        T.CancelTournamentRequest(name=created.name, reason="the venue closed"), metadata=operator.metadata)
    assert cancelled.state == tournament_pb2.TOURNAMENT_STATE_CANCELLED
    assert sorted(payout.amount for payout in cancelled.cancellation_payouts) == [BUY_IN, BUY_IN]
    assert await refused(operator.tournaments.CancelTournament(
        T.CancelTournamentRequest(name=created.name, reason="again"), metadata=operator.metadata)) == (
        grpc.StatusCode.FAILED_PRECONDITION, "TOURNAMENT_OVER", {})
    assert await refused(register(clients[2], created.name)) == (
        grpc.StatusCode.FAILED_PRECONDITION, "TOURNAMENT_OVER", {})


async def test_cancelling_before_the_start_refunds_every_entry(grpc_service, operator) -> None:
    names = players(2)
    clients = await funded(grpc_service, operator, names)
    tournament = (await create(operator)).name
    for client in clients:
        await register(client, tournament)
    malformed = operator.tournaments.CancelTournament(
        T.CancelTournamentRequest(name=tournament, reason="\x00"), metadata=operator.metadata)
    assert await refused(malformed) == (grpc.StatusCode.INVALID_ARGUMENT, "MALFORMED_REQUEST",
                                        {"field": "reason"})
    cancelled = await operator.tournaments.CancelTournament(
        T.CancelTournamentRequest(name=tournament, reason="too quiet"), metadata=operator.metadata)
    assert cancelled.state == tournament_pb2.TOURNAMENT_STATE_CANCELLED
    assert [await balance(operator, name) for name in names] == [5_000, 5_000]


# --- a player's view ------------------------------------------------------------------------------------

async def test_a_player_sees_their_table_seat_stack_and_rank_once_the_sit_and_go_starts(grpc_service,
                                                                                     operator) -> None:
    names = players(3)
    clients = await funded(grpc_service, operator, names)
    tournament = (await create(operator)).name
    views = [await register(client, tournament) for client in clients]
    last = views[-1]  # the last registration started it: its reply already seats the caller
    assert last.tournament.state == tournament_pb2.TOURNAMENT_STATE_RUNNING
    assert last.table == f"{tournament.replace('tournaments/', 'tables/')}-t1" and 1 <= last.seat <= 3
    view = await clients[0].tournaments.GetTournamentView(T.GetTournamentViewRequest(name=tournament),
                                                           metadata=clients[0].metadata)
    assert view.registered and view.table == last.table and view.seat not in (0, last.seat)
    assert (view.stack, view.rank) == (1_000, 1)  # everyone level: all first
    lobby = view.tournament
    assert (lobby.players_left, lobby.average_stack, lobby.entries) == (3, 1_000, 3)
    assert lobby.prizes_fixed and list(lobby.prizes) == [3 * BUY_IN] and lobby.prize_pool == 3 * BUY_IN
    assert lobby.clock.level == 1 and lobby.clock.stakes.small_bet == 20
    assert lobby.clock.end_time.ToMilliseconds() - lobby.clock.start_time.ToMilliseconds() == 600_000
    assert [table.table for table in lobby.tables] == [last.table]
    seats = {v.seat for v in (view, last)}
    assert len(seats) == 2
    outsider = grpc_service.client("stranger")
    stranger = await outsider.tournaments.GetTournamentView(T.GetTournamentViewRequest(name=tournament),
                                                            metadata=outsider.metadata)
    assert not stranger.registered and stranger.rank == 0 and stranger.tournament == lobby


def bank(reserve: int, refill: int = 0, refill_hands: int = 0) -> table_pb2.TimeBank:
    return table_pb2.TimeBank(reserve=duration_pb2.Duration(seconds=reserve),
                              refill=duration_pb2.Duration(seconds=refill), refill_hands=refill_hands)


async def test_a_tournaments_time_bank_is_its_tables_and_shown_in_every_view(grpc_service, operator) -> None:
    """§7: a tournament's time bank is an option of its structure, given to every table it opens."""
    clients = await funded(grpc_service, operator, players(3))
    created = await create(operator, time_bank=bank(45, 10, 5))
    assert created.time_bank == bank(45, 10, 5)
    assert not (await create(operator)).HasField("time_bank")  # none unless asked for
    seated = [await register(client, created.name) for client in clients][-1]
    table = await opened(clients[0], seated.table.removeprefix("tables/"))
    assert table.time_bank == bank(45, 10, 5) and table.tournament.tournament == created.name
    view = await wait_for_view(clients[0], seated.table.removeprefix("tables/"),
                               lambda view: sum(bool(seat.player_id) for seat in view.seats) == 3)
    assert sorted(seat.time_bank.ToMilliseconds() for seat in view.seats) == [45_000] * 3


async def test_a_mixed_tournaments_tables_play_its_rotation(grpc_service, operator) -> None:
    """RULES.md §13: the rotation is part of the structure, shown in the lobby, and every table the tournament
    opens plays it, counting its own hands; a bad one is refused naming its field."""
    clients = await funded(grpc_service, operator, players(3))
    rotation = [table_pb2.VARIANT_RAZZ, table_pb2.VARIANT_STUD_HI_LO]
    created = await create(operator, variant=table_pb2.VARIANT_UNSPECIFIED, rotation=rotation,
                           hands_per_game=3)
    assert (created.variant, list(created.rotation), created.hands_per_game) == (
        table_pb2.VARIANT_RAZZ, rotation, 3)
    seated = [await register(client, created.name) for client in clients][-1]
    table = await opened(clients[0], seated.table.removeprefix("tables/"))
    assert (list(table.rotation), table.hands_per_game, list(table.game_stakes)) == (rotation, 3, [])
    assert table.current_game.game == table_pb2.VARIANT_RAZZ and table.current_game.hands_left >= 1
    assert table.current_game.next_game == table_pb2.VARIANT_STUD_HI_LO
    tournament_id = fresh()
    twice = structure(rotation=[table_pb2.VARIANT_RAZZ, table_pb2.VARIANT_RAZZ])
    reply = operator.tournaments.CreateTournament(
        T.CreateTournamentRequest(tournament=twice, tournament_id=tournament_id), metadata=operator.metadata)
    assert await refused(reply) == (grpc.StatusCode.INVALID_ARGUMENT, "INVALID_CONFIG",
                                    {"field": "tournament.rotation"})


async def opened(client: StudClient, table_id: str) -> table_pb2.Table:
    """The table once the tournament's driver has opened it (its seating reply may come first)."""
    async with asyncio.timeout(30):
        while True:
            try:
                return await client.get_table(table_id)
            except grpc.aio.AioRpcError as error:
                if error.code() != grpc.StatusCode.NOT_FOUND:
                    raise
            await asyncio.sleep(0.05)


@pytest.mark.parametrize(("time_bank", "reason", "field"), [
    (bank(601), "INVALID_CONFIG", "tournament.time_bank.reserve"),
    (bank(30, 40, 5), "INVALID_CONFIG", "tournament.time_bank.refill"),
    (bank(30, 10, 0), "INVALID_CONFIG", "tournament.time_bank.refill_hands"),
    (bank(30, 0, 1_001), "INVALID_CONFIG", "tournament.time_bank.refill_hands"),
    (table_pb2.TimeBank(reserve=duration_pb2.Duration(seconds=30, nanos=5)), "MALFORMED_REQUEST",
     "tournament.time_bank.reserve"),
    (bank(-1), "MALFORMED_REQUEST", "tournament.time_bank.reserve"),
])
async def test_a_time_bank_out_of_bounds_is_refused_naming_its_field(grpc_service, operator, time_bank,
                                                                    reason: str, field: str) -> None:
    tournament_id = fresh()
    reply = operator.tournaments.CreateTournament(
        T.CreateTournamentRequest(tournament=structure(time_bank=time_bank), tournament_id=tournament_id),
        metadata=operator.metadata)
    assert await refused(reply) == (grpc.StatusCode.INVALID_ARGUMENT, reason, {"field": field})
    assert await head(grpc_service, f"tournaments/{tournament_id}") == 0


# --- watching -------------------------------------------------------------------------------------------

async def collect(stream, until, timeout: float = 30.0) -> list[T.WatchTournamentResponse]:
    """The stream's messages until ``until(messages so far)`` holds."""
    got = []
    async with asyncio.timeout(timeout):
        while not got or not until(got):
            reply = await stream.read()
            assert reply is not grpc.aio.EOF, "the stream ended"
            got.append(reply)
    return got


async def test_a_watch_gets_the_view_then_every_event_typed_and_resumes_from_a_version(grpc_service,
                                                                                      operator) -> None:
    names = players(3)
    clients = await funded(grpc_service, operator, names)
    tournament = (await create(operator)).name
    watcher = clients[0]
    stream = watcher.tournaments.WatchTournament(T.WatchTournamentRequest(name=tournament),
                                                 metadata=watcher.metadata)
    first = await stream.read()
    assert first.view.version == 2 and not first.HasField("event")
    for client in clients:
        await register(client, tournament)
    # The last registration starts it: its events end with the commitment to the next draw (draw 2).
    replies = await collect(stream, lambda got: got[-1].event.draw_committed.draw == 2)
    stream.cancel()
    events = [reply.event for reply in replies]
    assert [event.version for event in events] == list(range(3, 3 + len(events)))
    kinds = [event.type for event in events]
    assert kinds[:3] == ["PlayerRegistered"] * 3
    assert {"TournamentStarted", "LevelStarted", "TableOpened", "DrawRevealed", "DrawCommitted",
            "PrizesFixed"} <= set(kinds)
    registered = [event.player_registered for event in events if event.type == "PlayerRegistered"]
    assert [(r.player_id, r.entrants) for r in registered] == [(name, n) for n, name in enumerate(names, 1)]
    revealed = next(event.draw_revealed for event in events if event.type == "DrawRevealed")
    assert revealed.draw == 1 and len(revealed.seed) == 64  # public once used: anyone checks the draw
    level = next(event.level_started for event in events if event.type == "LevelStarted")
    assert level.level == 1 and level.stakes.small_bet == 20 and level.HasField("end_time")
    seated = [event.player_seated for event in events if event.type == "PlayerSeated"]
    assert sorted(s.player_id for s in seated) == sorted(names) and {s.chips for s in seated} == {1_000}

    # Resumed after a version: every later event, no view first, none missing, none twice.
    middle = events[4].version
    resumed = watcher.tournaments.WatchTournament(
        T.WatchTournamentRequest(name=tournament, after_version=middle, include_views=True),
        metadata=watcher.metadata)
    again = await collect(resumed, lambda got: got[-1].event.version == events[-1].version)
    resumed.cancel()
    assert [reply.event for reply in again] == events[5:]
    assert all(reply.view.version == reply.event.version for reply in again)
    assert again[-1].view.table and again[-1].view.stack == 1_000

    # A spectator checks the seating draw: its seed opens the commitment published with the tournament, and
    # the seed committed for the next draw is nowhere.
    spectator = grpc_service.client("spectator")
    from_creation = spectator.tournaments.WatchTournament(
        T.WatchTournamentRequest(name=tournament, after_version=1), metadata=spectator.metadata)
    seen = await collect(from_creation, lambda got: got[-1].event.type == "DrawRevealed")
    from_creation.cancel()
    assert seen[0].event.draw_committed.draw == 1
    assert hashlib.sha256(bytes.fromhex(revealed.seed)).hexdigest() == seen[0].event.draw_committed.commitment


async def test_a_watch_beyond_the_head_or_of_no_tournament_is_refused(grpc_service, operator,
                                                                     make_player) -> None:
    created = await create(operator)
    ann = make_player("ann")

    async def first_of(request: T.WatchTournamentRequest) -> object:
        stream = ann.tournaments.WatchTournament(request, metadata=ann.metadata)
        return await stream.read()

    assert await refused(first_of(T.WatchTournamentRequest(name=created.name, after_version=99))) == (
        grpc.StatusCode.OUT_OF_RANGE, "VERSION_OUT_OF_RANGE", {"version": "2"})
    unknown = T.WatchTournamentRequest(name=f"tournaments/{fresh()}")
    assert (await refused(first_of(unknown)))[:2] == (grpc.StatusCode.NOT_FOUND, "NO_TOURNAMENT")
    assert await refused(first_of(T.WatchTournamentRequest(name=created.name, after_version=-1))) == (
        grpc.StatusCode.INVALID_ARGUMENT, "MALFORMED_REQUEST", {"field": "after_version"})
    no_token = grpc_service.connect(None)
    stream = no_token.tournaments.WatchTournament(T.WatchTournamentRequest(name=created.name))
    assert (await refused(stream.read()))[:2] == (grpc.StatusCode.UNAUTHENTICATED, "TOKEN_MISSING")


async def test_a_silent_watch_sends_heartbeats(grpc_service, operator, make_player) -> None:
    created = await create(operator)
    ann = make_player("ann")
    stream = ann.tournaments.WatchTournament(T.WatchTournamentRequest(name=created.name, heartbeat_seconds=1),
                                             metadata=ann.metadata)
    replies = await collect(stream, lambda got: len(got) == 3)
    stream.cancel()
    assert replies[0].HasField("view")
    assert [reply.heartbeat.version for reply in replies[1:]] == [2, 2]
