"""Ed25519 signatures of results bundles (`kgb.results/1`), shared by the runner side and the site.

A runner's key pair is made when it is registered: the runner keeps the private key (a PEM PKCS#8
file), the site stores only the public key (`ed25519:<base64 of the 32 raw bytes>`) and its id (the
first 16 hex digits of its sha256). Nothing the site stores or shows can sign.

The signed message is a domain tag followed by the canonical JSON (sorted keys, no spaces) of the
whole results document except its `signature`: schema, chip, environment and every result. The
signature object reads `{"scheme": "ed25519", "key_id": ..., "value": <base64 of 64 bytes>}`.

This module imports only the standard library: the harness runs on machines that have torch,
triton and numpy and nothing else. The Ed25519 primitives come from the `cryptography` package,
imported when a key is made, used or checked; where it is missing those calls raise
SigningUnavailable, which says how to sign elsewhere (`python -m evaluator bundle sign`).
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import json
from typing import Any

SCHEME = "ed25519"
PUBLIC_KEY_PREFIX = "ed25519:"
MESSAGE_TAG = b"kgb.results/1 ed25519\n"
RETIRED_SCHEMES = ("hmac_sha256",)


class SigningError(ValueError):
    """A key or signature that cannot be used (malformed key file, malformed public key)."""


class SigningUnavailable(SigningError):
    """The `cryptography` package is not installed where a key is used."""


def _ed25519() -> Any:
    try:
        from cryptography.hazmat.primitives.asymmetric import ed25519
    except ImportError:
        raise SigningUnavailable(
            "signing results needs the `cryptography` package, which is not installed here. Run the bundle "
            "without --signing-key and sign the results file where the runner's key and `cryptography` are: "
            "python -m evaluator bundle sign RESULTS.json --signing-key KEY (docs/runners.md, air-gapped chips)"
        ) from None
    return ed25519


def key_id(public_raw: bytes) -> str:
    return hashlib.sha256(public_raw).hexdigest()[:16]


def public_key_text(public_raw: bytes) -> str:
    return PUBLIC_KEY_PREFIX + base64.b64encode(public_raw).decode("ascii")


def parse_public_key(text: str) -> bytes:
    """The 32 raw bytes of `ed25519:<base64>`; SigningError when it is anything else."""
    if not isinstance(text, str) or not text.startswith(PUBLIC_KEY_PREFIX):
        raise SigningError(f"a public key reads {PUBLIC_KEY_PREFIX}<base64 of 32 bytes>")
    try:
        raw = base64.b64decode(text[len(PUBLIC_KEY_PREFIX) :].strip(), validate=True)
    except (binascii.Error, ValueError):
        raise SigningError("the public key is not valid base64") from None
    if len(raw) != 32:
        raise SigningError(f"an Ed25519 public key has 32 bytes, not {len(raw)}")
    return raw


def generate_key_pair() -> tuple[bytes, str]:
    """A new key pair: (the private key as PEM PKCS#8, the public key as `ed25519:<base64>`)."""
    private = _ed25519().Ed25519PrivateKey.generate()
    from cryptography.hazmat.primitives import serialization

    pem = private.private_bytes(
        serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption()
    )
    return pem, public_key_text(_raw_public(private))


def _raw_public(private: Any) -> bytes:
    from cryptography.hazmat.primitives import serialization

    return private.public_key().public_bytes(serialization.Encoding.Raw, serialization.PublicFormat.Raw)


def load_private_key(pem: bytes) -> Any:
    """The Ed25519 private key of a PEM file's bytes; SigningError for anything else."""
    ed25519 = _ed25519()
    from cryptography.hazmat.primitives import serialization

    try:
        private = serialization.load_pem_private_key(pem, password=None)
    except (ValueError, TypeError) as exc:
        raise SigningError(f"not an unencrypted PEM private key: {exc}") from None
    if not isinstance(private, ed25519.Ed25519PrivateKey):
        raise SigningError("the signing key is not an Ed25519 key")
    return private


def public_key_of(pem: bytes) -> str:
    return public_key_text(_raw_public(load_private_key(pem)))


def signed_message(document: dict[str, Any]) -> bytes:
    """What is signed: the tag and the canonical JSON of the document without its signature. The
    document is passed through JSON first, so the bytes are the same before writing and after reading."""
    unsigned = {key: value for key, value in document.items() if key != "signature"}
    plain = json.loads(json.dumps(unsigned))
    return MESSAGE_TAG + json.dumps(plain, sort_keys=True, separators=(",", ":")).encode()


def sign_document(document: dict[str, Any], private_key: Any) -> dict[str, str]:
    """The signature object of a results document (`private_key` from load_private_key)."""
    value = private_key.sign(signed_message(document))
    return {"scheme": SCHEME, "key_id": key_id(_raw_public(private_key)), "value": base64.b64encode(value).decode()}


def signature_problem(signature: Any) -> str | None:
    """Why a signature object cannot be an Ed25519 signature of this scheme, or None."""
    if not isinstance(signature, dict):
        return "the results file is not signed"
    if any(name in signature for name in RETIRED_SCHEMES):
        return "retired"
    if signature.get("scheme") != SCHEME:
        return f"unknown signature scheme {signature.get('scheme')!r} (expected {SCHEME!r})"
    if not isinstance(signature.get("key_id"), str) or not isinstance(signature.get("value"), str):
        return "the signature needs a key_id and a value"
    return None


def verify_document(document: dict[str, Any], public_key: str) -> bool:
    """True when the document's signature was made by the private key of `public_key` over exactly
    this document. Never raises for a bad document or signature (False); a malformed stored public
    key raises SigningError."""
    ed25519 = _ed25519()
    from cryptography.exceptions import InvalidSignature

    raw = parse_public_key(public_key)
    signature = document.get("signature") if isinstance(document, dict) else None
    if signature_problem(signature) is not None or signature["key_id"] != key_id(raw):
        return False
    try:
        value = base64.b64decode(signature["value"], validate=True)
        message = signed_message(document)
    except (binascii.Error, ValueError, TypeError):
        return False
    try:
        ed25519.Ed25519PublicKey.from_public_bytes(raw).verify(value, message)
    except InvalidSignature:
        return False
    return True
