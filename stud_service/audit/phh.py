"""Export a hand as PHH, the open Poker Hand History standard (TOML).

Variant codes: Seven Card Stud ``F7S``, Stud Hi-Lo ``F7S/8``, Razz ``FR``.  Players are numbered from the
dealer's left: ``p1`` is the lowest seat dealt in (RULES.md §1).  Actions::

    d dh p1 AsKd7c      cards dealt to a player (third street: down, down, door; ``??`` = not seen)
    d db 9h             the community card of a short deck (RULES.md §2)
    p2 pb               posts the bring-in
    p1 cbr 200          completes, bets or raises to 200 (the player's total on the street)
    p1 cc               checks or calls
    p1 f                folds
    p1 sm AsKd7c2h5d9s3c   shows at showdown (every card, in the order dealt)
    p1 sm               mucks (the cards stay unseen)

Amounts are the table's chip units: the smallest unit of the table's currency, given in the spec's
optional ``currency`` field (absent for a play-chip table).  The PHH spec has no rake field (its optional
fields and PokerKit's parser know none; PokerKit takes a rake *function* when it replays), so the rake
(RULES.md §10) rides along as user-defined fields: ``_rake`` (the hand's rake), ``_rake_pots`` (what was
taken from each pot, main pot first) and ``_rake_shares`` (each seat's contributed rake, by seat).
``finishing_stacks`` are after the rake.  The hand's audit data ride along as user-defined fields too
(``_commitment``, ``_server_seed``, ``_client_seeds``, ``_table_id``).  A player's export (``player_id``)
holds only what that player saw.
"""

from __future__ import annotations

import json
from datetime import UTC, datetime
from typing import Any

from stud_service.audit.fairness import ShuffleEvidence
from stud_service.audit.history import FULL, hand_events
from stud_service.audit.records import HandRecord
from stud_service.cards import card_str, parse_card

VARIANT_CODES = {"STUD": "F7S", "STUD_HI_LO": "F7S/8", "RAZZ": "FR"}
ACTION_CODES = {"BRING_IN": "pb", "CALL": "cc", "CHECK": "cc", "FOLD": "f"}  # the rest are "cbr <to>"
UNSEEN = "??"


def _cards(cards: list[int | None]) -> str:
    return "".join(UNSEEN if card is None else card_str(card) for card in cards)


def _toml(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, str):
        return json.dumps(value, ensure_ascii=False)  # a TOML basic string uses JSON's escapes
    if isinstance(value, list | tuple):
        return "[" + ", ".join(_toml(item) for item in value) + "]"
    if isinstance(value, dict):
        return "{" + ", ".join(f"{json.dumps(str(k))} = {_toml(v)}" for k, v in value.items()) + "}"
    raise TypeError(f"no TOML for {type(value).__name__}")


def phh_actions(events: list[dict[str, Any]], players: dict[int, str]) -> list[str]:
    """The PHH action lines for a hand's events; ``players`` maps seat -> "p1", "p2", ..."""
    actions: list[str] = []
    third: dict[int, list[int | None]] = {}
    for payload in events:
        kind = payload["type"]
        if kind == "CardDealt":
            card = payload.get("card")
            seat = payload.get("seat")
            if seat is None:
                actions.append(f"d db {_cards([card])}")
            elif payload["street"] == 3:
                third.setdefault(seat, []).append(card)
                if len(third[seat]) == 3:
                    actions.append(f"d dh {players[seat]} {_cards(third[seat])}")
            else:
                actions.append(f"d dh {players[seat]} {_cards([card])}")
        elif kind == "PlayerActed":
            code = ACTION_CODES.get(payload["action"])
            line = f"{players[payload['seat']]} {code or 'cbr'}"
            actions.append(line if code else f"{line} {payload['amount']}")
        elif kind == "HandShown":
            actions.append(f"{players[payload['seat']]} sm {_cards(payload['cards'])}")
        elif kind == "HandMucked":
            actions.append(f"{players[payload['seat']]} sm")
    return actions


