"""``stud-service serve``: run the gRPC service until SIGTERM (or Ctrl-C).

Every flag has an environment variable (the README's settings table); the secrets are environment only
(``STUD_TOKEN_SECRET``, ``STUD_PAGE_TOKEN_KEY``) so they never show in a process list.
"""

from __future__ import annotations

import argparse
import asyncio
import logging
import os
import sys
from pathlib import Path
from typing import Any

from stud_service.auth import (
    DEFAULT_LEEWAY_SECONDS,
    DEFAULT_MAX_LIFETIMES_TEXT,
    DEFAULT_ROLE_CLAIM,
    SECRET_ENV,
    MaxLifetimes,
    TokenSettings,
)
from stud_service.jwks import DEFAULT_MAX_AGE_SECONDS, DEFAULT_MIN_INTERVAL_SECONDS, JwksError, JwksKeys
from stud_service.server.collector import DEFAULT_THRESHOLDS, parse_thresholds
from stud_service.server.grpc.app import DEFAULT_MAX_WAITING_CALLS, TlsFiles, waiting_call_options
from stud_service.server.grpc.keepalive import (
    DEFAULT_MIN_CLIENT_PING_SECONDS,
    DEFAULT_PING_SECONDS,
    DEFAULT_PING_TIMEOUT_SECONDS,
    KeepalivePolicy,
)
from stud_service.server.web.cors import origins
from stud_service.sessions import DEFAULT_IDLE_SECONDS, TrustedProxies

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
        "--read-database-url",
        default=_env("STUD_READ_DATABASE_URL"),
        help="PostgreSQL URL of hot standbys (e.g. the primary's hosts with target_session_attrs="
        "prefer-standby) for history, replays, exports, audits and listings; a read waits up to 1 s for the"
        " standby to replay what the primary had when it began, else reads the primary"
        " (default: $STUD_READ_DATABASE_URL; none: every read on the primary)",
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
        "--web-listen",
        default=_env("STUD_WEB_LISTEN", "0.0.0.0:8080"),
        help="web port host:port (Connect, gRPC-Web, JSON routes, the web table), or 'off' "
        "(default: $STUD_WEB_LISTEN or 0.0.0.0:8080)",
    )
    parser.add_argument(
        "--web-origins",
        default=_env("STUD_WEB_ORIGINS", ""),
        help="origins (scheme://host[:port], comma separated) whose pages may call the web port (CORS); "
        "default: $STUD_WEB_ORIGINS or none",
    )
    parser.add_argument(
        "--web-heartbeat-seconds",
        type=float,
        default=float(_env("STUD_WEB_HEARTBEAT_SECONDS", "15") or 15),
        help="a watch on the web port silent this long sends a heartbeat; 0: none (default 15)",
    )
    parser.add_argument(
        "--web-header-timeout-seconds",
        type=float,
        default=float(_env("STUD_WEB_HEADER_TIMEOUT_SECONDS", "10") or 10),
        help="a request's head (request line and headers) must arrive in full this long after its first"
        " byte, else 408; 0: no limit (default: $STUD_WEB_HEADER_TIMEOUT_SECONDS or 10)",
    )
    parser.add_argument(
        "--web-body-timeout-seconds",
        type=float,
        default=float(_env("STUD_WEB_BODY_TIMEOUT_SECONDS", "30") or 30),
        help="a request's body must arrive in full this long after its head, else 408; 0: no limit"
        " (default: $STUD_WEB_BODY_TIMEOUT_SECONDS or 30)",
    )
    parser.add_argument(
        "--web-max-connections-per-address",
        type=int,
        default=int(_env("STUD_WEB_MAX_CONNECTIONS_PER_ADDRESS", "128") or 128),
        help="connections one client address may hold open on the web port; past it new ones are closed"
        " at once; 0: no limit (default: $STUD_WEB_MAX_CONNECTIONS_PER_ADDRESS or 128)",
    )
    parser.add_argument(
        "--metrics-listen",
        default=_env("STUD_METRICS_LISTEN", "0.0.0.0:9090"),
        help="Prometheus endpoint host:port, or 'off' (default: $STUD_METRICS_LISTEN)",
    )
    parser.add_argument(
        "--otlp-endpoint",
        default=_env("STUD_OTLP_ENDPOINT", ""),
        help="OTLP/HTTP collector base URL for traces, e.g. http://collector:4318, or 'off' (default: "
        "$STUD_OTLP_ENDPOINT, else OTEL_EXPORTER_OTLP_ENDPOINT if set, else off)",
    )
    parser.add_argument("--log-format", default=_env("STUD_LOG_FORMAT"), choices=("json", "text"),
                        help="log lines as JSON or as text (default: $STUD_LOG_FORMAT or json)")
    parser.add_argument("--log-level", default=_env("STUD_LOG_LEVEL"),
                        help="DEBUG, INFO, WARNING or ERROR (default: $STUD_LOG_LEVEL or INFO)")
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
        "--lease-seconds",
        type=float,
        default=float(_env("STUD_LEASE_SECONDS", "5") or 5),
        help="how long a replica's ownership of a table outlives its last renewal; renewed every third"
        " of it (default: $STUD_LEASE_SECONDS or 5)",
    )
    parser.add_argument(
        "--rake-sweep-seconds",
        type=float,
        default=float(_env("STUD_RAKE_SWEEP_SECONDS", "30") or 30),
        help="how often the tables' rake is swept into the house's accounts"
        " (default: $STUD_RAKE_SWEEP_SECONDS or 30)",
    )
    parser.add_argument(
        "--limit-cooling-off-seconds",
        type=float,
        default=float(_env("STUD_LIMIT_COOLING_OFF_SECONDS", "86400") or 86400),
        help="how long a raise (or removal) of a player's own limit waits before it takes effect"
        " (default: $STUD_LIMIT_COOLING_OFF_SECONDS or 86400)",
    )
    parser.add_argument(
        "--inactivity-timeout-seconds",
        type=float,
        default=float(_env("STUD_INACTIVITY_TIMEOUT_SECONDS", "1800") or 1800),
        help="a seated player who makes no call for this long is sat out before the next deal, 0 never"
        " (default: $STUD_INACTIVITY_TIMEOUT_SECONDS or 1800)",
    )
    parser.add_argument(
        "--reality-check-poll-seconds",
        type=float,
        default=float(_env("STUD_REALITY_CHECK_POLL_SECONDS", "15") or 15),
        help="how often each replica records the reality checks due to its tables' players, 0 never"
        " (default: $STUD_REALITY_CHECK_POLL_SECONDS or 15)",
    )
    parser.add_argument(
        "--append-spin-us",
        type=int,
        default=int(_env("STUD_APPEND_SPIN_US", "0") or 0),
        help="microseconds a batch of appends may spin for its commit before sleeping, 0 never"
        " (default: $STUD_APPEND_SPIN_US or 0)",
    )
    parser.add_argument(
        "--citus-appends",
        choices=("workers", "coordinator"),
        default=_env("STUD_CITUS_APPENDS", "workers"),
        help="on a Citus cluster, where an append on one stream is sent: straight to its stream's worker"
        " once known (through the coordinator until then, or while the worker cannot be reached), or"
        " always through the coordinator (default: $STUD_CITUS_APPENDS or workers)",
    )
    parser.add_argument(
        "--max-waiting-calls",
        type=int,
        default=int(_env("STUD_MAX_WAITING_CALLS") or DEFAULT_MAX_WAITING_CALLS),
        help="received gRPC calls kept waiting to be started (a reconnect storm); past it new ones are"
        " refused, more the longer the queue"
        f" (default: $STUD_MAX_WAITING_CALLS or {DEFAULT_MAX_WAITING_CALLS})",
    )
    parser.add_argument(
        "--gc-thresholds",
        default=_env("STUD_GC_THRESHOLDS", ",".join(map(str, DEFAULT_THRESHOLDS))),
        help="the garbage collector's thresholds young,middle,full once started (startup's objects frozen),"
        " or 'python' for Python's own (default: $STUD_GC_THRESHOLDS or "
        + ",".join(map(str, DEFAULT_THRESHOLDS)) + ")",
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
        help="longest a call waits for a database connection, or runs while the database is failing,"
        " before UNAVAILABLE"
        " (default: $STUD_STORE_TIMEOUT_SECONDS or 5)",
    )
    parser.add_argument(
        "--unready-after-seconds",
        type=float,
        default=float(_env("STUD_UNREADY_AFTER_SECONDS", "60") or 60),
        help="database unreachable, or refusing every write, this long: readiness reports NOT_SERVING;"
        " longer than a database failover, which replicas ride out ready"
        " (default: $STUD_UNREADY_AFTER_SECONDS or 60)",
    )
    parser.add_argument(
        "--reveal-seeds-after",
        default=_env("STUD_REVEAL_SEEDS_AFTER", "off"),
        help="reveal each hand's server seed (so every card of it) to everyone this many seconds after the"
        " hand ended, or 'off': auditors only (default: $STUD_REVEAL_SEEDS_AFTER or off)",
    )
    parser.add_argument(
        "--keys-file",
        default=_env("STUD_KEYS_FILE"),
        help="JSON keyring of the keys sealing cards and seeds at rest, mode 0600 (default: $STUD_KEYS_FILE;"
        " none: $STUD_KEYS, or the embedded database's development keyring; docs/keys.md)",
    )
    parser.add_argument(
        "--accept-development-keyring",
        action="store_true",
        default=(_env("STUD_ACCEPT_DEVELOPMENT_KEYRING", "") or "").lower() in ("1", "true", "yes"),
        help="allow real-currency tables and the cashier although cards are sealed with the embedded"
        " database's development keyring, which lies beside it (default: refused;"
        " $STUD_ACCEPT_DEVELOPMENT_KEYRING=1 to allow)",
    )
    parser.add_argument(
        "--player-sessions",
        default=_env("STUD_PLAYER_SESSIONS", "on"),
        help="'on': record each player's session per connection (address, device, tables) in the log; 'off':"
        " none, and tables (tournaments) that keep one network's players apart refuse SitDown"
        " (RegisterTournament) (default: on)",
    )
    parser.add_argument(
        "--session-idle-seconds",
        type=float,
        default=float(_env("STUD_SESSION_IDLE_SECONDS", str(DEFAULT_IDLE_SECONDS)) or DEFAULT_IDLE_SECONDS),
        help="a player session with no call and no watch stream this long ends"
        f" (default: $STUD_SESSION_IDLE_SECONDS or {DEFAULT_IDLE_SECONDS:g})",
    )
    parser.add_argument(
        "--trusted-proxies",
        default=_env("STUD_TRUSTED_PROXIES", "none"),
        help="addresses or CIDR networks of the reverse proxies whose X-Forwarded-For names the client,"
        " comma separated, or 'none' (default: $STUD_TRUSTED_PROXIES or none)",
    )
    parser.add_argument("--tls-cert", default=_env("STUD_TLS_CERT"), help="PEM certificate chain file")
    parser.add_argument("--tls-key", default=_env("STUD_TLS_KEY"), help="PEM private key file")
    add_token_arguments(parser)


