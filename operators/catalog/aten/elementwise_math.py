"""Elementwise math ATen operators with one tensor input (group A of the ATen catalog).

Full tiers reproduce upstream KernelGenBench's tests (test_ops_with_benchmark.py at fork HEAD
b1966bc, research/upstream_kgb.md §2.1): same shapes, dtypes, input distributions and overloads
(`op` and `op.out`). Upstream's pure-Python-number overloads (`acosh.int`, `log10.float`, ...)
never reach a device kernel, so they are left out; each fidelity note gives the resulting count.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import torch

from operators.catalog.aten.elementwise_support import (
    EDGE_SIZES,
    OPMATH_FIDELITY,
    UNARY_FIDELITY,
    Draw,
    build_tensor,
    elementwise_spec,
    opmath_reference,
    out_buffer,
    randn,
    unary_cases,
    unary_inputs,
    unary_invoke,
    uniform,
)
from operators.catalog.common import FLOAT_DTYPES, PERF_TOKEN_HIDDEN, POINTWISE_SHAPES
from operators.spec import Case, Inputs, OperatorSpec, Rng, dtype_of

SHAPES_512 = [(2, 3), (128, 256), (512, 512)]
SHAPES_1024 = [(2, 3), (128, 256), (1024, 1024)]
UPSTREAM_DTYPES = ["float32", "float16", "bfloat16"]  # the order of upstream's own per-op tests


def _fidelity(upstream: int, ours: int, extra: str = "") -> str:
    left_out = upstream - ours
    counts = f" Full tier: {ours} cases = upstream's {upstream}" + (
        f" minus {left_out} Python-number overload cases that never reach a device kernel." if left_out else "."
    )
    return UNARY_FIDELITY + counts + (" " + extra if extra else "")


def _unary(
    op: str,
    *,
    description: str,
    draw: Draw,
    full_shapes: Sequence[Sequence[int]],
    upstream: int,
    variants: Sequence[str] = ("default", "out"),
    notes: str = "",
    flops: float = 1.0,
    specials: bool = True,
    exact: bool = False,
    fidelity_extra: str = "",
) -> OperatorSpec:
    overloads = ["default" if v == "default" else "out" for v in variants]
    cases = unary_cases(
        full_shapes=full_shapes,
        variants=variants,
        full_dtypes=UPSTREAM_DTYPES if list(full_shapes) != POINTWISE_SHAPES else FLOAT_DTYPES,
        specials=specials,
    )
    ours = len(cases["full"])
    return elementwise_spec(
        op=op,
        overloads=overloads,
        description=description,
        invoke=unary_invoke(op),
        make_inputs=unary_inputs(draw),
        cases=cases,
        notes=notes,
        flops=flops,
        exact=exact,
        fidelity=_fidelity(upstream, ours, fidelity_extra),
    )


def _mixture(*bands: tuple[float, Draw]) -> Draw:
    """Each element from one of several draws, picked with the given probabilities (a second uniform
    draw), so one ranked case covers every band of an operator's range."""

    def draw(rng: Rng, shape: Sequence[int], dtype: str) -> torch.Tensor:
        pick = rng.uniform(shape, 0.0, 1.0, "float32")
        out = bands[-1][1](rng, shape, dtype)
        start = 0.0
        for weight, band in bands[:-1]:
            values = band(rng, shape, dtype)
            out = torch.where((pick >= start) & (pick < start + weight), values, out)
            start += weight
        return out.to(dtype_of(dtype))

    return draw


def _log_magnitude(low_exp: float, high_exp: float) -> Draw:
    """+-10^U(low_exp, high_exp): every binade between, both signs."""

    def draw(rng: Rng, shape: Sequence[int], dtype: str) -> torch.Tensor:
        mag = torch.pow(10.0, rng.uniform(shape, low_exp, high_exp, "float64"))
        sign = torch.where(rng.uniform(shape, 0.0, 1.0, "float32") < 0.5, -1.0, 1.0).to(torch.float64)
        return (mag * sign).to(dtype_of(dtype))

    return draw


def _positive(draw: Draw) -> Draw:
    def positive(rng: Rng, shape: Sequence[int], dtype: str) -> torch.Tensor:
        return draw(rng, shape, dtype).abs()

    return positive


