"""The device id a client sends with each call: ``x-stud-device-id`` metadata (a header on the web port).

The client makes one up once per installation (a random UUID kept in its storage) and sends it with every
call; the service records it in the player's sessions and compares it under a table's same-network rule. It
is the client's word, not proof: a client can send any value or none (docs/player-protection.md). It is
bounded and of a plain alphabet so that it can be logged and shown as it is.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

DEVICE_ID_HEADER = "x-stud-device-id"
MAX_DEVICE_ID_CHARS = 128
DEVICE_ID = re.compile(rf"[A-Za-z0-9._~+/=:-]{{1,{MAX_DEVICE_ID_CHARS}}}")
NO_DEVICE = ""


class DeviceIdError(ValueError):
    """A device id the service does not take (DEVICE_ID_INVALID)."""


def check_device_id(value: str) -> str:
    """``value`` if it is a valid device id; DeviceIdError saying why not."""
    if DEVICE_ID.fullmatch(value) is None:
        raise DeviceIdError(
            f"{DEVICE_ID_HEADER} must be 1 to {MAX_DEVICE_ID_CHARS} characters of A-Z a-z 0-9 . _ ~ + / = : -"
        )
    return value


def device_id_of(metadata: Iterable[tuple[str, str | bytes]] | None) -> str:
    """The call's device id ("" when it sent none); DeviceIdError when it is malformed or sent twice with
    two values."""
    found: str | None = None
    for key, value in metadata or ():
        if key != DEVICE_ID_HEADER:
            continue
        text = value.decode("latin-1") if isinstance(value, bytes) else value
        if found is not None and text != found:
            raise DeviceIdError(f"{DEVICE_ID_HEADER} was sent twice with two values")
        found = check_device_id(text)
    return found if found is not None else NO_DEVICE
