"""TableService's chat and latency-meter methods: what each does once TableService has checked the caller
(docs/chat.md). The engine decides every message (``stud_service.engine.chat``); here the caller's
identity and role become its command, and its reply says what the log now holds."""

from __future__ import annotations

import grpc

from stud_service.auth import Principal
from stud_service.engine import DeleteChat, MuteChat, SendChat
from stud_service.server.api.errors import RequestError, malformed
from stud_service.server.api.names import PLAYER_ID, TABLES
from stud_service.server.api.request_ids import request_key
from stud_service.server.api.round_trips import round_trip_proto
from stud_service.server.latency.meter import PingNotFound, RoundTripMeter
from stud_service.server.proto_gen import table_service_pb2
from stud_service.server.tables.runtime import TableRuntime

# The longest ping a heartbeat carries is 24 characters; an answer much longer is not one.
MAX_PING_CHARS = 64


async def send_chat(
    runtime: TableRuntime, player: str, principal: Principal, request: table_service_pb2.SendChatRequest
) -> table_service_pb2.SendChatResponse:
    table_id = TABLES.parse(request.name)
    written = await runtime.execute(
        table_id, lambda state, now: SendChat(player, request.text, now),
        request_id=request_key(principal, request),
    )
    return table_service_pb2.SendChatResponse(number=written.state.chat.messages, version=written.version)


async def mute_chat_player(
    runtime: TableRuntime, principal: Principal, request: table_service_pb2.MuteChatPlayerRequest
) -> table_service_pb2.MuteChatPlayerResponse:
    table_id = TABLES.parse(request.name)
    player = PLAYER_ID.check(request.player_id, "player_id")  # one a token could name
    written = await runtime.execute(
        table_id,
        lambda state, now: MuteChat(player, principal.player_id, request.reason, request.muted, now),
        request_id=request_key(principal, request),
    )
    return table_service_pb2.MuteChatPlayerResponse(version=written.version)


async def delete_chat_message(
    runtime: TableRuntime, principal: Principal, request: table_service_pb2.DeleteChatMessageRequest
) -> table_service_pb2.DeleteChatMessageResponse:
    table_id = TABLES.parse(request.name)
    written = await runtime.execute(
        table_id,
        lambda state, now: DeleteChat(request.number, principal.player_id, request.reason, now),
        request_id=request_key(principal, request),
    )
    return table_service_pb2.DeleteChatMessageResponse(version=written.version)


def answer_heartbeat(
    meter: RoundTripMeter, principal: Principal, request: table_service_pb2.AnswerHeartbeatRequest
) -> table_service_pb2.AnswerHeartbeatResponse:
    table_id = TABLES.parse(request.name)
    if not 0 < len(request.ping) <= MAX_PING_CHARS:
        raise malformed(f"ping must be the 1..{MAX_PING_CHARS} characters a heartbeat carried", "ping")
    try:
        measure = meter.answer(table_id, principal, request.ping)
    except PingNotFound as error:
        raise RequestError(grpc.StatusCode.NOT_FOUND, "PING_NOT_FOUND", str(error)) from None
    return table_service_pb2.AnswerHeartbeatResponse(round_trip=round_trip_proto(measure))
