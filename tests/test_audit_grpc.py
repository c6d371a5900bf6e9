"""``stud.v1.AuditService`` over a real gRPC server and PostgreSQL (the audit issue).

End to end: players send client seeds, the service's dealer shuffles with them and publishes the
commitment, the hand is played, HandEnded and every player's view reveal the server seed, and the
API's verification passes.  Then the refusals: running hand -> FAILED_PRECONDITION, a stranger ->
PERMISSION_DENIED, players cannot verify or replay in full.
"""

from __future__ import annotations

import asyncio
import uuid

import grpc
import pytest
from grpc_fixtures import TOKEN_SECRET, table_spec

from stud_service.audit.simulate import simulate_table, store_table
from stud_service.auth import Role, mint_token
from stud_service.bots.client import StudClient
from stud_service.deck_proof import CardProof, check_card_proof
from stud_service.engine import Variant
from stud_service.server.api.errors import error_info
from stud_service.server.proto_gen import audit_service_pb2, audit_service_pb2_grpc, table_pb2
from stud_service.shuffle import commitment


def stub(channel) -> audit_service_pb2_grpc.AuditServiceStub:
    return audit_service_pb2_grpc.AuditServiceStub(channel)


def auth(player: str, role: Role = Role.PLAYER) -> list[tuple[str, str]]:
    return [("authorization", f"Bearer {mint_token(TOKEN_SECRET, player, role)}")]


async def refused(call) -> tuple[grpc.StatusCode, str | None]:
    with pytest.raises(grpc.aio.AioRpcError) as caught:
        await call
    return caught.value.code(), (info.reason if (info := error_info(caught.value)) else None)


async def play_out(clients: list[StudClient], table_id: str, hand_number: int) -> table_pb2.TableView:
    """Play hand ``hand_number`` out passively; a view once it is over (the next hand may have started by
    the time a loaded machine looks: that view is returned then)."""
    passive = (table_pb2.ACTION_TYPE_BRING_IN, table_pb2.ACTION_TYPE_CHECK, table_pb2.ACTION_TYPE_CALL)
    async with asyncio.timeout(120):
        while True:
            view = await clients[0].view(table_id)
            if view.hand.hand_number > hand_number or (view.hand.hand_number == hand_number
                                                       and view.hand.complete):
                return view
            for client in clients:
                mine = await client.view(table_id)
                if mine.legal_actions and mine.hand.hand_number == hand_number:
                    action = next(a for a in mine.legal_actions if a.type in passive)
                    await client.act(table_id, mine.viewer_seat, action.type, action.amount, mine.turn)
            await asyncio.sleep(0.01)


