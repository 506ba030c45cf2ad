"""Shared building blocks for the vLLM 0.13 operator specs (no SPECS here).

Every vLLM spec is a plain function call with the baseline's parameter names. `make_inputs` returns a
dict keyed by exactly those names (tensors, lists of tensors, Python scalars, strings, dtypes), so
`invoke` is the same for all of them: call `impl(*inputs in parameter order)` and collect the return
value and/or the buffers the operator writes into.

Comparisons follow upstream KernelGenBench's rule (`UPSTREAM`: assert_close at the output dtype's resolution,
atol 1e-4) for float outputs, exact for indices, routing, copies and layouts. Where honest implementations were
measured to miss upstream's rule on the H200 (bench/vllm_tolerance_evidence.py), a spec keeps vLLM's own test
tolerance (NORM, atol = rtol = 1e-2, for rms_norm and fused_add_rms_norm; "within one quantisation step" for
quantiser outputs) and its fidelity note says what missed (`kept_looser`).

Smoke cases keep bfloat16 only where the comparison is exact (copies, layouts) or the dtype is an input
only: the Triton CPU interpreter truncates fp32 -> bf16 casts, which can cost one bf16 ulp and these
comparisons (unlike operators.tolerance) are not told that they judge an interpreter run. bfloat16 is
covered by the full/edge tiers on GPUs.
"""

from __future__ import annotations

import dataclasses
import inspect
from collections.abc import Callable, Mapping, Sequence
from typing import Any

import torch

from operators.catalog.vllm13._signatures import SIGNATURES
from operators.spec import Comparison, Cost, Inputs, OperatorSpec
from operators.tolerance import BASE_ATOL, RESOLUTION, widen

FP8 = torch.float8_e4m3fn
FP8_MAX = 448.0  # e4m3fn (OCP); vLLM's e4m3fnuz platforms use 240 and are out of scope here
FP8_MIN_SCALE = 1.0 / (FP8_MAX * 512.0)  # vLLM's lower clamp of dynamic fp8 scales

# vLLM tests/kernels/allclose_default.py
VD_ATOL = {torch.float16: 1e-3, torch.bfloat16: 1e-3, torch.float32: 1e-5}
VD_RTOL = {torch.float16: 1e-3, torch.bfloat16: 1.6e-2, torch.float32: 1.3e-6}


@dataclasses.dataclass(frozen=True)
class ScalarType:
    """Stand-in for vllm.scalar_type.ScalarType (vLLM is not installed): the weight element type
    passed to the Marlin GEMMs as `b_q_type`. `bias` is the value subtracted from the stored
    unsigned integer (uint4b8: stored 0..15, value = stored - 8)."""

    name: str
    size_bits: int
    bias: int


UINT4B8 = ScalarType("uint4b8", 4, 8)
UINT8B128 = ScalarType("uint8b128", 8, 128)


# ---------------------------------------------------------------- comparisons

Checker = Callable[[Any, Any, str], Comparison]


def _basic(out: Any, ref: torch.Tensor, what: str) -> Comparison | None:
    if not isinstance(out, torch.Tensor):
        return Comparison(False, reason=f"{what}: expected a tensor, got {type(out).__name__}")
    if out.dtype != ref.dtype:
        return Comparison(False, reason=f"{what}: dtype {out.dtype} != expected {ref.dtype}")
    if tuple(out.shape) != tuple(ref.shape):
        return Comparison(False, reason=f"{what}: shape {tuple(out.shape)} != expected {tuple(ref.shape)}")
    return None


def _errors(o: torch.Tensor, r: torch.Tensor) -> tuple[float, float]:
    finite = torch.isfinite(o) & torch.isfinite(r)
    if not bool(finite.any()):
        return 0.0, 0.0
    diff = (o - r).abs()[finite]
    return float(diff.max()), float((diff / r.abs()[finite].clamp_min(1e-30)).max())


def close(atol: float | Mapping[torch.dtype, float], rtol: float | Mapping[torch.dtype, float]) -> Checker:
    """|out - ref| <= atol + rtol * |ref| elementwise (NaN where the reference has NaN)."""

    def check(out: Any, ref: Any, what: str) -> Comparison:
        bad = _basic(out, ref, what)
        if bad is not None:
            return bad
        if out.numel() == 0:
            return Comparison(True, 0.0, 0.0)
        a = atol[ref.dtype] if isinstance(atol, Mapping) else atol
        r = rtol[ref.dtype] if isinstance(rtol, Mapping) else rtol
        r64, o64 = widen(ref, out)  # on the reference's device
        max_abs, max_rel = _errors(o64, r64)
        ok = torch.isclose(o64, r64, rtol=r, atol=a, equal_nan=True)
        if bool(ok.all()):
            return Comparison(True, max_abs, max_rel)
        return Comparison(
            False,
            max_abs,
            max_rel,
            f"{what}: {int((~ok).sum())} of {ok.numel()} elements outside atol={a:g}, rtol={r:g}",
        )

    return check


