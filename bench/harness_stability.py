"""Timing stability: the same kernels evaluated in fresh harness runs (new pool, new candidate
process, new Triton cache each time); coefficient of variation of the reported median per case.

    PYTHONPATH=. python bench/harness_stability.py [--device cuda] [--runs 5] [--out stability.json]
"""

from __future__ import annotations

import argparse
import json
import statistics
from pathlib import Path

from bench.harness_specs import SOLUTIONS, SPECS
from evaluator.harness import Harness
from evaluator.harness.backends import CLOCKS, FLUSH_MODES


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--device", default=None)
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--budget", type=float, default=1.5, help="timing budget per case (s)")
    parser.add_argument("--out", default=None)
    parser.add_argument("--flush", default="write", choices=FLUSH_MODES, help="the harness's L2 flush mode")
    parser.add_argument("--clock", default="events", choices=CLOCKS, help="what times calls of ~20 µs and more")
    args = parser.parse_args()
    medians: dict[str, list[float]] = {}
    methods: dict[str, str] = {}
    for run in range(args.runs):
        # fresh pool and processes per run
        with Harness(device=args.device, time_budget_s=args.budget, flush=args.flush, clock=args.clock) as harness:
            for spec in SPECS:
                result = harness.evaluate(spec, Path(SOLUTIONS[spec.id]).read_text(), tier="perf", timeout_s=600)
                if result["verdict"] != "correct":
                    raise SystemExit(f"{spec.id}: {result['verdict']}: {result['reason']}\n{result['stderr_tail']}")
                print(f"  {spec.id}: {result['duration_s']} s {result['profile']}", flush=True)
                for case in result["cases"]:
                    key = f"{spec.id} {case['params']}"
                    medians.setdefault(key, []).append(case["timing"]["candidate_median_us"])
                    methods[key] = case["timing"]["method"]
            device = harness.environment["device_name"]
        print(f"run {run}: " + json.dumps({k: v[-1] for k, v in medians.items()}), flush=True)
    report(medians, methods, device, args)


def report(medians: dict[str, list[float]], methods: dict[str, str], device: str, args: argparse.Namespace) -> None:
    rows = []
    for key, values in medians.items():
        mean = statistics.fmean(values)
        cv = statistics.stdev(values) / mean * 100 if len(values) > 1 else 0.0
        rows.append({"case": key, "method": methods[key], "mean_us": mean, "cv_pct": cv, "medians_us": values})
        print(f"{key:70s} {methods[key]:10s} mean {mean:10.2f} µs  CV {cv:5.2f}%")
    if args.out:
        Path(args.out).write_text(
            json.dumps(
                {"device": device, "runs": args.runs, "flush": args.flush, "clock": args.clock, "rows": rows}, indent=1
            )
        )


if __name__ == "__main__":
    main()
