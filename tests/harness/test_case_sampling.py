"""`max_cases`: an evenly spaced, deterministic sample of a large tier, recorded in the result."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
SOLUTION = ROOT / "operators" / "solutions" / "triton_reference" / "aten__cos.py"


def _check(*extra: str) -> dict:
    env = {**os.environ, "TRITON_INTERPRET": "1"}
    proc = subprocess.run(
        [
            sys.executable,
            "-m",
            "evaluator",
            "check",
            "--operator",
            "aten::cos",
            "--solution",
            str(SOLUTION),
            "--device",
            "cpu",
            "--tier",
            "full",
            *extra,
        ],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert proc.returncode == 0, proc.stderr
    return json.loads(proc.stdout)


def test_max_cases_samples_evenly_and_says_so() -> None:
    from operators.registry import get

    full = [json.loads(json.dumps(c)) for c in get("aten::cos").tier("full")]
    result = _check("--max-cases", "3")
    assert result["verdict"] == "correct", result["reason"]
    assert result["cases_sampled"] == {"full": {"kept": 3, "of": len(full)}}
    step = len(full) / 3
    assert [c["params"] for c in result["cases"]] == [full[int(i * step)] for i in range(3)]


def test_max_cases_must_be_positive() -> None:
    env = {**os.environ, "TRITON_INTERPRET": "1"}
    proc = subprocess.run(
        [
            sys.executable,
            "-m",
            "evaluator",
            "check",
            "--operator",
            "aten::cos",
            "--solution",
            str(SOLUTION),
            "--device",
            "cpu",
            "--max-cases",
            "0",
        ],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert proc.returncode != 0
    assert "max_cases must be at least 1" in proc.stderr
