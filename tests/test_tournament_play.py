"""A running tournament on the real event log: its tables created and driven between hands by their owner,
its level clock on the owner of its lease, played by bots to the end (every hand at its level, every prize
paid, the money reconciled, the tournament verified)."""

from __future__ import annotations

import asyncio
import contextlib
import random
import time
from collections import Counter
from collections.abc import AsyncIterator
from functools import partial
from typing import Any

import pytest
from tournament_replicas import balance, fund, new_id, replica

from stud_service.audit.money_log import audit_money
from stud_service.audit.tournament_verify import verify_tournament
from stud_service.engine import (
    Act,
    ActionKind,
    DomainError,
    SendChat,
    decide,
    event_to_json,
    legal_actions,
    to_act,
)
from stud_service.engine import event_from_json as table_event
from stud_service.engine.events import HandStarted
from stud_service.server.api.errors import RequestError
from stud_service.server.tables import tournament_tables
from stud_service.server.tables.runtime import TableRuntime
from stud_service.server.tables.settings import RuntimeSettings
from stud_service.server.tournaments.live import stream_id_for
from stud_service.tournaments import Level, Status, TournamentConfig, TournamentKind, event_from_json, replay
from stud_service.tournaments.events import (
    LevelStarted,
    TableBroken,
    TableHandDealt,
    TableHandEnded,
    TableOpened,
)

PLAYING = RuntimeSettings(next_hand_pause=0.02, rake_sweep_interval=0)
# One-minute levels (the shortest a structure has): the first ends while the bots play.
LEVELS = (Level(5, 10, 20, 40, 1), Level(10, 20, 40, 80, 1), Level(20, 50, 100, 200, 1),
          Level(50, 100, 200, 400, 1))


@pytest.fixture
async def database(make_database) -> str:
    return await make_database(migrated=True)


def sit_and_go(**fields: Any) -> TournamentConfig:
    """A USD 10 + 1 sit & go of six at two tables of three."""
    values: dict[str, Any] = {"kind": TournamentKind.SIT_AND_GO, "min_entrants": 6, "max_entrants": 6,
                              "seats_per_table": 3, "buy_in": 1_000, "fee": 100, "currency": "USD",
                              "levels": LEVELS, "starting_stack": 400, "action_clock_seconds": 30}
    return TournamentConfig(**{**values, **fields}).validate()


def choice(state: Any, player: str, rng: random.Random, passive: bool) -> tuple[ActionKind, int | None]:
    """A bot's action: mostly checks and calls (bring-ins), bets and raises 40% of the time unless
    ``passive``, the largest amount allowed."""
    options = dict(legal_actions(state, player).options)
    calls = [kind for kind in (ActionKind.CHECK, ActionKind.CALL, ActionKind.BRING_IN) if kind in options]
    raises = [kind for kind in (ActionKind.BET, ActionKind.RAISE, ActionKind.COMPLETE) if kind in options]
    kinds = raises if raises and not passive and rng.random() < 0.4 else calls
    kind = kinds[0] if kinds else next(iter(options))
    return kind, max(options[kind]) if options[kind] else None


async def play_bots(runtime: TableRuntime, tournament_id: str, seed: int, passive: bool = False) -> None:
    """Bots acting for whoever is to act at the tournament's tables this replica holds, until cancelled."""
    rng = random.Random(seed)
    while True:
        acted = False
        for live in runtime.loaded_tables():
            state = live.state
            if state.config is None or state.config.tournament_id != tournament_id:
                continue
            seat = to_act(state)
            if seat is None:
                continue
            player = state.seats[seat].player_id
            act = partial(Act, player, *choice(state, player, rng, passive))
            with contextlib.suppress(DomainError, RequestError):
                await runtime.execute(live.table_id, lambda _state, now, act=act: act(now))
                acted = True
        if not acted:
            await asyncio.sleep(0.01)


async def tournament_events(runtime: TableRuntime, tournament_id: str) -> list[Any]:
    stored = await runtime.store.read_stream(stream_id_for(tournament_id))
    return [event_from_json(item.payload) for item in stored]


