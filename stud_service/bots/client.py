"""A small authenticated client of the ``stud.v1`` services (public API only)."""

from __future__ import annotations

import asyncio
import uuid
from collections.abc import AsyncIterator, Callable, Sequence
from typing import TYPE_CHECKING

import grpc

from stud_service.server.api.errors import error_info
from stud_service.server.proto_gen import (
    account_pb2,
    audit_service_pb2,
    audit_service_pb2_grpc,
    cashier_service_pb2,
    cashier_service_pb2_grpc,
    events_pb2,
    player_protection_service_pb2,
    player_protection_service_pb2_grpc,
    table_pb2,
    table_service_pb2,
    table_service_pb2_grpc,
    tournament_service_pb2,
    tournament_service_pb2_grpc,
)

if TYPE_CHECKING:
    from stud_service.bots.connect_stub import Codec, Protocol, WebChannel

# Channel options for a connection of its own: gRPC's C core otherwise carries all of a process's channels
# to one address (with the same arguments) on one HTTP/2 connection, as one client; these are separate ones.
OWN_CONNECTION = (("grpc.use_local_subchannel_pool", 1),)


def error_reason(error: grpc.RpcError) -> str | None:
    """The ErrorInfo reason of a refused call, a stud.v1.ErrorReason name (NOT_YOUR_TURN, STALE_TURN, ...)."""
    info = error_info(error)
    return info.reason if info is not None else None


def new_request_id() -> str:
    return uuid.uuid4().hex


def account_name(player_id: str, currency: str = "USD") -> str:
    return f"players/{player_id}/accounts/{currency}"


async def wait_until_serving(
    address: str, timeout: float = 30.0, still_running: Callable[[], bool] = lambda: True
) -> None:
    """Wait until the server at ``address`` reports SERVING on the standard health service.

    RuntimeError as soon as ``still_running()`` says the server is gone; TimeoutError after ``timeout``.
    """
    from grpc_health.v1 import health_pb2, health_pb2_grpc

    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    async with grpc.aio.insecure_channel(address) as channel:
        health = health_pb2_grpc.HealthStub(channel)
        while True:
            if not still_running():
                raise RuntimeError(f"the server at {address} exited before serving")
            try:
                reply = await health.Check(health_pb2.HealthCheckRequest(), timeout=1)
                if reply.status == health_pb2.HealthCheckResponse.SERVING:
                    return
            except grpc.aio.AioRpcError:
                pass
            if loop.time() > deadline:
                raise TimeoutError(f"the server at {address} did not start serving")
            await asyncio.sleep(0.1)


