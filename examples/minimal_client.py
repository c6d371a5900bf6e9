"""A complete minimal stud-service client: lobby, seat, watch, play one hand, leave.

It uses nothing but grpcio and the stubs generated from proto/stud/v1 (shipped as
``stud_service.server.proto_gen``; generate your own with protoc from proto/ and third_party/), so it shows
what a client in any language has to do. docs/clients.md walks through it.

    python examples/minimal_client.py --target localhost:50051 --token "$TOKEN" [--table tables/t1]

It lists the lobby (no token needed), sits down at the given table or the first one with an open seat,
watches it, plays by checking, calling or bringing in (whichever is legal) until a hand it was dealt into
ends, then leaves. It prints one line per event and exits 0 after leaving.
"""

from __future__ import annotations

import argparse
import sys
import time
import uuid
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import TypeVar

import grpc
from google.rpc import error_details_pb2, status_pb2

from stud_service.server.proto_gen import (
    table_pb2,
    table_service_pb2,
    table_service_pb2_grpc,
)

Reply = TypeVar("Reply")
Stub = table_service_pb2_grpc.TableServiceStub

# The server accepts a client ping every 10 s or less often (docs/clients.md, "Keepalives"); 30 s is well
# clear of that and still notices a dead connection within a minute.
CHANNEL_OPTIONS = [
    ("grpc.keepalive_time_ms", 30_000),
    ("grpc.keepalive_timeout_ms", 10_000),
    ("grpc.keepalive_permit_without_calls", 1),
    ("grpc.http2.max_pings_without_data", 0),
]
# Refusals that mean "the table moved on before the click arrived": decide again on the next view.
RACE_REASONS = {"STALE_TURN", "NOT_YOUR_TURN", "ACTION_NOT_AVAILABLE", "HAND_NOT_RUNNING"}
# Reasons worth retrying with the same request (and request_id), after RetryInfo's delay if there is one.
RETRY_REASONS = {"STORE_UNAVAILABLE", "OUTCOME_UNKNOWN", "CONFLICT"}
# The device id sent with every call (docs/clients.md, "Player sessions and the device id"): a real client
# makes it up once per installation and keeps it; this one makes one per run.
DEVICE_ID = uuid.uuid4().hex
# Preferred actions, best first: never put in more than the table forces.
PASSIVE = [table_pb2.ACTION_TYPE_CHECK, table_pb2.ACTION_TYPE_CALL, table_pb2.ACTION_TYPE_BRING_IN]


def error_info(error: grpc.RpcError) -> tuple[str, dict[str, str], float | None]:
    """The refusal's ErrorInfo reason and metadata, and RetryInfo's delay in seconds (None without one)."""
    reason, metadata, retry_delay = "", {}, None
    for key, value in error.trailing_metadata() or ():
        if key != "grpc-status-details-bin":
            continue
        status = status_pb2.Status.FromString(value)
        for detail in status.details:
            if detail.Is(error_details_pb2.ErrorInfo.DESCRIPTOR):
                info = error_details_pb2.ErrorInfo()
                detail.Unpack(info)
                reason, metadata = info.reason, dict(info.metadata)
            elif detail.Is(error_details_pb2.RetryInfo.DESCRIPTOR):
                retry = error_details_pb2.RetryInfo()
                detail.Unpack(retry)
                retry_delay = retry.retry_delay.ToTimedelta().total_seconds()
    return reason, metadata, retry_delay


def credentials(token: str) -> list[tuple[str, str]]:
    """Every call's metadata: the bearer token and the device id."""
    return [("authorization", f"Bearer {token}"), ("x-stud-device-id", DEVICE_ID)]


def call(method: Callable[..., Reply], request, token: str, attempts: int = 5) -> Reply:
    """One call, retried while the server says so. A mutating request carries a request_id, so a retry of a
    call whose outcome was unknown is answered with the first call's result instead of acting twice."""
    for attempt in range(attempts):
        try:
            return method(request, metadata=credentials(token), timeout=10)
        except grpc.RpcError as error:
            reason, _, delay = error_info(error)
            transient = reason in RETRY_REASONS or (
                error.code() == grpc.StatusCode.UNAVAILABLE and not reason  # connection trouble
            )
            if not transient or attempt == attempts - 1:
                raise
            time.sleep(delay if delay is not None else 0.5 * 2**attempt)
    raise AssertionError("unreachable")


def choose(view: table_pb2.TableView) -> table_pb2.LegalAction:
    """Check, call or bring in, whichever is legal; else the first legal action (e.g. FOLD)."""
    by_type = {action.type: action for action in view.legal_actions}
    for action_type in PASSIVE:
        if action_type in by_type:
            return by_type[action_type]
    return view.legal_actions[0]


def show_lobby(stub: Stub) -> list[table_pb2.Table]:
    # The lobby is public: no authorization metadata at all.
    tables = stub.ListTables(table_service_pb2.ListTablesRequest(page_size=20), timeout=10).tables
    for table in tables:
        print(
            f"lobby {table.name} {table_pb2.Variant.Name(table.variant)} "
            f"{table.stakes.small_bet}/{table.stakes.big_bet} "
            f"seated {table.seated_players}/{table.max_seats} open {table.open_seats} "
            f"waiting {table.waiting_players}",
            flush=True,
        )
    return list(tables)


