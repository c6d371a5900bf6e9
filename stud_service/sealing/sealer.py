"""Which fields of which event are secret, and sealing them: ``EventSealer.seal`` / ``EventSealer.open``.

Secret at rest: ``ShuffleCommitted.secret`` (the committed server seed), ``HandStarted.deck`` (and a
``HandStarted.extra.server_seed``, should one be present) and ``CardDealt.card`` when ``face_up`` is false;
on a tournament's stream, the committed draw seed ``DrawCommitted.secret`` (its ``DrawRevealed`` is public:
what it draws is, docs/tournaments.md "Who sees a draw's seed").
A sealed event has those fields set to ``null`` and a ``"sealed"`` member::

    {"kid": "k2", "key": "<base64 wrapped data key>", "box": "<base64 nonce||ct of removed fields>", "v": 2}

A box opens only at its own place: the stream, the event's version and its fields in the clear are the box's
associated data (``v`` 2), so a box copied to another seat, street or event does not open (boxes without
``v``, written before, are bound to stream, event type and hand, and still open).

Each hand has its own data key (DEK), made when the hand's ``ShuffleCommitted`` is sealed (a tournament's
draw, numbered as a hand is, when its ``DrawCommitted`` is) and wrapped with
the active KEK; the hand's later events are sealed with the same DEK, found in a small per-stream cache that
sealing a ShuffleCommitted and opening any sealed event fill. The cache keeps the stream's highest hand
numbers (the running hand and the one committed next), so opening older hands (a replay, a verification, an
export of a live table's history) never pushes out a key the live table still seals with. An event of a hand
whose DEK is unknown raises :class:`NoDataKey`: the store then reads the stream's newest sealed events (which
fills the cache) and tries once more, when a HandStarted still without one (its hand was committed in
plaintext, before sealing) makes a data key of its own. Nothing is ever stored in plaintext instead.
"""

from __future__ import annotations

import logging
import os
from collections.abc import Callable, Iterable, Mapping
from typing import Any

from stud_service.sealing.cipher import (
    Undecryptable,
    box_aad,
    box_aad_v1,
    dek_aad,
    open_box,
    seal_box,
    snapshot_aad,
    unwrap_key,
    wrap_key,
)
from stud_service.sealing.errors import MissingKey, NoDataKey, TamperedBox, UndecryptableKey
from stud_service.sealing.keyring import Keyring

_log = logging.getLogger(__name__)

COMMIT_EVENT = "ShuffleCommitted"
DRAW_COMMIT_EVENT = "DrawCommitted"  # a tournament's draw: its seed is committed, sealed, as a hand's is
COMMIT_EVENTS = frozenset({COMMIT_EVENT, DRAW_COMMIT_EVENT})
SNAPSHOT_MEMBER = "sealed_state"
START_EVENT = "HandStarted"
HANDS_KEPT = 3  # data keys kept per stream, the highest hands: the running one, the next (committed), a spare
UNWRAPPED_KEPT = 4096
BOX_VERSION = 2  # boxes bound to their place (cipher.box_aad); absent: cipher.box_aad_v1

Path = tuple[str, ...]
_DECK: Path = ("deck",)
_SEED: Path = ("extra", "server_seed")


def _commit_secrets(payload: Mapping[str, Any]) -> list[Path]:
    return [("secret",)] if payload.get("secret") is not None else []


def _deal_secrets(payload: Mapping[str, Any]) -> list[Path]:
    paths = [_DECK] if payload.get("deck") is not None else []
    extra = payload.get("extra")
    if isinstance(extra, dict) and extra.get("server_seed") is not None:
        paths.append(_SEED)
    return paths


def _card_secrets(payload: Mapping[str, Any]) -> list[Path]:
    return [("card",)] if payload.get("face_up") is False and payload.get("card") is not None else []


# Event type -> the paths of its secret fields present in this payload. Any other type has none.
SECRET_FIELDS: dict[str, Callable[[Mapping[str, Any]], list[Path]]] = {
    COMMIT_EVENT: _commit_secrets,
    START_EVENT: _deal_secrets,
    "CardDealt": _card_secrets,
    DRAW_COMMIT_EVENT: _commit_secrets,
}
# The member that numbers the data key of an event without ``hand``: the hand a ShuffleCommitted commits
# to, the draw a DrawCommitted commits to.
_KEY_NUMBER = {COMMIT_EVENT: "next_hand", DRAW_COMMIT_EVENT: "draw"}


