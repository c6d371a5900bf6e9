"""The attack of issue 16, as a test: nobody computes a card that was never shown to them.

Bots play many hands through the real gRPC API while a spectator (no seat) watches. Every message each of
them receives is recorded by a client interceptor on their channel: the watch streams, Act replies, and
afterwards GetTable, GetTableView, ListHands, and per hand GetHand, ReplayHand (the public and the player
view), VerifyShuffle and ExportHandHistory (PHH and PokerStars), and a replay of the whole log through
WatchTable; refusals are recorded too.

Then each viewer attacks what they received, as a hostile client would:

- seeds: every 32-byte value found anywhere (hex strings, base64 strings, bytes fields, inside JSON strings
  and history texts) is tried as a server seed: when SHA-256 of it is a hand's published commitment, or the
  deck ``stud_service.shuffle.deck_order`` computes from it (with the hand's client seeds) agrees with every
  card the viewer saw in that hand, the whole deck is recovered;
- proofs: every ``salt`` received with a ``position`` is tried with each of the 52 cards against every
  32-byte hash received (leaf hash ``SHA-256(0x00 || u8(position) || u8(card) || salt)``); a hit recovers
  that card; a card sent inside a proof counts as received;
- direct: a deck, a card dealt, or a card in a TableView of that hand that reached the viewer.

The truth comes from the service's log (read through its store): the deck of each finished hand and which
deck positions each viewer was shown (face-up cards, their own down cards, hands shown at showdown). A
never-shown card is any other position of the deck: folded and mucked down cards, and cards never dealt.
The test asserts that no player and no spectator recovers any never-shown card, that a salt reaches a
viewer only for a position they were shown, and (so that the attack is known to work) that the same attack
on the auditor's answers recovers them all.
"""

from __future__ import annotations

import asyncio
import base64
import binascii
import contextlib
import hashlib
import hmac
import json
import re
import tomllib
from collections import defaultdict
from collections.abc import AsyncIterator, Awaitable, Callable, Iterator
from dataclasses import dataclass, field
from typing import Any

import grpc
import pytest_asyncio
from google.protobuf.descriptor import FieldDescriptor
from google.protobuf.message import Message
from grpc_fixtures import TOKEN_SECRET, ServiceUnderTest, service_under_test, settle_table, table_spec

from stud_service.auth import Role, mint_token
from stud_service.bots import Bot, StudClient, events_of, random_strategy
from stud_service.server.proto_gen import audit_service_pb2
from stud_service.server.tables.live import stream_id_for
from stud_service.server.tables.settings import RuntimeSettings
from stud_service.shuffle import commitment, deck_order

HANDS = 20
BUY_IN = 40_000
PLAYERS = ("ann", "ben", "cat", "dan")
SPECTATOR = "spy"
AUDITOR = "judy"
SALT_LABEL = b"stud-service/deck-salt/v1"
_HEX_SEED = re.compile(r"(?<![0-9a-fA-F])[0-9a-fA-F]{64}(?![0-9a-fA-F])")
_BASE64_SEED = re.compile(r"(?<![A-Za-z0-9+/_-])[A-Za-z0-9+/_-]{43}=?(?![A-Za-z0-9+/_=-])")


# -- recording everything a client receives ----------------------------------------------------------------


@dataclass
class Received:
    """One viewer's inbox: every reply message (with the request it answered) and every refusal's text."""

    messages: list[tuple[Message, Message]] = field(default_factory=list)  # (request, reply)
    refusals: list[str] = field(default_factory=list)
    codes: set[grpc.StatusCode] = field(default_factory=set)  # the refusals' status codes


class Recorder(grpc.aio.UnaryUnaryClientInterceptor):
    """Records unary replies and refusals (a channel takes an interceptor for one kind of call only)."""

    def __init__(self, received: Received) -> None:
        self.received = received

    async def intercept_unary_unary(self, continuation, details, request):  # type: ignore[no-untyped-def]
        call = await continuation(details, request)
        try:
            reply = await call
        except grpc.aio.AioRpcError as error:
            self.received.refusals.append(f"{error.details()} {error.trailing_metadata()}")
            self.received.codes.add(error.code())
            raise
        self.received.messages.append((request, reply))
        return reply


class StreamRecorder(grpc.aio.UnaryStreamClientInterceptor):
    """Records every message of a server stream."""

    def __init__(self, received: Received) -> None:
        self.received = received

    async def intercept_unary_stream(self, continuation, details, request):  # type: ignore[no-untyped-def]
        call = await continuation(details, request)
        received = self.received

        async def replies() -> AsyncIterator[Message]:
            try:
                async for reply in call:
                    received.messages.append((request, reply))
                    yield reply
            except grpc.aio.AioRpcError as error:
                if error.code() != grpc.StatusCode.CANCELLED:
                    received.refusals.append(f"{error.details()} {error.trailing_metadata()}")
                    received.codes.add(error.code())
                raise

        return replies()