async def test_client_seeds_commitment_reveal_and_verification_end_to_end(
    grpc_service, operator
):
    table_id = f"t-{uuid.uuid4().hex[:12]}"
    await operator.create_table(table_id, table_spec(variant=table_pb2.VARIANT_RAZZ))
    alice, bob = grpc_service.client("alice"), grpc_service.client("bob")
    audit = stub(grpc_service.channel)
    await alice.sit_down(table_id, 1, 10_000)
    # A seed for the next hand; the hand starts once bob sits down.
    await audit.SetClientSeed(
        audit_service_pb2.SetClientSeedRequest(name=f"tables/{table_id}", seed="alice's lucky seed"),
        metadata=auth("alice"),
    )
    await bob.sit_down(table_id, 2, 10_000)
    view = await play_out([alice, bob], table_id, 1)
    name = f"tables/{table_id}/hands/1"
    # No player's view reveals the seed: it would give away every card never shown.
    assert not view.hand.server_seed and view.hand.deck_commitment

    shuffle = await audit.VerifyShuffle(
        audit_service_pb2.VerifyShuffleRequest(name=name), metadata=auth("bob")
    )
    assert shuffle.passed and not shuffle.server_seed and len(shuffle.deck_root) == 64
    assert dict(shuffle.client_seeds) == {1: "alice's lucky seed"}
    assert shuffle.cards_checked >= 8  # bob's own down cards and every up card
    assert shuffle.commitment_version < shuffle.client_seed_versions[0] < shuffle.hand_started_version
    # Bob checks each proof himself against the root; together they are exactly the cards he saw.
    proofs = [
        CardProof(p.position, p.card, bytes.fromhex(p.salt), tuple(bytes.fromhex(n) for n in p.path))
        for p in shuffle.proofs
    ]
    assert all(check_card_proof(proof, shuffle.deck_root) for proof in proofs)
    assert len(proofs) == shuffle.cards_checked

    audited = await audit.VerifyShuffle(
        audit_service_pb2.VerifyShuffleRequest(name=name), metadata=auth("eve", Role.AUDITOR)
    )
    assert audited.passed and commitment(bytes.fromhex(audited.server_seed)) == shuffle.deck_commitment

    report = await audit.VerifyHand(
        audit_service_pb2.VerifyHandRequest(name=name), metadata=auth("eve", Role.AUDITOR)
    )
    assert report.passed and [c.check for c in report.checks] == ["chain", "shuffle", "replay", "chips"]

    hand = await audit.GetHand(audit_service_pb2.GetHandRequest(name=name), metadata=auth("alice"))
    started = hand.events[0].hand_started
    assert not started.deck and not started.server_seed and started.commitment
    dealt = [e.card_dealt for e in hand.events if e.HasField("card_dealt")]
    hidden = [e for e in dealt if e.hidden]
    assert hidden and all(e.seat == 2 and e.card == 0 for e in hidden)  # bob's down cards, unless shown
    assert not hand.server_seed and hand.deck_root == shuffle.deck_root and hand.summary.complete

    full = await audit.GetHand(
        audit_service_pb2.GetHandRequest(name=name), metadata=auth("eve", Role.AUDITOR)
    )
    assert len(full.events[0].hand_started.deck) == 52 and full.server_seed == audited.server_seed
    assert not any(e.card_dealt.hidden for e in full.events)

    listed = await audit.ListHands(
        audit_service_pb2.ListHandsRequest(parent=f"tables/{table_id}"), metadata=auth("alice")
    )
    assert [h.name for h in listed.hands][:1] == [name]


async def test_refusals(grpc_service):
    table = simulate_table(f"grpc-{uuid.uuid4().hex[:10]}", Variant.STUD, 2, seed=9)
    await store_table(grpc_service.store, table)  # the log the server reads
    audit = stub(grpc_service.channel)
    name = f"tables/{table.table_id}/hands/1"
    stranger = auth("mallory")
    player = table.state.hand is None and next(iter(table.state.seats.values())).player_id
    code, reason = await refused(
        audit.GetHand(audit_service_pb2.GetHandRequest(name=name), metadata=stranger)
    )
    assert (code, reason) == (grpc.StatusCode.PERMISSION_DENIED, "NOT_YOUR_HAND")
    code, reason = await refused(
        audit.ListHands(audit_service_pb2.ListHandsRequest(player_id="somebody"), metadata=stranger)
    )
    assert code == grpc.StatusCode.PERMISSION_DENIED
    code, reason = await refused(
        audit.VerifyHand(audit_service_pb2.VerifyHandRequest(name=name), metadata=auth(player))
    )
    assert (code, reason) == (grpc.StatusCode.PERMISSION_DENIED, "AUDITOR_ONLY")
    code, _ = await refused(
        audit.GetHand(
            audit_service_pb2.GetHandRequest(name=f"tables/{table.table_id}/hands/3"),
            metadata=auth("eve", Role.AUDITOR),
        )
    )
    assert code == grpc.StatusCode.NOT_FOUND
    code, _ = await refused(
        audit.GetHand(audit_service_pb2.GetHandRequest(name="hands/1"), metadata=stranger)
    )
    assert code == grpc.StatusCode.INVALID_ARGUMENT
    code, _ = await refused(audit.GetHand(audit_service_pb2.GetHandRequest(name=name)))
    assert code == grpc.StatusCode.UNAUTHENTICATED


