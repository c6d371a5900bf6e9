"""Secrets at rest through the real store: what is stored is ciphertext, what is read is the event.

Payloads are built as the engine writes them (design: ShuffleCommitted, HandStarted with its deck,
CardDealt face down / face up). Every refusal names the stream and hand or the key id, and never opens to
plaintext.
"""

from __future__ import annotations

import asyncio
import json
import random

import grpc
import psycopg
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from psycopg.types.json import Jsonb

from stud_service.sealing import (
    EventSealer,
    Keyring,
    MissingKey,
    NoDataKey,
    TamperedBox,
    UndecryptableKey,
)
from stud_service.sealing.cipher import box_aad_v1, dek_aad, seal_box, wrap_key
from stud_service.sealing.keyring import new_key
from stud_service.store import EventStore

SEED = "5e" * 32


def commit(hand: int, seed: str = SEED) -> dict:
    return {
        "type": "ShuffleCommitted",
        "v": 1,
        "next_hand": hand,
        "commitment": "c0" * 32,
        "secret": {"server_seed": seed},
        "at_ms": 1_700_000_000_000,
    }


def started(hand: int, deck: list[int], seed: str | None = None) -> dict:
    extra: dict = {"client_seeds": {"1": "alice's"}, "deck_root": "ab" * 32, "commitment_version": 1}
    if seed is not None:
        extra["server_seed"] = seed  # hands logged before seeds were committed apart
    return {
        "type": "HandStarted",
        "v": 3,
        "hand": hand,
        "table_id": "t",
        "seats": [[1, "ann", 1000]],
        "deck": deck,
        "commitment": "c0" * 32,
        "extra": extra,
        "at_ms": 1_700_000_000_001,
    }


def dealt(hand: int, card: int, face_up: bool, seat: int = 1) -> dict:
    return {"type": "CardDealt", "hand": hand, "street": 3, "seat": seat, "card": card, "face_up": face_up}


def a_hand(hand: int, rng: random.Random) -> tuple[list[dict], list[int], str]:
    deck = rng.sample(range(52), 52)
    seed = rng.randbytes(32).hex()
    events = [
        commit(hand, seed),
        started(hand, deck, seed),
        dealt(hand, deck[0], False),
        dealt(hand, deck[1], False),
        dealt(hand, deck[2], True),
        {"type": "BetPlaced", "hand": hand, "seat": 1, "amount": 100},
    ]
    return events, deck, seed


def keyring(kid: str = "k1", key: bytes | None = None) -> Keyring:
    return Keyring(kid, {kid: key or new_key()}, "a test keyring")


async def raw_rows(db_pool, stream_id: str) -> list[tuple[int, str, dict]]:
    async with db_pool.connection() as conn:
        cur = await conn.execute(
            "SELECT version, payload::text, payload FROM events WHERE stream_id = %s ORDER BY version",
            (stream_id,),
        )
        return await cur.fetchall()


async def test_events_read_back_as_written_while_the_rows_hold_only_ciphertext(db_pool, stream_id):
    store = EventStore(db_pool, sealer=EventSealer(keyring()))
    events, deck, seed = a_hand(1, random.Random(1))
    await store.append(stream_id, 0, events[:1])  # the commitment first, as with TableCreated
    await store.append(stream_id, 1, events[1:])

    assert [e.payload for e in await store.read_stream(stream_id)] == events
    assert [e.payload for e in await store.read_hand(stream_id, 1)] == events[1:]
    assert [payload async for _v, payload in store.iter_payloads(stream_id)] == events

    rows = await raw_rows(db_pool, stream_id)
    texts = " ".join(text for _v, text, _p in rows)
    assert (
        seed not in texts
        and json.dumps(deck) not in texts
        and json.dumps(deck, separators=(",", ":")) not in texts
    )
    by_version = {version: payload for version, _t, payload in rows}
    assert by_version[1]["secret"] is None and by_version[1]["commitment"] == "c0" * 32
    assert by_version[2]["deck"] is None and by_version[2]["extra"]["server_seed"] is None
    assert by_version[2]["extra"]["deck_root"] == "ab" * 32  # public fields stay public
    assert by_version[3]["card"] is None and by_version[4]["card"] is None
    assert by_version[5]["card"] == deck[2] and "sealed" not in by_version[5]  # face up: public
    assert "sealed" not in by_version[6]
    assert {by_version[v]["sealed"]["kid"] for v in (1, 2, 3, 4)} == {"k1"}
    assert len({by_version[v]["sealed"]["key"] for v in (1, 2, 3, 4)}) == 1  # one data key per hand
    report = await store.verify(stream_id)  # the chain covers the ciphertext
    assert report.ok and report.checked == 6
    await store.close()