PAGE_TOKEN_KEY_ENV = "STUD_PAGE_TOKEN_KEY"


def add_token_arguments(parser: argparse.ArgumentParser) -> None:
    """Where bearer tokens come from (docs/deployment.md, "Tokens from your identity provider")."""
    parser.add_argument(
        "--token-jwks", default=_env("STUD_TOKEN_JWKS"),
        help="JWKS of the identity provider: an https URL or a file (default: $STUD_TOKEN_JWKS)",
    )
    parser.add_argument("--token-issuer", default=_env("STUD_TOKEN_ISSUER"),
                        help="the tokens' required iss (default: $STUD_TOKEN_ISSUER)")
    parser.add_argument("--token-audience", default=_env("STUD_TOKEN_AUDIENCE"),
                        help="the tokens' required aud (default: $STUD_TOKEN_AUDIENCE)")
    parser.add_argument("--token-role-claim", default=_env("STUD_TOKEN_ROLE_CLAIM", DEFAULT_ROLE_CLAIM),
                        help=f"claim with the role (default: $STUD_TOKEN_ROLE_CLAIM or {DEFAULT_ROLE_CLAIM})")
    numbers = (
        ("leeway", DEFAULT_LEEWAY_SECONDS, "clock skew allowed on exp, nbf and iat"),
        ("jwks-max-age", DEFAULT_MAX_AGE_SECONDS, "the JWKS is read again when older than this"),
        ("jwks-min-interval", DEFAULT_MIN_INTERVAL_SECONDS,
         "the JWKS is read at most this often, even for tokens naming unknown keys"),
    )
    for name, default, what in numbers:
        env = f"STUD_TOKEN_{name.upper().replace('-', '_')}_SECONDS"
        parser.add_argument(f"--token-{name}-seconds", type=float, default=float(_env(env) or default),
                            help=f"{what} (default: ${env} or {default:g})")
    parser.add_argument(
        "--max-token-lifetime", default=_env("STUD_MAX_TOKEN_LIFETIME", DEFAULT_MAX_LIFETIMES_TEXT),
        help="the longest a token may be valid (exp - iat, or exp - now without iat), for every role ('2h')"
        " or by role ('player=12h,operator=30m'; s, m, h, d); longer ones are refused TOKEN_INVALID"
        f" (default: $STUD_MAX_TOKEN_LIFETIME or {DEFAULT_MAX_LIFETIMES_TEXT})",
    )
    parser.add_argument(
        "--token-hs256", default=_env("STUD_TOKEN_HS256", "off"),
        help=f"'on': accept development HS256 tokens signed with ${SECRET_ENV}, instead of a JWKS"
        " (default: $STUD_TOKEN_HS256 or off)",
    )


