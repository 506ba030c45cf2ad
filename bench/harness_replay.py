"""How many reference solutions the launch replay times, and how its medians compare with the
candidate process timing itself.

    python bench/harness_replay.py --out replay.jsonl [--compare] [--only add softmax] [--budget 0.2]

One Harness (warm pool) evaluates every reference solution of the catalog on its `perf` tier with
the replay on; each line of the output (written as it goes, so a cut run keeps what finished) is
one operator: verdict, `timing.measured_by`, per-case medians and why a case was not replayed.
`--compare` evaluates each again with `replay_timing=False` and adds those medians. Needs a
device that replays launches (cuda); torch + triton only.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from evaluator.harness import Harness  # noqa: E402
from operators import registry  # noqa: E402

SOLUTIONS = ROOT / "operators" / "solutions" / "triton_reference"


def _cases(result: dict) -> list[dict]:
    return [
        {
            "median_us": (c.get("timing") or {}).get("candidate_median_us"),
            "method": (c.get("timing") or {}).get("method"),
            "measured_by": (c.get("timing") or {}).get("measured_by"),
            "note": (c.get("timing") or {}).get("note"),
        }
        for c in result.get("cases", [])
        if c.get("timing")
    ]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--device", default="cuda")
    parser.add_argument("--out", type=Path, required=True)
    parser.add_argument("--only", nargs="*", default=None)
    parser.add_argument("--budget", type=float, default=0.2, help="timing budget per case (s)")
    parser.add_argument("--compare", action="store_true", help="also time in the candidate process")
    parser.add_argument("--timeout", type=float, default=300)
    parser.add_argument(
        "--done", type=Path, nargs="*", default=[], help="earlier outputs: operators in them are skipped"
    )
    args = parser.parse_args()
    files = sorted(SOLUTIONS.glob("*__*.py"))
    if args.only:
        files = [f for f in files if any(o in f.stem for o in args.only)]
    done = {json.loads(line)["operator"] for p in args.done for line in p.read_text().splitlines() if line.strip()}
    files = [f for f in files if f.stem.replace("__", "::", 1) not in done]
    modes = [True, False] if args.compare else [True]
    harnesses = {m: Harness(device=args.device, replay_timing=m, time_budget_s=args.budget) for m in modes}
    try:
        with args.out.open("a", encoding="utf-8") as out:
            for path in files:
                namespace, name = path.stem.split("__", 1)
                op = f"{namespace}::{name}"
                spec = registry.get(op)
                line: dict = {"operator": op, "date": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime())}
                for mode, harness in harnesses.items():
                    started = time.perf_counter()
                    result = harness.evaluate(spec, path.read_text(), tier="perf", timeout_s=args.timeout)
                    key = "replay" if mode else "candidate_process"
                    line[key] = {
                        "verdict": result["verdict"],
                        "reason": result["reason"][:300],
                        "measured_by": (result.get("timing") or {}).get("measured_by"),
                        "speedup": (result.get("timing") or {}).get("speedup"),
                        "cases": _cases(result),
                        "wall_s": round(time.perf_counter() - started, 2),
                    }
                out.write(json.dumps(line) + "\n")
                out.flush()
                r = line["replay"]
                print(f"{op:45s} {r['verdict']:16s} {r['measured_by']!s:18s} {r['wall_s']:6.1f}s", flush=True)
    finally:
        for harness in harnesses.values():
            harness.close()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