def hand_of(payload: Mapping[str, Any]) -> Any:
    """The hand an event's secrets belong to: ``hand``, or ``next_hand`` for a ShuffleCommitted, or the
    ``draw`` of a tournament's DrawCommitted."""
    hand = payload.get("hand")
    member = _KEY_NUMBER.get(payload.get("type"))  # type: ignore[arg-type]
    return payload.get(member) if hand is None and member is not None else hand


class EventSealer:
    """Seals and opens event payloads with the keys of ``keyring`` (see the module's docstring)."""

    def __init__(self, keyring: Keyring) -> None:
        self.keyring = keyring
        self._hands: dict[
            str, dict[int, tuple[str, str, bytes]]
        ] = {}  # stream -> hand -> (kid, wrapped, dek)
        self._unwrapped: dict[tuple[str, str, str, int], bytes] = {}
        # (old kid, wrapped with it) -> (new kid, wrapped with that): from the key registry's rewraps.
        self._rewraps: dict[tuple[str, str], tuple[str, str]] = {}
        self._recalled_streams: set[str] = set()

    def add_rewraps(self, entries: Iterable[tuple[str, str, str, str]]) -> None:
        """Re-wrapped data keys ``(old kid, old wrapped, new kid, new wrapped)``: hands sealed with a key
        that has left the keyring open through them."""
        for old_kid, old_wrapped, new_kid, new_wrapped in entries:
            self._rewraps[(old_kid, old_wrapped)] = (new_kid, new_wrapped)

    # -- sealing -----------------------------------------------------------------------------------------

    def seal(self, stream_id: str, version: int, payload: dict[str, Any]) -> dict[str, Any]:
        """``payload``, to be stored at ``version`` of the stream, with its secret fields sealed: a new dict,
        or ``payload`` itself when it has none."""
        secrets_of = SECRET_FIELDS.get(payload.get("type"))  # type: ignore[arg-type]
        if secrets_of is None or "sealed" in payload:
            return payload
        paths = secrets_of(payload)
        if not paths:
            return payload
        event_type = payload["type"]
        hand = _checked_hand(stream_id, payload)
        known = self._hands.get(stream_id, {}).get(hand)
        if event_type in COMMIT_EVENTS or (
            known is None and event_type == START_EVENT and self._recalled(stream_id)
        ):
            kid, wrapped, dek = self._new_data_key(stream_id, hand)
        elif known is None:
            raise NoDataKey(stream_id, hand)
        else:
            kid, wrapped, dek = known
        sealed = dict(payload)
        removed: dict[str, Any] = {}
        for path in paths:
            if len(path) == 1:
                removed[path[0]] = sealed[path[0]]
                sealed[path[0]] = None
            else:
                parent, child = path
                inner = dict(sealed[parent])
                removed[".".join(path)] = inner[child]
                inner[child] = None
                sealed[parent] = inner
        box = seal_box(dek, removed, box_aad(stream_id, version, sealed))
        sealed["sealed"] = {"kid": kid, "key": wrapped, "box": box, "v": BOX_VERSION}
        return sealed

    def recalled(self, stream_id: str) -> None:
        """The store read the stream's newest sealed events (after :class:`NoDataKey`): a HandStarted whose
        hand still has no data key (a hand committed before commitments were sealed) may now make one."""
        self._recalled_streams.add(stream_id)

    def _recalled(self, stream_id: str) -> bool:
        if stream_id in self._recalled_streams:
            self._recalled_streams.discard(stream_id)
            return True
        return False

    def _new_data_key(self, stream_id: str, hand: int) -> tuple[str, str, bytes]:
        kid = self.keyring.active
        dek = os.urandom(32)
        wrapped = wrap_key(self.keyring.key(kid), dek, dek_aad(kid, stream_id, hand))
        self._remember(stream_id, hand, kid, wrapped, dek)
        return kid, wrapped, dek

    def _remember(self, stream_id: str, hand: int, kid: str, wrapped: str, dek: bytes) -> None:
        """Keep ``hand``'s data key for sealing unless the stream already holds as many higher hands: the
        lowest hand is the one forgotten, so reading history never evicts the live hand's key."""
        hands = self._hands.setdefault(stream_id, {})
        if hand not in hands and len(hands) >= HANDS_KEPT:
            lowest = min(hands)
            if hand < lowest:
                return
            del hands[lowest]
        hands[hand] = (kid, wrapped, dek)

    # -- snapshots ---------------------------------------------------------------------------------------

    def seal_snapshot(self, stream_id: str, version: int, state: dict[str, Any]) -> dict[str, Any]:
        """A whole table state sealed with the active KEK (it may hold the last hand's deck)."""
        kid = self.keyring.active
        box = seal_box(self.keyring.key(kid), state, snapshot_aad(kid, stream_id, version))
        return {SNAPSHOT_MEMBER: {"kid": kid, "box": box}}

    def open_snapshot(self, stream_id: str, version: int, state: dict[str, Any]) -> dict[str, Any] | None:
        """The state of a sealed snapshot; None (the table is replayed instead) when its key has left the
        keyring or its box does not open. A snapshot stored unsealed is never used."""
        sealed = state.get(SNAPSHOT_MEMBER) if len(state) == 1 else None
        if not isinstance(sealed, dict) or sealed.get("kid") not in self.keyring.keys:
            return None
        kid = sealed["kid"]
        try:
            return open_box(self.keyring.key(kid), sealed.get("box"), snapshot_aad(kid, stream_id, version))
        except Undecryptable:
            _log.warning(
                "%s: the snapshot at version %d does not open with key %r; replaying instead",
                stream_id,
                version,
                kid,
            )
            return None

    # -- opening -----------------------------------------------------------------------------------------

    def open(self, stream_id: str, version: int, payload: dict[str, Any]) -> dict[str, Any]:
        """The plaintext event of a sealed ``payload`` stored at ``version``; a payload without
        ``"sealed"`` is returned as is."""
        sealed = payload.get("sealed")
        if sealed is None:
            return payload
        event_type = payload.get("type")
        hand = _checked_hand(stream_id, payload)
        # (a box that is not a string fails to decrypt below, as tampered)
        if not (
            isinstance(sealed, dict)
            and isinstance(sealed.get("kid"), str)
            and isinstance(sealed.get("key"), str)
        ):
            raise TamperedBox(f"{stream_id} hand {hand}: the sealed {event_type} is malformed")
        kid, wrapped = sealed["kid"], sealed["key"]
        dek = self._unwrap(stream_id, hand, kid, wrapped)
        opened = dict(payload)
        del opened["sealed"]
        if sealed.get("v") == BOX_VERSION:
            aad = box_aad(stream_id, version, opened)
        elif "v" in sealed:
            raise TamperedBox(f"{stream_id} hand {hand}: the sealed {event_type} has an unknown form")
        else:
            aad = box_aad_v1(stream_id, str(event_type), hand)
        try:
            removed = open_box(dek, sealed["box"], aad)
        except Undecryptable as error:
            raise TamperedBox(
                f"{stream_id} hand {hand}: the sealed {event_type} does not open"
                f" with its data key (tampered box: {error})"
            ) from None
        known = self._hands.get(stream_id, {}).get(hand)
        if known is None or known[1] != wrapped:
            self._remember(stream_id, hand, kid, wrapped, dek)
        for name, value in removed.items():
            parent, dot, child = name.partition(".")
            if dot:
                inner = dict(opened.get(parent) or {})
                inner[child] = value
                opened[parent] = inner
            else:
                opened[name] = value
        return opened

    def _unwrap(self, stream_id: str, hand: int, kid: str, wrapped: str) -> bytes:
        cache_key = (kid, wrapped, stream_id, hand)
        dek = self._unwrapped.get(cache_key)
        if dek is not None:
            return dek
        use_kid, use_wrapped = kid, wrapped
        if kid not in self.keyring.keys:
            rewrap = self._rewraps.get((kid, wrapped))
            if rewrap is None:
                raise MissingKey(
                    kid,
                    f"{stream_id} hand {hand}: sealed with key {kid!r}, which is not in"
                    f" the keyring ({self.keyring.source}) and has no re-wrap",
                )
            use_kid, use_wrapped = rewrap
        try:
            dek = unwrap_key(self.keyring.key(use_kid), use_wrapped, dek_aad(use_kid, stream_id, hand))
        except Undecryptable:
            raise UndecryptableKey(
                f"{stream_id} hand {hand}: the data key wrapped with key {use_kid!r} does not decrypt"
                " (forged or altered wrapped key, or a wrong key under that id)"
            ) from None
        if len(self._unwrapped) >= UNWRAPPED_KEPT:
            self._unwrapped.clear()
        self._unwrapped[cache_key] = dek
        return dek


def _checked_hand(stream_id: str, payload: Mapping[str, Any]) -> int:
    hand = hand_of(payload)
    if isinstance(hand, bool) or not isinstance(hand, int):
        raise TamperedBox(f"{stream_id}: a {payload.get('type')} with secrets names no hand")
    return hand
