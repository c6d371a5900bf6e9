"""Everything one service process runs, wired together: database, event log, tables, gRPC, metrics.

``stud-service serve`` and ``stud-service demo`` both use it::

    async with ServiceHost(options) as host:      # starts; host.port is the bound port
        ...
    await ServiceHost(options).serve_until_signalled()
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from stud_service.auth import TokenSettings
from stud_service.db import DatabaseSettings, describe_url, open_database
from stud_service.db.connect import DEFAULT_STORE_TIMEOUT_SECONDS
from stud_service.sealing import Keyring, open_sealed_store, resolve_keyring
from stud_service.server.api.audit_service import AuditService
from stud_service.server.api.caller import CallerKeys
from stud_service.server.api.cashier_service import CashierService
from stud_service.server.api.money_gate import REFUSED_UNDER_DEVELOPMENT_KEYRING
from stud_service.server.api.protection_service import PlayerProtectionService
from stud_service.server.api.table_service import TableService
from stud_service.server.api.tournament_service import TournamentService
from stud_service.server.collector import tune_collector
from stud_service.server.grpc.app import (
    DEFAULT_GRACE_SECONDS,
    DEFAULT_MAX_WAITING_CALLS,
    RunningServer,
    TlsFiles,
    serve_until_signalled,
    start_server,
)
from stud_service.server.grpc.keepalive import KeepalivePolicy
from stud_service.server.grpc.readiness import DEFAULT_UNREADY_AFTER_SECONDS, ReadinessMonitor
from stud_service.server.tables.ownership import DEFAULT_LEASE_SECONDS, Leases, new_replica_id
from stud_service.server.tables.runtime import TableRuntime
from stud_service.server.tables.settings import RuntimeSettings
from stud_service.server.tables.tasks import cancel_until_done
from stud_service.sessions import DEFAULT_IDLE_SECONDS, PlayerSessions, TrustedProxies
from stud_service.sessions.recovery import DEFAULT_LOST_AFTER_SECONDS, RECOVERY_SECONDS, close_lost_sessions
from stud_service.store import EventStore, spans
from stud_service.store.standby import DEFAULT_REPLAY_WAIT_SECONDS, StandbyReads, open_standby_pool

if TYPE_CHECKING:
    from stud_service.observability.metrics import Metrics
    from stud_service.observability.tracing import Tracing
    from stud_service.server.web.server import WebServer

_log = logging.getLogger(__name__)


@dataclass(frozen=True)
class ServiceOptions:
    token_secret: str = ""  # development HS256 tokens, when ``tokens`` is not given
    tokens: TokenSettings | None = None
    page_token_key: str | None = None  # none: the HS256 secret's, else a random one for this process
    database_url: str | None = None
    # Hot standbys for history, replays, exports, audits and listings (store.standby); none: the primary.
    read_database_url: str | None = None
    standby_wait_seconds: float = DEFAULT_REPLAY_WAIT_SECONDS  # longest a read waits for a standby's replay
    data_dir: str | Path | None = None
    listen: str = "0.0.0.0:50051"
    tls: TlsFiles | None = None
    action_clock_seconds: int = 30
    hand_pause_seconds: float = 5.0
    rake_sweep_seconds: float = 30.0
    # Player protection (server.tables.protection): a limit raise's cooling-off, the inactivity time-out (0:
    # none), how often reality checks due are looked for (0: never).
    limit_cooling_off_seconds: float = 86_400.0
    inactivity_timeout_seconds: float = 1_800.0
    reality_check_poll_seconds: float = 15.0
    lease_seconds: float = DEFAULT_LEASE_SECONDS  # table ownership (server.tables.ownership)
    metrics_listen: str = "off"
    grace_seconds: float = DEFAULT_GRACE_SECONDS
    pool_size: int = 20
    # A batch waits for its commit asleep: spinning saves an idle CPU's wake-up per batch but costs the CPU of
    # every turn of the loop it spins, which a busy replica pays per action (--append-spin-us).
    append_spin_seconds: float = 0.0
    citus_direct: bool = True  # on Citus, appends on one stream straight to its worker (--citus-appends)
    keepalive: KeepalivePolicy = KeepalivePolicy()
    max_waiting_calls: int = DEFAULT_MAX_WAITING_CALLS  # received calls kept waiting to start (grpc.app)
    store_timeout_seconds: float = DEFAULT_STORE_TIMEOUT_SECONDS
    unready_after_seconds: float = DEFAULT_UNREADY_AFTER_SECONDS
    reveal_seeds_after: float | None = None  # seconds after a hand ends its seed is public; None: never
    keys_file: str | None = None  # none: $STUD_KEYS_FILE, $STUD_KEYS, or the embedded database's own
    keyring: Keyring | None = None  # given directly (tests), instead of keys_file
    # Real money under the embedded database's development keyring (api.money_gate): refused unless set.
    accept_development_keyring: bool = False
    # False only for the service benchmark's baseline (benchmarks/serve_unsealed.py): no command line or
    # setting turns sealing off, so no deployment can store a secret in the clear by mistake.
    seal_at_rest: bool = True
    web_listen: str = "off"  # the web port (server.web): "host:port", or "off"
    web_origins: frozenset[str] = frozenset()  # CORS origins allowed on the web port
    web_heartbeat_seconds: float | None = 15.0  # a silent watch on the web port sends a heartbeat
    web_page: bool = True  # the web table at / of the web port
    web_header_timeout_seconds: float = 10.0  # a request head must be in this long after its first byte
    web_body_timeout_seconds: float = 30.0  # a request body must be in this long after its head
    web_max_connections_per_address: int = 128  # 0: no limit
    otlp_endpoint: str | None = None  # OTLP/HTTP collector for traces; none: OTEL_EXPORTER_OTLP_* or off
    span_exporter: object | None = None  # given directly (tests): spans go there, tracing on
    # The collector's thresholds, set (and startup's objects frozen) once started; None: left as they are.
    gc_thresholds: tuple[int, int, int] | None = None
    player_sessions: bool = True  # record players' sessions (stud_service.sessions); off: none, nor the rule
    session_idle_seconds: float = DEFAULT_IDLE_SECONDS  # a session with no call this long ends
    trusted_proxies: TrustedProxies = TrustedProxies()  # whose X-Forwarded-For names the client
    # A replica not heartbeating this long is lost: its open sessions are closed (sessions.recovery).
    sessions_lost_after_seconds: float = DEFAULT_LOST_AFTER_SECONDS
    sessions_recovery_seconds: float = RECOVERY_SECONDS  # how often each replica looks for lost sessions


class ServiceHost:
    def __init__(self, options: ServiceOptions) -> None:
        self.options = options
        self._stack = contextlib.AsyncExitStack()
        self.running: RunningServer | None = None
        self.runtime: TableRuntime | None = None
        self.database_url: str | None = None
        self.readiness: ReadinessMonitor | None = None
        self.web: WebServer | None = None
        self.tracing: Tracing | None = None

    @property
    def port(self) -> int:
        assert self.running is not None
        return self.running.port

    async def start(self) -> None:
        options = self.options
        keys = CallerKeys.of(options.tokens or options.token_secret, options.page_token_key)
        if keys.tokens.settings.jwks is not None:
            await asyncio.to_thread(keys.tokens.settings.jwks.load)  # no keys, no service: say so now
            if not options.page_token_key:
                _log.warning("no page-token key is set: page tokens hold only on this replica until it stops")
        self.tracing = self._start_tracing()  # before the pool opens: its connections are instrumented
        settings = DatabaseSettings.resolve(url=options.database_url, data_dir=options.data_dir)
        keyring = (options.keyring or resolve_keyring(options.keys_file, settings)) if options.seal_at_rest \
            else None  # no key, no service
        database = await self._stack.enter_async_context(
            open_database(settings, max_size=options.pool_size, timeout=options.store_timeout_seconds)
        )
        self.database_url = database.url
        store_options: dict[str, Any] = {
            "spin_wait": options.append_spin_seconds, "citus_direct": options.citus_direct}
        if keyring is None:
            store = EventStore(database.pool, **store_options)
        else:
            store = await open_sealed_store(database.pool, keyring, **store_options)
        self._stack.push_async_callback(store.close)
        metrics = self._start_metrics(database.pool)
        if metrics is not None:
            metrics.watch_pools(store.worker_pools)  # on Citus, a pool per worker the appends go to
        reads = await self._standby_reads(store, metrics)
        replica = new_replica_id()
        sessions = PlayerSessions(store, replica, options.session_idle_seconds,
                                  enabled=options.player_sessions, proxies=options.trusted_proxies)
        self.runtime = TableRuntime(
            store,
            RuntimeSettings(
                next_hand_pause=options.hand_pause_seconds, rake_sweep_interval=options.rake_sweep_seconds,
                limit_cooling_off=options.limit_cooling_off_seconds,
                inactivity_timeout=options.inactivity_timeout_seconds,
                reality_check_poll=options.reality_check_poll_seconds,
                real_money_refused=_real_money_refused(keyring, options.accept_development_keyring),
            ),
            metrics=metrics,
            sessions=sessions,
            reads=reads,
        )
        self._stack.push_async_callback(self.runtime.close)
        # Tables this replica takes the leases of are loaded and armed; others on first use by its clients.
        keeper = self.runtime.keep_ownership(Leases(database.pool, replica, options.lease_seconds))
        self.runtime.sweep_rake_periodically()
        self.runtime.protection.check_periodically()
        self.runtime.tournaments.exclusions.sweep_periodically()
        sessions.sweep_periodically()
        recovering = asyncio.get_running_loop().create_task(
            _recover_sessions(store, replica, options), context=spans.detached(quiet=True)
        )
        self._stack.push_async_callback(_cancel, recovering)
        service = TableService(self.runtime, keys, default_action_clock_seconds=options.action_clock_seconds)
        audit = AuditService(self.runtime, keys, reveal_seeds_after=options.reveal_seeds_after)
        cashier = CashierService(self.runtime, keys)
        protection = PlayerProtectionService(self.runtime, keys)
        tournaments = TournamentService(
            self.runtime, keys, default_action_clock_seconds=options.action_clock_seconds)
        self.running = await start_server(
            service, options.listen, options.tls, audit_service=audit, keepalive=options.keepalive,
            cashier_service=cashier, interceptors=self.tracing.interceptors if self.tracing else (),
            max_waiting_calls=options.max_waiting_calls,
            malformed_requests=metrics.malformed_request if metrics is not None else None,
            more_services=(protection, tournaments),
        )
        self.running.on_shutdown.append(self.runtime.close)  # ends watch streams on both ports
        self.web = await self._start_web({
            TableService.DESCRIPTOR: service,
            AuditService.DESCRIPTOR: audit,
            CashierService.DESCRIPTOR: cashier,
            PlayerProtectionService.DESCRIPTOR: protection,
            TournamentService.DESCRIPTOR: tournaments,
        })
        self.readiness = ReadinessMonitor(
            self.running.health, self.running.readiness_services, store, options.unready_after_seconds, keeper
        )
        # The ping every second makes no spans: a trace a second per replica would bury the calls' traces.
        watching = asyncio.get_running_loop().create_task(
            self.readiness.run(), context=spans.detached(quiet=True)
        )
        self._stack.push_async_callback(_cancel, watching)
        if options.gc_thresholds is not None:
            tune_collector(options.gc_thresholds)
        _log.info("service started", extra={"port": self.running.port, "replica": replica})

    async def _standby_reads(self, store: EventStore, metrics: Metrics | None) -> StandbyReads:
        options = self.options
        if not options.read_database_url:
            return StandbyReads(store)
        pool = await open_standby_pool(
            options.read_database_url, max_size=options.pool_size, wait=options.standby_wait_seconds
        )
        self._stack.push_async_callback(pool.close)
        _log.info("reads may go to %s", describe_url(options.read_database_url))
        if metrics is None:
            return StandbyReads(store, pool, wait=options.standby_wait_seconds)
        metrics.watch_pool(pool, "standby")
        served = metrics.standby_reads
        return StandbyReads(store, pool, wait=options.standby_wait_seconds,
                            served=lambda server: served.labels(served_by=server).inc())

    async def _start_web(self, services: dict[Any, object]) -> WebServer | None:
        options = self.options
        if options.web_listen.strip().lower() in ("", "off", "none", "disabled"):
            return None
        from stud_service.server.web.app import WebApplication, WebSettings
        from stud_service.server.web.server import start_web_server
        from stud_service.server.web.wire import PortLimits

        settings = WebSettings(options.web_origins, options.web_heartbeat_seconds, options.web_page,
                               options.web_body_timeout_seconds)
        limits = PortLimits(options.web_header_timeout_seconds, options.web_max_connections_per_address)
        app = WebApplication(services, settings)
        assert self.runtime is not None
        web = await start_web_server(self.tracing.asgi(app) if self.tracing else app, options.web_listen,
                                     options.tls, options.grace_seconds, limits,
                                     connection_closed=self.runtime.sessions.connection_closed)
        assert self.running is not None
        self.running.on_shutdown.append(lambda: web.shutdown(options.grace_seconds))
        return web

    @property
    def web_port(self) -> int:
        assert self.web is not None, "the web port is off"
        return self.web.port

    def _start_tracing(self) -> Tracing | None:
        from stud_service.observability import tracing  # light: OpenTelemetry itself only if wanted

        if self.options.span_exporter is None and not tracing.wanted(self.options.otlp_endpoint):
            return None
        started = tracing.start_tracing(self.options.otlp_endpoint, self.options.span_exporter)
        self._stack.callback(started.shutdown)
        return started

    def _start_metrics(self, pool):  # type: ignore[no-untyped-def]
        if self.options.metrics_listen.strip().lower() in ("", "off", "none", "disabled"):
            return None
        from stud_service.observability.metrics import Metrics, start_metrics_server

        metrics = Metrics()
        metrics.watch_pool(pool)
        server = start_metrics_server(self.options.metrics_listen, metrics.registry)
        if server is not None:
            self._stack.callback(server.close)
        return metrics

    async def stop(self) -> None:
        """Graceful shutdown, then everything started is released in reverse order."""
        if self.running is not None:
            await self.running.shutdown(self.options.grace_seconds)
        await self._stack.aclose()

    async def __aenter__(self) -> ServiceHost:
        await self.start()
        return self

    async def __aexit__(self, *exc_info: object) -> None:
        await self.stop()

    async def serve_until_signalled(self) -> None:
        await self.start()
        try:
            assert self.running is not None
            await serve_until_signalled(self.running, self.options.grace_seconds)
        finally:
            await self.stop()


async def _recover_sessions(store: EventStore, replica: str, options: ServiceOptions) -> None:
    """Every ``sessions_recovery_seconds``, close the sessions of replicas that are gone
    (sessions.recovery)."""
    while True:
        await asyncio.sleep(options.sessions_recovery_seconds)
        try:
            await close_lost_sessions(store, lost_after_seconds=options.sessions_lost_after_seconds,
                                      me=replica)
        except Exception as error:  # the database away: the next round tries again
            _log.warning("closing lost replicas' sessions failed: %s", type(error).__name__)


async def _cancel(task: asyncio.Task[None]) -> None:
    await cancel_until_done((task,))
    if not task.cancelled():
        task.result()  # a failure of its own is raised, as awaiting it would


def _real_money_refused(keyring: Keyring | None, accepted: bool) -> str | None:
    """Why real money is refused on this replica (None: it is not), said once at start-up either way."""
    if keyring is None or not keyring.development:
        return None
    if accepted:
        _log.warning(
            "real money is ACCEPTED under the development keyring %s (--accept-development-keyring): whoever"
            " reads the data directory reads every card", keyring.source,
        )
        return None
    refused = REFUSED_UNDER_DEVELOPMENT_KEYRING.format(source=keyring.source)
    _log.warning("%s; play-money tables play as usual", refused)
    return refused