async def wait_for(condition, seconds: float, what: str) -> None:
    deadline = time.monotonic() + seconds
    while not await condition():
        assert time.monotonic() < deadline, f"waited {seconds} s for {what}"
        await asyncio.sleep(0.1)


@contextlib.asynccontextmanager
async def sit_and_go_played(runtime: TableRuntime, players: list[str], seed: int = 7, passive: bool = False,
                            **fields: Any) -> AsyncIterator[str]:
    """A sit & go of ``players`` (funded, registered; ``fields`` of its structure other than the default)
    played by bots while inside; its id."""
    await fund(runtime, players, 5_000)
    tournament = new_id()
    await runtime.tournaments.create(tournament, sit_and_go(**fields), by="house")
    bots = asyncio.get_running_loop().create_task(play_bots(runtime, tournament, seed=seed, passive=passive))
    try:
        for player in players:
            await runtime.tournaments.register(tournament, player)
        yield tournament
    finally:
        bots.cancel()


async def test_a_sit_and_go_of_bots_is_played_to_the_end_every_hand_at_its_level_every_prize_paid(database):
    async with replica(database, settings=PLAYING) as runtime:
        players = [f"bot{n}" for n in range(1, 7)]
        async with sit_and_go_played(runtime, players) as tournament:

            async def finished() -> bool:
                return (await runtime.tournaments.state(tournament)).status is Status.FINISHED

            await wait_for(finished, 240, "the tournament to finish")
        state = await runtime.tournaments.state(tournament)
        places = sorted(place for place, _shared in state.places.values())
        # Everyone placed; players out in one hand with the same starting chips share a place (§11).
        assert state.places.keys() == set(players) and places.count(1) == 1
        assert all(place <= rank for rank, place in enumerate(places, start=1))
        winner = next(player for player, (place, _) in state.places.items() if place == 1)
        paid = {player: state.prizes_won.get(player, 0) for player in players}
        assert sum(paid.values()) == 6_000
        for player in players:
            assert await balance(runtime, player) == 5_000 - 1_100 + paid[player]
        assert paid[winner] == max(paid.values())
        events = await tournament_events(runtime, tournament)
        opened = [event.table_id for event in events if isinstance(event, TableOpened)]
        assert len(opened) == 2
        # Every hand at every table was dealt at the level the tournament let it deal at.
        dealt = {(event.table_id, event.hand): event.index
                 for event in events if isinstance(event, TableHandDealt)}
        started = {}
        for table_id in opened:
            for item in await runtime.store.read_stream(f"tables/{table_id}"):
                if isinstance(event := table_event(item.payload), HandStarted):
                    started[(table_id, event.hand)] = (event.config.ante, event.config.tournament_level)
        assert started and started.keys() == dealt.keys()
        for key, index in dealt.items():
            assert started[key] == (LEVELS[index].ante, index + 1), key
        report = await audit_money(runtime.store)
        assert report.ok, report.discrepancies
        verified = await verify_tournament(runtime.store, tournament)
        assert verified.ok, verified.first_problem()


@pytest.mark.long
async def test_the_level_clock_advances_on_the_owner_from_the_log(database):
    async with replica(database, settings=PLAYING) as runtime:
        players = [f"bot{n}" for n in range(1, 7)]
        deep = sit_and_go_played(runtime, players, seed=3, passive=True, starting_stack=100_000)
        async with deep as tournament:

            async def second_level() -> bool:
                return (await runtime.tournaments.state(tournament)).level_index >= 1

            await wait_for(second_level, 120, "the second level")
        events = await tournament_events(runtime, tournament)
        first, second = [event for event in events if isinstance(event, LevelStarted)][:2]
        assert second.starts_ms == first.starts_ms + 60_000  # from the log: no drift
        await runtime.tournaments.cancel(tournament, by="house", reason="the test is over")
        assert (await audit_money(runtime.store)).ok


