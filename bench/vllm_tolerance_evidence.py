"""Can an honest implementation meet upstream KernelGenBench's tolerance on a vLLM operator?

For each vLLM spec and each case of a tier (two seeds), inputs are built on the host and copied to the
device, and two honest outputs are judged against the spec's reference under upstream's rule
(`operators.catalog.vllm13._support.upstream_close`: assert_close at the dtype's resolution, atol 1e-4)
and under the spec's own comparison:
- `solution`: our Triton reference solution (operators/solutions/triton_reference), on the device;
- `device_reference`: the PyTorch reference itself run on the device, judged against the same reference
  run on the host (two implementations of the same math that differ only in rounding and summation order:
  cuBLAS against the CPU's BLAS, a GPU reduction against a sequential one). Only with --device cuda.

    python bench/vllm_tolerance_evidence.py --device cuda --tier full --out evidence.json
    TRITON_INTERPRET=1 python bench/vllm_tolerance_evidence.py --device cpu --tier smoke

Needs torch + triton only. The figures back each spec's tolerance reason (docs/fidelity.md).
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import sys
import time
from pathlib import Path
from typing import Any

import torch

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from operators import registry  # noqa: E402
from operators.catalog.vllm13._support import UPSTREAM  # noqa: E402
from operators.spec import OperatorSpec, Rng  # noqa: E402


def to_device(value: Any, device: str) -> Any:
    if isinstance(value, torch.Tensor):
        return value.to(device)
    if isinstance(value, dict):
        return {k: to_device(v, device) for k, v in value.items()}
    if isinstance(value, list):
        return [to_device(v, device) for v in value]
    if isinstance(value, tuple):
        return tuple(to_device(v, device) for v in value)
    return value


def outputs(value: Any) -> list[Any]:
    return list(value) if isinstance(value, (tuple, list)) else [value]


def judge_upstream(out: Any, ref: Any) -> tuple[bool, str, float]:
    """Upstream's rule on every output (each output upstream's test compares is among them)."""
    worst = 0.0
    for i, (o, r) in enumerate(zip(outputs(out), outputs(ref), strict=False)):
        if r is None or not isinstance(r, torch.Tensor):
            continue
        c = UPSTREAM(o.to(r.device) if isinstance(o, torch.Tensor) else o, r, f"output[{i}]")
        worst = max(worst, c.max_abs_err or 0.0)
        if not c.passed:
            return False, c.reason, worst
    return True, "", worst


def load_solution(spec: OperatorSpec) -> Any | None:
    path = registry.reference_solution_path(spec)
    if path is None:
        return None
    module_spec = importlib.util.spec_from_file_location("solution_" + spec.name, path)
    module = importlib.util.module_from_spec(module_spec)
    module_spec.loader.exec_module(module)
    return getattr(module, spec.name)


def measure(spec: OperatorSpec, *, device: str, tier: str, seeds: tuple[int, ...], budget_s: float) -> dict:
    solution = load_solution(spec)
    kinds = (["solution"] if solution is not None else []) + (["device_reference"] if device != "cpu" else [])
    tally = {k: {"cases": 0, "upstream_failed": 0, "own_failed": 0, "first_upstream_failure": ""} for k in kinds}
    started = time.perf_counter()
    for case in spec.tier(tier):
        if time.perf_counter() - started > budget_s:
            break
        for seed in seeds:
            host_ref = spec.run_reference(spec.make_inputs(case, Rng(seed)))
            dev_ref = spec.run_reference(to_device(spec.make_inputs(case, Rng(seed)), device))
            candidates = {}
            if solution is not None:
                candidates["solution"] = (
                    spec.invoke(solution, to_device(spec.make_inputs(case, Rng(seed)), device)),
                    dev_ref,
                )
            if device != "cpu":
                candidates["device_reference"] = (to_device(dev_ref, "cpu"), host_ref)
            for kind, (out, ref) in candidates.items():
                row = tally[kind]
                row["cases"] += 1
                passed, reason, _ = judge_upstream(out, ref)
                if not passed:
                    row["upstream_failed"] += 1
                    if not row["first_upstream_failure"]:
                        row["first_upstream_failure"] = f"{json.dumps(case, sort_keys=True)} seed {seed}: {reason}"
                own = spec.compare(out, ref, case, spec.make_inputs(case, Rng(seed)))
                if not own.passed:
                    row["own_failed"] += 1
    return {
        "operator": spec.id,
        "tier": tier,
        "device": device,
        "wall_s": round(time.perf_counter() - started, 1),
        **tally,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--device", default="cuda")
    parser.add_argument("--tier", default="full")
    parser.add_argument("--operators", nargs="*", help="vllm13 names (default: all 50)")
    parser.add_argument("--budget-s", type=float, default=20.0, help="seconds of cases per operator")
    parser.add_argument("--out", type=Path)
    args = parser.parse_args()
    specs = registry.all_specs("vllm13")
    if args.operators:
        specs = [s for s in specs if s.name in set(args.operators)]
    rows = []
    for spec in specs:
        try:
            row = measure(spec, device=args.device, tier=args.tier, seeds=(0, 1), budget_s=args.budget_s)
        except Exception as exc:  # one broken operator must not hide the others' figures
            row = {"operator": spec.id, "error": f"{type(exc).__name__}: {exc}"[:400]}
        rows.append(row)
        print(json.dumps(row), flush=True)
    if args.out:
        args.out.write_text(json.dumps(rows, indent=1) + "\n")


if __name__ == "__main__":
    main()