async def test_a_tournaments_committed_draw_seed_is_sealed_and_opens_on_another_store(db_pool, stream_id):
    """A DrawCommitted's secret is sealed with its draw's own data key; the DrawRevealed that draws from it
    is public (what it draws is) and stays in the clear."""
    ring = keyring()
    seeds = [random.Random(draw).randbytes(32).hex() for draw in (1, 2)]

    def committed(draw: int) -> dict:
        return {"type": "DrawCommitted", "v": 1, "draw": draw, "commitment": f"{draw:02x}" * 32,
                "secret": {"seed": seeds[draw - 1]}, "at_ms": 1}

    revealed = {"type": "DrawRevealed", "v": 1, "draw": 1, "seed": seeds[0], "at_ms": 2}
    first = EventStore(db_pool, sealer=EventSealer(ring))
    await first.append(stream_id, 0, [committed(1)])
    later = EventStore(db_pool, sealer=EventSealer(ring))
    await later.append(stream_id, 1, [revealed, committed(2)])
    events = [committed(1), revealed, committed(2)]
    third = EventStore(db_pool, sealer=EventSealer(ring))  # a replica that saw none of it written
    assert [e.payload for e in await third.read_stream(stream_id)] == events
    rows = await raw_rows(db_pool, stream_id)
    by_version = {version: payload for version, _t, payload in rows}
    assert seeds[0] not in rows[0][1] and seeds[1] not in " ".join(text for _v, text, _p in rows)
    assert by_version[1]["secret"] is None and by_version[3]["secret"] is None
    assert by_version[2] == revealed  # public: not sealed
    assert by_version[1]["sealed"]["key"] != by_version[3]["sealed"]["key"]  # a data key per draw
    for store in (first, later, third):
        await store.close()


def test_an_event_without_secrets_is_passed_through_not_copied():
    sealer = EventSealer(keyring())
    for payload in ({"type": "BetPlaced", "hand": 1}, dealt(1, 7, True), {"type": "TableCreated"}):
        assert sealer.seal("tables/t", 3, payload) is payload
        assert sealer.open("tables/t", 3, payload) is payload


async def test_a_new_process_seals_the_running_hand_with_the_data_key_read_from_the_log(db_pool, stream_id):
    """After a restart (or on another replica) the hand's data key comes from the stored events."""
    ring = keyring()
    events, deck, _seed = a_hand(1, random.Random(2))
    await EventStore(db_pool, sealer=EventSealer(ring)).append(stream_id, 0, events[:2])
    later = EventStore(db_pool, sealer=EventSealer(ring))  # knows nothing of the hand yet
    await later.append(stream_id, 2, events[2:4])
    rows = await raw_rows(db_pool, stream_id)
    assert len({payload["sealed"]["key"] for _v, _t, payload in rows}) == 1
    assert [e.payload for e in await later.read_stream(stream_id)] == events[:4]


async def tamper(db_pool, stream_id: str, version: int, path: list[str], value) -> None:
    async with db_pool.connection() as conn:
        await conn.execute(
            "UPDATE events SET payload = jsonb_set(payload, %s, %s) WHERE stream_id = %s AND version = %s",
            (path, Jsonb(value), stream_id, version),
        )


def flip(text: str, at: int = -6) -> str:
    return text[:at] + ("A" if text[at] != "A" else "B") + text[at + 1 :]


