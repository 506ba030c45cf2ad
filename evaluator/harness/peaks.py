"""Chip ceilings for speed-of-light floors and %SOL.

Measured where we could (H200: copy bandwidth and bf16 matmul rate measured on the lent card, see
BENCHMARKS.md); datasheet leads otherwise. Override per run with a JSON file
(`--peaks FILE`: {"bandwidth_bytes_per_s": ..., "flops_per_s": {"bfloat16": ..., "default": ...},
"l2_bytes": ...}).
"""

from __future__ import annotations

import json
from pathlib import Path

from evaluator.harness.backends import Backend, Peaks

CHIP_PEAKS: dict[str, Peaks] = {
    "h200": Peaks(
        4.4e12,
        {"bfloat16": 716e12, "float16": 716e12, "float8_e4m3fn": 1400e12, "float32": 67e12, "default": 67e12},
        60 * 2**20,
    ),
    "h100": Peaks(3.0e12, {"bfloat16": 700e12, "float16": 700e12, "float32": 67e12, "default": 67e12}, 50 * 2**20),
    "a100": Peaks(1.7e12, {"bfloat16": 280e12, "float16": 280e12, "float32": 19.5e12, "default": 19.5e12}, 40 * 2**20),
}
_NAME_HINTS = (("H200", "h200"), ("H100", "h100"), ("A100", "a100"))


def chip_from_device_name(name: str, device_type: str) -> str:
    for hint, slug in _NAME_HINTS:
        if hint in name:
            return slug
    return device_type


def load_peaks(chip: str, backend: Backend, peaks_file: str | None = None) -> Peaks | None:
    if peaks_file:
        data = json.loads(Path(peaks_file).read_text())
        return Peaks(
            float(data["bandwidth_bytes_per_s"]),
            {k: float(v) for k, v in data["flops_per_s"].items()},
            int(data.get("l2_bytes", 0)),
        )
    peaks = CHIP_PEAKS.get(chip) or backend.default_peaks()
    return peaks


def floor_seconds(flops: float, nbytes: float, dtype: str, peaks: Peaks) -> float:
    """The least time the case can take on this chip: the larger of compute and memory time."""
    compute_peak = peaks.flops_for(dtype)
    compute = flops / compute_peak if compute_peak > 0 else 0.0
    memory = nbytes / peaks.bandwidth_bytes_per_s if peaks.bandwidth_bytes_per_s > 0 else 0.0
    return max(compute, memory)