# Trig arguments for the ranked tiers: half N(0, 1) (upstream's distribution), a quarter U(-8 pi, 8 pi)
# (several periods: sin.approx.f32 is only specified on [-pi, pi]), a quarter +-10^U(1, 4) (10 to 1e4,
# where a reduction by a single-precision 2 pi is off by up to ~1e-3 while libdevice's sinf/cosf stay
# within 1-2 ulp). tests/operators/test_precision.py shows the fast-math emulation failing these.
TRIG_DRAW = _mixture((0.5, randn()), (0.25, uniform(-8 * math.pi, 8 * math.pi)), (0.25, _log_magnitude(1.0, 4.0)))
TRIG_FIDELITY = (
    "Inputs: upstream's N(0, 1) for half the elements; the rest U(-8 pi, 8 pi) and +-10^U(1, 4), so the ranked "
    "tiers hold large arguments (fast-math sin.approx / cos.approx fail there; issue 20 class 9)."
)
# cosh: upstream's U(-3, 3), plus |x| up to 88 (e^x near fp32's limit, cosh still finite) and |x| in
# [90, 100] (cosh overflows to +inf). (88.72, 89.41), where e^x overflows but cosh does not, is left out:
# the contract there (finite) is met by neither 0.5 (e^x + e^-x) nor the repo's reference solution.
COSH_DRAW = _mixture(
    (0.5, uniform(-3.0, 3.0)),
    (0.35, uniform(-88.0, 88.0)),
    (0.15, _log_magnitude(math.log10(90.0), 2.0)),
)
# rsqrt: upstream's N(0, 1) (negatives give NaN) plus positive magnitudes over the whole fp32 range,
# subnormals included (2^-149 .. 1e38): rsqrt.approx.ftz reads a subnormal as 0 and returns +inf where
# the answer is ~1e19 .. 3e22. fp16/bf16 inputs are the same draw rounded (bf16 keeps subnormals too).
def _subnormal_fp32(rng: Rng, shape: Sequence[int], dtype: str) -> torch.Tensor:
    # bfloat16 keeps fp32's exponent range, but Triton 3.9's CPU interpreter converts bf16 subnormals
    # to fp32 wrongly (2.48e-39 loads as 8.08e-39; measured), so bf16 cases draw the smallest normals
    # instead and the fp32 cases carry the subnormal check.
    if dtype == "bfloat16":
        return _log_magnitude(-37.9, -37.0)(rng, shape, dtype).abs()
    return _log_magnitude(-44.8, -38.0)(rng, shape, dtype).abs()


RSQRT_DRAW = _mixture(
    (0.5, randn()),
    (0.4, _positive(_log_magnitude(-37.0, 38.0))),
    (0.1, _subnormal_fp32),
)


def _special_entr_draw(rng: Rng, shape: Sequence[int], dtype: str) -> torch.Tensor:
    # upstream: rand - 0.2 with the first element set to 0 (entr(0) = 0, entr(x<0) = -inf)
    x = uniform(-0.2, 0.8)(rng, shape, dtype)
    if x.numel() > 0:
        x.view(-1)[0] = 0
    return x


def _bitwise_not_draw(rng: Rng, shape: Sequence[int], dtype: str) -> torch.Tensor:
    if dtype == "bool":
        return rng.randint(0, 2, shape, "int64").to(torch.bool)
    # upstream's range, clipped to the narrow edge-tier dtypes
    info = torch.iinfo(dtype_of(dtype))
    return rng.randint(max(-0x7FFF, info.min), min(0x7FFF, info.max), shape, dtype)


def _bitwise_not_cases() -> dict[str, list[Case]]:
    int_dtypes = ["int16", "int32", "bool"]
    smoke = [
        {"shape": [7], "dtype": "int32"},
        {"shape": [3, 33], "dtype": "bool"},
        {"shape": [2, 5, 17], "dtype": "int16"},
    ]
    full = [{"shape": list(s), "dtype": d} for s in POINTWISE_SHAPES for d in int_dtypes]
    edge = [{"shape": s, "dtype": ("int32", "bool", "int64", "uint8", "int8")[i % 5]} for i, s in enumerate(EDGE_SIZES)]
    edge += [
        {"shape": [64, 48], "dtype": "int64", "layout": "transposed"},
        {"shape": [33, 65], "dtype": "bool", "layout": "strided"},
        {"shape": [3, 5, 7, 9], "dtype": "uint8", "layout": "transposed"},
    ]
    perf = [{"shape": list(s), "dtype": d} for s in PERF_TOKEN_HIDDEN for d in ("int32", "bool")]
    return {"smoke": smoke, "full": full, "edge": edge, "perf": perf}


def _bitwise_not_inputs(case: Case, rng: Rng) -> Inputs:
    return {
        "self": build_tensor(
            rng, case["shape"], case["dtype"], _bitwise_not_draw, layout=case.get("layout", "contiguous")
        ),
        "variant": "default",
    }