def token_settings(args: argparse.Namespace) -> TokenSettings:
    """The tokens ``serve`` accepts; ValueError when the settings are incomplete or contradict each other."""
    hs256 = str(args.token_hs256).strip().lower()
    if hs256 not in ("on", "off"):
        raise ValueError("--token-hs256 is 'on' or 'off'")
    if hs256 == "on" and args.token_jwks:
        raise ValueError("--token-hs256 on and --token-jwks exclude each other: an HS256 token is never"
                         " accepted beside public keys")
    if hs256 == "off" and not args.token_jwks:
        raise ValueError("set --token-jwks (your identity provider's keys) or, to develop, --token-hs256 on")
    try:
        lifetimes = MaxLifetimes.parse(str(args.max_token_lifetime))
    except ValueError as error:
        raise ValueError(f"--max-token-lifetime: {error}") from None
    common = {"issuer": args.token_issuer or None, "audience": args.token_audience or None,
              "leeway_seconds": args.token_leeway_seconds, "role_claim": args.token_role_claim,
              "max_lifetimes": lifetimes}
    if hs256 == "on":
        return TokenSettings(hs256_secret=os.environ.get(SECRET_ENV, ""), **common)
    try:
        jwks = JwksKeys(args.token_jwks, max_age=max(args.token_jwks_max_age_seconds, 0.0),
                        min_interval=max(args.token_jwks_min_interval_seconds, 0.0))
    except JwksError as error:
        raise ValueError(str(error)) from None
    return TokenSettings(jwks=jwks, **common)


