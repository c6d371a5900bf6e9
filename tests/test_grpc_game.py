"""Full hands of every variant played through gRPC by several clients, checked against the engine.

Four bots per table play through the public API only; afterwards the table's log is replayed with
the engine and every action a bot got accepted must have been one of its legal actions at that
moment (RULES.md §3, §4), chips must be conserved through every hand (DESIGN.md), and the final view
must agree with the replayed state.
"""

from __future__ import annotations

import asyncio

import pytest
from grpc_fixtures import wait_for_view

from stud_service.bots import Bot
from stud_service.engine import (
    ActionKind,
    HandEnded,
    HandStarted,
    PlayerActed,
    chips_in_play,
    event_from_json,
    initial_state,
    legal_actions,
)
from stud_service.engine.evolve import apply_in_place
from stud_service.server.proto_gen import table_pb2
from stud_service.server.tables.live import stream_id_for

HANDS = 4
BUY_IN = 10_000
PLAYERS = ("ann", "ben", "cat", "dan")


def check_log_against_engine(payloads: list[dict]) -> tuple[object, int]:
    """Replay the log; every voluntary action must have been legal; chips constant within each hand."""
    state = initial_state()
    hands_ended = 0
    total = None
    for payload in payloads:
        event = event_from_json(payload)
        if isinstance(event, PlayerActed) and not event.timeout:
            player = state.hand.players[event.seat].player_id
            legal = legal_actions(state, player)
            options = dict(legal.options)
            assert event.action in options, (event, legal)
            if event.action in (ActionKind.BRING_IN, ActionKind.COMPLETE, ActionKind.BET, ActionKind.RAISE):
                assert event.amount in options[event.action], (event, legal)
            if event.action is ActionKind.CALL:
                assert event.amount == legal.call_amount
        if isinstance(event, HandStarted):
            total = chips_in_play(state)
        state = apply_in_place(state, event)
        if state.hand is not None:
            assert chips_in_play(state) == total, f"chips not conserved at {payload['type']}"
        if isinstance(event, HandEnded):
            hands_ended += 1
            assert chips_in_play(state) + event.rake == total  # the rake leaves the table (§10)
    return state, hands_ended


@pytest.mark.parametrize(
    "variant",
    [table_pb2.VARIANT_SEVEN_CARD_STUD, table_pb2.VARIANT_STUD_HI_LO, table_pb2.VARIANT_RAZZ],
    ids=["stud", "stud-hi-lo", "razz"],
)
async def test_bots_play_full_hands_of_each_variant(
    grpc_service, new_table, make_player, variant: int
) -> None:
    table_id = await new_table(variant=variant)
    bots = [
        Bot(make_player(name), table_id, seat, seed=seat * 7 + variant)
        for seat, name in enumerate(PLAYERS, 1)
    ]
    for bot in bots:
        await bot.sit(BUY_IN)
    await asyncio.wait_for(asyncio.gather(*(bot.run(HANDS) for bot in bots)), timeout=60)
    assert all(bot.stats.hands_seen == HANDS for bot in bots)
    assert sum(bot.stats.actions for bot in bots) > HANDS * 4

    # Stop the table between hands so the log and a view can be compared at one version: everyone sits
    # out, and a hand the dealer may already have started is played out.
    for bot in bots:
        bot.sit_in_when_out = False
        await bot.client.sit_out(table_id)
    finishing = [asyncio.ensure_future(bot.run(1)) for bot in bots]
    spectator = make_player("spectator")
    try:
        view = await wait_for_view(spectator, table_id, lambda v: not v.HasField("hand") or v.hand.complete)
    finally:
        for task in finishing:
            task.cancel()
    stored = await grpc_service.store.read_stream(stream_id_for(table_id))
    payloads = [event.payload for event in stored if event.version <= view.version]
    state, hands_ended = check_log_against_engine(payloads)
    assert hands_ended >= HANDS
    assert {seat.seat: seat.stack for seat in view.seats} == {
        seat: s.stack for seat, s in state.seats.items()
    }
    assert sum(seat.stack for seat in view.seats) == BUY_IN * len(PLAYERS)
    assert view.hand.deck_commitment and len(view.hand.awards) >= 1


def _raise_whenever_possible(view: table_pb2.TableView, rng: object) -> table_pb2.LegalAction:
    """Bets, completes or raises to the most it may, else calls: a hand runs one out of chips."""
    legal = list(view.legal_actions)
    aggressive = [a for a in legal if a.type in (table_pb2.ACTION_TYPE_BET, table_pb2.ACTION_TYPE_RAISE,
                                                 table_pb2.ACTION_TYPE_COMPLETE)]
    if aggressive:
        return max(aggressive, key=lambda action: action.amount)
    calls = [a for a in legal if a.type in (table_pb2.ACTION_TYPE_CALL, table_pb2.ACTION_TYPE_CHECK,
                                            table_pb2.ACTION_TYPE_BRING_IN)]
    return (calls or legal)[0]


async def test_a_busted_bot_tops_up_once_and_sits_back_in_so_its_table_deals_on(
    grpc_service, new_table, make_player
) -> None:
    table_id = await new_table()
    bots = [
        Bot(make_player(name), table_id, seat, strategy=_raise_whenever_possible, seed=seat,
            top_up_when_busted=2_000)
        for seat, name in enumerate(("eve", "fay", "gus"), 1)
    ]
    for bot in bots:
        await bot.sit(2_000)
    # All in every hand at a 2,000 buy-in: without top-ups the table stops once two have busted. The one
    # who busts tops up while the others play the next hand, whose views still show it busted.
    hands = 8
    await asyncio.wait_for(asyncio.gather(*(bot.run(hands) for bot in bots)), timeout=60)
    stored = [event.payload for event in await grpc_service.store.read_stream(stream_id_for(table_id))]
    assert sum(p["type"] == "HandStarted" for p in stored) >= hands
    busts = 0
    for name in ("eve", "fay", "gus"):
        # Each time: busted, topped up once (the views sent meanwhile still showed it busted), sat in.
        steps = [p["type"] for p in stored if p.get("player_id") == name
                 and (p["type"] in ("PlayerToppedUp", "PlayerSatIn")
                      or (p["type"] == "PlayerSatOut" and p["reason"] == "busted"))]
        busts += steps.count("PlayerSatOut")
        cycle = ["PlayerSatOut", "PlayerToppedUp", "PlayerSatIn"]
        assert steps == (cycle * len(steps))[:len(steps)], (name, steps)
    assert busts >= 2, "fewer than two busts: the table would have dealt on without top-ups"
