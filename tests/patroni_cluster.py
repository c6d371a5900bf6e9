"""A highly available PostgreSQL of a test's own: etcd and three Patroni-managed PostgreSQL 15 nodes on
free loopback ports, in synchronous mode, to kill, lose and switch over under play.

Needs Debian's ``patroni`` and ``etcd-server`` and the PostgreSQL 15 binaries (in /usr/lib/postgresql/15/bin):
:func:`missing_tools` names what is absent, for a skip. PostgreSQL refuses to run as root, so as root the
agents (and the servers they start) run as the ``postgres`` user. Everything is stopped by PID: the agents,
then any postmaster they left, then etcd.

``url`` names the three hosts with ``target_session_attrs=read-write``, as a deployment's ``DATABASE_URL``
would, so a client finds the primary wherever it is.
"""

from __future__ import annotations

import contextlib
import json
import os
import pwd
import shutil
import signal
import subprocess
import time
import urllib.error
import urllib.request
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from grpc_fixtures import free_ports

PG_BIN = Path("/usr/lib/postgresql/15/bin")
NODE_NAMES = ("pg1", "pg2", "pg3")
# Patroni's timing: a leader key lives TTL seconds (a lost node is noticed after it), each agent's loop
# runs every LOOP_WAIT seconds; Patroni asks loop_wait + 2 * retry_timeout <= ttl.
TTL = 10
LOOP_WAIT = 1
RETRY_TIMEOUT = 4


def missing_tools() -> str | None:
    """Why a cluster cannot be started here (a skip's reason), or None when it can."""
    absent = [name for name in ("patroni", "etcd") if shutil.which(name) is None]
    if not (PG_BIN / "postgres").exists():
        absent.append(f"PostgreSQL 15 ({PG_BIN})")
    if not absent:
        return None
    return (
        f"needs {', '.join(absent)}: install with"
        " `apt-get install -y patroni python3-etcd etcd-server postgresql-15`"
    )


def _server_user() -> pwd.struct_passwd | None:
    """The user the agents run as: ``postgres`` when running as root, else whoever runs the tests."""
    return pwd.getpwnam("postgres") if os.geteuid() == 0 else None


@dataclass
class Node:
    name: str
    pg_port: int
    api_port: int
    workdir: Path
    agent: subprocess.Popen[bytes] | None = None
    wanted: bool = False  # the node is meant to run: an agent that exits by itself is started again
    restarts: int = 0  # how often that happened

    @property
    def data(self) -> Path:
        return self.workdir / "data"

    def postmaster_pid(self) -> int | None:
        """The node's running postmaster, from its pid file, if it is alive."""
        with contextlib.suppress(OSError, ValueError, IndexError):
            pid = int((self.data / "postmaster.pid").read_text().split()[0])
            os.kill(pid, 0)
            return pid
        return None

    def log_text(self) -> str:
        return (self.workdir / "patroni.log").read_text(errors="replace")


