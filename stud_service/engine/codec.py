"""Events and states to and from plain JSON.

``event_to_json(e)`` gives ``{"type": <class name>, "v": <schema version>, ...fields}`` with only
JSON values (tuples become lists, enums their names, the TableConfig a dict).  Hand events carry
``"hand"``.  ``event_from_json`` reads it back and raises ``EventDecodeError`` for an unknown type,
a missing or unexpected field, or a schema version newer than this code knows.

``state_to_json`` / ``state_from_json`` serve snapshots; a snapshot whose ``"format"`` is not
``STATE_FORMAT_VERSION`` is refused (the store then replays from the events instead).
"""

from __future__ import annotations

import copy
import dataclasses
import enum
from typing import Any

from stud_service.engine.commands import ActionKind
from stud_service.engine.config import TableConfig, Variant, config_from_json, config_to_json
from stud_service.engine.control import TableControl
from stud_service.engine.errors import InvalidConfig
from stud_service.engine.events import EVENT_TYPES, EVENT_VERSIONS
from stud_service.engine.state import ChatState, HandPlayer, HandState, SeatState, TableState

# 2: the table's turn count (``turns``) and each seat's sit-out reason are kept; a format-1 snapshot
# lacks them, so the table is folded from its events instead (a guessed count would give replicas
# different turn numbers).
# 3: the table's rake so far (``rake_taken``); a format-2 snapshot lacks it, so the table is folded
# from its events instead.
# 4: the running hand's fold order (``folds``, RULES.md §5: a pot whose players all folded goes to the
# last of them); a format-3 snapshot lacks it, so the table is folded from its events instead.
# 5: the table's operator status and last void (``control``, RULES.md §12); a format-4 snapshot lacks it,
# so the table is folded from its events instead.
# 6: the time bank's reserves and running turn (``banks``, ``bank_turn``, RULES.md §7) and the chat's state
# (``chat``: its message count, the muted players, the deleted messages, the times the rate limit counts);
# a format-5 snapshot lacks them, so the table is folded from its events instead.
# 7: the hands counted toward a mixed table's rotation (``rotation_hands``), the running hand's game and the
# config it was dealt with (RULES.md §13); a format-6 snapshot lacks them, so the table is folded from its
# events instead.
STATE_FORMAT_VERSION = 7
# Hand-state fields added after format 1 was first written: absent in older snapshots, None then.
_OPTIONAL_HAND_FIELDS = frozenset({"server_seed"})


class EventDecodeError(ValueError):
    """Stored JSON that is not an event this code can read."""


class StateDecodeError(ValueError):
    """A snapshot this code cannot read."""


def _to_json(value: Any) -> Any:
    if isinstance(value, tuple | list):
        return [_to_json(v) for v in value]
    if isinstance(value, dict):
        return {k: _to_json(v) for k, v in value.items()}
    if isinstance(value, enum.Enum):
        return value.value
    if isinstance(value, TableConfig):
        return config_to_json(value)
    return value


def _frozen(value: Any) -> Any:
    if isinstance(value, list):  # most are flat lists of numbers: recurse only into what nests
        return tuple([_frozen(v) if isinstance(v, list | dict) else v for v in value])
    if isinstance(value, dict):
        return {k: _frozen(v) for k, v in value.items()}
    return value


# Plain JSON the engine carries without reading: audit data (HandStarted.extra), the committed seed.
_OPAQUE_FIELDS = frozenset({"extra", "secret"})

_FIELDS: dict[type, tuple[dataclasses.Field, ...]] = {
    cls: dataclasses.fields(cls) for cls in EVENT_TYPES.values()}


def event_to_json(event: Any) -> dict[str, Any]:
    cls = type(event)
    out: dict[str, Any] = {"type": cls.__name__, "v": EVENT_VERSIONS[cls]}
    for f in _FIELDS[cls]:
        value = getattr(event, f.name)
        out[f.name] = value if f.name in _OPAQUE_FIELDS else _to_json(value)
    return out


def _is_tuple(annotation: object) -> bool:
    """A tuple field: its annotation is a string under Python, the type itself once compiled."""
    return annotation is tuple or (isinstance(annotation, str) and annotation.startswith("tuple"))