class StudClient:
    """One player's (or operator's) connection: every call carries its bearer token, and its device id if
    given (``x-stud-device-id``, docs/clients.md).

    ``channel``: a gRPC channel to the service's port, or a ``connect_stub.WebChannel`` to its web port
    (the same calls over Connect or gRPC-Web; see :meth:`over_web`)."""

    def __init__(self, channel: grpc.aio.Channel | WebChannel, token: str | None,
                 device_id: str | None = None) -> None:
        self.channel = channel
        self.device_id = device_id
        if isinstance(channel, grpc.aio.Channel):
            self.stub = table_service_pb2_grpc.TableServiceStub(channel)
            self.cashier = cashier_service_pb2_grpc.CashierServiceStub(channel)
            self.audit = audit_service_pb2_grpc.AuditServiceStub(channel)
            self.protection = player_protection_service_pb2_grpc.PlayerProtectionServiceStub(channel)
            self.tournaments = tournament_service_pb2_grpc.TournamentServiceStub(channel)
        else:
            self.stub = channel.stub(table_service_pb2.DESCRIPTOR.services_by_name["TableService"])
            self.cashier = channel.stub(cashier_service_pb2.DESCRIPTOR.services_by_name["CashierService"])
            self.audit = channel.stub(audit_service_pb2.DESCRIPTOR.services_by_name["AuditService"])
            self.protection = channel.stub(
                player_protection_service_pb2.DESCRIPTOR.services_by_name["PlayerProtectionService"]
            )
            self.tournaments = channel.stub(
                tournament_service_pb2.DESCRIPTOR.services_by_name["TournamentService"])
        self.use_token(token)

    def use_token(self, token: str | None) -> None:
        """Send ``token`` with every call from now on (a renewed one, before the old one expires)."""
        device = (("x-stud-device-id", self.device_id),) if self.device_id is not None else ()
        self.metadata = ((("authorization", f"Bearer {token}"),) if token is not None else ()) + device

    @classmethod
    def over_web(cls, base_url: str, token: str | None, protocol: Protocol = "connect",
                 codec: Codec = "json", device_id: str | None = None) -> StudClient:
        """A client of the web port at ``base_url`` ("http://host:port"): Connect or gRPC-Web, JSON or
        binary; refusals raise ``grpc.aio.AioRpcError`` with the same ErrorInfo as over gRPC."""
        from stud_service.bots.connect_stub import WebChannel  # the Connect client only when used

        return cls(WebChannel(base_url, protocol, codec), token, device_id)

    async def create_table(self, table_id: str, table: table_pb2.Table,
                           request_id: str | None = None) -> table_pb2.Table:
        return await self.stub.CreateTable(
            table_service_pb2.CreateTableRequest(table=table, table_id=table_id,
                                                 request_id=request_id or new_request_id()),
            metadata=self.metadata,
        )

    async def get_table(self, table_id: str) -> table_pb2.Table:
        return await self.stub.GetTable(table_service_pb2.GetTableRequest(name=f"tables/{table_id}"),
                                        metadata=self.metadata)

    async def view(self, table_id: str) -> table_pb2.TableView:
        return await self.stub.GetTableView(table_service_pb2.GetTableViewRequest(name=f"tables/{table_id}"),
                                            metadata=self.metadata)

    async def sit_down(self, table_id: str, seat: int, buy_in: int,
                       request_id: str | None = None) -> table_pb2.TableView:
        reply = await self.stub.SitDown(
            table_service_pb2.SitDownRequest(name=f"tables/{table_id}", seat=seat, buy_in=buy_in,
                                             request_id=request_id or new_request_id()),
            metadata=self.metadata,
        )
        return reply.view

    async def deposit(self, player_id: str, amount: int, currency: str = "USD",
                      reference: str | None = None) -> cashier_service_pb2.DepositResponse:
        """An operator's deposit into ``player_id``'s account (the payment reference made up if not given)."""
        return await self.cashier.Deposit(
            cashier_service_pb2.DepositRequest(
                account=account_name(player_id, currency), amount=amount, currency_code=currency,
                payment_reference=reference or f"pay-{new_request_id()}", request_id=new_request_id()),
            metadata=self.metadata,
        )

    async def account(self, player_id: str, currency: str = "USD") -> account_pb2.Account:
        return await self.cashier.GetAccount(
            cashier_service_pb2.GetAccountRequest(name=account_name(player_id, currency)),
            metadata=self.metadata,
        )

    async def leave(self, table_id: str) -> table_pb2.TableView:
        reply = await self.stub.Leave(
            table_service_pb2.LeaveRequest(name=f"tables/{table_id}", request_id=new_request_id()),
            metadata=self.metadata,
        )
        return reply.view

    async def list_tables(
        self, page_size: int = 0, page_token: str = ""
    ) -> table_service_pb2.ListTablesResponse:
        """The lobby: public, so a client without a token may call it too."""
        return await self.stub.ListTables(
            table_service_pb2.ListTablesRequest(page_size=page_size, page_token=page_token),
            metadata=self.metadata,
        )

    async def join_waiting_list(self, table_id: str) -> table_pb2.TableView:
        reply = await self.stub.JoinWaitingList(
            table_service_pb2.JoinWaitingListRequest(name=f"tables/{table_id}", request_id=new_request_id()),
            metadata=self.metadata,
        )
        return reply.view

    async def leave_waiting_list(self, table_id: str) -> table_pb2.TableView:
        reply = await self.stub.LeaveWaitingList(
            table_service_pb2.LeaveWaitingListRequest(name=f"tables/{table_id}", request_id=new_request_id()),
            metadata=self.metadata,
        )
        return reply.view

    async def sit_out(self, table_id: str) -> table_pb2.TableView:
        reply = await self.stub.SitOut(
            table_service_pb2.SitOutRequest(name=f"tables/{table_id}", request_id=new_request_id()),
            metadata=self.metadata,
        )
        return reply.view

    async def sit_in(self, table_id: str) -> table_pb2.TableView:
        reply = await self.stub.SitIn(
            table_service_pb2.SitInRequest(name=f"tables/{table_id}", request_id=new_request_id()),
            metadata=self.metadata,
        )
        return reply.view

    async def top_up(self, table_id: str, amount: int) -> table_pb2.TableView:
        reply = await self.stub.TopUp(
            table_service_pb2.TopUpRequest(name=f"tables/{table_id}", amount=amount,
                                           request_id=new_request_id()),
            metadata=self.metadata,
        )
        return reply.view

    async def act(self, table_id: str, seat: int, action: int, amount: int, turn: int,
                  request_id: str | None = None) -> table_pb2.TableView:
        """``turn``: the TableView.turn the choice was made in."""
        reply = await self.stub.Act(
            table_service_pb2.ActRequest(
                name=f"tables/{table_id}", seat=seat, action=action, amount=amount,
                turn=turn, request_id=request_id or new_request_id(),
            ),
            metadata=self.metadata,
        )
        return reply.view

    # -- an operator's controls (RULES.md §12, docs/operators.md) ---------------------------------------

    async def pause_table(self, table_id: str, reason: str, request_id: str | None = None) -> table_pb2.Table:
        return await self.stub.PauseTable(
            table_service_pb2.PauseTableRequest(name=f"tables/{table_id}", reason=reason,
                                                request_id=request_id or new_request_id()),
            metadata=self.metadata,
        )

    async def resume_table(self, table_id: str, reason: str,
                           request_id: str | None = None) -> table_pb2.Table:
        return await self.stub.ResumeTable(
            table_service_pb2.ResumeTableRequest(name=f"tables/{table_id}", reason=reason,
                                                 request_id=request_id or new_request_id()),
            metadata=self.metadata,
        )

    async def close_table(self, table_id: str, reason: str, request_id: str | None = None) -> table_pb2.Table:
        return await self.stub.CloseTable(
            table_service_pb2.CloseTableRequest(name=f"tables/{table_id}", reason=reason,
                                                request_id=request_id or new_request_id()),
            metadata=self.metadata,
        )

    async def void_hand(self, table_id: str, hand: int, reason: str,
                        request_id: str | None = None) -> table_pb2.Table:
        return await self.stub.VoidHand(
            table_service_pb2.VoidHandRequest(name=f"tables/{table_id}/hands/{hand}", reason=reason,
                                              request_id=request_id or new_request_id()),
            metadata=self.metadata,
        )

    async def update_table_settings(
        self, table_id: str, reason: str, request_id: str | None = None, **settings: object
    ) -> table_pb2.Table:
        """``settings``: UpdateTableSettingsRequest fields (``display_name="x"``, ``action_clock=...``)."""
        request = table_service_pb2.UpdateTableSettingsRequest(
            name=f"tables/{table_id}", reason=reason, request_id=request_id or new_request_id(), **settings)
        return await self.stub.UpdateTableSettings(request, metadata=self.metadata)

    def watch(self, table_id: str, after_version: int = 0, include_views: bool = False,
              batch_events: bool = False,
              heartbeat_seconds: int = 0) -> AsyncIterator[table_service_pb2.WatchTableResponse]:
        """The table's watch stream; read a message's events with :func:`events_of` in either mode."""
        return self.stub.WatchTable(
            table_service_pb2.WatchTableRequest(name=f"tables/{table_id}", after_version=after_version,
                                                include_views=include_views, batch_events=batch_events,
                                                heartbeat_seconds=heartbeat_seconds),
            metadata=self.metadata,
        )

    async def send_chat(self, table_id: str, text: str,
                        request_id: str | None = None) -> table_service_pb2.SendChatResponse:
        """A message in the table chat (docs/chat.md)."""
        return await self.stub.SendChat(
            table_service_pb2.SendChatRequest(name=f"tables/{table_id}", text=text,
                                              request_id=request_id or new_request_id()),
            metadata=self.metadata,
        )

    async def mute_chat_player(self, table_id: str, player_id: str, reason: str,
                               muted: bool = True) -> table_service_pb2.MuteChatPlayerResponse:
        """An operator's mute (or unmute) of ``player_id`` in the table's chat."""
        return await self.stub.MuteChatPlayer(
            table_service_pb2.MuteChatPlayerRequest(name=f"tables/{table_id}", player_id=player_id,
                                                    muted=muted, reason=reason, request_id=new_request_id()),
            metadata=self.metadata,
        )

    async def delete_chat_message(self, table_id: str, number: int,
                                  reason: str) -> table_service_pb2.DeleteChatMessageResponse:
        """An operator's deletion of chat message ``number``."""
        return await self.stub.DeleteChatMessage(
            table_service_pb2.DeleteChatMessageRequest(name=f"tables/{table_id}", number=number,
                                                       reason=reason, request_id=new_request_id()),
            metadata=self.metadata,
        )

    async def answer_heartbeat(self, table_id: str, ping: str) -> table_service_pb2.AnswerHeartbeatResponse:
        """Send a watch's heartbeat back (the latency meter)."""
        return await self.stub.AnswerHeartbeat(
            table_service_pb2.AnswerHeartbeatRequest(name=f"tables/{table_id}", ping=ping),
            metadata=self.metadata,
        )


def events_of(message: table_service_pb2.WatchTableResponse) -> Sequence[events_pb2.TableEvent]:
    """The events a watch message reports, in order: its ``events`` (batch_events) or its one ``event``."""
    if message.events:
        return message.events
    return (message.event,) if message.HasField("event") else ()
