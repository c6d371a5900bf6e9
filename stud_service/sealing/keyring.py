"""Key-encryption keys (KEKs): loaded from the service's own secret, never from the database.

``STUD_KEYS_FILE`` (or ``--keys-file``) names a JSON file, ``STUD_KEYS`` holds the same JSON as text::

    {"active": "k2", "keys": {"k1": "<base64 of 32 bytes>", "k2": "<base64 of 32 bytes>"}}

New hands are sealed with the active key; the others open older hands. A key file readable by others, or by
a group other than the process's own (Kubernetes' ``fsGroup`` makes a mounted Secret readable by the pod's
own group), is refused.
"""

from __future__ import annotations

import base64
import binascii
import dataclasses
import hashlib
import hmac
import json
import os
import re
import secrets
import stat
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from stud_service.sealing.errors import KeyFilePermissions, KeyringError, MissingKey, TruncatedKey

KEYS_FILE_ENV = "STUD_KEYS_FILE"
KEYS_ENV = "STUD_KEYS"
KEY_BYTES = 32
KID_PATTERN = re.compile(r"[A-Za-z0-9._-]{1,64}")
CHECK_MESSAGE = b"stud-service key check v1"


def check_value(kek: bytes) -> str:
    """What the registry records of a key: proves the key without revealing it."""
    return hmac.new(kek, CHECK_MESSAGE, hashlib.sha256).digest()[:16].hex()


@dataclass(frozen=True)
class Keyring:
    active: str
    keys: Mapping[str, bytes]
    source: str = "keyring"  # where it came from, for messages (a path or an environment variable)
    # The embedded quick start's keyring, kept beside the database it seals: no protection from whoever reads
    # the data directory (real-currency play refuses it unless the operator accepts that).
    development: bool = False

    def __post_init__(self) -> None:
        if self.active not in self.keys:
            raise MissingKey(self.active, f"{self.source}: the active key {self.active!r} is not in its keys")

    def key(self, kid: str) -> bytes:
        try:
            return self.keys[kid]
        except KeyError:
            raise MissingKey(kid, f"key {kid!r} is not in the keyring ({self.source})") from None

    def __repr__(self) -> str:  # never the keys
        return f"Keyring(active={self.active!r}, kids={sorted(self.keys)!r}, source={self.source!r})"

    def to_json(self) -> dict[str, Any]:
        return {
            "active": self.active,
            "keys": {kid: base64.b64encode(key).decode() for kid, key in sorted(self.keys.items())},
        }


def new_key() -> bytes:
    return secrets.token_bytes(KEY_BYTES)


def parse_keyring(text: str, source: str) -> Keyring:
    try:
        document = json.loads(text)
    except ValueError:
        raise KeyringError(f'{source}: not JSON (expected {{"active": ..., "keys": {{...}}}})') from None
    if not isinstance(document, dict) or not isinstance(document.get("keys"), dict):
        raise KeyringError(f'{source}: expected a JSON object with "active" and "keys"')
    active = document.get("active")
    if not isinstance(active, str) or not KID_PATTERN.fullmatch(active):
        raise KeyringError(f'{source}: "active" must be a key id ([A-Za-z0-9._-], 1 to 64 characters)')
    keys: dict[str, bytes] = {}
    for kid, encoded in document["keys"].items():
        if not KID_PATTERN.fullmatch(kid):
            raise KeyringError(f"{source}: {kid[:70]!r} is not a key id ([A-Za-z0-9._-], 1 to 64 characters)")
        keys[kid] = _decode_key(kid, encoded, source)
    return Keyring(active, keys, source)


def _decode_key(kid: str, encoded: Any, source: str) -> bytes:
    if not isinstance(encoded, str):
        raise TruncatedKey(kid, f"{source}: key {kid!r} must be a base64 string of {KEY_BYTES} bytes")
    try:
        key = base64.b64decode(encoded, validate=True)
    except (binascii.Error, ValueError):
        raise TruncatedKey(kid, f"{source}: key {kid!r} is not valid base64 (truncated?)") from None
    if len(key) != KEY_BYTES:
        raise TruncatedKey(kid, f"{source}: key {kid!r} is {len(key)} bytes, not {KEY_BYTES} (truncated?)")
    return key


def check_permissions(path: Path) -> None:
    info = path.stat()
    mode = stat.S_IMODE(info.st_mode)
    foreign_group = mode & 0o070 and info.st_gid != os.getegid()
    if mode & 0o007 or foreign_group:
        raise KeyFilePermissions(
            f"key file {path} is readable by {'others' if mode & 0o007 else 'its group'} (mode {mode:04o}):"
            f" chmod 600 {path}"
        )


def read_keyring_file(path: str | os.PathLike[str]) -> Keyring:
    path = Path(path)
    try:
        check_permissions(path)
        text = path.read_text()
    except OSError as error:
        raise KeyringError(f"key file {path}: {error.strerror or error}") from None
    return parse_keyring(text, str(path))


def load_keyring(keys_file: str | None = None, environ: Mapping[str, str] | None = None) -> Keyring | None:
    """The keyring the settings name (the flag, ``STUD_KEYS_FILE``, then ``STUD_KEYS``), or None."""
    env = os.environ if environ is None else environ
    path = keys_file or env.get(KEYS_FILE_ENV)
    if path:
        return read_keyring_file(path)
    text = env.get(KEYS_ENV)
    if text:
        return parse_keyring(text, f"${KEYS_ENV}")
    return None


def write_keyring_file(path: Path, keyring: Keyring) -> None:
    """Write ``keyring`` to ``path``, created 0600 (never readable by anyone else, not even for a moment)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    temporary = path.with_name(path.name + ".tmp")
    fd = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "w") as out:
        json.dump(keyring.to_json(), out, indent=2)
        out.write("\n")
    os.chmod(temporary, 0o600)
    os.replace(temporary, path)


DEV_KEYRING_FILE = "keys.json"


def development_keyring(data_dir: Path) -> tuple[Keyring, bool]:
    """The embedded quick start's keyring beside its data directory, generated on first use.
    Returns (keyring, whether it was generated now)."""
    path = data_dir / DEV_KEYRING_FILE
    if path.exists():
        return dataclasses.replace(read_keyring_file(path), development=True), False
    keyring = Keyring("dev-1", {"dev-1": new_key()}, str(path), development=True)
    write_keyring_file(path, keyring)
    return keyring, True
