"""Tampered logs fail verification loudly, with the version, and never pass (the audit issue).

Each test plays a few hands on a table of its own, stores them through the real event log, changes the
rows behind the store's back as an attacker with database access could, and verifies. The rows are
sealed (docs/keys.md); this attacker holds the keys too (``INSIDER``), reading and writing plaintext events.
Where the attacker would also recompute the hash chain, so does the test (``rehash``): the shuffle, replay
and chips checks, or an external checkpoint, must then catch what the chain no longer can.
"""

from __future__ import annotations

import json
import uuid

import pytest
from grpc_fixtures import TOKEN_SECRET, service_under_test
from psycopg.types.json import Jsonb
from sealing_keys import TEST_KEYRING

from stud_service.audit.checkpoint import make_checkpoint, verify_checkpoint
from stud_service.audit.errors import HandStillRunning
from stud_service.audit.fairness import check_shuffle
from stud_service.audit.history import FULL, PUBLIC, shuffle_evidence
from stud_service.audit.records import load_hand
from stud_service.audit.simulate import simulate_table, store_table
from stud_service.audit.verify import verify_hand
from stud_service.auth import Role, mint_token
from stud_service.deck_proof import DeckTree
from stud_service.engine import StartHand, Variant, decide
from stud_service.sealing import EventSealer
from stud_service.server.proto_gen import audit_service_pb2, audit_service_pb2_grpc
from stud_service.server.tables.settings import RuntimeSettings
from stud_service.shuffle import commitment, shuffle_deck
from stud_service.store import GENESIS_HASH, canonical_json, chain_hash

HANDS = 4
KEY = b"checkpoint-key-for-the-tests-0123456789"
INSIDER = EventSealer(TEST_KEYRING)


async def played_table(store, variant: Variant = Variant.STUD, seed: int = 5) -> str:
    table = simulate_table(f"tamper-{uuid.uuid4().hex[:10]}", variant, HANDS, seed=seed)
    await store_table(store, table)
    return table.table_id


async def rows(pool, table_id: str) -> list[tuple[int, dict]]:
    async with pool.connection() as conn:
        cursor = await conn.execute(
            "SELECT version, payload FROM events WHERE stream_id = %s ORDER BY version",
            (f"tables/{table_id}",),
        )
        return await cursor.fetchall()


async def set_payload(
    pool, table_id: str, version: int, payload: dict, key_from: tuple[int, dict] | None = None
) -> None:
    """Store ``payload`` at ``version``, sealed there as the service would seal it. The hand's data key is
    read from the row now at ``version``, or from ``key_from`` (a sealed row as it was, and its version)."""
    stream = f"tables/{table_id}"
    attacker = EventSealer(INSIDER.keyring)  # knows no hand yet: learns this one's key from the row
    async with pool.connection() as conn:
        if key_from is None:
            cursor = await conn.execute(
                "SELECT payload FROM events WHERE stream_id = %s AND version = %s", (stream, version)
            )
            key_from = (version, (await cursor.fetchone())[0])
        attacker.open(stream, *key_from)
        await conn.execute(
            "UPDATE events SET payload = %s WHERE stream_id = %s AND version = %s",
            (Jsonb(attacker.seal(stream, version, payload)), stream, version),
        )


async def rehash(pool, table_id: str) -> None:
    """Recompute the whole chain over the (tampered) payloads, as a careful attacker would."""
    prev = GENESIS_HASH
    async with pool.connection() as conn:
        for version, payload in await rows(pool, table_id):
            digest = chain_hash(prev, canonical_json(payload))
            await conn.execute(
                "UPDATE events SET prev_hash = %s, hash = %s WHERE stream_id = %s AND version = %s",
                (prev, digest, f"tables/{table_id}", version),
            )
            prev = digest


async def find(pool, table_id: str, hand: int, kind: str, nth: int = 0) -> tuple[int, dict]:
    opened = [(v, INSIDER.open(f"tables/{table_id}", v, p)) for v, p in await rows(pool, table_id)]
    found = [(v, p) for v, p in opened if p.get("hand") == hand and p["type"] == kind]
    return found[nth]


async def test_untouched_table_passes(event_store):
    table_id = await played_table(event_store)
    for hand in range(1, HANDS + 1):
        assert (await verify_hand(event_store, table_id, hand)).ok


