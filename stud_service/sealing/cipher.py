"""AES-256-GCM with 12-byte random nonces: a hand's data key wrapped by a KEK, a hand's secrets in a box.

Both travel as base64 of ``nonce || ciphertext``. The associated data binds each to where it belongs, so a
wrapped key copied to another stream, hand or key id does not open, and a box opens only in its own event: the
stream, the version, and every field of the event left in the clear (type, hand, seat, street, face up ...).
Boxes written before that (``box_aad_v1``) are bound to the stream, event type and hand only, and still open.
"""

from __future__ import annotations

import base64
import binascii
import functools
import os
from typing import Any

from cryptography.exceptions import InvalidTag
from cryptography.hazmat.primitives.ciphers.aead import AESGCM

from stud_service.store import canonical_json
from stud_service.store._json import loads  # orjson when installed: opening is on every replay

NONCE_BYTES = 12


class Undecryptable(Exception):
    """Authentication failed, or the text is not ``base64(nonce || ciphertext)``; callers say where."""


def dek_aad(kid: str, stream_id: str, hand: int) -> bytes:
    return f"stud-service/dek/v1|{kid}|{stream_id}|{hand}".encode()


def box_aad_v1(stream_id: str, event_type: str, hand: int) -> bytes:
    """The associated data of boxes sealed before they were bound to their place: read, never written."""
    return f"stud-service/sealed/v1|{stream_id}|{event_type}|{hand}".encode()


def box_aad(stream_id: str, version: int, public: dict[str, Any]) -> bytes:
    """A box's place: its stream, its version, and the event's fields in the clear (``public``, the sealed
    payload without its ``"sealed"`` member)."""
    return f"stud-service/sealed/v2|{len(stream_id)}:{stream_id}|{version}|".encode() + canonical_json(public)


@functools.lru_cache(maxsize=1024)
def _aead(key: bytes) -> AESGCM:
    # Building the cipher costs about three decryptions of a small box: one per key, reused.
    return AESGCM(key)


def snapshot_aad(kid: str, stream_id: str, version: int) -> bytes:
    return f"stud-service/snapshot/v1|{kid}|{stream_id}|{version}".encode()


def encrypt(key: bytes, plaintext: bytes, aad: bytes) -> str:
    nonce = os.urandom(NONCE_BYTES)
    return base64.b64encode(nonce + _aead(key).encrypt(nonce, plaintext, aad)).decode()


def decrypt(key: bytes, text: Any, aad: bytes) -> bytes:
    if not isinstance(text, str):
        raise Undecryptable("not a base64 string")
    try:
        raw = binascii.a2b_base64(text, strict_mode=True)  # as b64decode(validate=True), a third the time
    except (binascii.Error, ValueError):
        raise Undecryptable("not base64") from None
    if len(raw) < NONCE_BYTES + 16:
        raise Undecryptable("too short")
    try:
        return _aead(key).decrypt(raw[:NONCE_BYTES], raw[NONCE_BYTES:], aad)
    except InvalidTag:
        raise Undecryptable("authentication failed") from None


def wrap_key(kek: bytes, dek: bytes, aad: bytes) -> str:
    return encrypt(kek, dek, aad)


def unwrap_key(kek: bytes, wrapped: Any, aad: bytes) -> bytes:
    dek = decrypt(kek, wrapped, aad)
    if len(dek) != 32:
        raise Undecryptable("the data key is not 32 bytes")
    return dek


# Box plaintexts are padded with JSON whitespace to a multiple of this many bytes: otherwise a sealed card's
# length would tell a database reader whether its code has one digit or two (a rank below five, or not).
BOX_BLOCK = 32


def seal_box(dek: bytes, fields: dict[str, Any], aad: bytes) -> str:
    # Canonical form (sorted keys, no spaces), padded: boxes of one kind of secret all have one length.
    plaintext = canonical_json(fields)
    return encrypt(dek, plaintext + b" " * (-len(plaintext) % BOX_BLOCK), aad)


def open_box(dek: bytes, box: Any, aad: bytes) -> dict[str, Any]:
    plaintext = decrypt(dek, box, aad)
    try:
        fields = loads(plaintext)
    except ValueError:
        raise Undecryptable("the box does not hold JSON") from None
    if not isinstance(fields, dict):
        raise Undecryptable("the box does not hold a JSON object")
    return fields