def to_phh(record: HandRecord, player_id: str | None = None) -> str:
    """The finished hand as PHH text; ``player_id``: only what that player saw."""
    events = [payload for _version, payload in hand_events(record, player_id or FULL)]
    started, ended = events[0], events[-1]
    config = started["config"]
    seats = [(int(seat), str(player), int(stack)) for seat, player, stack in started["seats"]]
    numbers = {seat: f"p{index + 1}" for index, (seat, _player, _stack) in enumerate(seats)}
    finishing = dict(ended["stacks"])
    at = datetime.fromtimestamp(started["at_ms"] / 1000, UTC)
    fields: list[tuple[str, Any]] = [
        ("variant", VARIANT_CODES[config["variant"]]),
        ("ante_trimming_status", True),
        ("antes", [config["ante"]] * len(seats)),
        ("bring_in", config["bring_in"]),
        ("small_bet", config["small_bet"]),
        ("big_bet", config["big_bet"]),
        ("starting_stacks", [stack for _seat, _player, stack in seats]),
        ("actions", phh_actions(events, numbers)),
        ("table", record.table_id),
        ("hand", record.hand),
        ("seat_count", config["seats"]),
        ("seats", [seat for seat, _player, _stack in seats]),
        ("players", [player for _seat, player, _stack in seats]),
        ("finishing_stacks", [finishing[seat] for seat, _player, _stack in seats]),
        ("year", at.year),
        ("month", at.month),
        ("day", at.day),
        ("time_zone", "UTC"),
        *([("currency", config["currency"])] if config.get("currency") else []),
        ("_table_id", record.table_id),
        ("_commitment", started["commitment"]),
        ("_server_seed", ended.get("server_seed") or ""),
        (
            "_client_seeds",
            {str(k): v for k, v in (started.get("extra") or {}).get("client_seeds", {}).items()},
        ),
        ("_rake", ended.get("rake", 0)),
        ("_rake_pots", [pot.get("rake", 0) for pot in sorted(ended["pots"], key=lambda pot: pot["pot"])]),
        ("_rake_shares", {str(seat): share for seat, share in ended.get("rake_shares", ())}),
    ]
    lines = []
    for name, value in fields:
        if name == "actions":
            lines.append("actions = [\n" + "".join(f"  {_toml(action)},\n" for action in value) + "]")
        else:
            lines.append(f"{name} = {_toml(value)}")
        if name == "day":
            lines.append("time = " + at.strftime("%H:%M:%S"))  # a TOML local time
    return "\n".join(lines) + "\n"


def shuffle_evidence_from_phh(text: str) -> ShuffleEvidence:
    """What a PHH export of ours proves about its deck: commitment, revealed seed, client seeds and the
    cards in the order they were dealt (third street goes round the table one card at a time)."""
    import tomllib

    data = tomllib.loads(text)
    third: list[list[int | None]] = []
    later: list[int | None] = []
    for action in data["actions"]:
        words = action.split()
        if words[:2] == ["d", "dh"] or words[:2] == ["d", "db"]:
            cards = _parse_cards(words[-1])
            if len(cards) == 3 and not later:
                third.append(cards)
            else:
                later.extend(cards)
    order = [hand[i] for i in range(3) for hand in third] + later
    return ShuffleEvidence(
        commitment=str(data.get("_commitment", "")),
        server_seed=str(data["_server_seed"]) if data.get("_server_seed") else None,
        client_seeds={int(seat): str(seed) for seat, seed in dict(data.get("_client_seeds", {})).items()},
        dealt=tuple(order),
    )


def _parse_cards(text: str) -> list[int | None]:
    return [
        None if text[i : i + 2] == UNSEEN else parse_card(text[i : i + 2]) for i in range(0, len(text), 2)
    ]
