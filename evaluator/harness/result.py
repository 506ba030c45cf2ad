"""The versioned result document (schema `kgb.result/1`, documented in docs/harness.md)."""

from __future__ import annotations

import os
import platform
import re
from typing import Any

from evaluator.harness import HARNESS_VERSION, RESULT_SCHEMA
from evaluator.harness.hidden import HIDDEN_PARAMS, HiddenCase

STDERR_TAIL_CHARS = 4000
_SECRET_ENV = re.compile(r"TOKEN|SECRET|PASSWORD|PASSWD|KEY|DATABASE_URL|BROKER|CREDENTIAL|SEED", re.IGNORECASE)


def new_result(operator: str, tier: str, seed_kind: str, environment: dict[str, Any]) -> dict[str, Any]:
    return {
        "schema": RESULT_SCHEMA,
        "verdict": "runtime_error",
        "reason": "",
        "operator": operator,
        "tier": tier,
        "seed_kind": seed_kind,
        "cases": [],
        "timing": None,
        "sol_pct": None,
        "findings": [],
        "environment": environment,
        "stderr_tail": "",
        "duration_s": 0.0,
    }


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


def scrub(text: str, *, secrets: list[str], paths: list[str], limit: int = STDERR_TAIL_CHARS) -> str:
    for secret in sorted(secrets, key=len, reverse=True):
        if secret:
            text = text.replace(secret, "<redacted>")
    for path in paths:
        if path:
            text = text.replace(path, "<tmp>")
    text = "".join(ch for ch in text if ch in "\n\t" or ch.isprintable())
    if len(text) > limit:
        text = "…" + text[-limit:]
    return text
