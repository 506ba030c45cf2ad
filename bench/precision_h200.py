"""Precision on a real GPU (issue 20 class 9): what Triton lowers tl.sin / tl.cos / tl.exp to, and
whether the ranked tiers tell fast or low-precision kernels from honest ones.

1. Lowering: the PTX of one-line kernels (sin.approx / cos.approx / ex2.approx, ftz or not), and
   tl.exp's results where exp(x) is subnormal (an ftz ex2 flushes them to zero).
2. Verdicts, through the Harness on the catalog's full tier, no timing: the reference solutions of
   aten::sin / aten::cos and of the float32 matrix products must be correct; the same files with
   fast-math sin.approx / cos.approx (inline PTX) or with tl.dot's TF32 input precision must not be.

    PYTHONPATH=. python3 bench/precision_h200.py --out precision.json
"""

from __future__ import annotations

import argparse
import json
import re
import time
from pathlib import Path

REFERENCE = Path("operators/solutions/triton_reference")
# operator -> reference file whose float32 products use tl.dot(..., input_precision="ieee")
GEMMS = {
    "aten::mm": "aten__mm.py",
    "aten::bmm": "aten__bmm.py",
    "aten::matmul": "aten__matmul.py",
    "aten::linear": "aten__linear.py",
    "cublas::cublasSgemmStridedBatched": "cublas__cublasSgemmStridedBatched.py",
    "cublas::cublasSgemmBatched_64": "cublas__cublasSgemmBatched_64.py",
}
FAST_MATH = {"aten::sin": ("aten__sin.py", "sin"), "aten::cos": ("aten__cos.py", "cos")}


def lowering() -> dict:
    import torch
    import triton
    import triton.language as tl

    @triton.jit
    def sin_kernel(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
        offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
        tl.store(y_ptr + offs, tl.sin(tl.load(x_ptr + offs, mask=offs < n)), mask=offs < n)

    @triton.jit
    def cos_kernel(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
        offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
        tl.store(y_ptr + offs, tl.cos(tl.load(x_ptr + offs, mask=offs < n)), mask=offs < n)

    @triton.jit
    def exp_kernel(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
        offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
        tl.store(y_ptr + offs, tl.exp(tl.load(x_ptr + offs, mask=offs < n)), mask=offs < n)

    report: dict = {"triton": triton.__version__, "torch": torch.__version__}
    x = torch.linspace(-1e4, 1e4, 1 << 20, device="cuda", dtype=torch.float32)
    for name, kernel, exact in (("sin", sin_kernel, torch.sin), ("cos", cos_kernel, torch.cos)):
        y = torch.empty_like(x)
        compiled = kernel[(x.numel() // 1024,)](x, y, x.numel(), BLOCK=1024)
        ptx = compiled.asm["ptx"]
        truth = exact(x.double())
        report[name] = {
            "ptx_ops": sorted(set(re.findall(rf"\b{name}\.[a-z0-9.]+", ptx))),
            "calls": sorted(set(re.findall(r"call[^;]*?(\w*sin\w*|\w*cos\w*)", ptx))),
            "max_abs_err_on_1e4": float((y.double() - truth).abs().max()),
        }
    x = torch.linspace(-103.0, -87.0, 1 << 16, device="cuda", dtype=torch.float32)
    y = torch.empty_like(x)
    compiled = exp_kernel[(x.numel() // 1024,)](x, y, x.numel(), BLOCK=1024)
    truth = torch.exp(x)
    subnormal = (truth != 0) & (truth.abs() < torch.finfo(torch.float32).tiny)
    report["exp"] = {
        "ptx_ops": sorted(set(re.findall(r"\bex2\.[a-z0-9.]+", compiled.asm["ptx"]))),
        "subnormal_results": int(subnormal.sum()),
        "flushed_to_zero": int((subnormal & (y == 0)).sum()),
        "max_rel_err_normal": float(((y - truth).abs() / truth.abs()).masked_fill(subnormal | (truth == 0), 0).max()),
    }
    return report


def fast_math_source(file: str, fn: str) -> str:
    source = (REFERENCE / file).read_text()
    honest = f"    y = tl.{fn}(x)\n"
    assert honest in source, file
    fast = (
        "    if COMPUTE == tl.float32:\n"
        f'        y = tl.inline_asm_elementwise("{fn}.approx.f32 $0, $1;", "=f,f", [x], dtype=tl.float32, '
        "is_pure=True, pack=1)\n"
        "    else:\n"
        f"        y = tl.{fn}(x)\n"
    )
    return source.replace(honest, fast)


def tf32_source(file: str) -> str:
    """The reference with every IEEE float32 product made TF32 (literal or through a PRECISION constexpr)."""
    source = (REFERENCE / file).read_text()
    changed = source.replace('input_precision="ieee"', 'input_precision="tf32"').replace(
        'PRECISION="ieee"', 'PRECISION="tf32"'
    )
    assert changed != source, file
    return changed


def verdicts(timeout_s: float, fail_fast: int, only: set[str]) -> list[dict]:
    from evaluator.harness import Harness

    jobs = []
    for op, (file, fn) in FAST_MATH.items():
        jobs.append((op, "reference", (REFERENCE / file).read_text(), True))
        jobs.append((op, f"{fn}.approx", fast_math_source(file, fn), False))
    for op, file in GEMMS.items():
        jobs.append((op, "reference (ieee)", (REFERENCE / file).read_text(), True))
        jobs.append((op, "tf32", tf32_source(file), False))
    jobs = [job for job in jobs if not only or f"{job[0]}/{job[1]}" in only or job[1] in only]
    rows = []
    # static layer off: the variants' inline PTX is what is being judged, not whether the AST policy
    # allows it; no timed tier (correctness only); a failing variant stops after fail_fast cases
    with Harness(device="cuda", static_policy=False, time_tiers=(), fail_fast_after=fail_fast) as harness:
        for op, variant, source, must_pass in jobs:
            started = time.monotonic()
            result = harness.evaluate(op, source, tier="full", timeout_s=timeout_s)
            failed = [c for c in result["cases"] if not c.get("passed")]
            rows.append(
                {
                    "operator": op,
                    "variant": variant,
                    "expected": "correct" if must_pass else "not correct",
                    "verdict": result["verdict"],
                    "ok": (result["verdict"] == "correct") == must_pass,
                    "cases_run": len(result["cases"]),
                    "cases_failed": len(failed),
                    "cases_skipped": result.get("cases_skipped", 0),
                    "first_failure": (failed[0].get("message") or failed[0].get("reason") or "")[:200]
                    if failed
                    else "",
                    "reason": result["reason"][:200],
                    "wall_s": round(time.monotonic() - started, 1),
                }
            )
            print(json.dumps(rows[-1]), flush=True)
    return rows


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--out", required=True)
    parser.add_argument("--timeout", type=float, default=240.0)
    parser.add_argument("--fail-fast", type=int, default=8)
    parser.add_argument("--skip-verdicts", action="store_true")
    parser.add_argument("--only", default="", help="variants to run (tf32, sin.approx, aten::mm/tf32, ...)")
    args = parser.parse_args()
    report = {"lowering": lowering()}
    print(json.dumps(report["lowering"], indent=1), flush=True)
    Path(args.out).write_text(json.dumps(report, indent=1))
    if not args.skip_verdicts:
        report["verdicts"] = verdicts(args.timeout, args.fail_fast, set(filter(None, args.only.split(","))))
    Path(args.out).write_text(json.dumps(report, indent=1))


if __name__ == "__main__":
    main()
