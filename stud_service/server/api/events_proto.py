"""An event's JSON (the log's canonical form) as the typed ``stud.v1.TableEvent`` clients get.

The log and its hash chain keep the engine's JSON; this is the one place it becomes protobuf, after
``server.api.redact`` (or ``audit.history``) has decided what the viewer may see: the converter shows
what it is given and adds nothing.  A key the redaction removed or nulled (a hidden card, the deck,
the server seed) stays unset.

Each engine event type has the message of the same name in ``TableEvent``'s ``event`` oneof; most
convert field by field (same names; ``at_ms`` becomes ``time``; None stays unset), the rest have a
builder below.  ``tests/test_events_proto.py`` fails for an engine event type with no message.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime
from typing import Any

from google.protobuf.message import Message

from stud_service.engine.config import config_from_json
from stud_service.server.api.convert import (
    ACTION_PROTOS,
    SIT_OUT_REASONS,
    awards_to_proto,
    config_to_proto,
    settings_to_proto,
    timestamp,
)
from stud_service.server.api.mixed_games import game_changed, hand_started_game
from stud_service.server.proto_gen import events_pb2, table_pb2

# Engine event type (class name) -> its field in TableEvent's ``event`` oneof.
EVENT_FIELDS: dict[str, str] = {
    field.message_type.name: field.name
    for field in events_pb2.TableEvent.DESCRIPTOR.oneofs_by_name["event"].fields
}

WAITING_LIST_LEFT_REASONS = {
    "request": events_pb2.WAITING_LIST_LEFT_REASON_REQUEST,
    "seated": events_pb2.WAITING_LIST_LEFT_REASON_SEATED,
    "offer_expired": events_pb2.WAITING_LIST_LEFT_REASON_OFFER_EXPIRED,
    "table_closed": events_pb2.WAITING_LIST_LEFT_REASON_TABLE_CLOSED,
}
# ActionType by the engine's action name (ActionKind's value), without building the enum per event.
_ACTIONS = {kind.value: proto for kind, proto in ACTION_PROTOS.items()}
_NOT_FIELDS = frozenset({"type", "v"})
# Fields a builder sets itself.
_SKIP = {key: _NOT_FIELDS | {key} for key in ("config", "reason", "action", "deadline_ms", "returned")}
_SETTINGS = _NOT_FIELDS | {"settings", "previous"}


class UnknownEventType(ValueError):
    """An event JSON whose type has no message (a server bug: the protos lag the engine)."""


def event_proto(version: int, shown: dict[str, Any], recorded_at: datetime) -> events_pb2.TableEvent:
    """``shown`` (an event's JSON, already redacted for the viewer) as a ``TableEvent``."""
    kind = shown.get("type")
    field = EVENT_FIELDS.get(kind) if isinstance(kind, str) else None
    if field is None:
        raise UnknownEventType(f"no TableEvent message for event type {kind!r}")
    message = events_pb2.TableEvent(version=version, type=kind, record_time=timestamp(recorded_at))
    target = getattr(message, field)
    target.SetInParent()  # set even when every field has its default
    _BUILDERS.get(kind, _fill)(target, shown)
    return message


def _fill(target: Any, data: dict[str, Any], skip: frozenset[str] = _NOT_FIELDS) -> None:
    """Copy ``data`` field by field: same names, ``at_ms`` as ``time``, lists extended, None left unset;
    keys in ``skip`` are left to the caller."""
    for key, value in data.items():
        if value is None or key in skip:
            continue
        if key == "at_ms":
            target.time.FromMilliseconds(value)
        elif isinstance(value, list):
            getattr(target, key).extend(value)
        else:
            setattr(target, key, value)


def _config(target: Message, table_id: str, config: dict[str, Any]) -> None:
    target.CopyFrom(config_to_proto(table_id, config_from_json(config)))


def _table_created(target: Any, data: dict[str, Any]) -> None:
    _fill(target, data, _SKIP["config"])
    _config(target.config, data["table_id"], data["config"])


def _player_sat_out(target: Any, data: dict[str, Any]) -> None:
    _fill(target, data, _SKIP["reason"])
    target.reason = SIT_OUT_REASONS.get(data["reason"], table_pb2.SIT_OUT_REASON_UNSPECIFIED)


def _waiting_list_left(target: Any, data: dict[str, Any]) -> None:
    _fill(target, data, _SKIP["reason"])
    target.reason = WAITING_LIST_LEFT_REASONS.get(
        data["reason"], events_pb2.WAITING_LIST_LEFT_REASON_UNSPECIFIED
    )


def _seat_offered(target: Any, data: dict[str, Any]) -> None:
    _fill(target, data, _SKIP["deadline_ms"])
    target.deadline.FromMilliseconds(data["deadline_ms"])


def _player_acted(target: Any, data: dict[str, Any]) -> None:
    _fill(target, data, _SKIP["action"])
    target.action = _ACTIONS[data["action"]]


def _hand_started(target: Any, data: dict[str, Any]) -> None:
    target.hand = data["hand"]
    target.table_id = data["table_id"]
    _config(target.config, data["table_id"], data["config"])
    for seat, player_id, stack in data["seats"]:
        target.players.add(seat=seat, player_id=player_id, starting_stack=stack)
    if data.get("deck") is not None:
        target.deck.extend(data["deck"])
    target.commitment = data["commitment"]
    target.game = hand_started_game(data)
    target.game_hand = int(data.get("game_hand") or 0)
    extra = data.get("extra")
    if isinstance(extra, dict):  # audit data (the table runtime writes it): seeds, deck root, nothing secret
        for seat, seed in (extra.get("client_seeds") or {}).items():
            target.client_seeds[int(seat)] = seed
        if extra.get("server_seed"):  # an auditor's view of a hand logged before seeds were sealed
            target.server_seed = extra["server_seed"]
        target.deck_root = str(extra.get("deck_root") or "")
        target.commitment_version = int(extra.get("commitment_version") or 0)
    target.time.FromMilliseconds(data["at_ms"])


def _hand_ended(target: Any, data: dict[str, Any]) -> None:
    target.hand = data["hand"]
    awards = iter(awards_to_proto(data))
    for pot in data["pots"]:
        result = target.pots.add(pot_index=pot["pot"], amount=pot["amount"], eligible_seats=pot["eligible"],
                                 rake=pot.get("rake", 0))  # a pot of a HandEnded v2 had no rake
        result.awards.extend(next(awards) for _ in pot["awards"])
    for seat, cards in data["shown"]:
        target.shown.add(seat=seat, cards=cards)
    target.mucked.extend(data["mucked"])
    for seat, stack in data["stacks"]:
        target.stacks.add(seat=seat, stack=stack)
    target.time.FromMilliseconds(data["at_ms"])
    if data.get("server_seed"):
        target.server_seed = data["server_seed"]
    target.rake = data.get("rake", 0)
    for seat, amount in data.get("rake_shares", ()):
        target.rake_shares.add(seat=seat, amount=amount)


def _shuffle_committed(target: Any, data: dict[str, Any]) -> None:
    target.next_hand = data["next_hand"]
    target.commitment = data["commitment"]
    target.time.FromMilliseconds(data["at_ms"])


def _hand_voided(target: Any, data: dict[str, Any]) -> None:
    _fill(target, data, _SKIP["returned"])
    for seat, amount in data["returned"]:
        target.returned.add(seat=seat, amount=amount)


def _table_settings_changed(target: Any, data: dict[str, Any]) -> None:
    _fill(target, data, _SETTINGS)
    fields, settings = settings_to_proto(data["settings"])
    target.fields.extend(fields)
    target.settings.CopyFrom(settings)
    target.previous.CopyFrom(settings_to_proto(data["previous"])[1])
_DURATIONS = ("reserve_ms", "used_ms", "added_ms")


def _time_bank(target: Any, data: dict[str, Any]) -> None:
    """§7's events: their milliseconds of reserve as Durations, a reserve's end as a Timestamp."""
    _fill(target, data, _NOT_FIELDS | {*_DURATIONS, "deadline_ms"})
    for key in _DURATIONS:
        if key in data:
            getattr(target, key.removesuffix("_ms")).FromMilliseconds(data[key])
    if "deadline_ms" in data:
        target.deadline.FromMilliseconds(data["deadline_ms"])


def _time_banks_at_start(target: Any, data: dict[str, Any]) -> None:
    target.hand = data["hand"]
    for seat, reserve_ms, hands in data["banks"]:
        bank = target.banks.add(seat=seat, hands_dealt=hands)
        bank.reserve.FromMilliseconds(reserve_ms)


_BUILDERS: dict[str, Callable[[Any, dict[str, Any]], None]] = {
    "TableCreated": _table_created,
    "PlayerSatOut": _player_sat_out,
    "PlayerActed": _player_acted,
    "HandStarted": _hand_started,
    "HandEnded": _hand_ended,
    "WaitingListLeft": _waiting_list_left,
    "SeatOffered": _seat_offered,
    "ShuffleCommitted": _shuffle_committed,
    "HandVoided": _hand_voided,
    "TableSettingsChanged": _table_settings_changed,
    "TimeBanksAtStart": _time_banks_at_start,
    "TimeBankStarted": _time_bank,
    "TimeBankUsed": _time_bank,
    "TimeBankRefilled": _time_bank,
    "GameChanged": game_changed,
}
