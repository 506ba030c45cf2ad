"""Run every solution file of a folder (default: the catalog's reference Triton solutions) through the
harness CLI and tabulate verdicts and speedups. Files are named `<source>__<operator>.py`.

    python bench/reference_solutions.py --device cuda --tiers full perf --out results.json --markdown results.md
    python bench/reference_solutions.py --solutions DIR --device cpu --tiers smoke   # e.g. upstream's candidates

Each (solution, tier) is one `python -m evaluator check` process, exactly as outside checks call
it. Needs torch + triton only (runs on a GPU machine without Django).
"""

from __future__ import annotations

import argparse
import json
import platform
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SOLUTIONS = ROOT / "operators" / "solutions" / "triton_reference"


def operator_id(path: Path) -> str:
    namespace, name = path.stem.split("__", 1)
    return f"{namespace}::{name}"


def check(op: str, solution: Path, *, device: str, tier: str, timeout: float) -> dict:
    command = [
        sys.executable,
        "-m",
        "evaluator",
        "check",
        "--operator",
        op,
        "--solution",
        str(solution),
        "--device",
        device,
        "--tier",
        tier,
        "--timeout",
        str(int(timeout)),
        "--json",
    ]
    started = time.perf_counter()
    try:
        proc = subprocess.run(command, cwd=ROOT, capture_output=True, text=True, timeout=timeout + 120)
    except subprocess.TimeoutExpired:
        return {"verdict": "harness_timeout", "reason": f"no answer within {timeout + 120:.0f}s"}
    wall = time.perf_counter() - started
    if proc.returncode != 0:
        return {"verdict": "harness_error", "reason": proc.stderr.strip()[-500:], "wall_s": wall}
    try:
        result = json.loads(proc.stdout)
    except json.JSONDecodeError:
        return {"verdict": "harness_error", "reason": "stdout is not JSON: " + proc.stdout[-300:], "wall_s": wall}
    result["wall_s"] = wall
    return result


def markdown(rows: list[dict], tiers: list[str]) -> str:
    head = "| operator | " + " | ".join(f"{t} verdict | {t} cases | {t} speedup | {t} baseline" for t in tiers) + " |"
    sep = "|---|" + "---|---|---|---|" * len(tiers)
    lines = [head, sep]
    for row in rows:
        cells = [row["operator"]]
        for tier in tiers:
            r = row[tier]
            cases = r.get("cases") or []
            passed = sum(1 for c in cases if c.get("passed"))
            timing = r.get("timing") or {}
            speedup = timing.get("speedup")
            cells += [
                r.get("verdict", "?"),
                f"{passed}/{len(cases)}",
                f"{speedup:.2f}x" if isinstance(speedup, (int, float)) else "-",
                str(timing.get("baseline_kind", "-")),
            ]
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines) + "\n"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--device", default=None)
    parser.add_argument("--tiers", nargs="+", default=["smoke"])
    parser.add_argument("--solutions", type=Path, default=SOLUTIONS, help="folder of <source>__<operator>.py files")
    parser.add_argument("--only", nargs="*", default=None, help="operator ids or name fragments")
    parser.add_argument("--timeout", type=float, default=300)
    parser.add_argument("--out", type=Path, default=None)
    parser.add_argument("--markdown", type=Path, default=None)
    args = parser.parse_args()

    files = sorted(args.solutions.resolve().glob("*__*.py"))
    if not files:
        parser.error(f"no <source>__<operator>.py files in {args.solutions}")
    if args.only:
        files = [f for f in files if any(o in operator_id(f) for o in args.only)]
    rows = []
    for path in files:
        op = operator_id(path)
        row = {"operator": op}
        for tier in args.tiers:
            device_args = args.device or ("cuda" if _has_cuda() else "cpu")
            row[tier] = check(op, path, device=device_args, tier=tier, timeout=args.timeout)
            r = row[tier]
            speed = (r.get("timing") or {}).get("speedup")
            print(
                f"{op:50s} {tier:6s} {r.get('verdict'):18s} {speed if speed else '':>8} {r.get('wall_s', 0):6.1f}s "
                f"{(r.get('reason') or '')[:100]}",
                file=sys.stderr,
                flush=True,
            )
        rows.append(row)
    report = {
        "machine": platform.node(),
        "date": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()),
        "device": args.device,
        "solutions": str(args.solutions),
        "tiers": args.tiers,
        "rows": rows,
    }
    if args.out:
        args.out.write_text(json.dumps(report, indent=1))
    table = markdown(rows, args.tiers)
    if args.markdown:
        args.markdown.write_text(table)
    print(table)
    return 0


def _has_cuda() -> bool:
    try:
        import torch

        return torch.cuda.is_available()
    except ImportError:
        return False


if __name__ == "__main__":
    raise SystemExit(main())
