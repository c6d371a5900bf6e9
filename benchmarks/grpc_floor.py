"""The bare-gRPC floor for ``bench_service.py``: the service's message pattern with none of its work.

A ``stud.v1.TableService`` on the same ``grpc.aio`` server setup as the real one (``start_server``), with
no database, no engine, no auth and no redaction. Each table is a version number and a turn that
rotates through the seats: ``Act`` by the seat on turn is accepted at once, and every watcher of the
table gets one message for it (one event and the watcher's view), as a batched watch stream does for
one command. ``CreateTable`` and ``SitDown`` exist so the benchmark's own bots can play here unchanged.
Views carry only the version, the seat and the legal action, so messages are smaller than the
service's: what this server reaches bounds what any Python gRPC server can do with this pattern here.

``--work-us N`` makes each ``Act`` burn N µs of CPU before it answers: the same transport carrying actions
that cost work, at a pace like the service's, to tell its per-action cost at that pace from the service's own
work.

Run: ``.venv/bin/python benchmarks/grpc_floor.py --listen 127.0.0.1:PORT [--work-us N]`` (bench_service.py
starts it).
"""

from __future__ import annotations

import argparse
import asyncio
import sys
import time
from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import grpc  # noqa: E402

from stud_service.server.api.errors import abort_with, rich_status  # noqa: E402
from stud_service.server.grpc.app import serve_until_signalled, start_server  # noqa: E402
from stud_service.server.proto_gen import (  # noqa: E402
    events_pb2,
    table_pb2,
    table_service_pb2,
    table_service_pb2_grpc,
)

# What one action's event looks like on the wire.
ACTED = events_pb2.PlayerActed(
    hand=12, seat=2, action=table_pb2.ACTION_TYPE_CALL, amount=400, chips=200,
    time={"seconds": 1_700_000_000},
)
CHECK = table_pb2.LegalAction(type=table_pb2.ACTION_TYPE_CHECK)


@dataclass(eq=False)
class FloorTable:
    name: str
    version: int = 1
    turn: int = 1
    seats: dict[str, int] = field(default_factory=dict)  # the caller's authorization header -> seat
    watchers: dict[asyncio.Queue[table_service_pb2.WatchTableResponse | None], int] = field(
        default_factory=dict
    )

    def view(self, seat: int) -> table_pb2.TableView:
        legal = [CHECK] if seat == self.turn else []
        # Every action gives the next seat a new turn: the turn's number can be the version.
        return table_pb2.TableView(
            version=self.version, viewer_seat=seat, legal_actions=legal, turn=self.version
        )

    def act(self) -> None:
        """The seat on turn acted: the next seat's turn, and one message to every watcher."""
        self.version += 1
        self.turn = self.turn % len(self.seats) + 1
        event = events_pb2.TableEvent(version=self.version, type="PlayerActed", player_acted=ACTED)
        for queue, seat in self.watchers.items():
            queue.put_nowait(table_service_pb2.WatchTableResponse(events=[event], view=self.view(seat)))


def _caller(context: grpc.aio.ServicerContext) -> str:
    return dict(context.invocation_metadata() or ()).get("authorization", "")


def burn(seconds: float) -> None:
    """Use ``seconds`` of this thread's CPU."""
    until = time.thread_time() + seconds
    while time.thread_time() < until:
        pass


class FloorService(table_service_pb2_grpc.TableServiceServicer):
    def __init__(self, work: float = 0.0) -> None:
        self.tables: dict[str, FloorTable] = {}
        self.work = work  # seconds of CPU each accepted Act burns

    async def CreateTable(
        self, request: table_service_pb2.CreateTableRequest, context: grpc.aio.ServicerContext
    ) -> table_pb2.Table:
        name = f"tables/{request.table_id}"
        self.tables[name] = FloorTable(name)
        return table_pb2.Table(name=name)

    async def SitDown(
        self, request: table_service_pb2.SitDownRequest, context: grpc.aio.ServicerContext
    ) -> table_service_pb2.SitDownResponse:
        table = self.tables[request.name]
        table.seats[_caller(context)] = request.seat
        return table_service_pb2.SitDownResponse(view=table.view(request.seat))

    async def Act(
        self, request: table_service_pb2.ActRequest, context: grpc.aio.ServicerContext
    ) -> table_service_pb2.ActResponse:
        table = self.tables[request.name]
        if request.seat != table.turn or request.turn != table.version:
            status = rich_status(grpc.StatusCode.FAILED_PRECONDITION, "STALE_TURN", "not your turn now")
            await abort_with(context, status)
        if self.work:
            burn(self.work)
        table.act()
        return table_service_pb2.ActResponse(view=table.view(request.seat))

    async def WatchTable(
        self, request: table_service_pb2.WatchTableRequest, context: grpc.aio.ServicerContext
    ) -> AsyncIterator[table_service_pb2.WatchTableResponse]:
        table = self.tables[request.name]
        seat = table.seats.get(_caller(context), 0)
        queue: asyncio.Queue[table_service_pb2.WatchTableResponse | None] = asyncio.Queue()
        table.watchers[queue] = seat
        try:
            yield table_service_pb2.WatchTableResponse(view=table.view(seat))
            while (message := await queue.get()) is not None:
                yield message
        finally:
            del table.watchers[queue]

    async def end_watches(self) -> None:
        for table in self.tables.values():
            for queue in table.watchers:
                queue.put_nowait(None)


async def serve(listen: str, work: float = 0.0) -> None:
    service = FloorService(work)
    running = await start_server(service, listen)
    running.on_shutdown.append(service.end_watches)
    await serve_until_signalled(running)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--listen", default="127.0.0.1:50052")
    parser.add_argument("--work-us", type=int, default=0, help="µs of CPU each accepted Act burns")
    args = parser.parse_args()
    asyncio.run(serve(args.listen, args.work_us / 1_000_000))
    return 0


if __name__ == "__main__":
    sys.exit(main())
