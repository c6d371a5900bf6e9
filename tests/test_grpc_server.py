"""The gRPC server's scaffolding: health checking, reflection, TLS, rich error statuses, graceful stop."""

from __future__ import annotations

import asyncio
from pathlib import Path

import grpc
import pytest
from grpc_health.v1 import health_pb2, health_pb2_grpc
from grpc_reflection.v1alpha import reflection_pb2, reflection_pb2_grpc

from stud_service.engine.errors import IllegalAmount, NotYourTurn
from stud_service.server.api.errors import RequestError, abort_with, error_info, status_for
from stud_service.server.grpc.app import TABLE_SERVICE_NAME, TlsFiles, start_server
from stud_service.server.proto_gen import table_pb2, table_service_pb2, table_service_pb2_grpc


class RefusingTables(table_service_pb2_grpc.TableServiceServicer):
    """Refuses GetTable with the engine's NOT_YOUR_TURN; a slow GetTableView stands for an in-flight call."""

    async def GetTable(self, request, context):
        await abort_with(context, status_for(NotYourTurn("seat 3 is to act")))

    async def GetTableView(self, request, context):
        await asyncio.sleep(0.5)
        return table_pb2.TableView(version=7)


async def test_health_reports_serving_for_the_server_and_the_table_service() -> None:
    running = await start_server(RefusingTables(), "127.0.0.1:0")
    try:
        async with grpc.aio.insecure_channel(f"127.0.0.1:{running.port}") as channel:
            stub = health_pb2_grpc.HealthStub(channel)
            for service in ("", TABLE_SERVICE_NAME):
                reply = await stub.Check(health_pb2.HealthCheckRequest(service=service))
                assert reply.status == health_pb2.HealthCheckResponse.SERVING
    finally:
        await running.shutdown(0)


async def test_reflection_lists_the_table_service() -> None:
    running = await start_server(RefusingTables(), "127.0.0.1:0")
    try:
        async with grpc.aio.insecure_channel(f"127.0.0.1:{running.port}") as channel:
            stub = reflection_pb2_grpc.ServerReflectionStub(channel)
            request = reflection_pb2.ServerReflectionRequest(list_services="")
            replies = [reply async for reply in stub.ServerReflectionInfo(iter([request]))]
            names = {service.name for service in replies[0].list_services_response.service}
            assert {"stud.v1.TableService", "grpc.health.v1.Health"} <= names
    finally:
        await running.shutdown(0)


async def test_a_domain_error_arrives_with_its_canonical_code_and_error_info_reason() -> None:
    running = await start_server(RefusingTables(), "127.0.0.1:0")
    try:
        async with grpc.aio.insecure_channel(f"127.0.0.1:{running.port}") as channel:
            stub = table_service_pb2_grpc.TableServiceStub(channel)
            with pytest.raises(grpc.aio.AioRpcError) as caught:
                await stub.GetTable(table_service_pb2.GetTableRequest(name="tables/x"))
            assert caught.value.code() == grpc.StatusCode.FAILED_PRECONDITION
            info = error_info(caught.value)
            assert info is not None and (info.reason, info.domain) == ("NOT_YOUR_TURN", "stud-service")
    finally:
        await running.shutdown(0)


def test_status_mapping_of_each_kind_of_refusal() -> None:
    assert status_for(IllegalAmount("no", (20,))).code == grpc.StatusCode.INVALID_ARGUMENT
    stale = RequestError(grpc.StatusCode.FAILED_PRECONDITION, "STALE_TURN", "old")
    assert status_for(stale).code == grpc.StatusCode.FAILED_PRECONDITION
    assert status_for(KeyError("secret detail")).details == "internal error"


async def test_graceful_shutdown_reports_not_serving_and_lets_in_flight_calls_finish() -> None:
    running = await start_server(RefusingTables(), "127.0.0.1:0")
    async with grpc.aio.insecure_channel(f"127.0.0.1:{running.port}") as channel:
        stub = table_service_pb2_grpc.TableServiceStub(channel)
        in_flight = asyncio.ensure_future(stub.GetTableView(table_service_pb2.GetTableViewRequest(name="t")))
        await asyncio.sleep(0.1)
        stopping = asyncio.ensure_future(running.shutdown(grace=5))
        await asyncio.sleep(0.05)
        status = await running.health.Check(health_pb2.HealthCheckRequest(service=""), None)
        assert status.status == health_pb2.HealthCheckResponse.NOT_SERVING
        assert (await in_flight).version == 7
        await stopping


async def test_tls_when_given_a_certificate_and_key(self_signed: TlsFiles) -> None:
    running = await start_server(RefusingTables(), "127.0.0.1:0", tls=self_signed)
    try:
        credentials = grpc.ssl_channel_credentials(root_certificates=Path(self_signed.cert_file).read_bytes())
        async with grpc.aio.secure_channel(f"localhost:{running.port}", credentials) as channel:
            reply = await health_pb2_grpc.HealthStub(channel).Check(health_pb2.HealthCheckRequest())
            assert reply.status == health_pb2.HealthCheckResponse.SERVING
        async with grpc.aio.insecure_channel(f"127.0.0.1:{running.port}") as plain:
            with pytest.raises(grpc.aio.AioRpcError):
                await health_pb2_grpc.HealthStub(plain).Check(health_pb2.HealthCheckRequest(), timeout=2)
    finally:
        await running.shutdown(0)