def _decode_field(name: str, annotation: object, value: Any) -> Any:
    if name == "config":
        return config_from_json(value)
    if name == "action":
        return ActionKind(value)
    if name == "game":
        return _game(value)
    if name in _OPAQUE_FIELDS:
        return value
    if _is_tuple(annotation):
        return _frozen(value)
    return value


# Per event type, what decoding needs, worked out once rather than per event: each field's name and
# how to decode it, the exact key set of a payload with every field, and the newest version.
_FULL_KEYS: dict[str, tuple[type, frozenset[str], int, tuple[tuple[str, Any], ...]]] = {}
_ACTION_KINDS = {kind.value: kind for kind in ActionKind}  # a dict look-up: a tenth of ActionKind(value)


# The last table config decoded, with a copy of its JSON: every hand of a table carries the same
# config, and a TableConfig is frozen, so one built from the same JSON can stand for another.
_last_config: tuple[dict[str, Any], TableConfig] | None = None


def _config_from_json(value: Any) -> TableConfig:
    global _last_config
    last = _last_config
    if last is not None and type(value) is dict and value == last[0] and all(
            type(item) is type(last[0][key]) for key, item in value.items()):  # 1 == True, 1 == 1.0
        return last[1]
    config = config_from_json(value)
    _last_config = (copy.deepcopy(value), config)
    return config


def _field_decoder(name: str, annotation: object) -> Any:
    if name == "config":
        return _config_from_json
    if name == "action":
        return _ACTION_KINDS.__getitem__  # a KeyError for an unknown one: the checked path names it
    if name == "game":
        return _game
    if name in _OPAQUE_FIELDS:
        return None
    if _is_tuple(annotation):
        return _frozen
    return None


def _game(value: Any) -> Variant | None:
    """HandStarted's game (RULES.md §13): a Variant's name, or null (the table's variant)."""
    return None if value is None else Variant(value)


def _plan(cls: type) -> None:
    _FULL_KEYS[cls.__name__] = (
        cls, frozenset({"type", "v"} | {f.name for f in _FIELDS[cls]}), EVENT_VERSIONS[cls],
        tuple((f.name, _field_decoder(f.name, f.type)) for f in _FIELDS[cls]))


def event_from_json(data: Any) -> Any:
    """The event ``data`` holds (see the module's docstring)."""
    # The replay path: a payload with every field of its type, as this code writes them, is built
    # straight from its values. Anything else, and anything that fails on the way, takes the
    # checked path, which decodes the same way and names what is wrong.
    if type(data) is dict:
        name = data.get("type")
        entry = _FULL_KEYS.get(name) if type(name) is str else None
        if entry is not None:
            cls, keys, newest, decoders = entry
            version = data.get("v")
            if type(version) is int and version <= newest and data.keys() == keys:
                try:
                    return cls(*[data[field] if decode is None else decode(data[field])
                                 for field, decode in decoders])
                except (ValueError, TypeError, KeyError, InvalidConfig):
                    pass
    return _event_from_json_checked(data)


def _event_from_json_checked(data: Any) -> Any:
    if not isinstance(data, dict):
        raise EventDecodeError(f"an event is a JSON object, got {type(data).__name__}")
    name = data.get("type")
    cls = EVENT_TYPES.get(name) if isinstance(name, str) else None
    if cls is None:
        raise EventDecodeError(f"unknown event type {name!r}")
    version = data.get("v")
    if not isinstance(version, int):
        raise EventDecodeError(f"{name}: missing schema version 'v'")
    if version > EVENT_VERSIONS[cls]:
        raise EventDecodeError(
            f"{name} v{version} is newer than this code reads (v{EVENT_VERSIONS[cls]}); upgrade")
    known = {f.name for f in _FIELDS[cls]}
    unexpected = set(data) - known - {"type", "v"}
    if unexpected:
        raise EventDecodeError(f"{name}: unexpected field {sorted(unexpected)[0]!r}")
    values = {}
    for f in _FIELDS[cls]:
        if f.name not in data:
            if f.default is not dataclasses.MISSING:
                continue
            raise EventDecodeError(f"{name}: missing field {f.name!r}")
        try:
            values[f.name] = _decode_field(f.name, f.type, data[f.name])
        except (ValueError, TypeError, InvalidConfig) as exc:
            raise EventDecodeError(f"{name}: bad field {f.name!r}: {exc}") from None
    try:
        return cls(**values)
    except TypeError as exc:  # a compiled event checks its fields' types (setup.py)
        raise EventDecodeError(f"{name}: {exc}") from None


