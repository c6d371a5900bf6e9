"""Readiness follows the store: NOT_SERVING while the database has been unreachable, or has refused every
write, for a while; or while it has refused this replica's lease rounds for a lease period.

Health service names (``grpc.health.v1``)::

    ""  and each API service name    readiness: SERVING while the store answers and takes writes (or
                                     has been failing, or refusing them, for less than ``unready_after``
                                     seconds)
    "liveness"                       liveness: SERVING while the process serves at all

Every replica shares the database, so its state takes them all out of the Service's endpoints at once, and
clients then get connection errors instead of reasoned refusals: the threshold (a minute by default) is longer
than a database failover, through which the replicas stay ready, resolve writes caught by it within their
calls' deadlines and refuse the rest UNAVAILABLE with a reason. A database away longer than that is an
outage: the replicas leave the endpoints, but none restarts (a restart cannot bring the database back, and the
replica's tables, clocks and watchers resume by themselves once it is). On graceful shutdown all names report
NOT_SERVING.

So does a database that answers but refuses every write, out of disk or read-only: a replica that cannot
seat a player, deal a hand or apply an action is not ready for players, though it could still serve reads
(watches, hand histories, balances); a load balancer keeping it in rotation would send new players to tables
that cannot move. It is ready again with the first write that goes in.

And so is a replica whose lease rounds fail while the database otherwise answers (a statement the database
refuses, as a cluster laid out differently may): it takes no table and deals no hand, so it must not look
healthy. It is ready again after the next round that goes through. Rounds that fail or stall because the
database is away, or cannot commit (a failover; a new primary waiting for its synchronous standby), do not
count: that is the outage threshold's to judge.

The store's reachability comes from what it already sees (``StoreHealth``); a ``SELECT 1`` probe runs
only while it is failing, or when it has been quiet for half the threshold, so an idle replica
notices an outage too. While writes are refused a write probe (:meth:`EventStore.probe_write`) runs at
each check, so an idle replica, which nobody sends writes while it is not ready, notices their return.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Sequence
from typing import Protocol

from grpc_health.v1 import health, health_pb2

from stud_service.store import EventStore


class LeaseRounds(Protocol):
    """The replica's table ownership as readiness sees it (``server.tables.ownership.OwnershipKeeper``)."""

    lease_seconds: float

    def rounds_failing_for(self) -> float: ...

_log = logging.getLogger(__name__)

LIVENESS_SERVICE = "liveness"
# Longer than a database failover takes (a lost node under strict synchronous replication: about 20 s), so a
# failover keeps every replica ready, answering reasoned refusals; a store away longer is an outage.
DEFAULT_UNREADY_AFTER_SECONDS = 60.0
PROBE_TIMEOUT_SECONDS = 1.0


class ReadinessMonitor:
    def __init__(
        self,
        health_servicer: health.aio.HealthServicer,
        services: Sequence[str],
        store: EventStore,
        unready_after: float = DEFAULT_UNREADY_AFTER_SECONDS,
        leases: LeaseRounds | None = None,
    ) -> None:
        self._health = health_servicer
        self._services = tuple(services)
        self._store = store
        self._leases = leases
        self.unready_after = unready_after
        self.interval = max(0.05, min(1.0, unready_after / 4))
        self.ready = True

    async def run(self) -> None:
        """Check every ``interval`` seconds until cancelled."""
        while True:
            await asyncio.sleep(self.interval)
            try:
                await self.check()
            except Exception:  # a bug here must not freeze readiness at its last value
                _log.exception("checking readiness failed")

    async def check(self) -> None:
        store_health = self._store.health
        probe_timeout = min(PROBE_TIMEOUT_SECONDS, self.unready_after)
        if store_health.needs_probe(quiet=self.unready_after / 2):
            await self._store.ping(probe_timeout)
        if store_health.writes_refused_for() > 0:
            await self._store.probe_write(probe_timeout)
        down_for = store_health.unreachable_for()
        refused_for = store_health.writes_refused_for()
        leases_failing_for = self._leases.rounds_failing_for() if self._leases is not None else 0.0
        leases_fail = self._leases is not None and leases_failing_for > self._leases.lease_seconds
        ready = down_for <= self.unready_after and refused_for <= self.unready_after and not leases_fail
        if ready == self.ready:
            return
        self.ready = ready
        if ready:
            _log.info("the store answers and takes writes again: ready")
        elif down_for > self.unready_after:
            _log.warning("the store has been unreachable for %.1f s: not ready", down_for)
        elif leases_fail:
            _log.warning("the database has refused every lease round for %.1f s: not ready",
                         leases_failing_for)
        else:
            _log.warning(
                "the store has refused every write for %.1f s (out of disk, or read-only): not ready",
                refused_for,
            )
        serving = health_pb2.HealthCheckResponse
        status = serving.SERVING if ready else serving.NOT_SERVING
        for service in self._services:
            await self._health.set(service, status)
