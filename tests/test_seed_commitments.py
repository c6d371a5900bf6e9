"""Each hand's server seed is committed before any client seed for it (docs/fairness.md, "The specification"),
and the seed goes to auditors only, or to everyone once the operator's delayed public reveal has passed."""

from __future__ import annotations

import hashlib
import uuid

import pytest
from engine_helpers import Table
from grpc_fixtures import NEXT_HAND_PAUSE, service_under_test, table_spec
from test_audit_grpc import auth, play_out, stub

from stud_service.auth import Role
from stud_service.commands.serve import reveal_seeds_after
from stud_service.engine import CommitShuffle, CreateTable, NoTable, TableConfig, decide, execute
from stud_service.engine import initial_state as empty_table
from stud_service.engine.errors import MalformedCommand
from stud_service.server.proto_gen import audit_service_pb2
from stud_service.server.tables.settings import RuntimeSettings
from stud_service.shuffle import new_commitment


def test_rule_a_commitment_is_for_the_hand_after_the_last_one_dealt():
    server_seed, commitment = new_commitment()
    assert commitment == hashlib.sha256(server_seed).hexdigest()
    table = Table(stacks={1: 10_000, 2: 10_000})
    (event,) = table.run(CommitShuffle(commitment, {"server_seed": server_seed.hex()}, table.now))
    assert (event.next_hand, event.commitment) == (1, commitment)
    table.start(range(52))
    (event,) = table.run(CommitShuffle(commitment, {"server_seed": server_seed.hex()}, table.now))
    assert event.next_hand == 2  # hand 1 is running: the next commitment is hand 2's


@pytest.mark.parametrize("commitment", ["", "ab", "AB" * 32, "zz" * 32, "ab" * 33])
def test_rule_a_commitment_is_64_lowercase_hex_digits(commitment):
    _events, state = execute(empty_table(), CreateTable("t", TableConfig(), 0))
    with pytest.raises(MalformedCommand) as refused:
        decide(state, CommitShuffle(commitment, {}, 0))
    assert refused.value.reason == "MALFORMED_REQUEST"


def test_rule_no_commitment_without_a_table():
    with pytest.raises(NoTable):
        decide(empty_table(), CommitShuffle("ab" * 32, {}, 0))


@pytest.mark.parametrize(
    "text, seconds", [("off", None), ("", None), ("never", None), ("0", 0.0), ("30", 30.0)]
)
def test_the_reveal_setting_reads_seconds_or_off(text, seconds):
    assert reveal_seeds_after(text) == seconds


@pytest.mark.parametrize("text", ["-1", "soon", "inf", "nan"])
def test_a_bad_reveal_setting_is_refused(text):
    with pytest.raises(ValueError, match="--reveal-seeds-after"):
        reveal_seeds_after(text)


async def test_a_seed_is_the_auditors_unless_the_operator_reveals_it_after_a_delay(make_database):
    """The hand is played on a service without a public reveal, then its log is served again with the
    operator's reveal delay set: an hour (not yet public), then none (public at once)."""
    url = await make_database(migrated=True)
    table_id = f"reveal-{uuid.uuid4().hex[:8]}"
    name = f"tables/{table_id}/hands/1"
    request = audit_service_pb2.VerifyShuffleRequest(name=name)

    async with service_under_test(url, RuntimeSettings(next_hand_pause=NEXT_HAND_PAUSE)) as service:
        await service.client("house", Role.OPERATOR).create_table(table_id, table_spec())
        players = [service.client("ann"), service.client("bob")]
        for seat, player in enumerate(players, start=1):
            await player.sit_down(table_id, seat, 5_000)
        await play_out(players, table_id, 1)
        audit = stub(service.channel)
        audited = await audit.VerifyShuffle(request, metadata=auth("judge", Role.AUDITOR))
        assert audited.passed and len(audited.server_seed) == 64
        assert hashlib.sha256(bytes.fromhex(audited.server_seed)).hexdigest() == audited.deck_commitment
        for caller in ("eve", "ann"):  # a stranger, a player of the hand
            shown = await audit.VerifyShuffle(request, metadata=auth(caller))
            assert shown.passed and not shown.server_seed and not shown.HasField("public_reveal_time")
        hand = await audit.GetHand(audit_service_pb2.GetHandRequest(name=name), metadata=auth("ann"))
        assert not hand.server_seed and hand.deck_root == audited.deck_root

    served_again = RuntimeSettings(auto_deal=False)
    async with service_under_test(url, served_again, reveal_seeds_after=3600.0) as service:  # not yet
        later = await stub(service.channel).VerifyShuffle(request, metadata=auth("eve"))
        assert not later.server_seed and later.HasField("public_reveal_time")

    async with service_under_test(url, served_again, reveal_seeds_after=0.0) as service:  # public at once
        audit = stub(service.channel)
        public = await audit.VerifyShuffle(request, metadata=auth("eve"))
        assert public.passed and public.server_seed == audited.server_seed
        hand = await audit.GetHand(audit_service_pb2.GetHandRequest(name=name), metadata=auth("ann"))
        assert hand.server_seed == audited.server_seed
        delay_ms = later.public_reveal_time.ToMilliseconds() - public.public_reveal_time.ToMilliseconds()
        assert delay_ms == 3_600_000
