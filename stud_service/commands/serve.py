"""``stud-service serve``: run the gRPC service until SIGTERM (or Ctrl-C).

Every flag has an environment variable (the README's settings table); the token secret is environment only
(``STUD_TOKEN_SECRET``) so it never shows in a process list.
"""

from __future__ import annotations

import argparse
import asyncio
import logging
import os
import sys
from pathlib import Path

from stud_service.auth import SECRET_ENV, secret_from_env
from stud_service.server.app import TlsFiles
from stud_service.server.keepalive import (
    DEFAULT_MIN_CLIENT_PING_SECONDS,
    DEFAULT_PING_SECONDS,
    DEFAULT_PING_TIMEOUT_SECONDS,
    KeepalivePolicy,
)

_log = logging.getLogger("stud_service.serve")


def _env(name: str, default: str | None = None) -> str | None:
    return os.environ.get(name) or default


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "serve",
        help="run the gRPC service",
        description="Serve stud.v1.TableService, gRPC health checking and reflection until SIGTERM.",
    )
    add_service_arguments(parser)
    parser.set_defaults(func=run)


def add_service_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--database-url",
        default=_env("DATABASE_URL"),
        help="PostgreSQL URL (default: $DATABASE_URL; none: the embedded PostgreSQL)",
    )
    parser.add_argument(
        "--data-dir",
        default=_env("STUD_DATA_DIR"),
        help="data directory of the embedded PostgreSQL (default: $STUD_DATA_DIR)",
    )
    parser.add_argument(
        "--listen",
        default=_env("STUD_LISTEN", "0.0.0.0:50051"),
        help="gRPC address host:port (default: $STUD_LISTEN or 0.0.0.0:50051)",
    )
    parser.add_argument(
        "--metrics-listen",
        default=_env("STUD_METRICS_LISTEN", "0.0.0.0:9090"),
        help="Prometheus endpoint host:port, or 'off' (default: $STUD_METRICS_LISTEN)",
    )
    parser.add_argument("--log-format", default=_env("STUD_LOG_FORMAT"), choices=("json", "text"))
    parser.add_argument("--log-level", default=_env("STUD_LOG_LEVEL"))
    parser.add_argument(
        "--action-clock-seconds",
        type=int,
        default=int(_env("STUD_ACTION_CLOCK_SECONDS", "30") or 30),
        help="default action clock of new tables (default: $STUD_ACTION_CLOCK_SECONDS or 30)",
    )
    parser.add_argument(
        "--hand-pause-seconds",
        type=float,
        default=float(_env("STUD_HAND_PAUSE_SECONDS", "5") or 5),
        help="pause before the next hand is dealt (default: $STUD_HAND_PAUSE_SECONDS or 5)",
    )
    parser.add_argument(
        "--append-spin-us",
        type=int,
        default=int(_env("STUD_APPEND_SPIN_US", "1000") or 1000),
        help="microseconds a batch of appends may spin for its commit before sleeping, 0 never"
        " (default: $STUD_APPEND_SPIN_US or 1000)",
    )
    keepalive = (
        ("min-client-ping", DEFAULT_MIN_CLIENT_PING_SECONDS,
         "shortest interval between client keepalive pings accepted, with or without calls"),
        ("ping", DEFAULT_PING_SECONDS, "the server pings a connection quiet this long"),
        ("timeout", DEFAULT_PING_TIMEOUT_SECONDS, "a connection not answering a ping within this is closed"),
    )
    for name, default, what in keepalive:
        env = f"STUD_KEEPALIVE_{name.upper().replace('-', '_')}_SECONDS"
        parser.add_argument(
            f"--keepalive-{name}-seconds",
            type=float,
            default=float(_env(env) or default),
            help=f"{what} (default: ${env} or {default:g})",
        )
    parser.add_argument(
        "--store-timeout-seconds",
        type=float,
        default=float(_env("STUD_STORE_TIMEOUT_SECONDS", "5") or 5),
        help="longest a call waits for a database connection before UNAVAILABLE"
        " (default: $STUD_STORE_TIMEOUT_SECONDS or 5)",
    )
    parser.add_argument(
        "--unready-after-seconds",
        type=float,
        default=float(_env("STUD_UNREADY_AFTER_SECONDS", "5") or 5),
        help="database unreachable this long: readiness reports NOT_SERVING"
        " (default: $STUD_UNREADY_AFTER_SECONDS or 5)",
    )
    parser.add_argument("--tls-cert", default=_env("STUD_TLS_CERT"), help="PEM certificate chain file")
    parser.add_argument("--tls-key", default=_env("STUD_TLS_KEY"), help="PEM private key file")


def tls_files(args: argparse.Namespace) -> TlsFiles | None:
    if bool(args.tls_cert) != bool(args.tls_key):
        raise ValueError("--tls-cert and --tls-key go together")
    return TlsFiles(Path(args.tls_cert), Path(args.tls_key)) if args.tls_cert else None


def run(args: argparse.Namespace) -> int:
    from stud_service.observability.logging import configure_logging

    configure_logging(args.log_format, args.log_level)
    try:
        secret = secret_from_env(None)
        tls = tls_files(args)
    except ValueError as error:
        print(f"stud-service serve: {error} (the secret comes from ${SECRET_ENV})", file=sys.stderr)
        return 2
    try:
        keepalive = KeepalivePolicy(
            min_client_ping_seconds=args.keepalive_min_client_ping_seconds,
            ping_seconds=args.keepalive_ping_seconds,
            ping_timeout_seconds=args.keepalive_timeout_seconds,
        )
    except ValueError as error:
        print(f"stud-service serve: keepalive: {error}", file=sys.stderr)
        return 2
    from stud_service.engine.config import MAX_ACTION_CLOCK_SECONDS

    if not 0 < args.action_clock_seconds <= MAX_ACTION_CLOCK_SECONDS:  # else every CreateTable is refused
        message = f"--action-clock-seconds must be 1..{MAX_ACTION_CLOCK_SECONDS}"
        print(f"stud-service serve: {message}", file=sys.stderr)
        return 2
    from stud_service.server.host import ServiceHost, ServiceOptions

    options = ServiceOptions(
        database_url=args.database_url,
        data_dir=args.data_dir,
        listen=args.listen,
        token_secret=secret,
        tls=tls,
        action_clock_seconds=args.action_clock_seconds,
        hand_pause_seconds=args.hand_pause_seconds,
        metrics_listen=args.metrics_listen,
        append_spin_seconds=max(args.append_spin_us, 0) / 1_000_000,
        keepalive=keepalive,
        store_timeout_seconds=max(args.store_timeout_seconds, 0.1),
        unready_after_seconds=max(args.unready_after_seconds, 0.0),
    )
    asyncio.run(ServiceHost(options).serve_until_signalled())
    return 0
