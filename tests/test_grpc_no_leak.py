"""No leak: no message any client receives shows a card that client may not see (DESIGN.md "Hidden
information"; RULES.md §5 for shown and mucked hands).

Bots play many hands through the API while every response they get is recorded: views (GetTableView,
Act replies, stream views), stream events (batched, as the bots watch, and one per message, as the
spectator watches), and refusals. Afterwards each recorded message is checked against the log: at
version v of hand h, player P may see the up cards and community cards dealt so far, their own down
cards dealt so far, and hands shown so far; nothing else (not other seats' down cards, not mucked
hands, not the undealt deck, not their own future cards). A seat changes hands between rounds of play,
and a late watcher replays the whole log in both modes, so attribution by player (not by seat number)
is exercised too. Over the gRPC port and the web port (Connect, JSON).
"""

from __future__ import annotations

import asyncio
import re
from collections import defaultdict
from dataclasses import dataclass, field

import grpc
import pytest
from event_messages import event_body, message_cards
from grpc_fixtures import TOKEN_SECRET, TRANSPORTS, settle_table, wait_for_view

from stud_service.auth import Role, mint_token
from stud_service.bots import Bot, Strategy, StudClient, cautious_strategy, events_of, random_strategy
from stud_service.bots.connect_stub import WebChannel
from stud_service.server.proto_gen import events_pb2, table_pb2
from stud_service.server.tables.live import stream_id_for

BUY_IN = 10_000
CARD_TEXT = re.compile(r"\b(?:[2-9TJQKA]|10)[cdhs]\b|[♣♦♥♠]")


@dataclass
class Seen:
    """What one client received: (version, hand or None, cards) triples and refusal texts."""

    messages: list[tuple[int, int | None, list[int]]] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)


def view_cards(view: table_pb2.TableView) -> tuple[int, int | None, list[int]]:
    cards = [card for seat in view.seats for card in (*seat.up_cards, *seat.down_cards)]
    cards += list(view.hand.community_cards)
    return view.version, (view.hand.hand_number if view.HasField("hand") else None), cards


def event_cards(event: events_pb2.TableEvent) -> tuple[int, int | None, list[int]]:
    body = event_body(event)
    hand = body.hand if "hand" in body.DESCRIPTOR.fields_by_name else None
    return event.version, hand, message_cards(event)


class RecordingClient(StudClient):
    def __init__(self, channel: grpc.aio.Channel | WebChannel, token: str, seen: Seen) -> None:
        super().__init__(channel, token)
        self.seen = seen

    def _refusal(self, error: grpc.aio.AioRpcError) -> None:
        self.seen.errors.append(f"{error.details()} {error.trailing_metadata()}")

    async def view(self, table_id: str) -> table_pb2.TableView:
        view = await super().view(table_id)
        self.seen.messages.append(view_cards(view))
        return view

    async def act(self, *args, **kwargs) -> table_pb2.TableView:
        try:
            view = await super().act(*args, **kwargs)
        except grpc.aio.AioRpcError as error:
            self._refusal(error)
            raise
        self.seen.messages.append(view_cards(view))
        return view

    def watch(self, *args, **kwargs):
        stream = super().watch(*args, **kwargs)
        seen = self.seen

        class Recorded:
            def __aiter__(self):
                return self._iterate()

            async def _iterate(self):
                async for message in stream:
                    if message.HasField("view"):
                        seen.messages.append(view_cards(message.view))
                    for event in events_of(message):  # one event, or a batch (the bots batch)
                        seen.messages.append(event_cards(event))
                    yield message

            def cancel(self):
                stream.cancel()

        return Recorded()


