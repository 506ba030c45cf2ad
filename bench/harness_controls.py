"""Negative-false-positive control: every reference Triton solution in
operators/solutions/triton_reference/ evaluated through the harness must be `correct` with no
findings. Prints one line per solution and a summary.

    PYTHONPATH=. python bench/harness_controls.py [--device cpu] [--tier smoke] [--workers 2]
"""

from __future__ import annotations

import argparse
import hashlib
import json
import sys
from collections import Counter

from evaluator.harness.bundle import run_bundle
from evaluator.harness.harness import HarnessConfig
from operators import registry


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--device", default=None)
    parser.add_argument("--tier", default="smoke")
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--out", default=None)
    args = parser.parse_args()
    by_file = {s.file_name: s.id for s in registry.all_specs()}
    jobs = []
    for path in sorted(registry.REFERENCE_SOLUTIONS_DIR.glob("*.py")):
        if path.name not in by_file:
            continue
        source = path.read_text()
        jobs.append(
            {
                "job_id": path.name,
                "operator": by_file[path.name],
                "tier": args.tier,
                "seed": 3,
                "secret_seed": False,
                "timeout_s": 600,
                "solution": {
                    "file_name": path.name,
                    "source": source,
                    "sha256": hashlib.sha256(source.encode()).hexdigest(),
                },
            }
        )
    results = run_bundle(
        {"schema": "kgb.jobs/1", "chip": "", "jobs": jobs},
        config=HarnessConfig(device=args.device),
        workers=args.workers,
        progress=lambda m: print(m, file=sys.stderr, flush=True),
    )
    verdicts = Counter()
    bad = []
    for item in results["results"]:
        result = item["result"]
        verdicts[result["verdict"]] += 1
        if result["verdict"] != "correct" or result["findings"]:
            bad.append(f"{item['job_id']}: {result['verdict']}: {result['reason'][:300]}")
    print(json.dumps({"solutions": len(jobs), "verdicts": dict(verdicts), "not_clean": bad}, indent=1))
    if args.out:
        with open(args.out, "w") as handle:
            json.dump(results, handle)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
