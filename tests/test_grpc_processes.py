"""Real server processes on one PostgreSQL: a crash (SIGKILL) in the middle of a hand, action clocks
re-armed after a restart, two replicas serving one table, racing actions, graceful SIGTERM."""

from __future__ import annotations

import asyncio
import json
import re
import signal

import grpc
import pytest
from grpc_fixtures import CREATED_VERSION, TOKEN_SECRET, table_spec
from sealing_keys import sealed_store

from stud_service.auth import Role, mint_token
from stud_service.bots import StudClient, error_reason
from stud_service.cards import parse_card
from stud_service.db import open_pool
from stud_service.engine import HandEnded, chips_in_play, event_from_json, initial_state
from stud_service.engine.evolve import apply_in_place
from stud_service.server.proto_gen import events_pb2, table_pb2
from stud_service.server.tables.live import stream_id_for

BUY_IN = 10_000
PASSIVE = (table_pb2.ACTION_TYPE_BRING_IN, table_pb2.ACTION_TYPE_CHECK, table_pb2.ACTION_TYPE_CALL)


@pytest.fixture
async def database(make_database) -> str:
    return await make_database(migrated=True)


async def read_log(url: str, table_id: str) -> list[dict]:
    pool = await open_pool(url, max_size=2)
    try:
        return [event.payload for event in await sealed_store(pool).read_stream(stream_id_for(table_id))]
    finally:
        await pool.close()


def clients(channel: grpc.aio.Channel, *players: str) -> list[StudClient]:
    return [StudClient(channel, mint_token(TOKEN_SECRET, player)) for player in players]


async def act_passively(players: list[StudClient], table_id: str, actions: int,
                        folding: StudClient | None = None) -> int:
    """Take up to ``actions`` passive actions, whoever's turn (``folding`` folds when it may); returns
    the version after the last one."""
    version = 0
    for _ in range(actions):
        for _attempt in range(500):
            views = [await player.view(table_id) for player in players]
            turn = next(((p, v) for p, v in zip(players, views, strict=True) if v.legal_actions), None)
            if turn is not None:
                break
            await asyncio.sleep(0.02)
        else:
            raise TimeoutError("nobody got the turn")
        player, view = turn
        folds = [a for a in view.legal_actions if player is folding and a.type == table_pb2.ACTION_TYPE_FOLD]
        choice = (folds or [a for a in view.legal_actions if a.type in PASSIVE])[0]
        version = (
            await player.act(table_id, view.viewer_seat, choice.type, choice.amount, view.turn)
        ).version
    return version


TABLE_SETUP_EVENTS = ("TableCreated", "ShuffleCommitted", "PlayerSeated")  # before the chips are all in
CHIPS_IN = {"PlayerSeated": "buy_in", "PlayerToppedUp": "amount"}


def chips_always_conserved(payloads: list[dict], total: int) -> int:
    """Replay: every chip is accounted for after every event (the chips brought to the table so far: on a
    loaded machine a hand may start before the last of the players sits down), and ``total`` chips were
    brought in all; returns the hands that ended."""
    state, ended, brought = initial_state(), 0, 0
    for payload in payloads:
        state = apply_in_place(state, event_from_json(payload))
        brought += payload.get(CHIPS_IN.get(payload["type"], ""), 0) - payload.get("cash_out", 0)
        if state.config is not None and payload["type"] not in TABLE_SETUP_EVENTS:
            assert chips_in_play(state) == brought, f"chips not conserved at {payload['type']}"
        ended += isinstance(event_from_json(payload), HandEnded)
    assert brought + sum(p.get("cash_out", 0) for p in payloads) == total
    return ended


async def test_sigkill_mid_hand_then_restart_continues_the_hand(spawn_server, database) -> None:
    first = await spawn_server(database)
    async with grpc.aio.insecure_channel(first.address) as channel:
        operator = StudClient(channel, mint_token(TOKEN_SECRET, "house", Role.OPERATOR))
        await operator.create_table("crash", table_spec())
        players = clients(channel, "ann", "ben", "cat")
        for seat, player in enumerate(players, start=1):
            await player.sit_down("crash", seat, BUY_IN)
        version_before = await act_passively(players, "crash", 4)
        hand_before = (await players[0].view("crash")).hand.hand_number
    first.kill()  # SIGKILL: no shutdown code runs

    second = await spawn_server(database)
    async with grpc.aio.insecure_channel(second.address) as channel:
        players = clients(channel, "ann", "ben", "cat")
        view = await players[0].view("crash")
        assert (
            view.version == version_before and view.hand.hand_number == hand_before and not view.hand.complete
        )
        while (
            not (await players[0].view("crash")).hand.complete
            and (await players[0].view("crash")).hand.hand_number == hand_before
        ):
            await act_passively(players, "crash", 1)
    payloads = await read_log(database, "crash")
    assert any(p["type"] == "HandEnded" and p["hand"] == hand_before for p in payloads)
    assert chips_always_conserved(payloads, 3 * BUY_IN) >= 1


