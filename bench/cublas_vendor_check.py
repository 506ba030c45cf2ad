"""Check the cuBLAS catalog against real cuBLAS: every routine's vendor baseline (cuBLAS through ctypes,
operators/catalog/cublas/_vendor.py) vs its PyTorch reference, on the first cases of the full tier plus the
smoke and edge tiers, compared with the spec's own rule. Prints a Markdown table (and optionally JSON).

    python bench/cublas_vendor_check.py [--full-cases 3] [--tiers smoke full edge] [--only NAME ...]
                                        [--json out.json] [--time]

Needs torch and a CUDA device only (no Django, no triton); run from the repository root. A FAIL row means
the reference and cuBLAS disagree beyond the spec's tolerance (or cuBLAS wrote where BLAS must not):
either the reference is wrong or cuBLAS departs from the BLAS definition on that case; the reason column
says which elements. A failing case that fills operands with NaN (edge cases: `nan_*` keys, `garbage`) is
run again without the fill; when cuBLAS then agrees, the row is `nan-read` (cuBLAS read an operand that
BLAS does not read, and cuBLAS's documentation does not promise to skip it: allowed by cuBLAS) or
`NAN-READ vs docs` (its documentation promises not to read it). ERROR rows carry the exception (e.g. a
cuBLAS status code). --time adds the median of CUDA-event timings of the vendor call and of the reference
on the first full case. The exit status is 0 when every row is `pass` or `nan-read`.
"""

from __future__ import annotations

import argparse
import json
import platform
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import torch

from operators.catalog.cublas import _vendor, level1, level2, level3
from operators.spec import Rng


def clone(value):
    if isinstance(value, torch.Tensor):
        return value.clone()
    if isinstance(value, list):
        return [clone(v) for v in value]
    return value


def clone_inputs(inputs: dict) -> dict:
    return {k: clone(v) for k, v in inputs.items()}


def median_ms(fn, inputs: dict, repeats: int = 20) -> float:
    samples = []
    for _ in range(repeats):
        fresh = clone_inputs(inputs)
        torch.cuda.synchronize()
        start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        start.record()
        fn(fresh)
        end.record()
        torch.cuda.synchronize()
        samples.append(start.elapsed_time(end))
    return statistics.median(samples)


# Case keys that fill an operand with NaN where BLAS does not read it, and which zero scalar lets BLAS skip it
# (None: the unused triangle or band, which cuBLAS documents as not referenced)
NAN_FILLS = {
    "nan_A": "alpha",
    "nan_B": "alpha",
    "nan_AB": "alpha",
    "nan_x": "alpha",
    "nan_C": "beta",
    "nan_y": "beta",
    "garbage": None,
}


def nan_fills(case: dict) -> list[str]:
    return [key for key in NAN_FILLS if case.get(key) in (True, "nan")]


def documented_skip(routine: str, fills: list[str]) -> bool:
    """Whether cuBLAS's documentation promises not to read every NaN-filled operand of the case: beta == 0
    operands and unused triangles always, alpha == 0 operands only in DOCUMENTED_ALPHA_ZERO_SKIP (which
    holds geam, whose `nan_B` is its beta operand)."""
    return all(NAN_FILLS[f] != "alpha" or routine in _vendor.DOCUMENTED_ALPHA_ZERO_SKIP for f in fills)


def run_case(spec, vendor, case: dict, seed: int, device: str):
    """(comparison of the vendor call against the reference, the pristine inputs)."""
    inputs = spec.make_inputs(case, Rng(seed, device))
    pristine = clone_inputs(inputs)
    ref = spec.run_reference(clone_inputs(inputs))
    out = spec.invoke(vendor, clone_inputs(inputs))
    if device == "cuda":
        torch.cuda.synchronize()
    return spec.compare(out, ref, case, pristine), pristine


def classify(spec, vendor, case: dict, result, seed: int, device: str) -> tuple[str, str]:
    """(status, reason) of one compared case; a failing NaN-filled case is re-run without its fill."""
    if result.passed:
        return "pass", result.reason
    fills = nan_fills(case)
    if not fills:
        return "FAIL", result.reason
    clean = {k: v for k, v in case.items() if k not in fills}
    clean_result, _ = run_case(spec, vendor, clean, seed, device)
    if not clean_result.passed:
        return "FAIL", f"{result.reason} (also fails without the NaN fill: {clean_result.reason})"
    scalars = ", ".join(f"{s} = {case[s]}" for s in ("alpha", "beta") if s in case)
    what = f"passes without NaN in {'/'.join(fills)} ({scalars}): cuBLAS read an operand BLAS does not read"
    if documented_skip(spec.name, fills):
        return "NAN-READ vs docs", f"{what}, which cuBLAS's documentation says it does not read; {result.reason}"
    return "nan-read", f"{what}; cuBLAS's documentation does not promise to skip it; {result.reason}"