def sit_down(stub: Stub, token: str, table: table_pb2.Table) -> int:
    """Takes the lowest seat that is free, with the smallest buy-in; returns the seat."""
    view = call(stub.GetTableView, table_service_pb2.GetTableViewRequest(name=table.name), token)
    if view.viewer_seat:
        return view.viewer_seat  # already seated (e.g. a restarted client)
    taken = {seat.seat for seat in view.seats}
    for seat in range(1, table.max_seats + 1):
        if seat in taken:
            continue
        request = table_service_pb2.SitDownRequest(
            name=table.name, seat=seat, buy_in=table.min_buy_in, request_id=str(uuid.uuid4())
        )
        try:
            call(stub.SitDown, request, token)
        except grpc.RpcError as error:
            reason, _, _ = error_info(error)
            if reason in {"SEAT_TAKEN", "SEAT_OFFERED"}:  # someone was quicker, or it is held for a waiter
                continue
            raise
        return seat
    raise SystemExit(f"no free seat at {table.name}: JoinWaitingList and wait for a seat offer")


def watch(
    stub: Stub, token: str, name: str, after_version: int
) -> Iterator[table_service_pb2.WatchTableResponse]:
    request = table_service_pb2.WatchTableRequest(
        name=name, after_version=after_version, include_views=True, batch_events=True
    )
    return stub.WatchTable(request, metadata=credentials(token))


def play_one_hand(stub: Stub, token: str, name: str, seat: int) -> None:
    """Watches the table and acts until a hand this seat was dealt into ends."""
    last_version = 0  # the newest event received: a broken watch resumes after it
    acted_at = 0  # the version our last accepted click made: older views are out of date
    my_hand = 0
    while True:
        stream = watch(stub, token, name, last_version)
        try:
            for message in stream:
                for event in message.events:
                    last_version = event.version
                    kind = event.WhichOneof("event")  # None: an event type newer than these stubs
                    print(f"event {event.version} {event.type}", flush=True)
                    if kind == "hand_started" and any(p.seat == seat for p in event.hand_started.players):
                        my_hand = event.hand_started.hand
                    elif kind == "hand_ended" and event.hand_ended.hand == my_hand:
                        stacks = {s.seat: s.stack for s in event.hand_ended.stacks}
                        print(f"hand {my_hand} ended, stack {stacks.get(seat, 0)}", flush=True)
                        return
                if message.HasField("view"):
                    last_version = max(last_version, message.view.version)
                    acted_at = act_if_my_turn(stub, token, message.view, seat, acted_at)
        except grpc.RpcError as error:
            if error.code() != grpc.StatusCode.UNAVAILABLE:
                raise
            print(f"watch broke ({error.code().name}); resuming after version {last_version}", flush=True)
            time.sleep(1)
            # A resumed watch sends no first view: fetch one, in case it is our turn and nothing else happens.
            view = call(stub.GetTableView, table_service_pb2.GetTableViewRequest(name=name), token)
            acted_at = act_if_my_turn(stub, token, view, seat, acted_at)
        finally:
            stream.cancel()


def act_if_my_turn(stub: Stub, token: str, view: table_pb2.TableView, seat: int, acted_at: int) -> int:
    """Acts when the view says it is this seat's turn; returns the version of the last accepted click."""
    if view.viewer_seat != seat or not view.legal_actions or view.version < acted_at:
        return acted_at
    choice = choose(view)
    request = table_service_pb2.ActRequest(
        name=view.table.name,
        seat=seat,
        action=choice.type,
        amount=choice.amount,
        request_id=str(uuid.uuid4()),
    )
    request.turn = view.turn  # the turn decided on: only its end makes the click stale
    try:
        reply = call(stub.Act, request, token)
    except grpc.RpcError as error:
        reason, metadata, _ = error_info(error)
        if reason not in RACE_REASONS:
            raise
        print(f"click refused {reason} {metadata}; deciding again on the next view", flush=True)
        return acted_at
    print(f"acted {table_pb2.ActionType.Name(choice.type)} {choice.amount}", flush=True)
    return reply.view.version


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--target", default="localhost:50051", help="host:port of the gRPC endpoint")
    parser.add_argument("--token", required=True, help="a player token (JWT) from the identity provider")
    parser.add_argument("--table", help="tables/{table}; default: the lobby's first table with a seat open")
    parser.add_argument("--tls", action="store_true", help="connect over TLS (the system's roots, or --ca)")
    parser.add_argument("--ca", help="PEM file of the roots to trust with --tls")
    args = parser.parse_args(argv)

    if args.tls:
        roots = Path(args.ca).read_bytes() if args.ca else None
        channel = grpc.secure_channel(args.target, grpc.ssl_channel_credentials(roots), CHANNEL_OPTIONS)
    else:
        channel = grpc.insecure_channel(args.target, CHANNEL_OPTIONS)
    with channel:
        stub = table_service_pb2_grpc.TableServiceStub(channel)
        lobby = show_lobby(stub)
        if args.table:
            table = stub.GetTable(table_service_pb2.GetTableRequest(name=args.table), timeout=10)
        else:
            table = next((t for t in lobby if t.open_seats > 0), None)
            if table is None:
                print("no table with an open seat", file=sys.stderr)
                return 1
        seat = sit_down(stub, args.token, table)
        print(f"seated {table.name} seat {seat} buy-in {table.min_buy_in}", flush=True)
        play_one_hand(stub, args.token, table.name, seat)
        leave = table_service_pb2.LeaveRequest(name=table.name, request_id=str(uuid.uuid4()))
        call(stub.Leave, leave, args.token)
        print(f"left {table.name}", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