VD = close(VD_ATOL, VD_RTOL)
NORM = close(1e-2, 1e-2)
FP32_TIGHT = close(1e-5, 1e-5)


def upstream_close(reduce_dim: int = 1) -> Checker:
    """Upstream KernelGenBench's rule for vLLM outputs (`assert_close(act, ref, dtype)`, research/upstream_kgb.md
    §2): atol = 1e-4 * reduce_dim, rtol = RESOLUTION[dtype] (fp16 1e-3, bf16 0.016, fp32 1e-5); integer and
    bool outputs exact (their resolution is 0 and atol < 1); fp8 outputs compared as fp16 values, as upstream
    casts them before assert_close."""
    atol = BASE_ATOL * max(1, int(reduce_dim))

    def check(out: Any, ref: Any, what: str) -> Comparison:
        bad = _basic(out, ref, what)
        if bad is not None:
            return bad
        if not (ref.dtype.is_floating_point or ref.dtype.is_complex):
            return exact(out, ref, what)
        if ref.dtype == FP8:
            return close(atol, RESOLUTION[torch.float16])(out.to(torch.float16), ref.to(torch.float16), what)
        return close(atol, RESOLUTION[ref.dtype])(out, ref, what)

    return check


UPSTREAM = upstream_close()
UPSTREAM_RULE = "upstream's rule (assert_close at the output dtype: atol 1e-4, rtol fp16 1e-3 / bf16 0.016 / fp32 1e-5)"
# where the H200 figures behind each tolerance sentence are (bench/vllm_tolerance_evidence.py, full tier,
# seeds 0 and 1, the first cases within 6 s per operator)
TOLERANCE_EVIDENCE = "bench/results/h200-2026-12-02-vllm-tolerance"


def at_upstream_rule(solution: int = 0, reference: int = 0) -> str:
    """The fidelity words for outputs compared by upstream's rule, with what met it on the H200: our Triton
    reference solution on `solution` full-tier case-seeds, the reference run on the GPU against itself run
    on the host (two honest implementations of the same math) on `reference`."""
    met = []
    if solution:
        met.append(f"our Triton reference solution on {solution}")
    if reference:
        met.append(f"the reference on the GPU against itself on the host on {reference}")
    return f"{UPSTREAM_RULE}; on the H200 {' and '.join(met)} full-tier case-seeds met it ({TOLERANCE_EVIDENCE})"


def kept_looser(evidence: str) -> str:
    """The fidelity words for a comparison kept looser than upstream's rule, which honest implementations
    were measured to miss (`evidence`: which, on how many case-seeds, by how much)."""
    return f"kept looser than {UPSTREAM_RULE}, which honest implementations miss on the H200: {evidence} ({TOLERANCE_EVIDENCE})"


def exact(out: Any, ref: Any, what: str) -> Comparison:
    bad = _basic(out, ref, what)
    if bad is not None:
        return bad
    r = ref.detach()
    o = out.detach().to(r.device)
    if o.dtype == FP8:
        o, r = o.view(torch.uint8), r.view(torch.uint8)
    same = (o == r) | (torch.isnan(o) & torch.isnan(r)) if o.is_floating_point() else o == r
    if bool(same.all()):
        return Comparison(True, 0.0, 0.0)
    bad = int((~same).sum())
    return Comparison(False, reason=f"{what}: {bad} of {same.numel()} elements differ (exact match required)")


def int_within(step: int) -> Checker:
    """Integer quantiser output: |out - ref| <= step (rounding of values that sit on a half step)."""

    def check(out: Any, ref: Any, what: str) -> Comparison:
        bad = _basic(out, ref, what)
        if bad is not None:
            return bad
        r = ref.detach()
        diff = (out.detach().to(r.device, torch.int64) - r.to(torch.int64)).abs()
        worst = int(diff.max()) if diff.numel() else 0
        if worst <= step:
            return Comparison(True, float(worst), None)
        return Comparison(
            False,
            float(worst),
            None,
            f"{what}: {int((diff > step).sum())} elements differ by more than {step} (max {worst})",
        )

    return check


def fp8_within_one_step(out: Any, ref: Any, what: str) -> Comparison:
    """fp8 e4m3 quantiser output: within one e4m3 step of the reference (rtol 2^-3, and the subnormal
    spacing 2^-9 absolute), compared as values."""
    bad = _basic(out, ref, what)
    if bad is not None:
        return bad
    return close(2.0**-9, 0.125)(out.float(), ref.float(), what)


def ignore(out: Any, ref: Any, what: str) -> Comparison:
    """Scratch output whose content is implementation-defined (only its presence is required)."""
    return Comparison(True, reason=f"{what}: not compared")