def check_spec(
    spec, vendor, tiers: list[str], full_cases: int, seed: int, timing: bool, device: str = "cuda"
) -> list[dict]:
    """Rows for one routine; `vendor` is its vendor call (None: one NO BASELINE row)."""
    if vendor is None:
        return [
            {
                "operator": spec.name,
                "tier": "-",
                "case": "-",
                "status": "NO BASELINE",
                "max_abs": None,
                "max_rel": None,
                "reason": "vendor_baseline returned None",
            }
        ]
    rows = []
    for tier in tiers:
        cases = list(spec.tier(tier))
        if tier == "full":
            cases = cases[:full_cases]
        for index, case in enumerate(cases):
            row = {"operator": spec.name, "tier": tier, "case": index, "params": case}
            try:
                result, pristine = run_case(spec, vendor, case, seed, device)
                status, reason = classify(spec, vendor, case, result, seed, device)
                row.update(status=status, max_abs=result.max_abs_err, max_rel=result.max_rel_err, reason=reason)
                if timing and tier == "full" and index == 0:
                    row["vendor_ms"] = median_ms(lambda i: spec.invoke(vendor, i), pristine)
                    row["reference_ms"] = median_ms(spec.run_reference, pristine)
            except Exception as exc:  # report and go on: one routine must not hide the others
                row.update(status="ERROR", max_abs=None, max_rel=None, reason=f"{type(exc).__name__}: {exc}")
            rows.append(row)
    return rows


def fmt(value) -> str:
    return "-" if value is None else f"{value:.3g}"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--tiers", nargs="+", default=["smoke", "full", "edge"])
    parser.add_argument("--full-cases", type=int, default=3, help="first N cases of the full tier (default 3)")
    parser.add_argument("--only", nargs="*", help="routine names (default: all 50)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--json", help="also write the rows as JSON here")
    parser.add_argument("--time", action="store_true", help="time vendor vs reference on the first full case")
    args = parser.parse_args()
    if not torch.cuda.is_available():
        print("needs a CUDA device", file=sys.stderr)
        return 2
    # the cuBLAS modules directly (not the registry), so other sources' catalogs need not import here
    specs = [s for s in level1.SPECS + level2.SPECS + level3.SPECS if not args.only or s.name in args.only]
    blas = _vendor.load(torch.version.hip is not None)
    started = time.time()
    rows = []
    for spec in specs:
        vendor = spec.vendor_baseline("cuda") if spec.vendor_baseline else None
        rows.extend(check_spec(spec, vendor, args.tiers, args.full_cases, args.seed, args.time))
    library = blas.path if blas else "none"
    print(
        f"# cuBLAS vendor check: {torch.cuda.get_device_name()} · torch {torch.__version__} · CUDA "
        f"{torch.version.cuda} · library {library} · python {platform.python_version()} · "
        f"{time.time() - started:.0f} s\n"
    )
    print("| routine | tier | case | status | max abs err | max rel err | vendor ms | reference ms | reason |")
    print("|---|---|---|---|---|---|---|---|---|")
    for r in rows:
        print(
            f"| {r['operator']} | {r['tier']} | {r['case']} | {r['status']} | {fmt(r['max_abs'])} | "
            f"{fmt(r['max_rel'])} | {fmt(r.get('vendor_ms'))} | {fmt(r.get('reference_ms'))} | "
            f"{(r.get('reason') or '')[:160]} |"
        )
    statuses = ("pass", "nan-read", "NAN-READ vs docs", "FAIL", "ERROR", "NO BASELINE")
    counts = {s: sum(1 for r in rows if r["status"] == s) for s in statuses}
    print("\n" + ", ".join(f"{k}: {v}" for k, v in counts.items()))
    if args.json:
        Path(args.json).write_text(json.dumps({"library": library, "rows": rows}, indent=1, default=str))
    return 0 if counts["pass"] + counts["nan-read"] == len(rows) else 1


if __name__ == "__main__":
    raise SystemExit(main())