@dataclass
class Viewer:
    player: str
    role: Role
    channel: grpc.aio.Channel
    received: Received

    @property
    def client(self) -> StudClient:
        return StudClient(self.channel, mint_token(TOKEN_SECRET, self.player, self.role))


@pytest_asyncio.fixture(scope="module", loop_scope="session")
async def service(make_database: Callable[..., Awaitable[str]]) -> AsyncIterator[ServiceUnderTest]:
    url = await make_database(migrated=True)
    async with service_under_test(url, RuntimeSettings(next_hand_pause=0.02)) as running:
        yield running


@pytest_asyncio.fixture(loop_scope="session")
async def viewers(service: ServiceUnderTest) -> AsyncIterator[dict[str, Viewer]]:
    made: dict[str, Viewer] = {}
    roles = [*((name, Role.PLAYER) for name in (*PLAYERS, SPECTATOR)), (AUDITOR, Role.AUDITOR)]
    for name, role in roles:
        received = Received()
        recorders = [Recorder(received), StreamRecorder(received)]
        channel = grpc.aio.insecure_channel(service.address, interceptors=recorders)
        made[name] = Viewer(name, role, channel, received)
    try:
        yield made
    finally:
        for viewer in made.values():
            await viewer.channel.close()


# -- playing and asking ------------------------------------------------------------------------------------


async def play(service: ServiceUnderTest, viewers: dict[str, Viewer]) -> str:
    table_id = "leak-attack"
    await service.client("house", Role.OPERATOR).create_table(table_id, table_spec())
    bots = [
        Bot(viewers[name].client, table_id, seat, strategy=random_strategy, seed=seat)
        for seat, name in enumerate(PLAYERS, start=1)
    ]
    for bot in bots:
        await bot.sit(BUY_IN)
    spectator = asyncio.ensure_future(watch(viewers[SPECTATOR].client, table_id, HANDS))
    await asyncio.wait_for(asyncio.gather(spectator, *(bot.run(HANDS) for bot in bots)), timeout=120)
    await settle_table(bots, viewers[SPECTATOR].client, table_id)
    return table_id


async def watch(client: StudClient, table_id: str, hands: int, after_version: int = 0,
                until_version: int | None = None) -> None:
    stream = client.watch(table_id, after_version=after_version, include_views=True,
                          batch_events=until_version is not None)
    ended = 0
    async for message in stream:
        events = events_of(message)
        ended += sum(event.type == "HandEnded" for event in events)
        if (until_version is None and ended >= hands) or (
            until_version is not None and events and events[-1].version >= until_version
        ):
            stream.cancel()
            return


async def ask_everything(viewer: Viewer, table_id: str, hands: list[int], head: int) -> None:
    """Every read a client may make about the table and its hands (refusals are recorded, not raised)."""
    client, audit = viewer.client, viewer.client.audit
    metadata = client.metadata
    name = f"tables/{table_id}"
    # A player's own view (UNSPECIFIED is PLAYER for them) and the public one; an auditor's is FULL.
    views = (
        (audit_service_pb2.REPLAY_VIEW_PUBLIC, audit_service_pb2.REPLAY_VIEW_PLAYER)
        if viewer.role is Role.PLAYER else (audit_service_pb2.REPLAY_VIEW_UNSPECIFIED,)
    )
    calls: list[Awaitable[Any]] = [
        client.get_table(table_id),
        client.view(table_id),
        audit.ListHands(audit_service_pb2.ListHandsRequest(parent=name, page_size=1000), metadata=metadata),
    ]
    for hand in hands:
        hand_name = f"{name}/hands/{hand}"
        calls.append(audit.GetHand(audit_service_pb2.GetHandRequest(name=hand_name), metadata=metadata))
        for view in views:
            calls.append(audit.ReplayHand(audit_service_pb2.ReplayHandRequest(name=hand_name, view=view),
                                          metadata=metadata))
        calls.append(audit.VerifyShuffle(audit_service_pb2.VerifyShuffleRequest(name=hand_name),
                                         metadata=metadata))
        for fmt in (audit_service_pb2.HISTORY_FORMAT_PHH, audit_service_pb2.HISTORY_FORMAT_POKERSTARS):
            calls.append(audit.ExportHandHistory(
                audit_service_pb2.ExportHandHistoryRequest(name=hand_name, format=fmt), metadata=metadata))
    for call in calls:
        with contextlib.suppress(grpc.aio.AioRpcError):  # a refusal is recorded too
            await call
    await watch(client, table_id, 0, after_version=1, until_version=head)


