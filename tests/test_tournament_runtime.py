"""The tournament server's facade (``TableRuntime.tournaments``) on the real event log: the stream written
with optimistic concurrency and followed by other replicas, registrations paid from the ledger in the same
transaction, request ids, refusals that change nothing, the lobby and the watch, seeds sealed at rest."""

from __future__ import annotations

import asyncio
import hashlib
import json

import grpc
import pytest
from tournament_replicas import balance, fund, new_id, replica, scheduled

from stud_service.audit.money_log import audit_money
from stud_service.ledger.errors import InsufficientFunds, PlayerSuspended
from stud_service.ledger.names import account_stream, pool_stream
from stud_service.server.api.errors import RequestError
from stud_service.server.api.request_ids import RequestKey
from stud_service.server.tournaments.live import stream_id_for
from stud_service.tournaments import Status, TournamentConfig, TournamentKind
from stud_service.tournaments.errors import (
    AlreadyRegistered,
    NoTournament,
    TournamentError,
    TournamentExists,
    TournamentFull,
)


def key(name: str, request: str = "") -> RequestKey:
    return RequestKey(hashlib.sha256(name.encode()).hexdigest(), hashlib.sha256(request.encode()).digest())


@pytest.fixture
async def database(make_database) -> str:
    return await make_database(migrated=True)


async def rows(runtime, stream_id: str) -> list[tuple[int, str, str, object]]:
    """The stored rows of a stream as the database holds them: version, type, payload text, recorded_at."""
    async with runtime.store.pool.connection() as conn:
        cursor = await conn.execute(
            "SELECT version, type, payload::text, recorded_at FROM events WHERE stream_id = %s"
            " ORDER BY version",
            (stream_id,),
        )
        return await cursor.fetchall()


async def rows_of(runtime, stream_id: str, kind: str) -> list[tuple[int, str, str, object]]:
    return [row for row in await rows(runtime, stream_id) if row[1] == kind]


async def test_a_registration_debits_buy_in_and_fee_in_the_transaction_of_its_event(database):
    async with replica(database) as runtime:
        tournaments = runtime.tournaments
        await fund(runtime, ["ann"], 5_000)
        tournament = new_id()
        await tournaments.create(tournament, scheduled(), by="house")
        state = (await tournaments.register(tournament, "ann")).state
        assert state.registered == ("ann",)
        assert await balance(runtime, "ann") == 5_000 - 1_100
        pool = await runtime.ledger.pool(tournament, "USD")
        assert (pool.pool, pool.fees) == (1_000, 100)
        registered = await rows_of(runtime, stream_id_for(tournament), "PlayerRegistered")
        (entry,) = await rows_of(runtime, account_stream("ann", "USD"), "EntryDebited")
        pooled = await rows_of(runtime, pool_stream(tournament, "USD"), "EntryPooled")
        assert json.loads(entry[2])["tournament_version"] == registered[0][0]
        # One transaction: PostgreSQL's now() is the transaction's, and every row of it carries it.
        assert registered[0][3] == entry[3] == pooled[0][3]
        assert (await audit_money(runtime.store)).ok


async def test_unregistering_and_a_cancellation_before_the_start_refund_buy_in_and_fee(database):
    async with replica(database) as runtime:
        tournaments = runtime.tournaments
        players = ["ann", "bob", "cy"]
        await fund(runtime, players, 2_000)
        tournament = new_id()
        await tournaments.create(tournament, scheduled(), by="house")
        for player in players:
            await tournaments.register(tournament, player)
        state = (await tournaments.unregister(tournament, "bob")).state
        assert state.registered == ("ann", "cy") and await balance(runtime, "bob") == 2_000
        state = (await tournaments.cancel(tournament, by="house", reason="a storm")).state
        assert state.status is Status.CANCELLED
        assert [await balance(runtime, player) for player in players] == [2_000] * 3
        pool = await runtime.ledger.pool(tournament, "USD")
        assert (pool.pool, pool.fees) == (0, 0)
        report = await audit_money(runtime.store)
        assert report.ok, report.discrepancies
        usd = report.totals["USD"]
        assert usd.prize_pools == usd.fees == 0 and usd.tournaments == 1 and usd.difference == 0


async def test_too_little_money_or_a_suspension_is_refused_and_nothing_is_appended(database):
    async with replica(database) as runtime:
        tournaments = runtime.tournaments
        await fund(runtime, ["poor"], 1_099)
        await fund(runtime, ["shady"], 5_000)
        await runtime.ledger.set_suspended("shady", True, "collusion", "house", 0)
        tournament = new_id()
        await tournaments.create(tournament, scheduled(), by="house")
        version = await tournaments.version(tournament)
        for player, refusal in (("poor", InsufficientFunds), ("nobody", InsufficientFunds),
                                ("shady", PlayerSuspended)):
            with pytest.raises(refusal):
                await tournaments.register(tournament, player)
        assert await tournaments.version(tournament) == version
        assert len(await rows(runtime, stream_id_for(tournament))) == version
        assert await balance(runtime, "poor") == 1_099 and await balance(runtime, "shady") == 5_000
        assert await rows(runtime, pool_stream(tournament, "USD")) == []
        assert await rows(runtime, account_stream("nobody", "USD")) == []
        assert (await tournaments.state(tournament)).registered == ()