def per_output(*checkers: Checker) -> Callable[[Any, Any, Any, Inputs], Comparison]:
    """compare() for an operator's outputs: checker i judges output i (one checker judges them all).
    A `None` reference output (an optional result the call did not produce) must come back `None`."""

    def judge(check: Checker, o: Any, r: Any, what: str) -> Comparison:
        if r is None:
            return Comparison(o is None, reason="" if o is None else f"{what}: expected None")
        return check(o, r, what)

    def compare(out: Any, ref: Any, case: Any, inputs: Inputs) -> Comparison:
        if not isinstance(ref, (tuple, list)):
            return judge(checkers[0], out, ref, "output")
        if not isinstance(out, (tuple, list)) or len(out) != len(ref):
            return Comparison(False, reason=f"expected {len(ref)} outputs, got {type(out).__name__}")
        checks = checkers if len(checkers) == len(ref) else (checkers[0],) * len(ref)
        worst_abs, worst_rel = 0.0, 0.0
        for i, (check, o, r) in enumerate(zip(checks, out, ref, strict=True)):
            c = judge(check, o, r, f"output[{i}]")
            if not c.passed:
                return c
            worst_abs = max(worst_abs, c.max_abs_err or 0.0)
            worst_rel = max(worst_rel, c.max_rel_err or 0.0)
        return Comparison(True, worst_abs, worst_rel)

    return compare


# ---------------------------------------------------------------- invoke / spec factory


def parameter_names(fn: Callable[..., Any]) -> list[str]:
    return list(inspect.signature(fn).parameters)


def make_invoke(params: Sequence[str], *, returns: bool, mutates: Sequence[str]) -> Callable[[Any, Inputs], Any]:
    """invoke(impl, inputs): positional call in baseline order; outputs = (return value if the baseline
    returns one) + the written buffers named in `mutates` (a list input contributes its tensors)."""
    names = tuple(params)
    written = tuple(mutates)

    def invoke(impl: Callable[..., Any], inputs: Inputs) -> Any:
        result = impl(*[inputs[p] for p in names])
        outs: list[Any] = []
        if returns:
            if isinstance(result, (tuple, list)):
                outs.extend(result)
            else:
                outs.append(result)
        for name in written:
            value = inputs[name]
            if isinstance(value, (list, tuple)):
                outs.extend(value)
            else:
                outs.append(value)
        return outs[0] if len(outs) == 1 else tuple(outs)

    return invoke


def bytes_cost(flops: Callable[[dict[str, Any], Inputs], float] | None = None, dtype: str = "float16"):
    """Cost = every tensor input read once (+ outputs approximated by the written buffers already
    counted as inputs; returned outputs are counted by the caller through `extra_out_bytes`)."""

    def cost(case: dict[str, Any], inputs: Inputs) -> Cost:
        from operators.catalog.common import tensor_bytes

        f = float(flops(case, inputs)) if flops is not None else 0.0
        return Cost(flops=f, bytes=float(tensor_bytes(inputs)), dtype=dtype)

    return cost


def vllm_spec(
    *,
    name: str,
    category: str,
    description: str,
    reference_impl: Callable[..., Any],
    make_inputs: Callable[[dict[str, Any], Any], Inputs],
    cases: Mapping[str, Sequence[dict[str, Any]]],
    fidelity: str,
    returns: bool,
    mutates: Sequence[str] = (),
    checkers: Sequence[Checker] | None = None,
    cost: Callable[[dict[str, Any], Inputs], Cost] | None = None,
    provisional: str = "",
    notes: str = "",
    constant_output_ok: str = "",
    compare: Callable[[Any, Any, Any, Inputs], Comparison] | None = None,
) -> OperatorSpec:
    """One `vllm13::<name>` spec. The reference's parameter names must be the baseline's."""
    params = parameter_names(reference_impl)
    if reference_impl.__name__ != name:
        raise ValueError(f"reference for {name} is named {reference_impl.__name__}")
    n_outputs = (1 if returns else 0) + len(mutates)
    checks = tuple(checkers) if checkers is not None else (VD,) * max(1, n_outputs)
    all_exact = all(c is exact for c in checks)
    return OperatorSpec(
        id=f"vllm13::{name}",
        category=category,
        description=description,
        signature=SIGNATURES[name],
        entrypoints=(name,),
        invoke=make_invoke(params, returns=returns, mutates=mutates),
        cases=cases,
        make_inputs=make_inputs,
        fidelity=fidelity,
        reference_impl=reference_impl,
        compare=compare if compare is not None else per_output(*checks),
        exact=all_exact,
        mutates=tuple(mutates),
        cost=cost,
        constant_output_ok=constant_output_ok,
        provisional=provisional,
        mc=False,
        notes=notes,
    )


def dt(name: str) -> torch.dtype:
    from operators.spec import dtype_of

    return dtype_of(name)