# -- the truth, from the log -------------------------------------------------------------------------------


@dataclass
class HandTruth:
    hand: int
    deck: list[int]
    seats: dict[str, int]  # player -> seat
    dealt: list[tuple[int | None, bool]] = field(default_factory=list)  # position -> (seat, face up)
    versions: dict[int, int] = field(default_factory=dict)  # CardDealt version -> position
    shown: set[int] = field(default_factory=set)  # seats whose hands were shown
    commitment: str = ""
    client_seeds: dict[int, str] = field(default_factory=dict)
    server_seed: bytes | None = None
    complete: bool = False

    def visible(self, player: str | None) -> set[int]:
        """Deck positions ``player`` (None: a spectator, an auditor's public view) was shown."""
        own = self.seats.get(player) if player is not None else None
        return {
            position for position, (seat, face_up) in enumerate(self.dealt)
            if face_up or seat is None or seat == own or seat in self.shown
        }

    def never_shown(self, player: str | None) -> dict[int, int]:
        """Position -> card for every position of the deck the viewer was never shown."""
        visible = self.visible(player)
        return {position: card for position, card in enumerate(self.deck) if position not in visible}



def salt_owners(hands: dict[int, HandTruth]) -> dict[bytes, tuple[int, int]]:
    """salt -> (hand, deck position): the salts of every hand's Merkle leaves, from its server seed."""
    return {
        hmac.new(seed, SALT_LABEL + bytes([position]), hashlib.sha256).digest(): (number, position)
        for number, hand in hands.items() if (seed := hand.server_seed) is not None
        for position in range(52)
    }


def hands_from_log(payloads: list[dict[str, Any]]) -> dict[int, HandTruth]:
    hands: dict[int, HandTruth] = {}
    committed: dict[int, bytes] = {}
    current: HandTruth | None = None
    for version, payload in enumerate(payloads, start=1):
        kind = payload["type"]
        if kind == "ShuffleCommitted":
            secret = payload.get("secret") or {}
            if secret.get("server_seed"):
                committed[int(payload["next_hand"])] = bytes.fromhex(secret["server_seed"])
        elif kind == "HandStarted":
            extra = payload.get("extra") or {}
            current = hands[payload["hand"]] = HandTruth(
                payload["hand"],
                list(payload["deck"]),
                {player: seat for seat, player, _ in payload["seats"]},
                commitment=payload["commitment"],
                client_seeds={int(seat): seed for seat, seed in (extra.get("client_seeds") or {}).items()},
            )
            seed = extra.get("server_seed")
            current.server_seed = bytes.fromhex(seed) if seed else committed.get(current.hand)
        elif current is None:
            continue
        elif kind == "CardDealt":
            current.versions[version] = len(current.dealt)
            current.dealt.append((payload["seat"], bool(payload["face_up"])))
        elif kind == "HandShown":
            current.shown.add(payload["seat"])
        elif kind == "HandEnded":
            current.complete = True
            if payload.get("server_seed") and current.server_seed is None:
                current.server_seed = bytes.fromhex(payload["server_seed"])
    return {number: hand for number, hand in hands.items() if hand.complete}


# -- the attack --------------------------------------------------------------------------------------------


@dataclass
class Contents:
    """What one reply holds for the attack."""

    texts: list[str | bytes] = field(default_factory=list)  # every string and bytes value
    proofs: list[dict[str, Any]] = field(default_factory=list)  # every object with a salt
    events: list[Any] = field(default_factory=list)  # TableEvent messages
    views: list[Any] = field(default_factory=list)  # TableView messages


_TEXT_TYPES = (FieldDescriptor.TYPE_STRING, FieldDescriptor.TYPE_BYTES)