async def test_action_clocks_are_rearmed_after_a_restart(spawn_server, database) -> None:
    first = await spawn_server(database)
    async with grpc.aio.insecure_channel(first.address) as channel:
        operator = StudClient(channel, mint_token(TOKEN_SECRET, "house", Role.OPERATOR))
        await operator.create_table("clock", table_spec(action_clock=2))
        ann, ben = clients(channel, "ann", "ben")
        await ann.sit_down("clock", 1, BUY_IN)
        await ben.sit_down("clock", 2, BUY_IN)
        for _ in range(1500):
            view = await ann.view("clock")
            if view.HasField("action_deadline"):
                break
            await asyncio.sleep(0.02)
    first.kill()
    await asyncio.sleep(2.2)  # the deadline passes while no server runs

    second = await spawn_server(database)
    async with grpc.aio.insecure_channel(second.address) as channel:
        (spectator,) = clients(channel, "spectator")
        stream = spectator.watch("clock", after_version=view.version)

        async def first_timeout() -> events_pb2.PlayerActed:
            async for message in stream:
                if message.event.HasField("player_acted"):
                    return message.event.player_acted
            raise AssertionError("stream ended")

        acted = await asyncio.wait_for(first_timeout(), timeout=15)
        stream.cancel()
    assert acted.timeout is True


async def test_two_replicas_serve_one_table_and_a_race_on_one_seat_has_one_winner(
    spawn_server, database
) -> None:
    replica_a, replica_b = await spawn_server(database), await spawn_server(database)
    async with (
        grpc.aio.insecure_channel(replica_a.address) as channel_a,
        grpc.aio.insecure_channel(replica_b.address) as channel_b,
    ):
        operator = StudClient(channel_a, mint_token(TOKEN_SECRET, "house", Role.OPERATOR))
        await operator.create_table("shared", table_spec())
        (watcher_b,) = clients(channel_b, "spectator")
        stream = watcher_b.watch("shared")
        first = await stream.read()
        received = [first.view.version]
        players_a = clients(channel_a, "ann", "ben")
        for seat, player in enumerate(players_a, start=1):
            await player.sit_down("shared", seat, BUY_IN)
        await act_passively(players_a, "shared", 6)

        # Race: ann's turn; one click reaches replica A, one replica B, both for the version ann saw.
        players_b = clients(channel_b, "ann", "ben")
        for _ in range(1500):
            views = [await player.view("shared") for player in players_a]
            turn = next((i for i, v in enumerate(views) if v.legal_actions), None)
            if turn is not None:
                break
            await asyncio.sleep(0.02)
        view = views[turn]
        choice = next(a for a in view.legal_actions if a.type in PASSIVE)
        outcomes = await asyncio.gather(
            *(
                p[turn].act("shared", view.viewer_seat, choice.type, choice.amount, view.turn)
                for p in (players_a, players_b)
            ),
            return_exceptions=True,
        )
        winners = [o for o in outcomes if not isinstance(o, Exception)]
        losers = [o for o in outcomes if isinstance(o, grpc.aio.AioRpcError)]
        assert len(winners) == 1 and len(losers) == 1
        assert error_reason(losers[0]) in ("STALE_TURN", "NOT_YOUR_TURN")

        head = winners[0].version
        while received[-1] < head:
            message = await asyncio.wait_for(stream.read(), timeout=10)
            received.append(message.event.version)
        stream.cancel()
    assert received == list(range(CREATED_VERSION, head + 1)), "replica B missed or repeated an event"
    payloads = await read_log(database, "shared")
    assert (
        sum(1 for p in payloads[view.version : head] if p["type"] == "PlayerActed" and not p["timeout"]) == 1
    )


