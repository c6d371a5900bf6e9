"""Page positions of listings that read records of many streams in time order (the access log, the player
sessions): a record's time, then its stream and version, a total order over every writer's streams, so pages
stay stable while new records arrive. A position is written ``{at_ms}|{version}|{stream}``.
"""

from __future__ import annotations

FIRST = (-(2**63), "", 0)  # before every record: (at_ms, stream, version)


class BadPosition(ValueError):
    """A page position this service did not make."""


def position_of(at_ms: int, stream_id: str, version: int) -> str:
    return f"{at_ms}|{version}|{stream_id}"


def parse_position(position: str, prefix: str) -> tuple[int, str, int]:
    """(at_ms, stream, version) of ``position`` (FIRST for ""); BadPosition unless it is one of a stream
    under ``prefix``."""
    if not position:
        return FIRST
    at_ms, _, rest = position.partition("|")
    version, _, stream = rest.partition("|")
    if not (at_ms.lstrip("-").isdigit() and version.isdigit() and stream.startswith(prefix)):
        raise BadPosition("the page token is not one this service issued")
    return int(at_ms), stream, int(version)
