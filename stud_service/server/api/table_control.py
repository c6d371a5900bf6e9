"""The operator's controls of a table (RULES.md §12, Stopping a game; docs/operators.md): each request of
``TableService.PauseTable``, ``ResumeTable``, ``CloseTable``, ``VoidHand`` and ``UpdateTableSettings`` as the
engine command it asks for, with the operator's id (the token's subject) and reason.

The engine checks the reason and everything the table's state decides (paused already, no such hand
running, a setting out of bounds); here only what the request's shape says: which settings it sets, and that
each Duration is whole seconds.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from stud_service.engine import (
    CloseTable,
    Command,
    InvalidConfig,
    PauseTable,
    ResumeTable,
    UpdateTableSettings,
    VoidHand,
)
from stud_service.server.api.convert import DURATION_SETTINGS, as_proto_config_error
from stud_service.server.api.errors import malformed
from stud_service.server.api.time_banks import whole_seconds
from stud_service.server.proto_gen import table_service_pb2

# How a request makes its command: (operator, now_ms) -> the command.
MakeCommand = Callable[[str, int], Command]


def pause(request: table_service_pb2.PauseTableRequest) -> MakeCommand:
    return lambda operator, now: PauseTable(operator, request.reason, now)


def resume(request: table_service_pb2.ResumeTableRequest) -> MakeCommand:
    return lambda operator, now: ResumeTable(operator, request.reason, now)


def close(request: table_service_pb2.CloseTableRequest) -> MakeCommand:
    return lambda operator, now: CloseTable(operator, request.reason, now)


def void(request: table_service_pb2.VoidHandRequest, hand: int) -> MakeCommand:
    return lambda operator, now: VoidHand(hand, operator, request.reason, now)


def update_settings(request: table_service_pb2.UpdateTableSettingsRequest) -> MakeCommand:
    """The settings the request sets, by their engine names; MALFORMED_REQUEST when it sets none."""
    settings: dict[str, Any] = {}
    if request.HasField("display_name"):
        settings["name"] = request.display_name
    for name, field in DURATION_SETTINGS.items():
        if request.HasField(field):
            # 0 s turns the interrupted-hand limit off; the clocks are at least a second.
            least = 0 if name == "interrupted_hand_void_seconds" else 1
            settings[name] = whole_seconds(getattr(request, field), field, least)
    if not settings:
        raise malformed("set at least one of display_name, action_clock, seat_offer_time,"
                        " interrupted_hand_void_time")
    return lambda operator, now: UpdateTableSettings(operator, request.reason, settings, now)


def setting_error(error: InvalidConfig) -> InvalidConfig:
    """A setting refused by the engine, named as the request names it (``action_clock``, ...)."""
    return as_proto_config_error(error, "")