def _polygamma_invoke(impl: Any, inputs: Inputs) -> Any:
    if inputs["variant"] == "out":
        return torch.ops.aten.polygamma.out(inputs["n"], inputs["self"], out=out_buffer(inputs["self"]))
    return torch.ops.aten.polygamma.default(inputs["n"], inputs["self"])


def _polygamma_spec() -> OperatorSpec:
    base = unary_cases(full_shapes=SHAPES_512, variants=("default", "out"), full_dtypes=UPSTREAM_DTYPES, specials=False)
    cases = {
        "smoke": [{**c, "n": n} for c, n in zip(base["smoke"], (0, 1, 2), strict=True)],
        "full": [{**c, "n": n} for n in (0, 1, 2) for c in base["full"]],
        "edge": [{**c, "n": (0, 1, 2, 3)[i % 4]} for i, c in enumerate(base["edge"])],
        "perf": [{**c, "n": 1} for c in base["perf"]],
    }
    return elementwise_spec(
        op="polygamma",
        overloads=["default", "out"],
        description="polygamma(n, x): the n-th derivative of the digamma function psi(x) = d/dx ln Gamma(x), "
        "elementwise; n = 0 is digamma itself.",
        invoke=_polygamma_invoke,
        make_inputs=unary_inputs(uniform(0.5, 4.5), n=0),
        cases=cases,
        flops=40,
        notes="The order n comes first: polygamma(int n, Tensor self). Inputs lie in [0.5, 4.5]; n is 0, 1, 2 "
        "(edge also 3). psi^(n)(x) = (-1)^(n+1) n! * sum_k 1/(x+k)^(n+1) for n >= 1; use the recurrence "
        "to move x above ~6 and an asymptotic series there. Output dtype = input dtype.",
        fidelity=_fidelity(54, len(cases["full"]), "Inputs as upstream: U(0.5, 4.5) (drawn in fp32, then cast)."),
    )


def _logit_draw_for(eps: float | None) -> Draw:
    def draw(rng: Rng, shape: Sequence[int], dtype: str) -> torch.Tensor:
        if eps is None:
            return uniform(0.001, 0.999)(rng, shape, dtype)
        # upstream: the first two elements are exactly 0 and 1, which only the eps clamp makes finite
        x = uniform(0.0, 1.0)(rng, shape, "float32")
        flat = x.view(-1)
        if flat.numel() >= 2:
            flat[0], flat[1] = 0.0, 1.0
        return x.to(dtype_of(dtype))

    return draw


def _logit_inputs(case: Case, rng: Rng) -> Inputs:
    eps = case.get("eps")
    return unary_inputs(_logit_draw_for(eps), eps=None)(case, rng)


def _logit_spec() -> OperatorSpec:
    base = unary_cases(full_shapes=SHAPES_512, variants=("default", "out"), full_dtypes=UPSTREAM_DTYPES, specials=False)
    epses = (None, 1e-6, 1e-3)
    cases = {
        "smoke": [{**c, "eps": e} for c, e in zip(base["smoke"], epses, strict=True)],
        "full": [{**c, "eps": e} for e in epses for c in base["full"]],
        "edge": [{**c, "eps": epses[i % 3]} for i, c in enumerate(base["edge"])],
        "perf": [{**c, "eps": None} for c in base["perf"]],
    }
    return elementwise_spec(
        op="logit",
        overloads=["default", "out"],
        description="logit(x, eps) = log(z / (1 - z)) with z = clamp(x, eps, 1 - eps) when eps is given, "
        "z = x otherwise; elementwise.",
        invoke=unary_invoke("logit", "eps"),
        make_inputs=_logit_inputs,
        cases=cases,
        flops=4,
        reference=opmath_reference(unary_invoke("logit", "eps")),
        notes="eps is an optional float (None means no clamp; then x = 0 gives -inf, x = 1 gives +inf, x outside "
        "[0, 1] gives NaN). With eps cases the first two inputs are exactly 0 and 1. Compute in fp32 for "
        "fp16/bf16 and round once.",
        fidelity=_fidelity(
            54,
            len(cases["full"]),
            OPMATH_FIDELITY.strip() + " Exception to the float64 check: "
            "x = 1 clamped to 1 - eps in fp32 (as both PyTorch kernels do) is 1e-3 "
            "relative from the float64 value, so eps cases are compared with the "
            "fp32 evaluation only. Inputs as upstream: U(0.001, 0.999) without eps; U(0, 1) with "
            "exact 0 and 1 planted when eps is set.",
        ),
    )


