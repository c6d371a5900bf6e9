"""Secrets at rest: the deck, the server seeds and the face-down cards are stored encrypted.

AES-256-GCM under a per-hand data key wrapped by a key-encryption key from the service's own secret
(``STUD_KEYS_FILE`` / ``STUD_KEYS`` / ``--keys-file``), never from the database. docs/keys.md is the
operator's guide (rotation runbook).

Modules: ``errors`` (the SealingError tree), ``keyring`` (loading and checking KEKs), ``cipher`` (AES-GCM
wrap / box), ``sealer`` (EventSealer: which fields are secret, data-key cache), ``registry`` (the
``keys/{kid}`` streams, startup check), ``rotation`` (status, rewrap, retire), ``startup`` (wiring).
"""

from stud_service.sealing.errors import (
    KeyFilePermissions,
    KeyringError,
    MissingKey,
    NoDataKey,
    NoKeyring,
    SealingError,
    TamperedBox,
    TruncatedKey,
    UndecryptableKey,
    WrongKey,
)
from stud_service.sealing.keyring import Keyring, check_value, load_keyring, parse_keyring
from stud_service.sealing.registry import start_sealing
from stud_service.sealing.sealer import EventSealer
from stud_service.sealing.startup import open_sealed_store, resolve_keyring

__all__ = [
    "EventSealer",
    "KeyFilePermissions",
    "Keyring",
    "KeyringError",
    "MissingKey",
    "NoDataKey",
    "NoKeyring",
    "SealingError",
    "TamperedBox",
    "TruncatedKey",
    "UndecryptableKey",
    "WrongKey",
    "check_value",
    "load_keyring",
    "open_sealed_store",
    "parse_keyring",
    "resolve_keyring",
    "start_sealing",
]
