"""Development signing keys: a private key (PEM) that mints tokens, and the JWKS that verifies them.

In production the identity provider holds the private key and publishes the JWKS; these stand in for it on
a developer's machine (``stud-service token --new-key``) and in the embedded demo. A key's ``kid`` is its
RFC 7638 thumbprint, so the same key always has the same name.
"""

from __future__ import annotations

import base64
import hashlib
import json
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import jwt
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import ec, ed25519, rsa

from stud_service.auth import Role, token_claims

KEY_FILE = "token-key.pem"
JWKS_FILE = "jwks.json"
PrivateKey = ed25519.Ed25519PrivateKey | ec.EllipticCurvePrivateKey | rsa.RSAPrivateKey


def new_private_key(algorithm: str = "EdDSA") -> PrivateKey:
    if algorithm == "EdDSA":
        return ed25519.Ed25519PrivateKey.generate()
    if algorithm == "ES256":
        return ec.generate_private_key(ec.SECP256R1())
    if algorithm == "RS256":
        return rsa.generate_private_key(public_exponent=65537, key_size=2048)
    raise ValueError(f"no development key for the algorithm {algorithm!r} (EdDSA, ES256 or RS256)")


def algorithm_of(key: PrivateKey) -> str:
    if isinstance(key, ed25519.Ed25519PrivateKey):
        return "EdDSA"
    if isinstance(key, ec.EllipticCurvePrivateKey) and isinstance(key.curve, ec.SECP256R1):
        return "ES256"
    if isinstance(key, rsa.RSAPrivateKey):
        return "RS256"
    raise ValueError("the key is not an Ed25519, P-256 or RSA private key")


def _thumbprint(jwk: dict[str, Any]) -> str:
    members = {name: jwk[name] for name in ("crv", "e", "kty", "n", "x", "y") if name in jwk}
    digest = hashlib.sha256(json.dumps(members, sort_keys=True, separators=(",", ":")).encode()).digest()
    return base64.urlsafe_b64encode(digest).decode().rstrip("=")


def public_jwk(key: PrivateKey) -> dict[str, Any]:
    """The public half of ``key`` as a JWK, with ``kid``, ``alg`` and ``use``."""
    algorithm = algorithm_of(key)
    jwk: dict[str, Any] = json.loads(jwt.get_algorithm_by_name(algorithm).to_jwk(key.public_key()))
    jwk.update(kid=_thumbprint(jwk), alg=algorithm, use="sig")
    return jwk


@dataclass(frozen=True)
class SigningKey:
    """A private key that mints tokens as an identity provider would."""

    private_key: PrivateKey

    @property
    def kid(self) -> str:
        return str(public_jwk(self.private_key)["kid"])

    def jwks(self) -> dict[str, Any]:
        return {"keys": [public_jwk(self.private_key)]}

    def mint(self, player_id: str, role: Role = Role.PLAYER, ttl_seconds: int | None = None,
             issuer: str | None = None, audience: str | None = None, now: float | None = None) -> str:
        claims = token_claims(player_id, role, ttl_seconds, now, issuer, audience)
        return jwt.encode(claims, self.private_key, algorithm=algorithm_of(self.private_key),
                          headers={"kid": self.kid})

    @classmethod
    def generate(cls, algorithm: str = "EdDSA") -> SigningKey:
        return cls(new_private_key(algorithm))

    @classmethod
    def load(cls, path: Path) -> SigningKey:
        key = serialization.load_pem_private_key(path.read_bytes(), password=None)
        if not isinstance(key, ed25519.Ed25519PrivateKey | ec.EllipticCurvePrivateKey | rsa.RSAPrivateKey):
            raise ValueError(f"{path} holds no Ed25519, P-256 or RSA private key")
        algorithm_of(key)
        return cls(key)

    def save(self, directory: Path) -> tuple[Path, Path]:
        """Write ``token-key.pem`` (owner-only) and ``jwks.json`` into ``directory``."""
        directory.mkdir(parents=True, exist_ok=True)
        key_path, jwks_path = directory / KEY_FILE, directory / JWKS_FILE
        pem = self.private_key.private_bytes(
            serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption()
        )
        descriptor = os.open(key_path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        with os.fdopen(descriptor, "wb") as out:
            out.write(pem)
        jwks_path.write_text(json.dumps(self.jwks(), indent=2) + "\n")
        return key_path, jwks_path