for _cls in EVENT_TYPES.values():
    _plan(_cls)


# --- snapshots --------------------------------------------------------------------------------

def state_to_json(state: TableState) -> dict[str, Any]:
    hand = state.hand
    return {
        "format": STATE_FORMAT_VERSION,
        "table_id": state.table_id,
        "config": config_to_json(state.config) if state.config is not None else None,
        "seats": [[seat, s.player_id, s.stack, s.sitting_out, s.leaving, s.sit_out_reason]
                  for seat, s in sorted(state.seats.items())],
        "hand_number": state.hand_number,
        "waiting": list(state.waiting),
        "offers": [list(offer) for offer in state.offers],
        "turns": state.turns,
        "rake_taken": state.rake_taken,
        "control": state.control.to_json(),
        "banks": [[seat, reserve, hands] for seat, (reserve, hands) in sorted(state.banks.items())],
        "bank_turn": state.bank_turn,
        "chat": _chat_to_json(state.chat),
        "rotation_hands": state.rotation_hands,
        "hand": None if hand is None else {
            **{name: _to_json(getattr(hand, name)) for name in HandState.FIELDS if name != "players"},
            "players": [[getattr(p, name) for name in HandPlayer.FIELDS] for p in hand.players.values()],
        },
    }


def state_from_json(data: Any) -> TableState:
    if not isinstance(data, dict) or data.get("format") != STATE_FORMAT_VERSION:
        raise StateDecodeError(f"snapshot format {data.get('format') if isinstance(data, dict) else None!r}"
                               f" is not {STATE_FORMAT_VERSION}")
    try:
        state = TableState()
        state.table_id = data["table_id"]
        state.config = config_from_json(data["config"]) if data["config"] is not None else None
        state.seats = {seat: SeatState(pid, stack, out, leaving, sit_out_reason=reason)
                       for seat, pid, stack, out, leaving, reason in data["seats"]}
        state.hand_number = data["hand_number"]
        # Absent from snapshots written before the waiting list: nobody waited then.
        state.waiting = tuple(data.get("waiting", ()))
        state.offers = tuple((player, seat, deadline) for player, seat, deadline in data.get("offers", ()))
        state.turns = data["turns"]
        state.rake_taken = data["rake_taken"]
        state.control = TableControl.from_json(data["control"])
        state.banks = {seat: (reserve, hands) for seat, reserve, hands in data["banks"]}
        state.bank_turn = data["bank_turn"]
        state.chat = _chat_from_json(data["chat"])
        state.rotation_hands = data["rotation_hands"]
        raw = data["hand"]
        if raw is not None:
            hand = HandState(raw["number"], tuple(raw["deck"]), {}, raw["turn_ms"], tuple(raw["order"]),
                             Variant(raw["game"]), config_from_json(raw["config"]))
            for name in HandState.FIELDS:
                if name not in ("players", "deck", "order", "folds", "game", "config"):  # set apart
                    setattr(hand, name, raw.get(name) if name in _OPTIONAL_HAND_FIELDS else raw[name])
            hand.folds = tuple(raw["folds"])
            players = {}
            for row in raw["players"]:
                player = HandPlayer(row[0], row[1])
                for name, value in zip(HandPlayer.FIELDS, row, strict=True):
                    setattr(player, name, value)
                players[player.seat] = player
            hand.players = players
            state.hand = hand
        return state
    except (KeyError, TypeError, ValueError) as exc:
        raise StateDecodeError(f"snapshot is malformed: {exc}") from None


def _chat_to_json(chat: ChatState) -> dict[str, Any]:
    return {"messages": chat.messages, "muted": sorted(chat.muted), "deleted": sorted(chat.deleted),
            "sent": {player: list(times) for player, times in sorted(chat.sent.items())}}


def _chat_from_json(data: dict[str, Any]) -> ChatState:
    return ChatState(data["messages"], frozenset(data["muted"]), frozenset(data["deleted"]),
                     {player: tuple(times) for player, times in data["sent"].items()})