def visible_cards(payloads: list[dict]) -> dict[tuple[str, int, int], set[int]]:
    """(player, hand, version) -> the cards that player may see then, from a hand's start until the next."""

    class Hand:
        def __init__(self, number: int, seats: dict[int, str]) -> None:
            self.number = number
            self.seats = seats
            self.public: set[int] = set()
            self.private: dict[str, set[int]] = defaultdict(set)
            self.down: dict[int, set[int]] = defaultdict(set)

    visible: dict[tuple[str, int, int], set[int]] = {}
    hand: Hand | None = None
    players = {p["player_id"] for p in payloads if p["type"] == "PlayerSeated"} | {"spectator"}
    for version, payload in enumerate(payloads, start=1):
        kind = payload["type"]
        if kind == "HandStarted":
            hand = Hand(payload["hand"], {seat: player for seat, player, _ in payload["seats"]})
        elif kind == "CardDealt" and hand is not None:
            if payload["face_up"] or payload["seat"] is None:
                hand.public.add(payload["card"])
            else:
                hand.private[hand.seats[payload["seat"]]].add(payload["card"])
                hand.down[payload["seat"]].add(payload["card"])
        elif kind == "HandShown" and hand is not None:
            hand.public |= set(payload["cards"])
        if hand is not None:  # also between hands, when views show the last hand's result
            for player in players:
                visible[(player, hand.number, version)] = hand.public | hand.private.get(player, set())
    return visible


@pytest.mark.parametrize("transport", TRANSPORTS)
async def test_no_client_ever_receives_a_card_it_may_not_see(grpc_service, new_table, transport) -> None:
    table_id = await new_table()
    seen: dict[str, Seen] = defaultdict(Seen)
    channel = grpc_service.channel_for(transport)

    def client(player: str) -> RecordingClient:
        return RecordingClient(channel, mint_token(TOKEN_SECRET, player), seen[player])

    async def play(names: list[str], hands: int, strategy: Strategy = random_strategy) -> None:
        bots = [Bot(client(name), table_id, seat, strategy=strategy, seed=seat)
                for seat, name in enumerate(names, start=1)]
        for bot in bots:
            view = await bot.client.view(table_id)
            seat = view.viewer_seat
            if seat and not any(s.seat == seat and s.stack for s in view.seats):
                await bot.client.top_up(table_id, BUY_IN)  # busted in the first round: may not sit in bare
            await (bot.client.sit_in(table_id) if seat else bot.sit(BUY_IN))
        spectator = asyncio.ensure_future(_watch_all(client("spectator"), table_id, hands))
        await asyncio.wait_for(asyncio.gather(spectator, *(bot.run(hands) for bot in bots)), timeout=90)
        await settle_table(bots, client("spectator"), table_id)

    await play(["ann", "ben", "cat", "dan"], hands=6)
    await client("dan").leave(table_id)  # dan's seat 4 goes to eve for the second round of play
    await client("eve").sit_down(table_id, 4, BUY_IN)
    # Four players calling down every hand: at each showdown a later hand beaten by an earlier shown
    # one is mucked (RULES.md §5); all four hands without a muck is about a one-in-300,000 chance.
    await play(["ann", "ben", "cat", "eve"], hands=4, strategy=cautious_strategy)
    # A late watcher (eve, who now holds dan's old seat) replays the whole log, batched and not.
    for batch in (False, True):
        await _watch_all(
            client("eve"),
            table_id,
            0,
            after_version=1,
            until_version=await _head(grpc_service, table_id),
            batch_events=batch,
        )

    payloads = [event.payload for event in await grpc_service.store.read_stream(stream_id_for(table_id))]
    visible = visible_cards(payloads)
    mucks = mucked_hands(payloads)
    assert mucks, "no hand was mucked: the mucked-card path was not exercised"
    checked = after_a_muck = 0
    for player, record in seen.items():
        for version, hand, cards in record.messages:
            if hand is None or not cards:
                continue
            allowed = visible[(player, hand, version)]
            assert set(cards) <= allowed, (
                f"{player} saw {set(cards) - allowed} at version {version} (hand {hand})"
            )
            checked += 1
            for muck_version, owner, down in mucks.get(hand, ()):
                if player != owner and version >= muck_version:
                    assert not set(cards) & down, f"{player} saw {owner}'s mucked cards"
                    after_a_muck += 1
        for text in record.errors:
            assert not CARD_TEXT.search(text), f"a refusal to {player} names a card: {text}"
    assert checked > 1000
    assert after_a_muck > 0, "no other client received anything after a muck"


