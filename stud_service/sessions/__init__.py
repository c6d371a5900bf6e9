"""Player sessions: one record per player per connection, with its address, device, start, end and tables.

Public API (import from ``stud_service.sessions``)::

    sessions = PlayerSessions(store, writer, idle_seconds=300, proxies=TrustedProxies.parse("10.0.0.0/8"))
    session = sessions.touch(player, Transport.GRPC, "ipv4:10.0.0.7:51234", "10.0.0.7", device, "tables/t1")
    await sessions.durable(session)         its start in the log (SitDown waits for it; no other call does)
    sessions.connection_closed(peer); sessions.end_idle(); await sessions.close()
    page = await list_sessions(store, player_id=..., network=..., device=..., since_ms=..., position=...)
    current = await current_sessions(store, ["alice", "bob"])     the sessions a same-network rule compares
    done = await close_lost_sessions(store, lost_after_seconds=60, me=replica)   a lost replica's, ended
    report = await purge_sessions(store, before=date, by=user, at_ms=now)        whole days, recorded
    device_id_of(metadata)  peer_address("ipv4:10.0.0.7:1")  same_network(a, b)  TrustedProxies

``records`` is the record and its events, ``tracker`` the sessions a replica serves, ``reading`` lists them,
``recovery`` closes those of a lost replica, ``retention`` purges old days, ``networks`` and ``devices`` read
where a call comes from. docs/player-protection.md says what is recorded and for how long.
"""

from stud_service.sessions.devices import DEVICE_ID_HEADER, DeviceIdError, check_device_id, device_id_of
from stud_service.sessions.networks import (
    FORWARDED_FOR_HEADER,
    TrustedProxies,
    network_of,
    parse_network,
    peer_address,
    same_address,
    same_network,
)
from stud_service.sessions.records import (
    SESSION_ENDED,
    SESSION_STARTED,
    SESSION_TABLES,
    STREAM_PREFIX,
    EndReason,
    PlayerSession,
    SessionEnd,
    SessionStart,
    Transport,
)
from stud_service.sessions.tracker import DEFAULT_IDLE_SECONDS, OpenSession, PlayerSessions

__all__ = [
    "DEFAULT_IDLE_SECONDS", "DEVICE_ID_HEADER", "FORWARDED_FOR_HEADER", "SESSION_ENDED", "SESSION_STARTED",
    "SESSION_TABLES", "STREAM_PREFIX", "DeviceIdError", "EndReason", "OpenSession", "PlayerSession",
    "PlayerSessions", "SessionEnd", "SessionStart", "Transport", "TrustedProxies", "check_device_id",
    "device_id_of", "network_of", "parse_network", "peer_address", "same_address", "same_network",
]
