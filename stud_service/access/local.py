"""Access records of the command line: an operator's ``stud-service audit`` and ``hands`` commands.

They read the database directly, so no token names the caller: the record names the operating-system
user and the host instead, with the role ``operator`` (whoever holds the database URL is one). All
commands run on a host share its stream of the day, ``access/{day}/cli-{host}``: they rarely run at
once, and when they do the writer re-reads the head and tries again.
"""

from __future__ import annotations

import getpass
import os
import socket
import time

from stud_service.access.records import AccessRecord, Outcome
from stud_service.access.writer import AccessLog, host_label
from stud_service.auth import Role
from stud_service.store import EventStore

CLI_PREFIX = "cli:"


def os_user() -> str:
    try:
        return getpass.getuser()
    except (KeyError, OSError):  # no login name and no passwd entry (a bare container)
        return f"uid:{os.getuid()}"


def command_record(command: str, resource: str, at_ms: int | None = None) -> AccessRecord:
    """The record of ``stud-service {command}`` about ``resource``, run by this user on this host."""
    return AccessRecord(
        principal_id=os_user(),
        role=Role.OPERATOR.value,
        method=CLI_PREFIX + command,
        resource=resource,
        peer=f"local:{socket.gethostname()}",
        outcome=Outcome.ALLOWED,
        reason="",
        at_ms=int(time.time() * 1000) if at_ms is None else at_ms,
    )


async def record_command(store: EventStore, command: str, resource: str) -> tuple[str, int]:
    """Append the command's record before it reads anything; its (stream, version)."""
    return await AccessLog(store, writer=f"cli-{host_label()}").record(command_record(command, resource))