async def test_payload_edit_fails_at_its_version(event_store, db_pool):
    table_id = await played_table(event_store)
    version, payload = await find(db_pool, table_id, 2, "AntePosted")
    await set_payload(db_pool, table_id, version, {**payload, "amount": payload["amount"] + 1})
    report = await verify_hand(event_store, table_id, 2)
    assert not report.ok and report.first_problem.check == "chain"
    assert report.first_problem.version == version


async def test_payload_edit_rehashed_fails_replay_and_chips(event_store, db_pool):
    table_id = await played_table(event_store)
    version, payload = await find(db_pool, table_id, 2, "HandEnded")
    stacks = [
        [seat, stack + (100 if index == 0 else 0)] for index, (seat, stack) in enumerate(payload["stacks"])
    ]
    await set_payload(db_pool, table_id, version, {**payload, "stacks": stacks})
    await rehash(db_pool, table_id)
    report = await verify_hand(event_store, table_id, 2)
    checks = {c.name: c for c in report.checks}
    assert checks["chain"].ok and not checks["replay"].ok and not checks["chips"].ok
    assert report.first_problem.version == version


async def test_deleted_event_fails(event_store, db_pool):
    table_id = await played_table(event_store)
    version, _ = await find(db_pool, table_id, 3, "CardDealt", nth=4)
    async with db_pool.connection() as conn:
        await conn.execute(
            "DELETE FROM events WHERE stream_id = %s AND version = %s", (f"tables/{table_id}", version)
        )
    report = await verify_hand(event_store, table_id, 3)
    assert not report.ok and report.first_problem.version == version
    assert "missing" in report.first_problem.message


async def test_deleted_hand_end_of_last_hand_is_named_by_a_checkpoint(event_store, db_pool):
    """Cutting the log's tail from the last hand's HandEnded on leaves a whole, shorter chain whose
    last hand looks unfinished: inside the database that cannot be told from a running hand. A
    signed checkpoint taken after the hand names the cut."""
    table_id = await played_table(event_store)
    checkpoint = await make_checkpoint(event_store, KEY, table_ids=[table_id])
    version, _ = await find(db_pool, table_id, HANDS, "HandEnded")
    async with db_pool.connection() as conn:
        await conn.execute(
            "DELETE FROM events WHERE stream_id = %s AND version >= %s", (f"tables/{table_id}", version)
        )
    with pytest.raises(HandStillRunning):
        await verify_hand(event_store, table_id, HANDS)
    report = await verify_checkpoint(event_store, checkpoint, KEY)
    assert not report.ok and "truncated" in report.findings[0].message


async def test_hand_end_cut_out_and_chain_remade_fails(event_store, db_pool):
    """The attacker deletes hand 2's last events, renumbers what follows and re-hashes: hand 2 now looks
    unfinished, but a later hand started, so verification fails instead of calling it running."""
    table_id = await played_table(event_store)
    stream = f"tables/{table_id}"
    version, _ = await find(db_pool, table_id, 2, "HandEnded")
    start_of_3, _ = await find(db_pool, table_id, 3, "HandStarted")
    cut = start_of_3 - version
    moved = [(v, raw) for v, raw in await rows(db_pool, table_id) if v >= start_of_3 and "sealed" in raw]
    async with db_pool.connection() as conn:
        await conn.execute(
            "DELETE FROM events WHERE stream_id = %s AND version >= %s AND version < %s",
            (stream, version, start_of_3),
        )
        await conn.execute(
            "UPDATE events SET version = version + 1000000 WHERE stream_id = %s AND version > %s",
            (stream, version),
        )
        await conn.execute(
            "UPDATE events SET version = version - 1000000 - %s WHERE stream_id = %s AND version > 1000000",
            (cut, stream),
        )
    for old, raw in moved:  # each box sealed again at its new place, as an attacker with the keys would
        await set_payload(db_pool, table_id, old - cut, INSIDER.open(stream, old, raw), key_from=(old, raw))
    await rehash(db_pool, table_id)
    assert (await event_store.verify(stream)).ok
    report = await verify_hand(event_store, table_id, 2)
    assert not report.ok and report.first_problem.version == version
    assert "never ended" in report.first_problem.message


async def test_running_hand_cannot_be_verified(event_store):
    table = simulate_table(f"tamper-{uuid.uuid4().hex[:10]}", Variant.STUD, 1, seed=3)
    deck = shuffle_deck()
    table.commands.append(decide(table.state, StartHand(deck.cards, deck.commitment, 1, {})))
    await store_table(event_store, table)
    with pytest.raises(HandStillRunning):
        await verify_hand(event_store, table.table_id, 2)