def mucked_hands(payloads: list[dict]) -> dict[int, list[tuple[int, str, set[int]]]]:
    """Hand -> [(version of the HandMucked, the mucking player, their down cards), ...]."""
    mucks: dict[int, list[tuple[int, str, set[int]]]] = defaultdict(list)
    seats: dict[int, str] = {}
    down: dict[int, set[int]] = defaultdict(set)
    for version, payload in enumerate(payloads, start=1):
        if payload["type"] == "HandStarted":
            seats, down = {seat: player for seat, player, _ in payload["seats"]}, defaultdict(set)
        elif payload["type"] == "CardDealt" and not payload["face_up"] and payload["seat"] is not None:
            down[payload["seat"]].add(payload["card"])
        elif payload["type"] == "HandMucked":
            mucks[payload["hand"]].append((version, seats[payload["seat"]], down[payload["seat"]]))
    return mucks


async def _head(grpc_service, table_id: str) -> int:
    return await grpc_service.store.head(stream_id_for(table_id))


async def _watch_all(
    client: StudClient,
    table_id: str,
    hands: int,
    after_version: int = 0,
    until_version: int | None = None,
    batch_events: bool = False,
) -> None:
    stream = client.watch(
        table_id, after_version=after_version, include_views=True, batch_events=batch_events
    )
    ended = 0
    async for message in stream:
        events = events_of(message)
        ended += sum(event.type == "HandEnded" for event in events)
        if (until_version is None and ended >= hands) or (
            until_version and events and events[-1].version >= until_version
        ):
            stream.cancel()
            return


@pytest.mark.parametrize("transport", TRANSPORTS)
async def test_an_auditors_view_of_a_running_hand_shows_no_face_down_card(
    grpc_service, new_table, make_player, transport
) -> None:
    """The source of docs/access-log.md's and docs/fairness.md's claim: an auditor watching a running table
    gets an observer's view, as a spectator does: no seat's face-down card, in GetTableView or in the watch
    stream's views and events (the auditor reads every card of a hand once it has ended, never before)."""
    table_id = await new_table()
    ann, ben = make_player("ann"), make_player("ben")
    await ann.sit_down(table_id, 1, BUY_IN)
    await ben.sit_down(table_id, 2, BUY_IN)
    # Nobody acts: the hand waits for its bring-in (a 30 s clock), running, its down cards dealt.
    own = await wait_for_view(ann, table_id, lambda v: v.HasField("hand") and not v.hand.complete
                              and any(seat.down_cards for seat in v.seats))
    held = {card for player in (ann, ben) for seat in (await player.view(table_id)).seats
            for card in seat.down_cards}
    assert len(held) == 4  # two down cards each on third street, each seen by its own player only

    auditor = grpc_service.client("aud", Role.AUDITOR, transport)
    view = await auditor.view(table_id)
    assert view.hand.hand_number == own.hand.hand_number and not view.hand.complete
    seated = [seat for seat in view.seats if seat.player_id]
    assert len(seated) == 2
    assert all(not seat.down_cards and seat.hidden_down_cards == 2 and len(seat.up_cards) == 1
               for seat in seated)
    spectators = await grpc_service.client("spectator", transport=transport).view(table_id)
    for each in (view, spectators):
        each.ClearField("round_trip")  # the latency meter's measure: each caller's own
    assert view == spectators

    shown: set[int] = set()
    stream = auditor.watch(table_id, after_version=1, include_views=True, batch_events=True)  # every deal
    try:
        async with asyncio.timeout(30):
            async for message in stream:
                for event in events_of(message):
                    shown.update(message_cards(event))
                if message.HasField("view"):
                    assert not any(seat.down_cards for seat in message.view.seats)
                if events_of(message) and events_of(message)[-1].version >= view.version:
                    break
    finally:
        stream.cancel()
    assert shown == {card for seat in seated for card in seat.up_cards}
    assert not shown & held