async def test_sigterm_ends_streams_and_exits_cleanly(spawn_server, database) -> None:
    server = await spawn_server(database)
    async with grpc.aio.insecure_channel(server.address) as channel:
        operator = StudClient(channel, mint_token(TOKEN_SECRET, "house", Role.OPERATOR))
        await operator.create_table("bye", table_spec())
        (spectator,) = clients(channel, "spectator")
        stream = spectator.watch("bye")
        await stream.read()
        server.process.send_signal(signal.SIGTERM)
        assert await asyncio.wait_for(stream.read(), timeout=15) is grpc.aio.EOF  # ends without an error
    assert await asyncio.to_thread(server.process.wait, 15) == 0


async def test_the_log_never_holds_a_token_or_a_hidden_card(spawn_server, database) -> None:
    """Issue: "Never log a hole card or a token" — at DEBUG, through a whole hand and some refusals.
    One player folds, so some down cards are never shown to anyone: those appear on no line at all,
    and no line shows a card next to ``face_up`` false."""
    server = await spawn_server(database, "--log-level", "DEBUG", "--log-format", "json")
    async with grpc.aio.insecure_channel(server.address) as channel:
        operator = StudClient(channel, mint_token(TOKEN_SECRET, "house", Role.OPERATOR))
        await operator.create_table("logs", table_spec())
        players = clients(channel, "ann", "ben", "cat")
        for seat, player in enumerate(players, start=1):
            await player.sit_down("logs", seat, BUY_IN)
        with pytest.raises(grpc.aio.AioRpcError):
            await players[0].act("logs", 2, table_pb2.ACTION_TYPE_FOLD, 0, 1)  # someone else's seat
        while not (await players[0].view("logs")).hand.complete:
            await act_passively(players, "logs", 1, folding=players[2])
    server.kill()
    log = server.log_text()
    assert log, "the server logged nothing at DEBUG"
    tokens = [client.metadata[0][1].removeprefix("Bearer ") for client in (operator, *players)]
    assert not any(token in log or token.split(".")[2] in log for token in tokens)
    payloads = await read_log(database, "logs")
    hidden = {p["card"] for p in payloads if p["type"] == "CardDealt" and not p["face_up"]}
    shown = {card for p in payloads if p["type"] == "HandShown" for card in p["cards"]}
    never_shown = hidden - shown
    assert never_shown, "the folded hand's down cards should never be shown"
    lines = log.splitlines()
    assert any('"type":"CardDealt"' in line for line in lines), "the deal was not logged"
    leaks = [line for line in lines for shows, face_down in [cards_in_log_line(line)]
             if face_down or shows & never_shown]
    assert not leaks, leaks[:3]


# ``card=17``, ``'cards': [3, 'Kc']``, ``"card":"Kc"``: a card value under a card key, in text of any kind.
_CARD_VALUE = re.compile(r"""\bcards?['"]?\s*[=:]\s*(\[[^\]]*\]|\([^)]*\)|[^\s,;)}\]]+)""")
_CARD_TOKEN = re.compile(r"\b(\d{1,2}|[2-9TJQKA][cdhs])\b")
DECK = frozenset(range(52))
_FACE_DOWN = re.compile(r"""face_up['"]?\s*[=:]\s*(?:False|false|0)\b""")


def cards_in_log_line(line: str) -> tuple[set[int], set[int]]:
    """(every card the line shows, those it shows as face down).  Cards are values under a ``card`` /
    ``cards`` key of the JSON line at any depth (codes, or text such as ``Kc``) and ``card=...`` pairs
    inside its strings (messages, tracebacks, reprs of events); face down means in a mapping or a
    string that also says ``face_up`` false.  A line that is not JSON is searched as text."""
    found: set[int] = set()
    face_down: set[int] = set()

    def values(value: object) -> set[int]:
        if isinstance(value, bool):
            return set()
        if isinstance(value, int):
            return {value} & DECK
        if isinstance(value, str):
            return {int(t) if t.isdigit() else parse_card(t) for t in _CARD_TOKEN.findall(value)} & DECK
        if isinstance(value, list):
            return set().union(*(values(item) for item in value))
        return set()

    def walk(value: object) -> None:
        if isinstance(value, dict):
            here = set().union(*(values(item) for key, item in value.items() if key in ("card", "cards")))
            found.update(here)
            if value.get("face_up", True) in (False, 0):
                face_down.update(here)
            for item in value.values():
                walk(item)
        elif isinstance(value, list):
            for item in value:
                walk(item)
        elif isinstance(value, str):
            here = set().union(*(values(match.group(1)) for match in _CARD_VALUE.finditer(value)))
            found.update(here)
            if _FACE_DOWN.search(value):
                face_down.update(here)

    try:
        walk(json.loads(line))
    except ValueError:
        walk(line)
    return found, face_down