def reveal_seeds_after(value: str) -> float | None:
    """``--reveal-seeds-after``: seconds (>= 0), or None for 'off'; ValueError for anything else."""
    if value.strip().lower() in ("", "off", "never"):
        return None
    try:
        seconds = float(value)
    except ValueError:
        raise ValueError("--reveal-seeds-after is a number of seconds or 'off'") from None
    if not 0 <= seconds < float("inf"):
        raise ValueError("--reveal-seeds-after must be 0 or more seconds, or 'off'")
    return seconds


def player_sessions(value: str) -> bool:
    """``--player-sessions``: 'on' or 'off'."""
    choice = value.strip().lower()
    if choice not in ("on", "off"):
        raise ValueError("--player-sessions is 'on' or 'off'")
    return choice == "on"


def tls_files(args: argparse.Namespace) -> TlsFiles | None:
    if bool(args.tls_cert) != bool(args.tls_key):
        raise ValueError("--tls-cert and --tls-key go together")
    return TlsFiles(Path(args.tls_cert), Path(args.tls_key)) if args.tls_cert else None


def run(args: argparse.Namespace, **overrides: Any) -> int:
    """``stud-service serve``; ``overrides``: ServiceOptions fields set by a caller in code (benchmarks)."""
    from stud_service.observability.logging import configure_logging

    configure_logging(args.log_format, args.log_level)
    try:
        tokens = token_settings(args)
        tls = tls_files(args)
        reveal_after = reveal_seeds_after(str(args.reveal_seeds_after))
        gc_thresholds = parse_thresholds(str(args.gc_thresholds))
        sessions_on = player_sessions(str(args.player_sessions))
        proxies = TrustedProxies.parse(str(args.trusted_proxies))
        if not args.session_idle_seconds > 0:
            raise ValueError("--session-idle-seconds must be more than 0")
    except ValueError as error:
        print(f"stud-service serve: {error}", file=sys.stderr)
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

    try:
        waiting_call_options(args.max_waiting_calls)  # the server's own check of the bound, before starting
    except ValueError as error:
        print(f"stud-service serve: --max-waiting-calls: {error}", file=sys.stderr)
        return 2
    if not 0 < args.action_clock_seconds <= MAX_ACTION_CLOCK_SECONDS:  # else every CreateTable is refused
        message = f"--action-clock-seconds must be 1..{MAX_ACTION_CLOCK_SECONDS}"
        print(f"stud-service serve: {message}", file=sys.stderr)
        return 2
    from stud_service.server.host import ServiceHost, ServiceOptions

    options = ServiceOptions(
        database_url=args.database_url,
        read_database_url=args.read_database_url,
        data_dir=args.data_dir,
        listen=args.listen,
        tokens=tokens,
        page_token_key=os.environ.get(PAGE_TOKEN_KEY_ENV) or None,
        tls=tls,
        action_clock_seconds=args.action_clock_seconds,
        hand_pause_seconds=args.hand_pause_seconds,
        lease_seconds=max(args.lease_seconds, 0.3),
        rake_sweep_seconds=max(args.rake_sweep_seconds, 0.0),
        limit_cooling_off_seconds=max(args.limit_cooling_off_seconds, 0.0),
        inactivity_timeout_seconds=max(args.inactivity_timeout_seconds, 0.0),
        reality_check_poll_seconds=max(args.reality_check_poll_seconds, 0.0),
        metrics_listen=args.metrics_listen,
        append_spin_seconds=max(args.append_spin_us, 0) / 1_000_000,
        citus_direct=args.citus_appends == "workers",
        keepalive=keepalive,
        max_waiting_calls=args.max_waiting_calls,
        store_timeout_seconds=max(args.store_timeout_seconds, 0.1),
        unready_after_seconds=max(args.unready_after_seconds, 0.0),
        reveal_seeds_after=reveal_after,
        keys_file=args.keys_file,
        accept_development_keyring=args.accept_development_keyring,
        web_listen=args.web_listen,
        web_origins=origins(args.web_origins),
        web_heartbeat_seconds=args.web_heartbeat_seconds if args.web_heartbeat_seconds > 0 else None,
        web_header_timeout_seconds=max(args.web_header_timeout_seconds, 0.0),
        web_body_timeout_seconds=max(args.web_body_timeout_seconds, 0.0),
        web_max_connections_per_address=max(args.web_max_connections_per_address, 0),
        otlp_endpoint=args.otlp_endpoint or None,
        gc_thresholds=gc_thresholds,
        player_sessions=sessions_on,
        session_idle_seconds=args.session_idle_seconds,
        trusted_proxies=proxies,
        **overrides,
    )
    from stud_service.observability.tracing import TracingUnavailable
    from stud_service.sealing import SealingError

    try:
        asyncio.run(ServiceHost(options).serve_until_signalled())
    except (JwksError, SealingError, TracingUnavailable) as error:  # read before anything else starts
        print(f"stud-service serve: {error}", file=sys.stderr)
        return 2
    return 0