@pytest.mark.parametrize(
    "field, error, words",
    [
        ("box", TamperedBox, "tampered box"),
        ("key", UndecryptableKey, "does not decrypt"),
    ],
)
async def test_a_tampered_box_or_forged_wrapped_key_is_refused_naming_stream_and_hand(
    db_pool, stream_id, field, error, words
):
    store = EventStore(db_pool, sealer=EventSealer(keyring()))
    events, _deck, _seed = a_hand(4, random.Random(3))
    await store.append(stream_id, 0, events)
    rows = await raw_rows(db_pool, stream_id)
    await tamper(db_pool, stream_id, 3, ["sealed", field], flip(rows[2][2]["sealed"][field]))
    with pytest.raises(error, match=words) as refused:
        await EventStore(db_pool, sealer=EventSealer(store.sealer.keyring)).read_stream(stream_id)
    assert f"{stream_id} hand 4" in str(refused.value)
    assert not (await store.verify(stream_id)).ok  # and the chain names the altered row
    await store.close()


async def test_a_box_moved_to_another_hand_does_not_open(db_pool, stream_id):
    store = EventStore(db_pool, sealer=EventSealer(keyring()))
    first, _d, _s = a_hand(1, random.Random(4))
    second, _d, _s = a_hand(2, random.Random(5))
    await store.append(stream_id, 0, first + second)
    rows = await raw_rows(db_pool, stream_id)
    await tamper(db_pool, stream_id, 9, ["sealed"], rows[2][2]["sealed"])  # hand 1's card into hand 2's
    with pytest.raises(UndecryptableKey, match=f"{stream_id} hand 2"):
        await EventStore(db_pool, sealer=EventSealer(store.sealer.keyring)).read_hand(stream_id, 2)


async def test_a_key_id_not_in_the_keyring_or_a_wrong_key_under_it_is_refused(db_pool, stream_id):
    await EventStore(db_pool, sealer=EventSealer(keyring("k1"))).append(
        stream_id, 0, a_hand(1, random.Random(6))[0]
    )
    with pytest.raises(
        MissingKey, match=f"{stream_id} hand 1: sealed with key 'k1', which is not in the keyring"
    ):
        await EventStore(db_pool, sealer=EventSealer(keyring("k2"))).read_stream(stream_id)
    with pytest.raises(UndecryptableKey, match="wrapped with key 'k1' does not decrypt"):
        await EventStore(db_pool, sealer=EventSealer(keyring("k1"))).read_stream(stream_id)


async def test_sealing_a_card_of_a_hand_without_a_data_key_appends_nothing(db_pool, stream_id):
    """A face-down card of a hand never started here or in the log: an error, never plaintext."""
    store = EventStore(db_pool, sealer=EventSealer(keyring()))
    with pytest.raises(Exception, match=f"{stream_id} hand 9: no data key"):
        await store.append(stream_id, 0, [dealt(9, 12, False)])
    assert await store.head(stream_id) == 0


async def test_a_running_server_stores_no_deck_no_seed_and_no_down_card(grpc_service, new_table, make_player):
    """The suite's own servers seal: after real hands, no HandStarted row holds its deck, no face-down
    CardDealt its card, and every hand's rows verify."""
    from stud_service.server.tables.live import stream_id_for

    table_id = await bots_play(new_table, make_player, hands=2)
    stream_id = stream_id_for(table_id)
    async with await psycopg.AsyncConnection.connect(grpc_service.database_url) as conn:
        cur = await conn.execute(
            "SELECT type, payload->'deck', payload->'card', payload->>'face_up', payload ? 'sealed'"
            " FROM events WHERE stream_id = %s AND type IN ('HandStarted', 'CardDealt')",
            (stream_id,),
        )
        rows = await cur.fetchall()
    starts = [row for row in rows if row[0] == "HandStarted"]
    assert starts and all(deck is None and sealed for _t, deck, _c, _f, sealed in starts)
    downs = [row for row in rows if row[0] == "CardDealt" and row[3] == "false"]
    assert downs and all(card is None and sealed for _t, _d, card, _f, sealed in downs)
    events = [e.payload for e in await grpc_service.store.read_stream(stream_id)]
    assert all(len(e["deck"]) == 52 for e in events if e["type"] == "HandStarted")
    assert (await grpc_service.store.verify(stream_id)).ok