def contents(reply: Message) -> Contents:
    """Walk a reply: its messages, their string and bytes fields, and JSON and TOML (a PHH history) inside
    strings, down to every text, every object with a ``salt`` (a message's with unset fields at their
    defaults), every TableEvent and every TableView."""
    found = Contents()
    stack: list[Any] = [reply]
    while stack:
        item = stack.pop()
        if isinstance(item, Message):
            descriptor = item.DESCRIPTOR
            if descriptor.full_name == "stud.v1.TableEvent":
                found.events.append(item)
            elif descriptor.full_name == "stud.v1.TableView":
                found.views.append(item)
            if "salt" in descriptor.fields_by_name:
                found.proofs.append({f.name: getattr(item, f.name) for f in descriptor.fields})
            for held, value in item.ListFields():
                if held.message_type is not None and held.message_type.GetOptions().map_entry:
                    stack.extend(value.values())
                elif held.type == FieldDescriptor.TYPE_MESSAGE or held.type in _TEXT_TYPES:
                    if held.is_repeated:
                        stack.extend(value)
                    else:
                        stack.append(value)
        elif isinstance(item, dict):
            if "salt" in item:
                found.proofs.append(item)
            stack.extend(item.values())
        elif isinstance(item, list | tuple):
            stack.extend(item)
        elif isinstance(item, str | bytes):
            found.texts.append(item)
            if isinstance(item, str) and item[:1] in ("{", "["):
                with contextlib.suppress(ValueError):
                    stack.append(json.loads(item))
            elif isinstance(item, str) and "\n" in item and " = " in item:
                with contextlib.suppress(tomllib.TOMLDecodeError):
                    stack.append(tomllib.loads(item))
    return found


def _as_32_bytes(value: Any) -> Iterator[bytes]:
    if isinstance(value, bytes) and len(value) == 32:
        yield value
    elif isinstance(value, str) and len(value) >= 43:
        for token in _HEX_SEED.findall(value):
            yield bytes.fromhex(token)
        for token in _BASE64_SEED.findall(value):
            try:
                decoded = base64.urlsafe_b64decode(token.replace("+", "-").replace("/", "_") + "=")
            except (binascii.Error, ValueError):
                continue
            if len(decoded) == 32:
                yield decoded


def _salt_bytes(value: Any) -> bytes | None:
    if isinstance(value, bytes):
        return value
    if isinstance(value, str):
        try:
            return bytes.fromhex(value)
        except ValueError:
            try:
                return base64.b64decode(value)
            except (binascii.Error, ValueError):
                return None
    return None


@dataclass
class Loot:
    """What one viewer's data gives away: position -> card recovered, per hand; salts received."""

    cards: dict[int, dict[int, int]] = field(default_factory=lambda: defaultdict(dict))
    salts: list[tuple[bytes, int]] = field(default_factory=list)  # (salt, position) as received
    seeds_found: int = 0


def attack(received: Received, hands: dict[int, HandTruth], viewer: str | None) -> Loot:
    loot = Loot()
    hashes: set[bytes] = set()
    proofs: list[tuple[bytes, int, Any]] = []
    for request, reply in received.messages:
        found = contents(reply)
        for text in found.texts:
            hashes.update(_as_32_bytes(text))
        for proof in found.proofs:
            salt = _salt_bytes(proof["salt"])
            if salt is not None:
                proofs.append((salt, int(proof.get("position", 0)), proof.get("card")))
        _direct(found, _hand_of(request), hands, loot)
    for text in received.refusals:
        hashes.update(_as_32_bytes(text))

    # Seeds: by commitment, or by agreeing with every card the viewer saw.
    by_commitment = {hand.commitment: hand for hand in hands.values()}
    decks: dict[tuple[bytes, tuple[tuple[int, str], ...]], list[int]] = {}
    seen_by_hand = {number: sorted(hand.visible(viewer)) for number, hand in hands.items()}
    for candidate in hashes:
        matched = by_commitment.get(commitment(candidate))
        for hand in hands.values():
            key = (candidate, tuple(sorted(hand.client_seeds.items())))
            if key not in decks:
                decks[key] = deck_order(candidate, hand.client_seeds)
            deck = decks[key]
            seen = seen_by_hand[hand.hand]
            agrees = len(seen) >= 3 and all(deck[p] == hand.deck[p] for p in seen)
            if hand is matched or agrees:
                loot.seeds_found += 1
                loot.cards[hand.hand].update(enumerate(deck))

    # Proofs: a salted leaf hash falls to 52 guesses.
    owners = salt_owners(hands)
    for salt, position, card in proofs:
        loot.salts.append((salt, position))
        owner = owners.get(salt)
        if owner is None:
            continue
        if isinstance(card, int):
            loot.cards[owner[0]][position] = card
        for guess in range(52):
            if hashlib.sha256(b"\x00" + bytes([position, guess]) + salt).digest() in hashes:
                loot.cards[owner[0]][position] = guess
    return loot


def _hand_of(request: Message) -> int | None:
    name = getattr(request, "name", "")
    match = re.fullmatch(r"tables/[^/]+/hands/(\d+)", name or "")
    return int(match[1]) if match else None


