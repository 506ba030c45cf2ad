"""Default output comparison: upstream KernelGenBench's tolerances (research/upstream_kgb.md §2,
"Tolerance"), which are FlagGems' `RESOLUTION` table with atol = 1e-4 * R, R the reduction length.

- atol = 1e-4 * reduce_dim; rtol = RESOLUTION[dtype]; integer and bool outputs exact.
- NaN must sit exactly where the reference has NaN; infinities must match in sign and place.
- dtype and shape must match the reference exactly.
- On the Triton CPU interpreter fp32->bf16 casts truncate instead of rounding to nearest even,
  which can cost one more bf16 ulp: `interpreter=True` doubles the bf16 rtol (2^-6 -> 2^-5).

float32 / complex64 accumulations (GEMM, GEMV, matmul, linear): `compare_accumulated` instead.
atol = 1e-4 * K is far wider than IEEE fp32 accumulation error and lets TF32 through (its
10-bit-mantissa inputs cost ~2^-11 relative per product). The bound there is the probabilistic
rounding-error bound for a sum of K products in any order (Higham & Mary, "A new approach to
probabilistic rounding error analysis", 2019): per output element

    |out - exact| <= LAMBDA * u * sqrt(K) * hypot(walk, drift) + MU * u * (drift + addend + |exact|)

with u = 2^-24, exact the float64 result, walk = sqrt(sum_k |alpha a_k b_k|^2) (how far the partial sums
of zero-mean products wander), drift = |alpha sum_k a_k b_k| (how far they travel when the products do
not cancel), addend = |beta c| + |bias| (terms combined once after the sum). LAMBDA = 8 makes an honest
fp32 sum in any order exceed it with probability below 2 exp(-32) per element; TF32 misses it by 7-800x
(tests/operators/test_precision.py measures both). MU covers the roundings of alpha*acc, beta*c, the
final add and the output rounding.
"""

from __future__ import annotations

import math
from typing import Any

import torch

from operators.spec import Comparison

RESOLUTION: dict[torch.dtype, float] = {
    torch.float16: 1e-3,
    torch.bfloat16: 0.016,
    torch.float32: 1e-5,
    torch.float64: 1e-5,
    torch.complex64: 1.3e-6,
    torch.complex128: 1e-6,
    torch.float8_e4m3fn: 0.125,
}
BASE_ATOL = 1e-4
# compare_accumulated (float32 / complex64 accumulations; see the module docstring)
FP32_UNIT_ROUNDOFF = 2.0**-24
ACCUMULATION_LAMBDA = 8.0
ACCUMULATION_MU = 4.0
ACCUMULATED_DTYPES = (torch.float32, torch.complex64)


def tolerances(dtype: torch.dtype, reduce_dim: int = 1, *, interpreter: bool = False) -> tuple[float, float]:
    """(atol, rtol) for one output dtype; (0, 0) for integer and bool dtypes."""
    if not (dtype.is_floating_point or dtype.is_complex):
        return 0.0, 0.0
    rtol = RESOLUTION.get(dtype, 1e-3)
    if interpreter and dtype == torch.bfloat16:
        rtol *= 2
    return BASE_ATOL * max(1, int(reduce_dim)), rtol


def widen(*tensors: torch.Tensor) -> tuple[torch.Tensor, ...]:
    """The tensors in float64 (complex128 when any is complex) on the first one's device, so that a
    comparison runs where the outputs live; all on the host when that device has no float64 (some
    vendors' chips), the one case where a comparison moves whole tensors to the host."""
    wide = torch.complex128 if any(t.is_complex() for t in tensors) else torch.float64
    device = tensors[0].device
    try:
        return tuple(t.detach().to(device, wide) for t in tensors)
    except (RuntimeError, TypeError):
        return tuple(t.detach().to("cpu", wide) for t in tensors)


def _tensor_errors(out: torch.Tensor, ref: torch.Tensor) -> tuple[float, float]:
    o, r = widen(out, ref)
    finite = torch.isfinite(o) & torch.isfinite(r)
    if not bool(finite.any()):
        return 0.0, 0.0
    diff = (o - r).abs()[finite]
    rel = diff / r.abs()[finite].clamp_min(1e-30)
    return float(diff.max()), float(rel.max())