async def bots_play(new_table, make_player, hands: int) -> str:
    """A new table where two bots play ``hands`` hands; its id."""
    from stud_service.bots import Bot, random_strategy

    table_id = await new_table()
    bots = [
        Bot(make_player(name), table_id, seat, strategy=random_strategy, seed=seat)
        for seat, name in enumerate(["sam", "sue"], start=1)
    ]
    for bot in bots:
        await bot.sit(10_000)
    await asyncio_gather_bounded([bot.run(hands) for bot in bots])
    return table_id


async def asyncio_gather_bounded(runs) -> None:
    import asyncio

    await asyncio.wait_for(asyncio.gather(*runs), timeout=60)


# The values the store's canonical JSON takes (no NUL, no lone surrogate): what an event may hold.
TEXT = st.characters(blacklist_characters="\x00", blacklist_categories=("Cs",))
JSON_LEAVES = st.one_of(st.none(), st.booleans(), st.integers(-(2**53), 2**53), st.text(TEXT, max_size=12))
JSON = st.recursive(
    JSON_LEAVES,
    lambda inner: st.one_of(
        st.lists(inner, max_size=4), st.dictionaries(st.text(TEXT, max_size=6), inner, max_size=4)
    ),
    max_leaves=12,
)


@st.composite
def payloads(draw) -> dict:
    hand = draw(st.integers(1, 2**31))
    kind = draw(st.sampled_from(["ShuffleCommitted", "HandStarted", "CardDealt", "Other"]))
    extra_fields = draw(
        st.dictionaries(
            st.text(TEXT, min_size=1, max_size=6).filter(
                lambda k: (
                    k
                    not in (
                        "type",
                        "hand",
                        "next_hand",
                        "sealed",
                        "deck",
                        "card",
                        "face_up",
                        "secret",
                        "extra",
                    )
                )
            ),
            JSON,
            max_size=3,
        )
    )
    if kind == "ShuffleCommitted":
        base = {"next_hand": hand, "secret": draw(JSON.filter(lambda v: v is not None))}
    elif kind == "HandStarted":
        extra = draw(st.dictionaries(st.text(TEXT, max_size=6), JSON, max_size=3))
        if draw(st.booleans()):
            extra["server_seed"] = draw(st.text(TEXT, min_size=1, max_size=64))
        base = {"hand": hand, "deck": draw(st.permutations(list(range(52)))), "extra": extra}
    elif kind == "CardDealt":
        base = {"hand": hand, "card": draw(st.integers(0, 51)), "face_up": draw(st.booleans())}
    else:
        base = {"hand": hand}
    return {"type": kind, **base, **extra_fields}


PROPERTY_KEYRING = keyring("prop")


@settings(max_examples=200, deadline=None)
@given(payload=payloads(), stream=st.text(TEXT, min_size=1, max_size=20))
def test_opening_a_sealed_payload_gives_it_back(payload, stream):
    # A sealer of its own per example: a shared one would hold higher hands of the same stream from
    # earlier examples and rightly forget this example's lower hand at once (it keeps the highest).
    sealer = EventSealer(PROPERTY_KEYRING)
    hand = payload.get("hand", payload.get("next_hand"))
    sealer.seal(stream, 1, commit(hand))  # the hand's data key, as its commitment makes it
    sealed = sealer.seal(stream, 2, payload)
    assert json.loads(json.dumps(sealed)) == sealed
    assert sealer.open(stream, 2, sealed) == payload
    assert EventSealer(PROPERTY_KEYRING).open(stream, 2, sealed) == payload  # a fresh process opens it too


async def test_snapshots_are_sealed_and_one_that_does_not_open_is_ignored(db_pool, stream_id):
    """A table's state may hold its last hand's deck: the snapshots table holds it sealed too."""
    store = EventStore(db_pool, sealer=EventSealer(keyring("k1")))
    events, deck, _seed = a_hand(1, random.Random(8))
    await store.append(stream_id, 0, events)
    state = {"hand": {"deck": deck, "number": 1}, "seats": [[1, "ann", 1000]]}
    await store.save_snapshot(stream_id, 6, 1, state)
    async with db_pool.connection() as conn:
        cur = await conn.execute("SELECT state::text FROM snapshots WHERE stream_id = %s", (stream_id,))
        (stored,) = await cur.fetchone()
    assert json.dumps(deck) not in stored and '"ann"' not in stored and "sealed_state" in stored
    assert (await store.latest_snapshot(stream_id, 1)).state == state
    other = EventStore(db_pool, sealer=EventSealer(keyring("k2")))  # k1 gone: replay from the events instead
    assert await other.latest_snapshot(stream_id, 1) is None