@pytest.mark.parametrize("rehashed", [False, True])
async def test_reordered_events_fail(event_store, db_pool, rehashed):
    table_id = await played_table(event_store)
    (v1, p1) = await find(db_pool, table_id, 2, "CardDealt", nth=0)
    (v2, p2) = await find(db_pool, table_id, 2, "CardDealt", nth=1)
    await set_payload(db_pool, table_id, v1, p2)
    await set_payload(db_pool, table_id, v2, p1)
    if rehashed:
        await rehash(db_pool, table_id)
    report = await verify_hand(event_store, table_id, 2)
    assert not report.ok and report.first_problem.version == v1
    assert report.first_problem.check == ("shuffle" if rehashed else "chain")


async def test_swapped_deck_fails_shuffle(event_store, db_pool):
    """The deck of HandStarted and the cards dealt from it are changed together; the seeds expose it."""
    table_id = await played_table(event_store)
    version, started = await find(db_pool, table_id, 1, "HandStarted")
    deck = list(started["deck"])
    deck[0], deck[1] = deck[1], deck[0]
    await set_payload(db_pool, table_id, version, {**started, "deck": deck})
    for nth in (0, 1):
        v, dealt = await find(db_pool, table_id, 1, "CardDealt", nth=nth)
        await set_payload(db_pool, table_id, v, {**dealt, "card": deck[nth]})
    await rehash(db_pool, table_id)
    report = await verify_hand(event_store, table_id, 1)
    checks = {c.name: c for c in report.checks}
    assert checks["chain"].ok and not checks["shuffle"].ok
    assert checks["shuffle"].problem.version == version


async def find_commitment(pool, table_id: str, hand: int) -> tuple[int, dict]:
    """The ShuffleCommitted of ``hand`` (a table event: no hand column)."""
    return next(
        (v, INSIDER.open(f"tables/{table_id}", v, p)) for v, p in await rows(pool, table_id)
        if p["type"] == "ShuffleCommitted" and p["next_hand"] == hand
    )


async def shuffle_fails(event_store, db_pool, table_id: str, version: int, words: str) -> None:
    """After the rehash: hand 2's first problem is the shuffle's, at ``version``, with ``words``."""
    await rehash(db_pool, table_id)
    report = await verify_hand(event_store, table_id, 2)
    assert report.first_problem.check == "shuffle" and report.first_problem.version == version
    assert words in report.first_problem.message


async def test_forged_seed_fails_shuffle(event_store, db_pool):
    table_id = await played_table(event_store)
    version, committed = await find_commitment(db_pool, table_id, 2)
    await set_payload(db_pool, table_id, version, {**committed, "secret": {"server_seed": bytes(32).hex()}})
    await shuffle_fails(event_store, db_pool, table_id, version, "commitment")


async def test_forged_seed_and_commitment_fail_shuffle(event_store, db_pool):
    """An attacker who also rewrites the commitment must then produce the deck root: they cannot."""
    table_id = await played_table(event_store)
    forged = bytes(range(32))
    v_commit, committed = await find_commitment(db_pool, table_id, 2)
    v_start, started = await find(db_pool, table_id, 2, "HandStarted")
    await set_payload(
        db_pool, table_id, v_commit,
        {**committed, "commitment": commitment(forged), "secret": {"server_seed": forged.hex()}},
    )
    await set_payload(db_pool, table_id, v_start, {**started, "commitment": commitment(forged)})
    await shuffle_fails(event_store, db_pool, table_id, v_start, "deck root")


async def test_forged_deck_root_fails_for_the_auditor_and_for_every_viewer(event_store, db_pool):
    """A root for another deck: the auditor's seed fixes another root; a viewer's proofs lead elsewhere."""
    table_id = await played_table(event_store)
    v_start, started = await find(db_pool, table_id, 2, "HandStarted")
    other = DeckTree.build(list(range(52)), bytes(32)).root_hex
    extra = {**started["extra"], "deck_root": other}
    await set_payload(db_pool, table_id, v_start, {**started, "extra": extra})
    await shuffle_fails(event_store, db_pool, table_id, v_start, "deck root")
    record = await load_hand(event_store, table_id, 2)
    problem = check_shuffle(shuffle_evidence(record, PUBLIC))
    assert problem is not None and "does not verify against the committed deck root" in problem.message
    assert f"proof of position {problem.index - 1} " in problem.message  # the first card it could see