def compare_tensors(
    out: Any,
    ref: torch.Tensor,
    *,
    exact: bool = False,
    reduce_dim: int = 1,
    interpreter: bool = False,
    what: str = "output",
) -> Comparison:
    if not isinstance(out, torch.Tensor):
        return Comparison(False, reason=f"{what}: expected a tensor, got {type(out).__name__}")
    if out.dtype != ref.dtype:
        return Comparison(False, reason=f"{what}: dtype {out.dtype} != expected {ref.dtype}")
    if tuple(out.shape) != tuple(ref.shape):
        return Comparison(False, reason=f"{what}: shape {tuple(out.shape)} != expected {tuple(ref.shape)}")
    if out.numel() == 0:
        return Comparison(True, 0.0, 0.0)
    # judged where the tensors live: on a GPU a 100M-element output compares in milliseconds, on
    # the host in seconds (once per candidate call and timed output)
    r = ref.detach()
    o = out.detach().to(r.device)
    max_abs, max_rel = _tensor_errors(o, r)
    if exact or not (r.dtype.is_floating_point or r.dtype.is_complex):
        if r.dtype.is_floating_point or r.dtype.is_complex:
            same = (o == r) | (torch.isnan(o) & torch.isnan(r))
        else:
            same = o == r
        if bool(same.all()):
            return Comparison(True, max_abs, max_rel)
        bad = int((~same).sum())
        return Comparison(
            False, max_abs, max_rel, f"{what}: {bad} of {o.numel()} elements differ (exact match required)"
        )
    atol, rtol = tolerances(r.dtype, reduce_dim, interpreter=interpreter)
    if r.dtype == torch.float8_e4m3fn:
        o, r = o.to(torch.float32), r.to(torch.float32)
    close = torch.isclose(o, r, rtol=rtol, atol=atol, equal_nan=True)
    if bool(close.all()):
        return Comparison(True, max_abs, max_rel)
    bad = int((~close).sum())
    nan_bad = int((torch.isnan(o) != torch.isnan(r)).sum())
    detail = f", {nan_bad} NaN mismatches" if nan_bad else ""
    return Comparison(
        False, max_abs, max_rel, f"{what}: {bad} of {o.numel()} elements outside atol={atol:g}, rtol={rtol:g}{detail}"
    )


def compare_outputs(
    out: Any, ref: Any, *, exact: bool = False, reduce_dim: int = 1, interpreter: bool = False, what: str = "output"
) -> Comparison:
    """Compare nested outputs (tensor, tuple/list of outputs, Python scalar, None)."""
    if isinstance(ref, torch.Tensor):
        return compare_tensors(out, ref, exact=exact, reduce_dim=reduce_dim, interpreter=interpreter, what=what)
    if isinstance(ref, (tuple, list)):
        if not isinstance(out, (tuple, list)) or len(out) != len(ref):
            got = f"{type(out).__name__} of {len(out)}" if isinstance(out, (tuple, list)) else type(out).__name__
            return Comparison(False, reason=f"{what}: expected a sequence of {len(ref)} outputs, got {got}")
        worst_abs, worst_rel = 0.0, 0.0
        for i, (o, r) in enumerate(zip(out, ref, strict=True)):  # lengths checked above
            c = compare_outputs(o, r, exact=exact, reduce_dim=reduce_dim, interpreter=interpreter, what=f"{what}[{i}]")
            if not c.passed:
                return c
            worst_abs = max(worst_abs, c.max_abs_err or 0.0)
            worst_rel = max(worst_rel, c.max_rel_err or 0.0)
        return Comparison(True, worst_abs, worst_rel)
    if ref is None:
        return Comparison(out is None, reason="" if out is None else f"{what}: expected None")
    if isinstance(ref, (bool, int, float, complex)):
        if isinstance(out, torch.Tensor) and out.numel() == 1:
            out = out.item()
        if not isinstance(out, (bool, int, float, complex)):
            return Comparison(False, reason=f"{what}: expected a Python number, got {type(out).__name__}")
        if isinstance(ref, bool) or isinstance(ref, int) and not isinstance(ref, bool) and exact:
            ok = out == ref
            return Comparison(ok, reason="" if ok else f"{what}: {out!r} != expected {ref!r}")
        err = abs(complex(out) - complex(ref))
        rel = err / max(abs(complex(ref)), 1e-30)
        both_nan = isinstance(ref, float) and math.isnan(ref) and isinstance(out, float) and math.isnan(out)
        ok = both_nan or err <= BASE_ATOL * max(1, reduce_dim) + 1e-5 * abs(complex(ref))
        return Comparison(ok, err, rel, "" if ok else f"{what}: {out!r} != expected {ref!r}")
    return Comparison(out == ref, reason="" if out == ref else f"{what}: {out!r} != expected {ref!r}")


def accumulation_bound(
    exact: torch.Tensor,
    walk: torch.Tensor,
    drift: torch.Tensor,
    addend: torch.Tensor | float = 0.0,
    *,
    reduce_len: int,
    is_complex: bool = False,
) -> torch.Tensor:
    """The largest |out - exact| an IEEE fp32 accumulation of `reduce_len` products in any order may show
    per element (module docstring), all arguments float64 magnitudes shaped like the output. Complex
    outputs: each component sums 2K real products and the modulus of two components adds sqrt(2)."""
    k = 2 * max(1, int(reduce_len)) if is_complex else max(1, int(reduce_len))
    u = FP32_UNIT_ROUNDOFF
    walked = ACCUMULATION_LAMBDA * u * math.sqrt(k) * torch.hypot(walk, drift)
    combined = ACCUMULATION_MU * u * (drift + addend + exact.abs())
    bound = walked + combined
    if is_complex:
        bound = bound * math.sqrt(2.0)
    return bound + float(torch.finfo(torch.float32).tiny)  # a flushed subnormal result is no error


