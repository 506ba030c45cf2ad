"""The versioned result document (schema `kgb.result/1`, documented in docs/harness.md)."""

from __future__ import annotations

import base64
import codecs
import json
import os
import platform
import re
import urllib.parse
from typing import Any

from evaluator.harness import HARNESS_VERSION
from evaluator.harness.contract import Result
from evaluator.harness.hidden import HIDDEN_PARAMS, HiddenCase

STDERR_TAIL_CHARS = 4000
_SECRET_ENV = re.compile(r"TOKEN|SECRET|PASSWORD|PASSWD|KEY|DATABASE_URL|BROKER|CREDENTIAL|SEED", re.IGNORECASE)


def new_result(operator: str, tier: str, seed_kind: str, environment: dict[str, Any]) -> dict[str, Any]:
    """The document an attempt fills in as it goes (evaluator.harness.contract.Result's layout);
    `environment` is the harness's own, taken as it is."""
    result = Result(
        verdict="runtime_error", operator=operator, tier=tier, seed_kind=seed_kind, duration_s=0.0
    ).to_dict()
    result["environment"] = environment
    return result


def base_environment(backend: Any, chip: str | None) -> dict[str, Any]:
    import torch
    import triton

    try:
        name = backend.device_name()
    except Exception as exc:  # a fingerprint must not stop an evaluation
        name = f"unknown ({type(exc).__name__})"
    try:
        driver = backend.driver()
    except Exception:
        driver = ""
    return {
        "chip": chip,
        "device_type": backend.device_type,
        "device_name": name,
        "driver": driver,
        "torch": torch.__version__,
        "triton": triton.__version__,
        "python": platform.python_version(),
        "harness_version": HARNESS_VERSION,
        "isolation": None,
    }


def jsonable(value: Any) -> Any:
    """Case parameters as plain JSON: complex numbers become [real, imag], tuples lists, the rest str;
    a hidden case becomes HIDDEN_PARAMS (its parameters are never written out)."""
    if isinstance(value, HiddenCase):
        return dict(HIDDEN_PARAMS)
    if value is None or isinstance(value, (bool, int, str)):
        return value
    if isinstance(value, float):
        return value if value == value and abs(value) != float("inf") else str(value)
    if isinstance(value, complex):
        return [value.real, value.imag]
    if isinstance(value, (list, tuple)):
        return [jsonable(v) for v in value]
    if isinstance(value, dict):
        return {str(k): jsonable(v) for k, v in value.items()}
    return str(value)


def secret_strings() -> list[str]:
    """Values from the parent's environment that must never appear in a result."""
    return [v for k, v in os.environ.items() if _SECRET_ENV.search(k) and len(v) >= 6]


MIN_ENCODED_CHARS = 8  # shorter fragments of an encoding would match ordinary text


def _base64_cores(raw: bytes) -> set[str]:
    """The part of each base64 (standard, url-safe) or base32 encoding of `raw` that does not
    depend on where `raw` sits in a longer encoded text (the bytes before it shift its bits)."""
    cores = set()
    for encode, bits in ((base64.b64encode, 6), (base64.urlsafe_b64encode, 6), (base64.b32encode, 5)):
        group = 3 if bits == 6 else 5
        for before in range(group):
            text = encode(b"\0" * before + raw).decode()
            start = -(-8 * before // bits)  # first character made only of `raw`'s bits
            end = 8 * (before + len(raw)) // bits
            core = text[start:end]
            if len(core) >= MIN_ENCODED_CHARS:
                cores.add(core)
    return cores


def secret_variants(secret: str) -> set[str]:
    """The secret and the common ways a candidate could write it out to slip past an exact match."""
    raw = secret.encode("utf-8", "surrogatepass")
    variants = {
        secret,
        secret[::-1],
        raw.hex(),
        raw.hex().upper(),
        "".join(f"\\x{b:02x}" for b in raw),
        urllib.parse.quote(secret, safe=""),
        json.dumps(secret)[1:-1],
        codecs.encode(secret, "rot13"),
        ", ".join(str(b) for b in raw),
        ",".join(str(b) for b in raw),
        " ".join(f"{b:02x}" for b in raw),
    }
    variants |= _base64_cores(raw)
    return {v for v in variants if len(v) >= min(len(secret), MIN_ENCODED_CHARS)}


def _clean(text: str, patterns: list[tuple[str, str]]) -> str:
    for needle, replacement in patterns:
        if needle in text:
            text = text.replace(needle, replacement)
    lowered = text.lower()
    for needle, replacement in patterns:  # hex written in mixed case
        if needle.isascii() and needle.lower() != needle and needle.lower() in lowered:
            text = re.sub(re.escape(needle), replacement, text, flags=re.IGNORECASE)
    return "".join(ch for ch in text if ch in "\n\t" or ch.isprintable())


def scrub_result(result: dict[str, Any], *, secrets: list[str], paths: list[str]) -> None:
    """Scrub every string of a result document in place (reason, case reasons, findings, timing
    notes, stderr, exception texts): known secrets in any common encoding become `<redacted>`,
    the candidate's private paths `<tmp>`, unprintable characters go. Defence in depth: the
    sandbox keeps secrets out of the candidate's reach in the first place."""
    patterns: list[tuple[str, str]] = []
    for secret in secrets:
        if secret:
            patterns += [(variant, "<redacted>") for variant in secret_variants(secret)]
    patterns.sort(key=lambda item: len(item[0]), reverse=True)
    patterns += [(path, "<tmp>") for path in paths if path]

    def walk(value: Any) -> Any:
        if isinstance(value, str):
            return _clean(value, patterns)
        if isinstance(value, dict):
            return {key: walk(item) for key, item in value.items()}
        if isinstance(value, list):
            return [walk(item) for item in value]
        return value

    for key in list(result):
        result[key] = walk(result[key])
    tail = result.get("stderr_tail") or ""
    if len(tail) > STDERR_TAIL_CHARS:
        result["stderr_tail"] = "…" + tail[-STDERR_TAIL_CHARS:]