async def test_a_retried_request_is_answered_once_and_an_id_reused_for_another_is_refused(database):
    async with replica(database) as runtime:
        tournaments = runtime.tournaments
        await fund(runtime, ["ann", "bob"], 5_000)
        tournament = new_id()
        created = await tournaments.create(tournament, scheduled(), by="house", request_key=key("c"))
        again = await tournaments.create(tournament, scheduled(), by="house", request_key=key("c"))
        assert (again.version, again.state) == (created.version, created.state) and again.events == []
        with pytest.raises(TournamentExists):
            await tournaments.create(tournament, scheduled(), by="house", request_key=key("other"))
        first = await tournaments.register(tournament, "ann", request_key=key("r1", "ann"))
        await tournaments.register(tournament, "bob")
        retried = await tournaments.register(tournament, "ann", request_key=key("r1", "ann"))
        assert (retried.version, retried.state) == (first.version, first.state)  # as the first call left it
        assert retried.state.registered == ("ann",) and retried.events == []
        assert await balance(runtime, "ann") == 5_000 - 1_100  # debited once
        with pytest.raises(RequestError) as reused:
            await tournaments.unregister(tournament, "ann", request_key=key("r1", "unregister ann"))
        assert reused.value.code is grpc.StatusCode.INVALID_ARGUMENT
        assert reused.value.reason == "REQUEST_ID_REUSED"
        with pytest.raises(AlreadyRegistered):
            await tournaments.register(tournament, "ann", request_key=key("r2", "ann"))
        assert (await tournaments.state(tournament)).registered == ("ann", "bob")


async def test_two_replicas_registering_at_once_lose_nothing_and_follow_each_other(database):
    players = [f"p{n:02}" for n in range(40)]
    async with replica(database) as one, replica(database) as two:
        await fund(one, players, 10_000)
        tournament = new_id()
        await one.tournaments.create(tournament, scheduled(), by="house")
        await two.tournaments.state(tournament)  # loaded, and followed from now on

        async def register(runtime, player: str) -> None:
            # As a client does with ABORTED: the same request again, with the same request id.
            for _attempt in range(20):
                try:
                    await runtime.tournaments.register(tournament, player, request_key=key(f"reg-{player}"))
                    return
                except RequestError as error:
                    assert error.reason == "CONFLICT"
            raise AssertionError(f"{player} never got in")

        await asyncio.gather(*(register(one if n % 2 else two, player) for n, player in enumerate(players)))
        for runtime in (one, two):
            async with asyncio.timeout(30):
                while len((await runtime.tournaments.state(tournament)).registered) < len(players):
                    await asyncio.sleep(0.05)
            assert sorted((await runtime.tournaments.state(tournament)).registered) == players
        assert [await balance(one, player) for player in players] == [10_000 - 1_100] * len(players)
        pool = await one.ledger.pool(tournament, "USD")
        assert (pool.pool, pool.fees) == (40 * 1_000, 40 * 100)
        assert (await audit_money(one.store)).ok


async def test_a_thousand_registrations_at_once_are_served_or_refused_for_real_reasons(database):
    players = [f"r{n:04}" for n in range(1_000)]
    unfunded = set(players[::20])  # 50 players without the money
    async with replica(database, pool_size=16) as runtime:
        tournaments = runtime.tournaments
        await fund(runtime, [player for player in players if player not in unfunded], 1_100)
        tournament = new_id()
        await tournaments.create(tournament, scheduled(max_entrants=900), by="house")
        registrations = [tournaments.register(tournament, player, request_key=key(f"burst-{player}"))
                         for player in players]
        outcomes = await asyncio.gather(*registrations, return_exceptions=True)
        refused = {player: outcome for player, outcome in zip(players, outcomes, strict=True)
                   if isinstance(outcome, BaseException)}
        assert all(isinstance(error, TournamentFull | InsufficientFunds) for error in refused.values()), {
            type(error).__name__ for error in refused.values()}
        registered = set((await tournaments.state(tournament)).registered)
        assert len(registered) == 900 and not registered & unfunded
        assert set(players) - registered == set(refused)
        # A funded player is refused only once the tournament is full; one without the money, for that (or,
        # coming after it filled, for the same reason as the others).
        assert all(isinstance(refused[player], TournamentFull) for player in set(refused) - unfunded)
        assert any(isinstance(refused[player], InsufficientFunds) for player in unfunded)
        pool = await runtime.ledger.pool(tournament, "USD")
        assert (pool.pool, pool.fees) == (900 * 1_000, 900 * 100)
        report = await audit_money(runtime.store)
        assert report.ok, report.discrepancies[:5]