async def test_a_table_reports_its_hands_from_what_it_holds_without_reading_its_log_again(database):
    """A hand's report (``EndTableHand``) takes the chips from the hand's HandStarted and HandEnded the
    table holds: reading the table's recent log back each hand cost more than the hand's actions."""
    async with replica(database, settings=PLAYING) as runtime:
        table_reads: list[str] = []
        read_stream = runtime.store.read_stream

        async def counted(stream_id: str, *args: Any, **kwargs: Any) -> Any:
            if stream_id.startswith("tables/"):
                table_reads.append(stream_id)
            return await read_stream(stream_id, *args, **kwargs)

        runtime.store.read_stream = counted  # type: ignore[method-assign]
        # Deep stacks and passive bots: nobody is out, so ten hands come whatever the bots draw (with the
        # usual stacks the tournament could end first).
        players = [f"bot{n}" for n in range(1, 7)]
        async with sit_and_go_played(runtime, players, passive=True, starting_stack=100_000) as tournament:

            async def reported(count: int) -> bool:
                events = await tournament_events(runtime, tournament)
                return sum(isinstance(event, TableHandEnded) for event in events) >= count

            await wait_for(partial(reported, 10), 120, "ten hands reported")
        # Loading and following a table may read its log; a report each reading it would be ten reads more.
        assert len(table_reads) < 10, table_reads


async def test_a_hands_report_the_next_deal_and_the_tables_hand_are_one_append_and_the_state_is_the_logs_fold(
        database):
    """A table whose next hand needs no seat changes (no one out, moved away or in) appends its hand's
    report and its next deal to the tournament, and its next hand to its own stream, in one append, one
    transaction: a crash leaves all or nothing. The replica's state, taken from what decided the append, is
    the fold of the log."""
    async with replica(database, settings=PLAYING) as runtime:
        appends: list[tuple[str, ...]] = []  # the types of each append with a tournament's events in it
        append, append_all = runtime.store.append, runtime.store.append_all

        async def recorded(stream_id: str, *args: Any, **kwargs: Any) -> Any:
            if stream_id.startswith("tournaments/"):
                appends.append(tuple(payload["type"] for payload in args[1]))
            return await append(stream_id, *args, **kwargs)

        async def recorded_all(parts: Any, *args: Any, **kwargs: Any) -> Any:
            if any(part.stream_id.startswith("tournaments/") for part in parts):
                appends.append(tuple(payload["type"] for part in parts for payload in part.events))
            return await append_all(parts, *args, **kwargs)

        runtime.store.append = recorded  # type: ignore[method-assign]
        runtime.store.append_all = recorded_all  # type: ignore[method-assign]
        async with deep_sit_and_go_played(runtime) as tournament:
            await wait_for_reports(runtime, tournament, 10)
            live = await runtime.tournaments.live(tournament)
            # Play goes on: the state and its version as of one moment, against the log's fold up to it.
            state, version = live.state, live.version
            assert state == replay((await tournament_events(runtime, tournament))[:version])
        await runtime.tournaments.cancel(tournament, by="house", reason="the test is over")
        with_report = [types for types in appends if "TableHandEnded" in types]
        assert len(with_report) >= 10, appends
        assert all("TableHandDealt" in types and "HandStarted" in types for types in with_report), appends


