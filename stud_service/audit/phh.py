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
    p1 sm ????7c2h      keeps the down cards face down: the betting is over with cards still to come

When the betting stops before seventh street because every player left but one is all-in (RULES.md §4),
the PHH state machine holds a showdown at once and again after each street dealt out, and wants a show or
muck action of each player left there.  The hands are shown only after seventh street (§5), so there each
player shows just their face-up cards, ``??`` for each down card; the real showdown follows the run-out.

Amounts are the table's chip units: the smallest unit of the table's currency, given in the spec's
optional ``currency`` field (absent for a play-chip table).  The PHH spec has no rake field (its optional
fields and PokerKit's parser know none; PokerKit takes a rake *function* when it replays), so the rake
(RULES.md §10) rides along as user-defined fields: ``_rake`` (the hand's rake), ``_rake_pots`` (what was
taken from each pot, main pot first) and ``_rake_shares`` (each seat's contributed rake, by seat).
``finishing_stacks`` are after the rake.  The table chat said during the hand is ``_chat`` (docs/chat.md:
each message's player, text and ``after_actions``, its place among the actions).  The hand's audit data
ride along as user-defined fields too:
``_table_id``, ``_commitment``, ``_client_seeds``, ``_deck_root`` (the Merkle root of the salted deck),
``_commitment_order`` (the log versions of the commitment, of each client seed used and of the deal) and
``_proofs``: the proof of each card the export shows (``stud_service.deck_proof``'s JSON).  A player's
export (``player_id``; ``"public"``: an observer's) holds only what that player saw: their own down cards,
the face-up and shown cards, and the proofs of exactly those; never the server seed, which only the
auditor's export (no ``player_id``) carries in ``_server_seed``.  Hands logged before the Merkle
commitment revealed their seed in the log, so every export of one carries it and no proofs.

A voided hand (RULES.md §12) stops its actions where it was stopped, and says so in fields of ours (the spec
has none for it): ``_voided = true``, ``_void_reason``, ``_voided_by`` (the operator; "" when the table voided
an interrupted hand itself, ``_void_automatic = true``) and ``_void_returned`` (what each seat got back, by
seat); its ``finishing_stacks`` are its starting stacks, with no rake.

A mixed table's hand (RULES.md §13) has the code of the game it was dealt in as its ``variant``, stakes
those of that game, and the table's rotation in fields of ours: ``_rotation`` (the games' codes in turn,
e.g. ``["FR", "F7S", "F7S/8"]``) and ``_hands_per_game``.

A tournament table's hand uses the spec's tournament fields: ``event`` (the tournament's name, else its
id) and ``level`` (the level the hand was dealt at); its stacks are tournament chips, so it has no
``currency``.  The spec has no field for the tournament itself: ``_tournament_id``, and when the
tournament's events are passed in (``TournamentInfo``) ``_buy_in`` and ``_fee`` (in the smallest unit of
``_buy_in_currency``, absent for play money) and ``_finishes``: the players who finished the tournament
in this hand (``player``, ``place``, ``last_place`` when shared, ``prize``; the winner's place is 1).
"""

from __future__ import annotations

import json
from datetime import UTC, datetime
from typing import Any

from stud_service.audit.fairness import CommitmentOrder, ShuffleEvidence, all_dealt_proofs, shown_positions
from stud_service.audit.history import FULL, hand_chat, hand_events, shuffle_evidence
from stud_service.audit.records import HandRecord
from stud_service.audit.tournament_log import TournamentInfo
from stud_service.cards import card_str, parse_card
from stud_service.deck_proof import CardProof
from stud_service.engine.config import DEFAULT_HANDS_PER_GAME
from stud_service.engine.events import started_game

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
    on_table: dict[int, list[int | None]] = {seat: [] for seat in players}  # as dealt; None: a down card
    folded: set[int] = set()
    all_in: set[int] = set()
    street = 0
    for payload in events:
        kind = payload["type"]
        if kind == "CardDealt":
            card = payload.get("card")
            seat = payload.get("seat")
            if payload["street"] != street:
                if _betting_is_over(players, folded, all_in) and street:
                    actions.extend(_face_up_showdown(players, folded, on_table))
                street = payload["street"]
            if seat is None:
                actions.append(f"d db {_cards([card])}")
                continue
            on_table[seat].append(card if payload["face_up"] else None)
            if payload["street"] == 3:
                third.setdefault(seat, []).append(card)
                if len(third[seat]) == 3:
                    actions.append(f"d dh {players[seat]} {_cards(third[seat])}")
            else:
                actions.append(f"d dh {players[seat]} {_cards([card])}")
        elif kind == "AntePosted" and payload["all_in"]:
            all_in.add(payload["seat"])
        elif kind == "PlayerActed":
            code = ACTION_CODES.get(payload["action"])
            line = f"{players[payload['seat']]} {code or 'cbr'}"
            actions.append(line if code else f"{line} {payload['amount']}")
            if payload["action"] == "FOLD":
                folded.add(payload["seat"])
            if payload["all_in"]:
                all_in.add(payload["seat"])
        elif kind == "HandShown":
            actions.append(f"{players[payload['seat']]} sm {_cards(payload['cards'])}")
        elif kind == "HandMucked":
            actions.append(f"{players[payload['seat']]} sm")
    return actions


def _betting_is_over(players: dict[int, str], folded: set[int], all_in: set[int]) -> bool:
    """Two or more players left, all of them all-in but at most one (RULES.md §4: the cards are dealt out)."""
    left = [seat for seat in players if seat not in folded]
    return len(left) > 1 and sum(seat not in all_in for seat in left) <= 1


def _face_up_showdown(
    players: dict[int, str], folded: set[int], on_table: dict[int, list[int | None]]
) -> list[str]:
    """Each player left shows only their face-up cards (``??`` for each down card)."""
    return [f"{label} sm {_cards(on_table[seat])}" for seat, label in players.items() if seat not in folded]


def to_phh(record: HandRecord, player_id: str | None = None, tournament: TournamentInfo | None = None) -> str:
    """The finished hand as PHH text; ``player_id``: only what that player saw; ``tournament``: the
    tournament a tournament table's hand was dealt for."""
    events = [payload for _version, payload in hand_events(record, player_id or FULL)]
    started, ended = events[0], events[-1]
    config = started["config"]
    seats = [(int(seat), str(player), int(stack)) for seat, player, stack in started["seats"]]
    numbers = {seat: f"p{index + 1}" for index, (seat, _player, _stack) in enumerate(seats)}
    finishing = dict(ended["stacks"])
    at = datetime.fromtimestamp(started["at_ms"] / 1000, UTC)
    fields: list[tuple[str, Any]] = [
        ("variant", VARIANT_CODES[started_game(started)]),  # the hand's game (RULES.md §13)
        ("ante_trimming_status", True),
        ("antes", [config["ante"]] * len(seats)),
        ("bring_in", config["bring_in"]),
        ("small_bet", config["small_bet"]),
        ("big_bet", config["big_bet"]),
        ("starting_stacks", [stack for _seat, _player, stack in seats]),
        ("actions", phh_actions(events, numbers)),
        ("table", record.table_id),
        ("hand", record.hand),
        *_tournament_fields(record, config, tournament),
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
        *_rotation_fields(config),
        *_evidence_fields(record, player_id or FULL),
        ("_rake", ended.get("rake", 0)),
        ("_rake_pots", [pot.get("rake", 0) for pot in sorted(ended["pots"], key=lambda pot: pot["pot"])]),
        ("_rake_shares", {str(seat): share for seat, share in ended.get("rake_shares", ())}),
        *_void_fields(record),
        *_chat_fields(record, player_id or FULL, events, numbers),
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


def _chat_fields(
    record: HandRecord, mode: str, events: list[dict[str, Any]], numbers: dict[int, str]
) -> list[tuple[str, Any]]:
    """The table chat said during the hand (docs/chat.md), as ``_chat``: each message's ``player``, ``text``
    and ``after_actions``, how many of ``actions`` came before it; an auditor's export also holds the
    messages an operator deleted, with ``deleted = true``.  None said: no field."""
    chat = hand_chat(record, mode)
    if not chat:
        return []
    versions = [version for version, _payload in hand_events(record, mode)]
    lines = []
    for version, said in chat:
        before = [payload for v, payload in zip(versions, events, strict=True) if v < version]
        line: dict[str, Any] = {"player": said["player_id"], "text": said["text"],
                                "after_actions": len(phh_actions(before, numbers))}
        if said.get("deleted"):
            line["deleted"] = True
        lines.append(line)
    return [("_chat", lines)]
def _void_fields(record: HandRecord) -> list[tuple[str, Any]]:
    """A voided hand's fields (RULES.md §12); none for a hand played to its end."""
    voided = record.voided
    if voided is None:
        return []
    return [
        ("_voided", True),
        ("_void_reason", voided["reason"]),
        ("_voided_by", voided["operator"]),
        ("_void_automatic", bool(voided["automatic"])),
        ("_void_returned", {str(seat): amount for seat, amount in voided["returned"]}),
    ]


def _rotation_fields(config: dict[str, Any]) -> list[tuple[str, Any]]:
    """A mixed table's ``_rotation`` (its games' codes, in turn) and ``_hands_per_game``; none otherwise."""
    rotation = config.get("rotation") or []
    if not rotation:
        return []
    return [("_rotation", [VARIANT_CODES[game] for game in rotation]),
            ("_hands_per_game", config.get("hands_per_game", DEFAULT_HANDS_PER_GAME))]


def _tournament_fields(
    record: HandRecord, config: dict[str, Any], tournament: TournamentInfo | None
) -> list[tuple[str, Any]]:
    """A tournament hand's ``event`` and ``level`` and our fields of the tournament (none at a cash table)."""
    tournament_id = config.get("tournament_id")
    if not tournament_id:
        return []
    if tournament is not None and tournament.tournament_id != tournament_id:
        tournament = None
    fields: list[tuple[str, Any]] = [
        ("event", tournament.name if tournament is not None and tournament.name else tournament_id),
        ("level", config.get("tournament_level", 0)),
        ("_tournament_id", tournament_id),
    ]
    if tournament is None or tournament.buy_in is None:
        return fields
    fields += [("_buy_in", tournament.buy_in), ("_fee", tournament.fee)]
    if tournament.currency:
        fields.append(("_buy_in_currency", tournament.currency))
    finishes = tournament.finishers(record.table_id, record.hand)
    if finishes:
        fields.append(("_finishes", [
            {"player": f.player_id, "place": f.place, "last_place": f.last_place, "prize": f.prize}
            for f in finishes
        ]))
    return fields


def _evidence_fields(record: HandRecord, mode: str) -> list[tuple[str, Any]]:
    """The shuffle's evidence as ``mode`` may see it (``history.shuffle_evidence``)."""
    evidence = shuffle_evidence(record, mode)
    fields: list[tuple[str, Any]] = [("_commitment", evidence.commitment)]
    if evidence.server_seed is not None:
        fields.append(("_server_seed", evidence.server_seed))
    seeds = {str(seat): seed for seat, seed in sorted(evidence.client_seeds.items())}
    fields.append(("_client_seeds", seeds))
    if evidence.deck_root is not None:
        fields.append(("_deck_root", evidence.deck_root))
    order = evidence.order
    if order is not None:
        fields.append((
            "_commitment_order",
            {
                "commitment_version": order.commitment_version,
                "committed": order.committed or "",
                "committed_hand": order.committed_hand or 0,
                "client_seed_versions": {
                    str(seat): version or 0 for seat, version in sorted(order.seed_versions.items())
                },
                "started_version": order.started_version,
            },
        ))
    proofs = list(evidence.proofs)
    seed = record.server_seed()
    if mode == FULL and evidence.deck_root is not None and seed is not None:
        # The auditor's export proves every card dealt on its own, without recomputing the deck.
        own = [stored.payload for stored in record.events if stored.payload.get("hand") == record.hand]
        proofs = all_dealt_proofs(own, seed)
    if proofs:
        fields.append(("_proofs", [proof.to_json() for proof in proofs]))
    return fields


class MalformedExport(ValueError):
    """A PHH file's audit fields are not what an export of ours writes (names the field)."""


def _order_from_phh(data: dict[str, Any]) -> CommitmentOrder | None:
    order = data.get("_commitment_order")
    if order is None:
        return None
    try:
        return CommitmentOrder(
            commitment_version=int(order["commitment_version"]),
            committed=str(order["committed"]) or None,
            committed_hand=int(order["committed_hand"]) or None,
            seed_versions={
                int(seat): int(version) or None
                for seat, version in dict(order["client_seed_versions"]).items()
            },
            started_version=int(order["started_version"]),
        )
    except (KeyError, TypeError, ValueError) as error:
        raise MalformedExport(f"_commitment_order is malformed: {error}") from None


def shuffle_evidence_from_phh(text: str) -> ShuffleEvidence:
    """What a PHH export of ours proves about its deck: commitment, deck root, client seeds, the cards
    in the order they were dealt (third street goes round the table one card at a time), the shown
    hands, the proofs and, in an auditor's export, the server seed.  A malformed proof raises
    ``deck_proof.MalformedProof`` naming its position; other malformed audit fields MalformedExport."""
    import tomllib

    data = tomllib.loads(text)
    labels = {f"p{index + 1}": int(seat) for index, seat in enumerate(data.get("seats", []))}
    third: list[tuple[int | None, list[int | None]]] = []
    later: list[tuple[int | None, int | None]] = []
    shown: dict[int, list[int]] = {}
    for action in data["actions"]:
        words = action.split()
        if words[:2] == ["d", "dh"] or words[:2] == ["d", "db"]:
            seat = labels.get(words[2]) if words[1] == "dh" else None
            cards = _parse_cards(words[-1])
            if len(cards) == 3 and not later:
                third.append((seat, cards))
            else:
                later.extend((seat, card) for card in cards)
        elif len(words) == 3 and words[1] == "sm" and words[0] in labels and UNSEEN not in words[2]:
            # A show with down cards kept face down (``??``, the betting over before seventh street) shows
            # no hand: the hand is shown after the run-out.
            shown[labels[words[0]]] = [card for card in _parse_cards(words[2]) if card is not None]
    order = [(seat, cards[i]) for i in range(3) for seat, cards in third] + later
    proofs = data.get("_proofs", [])
    if not isinstance(proofs, list):
        raise MalformedExport("_proofs must be a list of card proofs")
    root = data.get("_deck_root")
    return ShuffleEvidence(
        commitment=str(data.get("_commitment", "")),
        server_seed=str(data["_server_seed"]) if data.get("_server_seed") else None,
        client_seeds={int(seat): str(seed) for seat, seed in dict(data.get("_client_seeds", {})).items()},
        dealt=tuple(card for _seat, card in order),
        deck_root=str(root) if root else None,
        shown=shown_positions([seat for seat, _card in order], shown),
        proofs=tuple(CardProof.from_json(proof) for proof in proofs),
        order=_order_from_phh(data),
        hand=data.get("hand") if isinstance(data.get("hand"), int) else None,
    )


def _parse_cards(text: str) -> list[int | None]:
    return [
        None if text[i : i + 2] == UNSEEN else parse_card(text[i : i + 2]) for i in range(0, len(text), 2)
    ]