def _direct(found: Contents, request_hand: int | None, hands: dict[int, HandTruth], loot: Loot) -> None:
    """Cards handed over as such: a deck, a card dealt, a card in a view of that hand."""
    for event in found.events:
        kind = event.WhichOneof("event")
        body = getattr(event, kind) if kind else None
        hand = hands.get(getattr(body, "hand", -1))
        if hand is None:
            continue
        if kind == "hand_started" and body.deck:
            loot.cards[hand.hand].update(enumerate(body.deck))
        elif kind == "card_dealt" and not body.hidden and event.version in hand.versions:
            loot.cards[hand.hand][hand.versions[event.version]] = body.card
    for view in found.views:
        number = view.hand.hand_number if view.HasField("hand") else request_hand
        hand = hands.get(number or -1)
        if hand is None:
            continue
        where = {card: position for position, card in enumerate(hand.deck)}
        for seat in view.seats:
            for card in (*seat.up_cards, *seat.down_cards):
                loot.cards[hand.hand][where[card]] = card
        for card in view.hand.community_cards:
            loot.cards[hand.hand][where[card]] = card


@dataclass
class Outcome:
    """What the attack got of the cards one viewer was never shown."""

    down: int = 0  # down cards dealt and never shown (folded, mucked, an opponent's) recovered
    down_total: int = 0
    undealt: int = 0  # cards never dealt recovered
    undealt_total: int = 0
    bad_salts: list[str] = field(default_factory=list)  # salts received for positions never shown

    @property
    def leaked(self) -> bool:
        return bool(self.down or self.undealt or self.bad_salts)

    def __str__(self) -> str:
        return (f"{self.down} of {self.down_total} never-shown down cards and {self.undealt} of "
                f"{self.undealt_total} undealt cards recovered; {self.bad_salts[:3]}")


def recovered(loot: Loot, hands: dict[int, HandTruth], viewer: str | None) -> Outcome:
    outcome = Outcome()
    for hand in hands.values():
        got = loot.cards.get(hand.hand, {})
        for position, card in hand.never_shown(viewer).items():
            hit = got.get(position) == card
            if position < len(hand.dealt):
                outcome.down_total += 1
                outcome.down += hit
            else:
                outcome.undealt_total += 1
                outcome.undealt += hit
    owners = salt_owners(hands)
    for salt, position in loot.salts:
        number, at = owners.get(salt, (None, position))
        if number is None:
            outcome.bad_salts.append(f"a salt for position {position} of no hand")
        elif at not in hands[number].visible(viewer):
            outcome.bad_salts.append(f"hand {number}: the salt of position {at}, never shown")
    return outcome


# -- the test ----------------------------------------------------------------------------------------------


async def test_no_player_or_spectator_computes_a_never_shown_card_from_what_they_received(
    service: ServiceUnderTest, viewers: dict[str, Viewer]
) -> None:
    table_id = await play(service, viewers)
    payloads = [stored.payload for stored in await service.store.read_stream(stream_id_for(table_id))]
    hands = hands_from_log(payloads)
    assert len(hands) >= HANDS
    assert sum(len(hand.shown) for hand in hands.values()) > 0, "no showdown: shown hands were not exercised"
    folded_or_mucked = sum(
        1 for hand in hands.values() for seat in hand.seats.values() if seat not in hand.shown
    )
    assert folded_or_mucked > 0
    head = await service.store.head(stream_id_for(table_id))
    for viewer in viewers.values():
        await ask_everything(viewer, table_id, sorted(hands), head)

    outcomes = {}
    for name, viewer in viewers.items():
        if viewer.role is Role.PLAYER:
            perspective = name if name in PLAYERS else None
            outcomes[name] = recovered(attack(viewer.received, hands, perspective), hands, perspective)
    leaks = [f"{name}: {outcome}" for name, outcome in outcomes.items() if outcome.leaked]
    assert not leaks, f"from what they received, over {len(hands)} hands: " + "; ".join(leaks)
    # Everything was asked and answered: every viewer verified every hand's shuffle, nothing failed.
    for viewer in viewers.values():
        checked = [reply for _request, reply in viewer.received.messages
                   if isinstance(reply, audit_service_pb2.VerifyShuffleResponse)]
        assert len(checked) == len(hands) and all(reply.passed for reply in checked), viewer.player
        assert not viewer.received.codes & {grpc.StatusCode.UNKNOWN, grpc.StatusCode.INTERNAL}, viewer.player

    # The same attack on what an auditor received recovers every card nobody was shown.
    auditor = viewers[AUDITOR]
    outcome = recovered(attack(auditor.received, hands, None), hands, None)
    assert outcome.down_total > 0 and outcome.undealt_total > 0
    assert (outcome.down, outcome.undealt) == (outcome.down_total, outcome.undealt_total), str(outcome)