async def test_a_table_that_moves_under_its_report_and_deal_appends_neither_and_deals_on(database):
    """The table's stream moved under the one append of a hand's report, the tournament's deal and the
    table's hand (another replica's writer: a chat message sent there): nothing of it is appended, neither
    to the tournament nor to the table; the table catches up, looks again and deals, each hand reported
    once."""
    async with replica(database, settings=PLAYING) as runtime:
        append, append_all = runtime.store.append, runtime.store.append_all
        moved: list[int] = []  # the table's version each time its stream was moved under the append

        async def moved_first(parts: Any, *args: Any, **kwargs: Any) -> Any:
            table = next((part for part in parts if part.stream_id.startswith("tables/")), None)
            if not moved and table is not None and any(
                    payload["type"] == "HandStarted" for payload in table.events):
                live = runtime.cache.get(table.stream_id[len("tables/"):])
                assert live is not None
                player = next(iter(live.state.seats.values())).player_id
                chat = decide(live.state, SendChat(player, "moved under the append", int(time.time() * 1000)))
                payloads = [event_to_json(event) for event in chat]
                await append(table.stream_id, table.expected_version, payloads)
                moved.append(table.expected_version + 1)
            return await append_all(parts, *args, **kwargs)

        runtime.store.append_all = moved_first  # type: ignore[method-assign]
        async with deep_sit_and_go_played(runtime) as tournament:
            await wait_for_reports(runtime, tournament, 5)
        await runtime.tournaments.cancel(tournament, by="house", reason="the test is over")
        assert moved, "no report and deal was appended with the table's hand"
        ended = [(event.table_id, event.hand) for event in await tournament_events(runtime, tournament)
                 if isinstance(event, TableHandEnded)]
        assert len(ended) == len(set(ended)), ended
        for table_id in {table_id for table_id, _hand in ended}:
            stored = await runtime.store.read_stream(f"tables/{table_id}")
            types = [item.payload["type"] for item in stored]
            hands = [item.payload["hand"] for item in stored if item.payload["type"] == "HandStarted"]
            assert hands == list(range(1, len(hands) + 1)), hands
            if "ChatMessageSent" in types:  # the table moved under the append: its chat, then its hand
                chat_at = types.index("ChatMessageSent")
                assert "HandStarted" in types[chat_at:], types


async def test_a_broken_tables_dealer_is_not_woken_by_the_tournaments_later_changes(database, monkeypatch):
    """A table the tournament broke, its players gone, has nothing more to do: the tournament's later
    changes leave its dealer asleep (each woke every table of the tournament between hands, to find
    nothing: a hundred broken tables at a large tournament's end, each change), and do not look at it
    again (each looked over every table loaded)."""
    looked: Counter[str] = Counter()
    has_work = tournament_tables._has_work

    def counted_look(live: Any, state: Any) -> bool:
        looked[live.table_id] += 1
        return has_work(live, state)

    monkeypatch.setattr(tournament_tables, "_has_work", counted_look)
    async with replica(database, settings=PLAYING) as runtime:
        woken: Counter[str] = Counter()
        between = runtime.dealer.between_tournament_hands
        assert between is not None

        async def counted(live: Any) -> bool:
            woken[live.table_id] += 1
            return await between(live)

        runtime.dealer.between_tournament_hands = counted
        async with sit_and_go_played(runtime, [f"bot{n}" for n in range(1, 7)]) as tournament:

            async def broken() -> str | None:
                events = await tournament_events(runtime, tournament)
                return next((event.table_id for event in events if isinstance(event, TableBroken)), None)

            await wait_for(broken, 240, "a table broken")
            table_id = await broken()
            assert table_id is not None

            async def emptied() -> bool:
                return not (await runtime.table(table_id, client=False)).state.seats

            await wait_for(emptied, 60, "the broken table's players gone")
            woken_then, looked_then = woken[table_id], looked[table_id]
            reports_then = await reports(runtime, tournament)

            async def played_on() -> bool:
                state = await runtime.tournaments.state(tournament)
                over = state.status is Status.FINISHED
                return over or await reports(runtime, tournament) >= reports_then + 4

            await wait_for(played_on, 240, "four hands more, or the end")
        assert woken[table_id] == woken_then, (woken, woken_then)
        assert looked[table_id] == looked_then, (looked, looked_then)


async def reports(runtime: TableRuntime, tournament_id: str) -> int:
    return sum(isinstance(event, TableHandEnded) for event in await tournament_events(runtime, tournament_id))


def deep_sit_and_go_played(runtime: TableRuntime) -> contextlib.AbstractAsyncContextManager[str]:
    """Six passive bots with deep stacks: nobody is out, nobody moves, no table waits for another."""
    players = [f"bot{n}" for n in range(1, 7)]
    return sit_and_go_played(runtime, players, seed=3, passive=True, starting_stack=100_000)


async def wait_for_reports(runtime: TableRuntime, tournament_id: str, count: int) -> None:
    async def reported() -> bool:
        return await reports(runtime, tournament_id) >= count

    await wait_for(reported, 120, f"{count} hands reported")