async def test_running_hand_is_not_revealed(grpc_service, operator):
    table_id = f"t-{uuid.uuid4().hex[:12]}"
    await operator.create_table(table_id, table_spec())
    alice, bob = grpc_service.client("alice"), grpc_service.client("bob")
    await alice.sit_down(table_id, 1, 10_000)
    await bob.sit_down(table_id, 2, 10_000)
    for _ in range(3000):
        if (await alice.view(table_id)).hand.hand_number == 1:
            break
        await asyncio.sleep(0.01)
    audit = stub(grpc_service.channel)
    name = f"tables/{table_id}/hands/1"
    for call in (
        audit.GetHand(audit_service_pb2.GetHandRequest(name=name), metadata=auth("eve", Role.AUDITOR)),
        audit.ExportHandHistory(
            audit_service_pb2.ExportHandHistoryRequest(name=name), metadata=auth("alice")
        ),
        audit.VerifyShuffle(audit_service_pb2.VerifyShuffleRequest(name=name), metadata=auth("alice")),
        audit.VerifyHand(audit_service_pb2.VerifyHandRequest(name=name), metadata=auth("eve", Role.AUDITOR)),
    ):
        assert await refused(call) == (grpc.StatusCode.FAILED_PRECONDITION, "HAND_RUNNING")


async def test_exports_and_replays_by_role(grpc_service):
    table = simulate_table(f"grpc-{uuid.uuid4().hex[:10]}", Variant.STUD_HI_LO, 3, seed=12)
    await store_table(grpc_service.store, table)  # the log the server reads
    audit = stub(grpc_service.channel)
    name = f"tables/{table.table_id}/hands/2"
    auditor = auth("eve", Role.AUDITOR)
    phh = await audit.ExportHandHistory(
        audit_service_pb2.ExportHandHistoryRequest(name=name), metadata=auditor
    )
    assert phh.text.startswith('variant = "F7S/8"')
    text = await audit.ExportHandHistory(
        audit_service_pb2.ExportHandHistoryRequest(
            name=name, format=audit_service_pb2.HISTORY_FORMAT_POKERSTARS
        ),
        metadata=auditor,
    )
    assert text.text.startswith("PokerStars Hand #")
    replay = await audit.ReplayHand(
        audit_service_pb2.ReplayHandRequest(name=name, view=audit_service_pb2.REPLAY_VIEW_FULL),
        metadata=auditor,
    )
    assert replay.steps[-1].event.HasField("hand_ended")
    seated = replay.steps[0].event.hand_started.players[0].player_id
    code, reason = await refused(
        audit.ReplayHand(
            audit_service_pb2.ReplayHandRequest(name=name, view=audit_service_pb2.REPLAY_VIEW_FULL),
            metadata=auth(seated),
        )
    )
    assert (code, reason) == (grpc.StatusCode.PERMISSION_DENIED, "AUDITOR_ONLY")
    mine = await audit.ReplayHand(audit_service_pb2.ReplayHandRequest(name=name), metadata=auth(seated))
    assert len(mine.steps) == len(replay.steps)
    # Each step holds the table after its event: every seat's down cards in the full view, only the
    # player's own (and hands shown) in theirs.
    own_seat = replay.steps[0].event.hand_started.players[0].seat
    others_hidden = 0
    for full_step, own_step in zip(replay.steps, mine.steps, strict=True):
        assert full_step.state.version == own_step.state.version == full_step.event.version
        for full_view, own_view in zip(full_step.state.seats, own_step.state.seats, strict=True):
            assert full_view.hidden_down_cards == 0
            assert len(own_view.down_cards) + own_view.hidden_down_cards == len(full_view.down_cards)
            if own_view.seat == own_seat or own_view.shown:
                assert own_view.down_cards == full_view.down_cards
            else:
                assert not own_view.down_cards
                others_hidden += own_view.hidden_down_cards
    assert others_hidden > 0
