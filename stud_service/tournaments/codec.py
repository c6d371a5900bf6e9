"""A tournament's events to and from plain JSON, as the table's are: ``{"type": <class name>, "v": <schema
version>, ...fields}``, tuples as lists, the structure as ``structure.config_to_json`` writes it, a draw's
``secret`` verbatim.  ``event_from_json`` raises ``EventDecodeError`` for an unknown type, a missing or
unexpected field, or a version newer than this code reads.
"""

from __future__ import annotations

import dataclasses
from typing import Any

from stud_service.engine.codec import EventDecodeError
from stud_service.tournaments.errors import TournamentConfigError
from stud_service.tournaments.events import EVENT_TYPES, EVENT_VERSIONS
from stud_service.tournaments.structure import config_from_json, config_to_json

_FIELDS = {cls: dataclasses.fields(cls) for cls in EVENT_TYPES.values()}
# Older versions of an event, read as the current one: (type, version) -> the data upgraded.
_UPGRADES: dict[tuple[str, int], Any] = {
    ("PlayerUnregistered", 1): lambda data: {**data, "reason": "request"},  # v1: only the player's own
}


def _to_json(value: Any) -> Any:
    if isinstance(value, tuple | list):
        return [_to_json(item) for item in value]
    return value


def _tuples(value: Any) -> Any:
    if isinstance(value, list):
        return tuple(_tuples(item) for item in value)
    return value


def event_to_json(event: Any) -> dict[str, Any]:
    cls = type(event)
    out: dict[str, Any] = {"type": cls.__name__, "v": EVENT_VERSIONS[cls]}
    for field in _FIELDS[cls]:
        value = getattr(event, field.name)
        if field.name == "config":
            out[field.name] = config_to_json(value)
        elif field.name == "secret":
            out[field.name] = dict(value)
        else:
            out[field.name] = _to_json(value)
    return out


def event_from_json(data: Any) -> Any:
    """The event ``data`` holds (see the module's docstring)."""
    if not isinstance(data, dict):
        raise EventDecodeError(f"an event is a JSON object, got {type(data).__name__}")
    name = data.get("type")
    cls = EVENT_TYPES.get(name) if isinstance(name, str) else None
    if cls is None:
        raise EventDecodeError(f"unknown tournament event type {name!r}")
    version = data.get("v")
    if not isinstance(version, int) or version > EVENT_VERSIONS[cls]:
        newest = EVENT_VERSIONS[cls]
        raise EventDecodeError(f"{name} v{version!r} is not a version this code reads (v{newest})")
    data = _UPGRADES.get((name, version), dict)(data)
    names = {field.name for field in _FIELDS[cls]}
    unexpected = set(data) - names - {"type", "v"}
    if unexpected:
        raise EventDecodeError(f"{name}: unexpected field {sorted(unexpected)[0]!r}")
    missing = names - set(data)
    if missing:
        raise EventDecodeError(f"{name}: missing field {sorted(missing)[0]!r}")
    values: dict[str, Any] = {}
    for field in _FIELDS[cls]:
        value = data[field.name]
        if field.name == "config":
            try:
                value = config_from_json(value)
            except (TournamentConfigError, TypeError) as error:
                raise EventDecodeError(f"{name}: bad config: {error}") from None
        elif field.name != "secret":
            value = _tuples(value)
        values[field.name] = value
    return cls(**values)