async def test_commitment_of_another_hand_fails_the_order(event_store, db_pool):
    """HandStarted pointing at a later commitment (one made after the client seeds) is refused."""
    table_id = await played_table(event_store)
    v_start, started = await find(db_pool, table_id, 2, "HandStarted")
    later, _ = await find_commitment(db_pool, table_id, 3)
    extra = {**started["extra"], "commitment_version": later}
    await set_payload(db_pool, table_id, v_start, {**started, "extra": extra})
    await shuffle_fails(event_store, db_pool, table_id, v_start, f"version {later}")


async def test_rewritten_and_rehashed_chain_fails_against_a_checkpoint(event_store, db_pool, tmp_path):
    table_id = await played_table(event_store)
    checkpoint = await make_checkpoint(event_store, KEY, table_ids=[table_id])
    path = tmp_path / "checkpoint.json"
    path.write_text(json.dumps(checkpoint))
    assert (await verify_checkpoint(event_store, json.loads(path.read_text()), KEY)).ok
    entry = next(t for t in checkpoint["tables"] if t["table"] == table_id)
    # An edit that leaves every hand's own checks intact: a client seed recorded between hands.
    version, payload = next((v, p) for v, p in await rows(db_pool, table_id) if p["type"] == "PlayerSeated")
    await set_payload(db_pool, table_id, version, {**payload, "player_id": payload["player_id"] + "x"})
    await rehash(db_pool, table_id)
    assert (await event_store.verify(f"tables/{table_id}")).ok
    report = await verify_checkpoint(event_store, json.loads(path.read_text()), KEY)
    assert report.signature_ok and not report.ok
    assert [(f.table_id, f.version) for f in report.findings] == [(table_id, entry["version"])]


async def test_checkpoint_signature_is_checked(event_store):
    tables = [await played_table(event_store), await played_table(event_store)]
    checkpoint = await make_checkpoint(event_store, KEY, table_ids=tables)
    assert (await verify_checkpoint(event_store, checkpoint, KEY)).ok
    checkpoint["tables"] = checkpoint["tables"][:-1]
    report = await verify_checkpoint(event_store, checkpoint, KEY)
    assert not report.signature_ok and not report.ok
    signed = await make_checkpoint(event_store, KEY, table_ids=tables)
    assert not (await verify_checkpoint(event_store, signed, KEY + b"x")).ok


async def test_load_hand_reads_the_hand_range(event_store):
    table_id = await played_table(event_store)
    record = await load_hand(event_store, table_id, 2)
    assert record.events[0].type == "HandStarted" and record.complete
    assert {stored.hand for stored in record.events} <= {2, None}


async def test_down_cards_swapped_fail_the_auditors_verify_shuffle(event_store, db_pool, database_url):
    """Two face-down cards never shown, swapped in the log by an insider with the keys (each sealed again at
    its new place) and the chain made again: an auditor may see every card of a finished hand, so the
    auditor's VerifyShuffle checks every card against the seed and fails, as VerifyHand does."""
    table_id = await played_table(event_store)
    record = await load_hand(event_store, table_id, 2)
    shown = shuffle_evidence(record, PUBLIC).seen
    hidden = [nth for nth, card in enumerate(shuffle_evidence(record, FULL).dealt) if nth not in shown]
    (v1, p1), (v2, p2) = [await find(db_pool, table_id, 2, "CardDealt", nth=nth) for nth in hidden[:2]]
    assert p1["face_up"] is p2["face_up"] is False
    await set_payload(db_pool, table_id, v1, {**p1, "card": p2["card"]})
    await set_payload(db_pool, table_id, v2, {**p2, "card": p1["card"]})
    await rehash(db_pool, table_id)
    async with service_under_test(database_url, RuntimeSettings(auto_deal=False)) as service:
        audit = audit_service_pb2_grpc.AuditServiceStub(service.channel)
        auditor = [("authorization", f"Bearer {mint_token(TOKEN_SECRET, 'inspector', Role.AUDITOR)}")]
        reply = await audit.VerifyShuffle(
            audit_service_pb2.VerifyShuffleRequest(name=f"tables/{table_id}/hands/2"), metadata=auditor)
    assert not reply.passed and "is not the deck's card" in reply.message
    assert reply.cards_checked == len(shuffle_evidence(record, FULL).seen)
