"""Harness overhead per attempt: wall time minus the candidate's own calls (which include its
Triton compile, since every candidate gets a private cache) and timed-kernel time.

    PYTHONPATH=. python bench/harness_overhead.py [--device cuda] [--attempts 12] [--out overhead.json]
"""

from __future__ import annotations

import argparse
import json
import statistics
import time
from pathlib import Path

from bench.harness_specs import ADD_BENCH, SOLUTIONS
from evaluator.harness import Harness


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--device", default=None)
    parser.add_argument("--attempts", type=int, default=12)
    parser.add_argument("--pool", type=int, default=3)
    parser.add_argument("--tier", default="full")
    parser.add_argument("--out", default=None)
    args = parser.parse_args()
    source = Path(SOLUTIONS["aten::add"]).read_text()
    rows = []
    started = time.monotonic()
    # time_tiers=(): a full evaluation on a timing device would also time the perf tier; the
    # overhead figure is about the correctness path
    with Harness(device=args.device, pool_size=args.pool, time_tiers=()) as harness:
        harness.evaluate(ADD_BENCH, source, tier=args.tier)  # first attempt waits for the pool: not counted
        for _ in range(args.attempts):
            result = harness.evaluate(ADD_BENCH, source, tier=args.tier)
            profile = result["profile"]
            overhead = result["duration_s"] - profile["candidate_calls_s"] - profile["timed_s"]
            rows.append(
                {"verdict": result["verdict"], "duration_s": result["duration_s"], "overhead_s": overhead, **profile}
            )
            print(json.dumps(rows[-1]), flush=True)
        environment = harness.environment
    overheads = [r["overhead_s"] for r in rows]
    summary = {
        "device": environment["device_name"],
        "tier": args.tier,
        "attempts": len(rows),
        "pool_size": args.pool,
        "overhead_median_s": statistics.median(overheads),
        "overhead_max_s": max(overheads),
        "duration_median_s": statistics.median(r["duration_s"] for r in rows),
        "acquire_median_s": statistics.median(r["acquire_s"] for r in rows),
        "verdicts": sorted({r["verdict"] for r in rows}),
        "bench_wall_s": time.monotonic() - started,
    }
    print(json.dumps(summary, indent=1))
    if args.out:
        Path(args.out).write_text(json.dumps({"summary": summary, "rows": rows, "environment": environment}, indent=1))


if __name__ == "__main__":
    main()
