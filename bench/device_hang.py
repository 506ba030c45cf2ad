"""The device-hang fault procedure of docs/benchmarks/faults.md on a real GPU: a correct attempt, an
attempt whose kernel spins on the device forever, and a correct attempt again, in one harness (one
warm pool), then whether any process of the attempts still holds the device.

    PYTHONPATH=. python bench/device_hang.py [--timeout 8] [--out device_hang.json]
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import time
from pathlib import Path

from bench.harness_specs import ADD_BENCH, SOLUTIONS
from evaluator.harness import Harness

SPIN = "tests/harness/adversarial_cuda/device_spin.py"


def compute_pids() -> list[int]:
    """PIDs nvidia-smi lists as holding a compute context ([] where nvidia-smi is absent)."""
    try:
        listed = subprocess.run(
            ["nvidia-smi", "--query-compute-apps=pid", "--format=csv,noheader"],
            capture_output=True,
            text=True,
            timeout=20,
        ).stdout
    except (OSError, subprocess.TimeoutExpired):
        return []
    return [int(line) for line in listed.split() if line.strip().isdigit()]


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--timeout", type=float, default=8.0, help="the spinning attempt's harness timeout (s)")
    parser.add_argument("--device", default="cuda")
    parser.add_argument("--out", default=None)
    args = parser.parse_args()
    correct = Path(SOLUTIONS["aten::add"]).read_text()
    attempts = [
        ("correct", correct, 120.0),
        ("device_spin", Path(SPIN).read_text(), args.timeout),
        ("correct", correct, 120.0),
    ]
    rows = []
    # time_tiers=(): the question is the verdict and the device after the kill, not a speed
    with Harness(device=args.device, pool_size=1, time_tiers=()) as harness:
        for name, source, timeout_s in attempts:
            started = time.monotonic()
            result = harness.evaluate(ADD_BENCH, source, tier="smoke", timeout_s=timeout_s)
            rows.append(
                {
                    "attempt": name,
                    "verdict": result["verdict"],
                    "reason": result["reason"][:240],
                    "wall_s": round(time.monotonic() - started, 2),
                    "compute_pids_after": [pid for pid in compute_pids() if pid != os.getpid()],
                }
            )
            print(json.dumps(rows[-1]), flush=True)
    summary = {
        "expected": ["correct", "timeout", "correct"],
        "verdicts": [row["verdict"] for row in rows],
        "holds": [row["verdict"] for row in rows] == ["correct", "timeout", "correct"],
        "spin_timeout_s": args.timeout,
    }
    print(json.dumps(summary), flush=True)
    if args.out:
        Path(args.out).write_text(json.dumps({"summary": summary, "rows": rows}, indent=1))


if __name__ == "__main__":
    main()
