"""Test helpers for typed event messages: the cards a message shows, and a message read back as the
engine's event JSON (the inverse of ``stud_service.server.api.events_proto``, to check nothing is lost)."""

from __future__ import annotations

import dataclasses
from typing import Any

from google.protobuf.message import Message

from stud_service.engine.config import config_to_json
from stud_service.engine.events import CHAT_EVENTS, EVENT_TYPES
from stud_service.server.api.convert import DURATION_SETTINGS, SIT_OUT_REASONS, VARIANTS, config_from_proto
from stud_service.server.proto_gen import events_pb2, table_pb2


def message_cards(message: Message) -> list[int]:
    """Every card code ``message`` shows, wherever it sits in it (hidden cards are not cards)."""
    cards: list[int] = []
    if isinstance(message, events_pb2.CardDealt):
        cards.extend(() if message.hidden else (message.card,))  # card 0 is a card: not in ListFields
    for descriptor, value in message.ListFields():
        if descriptor.name in ("deck", "cards"):
            cards.extend(value)
        elif descriptor.message_type is not None:
            for inner in (value,) if isinstance(value, Message) else value:
                if isinstance(inner, Message):  # a map iterates over its keys
                    cards.extend(message_cards(inner))
    return cards


def event_body(event: events_pb2.TableEvent) -> Any:
    """The message set in ``event``'s oneof."""
    kind = event.WhichOneof("event")
    assert kind is not None, f"event {event.version} has no message"
    return getattr(event, kind)


_HALVES = {table_pb2.POT_HALF_WHOLE: "whole", table_pb2.POT_HALF_HIGH: "high", table_pb2.POT_HALF_LOW: "low"}


def _pots(pots: Any) -> list[dict[str, Any]]:
    return [{
        "pot": pot.pot_index, "amount": pot.amount, "rake": pot.rake, "eligible": list(pot.eligible_seats),
        "awards": [{"seat": award.seat, "amount": award.amount, "half": _HALVES[award.pot_half],
                    "hand": award.hand_description or None} for award in pot.awards],
    } for pot in pots]


WAITING_LIST_EVENTS = frozenset({"WaitingListJoined", "WaitingListLeft", "SeatOffered"})
# Events whose ``reason`` is an operator's words (RULES.md §12, the chat's moderation), not an enum.
REASONED_EVENTS = frozenset(
    {"TablePaused", "TableResumed", "TableClosed", "HandVoided", "TableSettingsChanged"}) | CHAT_EVENTS
_SETTING_NAMES = {"display_name": "name", **{proto: engine for engine, proto in DURATION_SETTINGS.items()}}


def _settings(fields: Any, table: Any) -> dict[str, Any]:
    """A TableSettingsChanged's settings as the engine names them, from the fields it lists."""
    return {_SETTING_NAMES[field]: table.display_name if field == "display_name"
            else getattr(table, field).seconds for field in fields}


def event_json(event: events_pb2.TableEvent) -> dict[str, Any]:
    """``event`` as the engine's JSON of its type (without the schema version ``v``): every field of the
    engine event, read from the message; ``hidden: true`` with ``card: null`` for a hidden card."""
    body = event_body(event)
    kind = event.type
    assert type(body).__name__ == kind
    out: dict[str, Any] = {"type": kind}
    for field in dataclasses.fields(EVENT_TYPES[kind]):
        name = field.name
        if name == "secret":
            continue  # a committed seed: no message carries it
        if name == "at_ms":
            value: Any = body.time.ToMilliseconds()
        elif name == "config":
            value = config_to_json(config_from_proto(body.config, body.config.action_clock.seconds))
        elif name == "seats":
            value = [[player.seat, player.player_id, player.starting_stack] for player in body.players]
        elif name == "extra":
            value = {"client_seeds": {str(seat): seed for seat, seed in sorted(body.client_seeds.items())}}
            if body.server_seed:
                value["server_seed"] = body.server_seed
            if body.deck_root:
                value["deck_root"] = body.deck_root
            if body.commitment_version:
                value["commitment_version"] = body.commitment_version
        elif name == "deck":
            value = list(body.deck) or None
        elif name == "action":
            value = table_pb2.ActionType.Name(body.action).removeprefix("ACTION_TYPE_")
        elif name == "reason" and kind in REASONED_EVENTS:
            value = body.reason
        elif name == "returned":
            value = [[entry.seat, entry.amount] for entry in body.returned]
        elif name in ("settings", "previous"):
            value = _settings(body.fields, getattr(body, name))
        elif name in ("reserve_ms", "used_ms", "added_ms"):
            value = getattr(body, name.removesuffix("_ms")).ToMilliseconds()
        elif name == "banks":
            value = [[bank.seat, bank.reserve.ToMilliseconds(), bank.hands_dealt] for bank in body.banks]
        elif name == "seat" and kind == "ChatMessageSent":
            value = body.seat or None  # a spectator's
        elif name == "text":
            value = None if body.deleted else body.text
        elif name == "by":
            value = body.by or None  # blanked for everyone but auditors
        elif name == "reason" and kind == "WaitingListLeft":
            value = events_pb2.WaitingListLeftReason.Name(body.reason)
            value = value.removeprefix("WAITING_LIST_LEFT_REASON_").lower()
        elif name == "reason":
            value = {proto: engine for engine, proto in SIT_OUT_REASONS.items()}[body.reason]
        elif name == "game":  # RULES.md §13: a hand's game, the next game of a rotation
            value = str(VARIANTS[body.game])
        elif name == "deadline_ms":
            value = body.deadline.ToMilliseconds()
        elif name == "player_id" and kind in WAITING_LIST_EVENTS:
            value = body.player_id or None  # blanked for viewers other than the player
        elif name == "pots":
            value = _pots(body.pots)
        elif name == "shown":
            value = [[shown.seat, list(shown.cards)] for shown in body.shown]
        elif name == "stacks":
            value = [[entry.seat, entry.stack] for entry in body.stacks]
        elif name == "rake_shares":
            value = [[entry.seat, entry.amount] for entry in body.rake_shares]
        elif name in ("high", "low", "server_seed"):
            value = getattr(body, name) or None
        elif name == "seat" and kind == "CardDealt":
            value = body.seat or None
        elif name == "card" and body.hidden:
            value = None
            out["hidden"] = True
        else:
            value = getattr(body, name)
            if not isinstance(value, bool | int | str):
                value = list(value)
        out[name] = value
    if kind == "ChatMessageSent" and body.deleted:
        out["deleted"] = True
    return out
