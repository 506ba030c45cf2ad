"""Signing of results bundles with a runner token (pure stdlib, shared with the site).

A token reads `kgbr_<token_id>_<secret>`. The key is sha256(token).hexdigest() as bytes (the
site stores only that hash, so it can verify without keeping the token); the message is the
canonical JSON of the `results` list (sorted keys, no spaces).
"""

from __future__ import annotations

import hashlib
import hmac
import json
from typing import Any

TOKEN_PREFIX = "kgbr_"


class TokenFormatError(ValueError):
    pass


def token_id(token: str) -> str:
    """The part between the first and the second underscore."""
    parts = token.split("_", 2)
    if len(parts) != 3 or parts[0] + "_" != TOKEN_PREFIX or not parts[1] or not parts[2]:
        raise TokenFormatError("a runner token reads kgbr_<token_id>_<secret>")
    return parts[1]


def key_from_token(token: str) -> bytes:
    return hashlib.sha256(token.encode()).hexdigest().encode()


def canonical_results(results: list[dict[str, Any]]) -> bytes:
    return json.dumps(results, sort_keys=True, separators=(",", ":")).encode()


def sign_results(results: list[dict[str, Any]], token: str) -> dict[str, str]:
    digest = hmac.new(key_from_token(token), canonical_results(results), hashlib.sha256).hexdigest()
    return {"token_id": token_id(token), "hmac_sha256": digest}


def verify_results(results: list[dict[str, Any]], signature: dict[str, Any] | None, *, key: bytes) -> bool:
    """True when `signature` was made over `results` with the token whose sha256 hex is `key`."""
    if not isinstance(signature, dict) or not isinstance(signature.get("hmac_sha256"), str):
        return False
    expected = hmac.new(key, canonical_results(results), hashlib.sha256).hexdigest()
    return hmac.compare_digest(expected, signature["hmac_sha256"])
