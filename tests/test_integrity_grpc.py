"""``AuditService.GetIntegrityReport`` over a real gRPC server on a database of its own, holding tables
played by colluding and honest bots (``integrity_tables``); and ``stud-service audit integrity``."""

from __future__ import annotations

import json

import grpc
import pytest
import pytest_asyncio
from google.protobuf import timestamp_pb2
from grpc_fixtures import service_under_test
from integrity_tables import COLLUDING, collusion_tables
from test_audit_grpc import auth, refused, stub
from test_player_sessions import listed
from test_same_network_seating import client_at

from stud_service.audit.simulate import store_table
from stud_service.auth import Role
from stud_service.cli import main
from stud_service.db import DatabaseSettings, open_database
from stud_service.server.proto_gen import audit_service_pb2, table_service_pb2
from stud_service.server.tables.settings import RuntimeSettings
from stud_service.store import EventStore

AUDITOR = auth("auditor-1", Role.AUDITOR)
HANDS = 200


async def _store(store, seed: int) -> None:
    for table in collusion_tables(seed, HANDS, prefix="grpc"):
        await store_table(store, table)


@pytest_asyncio.fixture
async def played_service(make_database):
    url = await make_database(migrated=True)
    async with service_under_test(url, RuntimeSettings()) as service:
        await _store(service.store, seed=11)
        yield service


async def test_an_auditor_gets_the_colluders_first(played_service):
    audit = stub(played_service.channel)
    report = await audit.GetIntegrityReport(audit_service_pb2.GetIntegrityReportRequest(page_size=4),
                                            metadata=AUDITOR)
    assert report.hands == 2 * HANDS and report.tables == 2 and report.players == 10
    assert report.events_in_log > report.events_read > 0 and not report.sessions_recorded
    assert len(report.pairs) == 4 and report.pair_count > 4 and report.flagged_count >= 2
    assert {tuple(pair.player_ids) for pair in report.pairs[:2]} == COLLUDING
    dumping = next(pair for pair in report.pairs if tuple(pair.player_ids) == ("dumper", "receiver"))
    assert (dumping.flow_from, dumping.flow_to) == ("dumper", "receiver") and dumping.net_flow > 0
    assert dumping.flagged and dumping.reasons and not dumping.HasField("sessions")
    assert [s.player_id for s in dumping.soft_play] == ["dumper", "receiver"] and len(dumping.timing) == 2
    operator = auth("op-1", Role.OPERATOR)
    mine = await audit.GetIntegrityReport(audit_service_pb2.GetIntegrityReportRequest(player_id="soft-1"),
                                          metadata=operator)
    assert mine.pairs and all("soft-1" in pair.player_ids for pair in mine.pairs)
    assert tuple(mine.pairs[0].player_ids) == ("soft-1", "soft-2")
    before = await audit.GetIntegrityReport(audit_service_pb2.GetIntegrityReportRequest(
        end_time=timestamp_pb2.Timestamp(seconds=946_684_800)), metadata=AUDITOR)
    assert before.hands == 0 and not before.pairs


async def test_a_player_and_a_stranger_are_refused(played_service):
    audit = stub(played_service.channel)
    request = audit_service_pb2.GetIntegrityReportRequest
    assert await refused(audit.GetIntegrityReport(request(), metadata=auth("soft-1"))) == (
        grpc.StatusCode.PERMISSION_DENIED, "AUDITOR_ONLY")
    code, _reason = await refused(audit.GetIntegrityReport(request()))
    assert code == grpc.StatusCode.UNAUTHENTICATED
    for bad in (request(page_size=-1), request(player_id="x" * 500),
                request(start_time=timestamp_pb2.Timestamp(seconds=-10**12))):
        assert await refused(audit.GetIntegrityReport(bad, metadata=AUDITOR)) == (
            grpc.StatusCode.INVALID_ARGUMENT, "MALFORMED_REQUEST")


@pytest_asyncio.fixture
async def played_database(make_database):
    url = await make_database(migrated=True)
    async with open_database(DatabaseSettings.resolve(url=url), max_size=2) as database:
        store = EventStore(database.pool)
        await _store(store, seed=5)
        await store.close()
    return url


def test_the_command_line_report_json_and_plots(capsys, played_database, tmp_path):
    plots = tmp_path / "pairs.png"
    argv = ["audit", "integrity", "--plots", str(plots), "--top", "5", "--database-url", played_database]
    code = main(argv)
    out = capsys.readouterr().out
    assert code == 1  # pairs are flagged
    assert "dumper & receiver" in out and "soft-1 & soft-2" in out and "FLAGGED" in out
    assert plots.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    code = main(["audit", "integrity", "--json", "--player", "receiver", "--database-url", played_database])
    document = json.loads(capsys.readouterr().out)
    assert document["pairs"][0]["players"] == ["dumper", "receiver"]
    assert all("receiver" in pair["players"] for pair in document["pairs"])
    assert document["pairs"][0]["chip_flow"]["from"] == "dumper"


@pytest.mark.parametrize("argv", [["--since", "yesterday"], ["--top", "0"]])
def test_the_command_line_refuses_bad_input(capsys, argv):
    assert main(["audit", "integrity", *argv, "--database-url", "postgresql://nowhere.invalid/x"]) == 2
    assert "stud-service audit integrity:" in capsys.readouterr().err


async def test_shared_networks_and_devices_come_from_the_recorded_sessions(played_service):
    """soft-1 and soft-2 play from one machine with one device id, both connected at once; honest-1 from
    another network (127.0.1.9, through a forwarder) and another device."""
    address, web_url = played_service.address, played_service.web_url
    async with (client_at(address, web_url, "grpc", "soft-1", "family-pc") as soft_1,
                client_at(address, web_url, "connect-json", "soft-2", "family-pc") as soft_2,
                client_at(address, web_url, "grpc", "honest-1", "own-phone", source="127.0.1.9") as honest_1):
        for client in (soft_1, soft_2, honest_1):
            await client.stub.ListTables(table_service_pb2.ListTablesRequest(), metadata=client.metadata)
        for player in ("soft-1", "soft-2", "honest-1"):
            await listed(played_service.channel, player)  # their starts are written in the background
        audit = stub(played_service.channel)
        report = await audit.GetIntegrityReport(audit_service_pb2.GetIntegrityReportRequest(page_size=1000),
                                                metadata=AUDITOR)
    assert report.sessions_recorded
    pairs = {tuple(pair.player_ids): pair for pair in report.pairs}
    soft = pairs[("soft-1", "soft-2")]
    assert (soft.sessions.shared_network_sessions, soft.sessions.shared_device_sessions) == (1, 1)
    assert {"sessions on the same network: 1", "sessions on the same device: 1"} <= set(soft.reasons)
    honest = pairs[("honest-1", "soft-1")]
    assert honest.HasField("sessions") and honest.sessions.shared_network_sessions == 0
    assert honest.sessions.shared_device_sessions == 0