async def test_a_play_money_tournament_moves_no_money(database):
    async with replica(database) as runtime:
        tournaments = runtime.tournaments
        tournament = new_id()
        await tournaments.create(tournament, scheduled(currency="", buy_in=0, fee=0), by="house")
        state = (await tournaments.register(tournament, "ann")).state  # no account at all
        assert state.registered == ("ann",)
        await tournaments.cancel(tournament, by="house", reason="")
        assert await rows(runtime, pool_stream(tournament, "")) == []
        assert await rows(runtime, account_stream("ann", "")) == []


async def test_a_sit_and_go_starts_with_its_last_registration_and_no_seed_is_stored_or_shown(database):
    config = TournamentConfig(kind=TournamentKind.SIT_AND_GO, max_entrants=4, seats_per_table=2,
                              levels=scheduled().levels, starting_stack=300, currency="", buy_in=0, fee=0)
    async with replica(database) as runtime:
        tournaments = runtime.tournaments
        tournament = new_id()
        await tournaments.create(tournament, config, by="house")
        watched = []

        async def watch() -> None:
            async for version, event, state in tournaments.watch(tournament):
                watched.append((version, event, state))
                if state.status is Status.RUNNING:
                    return

        watching = asyncio.create_task(watch())
        for player in ("ann", "bob", "cy", "dee"):
            state = (await tournaments.register(tournament, player)).state
        assert state.status is Status.RUNNING and len(state.tables) == 2 and state.secret is None
        async with asyncio.timeout(30):
            await watching
        assert [version for version, _e, _s in watched] == list(range(1, len(watched) + 1))
        assert all(state.secret is None for _v, _e, state in watched)
        assert all(getattr(event, "secret", {}) == {} for _v, event, _s in watched)
        # A committed seed, as the store opens it for the server, is in no stored row before the row that
        # reveals it (and the one committed now in none at all); a revealed seed is public there.
        opened = [stored.payload for stored in await runtime.store.read_stream(stream_id_for(tournament))]
        committed = {payload["draw"]: payload["secret"]["seed"] for payload in opened
                     if payload["type"] == "DrawCommitted"}
        revealed = {payload["draw"]: version for version, payload in enumerate(opened, 1)
                    if payload["type"] == "DrawRevealed"}
        assert len(committed) >= 2 and all(len(seed) == 64 for seed in committed.values())
        assert max(committed) not in revealed  # the next draw's seed: committed, not yet drawn from
        stored = await rows(runtime, stream_id_for(tournament))
        for draw, seed in committed.items():
            before = revealed.get(draw, len(stored) + 1)
            assert not any(seed in text for version, _t, text, _at in stored if version < before), draw
        commitments = [json.loads(text) for _v, kind, text, _at in stored if kind == "DrawCommitted"]
        assert all(payload["secret"] is None and payload["sealed"] for payload in commitments)


async def test_the_lobby_lists_scheduled_tournaments_by_start_and_sit_and_gos_by_creation(database):
    async with replica(database) as runtime:
        tournaments = runtime.tournaments
        late, early = new_id("late"), new_id("early")
        await tournaments.create(late, scheduled(start_ms=4_000_000_000_000), by="house")
        await tournaments.create(early, scheduled(start_ms=3_000_000_000_000), by="house")
        sit_and_go = new_id("sng")
        await tournaments.create(sit_and_go, TournamentConfig(currency="", buy_in=0, fee=0), by="house")
        listed = [state.tournament_id for state in await tournaments.list(page_size=10)]
        assert listed == [sit_and_go, early, late]  # created now, before the year 2065
        assert [s.tournament_id for s in await tournaments.list(page_size=1, after=early)] == [late]
        assert await tournaments.list(page_size=5, after=late) == []
        with pytest.raises(NoTournament):
            await tournaments.state("never-created")
        with pytest.raises(NoTournament):
            await tournaments.list(page_size=5, after="never-created")


async def test_a_refused_command_is_the_domains_refusal_and_changes_nothing(database):
    async with replica(database) as runtime:
        tournaments = runtime.tournaments
        tournament = new_id()
        play_money = scheduled(currency="", buy_in=0, fee=0, max_entrants=2)
        await tournaments.create(tournament, play_money, by="house")
        await tournaments.register(tournament, "ann")
        await tournaments.register(tournament, "bob")
        version = await tournaments.version(tournament)
        with pytest.raises(TournamentFull) as full:
            await tournaments.register(tournament, "cy")
        assert full.value.reason == "TOURNAMENT_FULL" and isinstance(full.value, TournamentError)
        with pytest.raises(NoTournament):
            await tournaments.register("no-such-tournament", "cy")
        assert await tournaments.version(tournament) == version

