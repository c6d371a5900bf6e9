"""Why sealing or opening refused. Messages name the stream, the hand and the key id; they never hold key
material or plaintext::

    SealingError
    ├── KeyringError                 the keyring cannot be loaded or is unfit to start with
    │   ├── KeyFilePermissions       the key file is readable by group or others
    │   ├── TruncatedKey             a key is not base64 of exactly 32 bytes
    │   └── NoKeyring                a real database without any keyring
    ├── MissingKey                   a key id the data or the registry names is not in the keyring
    ├── WrongKey                     a key id's key is not the one registered under that id
    ├── UndecryptableKey             a hand's wrapped data key does not decrypt (forged, or wrong key)
    ├── TamperedBox                  a sealed box does not decrypt or is not what it should be
    └── NoDataKey                    no data key known for a hand whose secrets are to be sealed
"""

from __future__ import annotations

from stud_service.store.sealing import KeyNotInMemory


class SealingError(Exception):
    """Secrets could not be sealed or opened; nothing falls back to plaintext."""


class _NamesKey(Exception):
    """An error about one key id, kept as ``kid`` for callers."""

    def __init__(self, kid: str, message: str) -> None:
        super().__init__(message)
        self.kid = kid


class KeyringError(SealingError):
    pass


class KeyFilePermissions(KeyringError):
    pass


class TruncatedKey(_NamesKey, KeyringError):
    pass


class NoKeyring(KeyringError):
    pass


class MissingKey(_NamesKey, SealingError):
    pass


class WrongKey(_NamesKey, SealingError):
    pass


class UndecryptableKey(SealingError):
    pass


class TamperedBox(SealingError):
    pass


class NoDataKey(SealingError, KeyNotInMemory):
    """Raised by sealing only: the store answers it by reading the stream's sealed events (which fills the
    data-key cache) and sealing once more."""

    def __init__(self, stream_id: str, hand: int) -> None:
        super().__init__(
            f"{stream_id} hand {hand}: no data key for this hand (its ShuffleCommitted was never"
            " sealed or read here)"
        )
        self.stream_id = stream_id
        self.hand = hand