SPECS: list[OperatorSpec] = [
    _unary(
        "acosh",
        description="acosh(x) = ln(x + sqrt(x^2 - 1)), elementwise; defined for x >= 1.",
        draw=uniform(1.0, 10.0),
        full_shapes=SHAPES_512,
        upstream=33,
        flops=4,
        notes="Inputs lie in [1, 10]; x < 1 gives NaN. Compute in fp32 for fp16/bf16 and round once.",
    ),
    _unary(
        "asin",
        description="asin(x), elementwise; defined on [-1, 1] (NaN outside).",
        draw=uniform(-1.0, 1.0),
        full_shapes=SHAPES_512,
        upstream=33,
        flops=4,
        notes="Inputs lie in [-1, 1]. Keep accuracy near |x| = 1 (asin(x) = pi/2 - 2 asin(sqrt((1-x)/2))).",
    ),
    _unary(
        "cos",
        description="cos(x), elementwise.",
        draw=TRIG_DRAW,
        full_shapes=POINTWISE_SHAPES,
        variants=("default",),
        upstream=18,
        flops=2,
        notes="Inputs mix N(0, 1), U(-8 pi, 8 pi) and +-10^U(1, 4) (arguments up to 1e4) over upstream's "
        "POINTWISE_SHAPES including the 0-d shape (). Reduce the argument accurately (libdevice cosf, tl.cos "
        "where it lowers to it): fast-math cos.approx / __cosf is off by up to ~1e-3 at 1e4. Compute in fp32 for "
        "fp16/bf16.",
        fidelity_extra=TRIG_FIDELITY,
    ),
    _unary(
        "cosh",
        description="cosh(x) = (e^x + e^-x) / 2, elementwise.",
        draw=COSH_DRAW,
        full_shapes=SHAPES_512,
        upstream=34,
        flops=4,
        notes="Inputs mix U(-3, 3), U(-88, 88) (e^x near fp32's limit) and +-[90, 100] (cosh overflows to +inf, "
        "as the reference). fp16/bf16 overflow above ~11.1 / ~89 likewise.",
        fidelity_extra="Inputs: upstream's U(-3, 3) for half the elements; the rest cover exp's range up to "
        "|x| = 88 and overflow (|x| in [90, 100]) so the ranked tiers hold the whole contract.",
    ),
    _unary(
        "erfc",
        description="erfc(x) = 1 - erf(x), the complementary error function, elementwise.",
        draw=randn(),
        full_shapes=SHAPES_1024,
        upstream=30,
        flops=20,
        notes="Compute without cancellation for large x (use erfc directly, not 1 - erf(x)).",
    ),
    _unary(
        "floor",
        description="floor(x): the largest integer not greater than x, elementwise; same dtype.",
        draw=randn(),
        full_shapes=SHAPES_512,
        upstream=35,
        flops=1,
        notes="floor keeps NaN, +-inf and -0.0. Output dtype = input dtype.",
    ),
    _unary(
        "i0",
        description="i0(x): the modified Bessel function of the first kind of order 0, elementwise.",
        draw=randn(scale=3.0),
        full_shapes=SHAPES_512,
        upstream=18,
        flops=30,
        specials=False,
        notes="Inputs are 3 * N(0, 1). i0 is even and grows like e^|x| / sqrt(2 pi |x|); use the Cephes "
        "Chebyshev expansions (|x| <= 8 and |x| > 8) in fp32.",
    ),
    _unary(
        "log10",
        description="log10(x), elementwise.",
        draw=uniform(0.01, 1.01),
        full_shapes=SHAPES_1024,
        upstream=35,
        flops=2,
        notes="Inputs lie in [0.01, 1.01]; log10(0) = -inf, log10(x < 0) = NaN.",
    ),
    _unary(
        "neg",
        description="neg(x) = -x, elementwise.",
        draw=randn(),
        full_shapes=POINTWISE_SHAPES,
        variants=("default",),
        upstream=18,
        exact=True,
        notes="Compared bit for bit (upstream uses assert_equal): -0.0 for +0.0, NaN stays NaN.",
    ),
    _unary(
        "rsqrt",
        description="rsqrt(x) = 1 / sqrt(x), elementwise.",
        draw=RSQRT_DRAW,
        full_shapes=POINTWISE_SHAPES,
        variants=("default",),
        upstream=18,
        flops=2,
        notes="Half the inputs are N(0, 1) as upstream (negative x gives NaN, must match positions; +0 gives +inf, "
        "-0 gives -inf); the rest are positive magnitudes over the whole fp32 range, subnormals (down to "
        "2^-149) included: rsqrt(subnormal) is a large finite number, so an ftz rsqrt.approx must scale "
        "subnormal inputs first.",
        fidelity_extra="Inputs: upstream's N(0, 1) for half the elements; the rest 10^U(-37, 38) and subnormal "
        "10^U(-44.8, -38) so the ranked tiers hold the whole fp32 range.",
    ),
    _unary(
        "sgn",
        description="sgn(x): the sign of x (-1, 0 or +1; x / |x| for complex), elementwise.",
        draw=randn(),
        full_shapes=SHAPES_512,
        upstream=18,
        specials=False,
        notes="Real dtypes only here: -1 for x < 0, 0 for x == 0, +1 for x > 0, same dtype as x.",
    ),
    _unary(
        "sin",
        description="sin(x), elementwise.",
        draw=TRIG_DRAW,
        full_shapes=POINTWISE_SHAPES,
        variants=("default",),
        upstream=18,
        flops=2,
        notes="Inputs mix N(0, 1), U(-8 pi, 8 pi) and +-10^U(1, 4) (arguments up to 1e4) over POINTWISE_SHAPES "
        "including (). Reduce the argument accurately (libdevice sinf, tl.sin where it lowers to it): fast-math "
        "sin.approx / __sinf is off by up to ~1e-3 at 1e4. Compute in fp32 for fp16/bf16.",
        fidelity_extra=TRIG_FIDELITY,
    ),
    _unary(
        "special_entr",
        description="special_entr(x) = -x ln(x) for x > 0, 0 for x == 0, -inf for x < 0, elementwise.",
        draw=_special_entr_draw,
        full_shapes=SHAPES_512,
        upstream=18,
        flops=3,
        notes="Inputs are U(-0.2, 0.8) with the first element exactly 0: negative inputs must give -inf, 0 gives "
        "0, NaN stays NaN.",
    ),
    _logit_spec(),
    _polygamma_spec(),
    elementwise_spec(
        op="bitwise_not",
        overloads=["default"],
        description="bitwise_not(x) = ~x for integer tensors, logical not for bool tensors, elementwise.",
        invoke=unary_invoke("bitwise_not"),
        make_inputs=_bitwise_not_inputs,
        cases=_bitwise_not_cases(),
        exact=True,
        notes="Integer and bool dtypes only (int16, int32, bool upstream; int8, uint8, int64 in edge). For bool the "
        "result is the logical not (stored 0/1), not the bit complement of the byte. Compared exactly.",
        fidelity="Reference is the built-in ATen op. Checked on cpu that it equals -x - 1 for signed integers, "
        "255 - x for uint8 and logical_not for bool on the smoke and edge cases. Full tier: 18 cases = "
        "upstream's POINTWISE_SHAPES x [int16, int32, bool].",
    ),
]