def test_the_data_key_cache_keeps_the_highest_hands_and_forgets_the_lowest():
    """The cache keeps the stream's highest hands: opening an older hand after newer ones does not push out
    a newer hand's key, and the lowest hand is the one forgotten."""
    sealer = EventSealer(keyring())
    sealed = {hand: sealer.seal("tables/t", hand, commit(hand)) for hand in (1, 2, 3, 4)}
    reader = EventSealer(sealer.keyring)
    for hand in (2, 3, 4, 1):
        assert reader.open("tables/t", hand, sealed[hand])["secret"] == {"server_seed": SEED}
    for hand in (2, 3, 4):
        assert "sealed" in reader.seal("tables/t", 9, dealt(hand, 5, False))
    with pytest.raises(NoDataKey, match="tables/t hand 1: no data key"):
        reader.seal("tables/t", 9, dealt(1, 5, False))


def test_opening_older_hands_never_takes_the_running_hands_key():
    """Issue: an auditor opening two older hands of a live table pushed out the running hand's key, and the
    table could not seal its next card. Hands 1..9 committed, 1..8 dealt; hands 3 and 6 read back."""
    sealer = EventSealer(keyring())
    stored: dict[int, list[tuple[int, dict]]] = {}
    version = 0
    for hand in range(1, 10):
        version += 1
        stored.setdefault(hand, []).append((version, sealer.seal("tables/t", version, commit(hand))))
        if hand > 1:
            version += 1
            stored[hand - 1].append((version, sealer.seal("tables/t", version, dealt(hand - 1, 7, False))))
    for hand in (3, 6):
        for at, payload in stored[hand]:
            sealer.open("tables/t", at, payload)
    for _ in range(2):
        version += 1
        assert "sealed" in sealer.seal("tables/t", version, dealt(8, 9, False))
    assert "sealed" in sealer.seal("tables/t", version + 1, started(9, list(range(52))))


async def test_recalling_keys_from_the_log_keeps_the_newest_hands(db_pool, stream_id):
    """A store that lost its keys (a restart, another replica) reads the stream's newest sealed events,
    newest first: the running hand's key is the one it keeps, not the oldest hands of that window."""
    rng = random.Random(8)
    writer = EventStore(db_pool, sealer=EventSealer(keyring()))
    version = 0
    for hand in range(1, 13):
        events, _deck, _seed = a_hand(hand, rng)
        await writer.append(stream_id, version, events)
        version += len(events)
    later = EventStore(db_pool, sealer=EventSealer(writer.sealer.keyring))
    await later.append(stream_id, version, [dealt(12, 40, False)])
    rows = await raw_rows(db_pool, stream_id)
    assert rows[-1][2]["sealed"]["key"] == rows[-7][2]["sealed"]["key"]  # hand 12's data key