@dataclass
class PatroniCluster:
    workdir: Path
    strict: bool = True  # synchronous_mode_strict: no write is acknowledged without a synchronous standby
    scope: str = "stud-ha"
    etcd_port: int = 0  # 0: drawn with the nodes' ports, all distinct
    etcd_peer_port: int = 0
    nodes: list[Node] = field(default_factory=list)
    etcd: subprocess.Popen[bytes] | None = None

    def __post_init__(self) -> None:
        ports = iter(free_ports(2 + 2 * len(NODE_NAMES)))
        self.etcd_port = self.etcd_port or next(ports)
        self.etcd_peer_port = self.etcd_peer_port or next(ports)
        if not self.nodes:
            self.nodes = [Node(name, next(ports), next(ports), self.workdir / name) for name in NODE_NAMES]

    # -- addresses -------------------------------------------------------------------------------

    def url(self, database: str = "postgres", **params: str) -> str:
        hosts = ",".join(f"127.0.0.1:{node.pg_port}" for node in self.nodes)
        query = "&".join(f"{k}={v}" for k, v in {"target_session_attrs": "read-write", **params}.items())
        return f"postgresql://postgres@{hosts}/{database}?{query}"

    def node(self, name: str) -> Node:
        return next(node for node in self.nodes if node.name == name)

    # -- starting --------------------------------------------------------------------------------

    def start(self, timeout: float = 120.0) -> None:
        self.workdir.mkdir(parents=True, exist_ok=True)
        self._own(self.workdir)
        self._start_etcd()
        for node in self.nodes:
            self.start_agent(node)
        self.wait_healthy(timeout)

    def _own(self, path: Path) -> None:
        user = _server_user()
        if user is not None:
            os.chown(path, user.pw_uid, user.pw_gid)

    def _start_etcd(self) -> None:
        data = self.workdir / "etcd"
        client = f"http://127.0.0.1:{self.etcd_port}"
        peer = f"http://127.0.0.1:{self.etcd_peer_port}"
        with open(self.workdir / "etcd.log", "ab") as log:
            self.etcd = subprocess.Popen(
                ["etcd", "--name", "etcd0", "--data-dir", str(data),
                 "--listen-client-urls", client, "--advertise-client-urls", client,
                 "--listen-peer-urls", peer, "--initial-advertise-peer-urls", peer,
                 "--initial-cluster", f"etcd0={peer}", "--log-level", "warn"],
                stdout=log, stderr=subprocess.STDOUT, start_new_session=True,
            )
        _wait_for(lambda: _get_json(f"{client}/health") is not None, 30, "etcd to answer")

    def _config(self, node: Node) -> dict[str, Any]:
        return {
            "scope": self.scope,
            "name": node.name,
            "log": {"level": "WARNING", "dir": str(node.workdir), "file_num": 1},
            "restapi": {
                "listen": f"127.0.0.1:{node.api_port}",
                "connect_address": f"127.0.0.1:{node.api_port}",
            },
            "etcd3": {"hosts": [f"127.0.0.1:{self.etcd_port}"]},
            "watchdog": {"mode": "off"},
            "bootstrap": {
                "dcs": {
                    "ttl": TTL,
                    "loop_wait": LOOP_WAIT,
                    "retry_timeout": RETRY_TIMEOUT,
                    "maximum_lag_on_failover": 1048576,
                    "synchronous_mode": True,
                    "synchronous_mode_strict": self.strict,
                    "postgresql": {
                        "use_pg_rewind": True,
                        "use_slots": True,
                        "parameters": {
                            "wal_log_hints": "on",
                            "max_connections": 100,
                            "max_wal_senders": 10,
                            "max_replication_slots": 10,
                            "hot_standby": "on",
                            "wal_keep_size": "128MB",
                        },
                    },
                },
                "initdb": [{"encoding": "UTF8"}, {"username": "postgres"}, {"auth": "trust"}],
            },
            "postgresql": {
                "listen": f"127.0.0.1:{node.pg_port}",
                "connect_address": f"127.0.0.1:{node.pg_port}",
                "data_dir": str(node.data),
                "bin_dir": str(PG_BIN),
                "pgpass": str(node.workdir / "pgpass"),
                "authentication": {
                    "superuser": {"username": "postgres"},
                    "replication": {"username": "postgres"},
                },
                "pg_hba": [
                    "local all all trust",
                    "host all all 127.0.0.1/32 trust",
                    "host replication all 127.0.0.1/32 trust",
                ],
                # Durable against a killed process (the page cache survives it), not against the machine's
                # crash, which these tests do not stage: flushing to disk would only slow them.
                "parameters": {
                    "unix_socket_directories": str(node.workdir),
                    "fsync": "off",
                    "shared_buffers": "32MB",
                },
            },
        }

    def start_agent(self, node: Node) -> None:
        """Start (or start again) ``node``'s Patroni agent; it starts its PostgreSQL."""
        node.workdir.mkdir(parents=True, exist_ok=True)
        self._own(node.workdir)
        node.wanted = True
        config = node.workdir / "patroni.yml"
        config.write_text(json.dumps(self._config(node)))  # YAML reads JSON
        self._own(config)
        user = _server_user()
        env = {**os.environ, "HOME": str(node.workdir)}
        with open(node.workdir / "agent.out", "ab") as out:
            node.agent = subprocess.Popen(
                ["patroni", str(config)], stdout=out, stderr=subprocess.STDOUT, cwd=node.workdir, env=env,
                start_new_session=True,
                user=None if user is None else user.pw_uid,
                group=None if user is None else user.pw_gid,
                extra_groups=None if user is None else [],
            )

    # -- watching --------------------------------------------------------------------------------

    def members(self) -> list[dict[str, Any]]:
        """Patroni's view of the cluster (from the first agent that answers)."""
        for node in self.nodes:
            if node.agent is None or node.agent.poll() is not None:
                continue
            cluster = _get_json(f"http://127.0.0.1:{node.api_port}/cluster")
            if cluster is not None:
                return list(cluster.get("members", []))
        return []

    def leader(self) -> str | None:
        return next((m["name"] for m in self.members() if m.get("role") == "leader"
                     and m.get("state") == "running"), None)

    def sync_standby(self) -> str | None:
        return next((m["name"] for m in self.members() if m.get("role") == "sync_standby"
                     and m.get("state") in ("running", "streaming")), None)

    def wait_healthy(self, timeout: float = 90.0, *, replicas: int = 2) -> str:
        """Wait for a leader, a synchronous standby and ``replicas`` standbys streaming; the leader's name."""

        def healthy() -> bool:
            self._restart_exited_agents()
            members = self.members()
            standbys = [m for m in members if m.get("role") in ("replica", "sync_standby")
                        and m.get("state") in ("running", "streaming")]
            return self.leader() is not None and self.sync_standby() is not None and len(standbys) >= replicas

        _wait_for(healthy, timeout, f"a leader and {replicas} standbys, one synchronous", self.describe)
        leader = self.leader()
        assert leader is not None
        return leader

    def wait_new_leader(self, old: str, timeout: float = 90.0) -> str:
        def new_leader() -> bool:
            self._restart_exited_agents()
            return self.leader() not in (None, old)

        _wait_for(new_leader, timeout, f"a leader other than {old}", self.describe)
        leader = self.leader()
        assert leader is not None
        return leader

    def _restart_exited_agents(self) -> None:
        """Start again the agent of a node meant to run whose agent exited by itself. (Patroni 3.0.2 was seen
        to die of SIGSEGV now and then while rejoining a node after pg_rewind; a supervisor such as systemd
        restarts it in a deployment.)"""
        for node in self.nodes:
            if node.wanted and node.agent is not None and node.agent.poll() is not None:
                node.restarts += 1
                self.start_agent(node)

    def describe(self) -> str:
        """Patroni's view, and how each agent stands (with the last lines it wrote when it has stopped)."""
        agents = []
        for node in self.nodes:
            code = None if node.agent is None else node.agent.poll()
            agents.append(f"{node.name}: agent {'running' if code is None else f'exited {code}'},"
                          f" restarted {node.restarts} times")
            if code is not None:
                with contextlib.suppress(OSError):
                    out = (node.workdir / "agent.out").read_text(errors="replace").splitlines()
                    agents.append("\n".join(out[-15:]))
        return json.dumps(self.members()) + "\n" + "\n".join(agents)

    # -- faults ----------------------------------------------------------------------------------

    def kill_postmaster(self, name: str) -> None:
        """SIGKILL the node's postmaster (its agent lives on and restarts it, or another node takes over)."""
        pid = self.node(name).postmaster_pid()
        assert pid is not None, f"{name} has no postmaster"
        os.kill(pid, signal.SIGKILL)

    def lose_node(self, name: str) -> None:
        """The whole node gone at once: its agent and its postmaster SIGKILLed (the leader key lapses after
        the ttl). Its backends notice the postmaster gone and exit by themselves."""
        node = self.node(name)
        node.wanted = False
        pid = node.postmaster_pid()
        if node.agent is not None:
            node.agent.kill()
            node.agent.wait(10)
        if pid is not None:
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGKILL)

    def switchover(self, leader: str) -> None:
        """A planned switchover away from ``leader`` (to the synchronous standby), through Patroni's API."""
        body = json.dumps({"leader": leader}).encode()
        deadline = time.monotonic() + 90
        while True:
            request = urllib.request.Request(
                f"http://127.0.0.1:{self.node(leader).api_port}/switchover", data=body, method="POST",
                headers={"Content-Type": "application/json"},
            )
            try:
                with urllib.request.urlopen(request, timeout=60) as answer:
                    assert answer.status == 200, answer.read()
                    return
            except urllib.error.HTTPError as refused:
                # On a loaded machine Patroni may find no candidate healthy yet (412), or give up waiting for
                # it (503): try again while the leader is unchanged; a leader that changed all the same is
                # the switchover done.
                if refused.code not in (412, 503) or time.monotonic() > deadline:
                    raise AssertionError(f"switchover refused: {refused.code} {refused.read()!r}") from None
            time.sleep(2)
            if self.wait_healthy(max(1.0, deadline - time.monotonic()), replicas=1) != leader:
                return

    # -- stopping --------------------------------------------------------------------------------

    def stop(self) -> None:
        """Stop everything by PID: the agents (each stops its PostgreSQL), any postmaster left, then etcd."""
        for node in self.nodes:
            node.wanted = False
        for node in self.nodes:
            if node.agent is not None and node.agent.poll() is None:
                node.agent.send_signal(signal.SIGTERM)
        for node in self.nodes:
            if node.agent is not None:
                try:
                    node.agent.wait(30)
                except subprocess.TimeoutExpired:
                    node.agent.kill()
                    node.agent.wait(10)
        for node in self.nodes:
            pid = node.postmaster_pid()
            if pid is not None:
                with contextlib.suppress(ProcessLookupError):
                    os.kill(pid, signal.SIGQUIT)  # immediate shutdown: the data is thrown away
                _wait_for(lambda node=node: node.postmaster_pid() is None, 20, "a postmaster to stop")
        if self.etcd is not None and self.etcd.poll() is None:
            self.etcd.terminate()
            try:
                self.etcd.wait(20)
            except subprocess.TimeoutExpired:
                self.etcd.kill()
                self.etcd.wait(10)

    def destroy(self) -> None:
        self.stop()
        shutil.rmtree(self.workdir, ignore_errors=True)


def _get_json(url: str) -> Any:
    try:
        with urllib.request.urlopen(url, timeout=3) as answer:
            return json.loads(answer.read())
    except (OSError, urllib.error.URLError, ValueError):
        return None


def _wait_for(ready: Any, timeout: float, what: str, describe: Any = None) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if ready():
            return
        time.sleep(0.2)
    detail = f": {describe()}" if describe is not None else ""
    raise TimeoutError(f"waited {timeout:.0f} s for {what}{detail}")