def _square_cases() -> dict[str, list[Case]]:
    cases = unary_cases(full_shapes=SHAPES_1024, variants=("default",), full_dtypes=UPSTREAM_DTYPES)
    cases["full"] += [
        {"shape": list(s), "dtype": d, "variant": "out", "out_layout": lay}
        for s in SHAPES_1024
        for d in UPSTREAM_DTYPES
        for lay in ("contiguous", "noncontiguous")
    ]
    cases["smoke"][1] = {**cases["smoke"][1], "variant": "out"}
    cases["smoke"][2] = {**cases["smoke"][2], "variant": "out", "out_layout": "noncontiguous"}
    cases["edge"].append(
        {"shape": [17, 31], "dtype": "float32", "variant": "out", "out_layout": "noncontiguous", "layout": "transposed"}
    )
    return cases


SPECS.append(
    elementwise_spec(
        op="square",
        overloads=["default", "out"],
        description="square(x) = x * x, elementwise.",
        invoke=unary_invoke("square"),
        make_inputs=unary_inputs(randn()),
        cases=_square_cases(),
        flops=1,
        notes="The .out overload must write into the given `out` tensor, which may be non-contiguous (every other "
        "column of a wider buffer), and return it. aten::square is a composite op (it decomposes to "
        "pow.Tensor_Scalar) so register for autograd keys too when testing by hand.",
        fidelity=UNARY_FIDELITY + " Full tier: 27 cases = upstream's 9 functional + 18 .out cases (contiguous and "
        "non-contiguous out buffers).",
    )
)