async def test_a_tampered_box_is_data_loss_over_grpc_naming_the_hand_not_internal(
    grpc_service, new_table, make_player
):
    """A sealed deck altered in the database: the auditor's GetHand is DATA_LOSS / SEALED_DATA_UNREADABLE
    naming the stream and hand, never INTERNAL, and nothing of the hand is answered."""
    from stud_service.auth import Role
    from stud_service.bots import error_reason
    from stud_service.server.proto_gen import audit_service_pb2
    from stud_service.server.tables.live import stream_id_for

    table_id = await bots_play(new_table, make_player, hands=1)
    stream_id = stream_id_for(table_id)
    async with await psycopg.AsyncConnection.connect(grpc_service.database_url, autocommit=True) as conn:
        cur = await conn.execute(
            "SELECT version, payload FROM events WHERE stream_id = %s AND type = 'HandStarted' AND hand = 1",
            (stream_id,),
        )
        version, payload = await cur.fetchone()
        box = payload["sealed"]["box"]
        flipped = box[:20] + ("A" if box[20] != "A" else "B") + box[21:]
        payload["sealed"]["box"] = flipped
        await conn.execute(
            "UPDATE events SET payload = %s WHERE stream_id = %s AND version = %s",
            (Jsonb(payload), stream_id, version),
        )
    auditor = grpc_service.client("judge", Role.AUDITOR)
    with pytest.raises(grpc.aio.AioRpcError) as refused:
        await auditor.audit.GetHand(
            audit_service_pb2.GetHandRequest(name=f"tables/{table_id}/hands/1"), metadata=auditor.metadata
        )
    assert refused.value.code() == grpc.StatusCode.DATA_LOSS
    assert error_reason(refused.value) == "SEALED_DATA_UNREADABLE"
    assert stream_id in refused.value.details() and "hand 1" in refused.value.details()
    async def watch_from_the_start() -> None:  # a resumed watch replays the log from version 2 on
        async for _message in make_player("eve").watch(table_id, after_version=1):
            pass

    with pytest.raises(grpc.aio.AioRpcError) as watched:
        await asyncio.wait_for(watch_from_the_start(), timeout=30)
    assert watched.value.code() == grpc.StatusCode.DATA_LOSS
    assert error_reason(watched.value) == "SEALED_DATA_UNREADABLE"


async def test_a_box_swapped_between_seats_or_streets_of_its_hand_does_not_open(db_pool, stream_id):
    """A box opens only at its own place (stream, version and the event's fields in the clear): two
    face-down cards of one hand swapped between seats, or a box moved to another street, do not open, even
    with the hash chain made again over the swapped rows."""
    store = EventStore(db_pool, sealer=EventSealer(keyring()))
    events, deck, _seed = a_hand(1, random.Random(11))
    events[3] = dealt(1, deck[1], False, seat=2)  # the second down card goes to seat 2
    events.append({**dealt(1, deck[5], False), "street": 7})
    await store.append(stream_id, 0, events)
    rows = await raw_rows(db_pool, stream_id)
    reader = EventStore(db_pool, sealer=EventSealer(store.sealer.keyring))
    seat_one, seat_two, seventh = rows[2][2]["sealed"], rows[3][2]["sealed"], rows[6][2]["sealed"]
    await tamper(db_pool, stream_id, 3, ["sealed"], seat_two)
    await tamper(db_pool, stream_id, 4, ["sealed"], seat_one)
    with pytest.raises(TamperedBox, match=f"{stream_id} hand 1: the sealed CardDealt does not open"):
        await reader.read_stream(stream_id)
    await tamper(db_pool, stream_id, 3, ["sealed"], seat_one)
    await tamper(db_pool, stream_id, 4, ["sealed"], seat_two)
    assert [e.payload for e in await reader.read_stream(stream_id)] == events  # put back: opens again
    await tamper(db_pool, stream_id, 3, ["sealed"], seventh)  # seventh street's box into third street's
    with pytest.raises(TamperedBox, match=f"{stream_id} hand 1"):
        await reader.read_stream(stream_id)


def test_a_box_sealed_before_boxes_were_bound_to_their_place_still_opens():
    """Boxes written before (no ``v``: bound to stream, event type and hand) are read as they were."""
    ring = keyring()
    stream, hand, card = "tables/old", 3, dealt(3, 17, False)
    dek = new_key()
    wrapped = wrap_key(ring.key(ring.active), dek, dek_aad(ring.active, stream, hand))
    legacy = {**card, "card": None, "sealed": {
        "kid": ring.active, "key": wrapped,
        "box": seal_box(dek, {"card": 17}, box_aad_v1(stream, "CardDealt", hand))}}
    assert EventSealer(ring).open(stream, 40, legacy) == card
    assert EventSealer(ring).open(stream, 41, legacy) == card  # never bound to its version
    with pytest.raises(TamperedBox, match="unknown form"):
        EventSealer(ring).open(stream, 40, {**legacy, "sealed": {**legacy["sealed"], "v": 9}})