def compare_accumulated(
    out: Any,
    exact: torch.Tensor,
    *,
    walk: torch.Tensor,
    drift: torch.Tensor,
    addend: torch.Tensor | float = 0.0,
    reduce_len: int,
    dtype: torch.dtype,
    what: str = "output",
) -> Comparison:
    """Judge a float32 / complex64 accumulation (GEMM, GEMV, matmul) against its float64 value `exact`
    with `accumulation_bound`: accepts IEEE fp32 sums in any order, blocking, split-K or FMA use, and
    3xTF32 (whose per-product error, ~2^-22, is below fp32's own accumulation error); rejects TF32 and
    2xBF16 (bf16x3) inputs. `dtype` is the expected output dtype; NaN must sit where `exact` has NaN and
    infinities must match in sign and place, as in compare_tensors."""
    if not isinstance(out, torch.Tensor):
        return Comparison(False, reason=f"{what}: expected a tensor, got {type(out).__name__}")
    if out.dtype != dtype:
        return Comparison(False, reason=f"{what}: dtype {out.dtype} != expected {dtype}")
    if tuple(out.shape) != tuple(exact.shape):
        return Comparison(False, reason=f"{what}: shape {tuple(out.shape)} != expected {tuple(exact.shape)}")
    if out.numel() == 0:
        return Comparison(True, 0.0, 0.0)
    e = exact.detach()
    o, e = widen(out.detach().to(e.device), e)
    w, d = (t.detach().to(e.device, torch.float64) for t in (walk, drift))
    a = addend.detach().to(e.device, torch.float64) if isinstance(addend, torch.Tensor) else addend
    bound = accumulation_bound(e, w.abs(), d.abs(), a, reduce_len=reduce_len, is_complex=o.is_complex())
    # the output is judged as rounded to its dtype: exact values beyond its range overflow to inf there too
    e_out = e.to(dtype).to(e.dtype)
    finite = torch.isfinite(o) & torch.isfinite(e_out)
    diff = (o - e).abs()
    close = torch.where(finite, diff <= bound, (o == e_out) | (torch.isnan(o) & torch.isnan(e_out)))
    max_abs, max_rel = _tensor_errors(o, e)
    if bool(close.all()):
        return Comparison(True, max_abs, max_rel)
    bad = int((~close).sum())
    worst = float((diff / bound)[finite].max()) if bool(finite.any()) else float("inf")
    return Comparison(
        False,
        max_abs,
        max_rel,
        f"{what}: {bad} of {o.numel()} elements outside the fp32 accumulation bound (K={reduce_len}; "
        f"worst error {worst:.3g}x the bound: more than IEEE fp32 in any summation order gives, as TF32 "
        "or bf16 inputs do)",
    )


def compare_matmul(
    out: Any,
    ref: Any,
    a: torch.Tensor,
    b: torch.Tensor,
    *,
    bias: torch.Tensor | None = None,
    reduce_dim: int,
    interpreter: bool | None = None,
    what: str = "output",
) -> Comparison:
    """torch.matmul(a, b) (+ bias): float32 results by `compare_accumulated` against the float64 product
    of the inputs; other dtypes (fp16, bf16: the output rounding dominates) by the dtype tolerances.
    interpreter=None: assume the Triton interpreter when the reference lives on the cpu (the only way
    Triton runs there)."""
    if interpreter is None:
        interpreter = isinstance(ref, torch.Tensor) and ref.device.type == "cpu"
    if not isinstance(ref, torch.Tensor) or ref.dtype not in ACCUMULATED_DTYPES:
        return compare_outputs(out, ref, reduce_dim=reduce_dim, interpreter=interpreter, what=what)
    a64, b64 = widen(a.to(ref.device), b.to(ref.device))
    exact = torch.matmul(a64, b64)
    walk = torch.matmul(a64.abs().square(), b64.abs().square()).sqrt()
    drift = exact.abs()
    addend: torch.Tensor | float = 0.0
    if bias is not None:
        bias64 = widen(bias.to(ref.device))[0]
        exact = exact + bias64
        addend = bias64.abs().expand_as(exact)
    return compare_accumulated(
        out, exact, walk=walk, drift=drift, addend=addend, reduce_len=reduce_dim, dtype=ref.dtype, what=what
    )
